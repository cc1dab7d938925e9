"""Independent oracles of the tensor level: exact rationals (`fractions`) and
numpy, written from docs/tensors.md's definitions and sharing no code
with vyre.

Float values travel as their bit patterns (`bits`: uint32 for F32, uint16 for
F16/BF16). `round_rational` rounds an exact rational once to nearest-even in a
format (subnormals, overflow to infinity); the exact sum and dot product apply
the contract's rules for NaN, infinities and signed zeros.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

__all__ = [
    "FORMATS",
    "along",
    "matmul",
    "sequential_dot",
    "widen_to_f32",
    "canonical",
    "exact_dot",
    "exact_sum",
    "extreme",
    "fma_f32",
    "random_bits",
    "user_array",
    "round_rational",
    "sequential_sum",
    "to_fraction",
    "tree_sum",
]

# name: (width, exponent bits, fraction bits, canonical NaN)
FORMATS: dict[str, tuple[int, int, int, int]] = {
    "f32": (32, 8, 23, 0x7FC0_0000),
    "f16": (16, 5, 10, 0x7E00),
    "bf16": (16, 8, 7, 0x7FC0),
}


UINT: dict[str, type[np.unsignedinteger]] = {"f32": np.uint32, "f16": np.uint16, "bf16": np.uint16}
"""The unsigned type of each format's bit patterns."""

def random_bits(rng: np.random.Generator, shape: tuple[int, ...], fmt: str) -> np.ndarray:
    """Patterns: mostly ordinary values over a wide exponent range, some of
    every special kind, some random bit patterns."""
    n = int(np.prod(shape))
    normal = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    width = 32 if fmt == "f32" else 16
    if fmt == "f32":
        nice = normal.view(np.uint32).astype(np.int64)
    elif fmt == "f16":
        with np.errstate(over="ignore"):
            nice = normal.astype(np.float16).view(np.uint16).astype(np.int64)
    else:
        nice = (normal.view(np.uint32) >> 16).astype(np.int64)
    special = np.array([canonical(fmt), canonical(fmt) | 1, 0, 1 << (width - 1), 1, (1 << (width - 1)) | 3], dtype=np.int64)
    _, ebits, fbits, _ = FORMATS[fmt]
    inf = ((1 << ebits) - 1) << fbits
    special = np.concatenate([special, [inf, inf | 1 << (width - 1)]])
    pick = rng.random(n)
    bits = np.where(pick < 0.15, rng.choice(special, n), nice)
    bits = np.where(pick > 0.93, rng.integers(0, 1 << width, n), bits)
    return bits.astype(UINT[fmt]).reshape(shape)


