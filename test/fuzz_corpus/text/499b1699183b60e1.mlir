"builtin.module"() ({
  "vyre.kernel"() ({
    "vyre.block"() ({
      %96 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %97 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      "vyre.loop"(%96, %97) ({
      }) {var = "i6"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
      %101 = "vyre.workgroup_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
      %102 = "vyre.lit_u32"() {value = 6085774} : () -> !vyre.type<u32>
      %103 = "vyre.binop"(%101, %102) {kind = "eq"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %104 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
      %105 = "vyre.binop"(%103, %104) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %106 = "vyre.load"(%105) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %ll_2 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      %107 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %108 = "vyre.binop"(%ll_2, %107) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %109 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
      %110 = "vyre.binop"(%108, %109) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %111 = "vyre.load"(%110) {buffer = "tile2"} : (!vyre.type<u32>) -> !vyre.type<bf16>
      %ll_3 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      %112 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %113 = "vyre.binop"(%ll_3, %112) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %114 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
      %115 = "vyre.binop"(%113, %114) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %116 = "vyre.load"(%115) {buffer = "tile2"} : (!vyre.type<u32>) -> !vyre.type<bf16>
      %117 = "vyre.select"(%106, %111, %116) : (!vyre.type<u32>, !vyre.type<bf16>, !vyre.type<bf16>) -> !vyre.type<bf16>
      %ll_4 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      %118 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %119 = "vyre.binop"(%ll_4, %118) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %120 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %121 = "vyre.load"(%120) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %122 = "vyre.lit_u32"() {value = 4294967295 : i64} : () -> !vyre.type<u32>
      %123 = "vyre.load"(%122) {buffer = "out"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %124 = "vyre.binop"(%121, %123) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %125 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %126 = "vyre.binop"(%124, %125) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %127 = "vyre.binop"(%119, %126) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %128 = "vyre.load"(%127) {buffer = "tile2"} : (!vyre.type<u32>) -> !vyre.type<bf16>
      %129 = "vyre.lit_u32"() {value = 4294967295 : i64} : () -> !vyre.type<u32>
      %130 = "vyre.invocation_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
      %131 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
      %132 = "vyre.select"(%129, %130, %131) : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %133 = "vyre.load"(%132) {buffer = "rg"} : (!vyre.type<u32>) -> !vyre.type<bf16>
      %134 = "vyre.fadd"(%128, %133) : (!vyre.type<bf16>, !vyre.type<bf16>) -> !vyre.type<bf16>
      %135 = "vyre.kernel"(%117, %134) {predicate = "ne"} : (!vyre.type<bf16>, !vyre.type<bf16>) -> !vyre.type<bool>
    }) : () -> ()
  }) {buffers = [#vyre.buffer<@r64 : read_only u64 binding(1)>, #vyre.buffer<@rv2 : read_only vec2u32 binding(3)>, #vyre.buffer<@rbytes : read_only bytes binding(4)>, #vyre.buffer<@rg : read_only bf16 binding(5)>, #vyre.buffer<@ri : read_only i32 binding(6)>, #vyre.buffer<@acc : read_write u32 binding(7)>, #vyre.buffer<@ru : read_only u32 binding(8)>, #vyre.buffer<@out : read_write u32 binding(9)>, #vyre.buffer<@tile1 : workgroup bool[3]>, #vyre.buffer<@tile2 : workgroup bf16[2]>], sym_name = "random_3015", workgroup_size = [1, 1, 2]} : () -> ()
}) : () -> ()