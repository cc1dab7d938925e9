"""The primitive families of the standard library: `primitive.math`,
`primitive.bitwise`, `primitive.compare` and `primitive.logical` (u32 scalars)."""
