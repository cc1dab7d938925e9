"""The independent reference of the tensor level: the definitions of
docs/tensors.md computed on the host, sharing no code with the lowering, the
interpreter or the soft-float routines.

- arithmetic: IEEE binary32 in numpy (`+ - * /` and `sqrt` are correctly
  rounded there, subnormals kept); F16 and BF16 results are computed in
  float32 and rounded once to the format, which is exact for one operation
  (float32 holds more than twice their precision plus two bits);
- exp, log, tanh, erf: MPFR through gmpy2, element by element, in a context of
  the format's precision and exponent range with subnormals, so the result is
  rounded once, directly to the format;
- exact sums and exact dot products: Python integers (every value an integer
  multiple of 2**-149, every product of 2**-298), rounded once at the end with
  the contract's rules for NaN, infinities and signed zeros;
- maximum and minimum: maximumNumber and minimumNumber (a NaN loses to a
  number, -0 is below +0).

Every NaN result is the format's canonical NaN. Arrays are numpy's user form
of each element type: float32, float16, BF16 as uint16 bit patterns.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "FORMATS",
    "absolute",
    "arith",
    "attention",
    "bits",
    "canonical",
    "exact_sum",
    "extreme",
    "from_f32",
    "function",
    "gelu",
    "layer_norm",
    "matmul_exact",
    "matmul_sequential",
    "neg",
    "ordered_sum",
    "pairwise_extreme",
    "softmax",
    "sqrt",
    "to_f32",
]

Array = npt.NDArray[Any]
F32 = npt.NDArray[np.float32]

# name: (width, exponent bits, fraction bits, canonical NaN, MPFR emin, MPFR emax)
FORMATS: dict[str, tuple[int, int, int, int, int, int]] = {
    "f32": (32, 8, 23, 0x7FC0_0000, -148, 128),
    "f16": (16, 5, 10, 0x7E00, -23, 16),
    "bf16": (16, 8, 7, 0x7FC0, -132, 128),
}
_BITS = {"f32": np.uint32, "f16": np.uint16, "bf16": np.uint16}


def bits(a: Array, fmt: str) -> npt.NDArray[np.uint32]:
    """The bit patterns of `a` (a user array of `fmt`) as uint32."""
    return np.ascontiguousarray(a).view(_BITS[fmt]).astype(np.uint32)


def _user(b: npt.NDArray[np.uint32], fmt: str) -> Array:
    raw = b.astype(_BITS[fmt])
    return raw if fmt == "bf16" else raw.view(np.float32 if fmt == "f32" else np.float16)


def canonical(a: Array, fmt: str) -> Array:
    """`a` with every NaN replaced by the canonical NaN of `fmt`."""
    _, ebits, fbits, nan, _, _ = FORMATS[fmt]
    b = bits(a, fmt)
    exp_mask = ((1 << ebits) - 1) << fbits
    is_nan = ((b & exp_mask) == exp_mask) & ((b & ((1 << fbits) - 1)) != 0)
    return _user(np.where(is_nan, np.uint32(nan), b), fmt)


def to_f32(a: Array, fmt: str) -> F32:
    """Exact widening to float32."""
    if fmt == "bf16":
        return (bits(a, fmt) << np.uint32(16)).view(np.float32)
    return np.asarray(a).astype(np.float32)


def from_f32(x: F32, fmt: str) -> Array:
    """float32 values rounded once to nearest-even in `fmt`, NaN canonical."""
    x = np.asarray(x, dtype=np.float32)
    if fmt == "f32":
        return canonical(x, fmt)
    if fmt == "f16":
        with np.errstate(over="ignore"):
            return canonical(x.astype(np.float16), fmt)
    word = x.view(np.uint32)
    keep = word >> np.uint32(16)
    rest = word & np.uint32(0xFFFF)
    up = (rest > 0x8000) | ((rest == 0x8000) & ((keep & 1) == 1))
    return canonical(_user(keep + up.astype(np.uint32), fmt), fmt)


_ARITH: dict[str, Callable[[F32, F32], F32]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
}


def arith(op: str, a: Array, b: Array, fmt: str = "f32") -> Array:
    """`a op b` (add, sub, mul, div) with numpy broadcasting, rounded once."""
    with np.errstate(all="ignore"):
        return from_f32(_ARITH[op](to_f32(a, fmt), to_f32(b, fmt)).astype(np.float32), fmt)


def sqrt(a: Array, fmt: str = "f32") -> Array:
    with np.errstate(all="ignore"):
        return from_f32(np.sqrt(to_f32(a, fmt)), fmt)


def neg(a: Array, fmt: str = "f32") -> Array:
    top = 1 << (FORMATS[fmt][0] - 1)
    return _user(bits(a, fmt) ^ np.uint32(top), fmt)


def absolute(a: Array, fmt: str = "f32") -> Array:
    top = 1 << (FORMATS[fmt][0] - 1)
    return _user(bits(a, fmt) & np.uint32(top - 1), fmt)


def _is_nan(x: F32) -> npt.NDArray[np.bool_]:
    return np.isnan(x)


def pairwise_extreme(a: Array, b: Array, maximum: bool, fmt: str = "f32") -> Array:
    """maximumNumber / minimumNumber elementwise (broadcasting)."""
    x, y = np.broadcast_arrays(to_f32(a, fmt), to_f32(b, fmt))
    stacked = np.stack([x, y], axis=-1)
    return from_f32(_extreme_last(stacked, maximum), fmt)


def _extreme_last(x: F32, maximum: bool) -> F32:
    """maximumNumber / minimumNumber over the last axis (at least one element;
    one element is itself, bits and all)."""
    if x.shape[-1] == 1:
        return x[..., 0]
    nan = _is_nan(x)
    fill = np.float32(-np.inf if maximum else np.inf)
    clean = np.where(nan, fill, x)
    pick = clean.max(axis=-1) if maximum else clean.min(axis=-1)
    zero_bits = x.view(np.uint32)
    plus_zero = ((zero_bits == 0) & ~nan).any(axis=-1)
    minus_zero = ((zero_bits == 0x8000_0000) & ~nan).any(axis=-1)
    if maximum:
        pick = np.where((pick == 0) & plus_zero, np.float32(0.0), np.where(pick == 0, np.float32(-0.0), pick))
    else:
        pick = np.where((pick == 0) & minus_zero, np.float32(-0.0), np.where(pick == 0, np.float32(0.0), pick))
    return np.where(nan.all(axis=-1), np.float32(np.nan), pick).astype(np.float32)


def extreme(a: Array, axis: int, maximum: bool, fmt: str = "f32", keepdims: bool = False) -> Array:
    """`max`/`min` along `axis` (non-empty; one element is itself, bits and all)."""
    if np.asarray(a).shape[axis] == 1:
        out = np.take(np.asarray(a), 0, axis=axis)
        return np.expand_dims(out, axis) if keepdims else out
    moved = np.moveaxis(to_f32(a, fmt), axis, -1)
    out = from_f32(_extreme_last(moved, maximum), fmt)
    return np.expand_dims(out, axis) if keepdims else out


# ---------------------------------------------------------------------------
# Correctly rounded functions (MPFR)
# ---------------------------------------------------------------------------


def function(name: str, a: Array, fmt: str = "f32") -> Array:
    """`name` (exp, log, tanh, erf, ...: a gmpy2 function) of every element,
    rounded once to `fmt` by MPFR."""
    gmpy2: Any = importlib.import_module("gmpy2")  # untyped: MPFR's Python binding
    _, _, fbits, _, emin, emax = FORMATS[fmt]
    x = to_f32(a, fmt)
    out = np.empty(x.shape, dtype=np.float32)
    flat = out.reshape(-1)
    context = gmpy2.context(precision=fbits + 1, emin=emin, emax=emax, subnormalize=True)
    fn: Any = getattr(gmpy2, name)
    with gmpy2.context(context):
        for k, value in enumerate(x.reshape(-1).tolist()):
            flat[k] = float(fn(gmpy2.mpfr(value)))
    return from_f32(out, fmt)


# ---------------------------------------------------------------------------
# Exact sums and dot products
# ---------------------------------------------------------------------------


def _parts(x: F32) -> tuple[Array, Array, Array, Array]:
    """(sign, significand, shift, kind) of float32 values: the value is
    `significand * 2**(shift - 149)`; kind 0 finite, 1 inf, 2 NaN."""
    word = x.view(np.uint32).astype(np.int64)
    sign = word >> 31
    exponent = (word >> 23) & 0xFF
    fraction = word & 0x7F_FFFF
    significand = np.where(exponent == 0, fraction, fraction | (1 << 23))
    shift = np.maximum(exponent, 1) - 1
    kind = np.where(exponent == 0xFF, np.where(fraction != 0, 2, 1), 0)
    return sign, np.where(exponent == 0xFF, 0, significand), shift, kind


def _round_integer(n: int, scale: int, fmt: str, negative_zero: bool) -> int:
    """The bits of `n * 2**-scale` rounded once to nearest-even in `fmt`."""
    width, ebits, fbits, _, _, _ = FORMATS[fmt]
    top = 1 << (width - 1)
    if n == 0:
        return top if negative_zero else 0
    sign = top if n < 0 else 0
    a = abs(n)
    bias = (1 << (ebits - 1)) - 1
    e = max(a.bit_length() - 1 - scale, 1 - bias)
    drop = scale + e - fbits
    if drop <= 0:
        m = a << -drop
    else:
        m, rest = a >> drop, a & ((1 << drop) - 1)
        half = 1 << (drop - 1)
        if rest > half or (rest == half and m & 1):
            m += 1
    if m == 1 << (fbits + 1):
        m >>= 1
        e += 1
    if e > bias:
        return sign | (((1 << ebits) - 1) << fbits)
    if m < 1 << fbits:
        return sign | m
    return sign | ((e + bias) << fbits) | (m - (1 << fbits))


def _finish(total: int, scale: int, fmt: str, kinds: Array, signs: Array, negzero: bool) -> int:
    """An exact sum's bits: NaN for a NaN term or +inf beside -inf, else an
    infinity if there is one, else `total * 2**-scale` rounded once."""
    width, ebits, fbits, nan, _, _ = FORMATS[fmt]
    infinity = ((1 << ebits) - 1) << fbits
    inf_signs = set(signs[kinds == 1].tolist())
    if (kinds == 2).any() or len(inf_signs) == 2:
        return nan
    if inf_signs:
        return infinity | (inf_signs.pop() << (width - 1))
    return _round_integer(total, scale, fmt, negzero)


def _exact_rows(x: F32, fmt: str) -> npt.NDArray[np.uint32]:
    """The exact sum of every row (last axis) of float32 values, rounded to `fmt`."""
    sign, significand, shift, kind = _parts(x)
    terms = np.left_shift(significand.astype(object), shift.astype(object))
    terms = np.where(sign == 1, -terms, terms)
    rows = x.reshape(-1, x.shape[-1]) if x.shape[-1] else np.zeros((int(np.prod(x.shape[:-1])), 0), np.float32)
    out = np.zeros(rows.shape[0], dtype=np.uint32)
    flat_terms = terms.reshape(rows.shape)
    flat_kind, flat_sign = kind.reshape(rows.shape), sign.reshape(rows.shape)
    word = rows.view(np.uint32)
    for r in range(rows.shape[0]):
        negzero = rows.shape[1] > 0 and bool((word[r] == 0x8000_0000).all())
        total = int(sum(flat_terms[r].tolist()))
        out[r] = _finish(total, 149, fmt, flat_kind[r], flat_sign[r], negzero)
    return out.reshape(x.shape[:-1])


def exact_sum(a: Array, axis: int, fmt: str = "f32", keepdims: bool = False) -> Array:
    """`sum(order="exact")` along `axis`: the exact sum rounded once to `fmt`."""
    moved = np.moveaxis(to_f32(a, fmt), axis, -1)
    out = _user(_exact_rows(np.ascontiguousarray(moved), fmt), fmt)
    return np.expand_dims(out, axis) if keepdims else out


def ordered_sum(a: Array, axis: int, order: str, fmt: str = "f32") -> Array:
    """`sum(order="sequential")` (left to right) or `"tree"` (split at the
    largest power of two below n) along `axis`; each addition rounded in `fmt`."""
    moved = np.moveaxis(np.asarray(a), axis, -1)
    n = moved.shape[-1]
    if n == 0:
        return from_f32(np.zeros(moved.shape[:-1], np.float32), fmt)

    def add(x: Array, y: Array) -> Array:
        return arith("add", x, y, fmt)

    def tree(lo: int, hi: int) -> Array:
        if hi - lo == 1:
            return moved[..., lo]
        mid = lo + (1 << ((hi - lo - 1).bit_length() - 1))
        return add(tree(lo, mid), tree(mid, hi))

    if order == "tree":
        return tree(0, n)
    acc = moved[..., 0]
    for k in range(1, n):
        acc = add(acc, moved[..., k])
    return acc


def _batched(a: F32, b: F32) -> tuple[F32, F32]:
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return (
        np.broadcast_to(a, (*batch, *a.shape[-2:])),
        np.broadcast_to(b, (*batch, *b.shape[-2:])),
    )


def _left(v: Array) -> Array:
    """(..., M, K) -> (..., M, K, 1)."""
    return v[..., :, :, None]


def _right(v: Array) -> Array:
    """(..., K, N) -> (..., 1, K, N)."""
    return v[..., None, :, :]


def matmul_exact(a: Array, b: Array, fmt: str = "f32") -> F32:
    """`matmul(accumulate="exact")`: every output the exact sum of the exact
    products, rounded once to F32 (batch dims broadcast)."""
    x, y = _batched(to_f32(a, fmt), to_f32(b, fmt))
    sx, mx, hx, kx = _parts(np.ascontiguousarray(x))
    sy, my, hy, ky = _parts(np.ascontiguousarray(y))
    sign = _left(sx) ^ _right(sy)
    significand = _left(mx).astype(object) * _right(my).astype(object)
    shift = (_left(hx) + _right(hy)).astype(object)
    kind_x, kind_y = np.broadcast_arrays(_left(kx), _right(ky))
    zero_x, zero_y = np.broadcast_arrays(_left((mx == 0) & (kx == 0)), _right((my == 0) & (ky == 0)))
    nan = (kind_x == 2) | (kind_y == 2) | ((kind_x == 1) & zero_y) | (zero_x & (kind_y == 1))
    inf = ~nan & ((kind_x == 1) | (kind_y == 1))
    kind = np.where(nan, 2, np.where(inf, 1, 0))
    terms = np.left_shift(significand, shift)
    terms = np.where(sign == 1, -terms, terms)
    zero = ~nan & ~inf & (zero_x | zero_y)
    sign_b = np.broadcast_to(sign, kind.shape)
    negzero = zero & (sign_b == 1)
    shape = kind.shape[:-3] + (kind.shape[-3], kind.shape[-1])
    out = np.zeros(shape, dtype=np.uint32)
    for index in np.ndindex(*shape):
        *batch, i, j = index
        at = (*batch, i, slice(None), j)
        k_terms = np.where(kind[at] == 0, terms[at], 0)
        total = int(sum(k_terms.tolist()))
        all_negzero = kind.shape[-2] > 0 and bool(negzero[at].all())
        out[index] = _finish(total, 298, "f32", kind[at], sign_b[at], all_negzero)
    return out.view(np.float32)


def _fma(a: F32, b: F32, c: F32) -> F32:
    """fusedMultiplyAdd of float32 values, one rounding (exact rationals)."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape, c.shape), dtype=np.float32)
    xs = np.broadcast_arrays(a, b, c)
    flat = out.reshape(-1)
    for k, (x, y, z) in enumerate(zip(*(v.reshape(-1).tolist() for v in xs))):
        flat[k] = _fma_one(np.float32(x), np.float32(y), np.float32(z))
    return canonical(out, "f32")


