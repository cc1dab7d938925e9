"""Reductions along an axis against independent oracles, on the interpreter:
`sum(order="exact")` against the exact rational sum rounded once (with the
contract's NaN, infinity and signed-zero rules), `sequential` and `tree`
against their definitions in float32 arithmetic, max/min as
maximumNumber/minimumNumber, integer sums wrapping; random shapes with 0- and
1-sized dims, static and dynamic, and the multi-workgroup paths."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
import tensor_oracles as O
from tensor_oracles import UINT, random_bits, user_array

from vyre import tensor as vt
from vyre.ir import DataType
from vyre.transforms.tensors import exact_sum as ES
from vyre.transforms.tensors import reduce as R

FORMATS = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}

ORDERS: dict[str, Callable[[Sequence[int], str], int]] = {
    "exact": O.exact_sum,
    "sequential": O.sequential_sum,
    "tree": O.tree_sum,
}


def _along(bits: np.ndarray, axis: int, reduce: Callable[[list[int]], int]) -> np.ndarray:
    moved = np.moveaxis(bits, axis, -1)
    out = np.zeros(moved.shape[:-1], dtype=np.int64)
    for index in np.ndindex(*moved.shape[:-1]):
        out[index] = reduce([int(v) for v in moved[index]])
    return out


def _check(fmt: str, shape: tuple[int, ...], spec: tuple[int | str, ...], axis: int, kinds: Sequence[str], seed: int) -> None:
    rng = np.random.default_rng(seed)
    g = vt.Graph("red")
    x = g.input("x", FORMATS[fmt], spec)
    for kind in kinds:
        if kind in ORDERS:
            g.output(kind, vt.sum(x, axis, kind))
        else:
            g.output(kind, (vt.max if kind == "max" else vt.min)(x, axis))
    X = random_bits(rng, shape, fmt)
    out = vt.run(g, {"x": user_array(X, fmt)}, backend="interp")
    for kind in kinds:
        if kind in ORDERS:
            expected = _along(X, axis, lambda v: ORDERS[kind](v, fmt))
        else:
            expected = _along(X, axis, lambda v: O.extreme(v, fmt, kind == "max"))
        assert out[kind].shape == expected.shape
        assert out[kind].view(UINT[fmt]).astype(np.int64).tolist() == expected.tolist(), kind


SHAPES = [
    ((7,), (7,), 0),
    ((1,), (1,), 0),
    ((0, 3), (0, 3), 1),
    ((3, 0), (3, 0), 0),
    ((4, 5), ("a", 5), 1),
    ((4, 5), (4, "b"), 0),
    ((2, 3, 33), (2, 3, "c"), -1),
    ((2, 1, 6), (2, 1, 6), 1),
    ((3, 70), (3, 70), 1),
]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize(("shape", "spec", "axis"), SHAPES)
def test_sums_match_their_definitions(fmt: str, shape: tuple[int, ...], spec: tuple[int | str, ...], axis: int) -> None:
    _check(fmt, shape, spec, axis, ("exact", "sequential", "tree"), seed=len(shape) * 31 + shape[-1])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize(("shape", "spec", "axis"), [s for s in SHAPES if s[0][s[2]] > 0])
def test_max_and_min_are_maximum_and_minimum_number(fmt: str, shape: tuple[int, ...], spec: tuple[int | str, ...], axis: int) -> None:
    _check(fmt, shape, spec, axis, ("max", "min"), seed=shape[-1])


@pytest.mark.parametrize("fmt", ["f32", "bf16"])
def test_the_tiled_paths_give_the_same_bits(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Axes longer than one tile: several workgroups per output, merged; and
    the ordered sums over several repeated dispatches."""
    monkeypatch.setattr(R, "ROW_LIMIT", 0)
    monkeypatch.setattr(ES, "ROW_LIMIT", 0)
    monkeypatch.setattr(R, "TILE", 64)
    monkeypatch.setattr(R, "PER_THREAD", 1)
    monkeypatch.setattr(R, "WORKGROUP", 64)
    monkeypatch.setattr(R, "CHUNK", 16)
    _check(fmt, (3, 300), (3, 300), 1, ("exact", "sequential", "tree", "max"), seed=3)


def test_exact_sums_cancel_round_once_and_overflow() -> None:
    big = 2.0**127
    cases = [
        [2.0**100, 1.0, -(2.0**100)],  # 1 survives the cancellation
        [2.0**-149, 2.0**-149, -(2.0**-149)],  # subnormal result
        [big, big, -big],  # an intermediate overflow does not matter
        [big, big],  # the sum overflows: +inf
        [1.0, 2.0**-24, 2.0**-150],  # just above the tie: rounds up
        [1.0, 2.0**-24],  # a tie: to even
        [-0.0, -0.0],
        [-0.0, 0.0],
        [1.5, -1.5],
    ]
    width = max(len(c) for c in cases)
    X = np.zeros((len(cases), width), dtype=np.float32)
    for k, case in enumerate(cases):
        X[k, : len(case)] = case
    X[6, 2:] = -0.0
    g = vt.Graph("adversarial")
    x = g.input("x", DataType.F32, (len(cases), width))
    g.output("s", vt.sum(x, 1))
    got = vt.run(g, {"x": X}, backend="interp")["s"].view(np.uint32).tolist()
    expected = [O.exact_sum([int(v) for v in row], "f32") for row in X.view(np.uint32)]
    assert got == expected
    assert got[0] == 0x3F80_0000 and got[3] == 0x7F80_0000 and got[6] == 0x8000_0000 and got[7] == 0


@pytest.mark.parametrize("dtype", [DataType.U32, DataType.I32])
def test_integer_sums_wrap_and_integer_extremes(dtype: DataType) -> None:
    rng = np.random.default_rng(11)
    numpy = np.uint32 if dtype is DataType.U32 else np.int32
    info = np.iinfo(numpy)
    X = rng.integers(info.min, info.max, (3, 50), dtype=np.int64, endpoint=True).astype(numpy)
    g = vt.Graph("ints")
    x = g.input("x", dtype, (3, "n"))
    for order in ("exact", "sequential", "tree"):
        g.output(order, vt.sum(x, 1, order))
    g.output("max", vt.max(x, 1))
    g.output("min", vt.min(x, 0))
    out = vt.run(g, {"x": X}, backend="interp")
    wrapped = (X.astype(np.int64).sum(1) % 2**32).astype(np.uint32).view(numpy)
    for order in ("exact", "sequential", "tree"):
        np.testing.assert_array_equal(out[order], wrapped)
    np.testing.assert_array_equal(out["max"], X.max(1))
    np.testing.assert_array_equal(out["min"], X.min(0))


def test_max_of_an_empty_axis_is_a_value_error() -> None:
    g = vt.Graph("empty")
    x = g.input("x", DataType.F32, ("n", 2))
    g.output("m", vt.max(x, 0))
    with pytest.raises(ValueError, match=r"vt\.max: axis 0 of shape \(0, 2\) is empty"):
        vt.run(g, {"x": np.zeros((0, 2), dtype=np.float32)}, backend="interp")
    static = vt.Graph("static")
    y = static.input("y", DataType.F32, (0, 2))
    with pytest.raises(ValueError, match=r"vt\.min: axis 0 of shape \(0, 2\) is empty"):
        vt.min(y, 0)
