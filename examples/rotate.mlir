// A library call: `primitive.bitwise.rotl` inlines to shifts and an or (inline-calls),
// and the kernel lowers to one shader with no call in it.
//   vyre-opt examples/rotate.mlir -p inline-calls,canonicalize,cse,dce
vyre.kernel @rotate workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %seven = vyre.lit_u32 7
  %r = vyre.call "primitive.bitwise.rotl"(%x, %seven) : u32
  vyre.store @out[%i] = %r
}
