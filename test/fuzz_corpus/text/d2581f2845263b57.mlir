"builtin.module"() ({
  "vyre.kernel"() ({
    %21 = "vyre.local_id"() {axis = -1 : i64} : () -> !vyre.type<u32>
    %50 = "vyre.lit_u32"() {value = 21474} : () -> !vyre.type<u32>
    %51 = "vyre.unop"(%50) {kind = "logical_not"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %52 = "lit_u32"() {value = 64} : () -> !vyre.type<u32>
    %53 = "vyre.binop"(%51, %52) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %54 = "vyre.load"(%53) {buffer = "rb"} : (!vyre.type<u32>) -> !vyre.type<bool>
    %55 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
    %56 = "load"(%55) {buffer = "rg"} : (!vyre.type<u32>) -> !vyre.type<bf16>
    %57 = "vyre.bitcast"(%56) : (!vyre.type<bf16>) -> !vyre.type<u32>
    %58 = "vyre.buf_len"() {buffer = "rb"} : () -> !vyre.type<u32>
    %59 = "lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %60 = "vyre.binop"(%58, %59) {kind = "sub"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %61 = "vyre.load"(%60) {buffer = "rb"} : (!vyre.type<u32>) -> !vyre.type<bool>
    %62 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
    %63 = "vyre.lit_u32"() {value = 127 : i64} : () -> !vyre.type<u32>
    %64 = "vyre.select"(%61, %62, %63) : (!vyre.type<bool>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %65 = "vyre.select"(%54, %57, %64) : (!vyre.type<bool>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.if"(%65) ({
    }, {
    }) : (!vyre.type<u32>) -> ()
    %71 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
    "vyre.if"(%71) ({
      %84 = "vyre.lit_u32"() {value = 2147483648 : i64} : () -> !vyre.type<u32>
      %85 = "vyre.load"(%84) {buffer = "ri"} : (!vyre.type<u32>) -> !vyre.type<i32>
      %86 = "vyre.unop"(%85) {kind = "ctz"} : (!vyre.type<i32>) -> !vyre.type<u32>
      %87 = "vyre.unop"(%86) {kind = "reverse_bits"} : (!vyre.type<u32>) -> !vyre.type<u32>
      "vyre.if"(%87) ({
      }, {
      }) : (!vyre.type<u32>) -> ()
    }, {
      %gl_8 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %171 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
      %172 = "vyre.binop"(%gl_8, %171) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %173 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    }) : (!vyre.type<u32>) -> ()
  }) {buffers = [#vyre.buffer<@rb : read_only bool binding(1)>, #vyre.buffer<@out : read_write u32 binding(3)>, #vyre.buffer<@rbytes : read_only bytes binding(4)>, #vyre.buffer<@rg : read_only bf16 binding(5)>, #vyre.buffer<@ri : read_only i32 binding(6)>, #vyre.buffer<@own : read_write u32 binding(7)>, #vyre.buffer<@par : uniform u32 binding(9)>, #vyre.buffer<@ru : read_only u32 binding(10)>, #vyre.buffer<@ov2 : read_write vec2u32 binding(11)>], sym_name = "random_1019", workgroup_size = [1, 1, 1]} : () -> ()
}) : () -> ()
