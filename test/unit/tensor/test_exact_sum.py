"""`sum(order="exact")` against an independent oracle (the exact integer sum of
the elements in units of 2**-149, rounded once by rationals, with the
contract's NaN, infinity and signed-zero rules), on inputs that stress the
accumulator: every exponent (subnormals included), both signs, huge
cancellation, zeros of both signs, words driven to their largest digits,
sparse NaN and infinities, and the register window's cases (normal data,
rising exponents, bands around a window, full lanes); at sizes around every split of the kernels (the
invocations of an output in the one-kernel form, the carry pass, the round,
the block, a workgroup's several blocks, the guarded last block, several
partial sums per invocation of the merge), through views and fused operands,
on the interpreter and on lavapipe."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
import pytest
import tensor_oracles as O
from tensor_oracles import FORMATS as BITS, UINT, user_array

from vyre import tensor as vt
from vyre.ir import DataType
from vyre.transforms.tensors import exact_sum as ES

DTYPES = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}


# ---------------------------------------------------------------------------
# The oracle: integers, independent of the kernels' digits
# ---------------------------------------------------------------------------


def exact(bits: np.ndarray, fmt: str) -> int:
    """The exact sum of one axis of patterns rounded once (NaN and infinities
    by tensor_oracles' rules; finite values as integers: significands summed
    per exponent, then shifted and added as Python ints)."""
    width, ebits, fbits, _ = BITS[fmt]
    b = bits.astype(np.int64)
    e = (b >> fbits) & ((1 << ebits) - 1)
    if np.any(e == (1 << ebits) - 1):
        return O.exact_sum([int(v) for v in b], fmt)
    f = b & ((1 << fbits) - 1)
    m = np.where(e > 0, f | (1 << fbits), f)
    signed = np.where((b >> (width - 1)) & 1 == 1, -m, m)
    bias = (1 << (ebits - 1)) - 1
    shift = np.maximum(e, 1) - bias - fbits + 149
    total = 0
    for s in np.unique(shift):
        total += int(signed[shift == s].sum()) << int(s)
    negative_zero = len(b) > 0 and bool(np.all(b == 1 << (width - 1)))
    return O.round_rational(Fraction(total, 1 << 149), fmt, negative_zero=negative_zero)


def expected(bits: np.ndarray, axis: int, fmt: str) -> np.ndarray:
    moved = np.moveaxis(bits, axis, -1)
    out = np.zeros(moved.shape[:-1], dtype=np.int64)
    for index in np.ndindex(*moved.shape[:-1]):
        out[index] = exact(moved[index], fmt)
    return out


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _finite(rng: np.random.Generator, n: int, fmt: str) -> np.ndarray:
    """Uniform over the finite patterns: every exponent equally, both signs."""
    width, ebits, fbits, _ = BITS[fmt]
    e = rng.integers(0, (1 << ebits) - 1, n)
    return (rng.integers(0, 2, n) << (width - 1)) | (e << fbits) | rng.integers(0, 1 << fbits, n)


def _big(fmt: str) -> int:
    """The pattern of a huge value: 1e38 (F32, BF16), 65504 (F16)."""
    if fmt == "f16":
        return 0x7BFF
    word = int(np.array([1e38], dtype=np.float32).view(np.uint32)[0])
    return word if fmt == "f32" else word >> 16


def stress(rng: np.random.Generator, shape: tuple[int, ...], fmt: str, kind: str) -> np.ndarray:
    """Patterns of one kind (see the module doc)."""
    n = int(np.prod(shape))
    width, ebits, fbits, _ = BITS[fmt]
    sign = 1 << (width - 1)
    inf = ((1 << ebits) - 1) << fbits
    finite = _finite(rng, n, fmt)
    if kind == "finite":
        bits = finite
    elif kind == "cancel":  # as many +huge as -huge among small values: only the small ones survive
        big = _big(fmt)
        bits = finite & ~(((1 << ebits) - 1) << fbits) | (rng.integers(0, 8, n) << fbits)
        order = rng.permutation(n)
        pairs = n // 4
        bits[order[:pairs]], bits[order[pairs : 2 * pairs]] = big, big | sign
    elif kind == "zeros":
        bits = np.where(rng.random(n) < 0.5, sign, 0)
        where = rng.integers(0, n, min(n, 3))
        bits[where] = finite[: len(where)]
    elif kind == "negzero":
        bits = np.full(n, sign)
    elif kind == "full":  # parts of 2**24 - 1 or 2**23 - 1 at one digit, one sign (below overflow but in F16)
        base = 149 - ((1 << (ebits - 1)) - 1) - fbits
        top = (1 << ebits) - (1 if fmt == "f16" else 16)
        e = np.array([e for e in range(1, top) if (e + base) % 24 in (0, 23)])
        bits = (rng.choice(e, n) << fbits) | ((1 << fbits) - 1) | (sign if rng.random() < 0.5 else 0)
    else:  # "nan", "inf", "infs": one special among finite values
        bits = finite
        where = rng.integers(0, n, 2)
        if kind == "nan":
            bits[where[0]] = inf | 1 | (sign if rng.random() < 0.5 else 0)
        elif kind == "inf":
            bits[where[0]] = inf | (sign if rng.random() < 0.5 else 0)
        else:
            bits[where[0]], bits[where[1]] = inf, inf | sign
            if where[0] == where[1]:
                bits[(where[0] + 1) % n] = inf
    return bits.astype(UINT[fmt]).reshape(shape)


KINDS = ["finite", "cancel", "zeros", "negzero", "full", "nan", "inf", "infs"]


def windowed(rng: np.random.Generator, n: int, fmt: str, kind: str) -> np.ndarray:
    """Patterns for the register window of the two-kernel form: "normal"
    (standard normal values rounded to the format: most in a few binades, a
    tail below), "rising" (exponent fields growing along the axis, so every
    invocation moves its window again and again), "band" (fields in a band of
    40, so elements fall just inside, above and below any window), "packed"
    (one sign, all-ones significands, the first element of every run of 4
    three fields below the others: it sets each invocation's window so that
    the others lie at its top, and the lanes get their largest parts)."""
    width, ebits, fbits, _ = BITS[fmt]
    top = (1 << ebits) - 2
    sign = rng.integers(0, 2, n) << (width - 1)
    fraction = rng.integers(0, 1 << fbits, n)
    if kind == "normal":
        values = rng.standard_normal(n).astype(np.float32)
        if fmt == "f16":
            return values.astype(np.float16).view(np.uint16)
        word = values.view(np.uint32)
        return word if fmt == "f32" else (word >> 16).astype(np.uint16)
    if kind == "rising":
        e = 1 + np.arange(n) * top // max(n, 1)
    elif kind == "band":
        low = top // 2 - 20
        e = rng.integers(low, low + 40, n)
    else:
        e = np.where(np.arange(n) % 4 == 0, top // 2, top // 2 + 3)
        sign, fraction = np.zeros(n, np.int64) | (rng.integers(0, 2) << (width - 1)), (1 << fbits) - 1
    return ((sign | (e << fbits) | fraction) & ((1 << width) - 1)).astype(UINT[fmt])


WINDOWED = ["normal", "rising", "band", "packed"]


def check(
    fmt: str,
    bits: np.ndarray,
    spec: tuple[int | str, ...],
    axis: int,
    backend: str = "interp",
    view: tuple[Callable[[vt.Tensor], vt.Tensor], Callable[[np.ndarray], np.ndarray]] | None = None,
) -> None:
    """The exact sum along `axis` of `bits` (or of `view` of them: the graph's
    view and the same view of the patterns in numpy) against the oracle."""
    g = vt.Graph("esum")
    x = g.input("x", DTYPES[fmt], spec)
    g.output("s", vt.sum(x if view is None else view[0](x), axis))
    out = vt.run(g, {"x": user_array(bits, fmt)}, backend=backend)["s"]
    want = expected(bits if view is None else view[1](bits), axis, fmt)
    assert out.shape == want.shape
    got = out.view(UINT[fmt]).astype(np.int64)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{fmt} {bits.shape} axis {axis}: at {bad[:4]} got {got.ravel()[bad[:4]]} want {want.ravel()[bad[:4]]}"


@contextmanager
def small_blocks(rounds: int = 1, groups: int = 2) -> Iterator[None]:
    """Blocks of `rounds` rounds and at most `groups` workgroups per output, so
    that small axes take several blocks per workgroup and partial sums."""
    saved = (ES.ROUNDS, ES.BLOCK, ES.GROUPS)
    ES.ROUNDS, ES.GROUPS = rounds, groups
    ES.BLOCK = ES.WORKGROUP * ES.RUN * ES.RUNS * rounds
    try:
        yield
    finally:
        ES.ROUNDS, ES.BLOCK, ES.GROUPS = saved


# ---------------------------------------------------------------------------
# The one-kernel form (a static axis of at most ROW_LIMIT elements)
# ---------------------------------------------------------------------------

ROW_LENGTHS = [1, 3, 5, 63, 64, 65, 129, 256, 257, 1023, 4096]


@pytest.mark.parametrize("fmt", sorted(DTYPES))
@pytest.mark.parametrize("length", ROW_LENGTHS)
def test_one_row_of_every_length(fmt: str, length: int) -> None:
    """The invocations per output double past 64 * 2**k elements (16 and more
    merge in two levels), the carry pass comes in past 256, a round is 8
    elements per invocation (unguarded when it divides the axis)."""
    rng = np.random.default_rng(length)
    kinds = KINDS if length > 2 else ["finite", "zeros", "negzero", "inf"]
    rows = np.stack([stress(rng, (length,), fmt, kind) for kind in kinds])
    check(fmt, rows, (len(kinds), length), 1)


@pytest.mark.parametrize("fmt", sorted(DTYPES))
def test_many_rows_per_workgroup_and_columns(fmt: str) -> None:
    """Several outputs per workgroup, the last workgroup partly empty; an
    axis that is not the last (strided reads); an empty axis."""
    rng = np.random.default_rng(7)
    check(fmt, stress(rng, (37, 256), fmt, "finite"), (37, 256), 1)
    check(fmt, stress(rng, (300, 7), fmt, "cancel"), (300, 7), 0)
    check(fmt, stress(rng, (3, 70), fmt, "full"), (3, 70), 1)
    check(fmt, np.zeros((3, 0), dtype=UINT[fmt]), (3, 0), 1)


# ---------------------------------------------------------------------------
# The two-kernel form (a dynamic axis, or one longer than ROW_LIMIT)
# ---------------------------------------------------------------------------

TILE_LENGTHS = [2047, 2049, 4096, 6145, 10_000]


@pytest.mark.parametrize("fmt", sorted(DTYPES))
@pytest.mark.parametrize("length", TILE_LENGTHS)
def test_blocks_and_partial_sums(fmt: str, length: int) -> None:
    """With blocks of 2,048 elements and at most 2 workgroups per output: a
    guarded block alone, a full one and a guarded one, two full ones, several
    blocks per workgroup with and without a guarded rest; two outputs."""
    rng = np.random.default_rng(length)
    kind = KINDS[length % len(KINDS)]
    with small_blocks():
        check(fmt, stress(rng, (length,), fmt, kind), ("n",), 0)
        check(fmt, stress(rng, (2, length), fmt, "finite"), (2, "n"), 1)


@pytest.mark.parametrize("kind", KINDS)
def test_default_blocks(kind: str) -> None:
    """The shipped sizes: an axis of one full block and a guarded rest, past
    ROW_LIMIT with a static length."""
    rng = np.random.default_rng(KINDS.index(kind))
    check("f32", stress(rng, (ES.BLOCK + 4099,), "f32", kind), (ES.BLOCK + 4099,), 0)


@pytest.mark.parametrize("fmt", sorted(DTYPES))
@pytest.mark.parametrize("kind", WINDOWED)
def test_register_window(fmt: str, kind: str) -> None:
    """Elements in, above and below the invocations' windows, the windows
    moved many times, the lanes at their largest: over blocks of one round
    and of the shipped size."""
    rng = np.random.default_rng(WINDOWED.index(kind))
    with small_blocks():
        check(fmt, windowed(rng, 6145, fmt, kind), ("n",), 0)
    if fmt == "f32" and kind in ("normal", "packed"):
        check(fmt, windowed(rng, ES.BLOCK + 4099, fmt, kind), ("n",), 0)


def test_several_partial_sums_per_merge_invocation() -> None:
    """More workgroups per output than the merge has invocations."""
    rng = np.random.default_rng(5)
    with small_blocks(groups=300):
        n = ES.BLOCK * 299 + 77
        check("bf16", stress(rng, (n,), "bf16", "cancel"), ("n",), 0)


VIEWS: list[tuple[Callable[[vt.Tensor], vt.Tensor], Callable[[np.ndarray], np.ndarray]]] = [
    (lambda t: t[:, ::-1], lambda a: a[:, ::-1]),
    (lambda t: t[:, 1:], lambda a: a[:, 1:]),
    (lambda t: vt.transpose(t)[::-1], lambda a: a.T[::-1]),
    (lambda t: vt.abs(t), lambda a: a & 0x7FFF_FFFF),
]


@pytest.mark.parametrize("view", range(len(VIEWS)))
def test_views_and_fused_operands(view: int) -> None:
    """Reversed, offset and transposed axes (element by element) and a fused
    operand, over several blocks."""
    rng = np.random.default_rng(9)
    bits = stress(rng, (3, 5000), "f32", "finite")
    with small_blocks():
        check("f32", bits, (3, 5000), 1, view=VIEWS[view])


def test_cancellation_leaves_the_small_values() -> None:
    big = np.float32(1e38)
    smalls = np.array([2.0**-149, 1.0, -3.5, 2.0**-126], dtype=np.float32)
    x = np.concatenate([[big, -big] * 3000, smalls, [-big, big] * 2000]).astype(np.float32)
    bits = x.view(np.uint32)
    assert exact(bits, "f32") == np.float32(-2.5 + 2.0**-126 + 2.0**-149).view(np.uint32)
    check("f32", bits, ("n",), 0)
    check("f32", bits, (len(bits),), 0)


# ---------------------------------------------------------------------------
# lavapipe
# ---------------------------------------------------------------------------


@pytest.mark.usefixtures("gpu_adapter")
@pytest.mark.parametrize("fmt", sorted(DTYPES))
def test_on_the_gpu(fmt: str) -> None:
    """The same boundaries on lavapipe, against the oracle."""
    rng = np.random.default_rng(11)
    for length in (1, 64, 65, 256, 257, 4096):
        rows = np.stack([stress(rng, (length,), fmt, kind) for kind in ("finite", "cancel", "full", "zeros")])
        check(fmt, rows, (4, length), 1, backend="wgpu")
    with small_blocks():
        for length, kind in ((2048, "finite"), (4097, "cancel"), (6145, "full"), (10_000, "infs")):
            check(fmt, stress(rng, (length,), fmt, kind), ("n",), 0, backend="wgpu")
        check(fmt, stress(rng, (3000, 3), fmt, "finite"), ("n", 3), 0, backend="wgpu")
        for kind in ("rising", "packed"):
            check(fmt, windowed(rng, 6145, fmt, kind), ("n",), 0, backend="wgpu")
    check(fmt, stress(rng, (ES.BLOCK + 4099,), fmt, "cancel"), ("n",), 0, backend="wgpu")
    if fmt == "f32":
        check(fmt, windowed(rng, ES.BLOCK + 4099, fmt, "normal"), ("n",), 0, backend="wgpu")
