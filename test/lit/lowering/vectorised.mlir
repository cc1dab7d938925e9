// RUN: vyre-opt %s -t 'wgsl{vectorize=true}' | filecheck %s

// An elementwise map in the 2-D index form of `vyre.ops.evaluate`
// (i = id.y * row + id.x) over an F16 input and a U32 input, storing an F16
// output: the vectorised lowering (vyre/lowering/vector.py) declares the vector
// buffers as vec4 arrays (the F16 output plain, no atomics: an invocation owns
// whole words), emits the body once as a lane function taking the elements at
// the index as values (read) or pointers (written), and an entry point running
// 8 lanes per invocation from whole-vec4 loads and stores, with the scalar tail
// behind every guard. `out` is stored before any load or return: its old words
// are not read in the fast path.
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
// CHECK:      var<storage, read> h: array<vec4<u32>>;
// CHECK-NEXT: var<storage, read> u: array<vec4<u32>>;
// CHECK-NEXT: var<storage, read_write> out: array<vec4<u32>>;
// CHECK-NOT:  atomic

// The tail's store of one half: a plain read-modify-write of its word.
// CHECK:      fn vyre_store_out(i: u32, value: u32) {
// CHECK-NEXT:   if (i < _vyre_meta.len_out) {
// CHECK-NEXT:     out[i >> 3u][(i >> 1u) & 3u] = (out[i >> 3u][(i >> 1u) & 3u] & ~(0xffffu << ((i & 1u) << 4u))) | ((value & 0xffffu) << ((i & 1u) << 4u));

// CHECK:      fn vyre_lane(idx: u32, h_element: u32, u_element: u32, out_element: ptr<function, u32>) {
// CHECK:        if (idx < _vyre_meta.len_out) {
// CHECK-NEXT:     *out_element = (

// CHECK:      @compute @workgroup_size(64, 1, 1)
// CHECK:        let base = ((dispatch_workgroup_id.x + _vyre_meta.wg_offset_x) * 64u + local_id.x) * 8u;
// CHECK-NEXT:   if (base >= _vyre_meta.virtual_count) {
// CHECK:        if (base + 8u <= _vyre_meta.vector_end) {
// CHECK-NEXT:     let word = base >> 2u;
// CHECK-NEXT:     let half_word = base >> 3u;
// CHECK-NEXT:     let h_v = h[half_word];
// CHECK-NEXT:     let u_v = u[word];
// CHECK-NEXT:     let u_w = u[word + 1u];
// CHECK-NEXT:     var out_0: u32 = 0u;
// CHECK:          vyre_lane(base, (h_v.x & 0xffffu), u_v.x, &out_0);
// CHECK-NEXT:     vyre_lane(base + 1u, (h_v.x >> 16u), u_v.y, &out_1);
// CHECK:          vyre_lane(base + 7u, (h_v.w >> 16u), u_w.w, &out_7);
// CHECK-NEXT:     out[half_word] = vec4<u32>((out_0 & 0xffffu) | (out_1 << 16u), (out_2 & 0xffffu) | (out_3 << 16u), (out_4 & 0xffffu) | (out_5 << 16u), (out_6 & 0xffffu) | (out_7 << 16u));
// CHECK-NEXT:     return;
// CHECK:        for (var lane: u32 = 0u; lane < 8u; lane = lane + 1u) {
// CHECK-NEXT:     let element = base + lane;
// CHECK-NEXT:     if (element < _vyre_meta.virtual_count) {
// CHECK-NEXT:       var out_lane: u32 = 0u;
// CHECK-NEXT:       vyre_lane(element, vyre_load_h(element), vyre_load_u(element), &out_lane);
// CHECK-NEXT:       vyre_store_out(element, out_lane);
