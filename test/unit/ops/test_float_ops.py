"""The `primitive.float` family: F32 library ops whose compositions are the
strict float operations. Each op on both backends (interpreter: its own exact
floats; wgpu: the float-strict soft-float) against its CPU reference, and every
reference against an oracle that shares no code with it (the interpreter's
floats module), NaN payloads and signed zeros included."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vyre import ops
from vyre.ir import DataType
from vyre.ops import float_laws as FL
from vyre.ops import laws as L
from vyre.runtime.interp import floats as oracle

FLOAT_IDS = [op_id for op_id in ops.known_op_ids() if op_id.startswith("primitive.float.")]

SPECIALS = np.array(
    [0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807F_FFFF, 0x0080_0000, 0x3F80_0000, 0xBF80_0000,
     0x3F00_0000, 0xBFC0_0000, 0x4020_0000, 0x7F7F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000,
     0xFFC0_0001, 0x7F80_0001],
    dtype=np.uint32,
)  # fmt: skip


def _rows(arity: int, seed: int) -> list[np.ndarray]:
    """Specials crossed, then random patterns, as uint32 words per input."""
    grid = np.array(list(itertools.product(SPECIALS, repeat=min(arity, 2))), dtype=np.uint32)
    rng = np.random.default_rng(seed)
    random = rng.integers(0, 1 << 32, (4000, arity), dtype=np.uint64).astype(np.uint32)
    if arity == 3:
        grid = np.concatenate([grid, grid[:, :1]], axis=1)
    words = np.concatenate([grid, random])
    return [np.ascontiguousarray(words[:, j]) for j in range(arity)]


def _oracle(op: str, columns: list[np.ndarray]) -> np.ndarray:
    if op in ("add", "sub", "mul", "div", "min", "max", "atan2", "pow"):
        return oracle.binary(op, "f32", *columns)
    if op == "fma":
        return oracle.fma("f32", *columns)
    return oracle.unary(op, "f32", *columns)


def test_the_family_is_the_python_api_list() -> None:
    names = {op_id.removeprefix("primitive.float.") for op_id in FLOAT_IDS}
    arithmetic = {
        "add", "sub", "mul", "div", "fma", "sqrt", "min", "max", "neg", "abs", "floor", "ceil",
        "round", "trunc",
    }  # fmt: skip
    functions = {
        "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
        "tanh", "erf", "pow", "atan2",
    }  # fmt: skip
    assert arithmetic <= names <= arithmetic | functions  # the correctly rounded ones as they land
    assert "exp2" in names
    for op_id in FLOAT_IDS:
        spec = ops.get(op_id)
        assert spec.category == "A" and spec.inlinable
        assert spec.signature.output is DataType.F32
        assert set(spec.signature.inputs) == {DataType.F32}


@pytest.mark.parametrize("op_id", FLOAT_IDS)
def test_reference_matches_the_independent_oracle(op_id: str) -> None:
    spec = ops.get(op_id)
    columns = _rows(spec.signature.arity, seed=1)
    got = np.asarray(spec.reference(*(c.view(np.float32) for c in columns))).view(np.uint32)
    want = _oracle(op_id.removeprefix("primitive.float."), columns)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [hex(int(c[bad[0]])) for c in columns] + [hex(int(got[bad[0]])), hex(int(want[bad[0]]))]


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
@pytest.mark.parametrize("op_id", FLOAT_IDS)
def test_op_on_each_backend(op_id: str, backend: str, gpu_adapter: object) -> None:
    spec = ops.get(op_id)
    columns = _rows(spec.signature.arity, seed=2)
    got = ops.evaluate(op_id, [c.view(np.float32) for c in columns], backend=backend)
    assert got.dtype == np.float32
    want = np.asarray(spec.reference(*(c.view(np.float32) for c in columns)))
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert bad.size == 0, (backend, [hex(int(c[bad[0]])) for c in columns], hex(int(got.view(np.uint32)[bad[0]])))


@pytest.mark.parametrize("op_id", FLOAT_IDS)
def test_declared_laws_hold_bit_for_bit(op_id: str) -> None:
    spec = ops.get(op_id)
    ref = spec.reference
    a, b, c = (x.view(np.float32) for x in _rows(3, seed=3))
    bits = lambda x: np.asarray(x).view(np.uint32)  # noqa: E731
    for law in spec.laws:
        match law:
            case L.Commutative():
                assert np.array_equal(bits(ref(a, b)), bits(ref(b, a)))
            case L.Associative():
                assert np.array_equal(bits(ref(ref(a, b), c)), bits(ref(a, ref(b, c))))
            case L.Involution():
                assert np.array_equal(bits(ref(ref(a))), bits(a))
            case FL.FloatLaw():
                _float_law_holds(law, ref, a, b)
            case _:
                pytest.fail(f"no check for {law}")


def _total_order(words: np.ndarray) -> np.ndarray:
    """int64 keys of F32 patterns in IEEE totalOrder (-0 just below +0)."""
    magnitude = (words & np.uint32(0x7FFF_FFFF)).astype(np.int64)
    return np.where(words >> np.uint32(31) == 1, -magnitude - 1, magnitude)


def _float_law_holds(law: FL.FloatLaw, ref: object, a: np.ndarray, b: np.ndarray) -> None:
    """The float laws checked here in numpy, apart from vyre-conform's relations:
    odd/even on each row and its negation, monotonicity over the sorted
    non-NaN rows and each row's next float, ranges by totalOrder keys, every
    exact case."""
    f = ref  # type: ignore[assignment]
    call = lambda *xs: np.asarray(f(*xs)).view(np.uint32)  # type: ignore[operator]  # noqa: E731
    rest = [b] if law.arity == 2 else []
    nan = lambda w: (w & np.uint32(0x7FFF_FFFF)) > np.uint32(0x7F80_0000)  # noqa: E731
    match law:
        case FL.FloatOdd() | FL.FloatEven():
            r, mirrored = call(a, *rest), call(-a, *rest)
            want = r if isinstance(law, FL.FloatEven) else np.where(nan(r), r, r ^ np.uint32(0x8000_0000))
            assert np.array_equal(mirrored, want)
            assert np.all(r[np.isnan(a)] == FL.CANONICAL_NAN)
        case FL.FloatMonotone():
            xs = a[~np.isnan(a)]
            with np.errstate(over="ignore"):
                xs = np.sort(np.concatenate([xs, np.nextafter(xs, np.float32(np.inf))]))
            r = np.asarray(f(xs))  # type: ignore[operator]
            r = r[~np.isnan(r)]
            assert np.all(r[1:] <= r[:-1]) if law.decreasing else np.all(r[1:] >= r[:-1])
        case FL.FloatRange():
            r = call(a, *rest)
            keys = _total_order(r[~nan(r)])
            lo, hi = _total_order(np.array([law.lo, law.hi], dtype=np.uint32))
            assert np.all((keys >= lo) & (keys <= hi))
        case FL.FloatExactCases():
            columns = [np.array([c[0][j] for c in law.cases], dtype=np.uint32).view(np.float32) for j in range(law.arity)]
            assert np.array_equal(call(*columns), np.array([c[1] for c in law.cases], dtype=np.uint32))
        case _:
            pytest.fail(f"no check for {law}")


def test_evaluate_takes_float_arrays() -> None:
    f32 = np.array([0.1, 3e38], dtype=np.float32)
    out = ops.evaluate("primitive.float.add", [f32, np.array([0.2, 3e38], dtype=np.float32)], backend="interp")
    assert out.dtype == np.float32
    assert out.tolist() == [np.float32(0.1) + np.float32(0.2), np.inf]
    with pytest.raises(TypeError, match="1-D float array"):
        ops.evaluate("primitive.float.add", [np.arange(2), np.arange(2)], backend="interp")


@pytest.mark.parametrize("given", [[1e300, -1e300], np.array([1e300, -1e300]), [0.1, 3e38]])
def test_evaluate_refuses_float64_for_f32_like_run(given: object) -> None:
    """float64 rounded to f32 silently would change values (1e300 -> inf, and
    1e300 + -1e300 -> NaN): a TypeError naming the dtype, as vyre.run gives."""
    for op_id, inputs in (
        ("primitive.float.add", [given, np.zeros(2, dtype=np.float32)]),
        ("reductions.f32_sum_strict", [given]),
    ):
        with pytest.raises(TypeError, match=r"float32.*got.*float64.*Fix: convert it yourself"):
            ops.evaluate(op_id, inputs, backend="interp")
    with pytest.raises(TypeError, match="float32"):
        ops.evaluate_many("reductions.f32_sum_strict", [[given]], backend="interp")