def _fma_one(x: np.float32, y: np.float32, z: np.float32) -> np.float32:
    if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
        with np.errstate(all="ignore"):
            return np.float32(np.float64(x) * np.float64(y) + np.float64(z))
    (sx, mx, hx, _), (sy, my, hy, _), (sz, mz, hz, _) = (
        _parts(np.array([v], np.float32)) for v in (x, y, z)
    )
    product = int(mx[0]) * int(my[0]) << int(hx[0] + hy[0])
    product = -product if int(sx[0] ^ sy[0]) else product
    addend = int(mz[0]) << (int(hz[0]) + 149)
    addend = -addend if int(sz[0]) else addend
    total = product + addend
    negzero = total == 0 and int(sx[0] ^ sy[0]) == 1 and int(sz[0]) == 1
    word = _round_integer(total, 298, "f32", negzero)
    return np.array([word], np.uint32).view(np.float32)[0]


def matmul_sequential(a: Array, b: Array, fmt: str = "f32") -> F32:
    """`matmul(accumulate="sequential")`: `acc = a0 * b0`, then
    `acc = fma(a_k, b_k, acc)` for k = 1 .. K-1 (K = 0: +0.0)."""
    x, y = _batched(to_f32(a, fmt), to_f32(b, fmt))
    inner = x.shape[-1]
    shape = (*x.shape[:-1], y.shape[-1])
    if inner == 0:
        return np.zeros(shape, np.float32)
    with np.errstate(all="ignore"):
        acc = canonical((x[..., :, 0, None] * y[..., None, 0, :]).astype(np.float32), "f32")
    for k in range(1, inner):
        acc = _fma(
            np.broadcast_to(x[..., :, k, None], shape), np.broadcast_to(y[..., None, k, :], shape), acc
        )
    return acc


