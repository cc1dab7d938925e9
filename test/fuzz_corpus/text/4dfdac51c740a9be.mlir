"builtin.module"() ({
vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

vyre.block {

  "vyre.kernel"() ({
    %0 = "vyre.workgroup_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
    %1 = "vyre.lit_u32"() {value = 2 : i64} : () -> !vyre.type<u32>
    %2 = "vyre.binop"(%0, %1) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %3 = "vyre.workgroup_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
    %4 = "vyre.binop"(%2, %3) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %5 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %6 = "vyre.binop"(%4, %5) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %7 = "vyre.workgroup_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
    %8 = "vyre.binop"(%6, %7) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %9 = "vyre.lit_u32"() {value = 16 : i64} : () -> !vyre.type<u32>
    %10 = "vyre.binop"(%8, %9) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %11 = "vyre.local_id"() {axis = 2 : i64294967295} : () -> !vyre.type<u32>
    %12 = "vyre.lit_u32"() {value = 8 : i64} : () -> !vyre.type<u32>
    %13 = "vyre.binop"(%11, %12) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %14 = "vyre.local_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
    %15 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
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
    %25 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
    %26 = "vyre.binop"(%24, %25) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %27 = "vyre.binop"(%23, %26) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %28 = "vyre.local_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
    %29 = "vyre.binop"(%27, %28) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.let"(%29) {name = "ll"} : (!vyre.type<u32>) -> ()
}    %30 = "vyre.buf_len"() {buffer = "out"} : () -> !vyre.type<u32>
    %31 = "vyre.lit_u32"() {value = 2147483648 : i64} : () -> !vyre.type<u32>
    %32 = "vyre.load"(%31) {buffer = "par"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %33 = "vyre.unop"(%32) {kind = "negate"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %34 = "vyre.lit_u32"() {value = 4 : i64} : () -> !vyre.type<u32>
    %35 = "vyre.binop"(%33, %34) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %36 = "vyre.binop"(%30, %35) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %37 = "vyre.lit_u32"() {value = 42 : i64} : () -> !vyre.type<u32>
    %38 = "vyre.load"(%37) {buffer = "ob"} : (!vyre.type<u32>) -> !vyre.type<bool>
    %39 = "vyre.lit_u32"() {value = 3914395106 : i64} : () -> !vyre.type<u32>
    %40 = "vyre.lit_u32"() {value = 128 : i64} : () -> !vyre.type<u32>
    %41 = "vyre.load"(%40) {buffer = "par"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %42 = "vyre.select"(%38, %39, %41) : (!vyre.type<bool>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %43 = "vyre.lit_bool"() {value = 0 : i64} : () -> !vyre.type<bool>
    %44 = "vyre.cast"(%43) : (!vyre.type<bool>) -> !vyre.type<vec2u32>
    %45 = "vyre.cast"(%44) : (!vyre.type<vec2u32>) -> !vyre.type<u32>
    %46 = "vyre.load"(%45) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %gl = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %47 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %48 = "vyre.binop"(%gl, %47) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %49 = "vyre.lit_i32"() {value = 33 : i64} : () -> !vyre.type<i32>
    %50 = "vyre.cast"(%49) : (!vyre.type<i32>) -> !vyre.type<u32>
    %51 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %52 = "vyre.binop"(%50, %51) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %53 = "vyre.binop"(%48, %52) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %54 = "vyre.load"(%53) {buffer = "out"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %55 = "vyre.workgroup_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
    %56 = "vyre.select"(%46, %54, %55) : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %57 = "vyre.binop"(%42, %56) {kind = "bit_or"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.store"(%36, %57) {buffer = "out"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
    "vyre.barrier"() : () -> ()
    %gl_1 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %58 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %59 = "vyre.binop"(%gl_1, %58) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %60 = "vyre.buf_len"() {buffer = "ru"} : () -> !vyre.type<u32>
    %61 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %62 = "vyre.binop"(%60, %61) {kind = "sub"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %63 = "vyre.load"(%62) {buffer = "ru"} : (!vyre.type<u32>) -> !vyre.type<u32>
    %64 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %65 = "vyre.binop"(%63, %64) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %66 = "vyre.binop"(%59, %65) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    %gl_2 = "vyre.var"() {name = "gl"} : () -> !vyre.type<u32>
    %67 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>
    %68 = "vyre.binop"(%gl_2, %67