"builtin.module"() ({
  "vyre.kernel"() ({
    %18 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<bool>
    "vyre.if"(%18) ({
    }, {
      "vyre.block"() ({
      }) : () -> ()
      %ll_1 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      %73 = "vyre.lit_u32"() {value = 4294967295 : i64} : () -> !vyre.type<u32>
      %74 = "vyre.binop"(%ll_1, %73) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %75 = "vyre.load"(%74) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %76 = "vyre.lit_u32"() {value = 2147483647 : i64} : () -> !vyre.type<u32>
      %77 = "vyre.binop"(%75, %76) {kind = "lt"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %78 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %79 = "vyre.binop"(%77, %78) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %80 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
      "vyre.loop"(%79, %80) ({
        %ll_2 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      }) {var = "i7"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
    }) : (!vyre.type<bool>) -> ()
    "vyre.block"() ({
      %120 = "vyre.lit_u32"() {value = 4294967295 : i64} : () -> !vyre.type<u32>
      %121 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
    }) : () -> ()
    "vyre.barrier"() : () -> ()
    %138 = "vyre.lit_u32"() {value = 65536 : i64} : () -> !vyre.type<u32>
    %139 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %140 = "vyre.binop"(%138, %139) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %141 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    "vyre.loop"(%140, %141) ({
    }) {var = "i9"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
    "vyre.barrier"() : () -> ()
    %266 = "vyre.workgroup_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
    %267 = "vyre.unop"(%266) {kind = "negate"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %268 = "vyre.lit_u32"() {value = 35 : i64} : () -> !vyre.type<u32>
    %269 = "vyre.binop"(%267, %268) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %270 = "vyre.load"(%269) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %271 = "vyre.lit_float"() {bits = 59520 : i64} : () -> !vyre.type<bf16>
    %272 = "vyre.fis_nan"(%271) : (!vyre.type<bf16>) -> !vyre.type<bool>
    %273 = "vyre.lit_bool"() {value = 0 : i64} : () -> !vyre.type<bool>
    %274 = "vyre.select"(%270, %272, %273) : (!vyre.type<u32>, !vyre.type<bool>, !vyre.type<bool>) -> !vyre.type<bool>
    "vyre.if"(%274) ({
    ^bb0:
    }, {
    }) : (!vyre.type<bool>) -> ()
    %ll_6 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
    %280 = "vyre.buf_len"() {buffer = "out"} : () -> !vyre.type<u32>
    %281 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
    %282 = "vyre.binop"(%280, %281) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %283 = "vyre.buf_len"() {buffer = "oh"} : () -> !vyre.type<u32>
    %284 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
    %285 = "vyre.binop"(%283, %284) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.loop"(%282, %285) ({
      "vyre.block"() ({
        %328 = "vyre.lit_u32"() {value = 4294967295 : i64} : () -> !vyre.type<u32>
        %v8_1 = "vyre.var"() {name = "v8"} : () -> !vyre.type<u32>
        "vyre.store"(%328, %v8_1) {buffer = "out"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
      }) : () -> ()
      %gl_18 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %330 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
      %331 = "vyre.binop"(%gl_18, %330) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %332 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %333 = "vyre.binop"(%331, %332) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    }) {var = "i22"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
  }) {buffers = [#vyre.buffer<@ru : read_only u32 binding(0)>, #vyre.buffer<@ob : read_write bool binding(1)>, #vyre.buffer<@r64 : read_only u64 binding(2)>, #vyre.buffer<@obytes : read_write bytes binding(3)>, #vyre.buffer<@out : read_write u32 binding(4)>, #vyre.buffer<@rbytes : read_only bytes binding(6)>, #vyre.buffer<@ov4 : read_write vec4u32 binding(9)>, #vyre.buffer<@oh : read_write f16 binding(10)>, #vyre.buffer<@tile1 : workgroup vec4u32[10]>, #vyre.buffer<@tile2 : workgroup u64[18]>], sym_name = "random_1003", workgroup_size = [3, 3, 1]} : () -> ()
}) : () -> ()
