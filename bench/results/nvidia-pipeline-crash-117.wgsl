struct VyreMeta {
  wg_offset_x: u32,
  wg_offset_y: u32,
  wg_offset_z: u32,
  len_ov2: u32,
  len_rg: u32,
  len_out: u32,
  len_ob: u32,
}
@group(0) @binding(2) var<storage, read_write> og: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> ov2: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read> rg: array<u32>;
@group(0) @binding(7) var<storage, read_write> out: array<u32>;
@group(0) @binding(8) var<storage, read_write> ob: array<u32>;
@group(0) @binding(10) var<uniform> _vyre_meta: VyreMeta;
fn vyre_load_rb(i: u32) -> u32 {
  return 0u;
}
fn vyre_load_out(i: u32) -> u32 {
  return 0u;
}
fn vyre_load_ru(i: u32) -> u32 {
  return 0u;
}
fn vyre_load_ov2(i: u32) -> vec2<u32> {
  if (i < _vyre_meta.len_ov2) {
    return ov2[i];
  }
  return vec2<u32>();
}
fn vyre_load_tile2(i: u32) -> u32 {
  return 0u;
}
fn vyre_store_og(i: u32, value: u32) {
  let word = i >> 1u;
  let shift = (i & 1u) << 4u;
  let bits = (value & 0xffffu) << shift;
  let mask = ~(0xffffu << shift);
  var old = atomicLoad(&og[word]);
  loop {
    let result = atomicCompareExchangeWeak(&og[word], old, (old & mask) | bits);
    if (result.exchanged) {
    }
    old = result.old_value;
  }
}

// OOB guard: loads at or past the logical length of `rg` read 0.
fn vyre_load_rg(i: u32) -> u32 {
  if (i < _vyre_meta.len_rg) {
    return (rg[i >> 1u] >> ((i & 1u) << 4u)) & 0xffffu;
  }
  return 0u;
}

// OOB guard: loads at or past the logical length of `og` read 0.
fn vyre_load_og(i: u32) -> u32 {
  return 0u;
}
fn vyre_store_out(i: u32, value: u32) {
  if (i < _vyre_meta.len_out) {
    out[i] = value;
  }
}
fn vyre_load_ob(i: u32) -> u32 {
  if (i < _vyre_meta.len_ob) {
    return u32(ob[i] != 0u);
  }
  return 0u;
}
fn vyre_div(dividend: u32, divisor: u32) -> u32 {
  return select(dividend / select(divisor, 1u, divisor == 0u), 0u, divisor == 0u);
}

@compute @workgroup_size(1, 2, 1)
fn main(@builtin(workgroup_id) dispatch_workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_id: vec3<u32>, @builtin(local_invocation_index) local_index: u32) {
  let workgroup_id = dispatch_workgroup_id + vec3<u32>(_vyre_meta.wg_offset_x, _vyre_meta.wg_offset_y, _vyre_meta.wg_offset_z);
  let invocation_id = workgroup_id * vec3<u32>(1u, 2u, 1u) + local_id;
  let gl: u32 = ((invocation_id.z * 8u) + (invocation_id.y * 4u)) + invocation_id.x;
  let t47: u32 = vyre_load_rg(0x48abb387u);
  let t48: u32 = select(t47 << 16u, 0x7fc00000u, 32640u < (t47 & 32767u));
  let t49: u32 = t48 & 0x7fffffffu;
  let t50: u32 = t49 >> 23u;
  let t51: u32 = (t49 & 0x7fffffu) | 0x800000u;
  var v9: vec4<u32> = vec4<u32>(u32(select(select(select(select(t51 >> ((150u - t50) & 31u), t51 << ((t50 - 150u) & 31u), 150u <= t50), 0u, t50 < 127u), 0xffffffffu, 159u <= t50), 0u, ((t48 >> 31u) | u32(0x7f800000u < t49)) != 0u) != vyre_load_ru(0u)));
  let v20: u32 = 31u;
  {
    let t134: u32 = vyre_load_og(0x80000000u);
    let t242: u32 = select(41440u, vyre_load_rg(34u), vyre_load_ob(32u) != 0u);
    let t243: u32 = select(t242 << 16u, 0x7fc00000u, 32640u < (t242 & 32767u));
    let t244: u32 = t243 & 0x7fffffffu;
    let t245: u32 = t244 >> 23u;
    let t246: u32 = (t244 & 0x7fffffu) | 0x800000u;
    let v23: u32 = select(vyre_load_out((gl * 4u) + (vyre_load_ru(3u) % 4u)), select(select(select(select(t246 >> ((150u - t245) & 31u), t246 << ((t245 - 150u) & 31u), 150u <= t245), 0u, t245 < 127u), 0xffffffffu, 159u <= t245), 0u, ((t243 >> 31u) | u32(0x7f800000u < t244)) != 0u), vyre_load_out((gl * 4u) + 1u) != 0u);
    let t247: u32 = vyre_load_rg(54u);
    let t248: u32 = t247 & 32767u;
    let t249: u32 = t248 >> 7u;
    let t250: u32 = t247 >> 15u;
    let t251: u32 = t250 ^ 1u;
    let t252: u32 = 1u << ((134u - t249) & 31u);
    let t253: u32 = t248 & (t252 - 1u);
    let t254: u32 = select(select(16286u, vyre_load_rg(_vyre_meta.len_rg - 2u), vyre_load_ob(0x80000000u) != 0u), select(select(select((t248 ^ t253) + select(0u, t252, (t251 & u32(t253 != 0u)) != 0u), select(0u, 16256u, (t251 & u32(t248 != 0u)) != 0u), t249 < 127u) | (t250 << 15u), t247, 134u <= t249), 32704u, 32640u < t248) & 0xffffu, vyre_load_ob((gl * 4u) + (select(vyre_load_tile2(vyre_div(vyre_load_ru(0u), v20) % 5u), vyre_load_out(_vyre_meta.len_out - 1u), v23 != 0u) % 4u)) != 0u);
    let t255: u32 = u32(32640u < (t254 & 32767u));
    vyre_store_og((gl * 4u) + 3u, select(select(select(t254, 16043u, (t254 ^ (((0u - (t254 >> 15u)) & 65535u) | 32768u)) < 48811u), 16043u, t255 != 0u), 32704u, (0u & t255) != 0u) & 0xffffu);
    {
    }
    let v28: vec4<u32> = vec4<u32>(3u, 3u, 3u, 3u);
  }
  let t291: u32 = (vyre_load_og((gl * 4u) + 1u) & 32767u) & 0xffffu;
  if (_vyre_meta.len_rg != 0u) {
    for (var i30: u32 = 2u; i30 < 0u; i30 = i30 + 1u) {
      let v31: i32 = ~bitcast<i32>(v9.x);
    }
    let v32: vec2<u32> = vyre_load_ov2((gl * 4u) + 3u);
    workgroupBarrier();
  }
}