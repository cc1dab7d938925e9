// out[i] = a[i] ^ b[i]: the kernel of `make demo` (examples/xor_kernel.py), as text.
//   vyre-opt examples/xor.mlir -t wgsl
//   vyre-run examples/xor.mlir --input a=a.npy --input b=b.npy --output out=1024 --dispatch 16 --print
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @b : read_only u32 binding(1), @out : read_write u32 binding(2)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %y = vyre.load @b[%i] : u32
  %r = vyre.binop bit_xor %x, %y
  vyre.store @out[%i] = %r
}
