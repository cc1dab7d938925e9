"""Views and elementwise ops against numpy, on the interpreter: random chains
of transpose, basic indexing (negative indices and steps, clipped stops),
broadcast_to and reshape, on random shapes with dims of size 0 and 1, static
or dynamic, followed by an elementwise op with broadcasting."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vyre import tensor as vt
from vyre.ir import DataType

_NUMPY = {DataType.U32: np.uint32, DataType.I32: np.int32, DataType.F32: np.float32}


def _slice(rng: np.random.Generator, size: int) -> slice | int:
    if size > 0 and rng.random() < 0.2:
        return int(rng.integers(-size, size))
    step = int(rng.choice([1, 1, 2, -1, -2, 3]))
    bound = lambda: None if rng.random() < 0.4 else int(rng.integers(-size - 2, size + 3))  # noqa: E731
    return slice(bound(), bound(), step)


def _view(rng: np.random.Generator, t: vt.Tensor, ref: np.ndarray) -> tuple[vt.Tensor, np.ndarray]:
    kind = rng.choice(["transpose", "index", "broadcast", "reshape"])
    if kind == "transpose":
        axes = [int(a) for a in rng.permutation(ref.ndim)]
        return vt.transpose(t, axes), ref.transpose(axes)
    if kind == "index" and ref.ndim:
        key = tuple(_slice(rng, d) for d in ref.shape[: int(rng.integers(1, ref.ndim + 1))])
        if rng.random() < 0.3:
            key = (Ellipsis, *key[1:])
        return t[key], ref[key]
    if kind == "broadcast":
        target = tuple(int(rng.choice([2, 3])) if d == 1 else d for d in ref.shape)
        target = ((int(rng.choice([1, 2])),) if rng.random() < 0.5 else ()) + target
        return vt.broadcast_to(t, target), np.broadcast_to(ref, target)
    flat = ref.size
    shape = [flat] if rng.random() < 0.5 or flat == 0 else [-1, *([d for d in (2, 3) if flat % d == 0][:1] or [1])]
    return vt.reshape(t, shape), ref.reshape(shape)


def _elementwise(
    rng: np.random.Generator, g: vt.Graph, t: vt.Tensor, ref: np.ndarray, dtype: DataType
) -> tuple[vt.Tensor, np.ndarray, dict[str, np.ndarray]]:
    kind = rng.choice(["neg", "add", "sub", "mul", "maximum", "minimum", "none"])
    if kind == "none":
        return t, ref, {}
    if kind == "neg":
        with np.errstate(over="ignore"):
            return vt.neg(t), (-ref if dtype is not DataType.U32 else (0 - ref.astype(np.uint64)).astype(np.uint32)), {}
    shape = tuple(1 if rng.random() < 0.3 else d for d in ref.shape[int(rng.integers(0, ref.ndim + 1)) :])
    other = _data(rng, shape, dtype)
    y = g.input("y", dtype, shape)
    fn = {"add": vt.add, "sub": vt.sub, "mul": vt.mul, "maximum": vt.maximum, "minimum": vt.minimum}[kind]
    with np.errstate(over="ignore"):
        expected = {
            "add": np.add,
            "sub": np.subtract,
            "mul": np.multiply,
            "maximum": np.maximum,
            "minimum": np.minimum,
        }[kind](ref, other).astype(ref.dtype)
    return fn(t, y), expected, {"y": other}


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: DataType) -> np.ndarray:
    if dtype is DataType.F32:
        return np.asarray(rng.integers(-50, 50, shape)).astype(np.float32)
    info = np.iinfo(_NUMPY[dtype])
    return np.asarray(rng.integers(info.min, info.max, shape, dtype=np.int64, endpoint=True)).astype(_NUMPY[dtype])


def _case(seed: int) -> tuple[vt.Graph, dict[str, Any], np.ndarray]:
    rng = np.random.default_rng(seed)
    dtype = [DataType.U32, DataType.I32, DataType.F32][seed % 3]
    shape = tuple(int(rng.choice([0, 1, 2, 3, 5])) for _ in range(int(rng.integers(1, 4))))
    if rng.random() < 0.9:
        shape = tuple(d if d else int(rng.choice([1, 2, 3])) for d in shape)
    spec = tuple(f"d{k}" if rng.random() < 0.5 else d for k, d in enumerate(shape))
    g = vt.Graph(f"case{seed}")
    x = g.input("x", dtype, spec)
    ref = _data(rng, shape, dtype)
    t, expected = x, ref
    for _ in range(int(rng.integers(1, 4))):
        t, expected = _view(rng, t, expected)
    t, expected, extra = _elementwise(rng, g, t, expected, dtype)
    g.output("out", t)
    return g, {"x": ref, **extra}, expected


@pytest.mark.parametrize("seed", range(96))
def test_random_view_chains_match_numpy(seed: int) -> None:
    g, inputs, expected = _case(seed)
    out = vt.run(g, inputs, backend="interp")["out"]
    assert out.shape == expected.shape
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)


def test_a_view_chain_and_one_elementwise_op_are_one_kernel() -> None:
    g = vt.Graph("fused")
    x = g.input("x", DataType.F32, ("n", 8))
    b = g.input("b", DataType.F32, (8,))
    y = vt.neg(vt.transpose(vt.broadcast_to(b, (2, "n", 8))[:, ::-1] + x, (2, 0, 1))[1:, :, 3])
    g.output("y", y)
    assert len(vt.kernels(g)) == 1
    X = np.arange(40, dtype=np.float32).reshape(5, 8)
    B = np.arange(8, dtype=np.float32) * 100
    expected = -(np.broadcast_to(B, (2, 5, 8))[:, ::-1] + X).transpose(2, 0, 1)[1:, :, 3]
    np.testing.assert_array_equal(vt.run(g, {"x": X, "b": B}, backend="interp")["y"], expected)


def test_a_reshape_the_strides_cannot_express_is_a_copy_then_a_view() -> None:
    g = vt.Graph("copy")
    x = g.input("x", DataType.U32, (3, 4))
    g.output("y", vt.reshape(vt.transpose(x), (12,)))
    text = str(g)
    assert "vtensor.copy" in text and "vtensor.reshape" in text
    X = np.arange(12, dtype=np.uint32).reshape(3, 4)
    np.testing.assert_array_equal(vt.run(g, {"x": X}, backend="interp")["y"], X.T.reshape(12))


def test_a_contiguous_reshape_is_a_view_of_the_same_buffer() -> None:
    g = vt.Graph("view")
    x = g.input("x", DataType.U32, ("n", 4))
    g.output("y", vt.reshape(x, (-1,)))
    assert "vtensor.copy" not in str(g)
    assert vt.kernels(g) == []  # the result is the input's buffer, read back
    X = np.arange(12, dtype=np.uint32).reshape(3, 4)
    np.testing.assert_array_equal(vt.run(g, {"x": X}, backend="interp")["y"], X.reshape(-1))
