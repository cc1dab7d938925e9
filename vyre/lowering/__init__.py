"""Lowering of vyre programs to target code (WGSL)."""

from vyre.lowering.values import LoweringError
from vyre.lowering.wgsl import LoweredKernel, lower, lower_to_wgsl

__all__ = ["LoweredKernel", "LoweringError", "lower", "lower_to_wgsl"]
