"""`vt.matmul` against exact rationals, on the interpreter: `exact` is the
exact sum of the exact products rounded once (NaN, infinity and signed-zero
rules of the contract); `sequential` is fma in the order k = 0 .. K-1, F16/BF16
converted to F32 exactly; batch dims broadcast; K, M or N of size 0 or 1;
operands that are strided views; several repeats of the accumulation."""

from __future__ import annotations

import numpy as np
import pytest
import tensor_oracles as O
from tensor_oracles import UINT, random_bits, user_array

from vyre import tensor as vt
from vyre.ir import DataType
from vyre.transforms.tensors import matmul as MM

FORMATS = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}


def _f32_bits(bits: int, fmt: str) -> int:
    """The F32 pattern of a value (F16/BF16 widened exactly)."""
    if fmt == "f32":
        return bits
    kind, s = O.kind(bits, fmt), O.sign(bits, fmt)
    if kind == "nan":
        return 0x7FC0_0000
    if kind == "inf":
        return 0x7F80_0000 | s << 31
    return O.round_rational(O.to_fraction(bits, fmt), "f32", negative_zero=bool(s))


def _sequential(a: list[int], b: list[int], fmt: str) -> int:
    if not a:
        return 0
    xs, ys = [_f32_bits(v, fmt) for v in a], [_f32_bits(v, fmt) for v in b]
    acc = O.fma_f32(xs[0], ys[0], 0x8000_0000)  # a * b rounded once (fma with -0 keeps its zero sign)
    for x, y in zip(xs[1:], ys[1:]):
        acc = O.fma_f32(x, y, acc)
    return acc


def _expected(A: np.ndarray, B: np.ndarray, fmt: str, mode: str) -> np.ndarray:
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    a = np.broadcast_to(A, (*batch, *A.shape[-2:]))
    b = np.broadcast_to(B, (*batch, *B.shape[-2:]))
    out = np.zeros((*batch, A.shape[-2], B.shape[-1]), dtype=np.int64)
    for index in np.ndindex(*out.shape):
        *z, i, j = index
        row = [int(v) for v in a[(*z, i)]]
        col = [int(v) for v in b[(*z, slice(None), j)]]
        out[index] = O.exact_dot(row, col, fmt) if mode == "exact" else _sequential(row, col, fmt)
    return out


CASES = [
    ((3, 4), (4, 5), (3, 4), (4, 5)),
    ((2, 3, 4), (4, 2), (2, "m", "k"), ("k", 2)),
    ((1, 3, 2), (2, 2, 3), (1, 3, 2), (2, 2, 3)),
    ((3, 0), (0, 2), (3, "k"), ("k", 2)),
    ((0, 3), (3, 2), ("m", 3), (3, 2)),
    ((1, 1), (1, 1), (1, 1), (1, 1)),
]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("mode", ["exact", "sequential"])
@pytest.mark.parametrize(("a_shape", "b_shape", "a_spec", "b_spec"), CASES)
def test_matmul_matches_the_oracle(
    fmt: str, mode: str, a_shape: tuple[int, ...], b_shape: tuple[int, ...], a_spec: tuple[int | str, ...], b_spec: tuple[int | str, ...]
) -> None:
    rng = np.random.default_rng(sum(a_shape) * 7 + sum(b_shape))
    g = vt.Graph("mm")
    a = g.input("a", FORMATS[fmt], a_spec)
    b = g.input("b", FORMATS[fmt], b_spec)
    g.output("c", vt.matmul(a, b, mode))
    A, B = random_bits(rng, a_shape, fmt), random_bits(rng, b_shape, fmt)
    got = vt.run(g, {"a": user_array(A, fmt), "b": user_array(B, fmt)}, backend="interp")["c"]
    expected = _expected(A, B, fmt, mode)
    assert got.shape == expected.shape
    assert got.view(np.uint32).astype(np.int64).tolist() == expected.tolist()


def test_special_products_and_signed_zeros() -> None:
    inf, nan = np.float32(np.inf), np.float32(np.nan)
    A = np.array([[0.0, 1.0], [inf, 1.0], [inf, -inf], [-0.0, -0.0], [-0.0, 1.0], [1e-30, 1e-30], [3e38, 3e38]], dtype=np.float32)
    B = np.array([[inf, nan], [1.0, 0.0], [1.0, 1.0], [1.0, 1.0], [1.0, 0.0], [1e-30, -1e-30]], dtype=np.float32).T.copy()
    g = vt.Graph("special")
    a = g.input("a", DataType.F32, A.shape)
    b = g.input("b", DataType.F32, B.shape)
    g.output("c", vt.matmul(a, b))
    got = vt.run(g, {"a": A, "b": B}, backend="interp")["c"].view(np.uint32)
    expected = _expected(A.view(np.uint32), B.view(np.uint32), "f32", "exact")
    assert got.astype(np.int64).tolist() == expected.tolist()


