"""F32 bit patterns for the fast-path tests (`test/unit/transforms/test_softfloat_*_normal.py`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def normal_f32(rng: np.random.Generator, n: int, low: int = 1, high: int = 255) -> npt.NDArray[np.uint32]:
    """`n` F32 patterns of random sign and fraction whose biased exponents are
    drawn from [low, high) (within 1..254: normal numbers)."""
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(31)
    exponent = rng.integers(low, high, n, dtype=np.uint64) << np.uint64(23)
    fraction = rng.integers(0, 1 << 23, n, dtype=np.uint64)
    return (sign | exponent | fraction).astype(np.uint32)
