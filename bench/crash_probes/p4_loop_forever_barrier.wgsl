@group(0) @binding(0) var<storage, read_write> og: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn spin(i: u32) {
  loop {
    out[i] = out[i] + 1u;
  }
}
@compute @workgroup_size(1, 2, 1)
fn main(@builtin(local_invocation_index) li: u32) {
  spin(li);
  if (arrayLength(&out) != 0u) {
    workgroupBarrier();
  }
}
