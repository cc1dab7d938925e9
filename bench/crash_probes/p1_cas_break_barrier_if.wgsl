@group(0) @binding(0) var<storage, read_write> og: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn store_og(i: u32, value: u32) {
  let word = i >> 1u;
  let shift = (i & 1u) << 4u;
  let bits = (value & 0xffffu) << shift;
  let mask = ~(0xffffu << shift);
  var old = atomicLoad(&og[word]);
  loop {
    let result = atomicCompareExchangeWeak(&og[word], old, (old & mask) | bits);
    if (result.exchanged) { break; }
    old = result.old_value;
  }
}
@compute @workgroup_size(1, 2, 1)
fn main(@builtin(local_invocation_index) li: u32) {
  store_og(li, 7u);
  if (arrayLength(&out) != 0u) {
    for (var i: u32 = 2u; i < 0u; i = i + 1u) { }
    workgroupBarrier();
  }
}
