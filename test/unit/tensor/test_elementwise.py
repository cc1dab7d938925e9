"""Elementwise float ops against numpy on the interpreter, bit for bit: random
values with NaNs (payloads), infinities, signed zeros and subnormals, in F32,
F16 and BF16; NaN results canonical, neg/abs sign-bit operations;
maximum/minimum are maximumNumber/minimumNumber. And `vt.map`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import tensor_oracles as O
from tensor_oracles import random_bits, user_array

from vyre import tensor as vt
from vyre.ir import DataType
from vyre.ir import Expr as E

FORMATS = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}
UINT = O.UINT


def _as_f32(bits: int, fmt: str) -> np.float32:
    if fmt == "f32":
        return np.array([bits], dtype=np.uint32).view(np.float32)[0]
    if fmt == "f16":
        return np.float32(np.array([bits], dtype=np.uint16).view(np.float16)[0])
    return np.array([bits << 16], dtype=np.uint32).view(np.float32)[0]


def _round(value: np.float32, fmt: str) -> int:
    """A float32 result rounded once to `fmt` (exact for f32), NaN canonical."""
    if np.isnan(value):
        return O.canonical(fmt)
    word = int(np.array([value], dtype=np.float32).view(np.uint32)[0])
    if fmt == "f32":
        return word
    if np.isinf(value):
        return int(np.array([value], dtype=np.float32).astype(np.float16).view(np.uint16)[0]) if fmt == "f16" else word >> 16
    return O.round_rational(O.to_fraction(word, "f32"), fmt, negative_zero=bool(word >> 31))


def _arith(op: Callable[[np.float32, np.float32], np.float32]) -> Callable[[int, int, str], int]:
    def oracle(a: int, b: int, fmt: str) -> int:
        with np.errstate(all="ignore"):
            return _round(np.float32(op(_as_f32(a, fmt), _as_f32(b, fmt))), fmt)

    return oracle


def _extreme(maximum: bool) -> Callable[[int, int, str], int]:
    def oracle(a: int, b: int, fmt: str) -> int:
        return O.extreme([a, b], fmt, maximum)

    return oracle


BINARY: dict[str, tuple[Callable[[vt.Tensor, vt.Tensor], vt.Tensor], Callable[[int, int, str], int]]] = {
    "add": (vt.add, _arith(lambda a, b: a + b)),
    "sub": (vt.sub, _arith(lambda a, b: a - b)),
    "mul": (vt.mul, _arith(lambda a, b: a * b)),
    "div": (vt.div, _arith(lambda a, b: a / b)),
    "maximum": (vt.maximum, _extreme(True)),
    "minimum": (vt.minimum, _extreme(False)),
}


def _sign_op(fmt: str, flip: bool) -> Callable[[int], int]:
    top = 1 << (31 if fmt == "f32" else 15)
    return (lambda a: a ^ top) if flip else (lambda a: a & (top - 1))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_match_the_oracle(fmt: str, name: str) -> None:
    rng = np.random.default_rng(hash((fmt, name)) % 2**32)
    fn, oracle = BINARY[name]
    g = vt.Graph("bin")
    a = g.input("a", FORMATS[fmt], (6, 7))
    b = g.input("b", FORMATS[fmt], (7,))
    g.output("c", fn(a, b))
    A, B = random_bits(rng, (6, 7), fmt), random_bits(rng, (7,), fmt)
    got = vt.run(g, {"a": user_array(A, fmt), "b": user_array(B, fmt)}, backend="interp")["c"]
    expected = [[oracle(int(A[i, j]), int(B[j]), fmt) for j in range(7)] for i in range(6)]
    assert got.view(UINT[fmt]).tolist() == expected


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_unary_ops_match_the_oracle(fmt: str) -> None:
    rng = np.random.default_rng(5)
    g = vt.Graph("un")
    x = g.input("x", FORMATS[fmt], (40,))
    g.output("neg", vt.neg(x))
    g.output("abs", vt.abs(x))
    g.output("sqrt", vt.sqrt(x))
    X = random_bits(rng, (40,), fmt)
    out = vt.run(g, {"x": user_array(X, fmt)}, backend="interp")
    values = [int(v) for v in X]
    assert out["neg"].view(UINT[fmt]).tolist() == [_sign_op(fmt, True)(v) for v in values]
    assert out["abs"].view(UINT[fmt]).tolist() == [_sign_op(fmt, False)(v) for v in values]
    with np.errstate(all="ignore"):
        roots = [_round(np.float32(np.sqrt(_as_f32(v, fmt))), fmt) for v in values]
    assert out["sqrt"].view(UINT[fmt]).tolist() == roots


def test_integer_ops_wrap_and_compare_signed_for_i32() -> None:
    g = vt.Graph("ints")
    a = g.input("a", DataType.I32, (5,))
    b = g.input("b", DataType.I32, (5,))
    g.output("max", vt.maximum(a, b))
    g.output("min", vt.minimum(a, b))
    g.output("mul", vt.mul(a, b))
    g.output("neg", vt.neg(a))
    A = np.array([-5, 2**31 - 1, -(2**31), 0, 7], dtype=np.int32)
    B = np.array([3, -1, 5, -0, -7], dtype=np.int32)
    out = vt.run(g, {"a": A, "b": B}, backend="interp")
    np.testing.assert_array_equal(out["max"], np.maximum(A, B))
    np.testing.assert_array_equal(out["min"], np.minimum(A, B))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out["mul"], A * B)
        np.testing.assert_array_equal(out["neg"], -A)


def test_map_applies_a_vyre_expression_per_element() -> None:
    rng = np.random.default_rng(9)
    g = vt.Graph("mapped")
    a = g.input("a", DataType.F32, ("n", 3))
    b = g.input("b", DataType.F32, (3,))
    g.output("fma", vt.map(lambda x, y: E.fma(x, y, E.f32(1.0)), a, b))
    g.output("bits", vt.map(lambda x: E.bitxor(E.bitcast(DataType.U32, x), E.u32(0xFF)), a))
    A, B = random_bits(rng, (4, 3), "f32"), random_bits(rng, (3,), "f32")
    out = vt.run(g, {"a": user_array(A, "f32"), "b": user_array(B, "f32")}, backend="interp")
    one = 0x3F80_0000
    expected = [[O.fma_f32(int(A[i, j]), int(B[j]), one) for j in range(3)] for i in range(4)]
    assert out["fma"].view(np.uint32).tolist() == expected
    np.testing.assert_array_equal(out["bits"], A ^ np.uint32(0xFF))


def test_map_over_i32_sees_i32_elements() -> None:
    g = vt.Graph("imap")
    a = g.input("a", DataType.I32, (4,))
    g.output("c", vt.map(lambda x: E.cast(DataType.F32, x), a))
    A = np.array([-3, 0, 7, -(2**31)], dtype=np.int32)
    np.testing.assert_array_equal(vt.run(g, {"a": A}, backend="interp")["c"], A.astype(np.float32))
