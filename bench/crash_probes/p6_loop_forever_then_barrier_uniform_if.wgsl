@group(0) @binding(0) var<storage, read_write> og: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1, 2, 1)
fn main(@builtin(local_invocation_index) li: u32) {
  loop {
    out[li] = out[li] + 1u;
  }
  if (arrayLength(&out) != 0u) {
    workgroupBarrier();
  }
}
