"builtin.module"() ({
  "vyre.kernel"() ({
    %0 = "vyre.workgroup_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
    %1 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %2 = "vyre.if"(%0, %1) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %3 = "vyre.workgroup_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
    %4 = "vyre.binop"(%2, %3) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %5 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %6 = "vyre.binop"(%4, %5) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %7 = "vyre.workgroup_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
    %8 = "vyre.binop"(%6, %7) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %9 = "vyre.lit_u32"() {value = 16 : i64} : () -> !vyre.type<u32>
    %10 = "vyre.binop"(%8, %9) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %11 = "vyre.local_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
    %12 = "vyre.lit_u32"() {value = 8 : i64} : () -> !vyre.type<u32>
    %13 = "vyre.binop"(%11, %12) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %14 = "vyre.local_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
    %15 = "vyre.lit_u32"() {value = 8 : i64} : () -> !vyre.type<u32>
    %16 = "vyre.binop"(%14, %15) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %17 = "vyre.binop"(%13, %16) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %18 = "vyre.local_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
    %19 = "vyre.binop"(%17, %18) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %20 = "vyre.binop"(%10, %19) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.let"(%20) {name = "gl"} : (!vyre.type<u32>) -> ()
    %21 = "vyre.local_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
    %22 = "vyre.lit_u32"() {value = 8 : i64} : () -> !vyre.type<u32>
    %23 = "vyre.binop"(%21, %22) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %24 = "vyre.local_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
    %25 = "vyre.lit_u32"() {value = 8 : i64} : () -> !vyre.type<u32>
    %26 = "vyre.binop"(%24, %25) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %27 = "vyre.binop"(%23, %26) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %28 = "vyre.local_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
    %29 = "vyre.binop"(%27, %28) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.let"(%29) {name = "ll"} : (!vyre.type<u32>) -> ()
    %gl = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %30 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %31 = "vyre.binop"(%gl, %30) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %ll = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
    %gl_1 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %32 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %33 = "vyre.binop"(%gl_1, %32) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %34 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %35 = "vyre.binop"(%33, %34) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %36 = "vyre.load"(%35) {buffer = "out"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %37 = "vyre.binop"(%ll, %36) {kind = "ne"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %38 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %39 = "vyre.binop"(%37, %38) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %40 = "vyre.binop"(%31, %39) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %41 = "vyre.load"(%40) {buffer = "out"} : (!vyre.type<u32>) -> !vyre.type<u32>
    "vyre.if"(%41) ({
      %42 = "vyre.lit_u32"() {value = 4294967295 : i64} : () -> !vyre.type<u32>
      %43 = "vyre.load"(%42) {buffer = "rh"} : (!vyre.type<u32>) -> !vyre.type<f16>
      %44 = "vyre.lit_float"() {bits = 16905 : i64} : () -> !vyre.type<f16>
      %ll_1 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      %45 = "vyre.load"(%ll_1) {buffer = "rh"} : (!vyre.type<u32>) -> !vyre.type<f16>
      %46 = "vyre.lit_float"() {bits = 65025 : i64} : () -> !vyre.type<f16>
      %47 = "vyre.fma"(%44, %45, %46) : (!vyre.type<f16>, !vyre.type<f16>, !vyre.type<f16>) -> !vyre.type<f16>
      %48 = "vyre.fmul"(%43, %47) : (!vyre.type<f16>, !vyre.type<f16>) -> !vyre.type<f16>
      "vyre.let"(%48) {name = "v2"} : (!vyre.type<f16>) -> ()
      %gl_2 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %49 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %50 = "vyre.binop"(%gl_2, %49) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %51 = "vyre.lit_u32"() {value = 2147483648 : i64} : () -> !vyre.type<u32>
      %52 = "vyre.load"(%51) {buffer = "tile1"} : (!vyre.type<u32>) -> !vyre.type<bool>
      %53 = "vyre.buf_len"() {buffer = "out"} : () -> !vyre.type<u32>
      %54 = "vyre.lit_u32"() {value = 1315988542 : i64} : () -> !vyre.type<u32>
      %ll_2 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      %55 = "vyre.binop"(%54, %ll_2) {kind = "or"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %56 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
      %57 = "vyre.binop"(%55, %56) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %58 = "vyre.binop"(%53, %57) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %59 = "vyre.load"(%58) {buffer = "out"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %60 = "vyre.lit_u32"() {value = 30 : i64} : () -> !vyre.type<u32>
      %61 = "vyre.binop"(%59, %60) {kind = "shl"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %62 = "vyre.lit_u32"() {value = 2147483648 : i64} : () -> !vyre.type<u32>
      %63 = "vyre.binop"(%61, %62) {kind = "bit_or"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %64 = "vyre.load"(%63) {buffer = "out"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %65 = "vyre.lit_u32"() {value = 52 : i64} : () -> !vyre.type<u32>
      %66 = "vyre.load"(%65) {buffer = "of"} : (!vyre.type<u32>) -> !vyre.type<f32>
      %67 = "vyre.cast"(%66) : (!vyre.type<f32>) -> !vyre.type<u32>
      %68 = "vyre.lit_u32"() {value = 18 : i64} : () -> !vyre.type<u32>
      %69 = "vyre.binop"(%67, %68) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %70 = "vyre.load"(%69) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %71 = "vyre.select"(%52, %64, %70) : (!vyre.type<bool>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %72 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %73 = "vyre.binop"(%71, %72) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %74 = "vyre.binop"(%50, %73) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %75 = "vyre.lit_i32"() {value = -2147483647 : i64} : () -> !vyre.type<i32>
      %76 = "vyre.unop"(%75) {kind = "logical_not"} : (!vyre.type<i32>) -> !vyre.type<u32>
      %77 = "vyre.lit_u32"() {value = 18 : i64} : () -> !vyre.type<u32>
      %78 = "vyre.binop"(%76, %77) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %79 = "vyre.load"(%78) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %80 = "vyre.lit_u32"() {value = 256 : i64} : () -> !vyre.type<u32>
      %81 = "vyre.binop"(%79, %80) {kind = "bit_and"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %82 = "vyre.lit_u32"() {value = 2147483648 : i64} : () -> !vyre.type<u32>
      %83 = "vyre.unop"(%82) {kind = "clz"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %84 = "vyre.lit_i32"() {value = -2 : i64} : () -> !vyre.type<i32>
      %85 = "vyre.unop"(%84) {kind = "clz"} : (!vyre.type<i32>) -> !vyre.type<u32>
      %86 = "vyre.select"(%81, %83, %85) : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      "vyre.store"(%74, %86) {buffer = "out"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
      %87 = "vyre.lit_u32"() {value = 17 : i64} : () -> !vyre.type<u32>
      %88 = "vyre.load"(%87) {buffer = "tile1"} : (!vyre.type<u32>) -> !vyre.type<bool>
      "vyre.let"(%88) {name = "v3"} : (!vyre.type<bool>) -> ()
    }, {
      %gl_3 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    }) : (!vyre.type<u32>) -> ()
    %gl_7 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %132 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %133 = "vyre.binop"(%gl_7, %132) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %134 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %135 = "vyre.binop"(%133, %134) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %136 = "vyre.lit_u32"() {value = 3719453363 : i64} : () -> !vyre.type<u32>
    %137 = "vyre.lit_u32"() {value = 16 : i64} : () -> !vyre.type<u32>
    %138 = "vyre.load"(%137) {buffer = "tile1"} : (!vyre.type<u32>) -> !vyre.type<bool>
    %139 = "vyre.lit_float"() {bits = 3560047904 : i64} : () -> !vyre.type<f32>
    %gl_8 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %140 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %141 = "vyre.binop"(%gl_8, %140) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %gl_9 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %142 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %143 = "vyre.binop"(%gl_9, %142) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %gl_10 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %144 = "vyre.local_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
    %145 = "vyre.binop"(%gl_10, %144) {kind = "bit_and"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %146 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %147 = "vyre.binop"(%145, %146) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %148 = "vyre.binop"(%143, %147) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %149 = "vyre.load"(%148) {buffer = "out"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %150 = "vyre.unop"(%149) {kind = "reverse_bits"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %151 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %152 = "vyre.binop"(%150, %151) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %153 = "vyre.binop"(%141, %152) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %154 = "vyre.load"(%153) {buffer = "of"} : (!vyre.type<u32>) -> !vyre.type<f32>
    %155 = "vyre.select"(%138, %139, %154) : (!vyre.type<bool>, !vyre.type<f32>, !vyre.type<f32>) -> !vyre.type<f32>
    %156 = "vyre.lit_u32"() {value = 49 : i64} : () -> !vyre.type<u32>
    %157 = "vyre.load"(%156) {buffer = "of"} : (!vyre.type<u32>) -> !vyre.type<f32>
    %158 = "vyre.select"(%136, %155, %157) : (!vyre.type<u32>, !vyre.type<f32>, !vyre.type<f32>) -> !vyre.type<f32>
    "vyre.store"(%135, %158) {buffer = "of"} : (!vyre.type<u32>, !vyre.type<f32>) -> ()
    "vyre.block"() ({
      %159 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %160 = "vyre.load"(%159) {buffer = "rb"} : (!vyre.type<u32>) -> !vyre.type<bool>
      %gl_11 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %161 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %162 = "vyre.binop"(%gl_11, %161) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %163 = "vyre.buf_len"() {buffer = "ru"} : () -> !vyre.type<u32>
      %164 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %165 = "vyre.binop"(%163, %164) {kind = "sub"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %166 = "vyre.load"(%165) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %167 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %168 = "vyre.binop"(%166, %167) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %169 = "vyre.binop"(%162, %168) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %170 = "vyre.load"(%169) {buffer = "of"} : (!vyre.type<u32>) -> !vyre.type<f32>
      %171 = "vyre.cast"(%170) : (!vyre.type<f32>) -> !vyre.type<u32>
      %172 = "vyre.load"(%171) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %ll_3 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      %173 = "vyre.binop"(%172, %ll_3) {kind = "sub"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %174 = "vyre.lit_u32"() {value = 6 : i64} : () -> !vyre.type<u32>
      %175 = "vyre.load"(%174) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %176 = "vyre.select"(%160, %173, %175) : (!vyre.type<bool>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      "vyre.if"(%176) ({
        %gl_12 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
        %177 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
        %178 = "vyre.binop"(%gl_12, %177) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %179 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
        %180 = "vyre.binop"(%178, %179) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %181 = "vyre.load"(%180) {buffer = "og"} : (!vyre.type<u32>) -> !vyre.type<bf16>
        %gl_13 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
        %182 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
        %183 = "vyre.binop"(%gl_13, %182) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %184 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
        %185 = "vyre.binop"(%183, %184) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %186 = "vyre.load"(%185) {buffer = "og"} : (!vyre.type<u32>) -> !vyre.type<bf16>
        %187 = "vyre.fadd"(%181, %186) : (!vyre.type<bf16>, !vyre.type<bf16>) -> !vyre.type<bf16>
        %ll_4 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
        %188 = "vyre.cast"(%ll_4) : (!vyre.type<u32>) -> !vyre.type<bf16>
        %189 = "vyre.buf_len"() {buffer = "rh"} : () -> !vyre.type<u32>
        %190 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
        %191 = "vyre.binop"(%189, %190) {kind = "sub"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %192 = "vyre.load"(%191) {buffer = "rh"} : (!vyre.type<u32>) -> !vyre.type<f16>
        %193 = "vyre.cast"(%192) : (!vyre.type<f16>) -> !vyre.type<bf16>
        %194 = "vyre.fma"(%187, %188, %193) : (!vyre.type<bf16>, !vyre.type<bf16>, !vyre.type<bf16>) -> !vyre.type<bf16>
        "vyre.let"(%194) {name = "v5"} : (!vyre.type<bf16>) -> ()
      }, {
      ^bb0:
      }) : (!vyre.type<u32>) -> ()
      %gl_14 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %195 = "vyre.unop"(%gl_14) {kind = "bit_not"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %196 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %197 = "vyre.binop"(%195, %196) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %198 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      "vyre.loop"(%197, %198) ({
        %199 = "vyre.lit_u32"() {value = 16 : i64} : () -> !vyre.type<u32>
        %200 = "vyre.lit_bool"() {value = 0 : i64} : () -> !vyre.type<bool>
        "vyre.store"(%199, %200) {buffer = "tile1"} : (!vyre.type<u32>, !vyre.type<bool>) -> ()
        %201 = "vyre.lit_u32"() {value = 122566143 : i64} : () -> !vyre.type<u32>
        %202 = "vyre.lit_u32"() {value = 4294967295 : i64} : () -> !vyre.type<u32>
        %203 = "vyre.binop"(%201, %202) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        "vyre.let"(%203) {name = "v7"} : (!vyre.type<u32>) -> ()
        %ll_5 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
        %204 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
        %205 = "vyre.binop"(%ll_5, %204) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %206 = "vyre.lit_u32"() {value = 588032624 : i64} : () -> !vyre.type<u32>
        %207 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
        %208 = "vyre.binop"(%206, %207) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %209 = "vyre.binop"(%205, %208) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %210 = "vyre.lit_bool"() {value = 1 : i64} : () -> !vyre.type<bool>
        "vyre.store"(%209, %210) {buffer = "tile1"} : (!vyre.type<u32>, !vyre.type<bool>) -> ()
      }) {var = "i6"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
      %gl_15 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %211 = "vyre.unop"(%gl_15) {kind = "ctz"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %212 = "vyre.lit_i32"() {value = 31 : i64} : () -> !vyre.type<i32>
      %213 = "vyre.lit_bool"() {value = 1 : i64} : () -> !vyre.type<bool>
      %214 = "vyre.lit_i32"() {value = -1965685110 : i64} : () -> !vyre.type<i32>
      %215 = "vyre.lit_i32"() {value = 2147483647 : i64} : () -> !vyre.type<i32>
      %216 = "vyre.select"(%213, %214, %215) : (!vyre.type<bool>, !vyre.type<i32>, !vyre.type<i32>) -> !vyre.type<i32>
      %217 = "vyre.select"(%211, %212, %216) : (!vyre.type<u32>, !vyre.type<i32>, !vyre.type<i32>) -> !vyre.type<i32>
      "vyre.let"(%217) {name = "v8"} : (!vyre.type<i32>) -> ()
      "vyre.barrier"() : () -> ()
      %gl_16 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %218 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %219 = "vyre.binop"(%gl_16, %218) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %220 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
      %221 = "vyre.binop"(%219, %220) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %gl_17 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %222 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %223 = "vyre.binop"(%gl_17, %222) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %224 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
      %225 = "vyre.binop"(%223, %224) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %226 = "vyre.load"(%225) {buffer = "og"} : (!vyre.type<u32>) -> !vyre.type<bf16>
      "vyre.store"(%221, %226) {buffer = "og"} : (!vyre.type<u32>, !vyre.type<bf16>) -> ()
      "vyre.block"() ({
        %227 = "vyre.lit_i32"() {value = -32 : i64} : () -> !vyre.type<i32>
        "vyre.assign"(%227) {name = "v8"} : (!vyre.type<i32>) -> ()
        %228 = "vyre.lit_u32"() {value = 7 : i64} : () -> !vyre.type<u32>
        %229 = "vyre.load"(%228) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
        %230 = "vyre.lit_u32"() {value = 5 : i64} : () -> !vyre.type<u32>
        %231 = "vyre.load"(%230) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
        %ll_6 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
        %232 = "vyre.select"(%229, %231, %ll_6) : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %233 = "vyre.lit_bool"() {value = 0 : i64} : () -> !vyre.type<bool>
        %234 = "vyre.lit_bool"() {value = 1 : i64} : () -> !vyre.type<bool>
        %235 = "vyre.cast"(%234) : (!vyre.type<bool>) -> !vyre.type<vec4u32>
        %236 = "vyre.cast"(%235) : (!vyre.type<vec4u32>) -> !vyre.type<bool>
        %237 = "vyre.select"(%232, %233, %236) : (!vyre.type<u32>, !vyre.type<bool>, !vyre.type<bool>) -> !vyre.type<bool>
        "vyre.let"(%237) {name = "v9"} : (!vyre.type<bool>) -> ()
      }) : () -> ()
    }) : () -> ()
    %ll_7 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
    %238 = "vyre.lit_u32"() {value = 2147483649 : i64} : () -> !vyre.type<u32>
    %239 = "vyre.local_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
    %240 = "vyre.load"(%239) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %241 = "vyre.select"(%ll_7, %238, %240) : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %242 = "vyre.invocation_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
    %243 = "vyre.unop"(%242) {kind = "bit_not"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %244 = "vyre.load"(%243) {buffer = "rv4"} : (!vyre.type<u32>) -> !vyre.type<vec4u32>
    %245 = "vyre.lit_bool"() {value = 0 : i64} : () -> !vyre.type<bool>
    %246 = "vyre.cast"(%245) : (!vyre.type<bool>) -> !vyre.type<vec4u32>
    %247 = "vyre.select"(%241, %244, %246) : (!vyre.type<u32>, !vyre.type<vec4u32>, !vyre.type<vec4u32>) -> !vyre.type<vec4u32>
    "vyre.let"(%247) {name = "v10"} : (!vyre.type<vec4u32>) -> ()
    "vyre.block"() ({
      %248 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
      %249 = "vyre.load"(%248) {buffer = "tile1"} : (!vyre.type<u32>) -> !vyre.type<bool>
      %250 = "vyre.lit_float"() {bits = 3212836832 : i64} : () -> !vyre.type<f32>
      %251 = "vyre.lit_float"() {bits = 3212836908 : i64} : () -> !vyre.type<f32>
      %252 = "vyre.select"(%249, %250, %251) : (!vyre.type<bool>, !vyre.type<f32>, !vyre.type<f32>) -> !vyre.type<f32>
      %253 = "vyre.lit_float"() {bits = 1353626105 : i64} : () -> !vyre.type<f32>
    }) : () -> ()
    %266 = "vyre.lit_i32"() {value = -32 : i64} : () -> !vyre.type<i32>
    %267 = "vyre.unop"(%266) {kind = "reverse_bits"} : (!vyre.type<i32>) -> !vyre.type<i32>
    %268 = "vyre.unop"(%267) {kind = "negate"} : (!vyre.type<i32>) -> !vyre.type<i32>
    "vyre.let"(%268) {name = "v12"} : (!vyre.type<i32>) -> ()
    %269 = "vyre.workgroup_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
    "vyre.if"(%269) ({
      %gl_19 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %270 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %271 = "vyre.binop"(%gl_19, %270) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %272 = "vyre.lit_float"() {bits = 65473 : i64} : () -> !vyre.type<bf16>
      %273 = "vyre.bitcast"(%272) : (!vyre.type<bf16>) -> !vyre.type<u32>
      %274 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %275 = "vyre.binop"(%273, %274) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %276 = "vyre.binop"(%271, %275) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      "vyre.barrier"() : () -> ()
      "vyre.barrier"() : () -> ()
      %gl_21 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %290 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %291 = "vyre.binop"(%gl_21, %290) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %292 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
      %293 = "vyre.binop"(%291, %292) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %294 = "vyre.buf_len"() {buffer = "rb"} : () -> !vyre.type<u32>
      %295 = "vyre.unop"(%294) {kind = "clz"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %296 = "vyre.lit_u32"() {value = 9 : i64} : () -> !vyre.type<u32>
      %297 = "vyre.load"(%296) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %298 = "vyre.unop"(%297) {kind = "ctz"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %299 = "vyre.binop"(%295, %298) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      "vyre.store"(%293, %299) {buffer = "out"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
    }, {
    ^bb0:
    }) : (!vyre.type<u32>) -> ()
    "vyre.barrier"() : () -> ()
    %300 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
    %301 = "vyre.lit_u32"() {value = 65535 : i64} : () -> !vyre.type<u32>
    %302 = "vyre.unop"(%301) {kind = "popcount"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %303 = "vyre.lit_u32"() {value = 5 : i64} : () -> !vyre.type<u32>
    %304 = "vyre.binop"(%302, %303) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.loop"(%300, %304) ({
      %gl_22 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %305 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %306 = "vyre.binop"(%gl_22, %305) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %307 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %308 = "vyre.binop"(%306, %307) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %gl_23 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
      %309 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %310 = "vyre.binop"(%gl_23, %309) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %311 = "vyre.workgroup_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
      %312 = "vyre.unop"(%311) {kind = "clz"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %313 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
      %314 = "vyre.binop"(%312, %313) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %315 = "vyre.binop"(%310, %314) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %316 = "vyre.load"(%315) {buffer = "og"} : (!vyre.type<u32>) -> !vyre.type<bf16>
      %317 = "vyre.bitcast"(%316) : (!vyre.type<bf16>) -> !vyre.type<u32>
      %318 = "vyre.lit_float"() {bits = 2666394311 : i64} : () -> !vyre.type<f32>
      %319 = "vyre.buf_len"() {buffer = "rh"} : () -> !vyre.type<u32>
      %320 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<u32>
      %321 = "vyre.binop"(%319, %320) {kind = "sub"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %322 = "vyre.load"(%321) {buffer = "rh"} : (!vyre.type<u32>) -> !vyre.type<f16>
      %323 = "vyre.cast"(%322) : (!vyre.type<f16>) -> !vyre.type<f32>
      %324 = "vyre.select"(%317, %318, %323) : (!vyre.type<u32>, !vyre.type<f32>, !vyre.type<f32>) -> !vyre.type<f32>
      "vyre.store"(%308, %324) {buffer = "of"} : (!vyre.type<u32>, !vyre.type<f32>) -> ()
      %ll_9 = "vyre.var"() {name = "ll"} : () -> !vyre.type<u32>
      %325 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %326 = "vyre.binop"(%ll_9, %325) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %327 = "vyre.lit_u32"() {value = 255 : i64} : () -> !vyre.type<u32>
      %328 = "vyre.unop"(%327) {kind = "reverse_bits"} : (!vyre.type<u32>) -> !vyre.type<u32>
      %329 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
      %330 = "vyre.binop"(%328, %329) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %331 = "vyre.binop"(%326, %330) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %332 = "vyre.load"(%331) {buffer = "tile1"} : (!vyre.type<u32>) -> !vyre.type<bool>
      "vyre.if"(%332) ({
        %333 = "vyre.invocation_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
        %i13 = "vyre.var"() {name = "i13"} : () -> !vyre.type<u32>
        %334 = "vyre.load"(%i13) {buffer = "rh"} : (!vyre.type<u32>) -> !vyre.type<f16>
        %v12 = "vyre.var"() {name = "v12"} : () -> !vyre.type<i32>
        %335 = "vyre.unop"(%v12) {kind = "logical_not"} : (!vyre.type<i32>) -> !vyre.type<u32>
        %336 = "vyre.load"(%335) {buffer = "rh"} : (!vyre.type<u32>) -> !vyre.type<f16>
        %337 = "vyre.select"(%333, %334, %336) : (!vyre.type<u32>, !vyre.type<f16>, !vyre.type<f16>) -> !vyre.type<f16>
        %338 = "vyre.ftrunc"(%337) : (!vyre.type<f16>) -> !vyre.type<f16>
        "vyre.let"(%338) {name = "v14"} : (!vyre.type<f16>) -> ()
        %gl_24 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
        %339 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
        %340 = "vyre.binop"(%gl_24, %339) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %341 = "vyre.lit_u32"() {value = 2271128002 : i64} : () -> !vyre.type<u32>
        %342 = "vyre.lit_u32"() {value = 2286546103 : i64} : () -> !vyre.type<u32>
        %343 = "vyre.binop"(%341, %342) {kind = "bit_xor"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %344 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
        %345 = "vyre.binop"(%343, %344) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %346 = "vyre.binop"(%340, %345) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %347 = "vyre.workgroup_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
        %348 = "vyre.lit_u32"() {value = 2147483648 : i64} : () -> !vyre.type<u32>
        %349 = "vyre.binop"(%347, %348) {kind = "bit_or"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %350 = "vyre.load"(%349) {buffer = "of"} : (!vyre.type<u32>) -> !vyre.type<f32>
        "vyre.store"(%346, %350) {buffer = "of"} : (!vyre.type<u32>, !vyre.type<f32>) -> ()
        %351 = "vyre.lit_i32"() {value = 1 : i64} : () -> !vyre.type<i32>
        "vyre.let"(%351) {name = "v15"} : (!vyre.type<i32>) -> ()
      }, {
      ^bb0:
      }) : (!vyre.type<bool>) -> ()
    }) {var = "i13"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
    %352 = "vyre.local_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
    %353 = "vyre.unop"(%352) {kind = "bit_not"} : (!vyre.type<u32>) -> !vyre.type<u32>
    "vyre.let"(%353) {name = "v16"} : (!vyre.type<u32>) -> ()
    %gl_25 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %354 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
    %355 = "vyre.binop"(%gl_25, %354) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %356 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %357 = "vyre.binop"(%355, %356) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %358 = "vyre.load"(%357) {buffer = "og"} : (!vyre.type<u32>) -> !vyre.type<bf16>
    %359 = "vyre.cast"(%358) : (!vyre.type<bf16>) -> !vyre.type<f32>
    %360 = "vyre.cast"(%359) : (!vyre.type<f32>) -> !vyre.type<u32>
    "vyre.assign"(%360) {name = "v16"} : (!vyre.type<u32>) -> ()
    %361 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %362 = "vyre.lit_u32"() {value = 33 : i64} : () -> !vyre.type<u32>
    %363 = "vyre.lit_u32"() {value = 2133698020 : i64} : () -> !vyre.type<u32>
    %364 = "vyre.binop"(%362, %363) {kind = "bit_and"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %365 = "vyre.lit_u32"() {value = 5 : i64} : () -> !vyre.type<u32>
    %366 = "vyre.binop"(%364, %365) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.loop"(%361, %366) ({
      %367 = "vyre.lit_u32"() {value = 3955171920 : i64} : () -> !vyre.type<u32>
      %368 = "vyre.local_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
      %369 = "vyre.binop"(%367, %368) {kind = "le"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %v16 = "vyre.var"() {name = "v16"} : () -> !vyre.type<u32>
      %v16_1 = "vyre.var"() {name = "v16"} : () -> !vyre.type<u32>
      %370 = "vyre.binop"(%v16, %v16_1) {kind = "lt"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      %v12_1 = "vyre.var"() {name = "v12"} : () -> !vyre.type<i32>
      %371 = "vyre.unop"(%v12_1) {kind = "popcount"} : (!vyre.type<i32>) -> !vyre.type<u32>
      %372 = "vyre.select"(%369, %370, %371) : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
      "vyre.if"(%372) ({
        %gl_26 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
        %373 = "vyre.lit_u32"() {value = 3 : i64} : () -> !vyre.type<u32>
        %374 = "vyre.binop"(%gl_26, %373) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %375 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
        %376 = "vyre.binop"(%374, %375) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
        %377 = "vyre.lit_float"() {bits = 1056964608 : i64} : () -> !vyre.type<f32>
        %378 = "vyre.lit_float"() {bits = 2147483649 : i64} : () -> !vyre.type<f32>
        %379 = "vyre.fcmp"(%377, %378) {predicate = "eq"} : (!vyre.type<f32>, !vyre.type<f32>) -> !vyre.type<bool>
        %380 = "vyre.workgroup_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
        %381 = "vyre.bitcast"(%380) : (!vyre.type<u32>) -> !vyre.type<f32>
        %382 = "vyre.lit_u32"() {value = 2147483648 : i64} : () -> !vyre.type<u32>
        %383 = "vyre.load"(%382) {buffer = "of"} : (!vyre.type<u32>) -> !vyre.type<f32>
        %384 = "vyre.fabs"(%383) : (!vyre.type<f32>) -> !vyre.type<f32>
        %385 = "vyre.select"(%379, %381, %384) : (!vyre.type<bool>, !vyre.type<f32>, !vyre.type<f32>) -> !vyre.type<f32>
        "vyre.store"(%376, %385) {buffer = "of"} : (!vyre.type<u32>, !vyre.type<f32>) -> ()
        "vyre.return"() : () -> ()
      }, {
      ^bb0:
      }) : (!vyre.type<u32>) -> ()
    }) {var = "i17"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
  }) {buffers = [#vyre.buffer<@rh : read_only f16 binding(1)>, #vyre.buffer<@og : read_write bf16 binding(2)>, #vyre.buffer<@rv2 : read_only vec2u32 binding(3)>, #vyre.buffer<@ru : read_only u32 binding(4)>, #vyre.buffer<@of : read_write f32 binding(5)>, #vyre.buffer<@out : read_write u32 binding(6)>, #vyre.buffer<@rb : read_only bool binding(7)>, #vyre.buffer<@rv4 : read_only vec4u32 binding(10)>, #vyre.buffer<@tile1 : workgroup bool[16]>], sym_name = "random_3007", workgroup_size = [8, 1, 2]} : () -> ()
}) : () -> ()
