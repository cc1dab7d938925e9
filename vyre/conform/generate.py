"""Input generation for the proof engine.

Every stream is reproducible and indexable: a witness is identified by its
position in its stream, and the random part of a stream is produced in fixed
blocks by a counter-keyed generator, so any chunk can be regenerated alone (this
is what makes sharding and resumption give the same bytes as one run).

- exhaustive: every tuple of a small domain (u8 for laws), in lexicographic
  order (the first variable is the most significant), computed from the index;
- equivalence classes: the representatives each spec declares;
- boundaries: the spec's boundary values;
- adversarial: values GPUs get wrong (shift by 31/32/33, divide by 0/1, MAX,
  MAX-1, sign bits, alternating bits) plus the constants the laws name;
- random: uniform u32 from PCG64 seeded by (seed, stream labels, block).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np

from vyre.ops import float_laws as FL
from vyre.ops import laws as L
from vyre.ops.spec import OpSpec

__all__ = [
    "ADVERSARIAL",
    "CHUNK",
    "CORE",
    "U32_MAX",
    "exhaustive_bits_for_arity",
    "exhaustive_rows",
    "law_constants",
    "random_rows",
    "special_values",
    "stream_entropy",
    "structured_float_rows",
    "structured_law_rows",
    "structured_op_rows",
]

U32_MAX = 0xFFFF_FFFF

CHUNK = 1 << 20
"""Witnesses per chunk: the unit of streaming, dispatch, sharding and resumption."""

ADVERSARIAL: tuple[int, ...] = (
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    15,
    16,
    31,
    32,
    33,
    63,
    64,
    0xFF,
    0x100,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFE,
    0x7FFF_FFFF,
    0x8000_0000,
    0x8000_0001,
    0xAAAA_AAAA,
    0x5555_5555,
    0xDEAD_BEEF,
    0xCAFE_F00D,
    0xFFFF_FFFE,
    U32_MAX,
)
"""GPU failure modes: shift amounts 31/32/33, divisors 0/1, byte/half-word
edges, i32 sign edges, alternating bit patterns, MAX-1 and MAX."""

CORE: tuple[int, ...] = (
    0,
    1,
    2,
    3,
    31,
    32,
    33,
    0x7FFF_FFFF,
    0x8000_0000,
    0xAAAA_AAAA,
    0x5555_5555,
    0xFFFF_FFFE,
    U32_MAX,
)
"""The adversarial core used where a full product would be too large (triples)."""

_OP_INPUT_BITS = {1: 8, 2: 8, 3: 5, 4: 4}
"""Bits per input of the exhaustive block of an op's input stream, by arity."""


def exhaustive_bits_for_arity(arity: int) -> int:
    """Bits per input of the exhaustive part of an op's input stream."""
    return _OP_INPUT_BITS.get(arity, 0)


def law_constants(law: L.Law) -> tuple[int, ...]:
    """The u32 constants a law names, with their neighbours (off-by-one bugs);
    the inputs of a float law's exact cases as they are."""
    values: list[int] = []
    match law:
        case L.Identity(e):
            values.append(e)
        case L.SelfInverse(r):
            values.append(r)
        case L.Absorbing(z):
            values.append(z)
        case L.Bounded(lo, hi) | FL.FloatRange(lo, hi):
            values.extend((lo, hi))
        case L.Complement(_, u):
            values.append(u)
        case FL.FloatExactCases(cases):
            return tuple(sorted({v for inputs, _ in cases for v in inputs}))
        case _:
            pass
    out: list[int] = []
    for value in values:
        out.extend(v & U32_MAX for v in (value - 1, value, value + 1))
    return tuple(out)


def special_values(spec: OpSpec) -> tuple[int, ...]:
    """Adversarial values, the spec's boundaries and class representatives, and
    the constants its laws name: sorted, without duplicates."""
    values: set[int] = set(ADVERSARIAL)
    for boundary in spec.boundaries:
        if isinstance(boundary, int):
            values.add(boundary & U32_MAX)
        else:
            values.update(v & U32_MAX for v in boundary)
    for cls in spec.equivalence_classes:
        for representative in cls.representatives:
            values.update(v & U32_MAX for v in representative)
    for law in spec.laws:
        values.update(law_constants(law))
    return tuple(sorted(values))


def _core(specials: Sequence[int], law_values: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(set(CORE) | set(law_values)))


def _product(values: Sequence[int], k: int) -> np.ndarray:
    if k == 0:
        return np.zeros((1, 0), dtype=np.uint32)
    grids = np.meshgrid(*([np.asarray(values, dtype=np.uint32)] * k), indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1)


def _unique_rows(rows: np.ndarray) -> np.ndarray:
    """Rows without duplicates, in first-occurrence order."""
    if len(rows) == 0:
        return rows
    _, first = np.unique(rows, axis=0, return_index=True)
    return rows[np.sort(first)]


def exhaustive_rows(k: int, bits: int, start: int, stop: int) -> np.ndarray:
    """Rows `start..stop` of the exhaustive domain of `k` variables of `bits` bits,
    in lexicographic order: row i has variable j = (i >> bits*(k-1-j)) & mask."""
    index = np.arange(start, stop, dtype=np.uint64)
    mask = np.uint64((1 << bits) - 1)
    columns = [(index >> np.uint64(bits * (k - 1 - j))) & mask for j in range(k)]
    return np.stack(columns, axis=1).astype(np.uint32) if k else np.zeros((stop - start, 0), np.uint32)


