vyre.kernel @k workgroup_size(1, 1, 1) {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
vyre.block {
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
