struct VyreMeta {
  len_ov2: u32,
  len_rg: u32,
}
@group(0) @binding(2) var<storage, read_write> og: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> ov2: array<vec2<u32>>;
@group(0) @binding(10) var<uniform> _vyre_meta: VyreMeta;
fn vyre_store_oh(i: u32, value: u32) {
}
fn vyre_load_rb(i: u32) -> u32 {
  return 0u;
}
fn vyre_load_out(i: u32) -> u32 {
  return 0u;
}
fn vyre_load_ov2(i: u32) -> vec2<u32> {
  if (i < _vyre_meta.len_ov2) {
    return ov2[i];
  }
  return vec2<u32>();
}
fn vyre_store_og(i: u32, value: u32) {
  {
  }
  let word = i >> 1u;
  let shift = (i & 1u) << 4u;
  let bits = (value & 0xffffu) << shift;
  let mask = ~(0xffffu << shift);
  var old = atomicLoad(&og[word]);
  loop {
    let result = atomicCompareExchangeWeak(&og[word], old, (old & mask) | bits);
    if (result.exchanged) {
      break;
    }
  }
}
@compute @workgroup_size(1, 2, 1)
fn main(@builtin(workgroup_id) dispatch_workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_id: vec3<u32>, @builtin(local_invocation_index) local_index: u32) {
  {
  }
  let gl: u32 = 0u;
  {
  }
  if (_vyre_meta.len_rg != 0u) {
    for (var i30: u32 = 2u; i30 < 0u; i30 = i30 + 1u) {
    }
    let v32: vec2<u32> = vyre_load_ov2((gl * 4u) + 3u);
    vyre_store_og((gl * 4u) + 1u, 49024u);
  }
}
