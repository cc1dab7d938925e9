"builtin.module"() ({
  "vyre.kernel"() <{sym_name = "k", workgroup_size = [#builtin.int<1>, #builtin.int<1>, #builtin.int<1>], buffers = []}> ({
    %0 = "vyre.lit_u32"() <{}> : () -> !vyre.type<u32>
  }) : () -> ()
}) : () -> ()