def test_operands_may_be_strided_views_and_fused_values() -> None:
    rng = np.random.default_rng(4)
    g = vt.Graph("views")
    x = g.input("x", DataType.F32, (6, 5))
    w = g.input("w", DataType.F32, (4, 6))
    c = vt.matmul(vt.transpose(x)[::-1], vt.transpose(w) + vt.transpose(w), "exact")
    g.output("c", c)
    X = random_bits(rng, (6, 5), "f32")
    W = (rng.standard_normal((4, 6)).astype(np.float32)).view(np.uint32)
    got = vt.run(g, {"x": user_array(X, "f32"), "w": user_array(W, "f32")}, backend="interp")["c"]
    doubled = (user_array(W, "f32").T * np.float32(2)).astype(np.float32).view(np.uint32)
    expected = _expected(X.T[::-1], doubled, "f32", "exact")
    assert got.view(np.uint32).astype(np.int64).tolist() == expected.tolist()


@pytest.mark.parametrize("mode", ["exact", "sequential"])
def test_long_inner_dims_accumulate_over_repeated_dispatches(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MM, "CHUNK", 64)
    monkeypatch.setattr(MM, "NORMALIZE_EVERY", 8)
    rng = np.random.default_rng(8)
    g = vt.Graph("long")
    a = g.input("a", DataType.F32, (2, "k"))
    b = g.input("b", DataType.F32, ("k", 3))
    g.output("c", vt.matmul(a, b, mode))
    A = (rng.standard_normal((2, 150)) * 2.0 ** rng.integers(-60, 60, (2, 150))).astype(np.float32)
    B = rng.standard_normal((150, 3)).astype(np.float32)
    got = vt.run(g, {"a": A, "b": B}, backend="interp")["c"].view(np.uint32)
    expected = _expected(A.view(np.uint32), B.view(np.uint32), "f32", mode)
    assert got.astype(np.int64).tolist() == expected.tolist()


def test_matmul_of_mixed_formats_is_a_value_error() -> None:
    g = vt.Graph("mixed")
    a = g.input("a", DataType.F32, (2, 3))
    b = g.input("b", DataType.F16, (3, 2))
    with pytest.raises(ValueError, match="vt.matmul: element types f32 and f16 differ"):
        vt.matmul(a, b)


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_one_kernel_and_two_kernels_give_the_same_bits(backend: str, request: pytest.FixtureRequest) -> None:
    """A constant inner length within one chunk is one kernel that adds and
    rounds in workgroup memory; a dynamic one accumulates, keeps the state and
    rounds in a second kernel. Same products, same bits, equal to the exact
    rationals (specials, signed zeros, far-apart exponents included)."""
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    rng = np.random.default_rng(21)
    A = (rng.standard_normal((5, 40)) * 2.0 ** rng.integers(-70, 70, (5, 40))).astype(np.float32)
    B = (rng.standard_normal((40, 6)) * 2.0 ** rng.integers(-70, 70, (40, 6))).astype(np.float32)
    A[0, :] = -0.0
    B[:, 0] = -0.0
    A[1, 3], A[2, 5], B[7, 4] = np.inf, np.nan, -np.inf
    results = {}
    for inner in (40, "k"):
        g = vt.Graph("one_or_two")
        a = g.input("a", DataType.F32, (5, inner))
        b = g.input("b", DataType.F32, (inner, 6))
        g.output("c", vt.matmul(a, b))
        names = [p.name for p in vt.kernels(g) if "matmul" in p.name]
        fast = [f"one_or_two_0_matmul_exact_{k}" for k in ("stats_a", "stats_b", "order_a", "order_b", "plan", "res_a", "res_b", "gemm", "crt")]
        # 1,200 products, a constant K: the per-product kernel alone; a dynamic K:
        # the dp4a kernels, then the accumulation and rounding of the listed outputs
        assert names == (["one_or_two_0_matmul_exact"] if inner == 40 else
                         fast + ["one_or_two_0_matmul_exact_acc", "one_or_two_0_matmul_exact_round"])
        results[inner] = vt.run(g, {"a": A, "b": B}, backend=backend)["c"].view(np.uint32)
    expected = _expected(A.view(np.uint32), B.view(np.uint32), "f32", "exact")
    assert results[40].astype(np.int64).tolist() == expected.tolist()
    assert np.array_equal(results[40], results["k"])
