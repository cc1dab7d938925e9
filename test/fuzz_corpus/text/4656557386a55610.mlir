"builtin.module"() ({
  "vyre.kernel"() ({
    "vyre.block"() ({
      %gl = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %32 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32> %33 = "vyre.binop"(%gl, %32) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %34 = "vyre.lit_u32"() {value =55638 : i64} : () -> !vyre.type<u32> %35 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
%36 = "vyre.load"(%35) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
%gl_1 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %37 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %38 = "vyre.binop"(%gl_1, %37) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %39 = "vyre.lit_u32"() {value = 4109567038 : i64} : () -> !vyre.type<u32>
      %40 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %41 = "vyre.binop"(%39, %40) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %42 = "vyre.binop"(%38, %41) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %43 = "vyre.load"(%42) {buffer = "own"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %44 = "vyre.select"(%34, %36, %43) : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %45 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %46 = "vyre.binop"(%44, %45) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %47 = "vyre.binop"(%33, %46) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %48 = "vyre.lit_i32"() {value = -2 : i64} : () -> !vyre.type<i32>
      %49 = "vyre.bitcast"(%48) : (!vyre.type<i32>) -> !vyre.type<bf16>
      %50 = "vyre.bitcast"(%49) : (!vyre.type<bf16>) -> !vyre.type<u32>
      "builtin.module"(%47, %50) {buffer = "own"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
    }) : () -> ()
    "vyre.block"() ({
      %93 = "vyre.lit_float"() {bits = 49024 : i64} : () -> !vyre.type<bf16>
      %94 = "vyre.bitcast"(%93) : (!vyre.type<bf16>) -> !vyre.type<u32>
      %95 = "vyre.unop"(%94) {kind = "reverse_bits"} : (!vyre.type<u32>) -> !vyre.type<u32>
      "vyre.if"(%95) ({
      }, {
      }) : (!vyre.type<u32>) -> ()
    }) : () -> ()
    %167 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %168 = "vyre.buf_len"() {buffer = "tile1"} : () -> !vyre.type<u32>
    %169 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
    %170 = "vyre.binop"(%168, %169) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.loop"(%167, %170) ({
    }) {var = "i6"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
  }) {buffers = [#vyre.buffer<@ut : read_write u32 binding(2)>, #vyre.buffer<@ru : read_only u32 binding(3)>, #vyre.buffer<@of : read_write f32 binding(4)>, #vyre.buffer<@rf : read_only f32 binding(5)>, #vyre.buffer<@rh : read_only f16 binding(6)>, #vyre.buffer<@own : read_write u32 binding(8)>, #vyre.buffer<@tile1 : workgroup u64[33]>], sym_name = "random_1007", workgroup_size = [16, 1, 1]} : () -> ()
}) : () -> ()