// RUN: vyre-opt %s -t 'wgsl{vectorize=true}' | filecheck %s

// An elementwise map in the 2-D index form of `vyre.ops.evaluate`
// (i = id.y * row + id.x) over an F16 input and a U32 input, storing an F16
// output: the vectorised lowering (vyre/lowering/vector.py) declares the vector
// buffers as arrays of chunks of four elements (vec4 of u32 words, vec2 of F16
// half pairs; the F16 output plain, no atomics: an invocation owns whole
// words), emits the body once as a lane function taking the elements at the
// index as values (read) or pointers (written), and an entry point running 8
// lanes per invocation (two chunks, strided by the 256 invocations of the
// workgroup) from whole-chunk loads and stores, with the scalar tail behind
// every guard. `out` is stored before any load or return: its old words are
// not read in the fast path.
vyre.kernel @map workgroup_size(64, 1, 1) buffers(@h : read_only f16 binding(0), @u : read_only u32 binding(1), @out : read_write f16 binding(2)) {
  %y = vyre.invocation_id y
  %row = vyre.lit_u32 640
  %r = vyre.binop mul %y, %row
  %x = vyre.invocation_id x
  %idx = vyre.binop add %r, %x
  vyre.let "i" = %idx
  %i0 = vyre.var "i" : u32
  %i1 = vyre.var "i" : u32
  %a = vyre.load @h[%i1] : f16
  %i2 = vyre.var "i" : u32
  %b = vyre.load @u[%i2] : u32
  %bits = vyre.bitcast %a to u32
  %sum = vyre.binop bit_xor %bits, %b
  %v = vyre.bitcast %sum to f16
  vyre.store @out[%i0] = %v
}

// CHECK:      virtual_count: u32,
// CHECK-NEXT: vector_end: u32,
// CHECK:      var<storage, read> h: array<vec2<u32>>;
// CHECK-NEXT: var<storage, read> u: array<vec4<u32>>;
// CHECK-NEXT: var<storage, read_write> out: array<vec2<u32>>;
// CHECK-NOT:  atomic

// The tail's store of one half: a plain read-modify-write of its word.
// CHECK:      fn vyre_store_out(i: u32, value: u32) {
// CHECK-NEXT:   if (i < _vyre_meta.len_out) {
// CHECK-NEXT:     out[i >> 2u][(i >> 1u) & 1u] = (out[i >> 2u][(i >> 1u) & 1u] & ~(0xffffu << ((i & 1u) << 4u))) | ((value & 0xffffu) << ((i & 1u) << 4u));

// CHECK:      fn vyre_lane(idx: u32, h_element: u32, u_element: u32, out_element: ptr<function, u32>) {
// CHECK:        if (idx < _vyre_meta.len_out) {
// CHECK-NEXT:     *out_element = (

// CHECK:      @compute @workgroup_size(256, 1, 1)
// CHECK:        let chunk = (dispatch_workgroup_id.x + _vyre_meta.wg_offset_x) * 512u + local_id.x;
// CHECK-NEXT:   let chunk_1 = chunk + 256u;
// CHECK-NEXT:   if (chunk * 4u >= _vyre_meta.virtual_count) {
// CHECK:        if (chunk_1 < (_vyre_meta.vector_end >> 2u)) {
// CHECK-NEXT:     let h_v0 = h[chunk];
// CHECK-NEXT:     let h_v1 = h[chunk_1];
// CHECK-NEXT:     let u_v0 = u[chunk];
// CHECK-NEXT:     let u_v1 = u[chunk_1];
// CHECK-NEXT:     var out_0: u32 = 0u;
// CHECK:          vyre_lane(chunk * 4u, (h_v0.x & 0xffffu), u_v0.x, &out_0);
// CHECK-NEXT:     vyre_lane(chunk * 4u + 1u, (h_v0.x >> 16u), u_v0.y, &out_1);
// CHECK:          vyre_lane(chunk_1 * 4u + 3u, (h_v1.y >> 16u), u_v1.w, &out_7);
// CHECK-NEXT:     out[chunk] = vec2<u32>((out_0 & 0xffffu) | (out_1 << 16u), (out_2 & 0xffffu) | (out_3 << 16u));
// CHECK-NEXT:     out[chunk_1] = vec2<u32>((out_4 & 0xffffu) | (out_5 << 16u), (out_6 & 0xffffu) | (out_7 << 16u));
// CHECK-NEXT:     return;
// CHECK:        for (var lane: u32 = 0u; lane < 8u; lane = lane + 1u) {
// CHECK-NEXT:     let element = (chunk + (lane >> 2u) * 256u) * 4u + (lane & 3u);
// CHECK-NEXT:     if (element < _vyre_meta.virtual_count) {
// CHECK-NEXT:       var out_lane: u32 = 0u;
// CHECK-NEXT:       vyre_lane(element, vyre_load_h(element), vyre_load_u(element), &out_lane);
// CHECK-NEXT:       vyre_store_out(element, out_lane);