def structured_op_rows(spec: OpSpec) -> np.ndarray:
    """Chunk 0 of an op's input stream: the small exhaustive domain, class
    representatives, boundaries and the product of special values."""
    arity = spec.signature.arity
    blocks: list[np.ndarray] = []
    bits = exhaustive_bits_for_arity(arity)
    if bits:
        blocks.append(exhaustive_rows(arity, bits, 0, 1 << (bits * arity)))
    reps = [r for cls in spec.equivalence_classes for r in cls.representatives if len(r) == arity]
    if reps:
        blocks.append(np.asarray(reps, dtype=np.uint64).astype(np.uint32).reshape(-1, arity))
    bounds: list[tuple[int, ...]] = []
    for boundary in spec.boundaries:
        if isinstance(boundary, int):
            bounds.append((boundary & U32_MAX,) * arity)
        elif len(boundary) == arity:
            bounds.append(tuple(v & U32_MAX for v in boundary))
    if bounds:
        blocks.append(np.asarray(bounds, dtype=np.uint64).astype(np.uint32).reshape(-1, arity))
    specials = special_values(spec)
    law_values = [v for law in spec.laws for v in law_constants(law)]
    if arity <= 2:
        blocks.append(_product(specials, arity))
    elif arity == 3:
        blocks.append(_product(_core(specials, law_values), 3))
    else:
        blocks.append(_product(CORE[:: max(1, len(CORE) // 7)][:8], arity))
    return _unique_rows(np.concatenate(blocks, axis=0))


def structured_law_rows(k: int, specials: Sequence[int], law_values: Iterable[int]) -> np.ndarray:
    """Chunk 0 of a law witness stream of `k` variables: every pair of special
    values (so each one- and two-variable law sees all of them), and for three
    variables also the product of the adversarial core."""
    if k <= 2:
        return _product(specials, k)
    pairs = _product(specials, 2)
    core = _core(specials, law_values)
    third = np.resize(np.asarray(core, dtype=np.uint32), len(pairs))
    blocks = [np.concatenate([pairs, third[:, None]], axis=1), _product(core, 3)]
    if k > 3:
        blocks = [np.concatenate([b, np.zeros((len(b), k - 3), np.uint32)], axis=1) for b in blocks]
    return _unique_rows(np.concatenate(blocks, axis=0))


_FLOAT_SIGNIFICANDS = (0, 1, 0x40_0000, 0x7F_FFFF)
"""Significands of the float grid: the power of two, its successor, the
midpoint of the binade and its last pattern."""

FLOAT_CORE: tuple[int, ...] = (
    0x0000_0000, 0x0000_0001, 0x007F_FFFF, 0x0080_0000, 0x3300_0000, 0x3F00_0000, 0x3F7F_FFFF,
    0x3F80_0000, 0x3F80_0001, 0x4000_0000, 0x4049_0FDB, 0x4B80_0000, 0x7F7F_FFFF, 0x7F80_0000,
)  # fmt: skip
"""Positive F32 patterns every float law is exercised at in each input (with
both signs): zero, the subnormal and normal edges, 2**-25, 1/2, the neighbours
of 1, 2, pi, 2**24, the largest finite, infinity."""


def _float_values(specials: Sequence[int]) -> np.ndarray:
    """One-variable float witnesses: the specials, their neighbours and negations,
    the core, and every exponent with the grid's significands, both signs."""
    values: set[int] = set()
    for v in specials:
        for w in (v, v ^ 0x8000_0000):
            values.update(((w - 1) & U32_MAX, w, (w + 1) & U32_MAX))
    values.update(v | sign for v in FLOAT_CORE for sign in (0, 0x8000_0000))
    for exponent in range(256):
        for significand in _FLOAT_SIGNIFICANDS:
            values.update((exponent << 23 | significand) | sign for sign in (0, 0x8000_0000))
    values.add(0x7FC0_0000)
    return np.asarray(sorted(values), dtype=np.uint32)


def structured_float_rows(k: int, specials: Sequence[int]) -> np.ndarray:
    """Chunk 0 of a float law witness stream of `k` variables: for one variable
    `_float_values`; for more, the product of the signed core and every
    one-variable value beside ±1 in each position (the other variables ±1)."""
    values = _float_values(specials)
    if k == 1:
        return values[:, None]
    core = [v | sign for v in FLOAT_CORE for sign in (0, 0x8000_0000)] + [0x7FC0_0000]
    blocks = [_product(core, k)]
    for position in range(k):
        for partner in (0x3F80_0000, 0xBF80_0000):
            block = np.full((len(values), k), partner, dtype=np.uint32)
            block[:, position] = values
            blocks.append(block)
    return _unique_rows(np.concatenate(blocks, axis=0))


def stream_entropy(seed: int, *labels: str) -> list[int]:
    """Entropy words of a named random stream: the seed and a SHA-256 of the labels."""
    digest = hashlib.sha256("\x1f".join(labels).encode()).digest()
    return [seed & U32_MAX, (seed >> 32) & U32_MAX] + [
        int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)
    ]


def random_rows(entropy: Sequence[int], block: int, n: int, k: int) -> np.ndarray:
    """`n` rows of `k` uniform u32 values: block `block` of the stream `entropy`.

    PCG64's raw output and SeedSequence are stable across numpy versions (the
    Generator's derived methods are not), so only those are used."""
    generator = np.random.PCG64(np.random.SeedSequence(list(entropy), spawn_key=(block,)))
    words = n * k
    raw = generator.random_raw((words + 1) // 2).astype(np.uint64)
    halves = np.empty(2 * len(raw), dtype=np.uint32)
    halves[0::2] = (raw & np.uint64(U32_MAX)).astype(np.uint32)
    halves[1::2] = (raw >> np.uint64(32)).astype(np.uint32)
    return halves[:words].reshape(n, k)

