// vyre kernel @random_63686649844636338, lowered by vyre.lowering.wgsl.
// Bind group 0: the program's storage/uniform buffers at their bindings, and
// _vyre_meta (binding 10): workgroup-id offset and the logical element count of each buffer.

struct VyreMeta {
  wg_offset_x: u32,
  wg_offset_y: u32,
  wg_offset_z: u32,
  len_ru: u32,
  len_og: u32,
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
var<workgroup> tile1: array<u32, 2>;
var<workgroup> tile2: array<u32, 3>;

// OOB guard + half-word store on `oh` (two 16-bit elements per word):
// a compare-exchange loop replaces only half i & 1 of word i >> 1, so a
// neighbour stored at the same time by another invocation is kept.
fn vyre_store_oh(i: u32, value: u32) {
}

// OOB guard: loads at or past the logical length of `rb` read 0.
fn vyre_load_rb(i: u32) -> u32 {
  return 0u;
}

// OOB guard: loads at or past the logical length of `out` read 0.
fn vyre_load_out(i: u32) -> u32 {
  return 0u;
}

// OOB guard: loads at or past the logical length of `ru` read 0.
fn vyre_load_ru(i: u32) -> u32 {
  return 0u;
}

// OOB guard: stores at or past the logical length of `ob` do nothing.
fn vyre_store_ob(i: u32, value: u32) {
}

// OOB guard: loads at or past the logical length of `tile1` read 0.
fn vyre_load_tile1(i: u32) -> u32 {
  return 0u;
}

// OOB guard: loads at or past the logical length of `ov2` read 0.
fn vyre_load_ov2(i: u32) -> vec2<u32> {
  if (i < _vyre_meta.len_ov2) {
    return ov2[i];
  }
  return vec2<u32>();
}

// OOB guard: stores at or past the logical length of `ov2` do nothing.
fn vyre_store_ov2(i: u32, value: vec2<u32>) {
}

// OOB guard: loads at or past the logical length of `oh` read 0.
fn vyre_load_oh(i: u32) -> u32 {
  return 0u;
}

// OOB guard: stores at or past the logical length of `tile1` do nothing.
fn vyre_store_tile1(i: u32, value: u32) {
}

// OOB guard: loads at or past the logical length of `tile2` read 0.
fn vyre_load_tile2(i: u32) -> u32 {
  if (i < 3u) {
    return tile2[i];
  }
  return 0u;
}

// OOB guard + half-word store on `og` (two 16-bit elements per word):
// a compare-exchange loop replaces only half i & 1 of word i >> 1, so a
// neighbour stored at the same time by another invocation is kept.
fn vyre_store_og(i: u32, value: u32) {
  if (i >= _vyre_meta.len_og) {
    return;
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
  if (i < _vyre_meta.len_og) {
    return (atomicLoad(&og[i >> 1u]) >> ((i & 1u) << 4u)) & 0xffffu;
  }
  return 0u;
}

// OOB guard: stores at or past the logical length of `out` do nothing.
fn vyre_store_out(i: u32, value: u32) {
  if (i < _vyre_meta.len_out) {
    out[i] = value;
  }
}

// OOB guard: loads at or past the logical length of `ob` read 0.
fn vyre_load_ob(i: u32) -> u32 {
  if (i < _vyre_meta.len_ob) {
    return u32(ob[i] != 0u);
  }
  return 0u;
}

// Division guard: x / 0 == 0 (WGSL gives x / 0 == x).
fn vyre_div(dividend: u32, divisor: u32) -> u32 {
  return select(dividend / select(divisor, 1u, divisor == 0u), 0u, divisor == 0u);
}

@compute @workgroup_size(1, 2, 1)
fn main(@builtin(workgroup_id) dispatch_workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_id: vec3<u32>, @builtin(local_invocation_index) local_index: u32) {
  let workgroup_id = dispatch_workgroup_id + vec3<u32>(_vyre_meta.wg_offset_x, _vyre_meta.wg_offset_y, _vyre_meta.wg_offset_z);
  let invocation_id = workgroup_id * vec3<u32>(1u, 2u, 1u) + local_id;
  // Workgroup memory starts at zero (wgpu-native does not zero it):
  // the invocations clear it cooperatively, then wait for each other.
  for (var k: u32 = local_index; k < 2u; k = k + 2u) {
    tile1[k] = 0u;
  }
  let gl: u32 = ((invocation_id.z * 8u) + (invocation_id.y * 4u)) + invocation_id.x;
  let ll: u32 = ((local_id.z * 2u) + (local_id.y * 1u)) + local_id.x;
  let t0: u32 = ll & 0xffffu;
  let t1: u32 = u32(31744u < (t0 & 32767u));
  let v6: u32 = select(vec2<u32>(0x2dcb1311u, 0u), select(vec2<u32>(0x7f0c045du, 0u), vec2<u32>(0u, 0u), vyre_load_tile2((ll * 1u) + 0u) != 0u), reverseBits(invocation_id.x) != 0u).x;
  let t47: u32 = vyre_load_rg(0x48abb387u);
  let t48: u32 = select(t47 << 16u, 0x7fc00000u, 32640u < (t47 & 32767u));
  let t49: u32 = t48 & 0x7fffffffu;
  let t50: u32 = t49 >> 23u;
  let t51: u32 = (t49 & 0x7fffffu) | 0x800000u;
  var v9: vec4<u32> = vec4<u32>(u32(select(select(select(select(t51 >> ((150u - t50) & 31u), t51 << ((t50 - 150u) & 31u), 150u <= t50), 0u, t50 < 127u), 0xffffffffu, 159u <= t50), 0u, ((t48 >> 31u) | u32(0x7f800000u < t49)) != 0u) != vyre_load_ru(0u)));
  let t52: u32 = select(3u, vyre_load_out(vyre_load_tile2(1u) | 0x80000000u), vyre_load_rb(2u) != 0u);
  let t53: u32 = countLeadingZeros(t52);
  let t54: u32 = 1070u - t53;
  let t55: u32 = select(t54, 1025u, t54 < 1025u);
  let t56: u32 = t52 << (t53 & 31u);
  let t57: u32 = t55 - t54;
  let t128: u32 = vyre_load_tile1((ll * 1u) + 0u);
  let t129: u32 = t128 & 32767u;
  let t130: u32 = u32(t129 == 31744u);
  let t131: u32 = t128 >> 15u;
  let t132: u32 = select(select(select(t128, (0u & t131) << 15u, t129 == 0u), t128, t130 != 0u), 32256u, (((0u | u32(31744u < t129)) | 0u) | ((0u & t130) & u32(0u != t131))) != 0u) & 0xffffu;
  let t133: u32 = select(vyre_load_tile1((ll * 1u) + (countOneBits(vyre_load_tile2((ll * 1u) + 0u)) % 1u)), 1u, vyre_load_rb(ll + 0xffffffffu) != 0u);
  let v18: u32 = select(u32((((u32(t132 == t133) | u32(((t132 | t133) & 32767u) == 0u)) & ((u32(31744u < (t132 & 32767u)) | u32(31744u < (t133 & 32767u))) ^ 1u)) ^ 1u) != 0u), select(1u, 0u, invocation_id.x == 0u), (vyre_load_tile2((ll * 1u) + 0u) / 0x80000000u) != 0u);
  vyre_store_out((gl * 4u) + 0u, 0x2ac00000u);
  let v19: u32 = v6;
  vyre_store_tile1((ll * 1u) + 0u, 31743u);
  let v20: u32 = 31u;
  {
    let t134: u32 = vyre_load_og(0x80000000u);
  }
  {
    let v22: u32 = 0u;
    vyre_store_tile1((ll * 1u) + ((v22 & local_id.y) % 1u), 64512u);
    let t242: u32 = select(41440u, vyre_load_rg(34u), vyre_load_ob(32u) != 0u);
    let t243: u32 = select(t242 << 16u, 0x7fc00000u, 32640u < (t242 & 32767u));
    let t244: u32 = t243 & 0x7fffffffu;
    let t245: u32 = t244 >> 23u;
    let t246: u32 = (t244 & 0x7fffffu) | 0x800000u;
    let v23: u32 = select(vyre_load_out((gl * 4u) + (vyre_load_ru(3u) % 4u)), select(select(select(select(t246 >> ((150u - t245) & 31u), t246 << ((t245 - 150u) & 31u), 150u <= t245), 0u, t245 < 127u), 0xffffffffu, 159u <= t245), 0u, ((t243 >> 31u) | u32(0x7f800000u < t244)) != 0u), vyre_load_out((gl * 4u) + 1u) != 0u);
    storageBarrier();
    workgroupBarrier();
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
      {
        let v24: u32 = vyre_load_ru(3u);
        let v25: vec2<u32> = vyre_load_ov2((gl * 4u) + 2u);
        let t256: u32 = vyre_load_oh(0xffffffffu);
        let t257: u32 = t256 & 32767u;
        let t258: u32 = u32(t257 < 32043u);
        let t259: u32 = select(t257, 32043u, t258 != 0u);
        let t260: u32 = select(32043u, t257, t258 != 0u);
        let t261: u32 = (t256 ^ 32043u) >> 15u;
        let t262: u32 = select(t256, 32043u, t258 != 0u);
        let t263: u32 = t259 >> 10u;
        let t264: u32 = u32(t263 != 0u);
        let t265: u32 = ((t259 & 1023u) | (t264 << 10u)) << 19u;
        let t266: u32 = t260 >> 10u;
        let t267: u32 = u32(t266 != 0u);
        let t268: u32 = ((t260 & 1023u) | (t267 << 10u)) << 19u;
        let t269: u32 = (t263 - t266) - (t264 ^ t267);
        let t270: u32 = select(t269, 31u, 31u < t269);
        let t271: u32 = t268 >> (t270 & 31u);
        let t272: u32 = t271 | u32((t271 << (t270 & 31u)) != t268);
        let t273: u32 = select(t265 + t272, t265 - t272, t261 != 0u);
        let t274: u32 = t262 & 32768u;
        let t275: u32 = t263 + (t264 ^ 1u);
        let t276: u32 = countLeadingZeros(t273) - 1u;
        let t277: u32 = select(t276, t275, t275 < t276);
        let t278: u32 = t275 - t277;
        let t279: u32 = t273 << (t277 & 31u);
        let t280: u32 = (vyre_load_oh((gl * 4u) + (v18 % 4u)) ^ 32768u) & 0xffffu;
        let t281: u32 = select(select(select((t278 << 10u) + (((t279 + 0x7ffffu) + ((t279 >> 20u) & 1u)) >> 20u), 31744u, 30u <= t278) | t274, select(t274, 0u, t261 != 0u), t273 == 0u), select(t262, 32256u, (u32(31744u < t259) | (u32(t260 == 31744u) & t261)) != 0u), 31744u <= t259) & 0xffffu;
        let t282: u32 = u32(31744u < (t280 & 32767u));
        let t283: u32 = u32(31744u < (t281 & 32767u));
        let t284: u32 = vyre_load_oh((gl * 4u) + 1u);
        let t285: u32 = t284 & 32767u;
        let t286: u32 = t285 >> 10u;
        let t287: u32 = 1u << ((25u - t286) & 31u);
        let t288: u32 = t285 & (t287 - 1u);
        let t289: u32 = t285 ^ t288;
        let t290: u32 = t287 >> 1u;
        vyre_store_oh((gl * 4u) + 2u, select(select(31744u, select(select(select(t289 + select(0u, t287, (u32(t290 < t288) | (u32(t288 == t290) & u32((t289 & t287) != 0u))) != 0u), select(0u, 15360u, 14336u < t285), t286 < 15u) | ((t284 >> 15u) << 15u), t284, 25u <= t286), 32256u, 31744u < t285) & 0xffffu, vyre_load_rb(gl + 1u) != 0u), select(select(select(select(t281, t280, (t281 ^ (((0u - (t281 >> 15u)) & 65535u) | 32768u)) < (t280 ^ (((0u - (t280 >> 15u)) & 65535u) | 32768u))), t281, t282 != 0u), t280, t283 != 0u), 32256u, (t282 & t283) != 0u) & 0xffffu, select(u32(vyre_load_tile2(0x80000000u) >= vyre_load_tile2(vyre_load_out((gl * 4u) + (select(workgroup_id.x, vyre_load_out((gl * 4u) + (vyre_load_ru(_vyre_meta.len_ru - 0u) % 4u)), v18 != 0u) % 4u)))), vyre_load_ov2(0xffffffffu).x, select(ll, vyre_load_out((gl * 4u) + 0u), vyre_load_rb(3u) != 0u) != 0u) != 0u));
      }
      for (var i26: u32 = 0xfffffffeu; i26 < 0xffffffffu; i26 = i26 + 1u) {
        let v27: u32 = 0u;
      }
    }
    let v28: vec4<u32> = vec4<u32>(3u, 3u, 3u, 3u);
  }
  vyre_store_ob((gl * 4u) + 2u, vyre_load_rb(vyre_load_ov2(0xffffffffu).x));
  vyre_store_ov2(0xffffffffu, select(v9, v9, (0u - vyre_load_out(_vyre_meta.len_out + 2u)) != 0u).xy);
  let t291: u32 = (vyre_load_og((gl * 4u) + 1u) & 32767u) & 0xffffu;
  if (_vyre_meta.len_rg != 0u) {
    for (var i30: u32 = 2u; i30 < 0u; i30 = i30 + 1u) {
      let v31: i32 = ~bitcast<i32>(v9.x);
    }
    let v32: vec2<u32> = vyre_load_ov2((gl * 4u) + 3u);
    vyre_store_og((gl * 4u) + 1u, 49024u);
    workgroupBarrier();
    workgroupBarrier();
    let v33: u32 = v18;
    let v34: u32 = u32(reverseBits(ll) == 0u);
  }
}
