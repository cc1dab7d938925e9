"""The exact matmul on 8-bit dot products (vyre.transforms.tensors.matmul_dp4a).

Oracles: exact integer products of the values' significands (Python ints
through numpy object arrays) rounded once by `tensor_oracles.round_rational`;
Python's own Chinese remainder theorem for the moduli. Nothing from vyre.

With the per-product kernel removed from the schedule, an output the dp4a
kernels do not compute stays 0: so the tests also show which outputs they
compute (every output but those of excluded rows/columns and exact zeros)."""

from __future__ import annotations

from fractions import Fraction
from math import gcd, prod
from typing import Any

import numpy as np
import pytest
import tensor_oracles as O
from tensor_oracles import user_array

from vyre import tensor as vt
from vyre.ir import DataType
from vyre.transforms.tensors import lower as L
from vyre.transforms.tensors import matmul as MM
from vyre.transforms.tensors import matmul_dp4a as D
from vyre.transforms.tensors import moduli as Mo

FORMATS = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}


def _scaled(bits: np.ndarray, fmt: str) -> np.ndarray:
    """Each finite value times 2**149 (F32) or 2**24 (F16) or 2**133 (BF16): an exact integer."""
    scale = {"f32": 149, "f16": 24, "bf16": 133}[fmt]
    flat = [O.to_fraction(int(v), fmt) * 2**scale for v in bits.ravel()]
    assert all(q.denominator == 1 for q in flat)
    return np.array([q.numerator for q in flat], dtype=object).reshape(bits.shape)


def exact_matmul(a_bits: np.ndarray, b_bits: np.ndarray, fmt: str) -> np.ndarray:
    """F32 bits of the correctly rounded products of finite operands whose
    exact sums are not zero."""
    scale = {"f32": 149, "f16": 24, "bf16": 133}[fmt]
    c = _scaled(a_bits, fmt) @ _scaled(b_bits, fmt)
    out = np.zeros(c.shape, dtype=np.int64)
    for index in np.ndindex(*c.shape):
        out[index] = O.round_rational(Fraction(int(c[index]), 2 ** (2 * scale)), "f32")
    return out


def _graph(a_shape: tuple[int | str, ...], b_shape: tuple[int | str, ...], fmt: str) -> vt.Graph:
    g = vt.Graph("dp4a")
    g.output("c", vt.matmul(g.input("a", FORMATS[fmt], a_shape), g.input("b", FORMATS[fmt], b_shape)))
    return g


