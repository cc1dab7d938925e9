"""What every F32 fast path (`softfloat.*_normal`) promises, on numpy: it is
registered for F32 only; it never applies to a zero, subnormal, infinite or NaN
operand; and select(applies, fast, general), the routine float-strict makes of
it, is the correctly rounded result of the reference interpreter's floats (no
code shared) on random patterns of every class. Each fast path's own file tests
its domain's edges."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
import numpy.typing as npt
import pytest

from vyre.dialects import vyre as d
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.add_normal import fadd_f32_normal, fsub_f32_normal
from vyre.transforms.softfloat.div_normal import fdiv_f32_normal
from vyre.transforms.softfloat.fma_normal import fma_f32_normal
from vyre.transforms.softfloat.mul_normal import fmul_f32_normal
from vyre.transforms.softfloat.sqrt_normal import fsqrt_f32_normal

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()

def _binary(op: str) -> Callable[[U32, U32], U32]:
    return lambda a, b: oracle.binary(op, "f32", a, b)


def _sqrt(a: U32) -> U32:
    return oracle.unary("sqrt", "f32", a)


def _fma(a: U32, b: U32, c: U32) -> U32:
    return oracle.fma("f32", a, b, c)


FastPath = Callable[..., tuple[sf.W[U32], sf.W[U32]]]
PATHS: dict[str, tuple[type[d.FloatOp], FastPath, Callable[..., U32]]] = {
    "add": (d.FAddOp, cast(FastPath, fadd_f32_normal), _binary("add")),
    "sub": (d.FSubOp, cast(FastPath, fsub_f32_normal), _binary("sub")),
    "mul": (d.FMulOp, cast(FastPath, fmul_f32_normal), _binary("mul")),
    "div": (d.FDivOp, cast(FastPath, fdiv_f32_normal), _binary("div")),
    "sqrt": (d.FSqrtOp, cast(FastPath, fsqrt_f32_normal), _sqrt),
    "fma": (d.FmaOp, cast(FastPath, fma_f32_normal), _fma),
}
SPECIAL = [0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x7F80_0001]


def test_the_fast_paths_are_registered_for_f32_only() -> None:
    registered = {op for (op, _) in sf.FAST_PATHS}
    assert registered == {op_class for op_class, _, _ in PATHS.values()}
    for op_class, fast, _ in PATHS.values():
        assert sf.fast_path_of(op_class, sf.F32) is fast
        assert sf.fast_path_of(op_class, sf.F16) is None and sf.fast_path_of(op_class, sf.BF16) is None


@pytest.mark.parametrize("op", list(PATHS))
def test_it_never_applies_to_a_zero_subnormal_infinite_or_nan_operand(op: str) -> None:
    op_class, fast, _ = PATHS[op]
    arity = op_class.ARITY
    rng = np.random.default_rng(20)
    normal = ((rng.integers(100, 155, 64) << 23) | rng.integers(0, 1 << 23, 64)).astype(np.uint32)
    for special in SPECIAL:
        for position in range(arity):
            words = [np.full(64, special, dtype=np.uint32) if k == position else normal for k in range(arity)]
            applies, _ = fast(*(M.word(w) for w in words))
            assert not np.asarray(applies.v).any(), (hex(special), position)


@pytest.mark.parametrize("op", list(PATHS))
def test_the_fast_routine_is_the_correctly_rounded_result_on_every_class_of_input(op: str) -> None:
    op_class, fast, exact = PATHS[op]
    general = sf.algorithm_of(op_class, sf.F32)
    rng = np.random.default_rng(21)
    n = 1 << 17
    words = [rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32) for _ in range(op_class.ARITY)]
    if op_class.ARITY > 1:  # cancellations and equal operands too
        words[1][::4] = words[0][::4] ^ np.uint32(0x8000_0000)
        words[1][1::4] = words[0][1::4]
    near = ((rng.integers(0, 2, n) << 31) | (rng.integers(120, 135, n) << 23) | rng.integers(0, 1 << 23, n)).astype(np.uint32)
    for k in range(op_class.ARITY):
        words[k][2::4] = np.roll(near, k)[2::4]  # a quarter typical values: the fast path's domain
    applies, value = fast(*(M.word(w) for w in words))
    picked = sf.sel(applies, value, general(*(M.word(w) for w in words))).v
    assert np.array_equal(picked, exact(*words))
    assert 0.1 < float(np.asarray(applies.v).mean()) < 0.99  # both sides taken
