  vyre.kernel @random_1005 workgroup_size(3, 2, 2) buffers(@ru : read_only u32 binding(0), @rv4 : read_only vec4u32 binding(1), @out : read_write u32 binding(2), @ri : read_only i32 binding(4), @par : uniform u32 binding(5), @rb : read_only bool binding(6), @o64 : read_write u64 binding(7), @r64 : read_only u64 binding(9), @rg : read_only bf16 binding(10), @tile1 : workgroup bool[12]) {
builtin.module {
    %0 = vyre.workgroup_id z
    %1 = vyre.lit_u32 1
    %2 = vyre.binop mul %0, %1
    %3 = vyre.workgroup_id y
    %4 = vyre.binop add %2, %3
    %5 = vyre.lit_u32 4
    %6 = vyre.binop mul %4, %5
    %7 = vyre.workgroup_id x
    %8 = vyre.binop add %6, %7
    %9 = vyre.lit_u32 12
    %10 = vyre.binop mul %8, %9
    %11 = vyre.local_id z
    %12 = vyre.lit_u32 6
    %13 = vyre.binop mul %11, %12
    %14 = vyre.local_id y
    %15 = vyre.lit_u32 3
    %16 = vyre.binop mul %14, %15
    %17 = vyre.binop add %13, %16
    %18 = vyre.local_id x
    %19 = vyre.binop add %17, %18
    %20 = vyre.binop add %10, %19
    vyre.let "gl" = %20
    %21 = vyre.local_id z
    %22 = vyre.lit_u32 6
    %23 = vyre.binop mul %21, %22
    %24 = vyre.local_id y
    %25 = vyre.lit_u32 3
    %26 = vyre.binop mul %24, %25
    %27 = vyre.binop add %23, %26
    %28 = vyre.local_id x
    %29 = vyre.binop add %27, %28
    vyre.let "ll" = %29
    %35 = vyre.lit_u32 0
    %36 = vyre.load @par[%35] : u32
    %37 = vyre.workgroup_id y
    %38 = vyre.binop mod %36, %37
    vyre.if %38 {
      %67 = vyre.buf_len @par
      %68 = vyre.lit_u32 0
      %69 = vyre.binop sub %67, %68
      %70 = vyre.load @par[%69] : u32
      %71 = vyre.lit_u32 4294967295
      %72 = vyre.binop shl %70, %71
      %73 = vyre.lit_u32 3
      %74 = vyre.binop mod %72, %73
      %gl_2 = vyre.var "gl" : u32
      %75 = vyre.lit_float 0x7199 : bf16
      %76 = vyre.bitcast %75 to u32
      %77 = vyre.load @par[%76] : u32
      %78 = vyre.binop eq %gl_2, %77
      %79 = vyre.lit_u32 5
      %80 = vyre.binop mod %78, %79
      vyre.loop "i5" = %74 to %80 {
        %88 = vyre.lit_u32 7
      }
      vyre.block {
        %gl_3 = vyre.var "gl" : u32
        %94 = vyre.lit_u32 0
      }
          vyre.block {
      }
    }
    vyre.block {
      %gl_9 = vyre.var "gl" : u32
      %144 = vyre.lit_u32 0
      %145 = vyre.load @par[%144] : u32
      %146 = vyre.lit_bool false
      %147 = vyre.cast %146 to vec2u32
      %148 = vyre.lit_bool true
      %149 = vyre.cast %148 to vec2u32
      %150 = vyre.select %145, %147, %149
      %151 = vyre.cast %150 to i32
      vyre.let "v7" = %151
    }
    %158 = vyre.lit_u32 33
    %159 = vyre.load @ru[%158] : u32
    %160 = vyre.unop reverse_bits %159
    %161 = vyre.lit_u32 0
    %162 = vyre.unop reverse_bits %161
    %163 = vyre.binop and %160, %162
    vyre.if %163 {
    %164 = vyre.local_id x
      %165 = vyre.lit_u32 3
      %166 = vyre.binop mod %164, %165
      %167 = vyre.lit_u32 0
      vyre.loop "i8" = %166 to %167 {
        %168 = vyre.lit_u32 256
        %169 = vyre.unop clz %168
        %170 = vyre.cast %169 to f32
        vyre.let "v9" = %170
      }
      %180 = vyre.buf_len @out
      %181 = vyre.lit_u32 14
      %182 = vyre.load @rb[%181] : bool
      %183 = vyre.local_id z
      %gl_13 = vyre.var "gl" : u32
      %184 = vyre.lit_u32 4
      %185 = vyre.binop mul %gl_13, %184
      %ll_2 = vyre.var "ll" : u32
      %186 = vyre.lit_u32 0
      %187 = vyre.binop le %ll_2, %186
      %188 = vyre.lit_u32 4
      %189 = vyre.binop mod %187, %188
      %190 = vyre.binop add %185, %189
      %191 = vyre.load @out[%190] : u32
      %192 = vyre.select %182, %183, %191
      %193 = vyre.lit_u32 3
      %194 = vyre.binop mod %192, %193
      %195 = vyre.load @par[%194] : u32
      %196 = vyre.lit_u32 2147483648
      %197 = vyre.binop gt %195, %196
      %198 = vyre.lit_u32 4
      %199 = vyre.binop mod %197, %198
      %200 = vyre.binop add %180, %199
      %201 = vyre.lit_u32 2
      %202 = vyre.load @par[%201] : u32
      %203 = vyre.unop clz %202
      vyre.store @out[%200] = %203
    }
  }
}