def user_array(bits: np.ndarray, fmt: str) -> np.ndarray:
    return bits.view({"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[fmt])


def _parts(bits: int, fmt: str) -> tuple[int, int, int]:
    width, ebits, fbits, _ = FORMATS[fmt]
    return bits >> (width - 1) & 1, bits >> fbits & ((1 << ebits) - 1), bits & ((1 << fbits) - 1)


def kind(bits: int, fmt: str) -> str:
    """"nan", "inf", "zero" or "finite"."""
    _, ebits, _, _ = FORMATS[fmt]
    _, e, f = _parts(bits, fmt)
    if e == (1 << ebits) - 1:
        return "nan" if f else "inf"
    return "zero" if e == 0 and f == 0 else "finite"


def sign(bits: int, fmt: str) -> int:
    return _parts(bits, fmt)[0]


def to_fraction(bits: int, fmt: str) -> Fraction:
    """The exact value of a finite pattern."""
    _, ebits, fbits, _ = FORMATS[fmt]
    s, e, f = _parts(bits, fmt)
    bias = (1 << (ebits - 1)) - 1
    significand = f if e == 0 else f | 1 << fbits
    value = Fraction(significand) * Fraction(2) ** (max(e, 1) - bias - fbits)
    return -value if s else value


def round_rational(q: Fraction, fmt: str, negative_zero: bool = False) -> int:
    """`q` rounded once to nearest-even in `fmt` (a zero: -0.0 when
    `negative_zero`); overflow gives an infinity."""
    width, ebits, fbits, _ = FORMATS[fmt]
    top = 1 << (width - 1)
    if q == 0:
        return top if negative_zero else 0
    s = top if q < 0 else 0
    a = abs(q)
    bias = (1 << (ebits - 1)) - 1
    emin = 1 - bias
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    scaled = a / Fraction(2) ** (e - fbits)  # significand with fbits fraction bits
    m, rest = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rest
    if twice > scaled.denominator or (twice == scaled.denominator and m & 1):
        m += 1
    if m == 1 << (fbits + 1):
        m >>= 1
        e += 1
    if e > bias:
        return s | ((1 << ebits) - 1) << fbits
    if m < 1 << fbits:  # subnormal (e == emin)
        return s | m
    return s | (e + bias) << fbits | (m - (1 << fbits))


def canonical(fmt: str) -> int:
    return FORMATS[fmt][3]


def _combine_specials(kinds: Sequence[tuple[str, int]], fmt: str) -> int | None:
    """The contract's special results of an exact sum over terms (kind, sign):
    NaN, +inf beside -inf, or an infinity; None when every term is finite."""
    width, ebits, fbits, nan = FORMATS[fmt]
    infinity = ((1 << ebits) - 1) << fbits
    if any(k == "nan" for k, _ in kinds):
        return nan
    signs = {s for k, s in kinds if k == "inf"}
    if len(signs) == 2:
        return nan
    if signs:
        return infinity | (signs.pop() << (width - 1))
    return None


def exact_sum(bits: Sequence[int], fmt: str) -> int:
    """`sum(order="exact")` over the patterns of one axis."""
    kinds = [(kind(b, fmt), sign(b, fmt)) for b in bits]
    special = _combine_specials(kinds, fmt)
    if special is not None:
        return special
    total = sum((to_fraction(b, fmt) for b in bits), Fraction(0))
    all_negative_zero = bool(bits) and all(k == ("zero", 1) for k in kinds)
    return round_rational(total, fmt, negative_zero=all_negative_zero)


def exact_dot(a: Sequence[int], b: Sequence[int], fmt: str) -> int:
    """One output of `matmul(accumulate="exact")`: F32 bits."""
    terms: list[tuple[str, int]] = []
    total = Fraction(0)
    for x, y in zip(a, b):
        kx, ky = kind(x, fmt), kind(y, fmt)
        s = sign(x, fmt) ^ sign(y, fmt)
        if "nan" in (kx, ky) or {kx, ky} == {"inf", "zero"}:
            terms.append(("nan", 0))
        elif "inf" in (kx, ky):
            terms.append(("inf", s))
        elif "zero" in (kx, ky):
            terms.append(("zero", s))
        else:
            terms.append(("finite", s))
            total += to_fraction(x, fmt) * to_fraction(y, fmt)
    special = _combine_specials(terms, "f32")
    if special is not None:
        return special
    all_negative_zero = bool(terms) and all(t == ("zero", 1) for t in terms)
    return round_rational(total, "f32", negative_zero=all_negative_zero)


# ---------------------------------------------------------------------------
# Ordered sums and fma: numpy arithmetic in float32 (F16 and BF16 computed in
# float32 and rounded once, exact because float32 holds twice their precision
# plus two bits)
# ---------------------------------------------------------------------------


def _to_f32(bits: int, fmt: str) -> np.float32:
    if fmt == "f32":
        return np.array([bits], dtype=np.uint32).view(np.float32)[0]
    if fmt == "f16":
        return np.float32(np.array([bits], dtype=np.uint16).view(np.float16)[0])
    return np.array([bits << 16], dtype=np.uint32).view(np.float32)[0]


def _from_f32(value: np.float32, fmt: str) -> int:
    word = int(np.array([value], dtype=np.float32).view(np.uint32)[0])
    if np.isnan(value):
        return canonical(fmt)
    if fmt == "f32":
        return word
    if fmt == "f16":
        return int(np.array([value], dtype=np.float32).astype(np.float16).view(np.uint16)[0])
    return round_rational(to_fraction(word, "f32"), "bf16", negative_zero=bool(word >> 31)) if kind(word, "f32") in ("finite", "zero") else (word >> 16)


def _add(x: int, y: int, fmt: str) -> int:
    with np.errstate(all="ignore"):
        return _from_f32(np.float32(_to_f32(x, fmt) + _to_f32(y, fmt)), fmt)


def sequential_sum(bits: Sequence[int], fmt: str) -> int:
    if not bits:
        return 0
    acc = bits[0]
    for b in bits[1:]:
        acc = _add(acc, b, fmt)
    return acc


def tree_sum(bits: Sequence[int], fmt: str) -> int:
    """The canonical tree of docs/tensors.md, literally."""
    n = len(bits)
    if n == 0:
        return 0
    if n == 1:
        return bits[0]
    mid = 1 << ((n - 1).bit_length() - 1)
    return _add(tree_sum(bits[:mid], fmt), tree_sum(bits[mid:], fmt), fmt)


def extreme(bits: Sequence[int], fmt: str, maximum: bool) -> int:
    """maximumNumber / minimumNumber over an axis (one element: itself)."""
    if len(bits) == 1:
        return bits[0]
    numbers = [b for b in bits if kind(b, fmt) != "nan"]
    if not numbers:
        return canonical(fmt)

    def key(b: int) -> tuple[Fraction, int]:
        if kind(b, fmt) == "inf":
            return (Fraction(10) ** 60 * (-1 if sign(b, fmt) else 1), 0)
        value = to_fraction(b, fmt)
        return (value, 0 if sign(b, fmt) else 1)

    pick: Callable[..., int] = max if maximum else min
    return pick(numbers, key=key)


def fma_f32(a: int, b: int, c: int) -> int:
    """fusedMultiplyAdd of F32 patterns, one rounding, canonical NaN."""
    kinds = [kind(v, "f32") for v in (a, b, c)]
    if "nan" in kinds or "inf" in kinds:
        with np.errstate(all="ignore"):
            fa, fb, fc = (np.float64(_to_f32(v, "f32")) for v in (a, b, c))
            return _from_f32(np.float32(fa * fb + fc), "f32")
    product = to_fraction(a, "f32") * to_fraction(b, "f32")
    total = product + to_fraction(c, "f32")
    if total == 0:
        product_negative = (sign(a, "f32") ^ sign(b, "f32")) == 1
        both_negative = product_negative and sign(c, "f32") == 1
        return round_rational(total, "f32", negative_zero=both_negative)
    return round_rational(total, "f32")


# ---------------------------------------------------------------------------
# Matmul's sequential accumulation and whole-tensor helpers (the tensor fuzzer)
# ---------------------------------------------------------------------------


def widen_to_f32(bits: int, fmt: str) -> int:
    """The F32 pattern of a value of `fmt` (exact; a NaN becomes the canonical NaN)."""
    if fmt == "f32":
        return bits
    k, s = kind(bits, fmt), sign(bits, fmt)
    if k == "nan":
        return canonical("f32")
    if k == "inf":
        return 0x7F80_0000 | s << 31
    return round_rational(to_fraction(bits, fmt), "f32", negative_zero=bool(s))


def sequential_dot(a: Sequence[int], b: Sequence[int], fmt: str) -> int:
    """`matmul(accumulate="sequential")`: acc = a0 * b0 (rounded once), then
    acc = fma(a_k, b_k, acc) for k = 1 .. K-1, in F32; K = 0 gives +0.0."""
    if not a:
        return 0
    xs, ys = [widen_to_f32(v, fmt) for v in a], [widen_to_f32(v, fmt) for v in b]
    acc = fma_f32(xs[0], ys[0], 0x8000_0000)  # the product rounded once (+ -0 keeps its zero's sign)
    for x, y in zip(xs[1:], ys[1:]):
        acc = fma_f32(x, y, acc)
    return acc


def along(bits: np.ndarray, axis: int, reduce: Callable[[list[int]], int], dtype: type[np.unsignedinteger]) -> np.ndarray:
    """`reduce` over every lane of `axis` (removed), patterns in `dtype`."""
    moved = np.moveaxis(bits, axis, -1)
    out = np.zeros(moved.shape[:-1], dtype=np.int64)
    for index in np.ndindex(*moved.shape[:-1]):
        out[index] = reduce([int(v) for v in moved[index]])
    return out.astype(dtype)


def matmul(a_bits: np.ndarray, b_bits: np.ndarray, fmt: str, mode: str) -> np.ndarray:
    """`(..., M, K) @ (..., K, N)` with broadcast batch dims: F32 patterns."""
    batch = np.broadcast_shapes(a_bits.shape[:-2], b_bits.shape[:-2])
    a = np.broadcast_to(a_bits, (*batch, *a_bits.shape[-2:]))
    b = np.broadcast_to(b_bits, (*batch, *b_bits.shape[-2:]))
    out = np.zeros((*batch, a_bits.shape[-2], b_bits.shape[-1]), dtype=np.uint32)
    dot = exact_dot if mode == "exact" else sequential_dot
    for index in np.ndindex(*out.shape):
        *z, i, j = index
        row = [int(v) for v in a[(*z, i)]]
        col = [int(v) for v in b[(*z, slice(None), j)]]
        out[index] = dot(row, col, fmt)
    return out
