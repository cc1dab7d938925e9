vyre.kernel @k workgroup_size(99999999999999999999, 1, 1) {
}
