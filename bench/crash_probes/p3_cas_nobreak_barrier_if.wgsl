@group(0) @binding(0) var<storage, read_write> og: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn store_og(i: u32, value: u32) {
  var old = atomicLoad(&og[i]);
  loop {
    let result = atomicCompareExchangeWeak(&og[i], old, value);
    if (result.exchanged) { }
    old = result.old_value;
  }
}
@compute @workgroup_size(1, 2, 1)
fn main(@builtin(local_invocation_index) li: u32) {
  store_og(li, 7u);
  if (arrayLength(&out) != 0u) {
    workgroupBarrier();
  }
}
