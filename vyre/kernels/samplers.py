"""The inputs of kernel ops that the proof system, the admission gates and the
tests generate: one vocabulary of data patterns, one function per pattern, and
the samplers of the ops whose inputs have structure.

**Patterns.** A pattern names the shape of an array's values; `values(rng,
dtype, n, name)` makes n elements of that shape:

| pattern | values | element types |
|---|---|---|
| `random` | uniform over the type (F32: standard normal) | all |
| `zeros` | all zero (F32: zeros of random sign) | all |
| `ones` | all the type's maximum (0xFF bytes, 0xFFFFFFFF words, Bool 1) | integers, Bytes, Bool |
| `ascending`, `descending` | 0, 1, 2, ... and n, n-1, ..., 1 | integers |
| `few` | the minimum, 0, 1 and the maximum (Bytes: 0x00, 0x0A, 0x41, 0xFF) | integers, Bytes |
| `wrap` | within 16 of the maximum | integers |
| `text` | printable ASCII (0x20-0x7E) | Bytes |
| `letters` | ASCII letters, digits and the bytes beside the letter ranges | Bytes |
| `periodic` | `abaab` repeated (overlapping matches) | Bytes |
| `repeats` | uniform over a random range (n/4, n or all values): duplicates | U32 |
| `equal` | one random value repeated | integers, Bytes, F32 |
| `sorted`, `reverse_sorted` | random values sorted up or down | integers, Bytes, F32 |
| `high` | the top bit set | U32, Bytes |
| `small` | small integers (F32: -1023..1023) | integers, F32 |
| `sparse` | mostly zero, one in twenty any word | U32 |
| `specials` | IEEE edge values: signed zeros, infinities, NaNs (quiet, signalling, with payloads), subnormal and normal edges, 1, 2^-24, 2^24 | F32 |
| `cancel` | large values of both signs (sums cancel) | F32 |
| `wide` | any bit pattern | F32 |
| `subnormal` | subnormal values | F32 |
| `integers` | integers of magnitude below 2^24 (exact in F32) | F32 |

A pattern that does not apply to an element type gives `random` values (the
proof system asks every array input of a case for the first input's pattern);
an unknown name is a `ValueError`. `case_patterns(dtype)` lists the patterns
the proof system's boundary cases use for each element type.

**Samplers.** A kernel op whose inputs have structure (a graph, a bin count,
an encoded text, a compressed stream) names its sampler in `KernelSpec.sample`:
`(rng, n, pattern) -> argument tuple`, valid inputs of length n shaped by the
pattern. They are defined here, family by family; the ones that need a
family's encoder (`encoded`, `leb128_stream`, `compressed`) take it as an
argument.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vyre.ir import DataType
from vyre.kernels.spec import KernelSpec, Port, Sampler

__all__ = [
    "BOOL_PATTERNS",
    "BYTE_PATTERNS",
    "CHAIN",
    "DAMAGE",
    "FLOAT_PATTERNS",
    "INTEGER_PATTERNS",
    "PATTERNS",
    "Pattern",
    "arguments",
    "byte_search",
    "byte_table",
    "byte_words",
    "case_patterns",
    "compacted",
    "compressed",
    "contains",
    "csr_graph",
    "damaged",
    "encoded",
    "find_all",
    "gathered",
    "graph_bfs",
    "graph_components",
    "graph_in_degree",
    "graph_out_degree",
    "hash_batch",
    "histogram_u32",
    "leb128_stream",
    "make_case",
    "memcmp",
    "percent_encoded",
    "scattered",
    "segmented",
    "split",
    "text_bytes",
    "unique",
    "utf8_text",
    "values",
]

NONE = 0xFFFF_FFFF

_INTEGERS = frozenset({DataType.U32, DataType.I32, DataType.U64})
_NUMPY = {DataType.I32: np.int32, DataType.U64: np.uint64, DataType.BYTES: np.uint8, DataType.F32: np.float32}
_RANGE = {DataType.I32: (-(2**31), 2**31 - 1), DataType.U64: (0, 2**64 - 1)}


def _numpy(dtype: DataType) -> type[np.generic]:
    return _NUMPY.get(dtype, np.uint32)


def _range(dtype: DataType) -> tuple[int, int]:
    return _RANGE.get(dtype, (0, 2**32 - 1))


# ---------------------------------------------------------------------------
# The patterns, one function each: (rng, element type, n) -> n values
# ---------------------------------------------------------------------------


def _random(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    if dtype is DataType.BYTES:
        return rng.integers(0, 256, n, dtype=np.uint8)
    if dtype is DataType.F32:
        return rng.standard_normal(n).astype(np.float32)
    if dtype is DataType.BOOL:
        return rng.integers(0, 2, n, dtype=np.uint32)
    if dtype is DataType.U64:
        return rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    low, high = _range(dtype)
    return rng.integers(low, high, n, dtype=np.int64, endpoint=True).astype(_numpy(dtype))


def _zeros(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    if dtype is DataType.F32:
        signs = rng.integers(0, 2, n, dtype=np.uint32) << np.uint32(31)
        return signs.view(np.float32)
    return np.zeros(n, dtype=_numpy(dtype))


def _ones(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    if dtype is DataType.BYTES:
        return np.full(n, 0xFF, dtype=np.uint8)
    if dtype is DataType.BOOL:
        return np.full(n, 1, dtype=np.uint32)
    return np.full(n, _range(dtype)[1], dtype=_numpy(dtype))


def _ascending(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return np.arange(n, dtype=np.int64).astype(_numpy(dtype))


def _descending(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return np.arange(n, 0, -1, dtype=np.int64).astype(_numpy(dtype))


def _few(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    if dtype is DataType.BYTES:
        return rng.choice(np.array([0, 0x0A, 0x41, 0xFF], dtype=np.uint8), n)
    np_type = _numpy(dtype)
    if not n:
        return np.zeros(0, np_type)
    low, high = _range(dtype)
    return rng.choice(np.array([low, 0, 1, high], dtype=object), n).astype(np_type)


def _wrap(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    high = _range(dtype)[1]
    near = rng.integers(0, 16, n, dtype=np.uint64)
    if dtype is DataType.I32:
        return (high - near.astype(np.int64)).astype(np.int32)
    return (np.uint64(high) - near).astype(_numpy(dtype))


def _text(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return rng.integers(0x20, 0x7F, n, dtype=np.uint8)


_LETTERS = np.frombuffer(b"abcXYZ@[`{ 019,\n", np.uint8)


def _letters(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return rng.choice(_LETTERS, n)


def _periodic(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return np.resize(np.frombuffer(b"abaab", dtype=np.uint8), n).astype(np.uint8)


def _repeats(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    spread = int(rng.choice(np.array([max(1, n // 4), max(1, n), 2**32 - 1], dtype=np.int64)))
    return rng.integers(0, spread, n, dtype=np.uint64, endpoint=True).astype(np.uint32)


def _equal(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return np.repeat(_random(rng, dtype, 1), n)


def _sorted(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return np.sort(_random(rng, dtype, n))


def _reverse_sorted(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return _sorted(rng, dtype, n)[::-1].copy()


def _high(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    if dtype is DataType.BYTES:
        return rng.integers(0x80, 0x100, n, dtype=np.uint8)
    return rng.integers(1 << 31, 1 << 32, n, dtype=np.uint32)


def _small(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    if dtype is DataType.F32:
        return rng.integers(-1023, 1024, n).astype(np.float32)
    return rng.integers(0, 8, n).astype(_numpy(dtype))


def _sparse(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    out = np.zeros(n, np.uint32)
    hits = rng.random(n) < 0.05
    out[hits] = rng.integers(1, 1 << 32, int(hits.sum()), dtype=np.uint32)
    return out


_F32_SPECIALS = np.array(
    [0x0000_0000, 0x8000_0000, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x0000_0001, 0x807F_FFFF,
     0x7F7F_FFFF, 0xFF7F_FFFF, 0x3F80_0000, 0xBF80_0000, 0x0080_0000, 0x3380_0000, 0xFFC0_0001,
     0x7F80_0001, 0x8000_0001, 0x007F_FFFF, 0x4B80_0000, 0xCB80_0000],
    dtype=np.uint32,
)  # fmt: skip


def _specials(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return rng.choice(_F32_SPECIALS, n).astype(np.uint32).view(np.float32)


def _cancel(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    big = rng.choice(np.array([1e30, -1e30, 3.4e38, -3.4e38, 1.0, -1.0], dtype=np.float32), n)
    return big.astype(np.float32)


def _wide(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def _subnormal(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return rng.integers(0, 1 << 23, n, dtype=np.uint32).view(np.float32) * np.float32(rng.choice([-1, 1]))


def _integers(rng: np.random.Generator, dtype: DataType, n: int) -> np.ndarray:
    return rng.integers(-(1 << 24), 1 << 24, n).astype(np.float32)


@dataclass(frozen=True)
class Pattern:
    """A data pattern: its name, the element types it applies to and the
    function that makes n values of one of them."""

    name: str
    dtypes: frozenset[DataType]
    make: Callable[[np.random.Generator, DataType, int], np.ndarray]


_EVERY = frozenset(DataType)
_F32 = frozenset({DataType.F32})
_BYTES = frozenset({DataType.BYTES})
_U32 = frozenset({DataType.U32})

PATTERNS: Mapping[str, Pattern] = {
    p.name: p
    for p in (
        Pattern("random", _EVERY, _random),
        Pattern("zeros", _EVERY, _zeros),
        Pattern("ones", _INTEGERS | _BYTES | {DataType.BOOL}, _ones),
        Pattern("ascending", _INTEGERS, _ascending),
        Pattern("descending", _INTEGERS, _descending),
        Pattern("few", _INTEGERS | _BYTES, _few),
        Pattern("wrap", _INTEGERS, _wrap),
        Pattern("text", _BYTES, _text),
        Pattern("letters", _BYTES, _letters),
        Pattern("periodic", _BYTES, _periodic),
        Pattern("repeats", _U32, _repeats),
        Pattern("equal", _INTEGERS | _BYTES | _F32, _equal),
        Pattern("sorted", _INTEGERS | _BYTES | _F32, _sorted),
        Pattern("reverse_sorted", _INTEGERS | _BYTES | _F32, _reverse_sorted),
        Pattern("high", _U32 | _BYTES, _high),
        Pattern("small", _INTEGERS | _F32, _small),
        Pattern("sparse", _U32, _sparse),
        Pattern("specials", _F32, _specials),
        Pattern("cancel", _F32, _cancel),
        Pattern("wide", _F32, _wide),
        Pattern("subnormal", _F32, _subnormal),
        Pattern("integers", _F32, _integers),
    )
}
"""Every data pattern, by name (the module doc's table)."""


def values(rng: np.random.Generator, dtype: DataType, n: int, pattern: str) -> np.ndarray:
    """n values of element type `dtype` in `pattern` (`random` where the pattern
    does not apply to the type): uint8 for Bytes, float32 for F32, uint32 for
    U32 and Bool, int32 for I32, uint64 for U64."""
    found = PATTERNS.get(pattern)
    if found is None:
        raise ValueError(f"unknown data pattern {pattern!r}; the patterns are {', '.join(PATTERNS)}")
    if dtype not in found.dtypes:
        found = PATTERNS["random"]
    return found.make(rng, dtype, n)


INTEGER_PATTERNS = ("random", "zeros", "ones", "ascending", "descending", "few", "wrap")
FLOAT_PATTERNS = ("random", "zeros", "specials", "cancel", "small", "wide")
BYTE_PATTERNS = ("random", "zeros", "ones", "few", "text")
BOOL_PATTERNS = ("random", "zeros", "ones")


def case_patterns(dtype: DataType) -> tuple[str, ...]:
    """The patterns of the proof system's boundary cases for an element type."""
    if dtype is DataType.F32:
        return FLOAT_PATTERNS
    if dtype is DataType.BYTES:
        return BYTE_PATTERNS
    if dtype is DataType.BOOL:
        return BOOL_PATTERNS
    return INTEGER_PATTERNS


# ---------------------------------------------------------------------------
# Cases of any op: every array input in the pattern
# ---------------------------------------------------------------------------


def _scalar(rng: np.random.Generator, port: Port) -> int:
    if port.dtype is DataType.BOOL:
        return int(rng.integers(0, 2))
    if port.dtype is DataType.I32:
        return int(rng.integers(-(2**31), 2**31))
    return int(rng.integers(0, 2**32))


def _case_values(rng: np.random.Generator, dtype: DataType, n: int, pattern: str) -> np.ndarray:
    return values(rng, dtype, n, pattern if pattern in case_patterns(dtype) else "random")


def make_case(spec: KernelSpec, rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    """One argument tuple with array inputs of length n and random scalars: each
    array input in `pattern` when it is one of its type's `case_patterns`, else
    random (the op's own `sample` when it declares one)."""
    if spec.sample is not None:
        return tuple(spec.sample(rng, n, pattern))
    return tuple(
        _scalar(rng, port) if port.scalar else _case_values(rng, port.dtype, n, pattern) for port in spec.inputs
    )


def arguments(spec: KernelSpec, n: int, seed: int = 0) -> tuple[Any, ...]:
    """Random inputs of length n for every array port and 0 for every scalar
    (the op's own `sample`, pattern `random`, when it declares one): the inputs
    of the admission gates."""
    rng = np.random.default_rng(seed)
    if spec.sample is not None:
        return tuple(spec.sample(rng, n, "random"))
    return tuple(0 if port.scalar else values(rng, port.dtype, n, "random") for port in spec.inputs)


# ---------------------------------------------------------------------------
# Buffers and collections (buffer.py, collection.py)
# ---------------------------------------------------------------------------


def _pick_byte(rng: np.random.Generator, data: np.ndarray) -> int:
    """Mostly a byte that occurs (late ones too), sometimes any byte."""
    if len(data) and rng.random() < 0.75:
        return int(data[int(rng.integers(0, len(data)))])
    return int(rng.choice(np.array([0, 0xFF, 0x41, int(rng.integers(0, 256))])))


def byte_search(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, int]:
    """n bytes and a byte to look for (mostly one that occurs)."""
    data = values(rng, DataType.BYTES, n, pattern)
    return data, _pick_byte(rng, data)


def memcmp(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """Two byte strings: equal, one byte apart (often the last), or one shorter."""
    a = values(rng, DataType.BYTES, n, pattern)
    b = a.copy()
    choice = rng.random()
    if n and choice < 0.4:  # one byte differs, often the last (the padding's neighbour)
        at = n - 1 if rng.random() < 0.5 else int(rng.integers(0, n))
        b[at] ^= np.uint8(1 << int(rng.integers(0, 8)))
    elif n and choice < 0.5:
        b = b[:-1].copy()
    return a, b


def byte_words(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
    """4n bytes (n words: the word counts hit the boundaries)."""
    return (values(rng, DataType.BYTES, 4 * n, pattern),)


_DENSITY = (0.0, 1e-3, 0.1, 0.5, 0.97, 1.0)


def compacted(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """U32 values and marks of a random density (any non-zero word)."""
    data = values(rng, DataType.U32, n, pattern)
    density = float(rng.choice(np.array(_DENSITY)))
    marks = rng.integers(1, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return data, np.where(rng.random(n) < density, marks, np.uint32(0)).astype(np.uint32)


def _indices(rng: np.random.Generator, k: int, m: int, pattern: str) -> np.ndarray:
    """k indices into m elements: in range with duplicates, plus out-of-range
    ones (m, 0xFFFFFFFF, random words)."""
    if pattern == "zeros":
        return np.zeros(k, dtype=np.uint32)  # every index the same
    inside = rng.integers(0, max(m, 1), k, dtype=np.int64)
    if pattern == "ascending":
        inside = np.arange(k, dtype=np.int64) % max(m, 1)
    elif pattern == "descending":
        inside = (np.arange(k, 0, -1, dtype=np.int64) - 1) % max(m, 1)
    oob = rng.choice(np.array([m, m + 1, NONE, int(rng.integers(0, 2**32))], dtype=np.int64), k)
    share = 1.0 if pattern == "wrap" else (0.0 if pattern in ("ascending", "descending") else 0.1)
    return np.where((rng.random(k) < share) | (m == 0), oob, inside).astype(np.uint32)


def gathered(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """A source of n words and n indices into it (some out of range)."""
    src = values(rng, DataType.U32, n, "random" if pattern in ("zeros", "few") else pattern)
    return src, _indices(rng, n, n, pattern)


def scattered(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A destination of n words, n indices (crowded into n/8 for "few") and n values."""
    dst = values(rng, DataType.U32, n, "random")
    idx = _indices(rng, n, n if pattern != "few" else max(1, n // 8), pattern)
    return dst, idx, values(rng, DataType.U32, n, "random")


def _set(rng: np.random.Generator, n: int, pattern: str) -> np.ndarray:
    """U32 values in an integer case pattern, with duplicates in the others
    (`repeats` for "random")."""
    return values(rng, DataType.U32, n, pattern if pattern in INTEGER_PATTERNS[1:] else "repeats")


def unique(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
    """n values, with duplicates."""
    return (_set(rng, n, pattern),)


def contains(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """A set of n values and n queries: members, their neighbours (+-1, which a
    wrong bound finds), the extremes and random words."""
    keys = _set(rng, n, pattern)
    if not n:
        return keys, keys.copy()
    members = keys[rng.integers(0, n, n)]
    near = (members.astype(np.int64) + rng.choice(np.array([-1, 1]), n)) % 2**32
    extremes = rng.choice(np.array([0, 1, NONE - 1, NONE], dtype=np.int64), n)
    anything = rng.integers(0, 2**32, n, dtype=np.int64)
    pick = rng.integers(0, 4, n)
    queries = np.choose(pick, [members.astype(np.int64), near, extremes, anything]).astype(np.uint32)
    return keys, queries


# ---------------------------------------------------------------------------
# Histograms and segmented scans (stats.py, scan_segmented.py)
# ---------------------------------------------------------------------------

HISTOGRAM_BINS = (1, 2, 3, 17, 255, 256, 257, 1000, 2048, 4095, 4096, 4097, 20_000)
"""nbins of the generated cases: both sides of every capacity class of
`stats.histogram_u32`, and its global-atomic path past MAX_PRIVATE_BINS."""


def histogram_u32(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, int]:
    """Values mostly below nbins with some at or above it (dropped), in the shape
    of the integer patterns."""
    nbins = int(rng.choice(np.array(HISTOGRAM_BINS)))
    if pattern == "zeros":
        data = np.zeros(n, dtype=np.int64)
    elif pattern == "ones":  # every value equal: the most contention
        data = np.full(n, int(rng.integers(0, nbins)), dtype=np.int64)
    elif pattern == "ascending":
        data = np.arange(n, dtype=np.int64) % (nbins + 1 + nbins // 8)
    elif pattern == "descending":
        data = (np.arange(n, 0, -1, dtype=np.int64)) % (nbins + 1 + nbins // 8)
    elif pattern == "few":
        data = rng.choice(np.array([0, nbins - 1, nbins, 2**32 - 1], dtype=np.int64), n)
    elif pattern == "wrap":
        data = np.int64(2**32 - 1) - rng.integers(0, 16, n, dtype=np.int64)
        data = np.where(rng.random(n) < 0.5, data, rng.integers(0, nbins, n))
    else:
        data = np.where(
            rng.random(n) < 0.9, rng.integers(0, nbins, n), rng.integers(0, 2**32, n, dtype=np.int64)
        )
    return data.astype(np.uint32), nbins


_HEAD_DENSITY = (0.0, 1e-4, 1 / 64, 0.2, 1.0)


def segmented(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """x in the pattern; head flags of a random density (none, one in 10,000,
    1/64, 1/5, every element), flag values any non-zero u32."""
    x = values(rng, DataType.U32, n, pattern)
    density = float(rng.choice(np.array(_HEAD_DENSITY)))
    marks = rng.integers(1, 2**32, n, dtype=np.uint64).astype(np.uint32)
    flags = np.where(rng.random(n) < density, marks, np.uint32(0)).astype(np.uint32)
    return x, flags


# ---------------------------------------------------------------------------
# Hashes of many messages (hash_stream.py)
# ---------------------------------------------------------------------------


def hash_batch(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """n bytes of data cut into 0-10 messages at random points (some empty, some
    starting past offset 0)."""
    data = values(rng, DataType.BYTES, n, pattern)
    cuts = np.sort(rng.integers(0, n + 1, int(rng.integers(0, 10))))
    first = int(rng.integers(0, min(n, 3) + 1)) if rng.random() < 0.3 else 0
    last = n - (int(rng.integers(0, min(n - first, 3) + 1)) if rng.random() < 0.3 else 0)
    inner = [int(c) for c in cuts if first <= c <= last]
    return data, np.array([first, *inner, last], dtype=np.uint32)


# ---------------------------------------------------------------------------
# Graphs (graph.py)
# ---------------------------------------------------------------------------

CHAIN = 16
"""Nodes per chain of the "ascending" graphs (depth stays small)."""


def _chains(nodes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Chains of CHAIN nodes whose heads form a binary tree."""
    inner = nodes[(nodes + 1) % CHAIN != 0]
    inner = inner[inner + 1 < n]
    heads_of = nodes[nodes % CHAIN == 0] // CHAIN
    kids = [(h, c) for h in heads_of for c in (2 * h + 1, 2 * h + 2) if c * CHAIN < n]
    tails = np.concatenate([inner, np.array([h * CHAIN for h, _ in kids], dtype=np.int64)])
    heads = np.concatenate([inner + 1, np.array([c * CHAIN for _, c in kids], dtype=np.int64)])
    return tails, heads


def _edges(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """(tails, heads) of the edges of a graph of n nodes shaped by `pattern`."""
    nodes = np.arange(n, dtype=np.int64)
    if n == 0 or pattern == "zeros":
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if pattern == "ones":
        return np.concatenate([np.zeros(n, np.int64), nodes, [0]]), np.concatenate([nodes, np.zeros(n, np.int64), [0]])
    if pattern in ("ascending", "descending"):
        tails, heads = _chains(nodes, n)
        return (heads, tails) if pattern == "descending" else (tails, heads)
    if pattern == "few":
        tails = np.concatenate([nodes, nodes, nodes, nodes])
        return tails, np.concatenate([nodes, (2 * nodes + 1) % n, (2 * nodes + 1) % n, (2 * nodes + 2) % n])
    if pattern == "wrap":
        hubs = rng.integers(0, n, 3)
        spokes = rng.integers(0, n, 3 * n)
        return np.concatenate([np.repeat(hubs, n), rng.integers(0, n, n)]), np.concatenate([spokes, rng.integers(0, n, n)])
    m = int(rng.integers(0, 3 * n + 1))
    return rng.integers(0, n, m), rng.integers(0, n, m)


def csr_graph(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, targets) of a graph of n nodes shaped by `pattern`: random
    sparse edges; none ("zeros"); a hub joined both ways to every node (a
    frontier node of degree n, "ones"); chains of CHAIN nodes whose heads form a
    binary tree (and the same reversed: "ascending", "descending"); self loops
    and repeated edges ("few"); a few hubs of large degree over random sparse
    edges ("wrap"). Every shape keeps BFS depth near log n."""
    tails, heads = _edges(rng, n, pattern)
    order = np.argsort(tails, kind="stable")
    counts = np.bincount(tails, minlength=n) if n else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.uint32)
    return offsets, np.asarray(heads, dtype=np.int64)[order].astype(np.uint32)


def graph_bfs(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    """A graph and a source node."""
    offsets, targets = csr_graph(rng, n, pattern)
    return offsets, targets, int(rng.integers(0, n)) if n else 0


def graph_components(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return csr_graph(rng, n, pattern)


def graph_out_degree(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (csr_graph(rng, n, pattern)[0],)


def graph_in_degree(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return csr_graph(rng, n, pattern)[1], n


# ---------------------------------------------------------------------------
# Strings and matching (string.py, match.py)
# ---------------------------------------------------------------------------


def byte_table(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """n bytes and a 256-entry byte map (a permutation; three classes for "few")."""
    data = values(rng, DataType.BYTES, n, "random" if pattern == "few" else pattern)
    if pattern == "few":
        table = rng.choice(np.array([0, 1, 2], dtype=np.uint8), 256)
    else:
        table = rng.permutation(256).astype(np.uint8)
    return data, table


def split(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, int]:
    """n bytes and a delimiter: every byte one ("zeros"), none ("ones"), spaces
    in text, a small alphabet of delimiters and others ("few")."""
    if pattern == "zeros":  # every byte a delimiter: the most tokens
        return np.zeros(n, dtype=np.uint8), 0
    if pattern == "ones":  # no delimiter: one token
        return np.full(n, 0xFF, dtype=np.uint8), 0x2C
    if pattern == "text":
        return values(rng, DataType.BYTES, n, "text"), 0x20
    alphabet = np.array([0x2C, 0x41, 0x0A, 0x00, 0xFF], dtype=np.uint8)
    data = rng.choice(alphabet, n) if pattern == "few" else values(rng, DataType.BYTES, n, "random")
    return data.astype(np.uint8), int(rng.choice(alphabet))


_NEEDLE_LENGTHS = (0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 31, 64, 100, 511, 512, 513, 1100)


def find_all(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """A haystack of n bytes (periodic text too: overlapping matches) and a
    needle: mostly cut out of the haystack (found), sometimes with its last
    byte changed (the filter's tail) or random; lengths around 4, 8, the
    verification chunk, and longer than the haystack."""
    if pattern == "random" and rng.random() < 0.4:
        pattern = "periodic"
    hay = values(rng, DataType.BYTES, n, pattern)
    m = int(rng.choice(np.array(_NEEDLE_LENGTHS)))
    if rng.random() < 0.1:
        m = n + 1 + int(rng.integers(0, 3))
    choice = rng.random()
    if m <= n and choice < 0.8:
        at = int(rng.integers(0, n - m + 1))
        needle = hay[at : at + m].copy()
        if m and choice > 0.65:
            needle[-1] ^= np.uint8(1)
    else:
        needle = values(rng, DataType.BYTES, m, "random" if choice < 0.9 else pattern)
    return hay, needle


# ---------------------------------------------------------------------------
# Decoders (codec_radix.py, codec_percent.py, uleb128.py, utf8.py, compression.py)
# ---------------------------------------------------------------------------

DAMAGE = (0x21, 0x3D, 0x00, 0xFF, 0x80, 0x25, 0x20, 0x0A, 0x7F, 0xC0)
"""Bytes a damaged sample puts somewhere: punctuation, '=', NUL, 0xFF, a lone
continuation byte, '%', space, newline, DEL, an overlong lead."""


def damaged(rng: np.random.Generator, text: bytes) -> bytes:
    """`text` with one byte replaced (first byte, last byte, or anywhere) by a
    byte from DAMAGE."""
    if not text:
        return text
    where = int(rng.choice(np.array([0, len(text) - 1, int(rng.integers(0, len(text)))])))
    out = bytearray(text)
    out[where] = int(rng.choice(np.array(DAMAGE, dtype=np.uint8)))
    return bytes(out)


def _source(rng: np.random.Generator, n: int, pattern: str) -> bytes:
    """n bytes a decoder's input encodes: the pattern's (random for "few")."""
    return values(rng, DataType.BYTES, n, "random" if pattern == "few" else pattern).tobytes()


def _u8(data: bytes) -> tuple[np.ndarray]:
    return (np.frombuffer(data, dtype=np.uint8).copy(),)


def encoded(encode: Callable[[bytes], bytes], filler: bytes) -> Sampler:
    """Inputs of length n for a decoder: the encoding of random (zero, 0xFF)
    data cut or filled to n bytes with `filler` symbols ("random", "zeros",
    "ones"), the same with one damaged byte ("few"), or printable bytes
    ("text")."""

    def sample(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
        if pattern == "text":
            return (values(rng, DataType.BYTES, n, "text"),)
        length = n
        text = encode(_source(rng, length, pattern))
        while len(text) > n and length > 0:
            length = max(0, min(length - 1, (length * n) // max(1, len(text))))
            text = encode(_source(rng, length, pattern))
        if len(text) < n:
            text += bytes(rng.choice(np.frombuffer(filler, dtype=np.uint8), n - len(text)))
        if pattern == "few":
            text = damaged(rng, text)
        return _u8(text)

    return sample


def percent_encoded(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
    """Encodings of random bytes (with some escapes in lower case) cut to n
    bytes, possibly inside an escape ("random", "zeros", "ones"); the same with
    one damaged byte ("few"); printable bytes ("text"), where any `%` is likely
    bad."""
    if pattern == "text":
        return (values(rng, DataType.BYTES, n, "text"),)
    text = urllib.parse.quote_from_bytes(_source(rng, n, pattern), safe="").encode("ascii")
    if rng.random() < 0.5:
        text = re.sub(rb"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)
    text = text[:n]
    if pattern == "few":
        text = damaged(rng, text)
    return _u8(text)


def leb128_stream(encode: Callable[[np.ndarray], bytes]) -> Sampler:
    """Streams of values of every bit length (`encode`d) cut to n bytes
    (possibly inside a value), with one damaged byte ("few"); n zero bytes
    ("zeros"); n 0xFF bytes (overflow, "ones"); printable bytes (all
    terminators, "text")."""

    def sample(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
        if pattern in ("zeros", "ones", "text"):
            return (values(rng, DataType.BYTES, n, pattern),)
        bits = rng.integers(0, 33, n)
        words = (rng.integers(0, 2**32, n, dtype=np.uint64) >> (np.uint64(32) - bits.astype(np.uint64))).astype(np.uint32)
        stream = encode(words)[:n]
        if pattern == "few":
            stream = damaged(rng, stream)
        return _u8(stream)

    return sample


_CODE_POINTS = ((0x20, 0x7F), (0x80, 0x800), (0x800, 0xD800), (0xE000, 0x10000), (0x10000, 0x110000))
"""Ranges of code points of every UTF-8 length (no surrogates)."""


def utf8_text(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
    """Text of n bytes: random code points of every encoded length cut to n bytes
    (so it may end inside a sequence), with one damaged byte ("few"); NUL or
    0xFF bytes; or random bytes ("text")."""
    if pattern in ("zeros", "ones", "text"):
        return (values(rng, DataType.BYTES, n, "random" if pattern == "text" else pattern),)
    picks = [int(k) for k in rng.integers(0, len(_CODE_POINTS), n)]
    chars = "".join(chr(int(rng.integers(_CODE_POINTS[k][0], _CODE_POINTS[k][1]))) for k in picks)
    text = chars.encode("utf-8")[:n]
    if pattern == "few":
        text = damaged(rng, text)
    return _u8(text)


def text_bytes(rng: np.random.Generator, n: int) -> bytes:
    """n bytes of text-like data (words of a small vocabulary): literals and
    matches of every length and distance, as in real text."""
    vocabulary = [bytes(rng.integers(0x61, 0x7B, int(rng.integers(1, 9)), dtype=np.uint8)) for _ in range(64)]
    words = rng.integers(0, 64, n // 2 + 1)
    return b" ".join(vocabulary[int(w)] for w in words)[:n]


Compressor = Callable[[np.random.Generator], Callable[[bytes], bytes]]
"""rng -> a compressor with settings drawn from rng (data -> stream)."""


def _fit(stream: bytes, n: int, zero_fill: bool, rng: np.random.Generator) -> bytes:
    """The stream cut or filled to n bytes: zeros after a gzip member, anything
    after a zlib or raw stream."""
    if len(stream) > n:
        return stream[:n]
    if zero_fill:
        return stream + bytes(n - len(stream))
    return stream + bytes(rng.integers(0, 256, n - len(stream), dtype=np.uint8))


def compressed(compressor: Compressor, bare: bytes | None, zero_fill: bool) -> Sampler:
    """Input streams of exactly n bytes: content of the pattern ("random",
    "zeros", "ones"; "text": text-like words, `text_bytes`) compressed with
    settings drawn from rng, the content shrunk until the stream fits and the
    stream filled up to n (`zero_fill`: with zero bytes, else with random ones);
    "few": the same with one damaged byte. When not even empty content fits,
    `bare` (the empty content's shortest stream; None: the stream of the drawn
    settings) or its first n bytes (a truncated stream)."""

    def sample(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
        compress = compressor(rng)
        length = n if pattern in ("random", "few", "text") else 2 * n
        data = text_bytes(rng, length) if pattern == "text" else _source(rng, length, pattern)
        stream = compress(data)
        while len(stream) > n and length > 0:
            length = max(0, min(length - 1, (length * n) // max(1, len(stream))))
            stream = compress(data[:length])
        if len(stream) > n and bare is not None:
            stream = bare
        stream = _fit(stream, n, zero_fill, rng)
        if pattern == "few":
            stream = damaged(rng, stream)
        return _u8(stream)

    return sample
