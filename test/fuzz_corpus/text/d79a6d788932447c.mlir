vyre.kernel @k workgroup_size(1, 1, 1) {
  %0 = vyre.lit_u32 4294967296
}
