"""Lowering of prepared vyre kernels to target code (WGSL).

`lower(kernel)` takes a kernel the pipeline prepared (`vyre.pipeline.prepare`);
`vyre.lower_to_wgsl(program)` is the public path from a Program."""

from vyre.lowering.values import LoweringError
from vyre.lowering.wgsl import LoweredKernel, lower

__all__ = ["LoweredKernel", "LoweringError", "lower"]