# ---------------------------------------------------------------------------
# Composites, composed exactly as docs/tensors.md writes them (F32)
# ---------------------------------------------------------------------------


def _f32(value: float) -> F32:
    return np.array(value, dtype=np.float32)


def softmax(x: F32, axis: int = -1) -> F32:
    """`m = max(x, axis)`; `e = exp(x - m)`; `s = sum(e, axis, "exact")`; `e / s`."""
    m = extreme(x, axis, maximum=True, keepdims=True)
    e = function("exp", arith("sub", x, m))
    s = exact_sum(e, axis, keepdims=True)
    return arith("div", e, s)


def layer_norm(x: F32, weight: F32, bias: F32, eps: float = 1e-5) -> F32:
    """`mu = sum(x) / n`; `d = x - mu`; `v = sum(d * d) / n`;
    `r = 1 / sqrt(v + eps)`; `(d * r) * weight + bias` (last axis, n = f32(N))."""
    n = _f32(float(np.float32(x.shape[-1])))
    mu = arith("div", exact_sum(x, -1, keepdims=True), n)
    d = arith("sub", x, mu)
    v = arith("div", exact_sum(arith("mul", d, d), -1, keepdims=True), n)
    r = arith("div", _f32(1.0), sqrt(arith("add", v, _f32(eps))))
    return arith("add", arith("mul", arith("mul", d, r), weight), bias)


GELU_C = 0.7071067811865476


def gelu(x: F32) -> F32:
    """`(0.5 * x) * (1 + erf(x * c))`, `c = f32(0.7071067811865476)`."""
    inner = function("erf", arith("mul", x, _f32(GELU_C)))
    return arith("mul", arith("mul", _f32(0.5), x), arith("add", _f32(1.0), inner))


def attention(q: F32, k: F32, v: F32, causal: bool = False) -> F32:
    """`s = matmul(q, kT, "exact") * c`, `c = 1 / sqrt(f32(d))`; causal:
    `s[..., i, j] = -inf` for `j > i`; `matmul(softmax(s, -1), v, "exact")`."""
    c = arith("div", _f32(1.0), sqrt(_f32(float(np.float32(q.shape[-1])))))
    s = arith("mul", matmul_exact(q, np.swapaxes(k, -1, -2)), c)
    if causal:
        rows, cols = s.shape[-2], s.shape[-1]
        mask = np.triu(np.ones((rows, cols), dtype=bool), k=1)
        s = np.where(mask, np.float32(-np.inf), s).astype(np.float32)
    return matmul_exact(softmax(s, -1), v)
