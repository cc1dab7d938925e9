"""What the target a kernel is lowered for needs: `LoweringOptions`.

The default lowers the program as written (one WGSL invocation per vyre
invocation, plain loops): `vyre.lower_to_wgsl` and `Prepared.wgsl` use it. The
wgpu runtime asks for what its adapter needs (`Prepared.lowered_for`):

- `vectorize`: when the kernel is an elementwise map (map_shape.py), emit the
  vectorised entry point (vector.py: 8 elements per invocation, vec4 access,
  exact scalar tail); any other kernel is lowered as written.
- `combine`: four loads (or stores) of consecutive words at a multiple of 4
  become one vec4 access (combine.py), in kernels lowered as written; False
  gives the one-word-per-access lowering (the differential tests' reference).
- `loop_limit`: the adapter's driver stops the loops of one shader invocation,
  silently, after this many loop back-edges in total (lavapipe / llvmpipe:
  65,535, counted over all loops of the invocation together, and per SIMD
  batch of invocations). Loops are then emitted unrolled so that they take
  fewer back-edges than iterations (loops.py), every loop checks after it ends
  that it ended by its own condition and otherwise sets a status word
  (`LoweredKernel.status_binding`) that the runtime turns into an error: a
  result is never silently wrong. Kernels with loops are not vectorised there
  (eight lanes per invocation would multiply their back-edges by eight).
- `int64`: the adapter offers wgpu's `shader-int64` and the device was requested
  with it: `mul_high` (the high word of a 32 x 32-bit product) is emitted as one
  `u64` multiply instead of four 16-bit ones (mul_high.py); the bits are the
  same, only the instructions differ.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LoweringOptions"]


@dataclass(frozen=True)
class LoweringOptions:
    vectorize: bool = False
    loop_limit: int | None = None
    combine: bool = True
    int64: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.vectorize, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"vectorize must be a bool, got {self.vectorize!r}")
        if not isinstance(self.combine, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"combine must be a bool, got {self.combine!r}")
        if not isinstance(self.int64, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"int64 must be a bool, got {self.int64!r}")
        limit = self.loop_limit
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"loop_limit must be a positive int or None, got {limit!r}")