@pytest.fixture(autouse=True)
def dp4a_for_small_matmuls(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests' matmuls are small: take the dp4a path for them too."""
    monkeypatch.setattr(MM, "DP4A_MIN_PRODUCTS", 0)


@pytest.fixture
def dp4a_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The schedule without the per-product kernel for the flagged outputs."""
    full = MM.matmul_kernels

    def without_rest(*args, **kwargs):  # type: ignore[no-untyped-def]
        kernels = full(*args, **kwargs)
        assert [k.builder.name for k in kernels][7].endswith("_gemm")
        return kernels[:9]

    monkeypatch.setattr(L, "matmul_kernels", without_rest)


def _normal(rng: np.random.Generator, shape: tuple[int, ...], fmt: str) -> np.ndarray:
    x = rng.standard_normal(shape)
    if fmt == "f32":
        return x.astype(np.float32).view(np.uint32)
    if fmt == "f16":
        return x.astype(np.float16).view(np.uint16)
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize(
    ("backend", "m", "k", "n"),
    [("interp", 9, 70, 5), ("interp", 1, 1, 1), ("wgpu", 130, 70, 131), ("wgpu", 3, 200, 257)],
)
def test_dp4a_kernels_alone_give_the_correctly_rounded_products(
    backend: str, m: int, k: int, n: int, dp4a_only: None, request: pytest.FixtureRequest
) -> None:
    """Several 128-tiles and 64-value k steps, lengths that are not multiples
    of either; exponents spread over 2**-10 .. 2**10 within a row; row 0 of a
    holds one value 2**-100 below the others (wider than any tile may use:
    excluded, so its outputs are left to the per-product kernel)."""
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    A = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-10, 10, (m, k))).astype(np.float32)
    B = rng.standard_normal((k, n)).astype(np.float32)
    if m > 1:
        A[0, 0] = np.float32(A[0, 0] * 2.0**-100)
    got = vt.run(_graph((m, k), (k, n), "f32"), {"a": A, "b": B}, backend=backend)["c"].view(np.uint32)
    want = exact_matmul(A.view(np.uint32), B.view(np.uint32), "f32")
    if m > 1:
        assert not got[0].any()  # excluded: not computed here
        want[0] = 0
    assert got.astype(np.int64).tolist() == want.tolist()


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
def test_half_formats_on_the_gpu_equal_the_interpreter_and_the_oracle(fmt: str, gpu_adapter: object) -> None:
    rng = np.random.default_rng(5)
    A, B = _normal(rng, (2, 40, 33), fmt), _normal(rng, (33, 140), fmt)
    g = _graph((2, 40, "k"), ("k", 140), fmt)
    inputs = {"a": user_array(A, fmt), "b": user_array(B, fmt)}
    gpu = vt.run(g, inputs, backend="wgpu")["c"].view(np.uint32)
    want = np.stack([exact_matmul(A[z], B, fmt) for z in range(2)])
    assert gpu.astype(np.int64).tolist() == want.tolist()
    small = {"a": user_array(A[:, :5], fmt), "b": user_array(B[:, :7], fmt)}
    g_small = _graph((2, 5, "k"), ("k", 7), fmt)
    interp = vt.run(g_small, small, backend="interp")["c"].view(np.uint32)
    assert interp.astype(np.int64).tolist() == want[:, :5, :7].tolist()


def test_results_at_the_edges_of_f32_and_exact_zeros(gpu_adapter: object) -> None:
    """Rows scaled to give subnormal results, results that underflow to zero
    after rounding, overflow to infinity, the largest finite; sums that cancel
    to exactly 0 (+0.0) and all-(-0.0) products (-0.0) come from the
    per-product kernel, NaN and infinities too. Everything against the oracle."""
    rng = np.random.default_rng(9)
    k, n = 24, 6
    A = rng.standard_normal((8, k)).astype(np.float32)
    B = rng.standard_normal((k, n)).astype(np.float32)
    A[0] *= np.float32(2.0**-70)  # products near 2**-140 .. 2**-150: subnormal results
    A[1] *= np.float32(2.0**-80)  # below half the smallest subnormal: +-0 after rounding or 2**-149
    A[2] *= np.float32(2.0**126)  # products near 2**126 .. 2**130: infinities
    A[3] = np.float32(2.0**127)
    A[3, 1:] = 0.0
    B[0, 0] = np.float32(1.9999999)  # the largest finite 
    A[4] = 1.0
    B[:, 1] = 0.0
    B[0, 1], B[1, 1] = 3.0, -3.0  # exact cancellation: +0.0
    A[5] = -0.0
    B[:, 2] = np.abs(B[:, 2])  # -0 * +x for every k: -0.0
    A[6, 3], B[5, 4], A[7, 2] = np.inf, np.nan, -np.inf
    g = _graph((8, k), (k, n), "f32")
    got = vt.run(g, {"a": A, "b": B}, backend="wgpu")["c"].view(np.uint32)
    interp = vt.run(g, {"a": A, "b": B}, backend="interp")["c"].view(np.uint32)
    want = MM_oracle(A, B)
    assert got.astype(np.int64).tolist() == want.tolist()
    assert np.array_equal(got, interp)
    assert got[3, 0] == 0x7F7F_FFFF and got[4, 1] == 0 and got[5, 2] == 0x8000_0000


def MM_oracle(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    rows = [[int(v) for v in r] for r in A.view(np.uint32)]
    cols = [[int(v) for v in c] for c in B.view(np.uint32).T]
    return np.array([[O.exact_dot(r, c, "f32") for c in cols] for r in rows], dtype=np.int64)


def test_the_moduli() -> None:
    assert len(Mo.MODULI) == Mo.N_MAX and all(m <= 256 for m in Mo.MODULI)
    assert all(gcd(x, y) == 1 for i, x in enumerate(Mo.MODULI) for y in Mo.MODULI[i + 1 :])
    for n in range(Mo.N_MAX + 1):
        assert 2 ** Mo.PREFIX_BITS[n] <= prod(Mo.MODULI[:n]) < 2 ** (Mo.PREFIX_BITS[n] + 1)
    assert Mo.moduli_needed(Mo.PREFIX_BITS[Mo.N_MAX] - 1) == Mo.N_MAX
    assert Mo.moduli_needed(Mo.PREFIX_BITS[Mo.N_MAX]) is None
    for n in range(Mo.N_MAX + 1):  # prod / 2, and the kernels' table of its 24-bit digits
        assert 2 * Mo.half(n) == prod(Mo.MODULI[:n]) or n == 0
        words = D.HALVES[n * D.DIGITS : (n + 1) * D.DIGITS]
        assert sum(w << (24 * k) for k, w in enumerate(words)) == prod(Mo.MODULI[:n]) // 2
    for t in range(Mo.N_MAX):
        assert Mo.offset(t) % Mo.MODULI[t] == 0 and 2**30 <= Mo.offset(t) < 2**30 + Mo.MODULI[t]
        assert Mo.offset(t) + 2**30 < 2**32
        assert Mo.prefix_inverse(t) * prod(Mo.MODULI[:t]) % Mo.MODULI[t] == 1
        top = sum((Mo.MODULI[s] - 1) * (prod(Mo.MODULI[:s]) % Mo.MODULI[t]) for s in range(t))
        assert Mo.garner_lift(t) % Mo.MODULI[t] == 0 and top <= Mo.garner_lift(t) < top + Mo.MODULI[t]
        assert (Mo.garner_lift(t) + 255) * Mo.prefix_inverse(t) < 2**32  # the kernel's one remainder
        assert all(Mo.prefix_mod(s, t) == prod(Mo.MODULI[:s]) % Mo.MODULI[t] for s in range(t))


@pytest.mark.parametrize("n", [1, 2, 7, Mo.N_MAX])
def test_garner_reconstruction_equals_the_crt(n: int) -> None:
    rng = np.random.default_rng(n)
    total = prod(Mo.MODULI[:n])
    limit = total // 2
    values = [0, 1, -1, limit - 1, -limit] + [int(x) for x in rng.integers(-(2**62), 2**62, 200)]
    for c in values:
        c = c % limit if c >= 0 else -((-c) % (limit + 1))
        residues = [c % m for m in Mo.MODULI[:n]]
        # Python's CRT: the unique value in [0, total) with those residues
        crt = sum(r * (total // m) * pow(total // m, -1, m) for r, m in zip(residues, Mo.MODULI[:n])) % total
        assert (crt if crt < total // 2 else crt - total) == c
        # the kernels' offset: total / 2 added to the residue modulo 256 alone
        offset = [(r + (128 if t == 0 else 0)) % m for t, (r, m) in enumerate(zip(residues, Mo.MODULI))]
        assert offset == [(c + total // 2) % m for m in Mo.MODULI[:n]]
        assert Mo.reconstruct(offset) == c


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_many_listed_outputs_are_walked_by_a_small_grid(backend: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Every row excluded (an infinity, a NaN or a value 2**-120 below the
    rest) or all zero: every output goes to the per-product kernel, whose one
    workgroup (LIST_GROUPS = 1) strides over the list several times; a second
    run of the same schedule gives the same bits (the list's counter is reset)."""
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    monkeypatch.setattr(MM, "LIST_GROUPS", 1)
    rng = np.random.default_rng(12)
    A = rng.standard_normal((19, 9)).astype(np.float32)
    B = rng.standard_normal((9, 23)).astype(np.float32)
    A[0::4, 1] = np.inf
    A[1::4, 2] = np.nan
    A[2::4, 3] *= np.float32(2.0**-120)
    A[3::4] = -0.0
    g = _graph((19, 9), (9, 23), "f32")
    first = vt.run(g, {"a": A, "b": B}, backend=backend)["c"].view(np.uint32)
    again = vt.run(g, {"a": A, "b": B}, backend=backend)["c"].view(np.uint32)
    assert first.astype(np.int64).tolist() == MM_oracle(A, B).tolist()
    assert np.array_equal(first, again)


@pytest.mark.parametrize("backend", [pytest.param("interp", marks=pytest.mark.slow), "wgpu"])
def test_batches_split_into_chunks_give_the_same_bits(backend: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """With a scratch limit of one batch and a half (in words), three batches run
    as three chunks (kernels `_c1`, `_c2` beside the first's) sharing the
    scratch buffers and one list; a row excluded in the last chunk is listed there."""
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    from vyre.transforms.tensors import matmul_dp4a as D

    per = D.chunk_words(vt_sym(3), vt_sym(4), vt_sym(6)).value
    assert per is not None
    monkeypatch.setattr(MM, "chunk_limit_words", lambda: per + per // 2)
    rng = np.random.default_rng(3)
    A = rng.standard_normal((3, 3, 6)).astype(np.float32)
    B = rng.standard_normal((3, 6, 4)).astype(np.float32)
    A[2, 1, 2] = np.inf
    g = _graph((3, 3, 6), (3, 6, 4), "f32")
    names = [p.name for p in vt.kernels(g)]
    assert "dp4a_0_matmul_exact_gemm_c2" in names and "dp4a_0_matmul_exact_gemm_c3" not in names
    got = vt.run(g, {"a": A, "b": B}, backend=backend)["c"].view(np.uint32)
    want = np.stack([MM_oracle(A[z], B[z]) for z in range(3)])
    assert got.astype(np.int64).tolist() == want.tolist()


def vt_sym(value: int):  # type: ignore[no-untyped-def]
    from vyre.dialects.symbolic import sym

    return sym(value)


def _matmul_of(a_layout: Any, b_layout: Any, out_shape: tuple[int, ...], k: int) -> MM.Matmul:
    from vyre.dialects.symbolic import sym
    from vyre.transforms.tensors.kernel import Leaf

    return MM.Matmul(Leaf("a", DataType.F32, a_layout), Leaf("b", DataType.F32, b_layout), DataType.F32, tuple(sym(d) for d in out_shape), sym(k))


def test_a_weight_shared_by_every_batch_is_stacked_into_one_matmul() -> None:
    """(2, 3, 5, 9) @ (9, 7), b broadcast: one (30, 9) @ (9, 7) matmul; a
    size-1 batch dim is stepped over. Not stacked: a b that differs per batch,
    an a whose batch and row dims do not step as one (a transposed view)."""
    from vyre.dialects.symbolic import sym
    from vyre.dialects.tensor_layout import Layout, broadcast_layout

    def dims(*values: int) -> tuple:  # type: ignore[type-arg]
        return tuple(sym(v) for v in values)

    shared = broadcast_layout(Layout.contiguous(dims(9, 7)), dims(2, 3, 9, 7), "t")
    mm = MM.stacked(_matmul_of(Layout.contiguous(dims(2, 3, 5, 9)), shared, (2, 3, 5, 7), 9))
    assert [d.value for d in mm.out_shape] == [30, 7]
    assert isinstance(mm.a, L.Leaf) and isinstance(mm.b, L.Leaf)
    assert [s.value for s in mm.a.layout.strides] == [9, 1] and [d.value for d in mm.b.layout.shape] == [9, 7]
    one = broadcast_layout(Layout.contiguous(dims(9, 7)), dims(2, 1, 9, 7), "t")
    assert [d.value for d in MM.stacked(_matmul_of(Layout.contiguous(dims(2, 1, 5, 9)), one, (2, 1, 5, 7), 9)).out_shape] == [10, 7]
    own = _matmul_of(Layout.contiguous(dims(2, 3, 5, 9)), Layout.contiguous(dims(2, 3, 9, 7)), (2, 3, 5, 7), 9)
    assert MM.stacked(own) is own
    base = Layout.contiguous(dims(2, 5, 3, 9))  # a = transpose(base, (0, 2, 1, 3)): (2, 3, 5, 9)
    swapped = Layout(dims(2, 3, 5, 9), (base.strides[0], base.strides[2], base.strides[1], base.strides[3]), base.offset)
    apart = _matmul_of(swapped, shared, (2, 3, 5, 7), 9)
    assert MM.stacked(apart) is apart


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_stacked_batches_give_the_correctly_rounded_products(backend: str, request: pytest.FixtureRequest) -> None:
    """A weight shared by the batches (stacked) and a transposed `a` (not
    stacked) against the oracle, one row excluded (an infinity) in the second batch."""
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    rng = np.random.default_rng(21)
    A = (rng.standard_normal((2, 3, 5, 9)) * 2.0 ** rng.integers(-8, 8, (2, 3, 5, 9))).astype(np.float32)
    B = rng.standard_normal((9, 7)).astype(np.float32)
    A[1, 2, 3, 4] = np.inf
    g = _graph((2, 3, 5, 9), (9, 7), "f32")
    got = vt.run(g, {"a": A, "b": B}, backend=backend)["c"].view(np.uint32)
    want = np.stack([np.stack([MM_oracle(A[z, y], B) for y in range(3)]) for z in range(2)])
    assert got.astype(np.int64).tolist() == want.tolist()
    t = vt.Graph("dp4a_t")
    t.output("c", vt.matmul(vt.transpose(t.input("a", DataType.F32, (2, 5, 3, 9)), (0, 2, 1, 3)), t.input("b", DataType.F32, (9, 7))))
    At = np.ascontiguousarray(A.transpose(0, 2, 1, 3))
    got_t = vt.run(t, {"a": At, "b": B}, backend=backend)["c"].view(np.uint32)
    assert got_t.astype(np.int64).tolist() == want.tolist()


@pytest.mark.usefixtures("gpu_adapter")
def test_scratch_buffers_follow_the_adapters_binding_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """An adapter whose storage bindings hold fewer words (lavapipe: 128 MiB,
    against 2 GiB on the H200) gets a schedule whose scratch buffers fit
    them: here one batch and a half, so three batches run as three chunks;
    the default schedule keeps them in one. The same bits either way."""
    from vyre.runtime.wgpu_device import gpu_device
    from vyre.tensor import runner

    per = D.chunk_words(vt_sym(3), vt_sym(4), vt_sym(6)).value
    assert per is not None
    limit = per + per // 2
    g = _graph((3, 3, 6), (3, 6, 4), "f32")
    assert not any(p.name.endswith("_c1") for p in vt.kernels(g))
    assert "dp4a_0_matmul_exact_gemm_c2" in [p.name for p in runner.schedule_of(g, limit).kernels]
    rng = np.random.default_rng(8)
    A = rng.standard_normal((3, 3, 6)).astype(np.float32)
    B = rng.standard_normal((3, 6, 4)).astype(np.float32)
    want = np.stack([MM_oracle(A[z], B[z]) for z in range(3)])
    monkeypatch.setitem(gpu_device().limits, "max-storage-buffer-binding-size", 4 * limit)
    got = vt.run(g, {"a": A, "b": B}, backend="wgpu")["c"].view(np.uint32)
    assert got.astype(np.int64).tolist() == want.tolist()
