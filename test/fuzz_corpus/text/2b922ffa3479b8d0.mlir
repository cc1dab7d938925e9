builtin.module {
  vyre.kernel @r workgroup_size(4, 1, 2) buffers(@og : read_write bf16 binding(0), @ri : read_only i32 binding(1), @obs : read_write bytes binding(2), @ov4 : read_write vec4u32 binding(3), @rv2 : read_only vec2u32 binding(5), @out : read_write u32 binding(8), @o: read_write u32 binding(9), @ru : read_only u32 binding(4294967295)) {
 %0 = vyre.invocation_id z
 %1 = vyre.lit_u32 8
 %2 = vyre.binop mul %0, %1  %3 = vyre.invocation_id y
    %4 = vyre.lit_u32 4
    %5 = vyre.binop mul %3, %4
    %6 = vyre.binop add %2, %5
    %7 = vyre.invocation_id x
    %8 = vyre.binop add %6, %7
    vyre.let "gl" = %8
    %18 = vyre.lit_u32 7
    %19 = vyre.lit_u32 2
    %20 = vyre.binop mod %18, %19
    %21 = vyre.load @ri[%20] : i32
    %22 = vyre.cast %21 to u32
    %23 = vyre.lit_u32 3
    %24 = vyre.binop mod %22, %23
    %25 = vyre.lit_u32 0
    vyre.loop "i1" = %24 to %25 {
      %gl = vyre.var "gl" : u32
      vyre.if %gl {
      }
    }
  }
}
