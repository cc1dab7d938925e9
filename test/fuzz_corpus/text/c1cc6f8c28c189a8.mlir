"builtin.module"() ({
  "vyre.kernel"() <{sym_name = "k", workgroup_size = [#builtin.int<1>, #builtin.int<1>, #builtin.int<1>], buffers = []}> ({
    %0 = "vyre.lit_u32"() <{value = #builtin.int<0>}> : () -> !vyre.type<u32>
    %1 = "vyre.binop"(%0, %0) <{kind = "vyre.load"}> : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
  }) : () -> ()
}) : () -> ()
