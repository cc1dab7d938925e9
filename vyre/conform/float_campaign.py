"""Float campaigns: every strict float op checked bit for bit over whole input
spaces on a backend (L1f), against the reference interpreter's exact semantics.

A campaign runs one op of one format over an input space, in chunks:

- `exhaustive`: every input. 16-bit unary ops and conversions: 65,536 inputs;
  16-bit binary ops and F32 unary ops and conversions: all 2**32 inputs (operand
  patterns derived from the input index inside the kernel, nothing uploaded);
- `adversarial`: N seeded F32 inputs (pairs, triples) drawn to hit the hard
  cases (equal exponents, cancellation, ties, subnormal operands and results,
  overflow boundaries, exact products beside tiny addends, specials), generated
  on the host and uploaded.

The kernel is ordinary vyre IR: the op itself (`vyre.fadd`...) on the operand
patterns, lowered through the pipeline (so through `float-strict`, exactly as a
user's kernel). It does not read results back: each invocation loops over its
inputs and accumulates two independent 32-bit sums of a position-dependent mix of
(input index, result word); workgroups reduce them, the host adds the partial
sums. The host computes the same sums over the results of an exact oracle
that shares no code with the soft-float rewrite: fast exact numpy oracles where
one exists (`fast_oracle`: float32 comparisons, integer min/max keys, a float64
round-to-odd fma, 16-bit ops through float32 with one more rounding, integer
conversions), otherwise the reference interpreter's floats
(`vyre.runtime.interp.floats`); each fast oracle is tested against the
interpreter's. A chunk whose sums differ is run again with its results read
back, and its mismatching inputs are reported exactly. Two equal 64-bit sums of
mixed values let a mismatch through with probability about 2**-64 per chunk.

The host work runs in worker processes (`worker_pool`, every core), in pieces
of `PIECE` inputs: each piece generates its operands (written straight into a
shared buffer file for upload, for adversarial spaces), computes the oracle and
its sums. The next chunk's pieces run while the GPU checks the current one.
On 16 cores a 2**30-input adversarial campaign needs about 35-70 CPU ns per
input, i.e. a few seconds of host time (`python bench/float_campaigns.py
--host-profile`).

The oracle's sums of a chunk depend on the campaign, the chunk and the
checksum scheme (`CHECKSUM_SCHEME`) alone, so they can be stored once and
reused (`vyre.conform.float_truth`): a run given a `truth` takes each chunk's
expected sums from it and computes no oracle (an exhaustive space then has no
host work but the dispatch: its operands come from the input index in the
kernel, and `GANG` consecutive chunks share one dispatch); a chunk the truth
lacks is computed by the oracle (and handed to `save_truth`), and a chunk
whose sums differ is diffed against the oracle as in
any run, so its record is the one an oracle run writes (and a stored sum the
oracle contradicts is a `FloatTruthError`).

Chunks are recorded in an append-only JSONL checkpoint
(`vyre.conform.float_checkpoint`: locked, fsynced appends, every line
schema-checked on read), so a campaign can be sharded (`shard=(i, n)`),
restricted to the chunks of a range of inputs (`span=(first, count)`),
spread over the GPUs of a Dask cluster (`vyre.conform.float_dask`) and
resumed; `summary` merges a checkpoint.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vyre.conform.float_checkpoint import append_chunk, finished_starts, read_chunks
from vyre.conform.float_truth import Sums, Truth, TruthIdentity, TruthRecord
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr, Node, Program, float_op_expr
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.pipeline import Prepared, prepare
from vyre.runtime.interp import floats as oracle
from vyre.runtime.interp import functions

__all__ = [
    "CAMPAIGN_OPS",
    "CHECKSUM_SCHEME",
    "Campaign",
    "ChunkResult",
    "Kernels",
    "campaign_program",
    "chunks_of",
    "mix_sums",
    "oracle_description",
    "run_campaign",
    "run_chunks",
    "summary",
    "truth_identity",
    "worker_pool",
]

U32 = npt.NDArray[np.uint32]
WORKGROUP = 256
PER_INVOCATION = 64
"""Inputs per invocation: 16,384 per workgroup (every loop far below lavapipe's
65,535-iteration cap)."""
CHUNK = 1 << 24
"""Inputs per chunk (one dispatch of 1,024 workgroups)."""
GANG = 16
"""Chunks at most checked by one dispatch when none has host work (`_gang`):
16 chunks of 2**24 are 16,384 workgroups, below every adapter's 65,535 a
dimension."""
MIX_1 = 0x9E37_79B1
MIX_2 = 0x85EB_CA77
CHECKSUM_SCHEME = f"fmix32-pair/{MIX_1:08x}/{MIX_2:08x}/5bd1e995"
"""What a chunk's checksum is (`mix_sums`): the two wrapping u32 sums of murmur3's
fmix32 of (result ^ index * MIX_1) and of ((result + index * MIX_2) ^ 0x5BD1E995).
A stored truth (`float_truth`) names it; change it with the sums."""

def _family(op: type[d.FloatOp]) -> str:
    """How a campaign treats a float op class: which operands, what result word."""
    if issubclass(op, d.FCmpOp):
        return "compare"
    if issubclass(op, d.FmaOp):
        return "fma"
    if issubclass(op, d.ApproximateUnaryOp):
        return "approximate"
    if issubclass(op, d.FloatClassifyOp):
        return "predicate"
    return "unary" if op.ARITY == 1 else "binary"


FLOAT_OPS: dict[str, tuple[type[d.FloatOp], str]] = {
    variant or op.SHORT_NAME: (op, variant)
    for op in d.FLOAT_OPS
    for variant in d.float_op_variants(op)
}
"""Campaign op name (the op class's short name, a comparison's predicate) ->
(op class, variant): every float op of the dialect has a campaign."""

CAMPAIGN_OPS: dict[str, tuple[str, int]] = {
    **{name: (_family(op), op.ARITY) for name, (op, _) in FLOAT_OPS.items() if op in d.STRICT_FLOAT_OPS},
    **{f"to_{t}": ("convert", 1) for t in ("f32", "f16", "bf16", "u32", "i32")},
    **{f"from_{s}": ("convert_in", 1) for s in ("u32", "i32")},
    **{name: (_family(op), op.ARITY) for name, (op, _) in FLOAT_OPS.items() if op in d.APPROXIMATE_OPS},
}
"""Op name -> (family, arity). `to_X` converts the format to X; `from_u32` /
`from_i32` convert 32-bit integers to the format."""

_TYPES = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}


@dataclass(frozen=True)
class Campaign:
    """One op of one format over one input space."""

    op: str
    fmt: str
    space: str = "exhaustive"
    """`exhaustive` or `adversarial`."""
    count: int = 0
    """Inputs of an adversarial space (ignored for exhaustive)."""
    seed: int = 1

    def __post_init__(self) -> None:
        if self.op not in CAMPAIGN_OPS:
            raise ValueError(f"unknown campaign op {self.op!r}; one of {', '.join(CAMPAIGN_OPS)}")
        if self.fmt not in _TYPES:
            raise ValueError(f"unknown float format {self.fmt!r}; one of f32, f16, bf16")
        if self.space not in ("exhaustive", "adversarial"):
            raise ValueError(f"unknown input space {self.space!r}: exhaustive or adversarial")
        if self.space == "exhaustive" and self.operand_bits > 32:
            raise ValueError(
                f"{self.fmt} {self.op} has {self.operand_bits} input bits: not exhaustible;"
                " use space='adversarial'"
            )
        if self.space == "adversarial" and (self.fmt != "f32" or self.count <= 0):
            raise ValueError("an adversarial space is for f32 and needs count > 0")

    @property
    def family(self) -> str:
        return CAMPAIGN_OPS[self.op][0]

    @property
    def arity(self) -> int:
        return CAMPAIGN_OPS[self.op][1]

    @property
    def width(self) -> int:
        """Bits of one operand."""
        return 32 if self.fmt == "f32" or self.family == "convert_in" else 16

    @property
    def operand_bits(self) -> int:
        return self.width * self.arity

    @property
    def size(self) -> int:
        """Inputs in the space."""
        return 1 << self.operand_bits if self.space == "exhaustive" else self.count

    @property
    def indexed(self) -> bool:
        """Operands derived from the input index in the kernel (nothing uploaded)."""
        return self.space == "exhaustive"

    @property
    def name(self) -> str:
        return f"{self.fmt}.{self.op}.{self.space}" + (
            f".{self.count}.{self.seed}" if self.space == "adversarial" else ""
        )

    def chunks(self) -> list[tuple[int, int]]:
        """(start, length) of every chunk, in order."""
        return [(s, min(CHUNK, self.size - s)) for s in range(0, self.size, CHUNK)]


# ---------------------------------------------------------------------------
# Operands, the op, and the oracle
# ---------------------------------------------------------------------------


def operands_of(campaign: Campaign, k: U32) -> list[U32]:
    """The operand words of inputs `k` (exhaustive spaces)."""
    if campaign.arity == 1:
        return [k]
    return [k >> np.uint32(16), k & np.uint32(0xFFFF)]


_SPLITMIX = (0x9E37_79B9_7F4A_7C15, 0xD1B5_4A32_D192_ED03, 0xBF58_476D_1CE4_E5B9, 0x94D0_49BB_1331_11EB)


def _hash_words(seed: int, index: npt.NDArray[np.uint64], stream: int) -> U32:
    """A 32-bit word that depends only on (seed, input index, stream): splitmix64
    of 3 * index + stream (computed in place: this is the hot loop of the host)."""
    c1, c3, c4 = (np.uint64(_SPLITMIX[i]) for i in (0, 2, 3))
    z = index * np.uint64(3)
    z += np.uint64(stream)
    z *= c1
    z += np.uint64((seed * _SPLITMIX[1]) & 0xFFFF_FFFF_FFFF_FFFF)
    z ^= z >> np.uint64(30)
    z *= c3
    z ^= z >> np.uint64(27)
    z *= c4
    z ^= z >> np.uint64(31)
    z >>= np.uint64(32)
    return z.astype(np.uint32)


_SPECIALS = np.array(
    [0, 0x8000_0000, 1, 0x8000_0001, 0x007F_FFFF, 0x0080_0000, 0x3F80_0000, 0xBF80_0000,
     0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFC0_0001,
     0x7F80_0001, 0x3F00_0000],
    dtype=np.uint32,
)  # fmt: skip


def adversarial(campaign: Campaign, start: int, length: int) -> list[U32]:
    """The operands of inputs start..start+length of an adversarial f32 space:
    eight classes (input i in class i % 8), every word a function of (seed, i)
    alone, so any slice of the space can be generated on its own.

    0: random patterns; 1: equal exponents; 2: nearly equal magnitudes, both
    signs (cancellation); 3: exponent differences 0..40 (alignment shifts, sticky
    bits); 4: subnormal operands and results; 5: overflow and underflow
    boundaries of products and quotients; 6: short significands (exact products,
    ties) with tiny addends; 7: specials crossed with anything. fma: the addend
    is near -(a * b) for half of classes 0..3 (cancellation of the exact product).
    Each class is computed on its own strided slice."""
    index = np.arange(start, start + length, dtype=np.uint64)
    x, y, z = (_hash_words(campaign.seed, index, stream) for stream in range(3))
    a, b, c = x.copy(), y.copy(), z.copy()
    u = np.uint32
    exp_mask, frac_mask, sign = u(0x7F80_0000), u(0x007F_FFFF), u(0x8000_0000)

    def part(cls: int) -> slice:
        return slice((cls - start) % 8, None, 8)

    s = part(1)
    b[s] = (x[s] & (sign | exp_mask)) | (y[s] & frac_mask)
    s = part(2)
    b[s] = (x[s] ^ (y[s] & u(0x3F))) ^ (y[s] & sign)
    s = part(3)
    shifted = ((x[s] >> u(23) & u(0xFF)) - (y[s] % u(41))) & u(0xFF)
    b[s] = (y[s] & (sign | frac_mask)) | (shifted << u(23))
    s = part(4)
    a[s] = x[s] & u(0x80FF_FFFF)
    b[s] = (y[s] & u(0x807F_FFFF)) | u(0x3F00_0000)
    s = part(5)
    a[s] = u(0x7E00_0000) | (x[s] & u(0x80FF_FFFF))
    small = u(0x0100_0000) | (y[s] & u(0x80FF_FFFF))
    b[s] = np.where(z[s] & u(1), small, y[s] & u(0x80FF_FFFF) | u(0x3F80_0000))
    s = part(6)
    short = u(0xFFFF_E000 & 0x3FFF_FFFF)
    a[s] = x[s] & short | u(0x3F00_0000)
    b[s] = y[s] & short | u(0x3F00_0000)
    c[s] = (z[s] & u(0x80FF_FFFF)) | u(0x0C00_0000)
    s = part(7)
    a[s] = _SPECIALS[x[s] & u(15)]
    c[s] = np.where(y[s] & u(16), _SPECIALS[z[s] & u(15)], c[s])
    if campaign.family == "fma":
        for cls in range(4):
            s = part(cls)
            product = oracle.evaluate(d.FMulOp, "f32", a[s], b[s])
            near = (product ^ sign) ^ (z[s] & u(0xFF))
            c[s] = np.where((z[s] >> u(8)) & u(1), near, c[s])
    return [a, b, c][: campaign.arity]


def oracle_words(campaign: Campaign, operands: Sequence[U32]) -> U32:
    """The exact result words of the op: the fast exact oracles of this module
    where one exists (`fast_oracle`), else the reference interpreter's floats."""
    fast = fast_oracle(campaign, operands)
    return fast if fast is not None else interp_oracle(campaign, operands)


def interp_oracle(campaign: Campaign, operands: Sequence[U32]) -> U32:
    """The exact result words of the op (the reference interpreter's floats)."""
    fmt, op = campaign.fmt, campaign.op
    found = FLOAT_OPS.get(op)
    if found is not None:
        op_class, variant = found
        return oracle.evaluate(op_class, fmt, *operands, variant=variant)
    match campaign.family:
        case "convert":
            target = op.removeprefix("to_")
            return np.asarray(oracle.convert(fmt, target, operands[0]), dtype=np.uint32)
        case _:
            source = op.removeprefix("from_")
            return np.asarray(oracle.convert(source, fmt, operands[0]), dtype=np.uint32)


def oracle_description(campaign: Campaign) -> str:
    """Which exact oracle computes the campaign's results (`oracle_words`), in words."""
    if fast_oracle(campaign, [np.zeros(1, dtype=np.uint32)] * campaign.arity) is not None:
        return "vyre.conform.float_campaign.fast_oracle (exact numpy)"
    if campaign.op in functions.FUNCTIONS:
        return "vyre.runtime.interp.functions (float64, a guard band, MPFR)"
    return "vyre.runtime.interp.floats (exact)"


def truth_identity(campaign: Campaign) -> TruthIdentity:
    """What a stored truth must match to serve `campaign` (`float_truth`)."""
    return TruthIdentity(campaign.name, CHECKSUM_SCHEME)


# Fast exact oracles for the big campaigns. Each shares no code with the
# soft-float rewrite; each is tested against the interpreter's oracle
# (test/unit/conform/test_float_campaign.py).

_F32_NAN = np.uint32(0x7FC0_0000)
_F32_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}  # fmt: skip
_F32_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
}  # fmt: skip


def _widening_table(fmt: str) -> npt.NDArray[np.float32]:
    """The float32 value of every 16-bit pattern of `fmt` (exact)."""
    table = _TABLES.get(fmt)
    if table is None:
        words = oracle.convert(fmt, "f32", np.arange(1 << 16, dtype=np.uint32))
        table = _TABLES[fmt] = np.asarray(words, dtype=np.uint32).view(np.float32)
    return table


_TABLES: dict[str, npt.NDArray[np.float32]] = {}


def _f32_fma(a: U32, b: U32, c: U32) -> U32:
    """a * b + c rounded once: the float64 product is exact (48 bits), the sum
    is rounded to odd (TwoSum error term; an inexact sum with an even last bit
    steps one unit toward the exact value), and float64 -> float32 rounds to
    nearest even, which is then the one correct rounding (53 >= 24 + 2)."""
    x, y, z = (w.view(np.float32).astype(np.float64) for w in (a, b, c))
    with np.errstate(all="ignore"):
        p = x * y
        s = p + z
        t = s - p
        err = (p - (s - t)) + (z - t)
        bits = s.view(np.uint64)
        fix = (err != 0) & ((bits & np.uint64(1)) == 0) & np.isfinite(s)
        toward = np.where(np.signbit(err) == np.signbit(s), np.uint64(1), np.uint64(0xFFFF_FFFF_FFFF_FFFF))
        bits += np.where(fix, toward, np.uint64(0))
        r = s.astype(np.float32)
    out = r.view(np.uint32)
    out[np.isnan(r)] = _F32_NAN
    return out


def _f32_min_max(op: str, a: U32, b: U32) -> U32:
    """minimumNumber / maximumNumber on int32 keys of the total order (-0 < +0)."""
    ia, ib = a.view(np.int32), b.view(np.int32)
    ka = ia ^ ((ia >> np.int32(31)) & np.int32(0x7FFF_FFFF))
    kb = ib ^ ((ib >> np.int32(31)) & np.int32(0x7FFF_FFFF))
    na = (a & np.uint32(0x7FFF_FFFF)) > np.uint32(0x7F80_0000)
    nb = (b & np.uint32(0x7FFF_FFFF)) > np.uint32(0x7F80_0000)
    pick_a = (ka <= kb) if op == "min" else (ka >= kb)
    out = np.where((pick_a & ~na) | nb, a, b)
    out[na & nb] = _F32_NAN
    return out


def _to_f16(r: npt.NDArray[np.float32]) -> U32:
    """float32 values rounded to nearest even in binary16 (NaN canonical): in
    the normal range by the carry trick on the pattern (rounding at bit 13,
    exponent rebiased, overflow to inf); below 2**-14 as rint(|r| * 2**24)
    units of the smallest subnormal (the scaling is exact). numpy's own
    float16 conversion is slow for subnormals."""
    u = np.uint32
    bits = r.view(u)
    sign = (bits >> u(16)) & u(0x8000)
    magnitude = bits & u(0x7FFF_FFFF)
    with np.errstate(all="ignore"):
        rebased = magnitude - u((127 - 15) << 23)  # wraps below 2**-14: not used there
        normal = np.minimum((rebased + u(0xFFF) + ((magnitude >> u(13)) & u(1))) >> u(13), u(0x7C00))
        subnormal = np.rint(np.abs(r) * np.float32(2.0**24)).astype(u)
    out = np.where(magnitude < u((127 - 14) << 23), subnormal, normal) | sign
    out[magnitude > u(0x7F80_0000)] = u(0x7E00)
    return out


def _narrow(fmt: str, r: npt.NDArray[np.float32]) -> U32:
    """float32 results rounded to nearest even in `fmt`, NaN canonical."""
    if fmt == "f16":
        return _to_f16(r)
    bits = r.view(np.uint32)
    out = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    out[np.isnan(r)] = np.uint32(0x7FC0)
    return out


def _from_integers(fmt: str, signed: bool, x: U32) -> U32:
    """u32/i32 words rounded once to `fmt`: float32 by numpy's conversion;
    float16 from the value clamped to +-65520 (exact in float32; it and all
    beyond round to inf) by `_to_f16`; bfloat16 from the exact float64 value,
    rounding its pattern at the 8th significand bit."""
    values = x.view(np.int32) if signed else x
    if fmt == "f32":
        return values.astype(np.float32).view(np.uint32)
    if fmt == "f16":  # |x| >= 65520 (the midpoint above the largest finite) is inf
        clamped = np.clip(values.astype(np.int64), -65520, 65520).astype(np.float32)  # exact
        return _to_f16(clamped)
    bits = values.astype(np.float64).view(np.uint64)  # exact
    rounded = (bits + np.uint64((1 << 44) - 1) + ((bits >> np.uint64(45)) & np.uint64(1))) >> np.uint64(45)
    sign = (rounded >> np.uint64(18)) << np.uint64(15)  # the float64 sign bit, now at bit 18
    magnitude = rounded & np.uint64(0x3_FFFF)  # 11 exponent bits, 7 fraction bits
    bf16 = np.where(magnitude == 0, 0, magnitude - np.uint64((1023 - 127) << 7)) | sign
    return bf16.astype(np.uint32)


def fast_oracle(campaign: Campaign, operands: Sequence[U32]) -> U32 | None:
    """Exact result words by fast exact means, or None (use `interp_oracle`):

    - F32 comparisons: float32 comparisons (exact; NaN unordered, -0 == +0);
    - F32 min/max: integer keys of the total order;
    - F32 fma: float64 product, round-to-odd sum, one rounding to float32;
    - F16/BF16 comparisons and add/sub/mul/div: the operands widened exactly to
      float32 (a table), compared, or combined with float32 arithmetic and
      rounded once more to the format: innocuous double rounding (float32 carries
      at least twice the format's precision plus two bits; confirmed over all
      2**32 pairs of each op on the H100);
    - u32/i32 to a format: one rounding from the exact value (`_from_integers`);
    - F32 to F16: one rounding (`_to_f16`)."""
    fmt, op, family = campaign.fmt, campaign.op, campaign.family
    with np.errstate(all="ignore"):
        if family == "convert_in":
            return _from_integers(fmt, op == "from_i32", operands[0])
        if family == "convert" and fmt == "f32" and op == "to_f16":
            return _narrow("f16", operands[0].view(np.float32))
        if fmt == "f32":
            if family == "compare":
                a, b = (w.view(np.float32) for w in operands)
                return _F32_COMPARE[op](a, b).astype(np.uint32)
            if family == "binary" and op in ("min", "max"):
                return _f32_min_max(op, operands[0], operands[1])
            if family == "fma":
                return _f32_fma(operands[0], operands[1], operands[2])
            return None
        if family not in ("compare", "binary") or (family == "binary" and op not in _F32_ARITH):
            return None
        table = _widening_table(fmt)
        a, b = table[operands[0]], table[operands[1]]
        if family == "compare":
            return _F32_COMPARE[op](a, b).astype(np.uint32)
        return _narrow(fmt, _F32_ARITH[op](a, b))


def op_expr(campaign: Campaign, words: Sequence[Expr]) -> Expr:
    """The op under test on operand words, as a u32 word (vyre IR)."""
    ty = _TYPES[campaign.fmt]

    def value(word: Expr) -> Expr:
        return E.bitcast(ty, word)

    op = campaign.op
    found = FLOAT_OPS.get(op)
    if found is not None:
        op_class, variant = found
        result = float_op_expr(op_class, [value(w) for w in words], variant)
        if op_class.RESULT is not None:
            return E.cast(DataType.U32, result)  # a bool: its 0/1 word
        return E.bitcast(DataType.U32, result)
    match campaign.family:
        case "convert":
            target = op.removeprefix("to_")
            to = _TYPES.get(target, DataType.U32 if target == "u32" else DataType.I32)
            return E.bitcast(DataType.U32, E.cast(to, value(words[0])))
        case _:
            source = DataType.U32 if op == "from_u32" else DataType.I32
            operand = words[0] if source is DataType.U32 else E.bitcast(DataType.I32, words[0])
            return E.bitcast(DataType.U32, E.cast(ty, operand))


# ---------------------------------------------------------------------------
# The position-dependent sums
# ---------------------------------------------------------------------------


def _fmix(x: U32) -> U32:
    """murmur3's fmix32, in place on `x` (a fresh array)."""
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x85EB_CA6B)
    x ^= x >> np.uint32(13)
    x *= np.uint32(0xC2B2_AE35)
    x ^= x >> np.uint32(16)
    return x


def mix_sums(k: U32, r: U32) -> tuple[int, int]:
    """The two wrapping u32 sums of mixed (index, result) pairs the kernel computes."""
    with np.errstate(over="ignore"):
        s1 = _fmix(r ^ (k * np.uint32(MIX_1)))
        t = k * np.uint32(MIX_2)
        t += r
        t ^= np.uint32(0x5BD1_E995)
        s2 = _fmix(t)
    return int(s1.sum(dtype=np.uint64) & 0xFFFF_FFFF), int(s2.sum(dtype=np.uint64) & 0xFFFF_FFFF)


def _fmix_nodes(name: str, value: Expr) -> tuple[list[Node], Expr]:
    """fmix32 of `value` as let statements (each stage bound once)."""
    stages: list[Node] = []
    x = value
    steps: list[Callable[[Expr], Expr]] = [
        lambda v: E.bitxor(v, E.shr(v, E.u32(16))),
        lambda v: E.mul(v, E.u32(0x85EB_CA6B)),
        lambda v: E.bitxor(v, E.shr(v, E.u32(13))),
        lambda v: E.mul(v, E.u32(0xC2B2_AE35)),
        lambda v: E.bitxor(v, E.shr(v, E.u32(16))),
    ]
    for index, step in enumerate(steps):
        local = f"{name}{index}"
        stages.append(N.let(local, step(x)))
        x = E.var(local)
    return stages, x


def _workgroup_sums() -> list[Node]:
    """Each invocation's two sums into the tile, a tree reduction over the
    workgroup, and the workgroup's two sums stored at `out[2 * group]`."""
    lane = E.local_id(0)
    body: list[Node] = [
        N.store("tile", E.mul(lane, E.u32(2)), E.var("h1")),
        N.store("tile", E.add(E.mul(lane, E.u32(2)), E.u32(1)), E.var("h2")),
        N.barrier(),
    ]
    stride = WORKGROUP // 2
    while stride >= 1:
        partner = E.mul(E.add(lane, E.u32(stride)), E.u32(2))
        mine = E.mul(lane, E.u32(2))
        body += [
            N.if_(
                E.lt(lane, E.u32(stride)),
                [
                    N.store("tile", mine, E.add(E.load("tile", mine), E.load("tile", partner))),
                    N.store(
                        "tile",
                        E.add(mine, E.u32(1)),
                        E.add(E.load("tile", E.add(mine, E.u32(1))), E.load("tile", E.add(partner, E.u32(1)))),
                    ),
                ],
            ),
            N.barrier(),
        ]
        stride //= 2
    group = E.workgroup_id(0)
    body.append(
        N.if_(
            E.eq(lane, E.u32(0)),
            [
                N.store("out", E.mul(group, E.u32(2)), E.load("tile", E.u32(0))),
                N.store("out", E.add(E.mul(group, E.u32(2)), E.u32(1)), E.load("tile", E.u32(1))),
            ],
        )
    )
    return body


def campaign_program(campaign: Campaign, readback: bool = False) -> Program:
    """The kernel of one chunk. Uniform `params` = [first index of the chunk,
    inputs in the chunk]. With `readback`, each input's result word is stored in
    `out` instead (results of one chunk, read back to find mismatches)."""
    buffers = [BufferDecl.uniform("params", 0, DataType.U32)]
    if not campaign.indexed:
        buffers += [BufferDecl.read(f"in{j}", 1 + j, DataType.U32) for j in range(campaign.arity)]
    buffers.append(BufferDecl.read_write("out", 4, DataType.U32))
    if not readback:
        buffers.append(BufferDecl.workgroup("tile", 2 * WORKGROUP, DataType.U32))
    i, k = E.var("i"), E.var("k")
    if campaign.indexed:
        if campaign.arity == 1:
            words = [k]
        else:
            words = [E.shr(k, E.u32(16)), E.bitand(k, E.u32(0xFFFF))]
    else:
        words = [E.load(f"in{j}", i) for j in range(campaign.arity)]
    element: list[Node] = [
        N.let("k", E.add(E.load("params", E.u32(0)), i)),
        N.let("r", op_expr(campaign, words)),
    ]
    if readback:
        element.append(N.store("out", i, E.var("r")))
    else:
        mixed1, h1 = _fmix_nodes("m", E.bitxor(E.var("r"), E.mul(k, E.u32(MIX_1))))
        mixed2, h2 = _fmix_nodes(
            "n", E.bitxor(E.add(E.var("r"), E.mul(k, E.u32(MIX_2))), E.u32(0x5BD1_E995))
        )
        element += [*mixed1, *mixed2, N.assign("h1", E.add(E.var("h1"), h1)), N.assign("h2", E.add(E.var("h2"), h2))]
    body: list[Node] = [
        N.let("g", E.gid_x()),
        N.let("h1", E.u32(0)),
        N.let("h2", E.u32(0)),
        N.loop(
            "j",
            E.u32(0),
            E.u32(PER_INVOCATION),
            [
                N.let("i", E.add(E.mul(E.var("g"), E.u32(PER_INVOCATION)), E.var("j"))),
                N.if_(E.lt(E.var("i"), E.load("params", E.u32(1))), element),
            ],
        ),
    ]
    if not readback:
        body += _workgroup_sums()
    return Program(buffers, (WORKGROUP, 1, 1), body, name=f"campaign_{campaign.fmt}_{campaign.op}")


def _partial_sums(partial: U32) -> Sums:
    """The two sums of a chunk from its workgroups' partial sums (pairs)."""
    return (
        int(partial[0::2].sum(dtype=np.uint64) & 0xFFFF_FFFF),
        int(partial[1::2].sum(dtype=np.uint64) & 0xFFFF_FFFF),
    )


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkResult:
    campaign: str
    start: int
    length: int
    mismatches: int
    first: list[list[int]]
    """Up to 8 mismatching inputs: [operands..., got, want]."""
    seconds: float
    device: str = ""
    """The device the chunk ran on (`campaign_evidence.backend_device`; "" when
    the chunk is host work only, or unrecorded)."""

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "campaign": self.campaign, "start": self.start, "length": self.length,
            "mismatches": self.mismatches, "first": self.first, "seconds": round(self.seconds, 3),
        }  # fmt: skip
        if self.device:
            record["device"] = self.device
        return record


def _groups(length: int) -> int:
    return -(-length // (WORKGROUP * PER_INVOCATION))


PIECE = 1 << 18
"""Inputs per host task: a chunk's operand generation, oracle and sums are
split into pieces of this size over the worker processes."""


Memory = np.memmap[Any, np.dtype[np.uint32]]


def _memory(path: str | None, arity: int, capacity: int) -> Memory | None:
    """The (arity, capacity) operand array of a chunk buffer file, mapped."""
    if path is None:
        return None
    return np.memmap(path, dtype=np.uint32, mode="r+", shape=(arity, capacity))


@dataclass(frozen=True)
class _Piece:
    """A host task: inputs start..start+length of a chunk. For an uploaded
    (adversarial) space the operands go to the chunk buffer file at `path`
    (capacity inputs an operand), at `offset`; `oracle`: compute the oracle's sums
    too (not when a stored truth gives the chunk's)."""

    campaign: Campaign
    start: int
    length: int
    path: str | None = None
    offset: int = 0
    capacity: int = 0
    oracle: bool = True


def _host_piece(piece: _Piece) -> Sums | None:
    """The oracle's two sums over the piece's inputs (None without `oracle`),
    its operands written to the chunk buffer file for an uploaded space."""
    campaign, start, length = piece.campaign, piece.start, piece.length
    k = np.arange(start, start + length, dtype=np.uint64).astype(np.uint32)
    if campaign.indexed:
        operands = operands_of(campaign, k)
    else:
        operands = adversarial(campaign, start, length)
        memory = _memory(piece.path, campaign.arity, piece.capacity)
        if memory is not None:
            for j, operand in enumerate(operands):
                memory[j, piece.offset : piece.offset + length] = operand
            memory.flush()
    if not piece.oracle:
        return None
    return mix_sums(k, oracle_words(campaign, operands))


def _pieces(start: int, length: int, size: int = PIECE) -> list[tuple[int, int]]:
    return [(s, min(size, start + length - s)) for s in range(start, start + length, size)]


def _add_sums(results: Iterable[Sums | None]) -> Sums:
    s1 = s2 = 0
    for sums in results:
        if sums is None:
            raise ValueError("a host piece computed no oracle sums")
        s1, s2 = (s1 + sums[0]) & 0xFFFF_FFFF, (s2 + sums[1]) & 0xFFFF_FFFF
    return s1, s2


class Kernels:
    """A campaign's kernels, prepared once for a run of many chunks: `sums` (every
    chunk) and `readback` (a chunk whose sums differ; prepared at first use)."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        self.sums: Prepared = prepare(campaign_program(campaign))

    @functools.cached_property
    def readback(self) -> Prepared:
        return prepare(campaign_program(self.campaign, readback=True))


def _run(backend: str, prepared: Prepared, words: dict[str, np.ndarray], groups: int, out: int) -> U32:
    from vyre.runtime.interp import execute as interp_execute

    words = {**words, "out": np.zeros(out, dtype=np.uint32)}
    if backend == "interp":
        return interp_execute(prepared, words, (groups, 1, 1))["out"]
    from vyre.runtime.wgpu_backend import execute

    return execute(prepared, words, (groups, 1, 1))["out"]


class _Stage:
    """The host side of one chunk in flight: its pieces submitted to the pool
    (or computed at once without one). An uploaded (adversarial) space needs
    a buffer file (`_buffers`) with a pool: the workers write the operands
    there; without a pool they are generated here. With the chunk's `stored`
    sums (a truth) the oracle is left out: an exhaustive chunk has no host work
    at all, an uploaded one its operands alone."""

    def __init__(
        self, campaign: Campaign, start: int, length: int, path: str | None, pool: Any, stored: Sums | None = None
    ) -> None:
        self.campaign, self.start, self.length, self.path = campaign, start, length, path
        self.stored = stored
        self.operands: list[U32] = []
        if pool is not None and not campaign.indexed and path is None:
            raise ValueError("an uploaded space computed by a pool needs a buffer file")
        self.capacity = CHUNK if path is not None else length
        self._pending: AsyncResult[list[Sums | None]] | None = None
        self._sums = stored if stored is not None else (0, 0)
        if pool is None:
            self._compute_here()
        elif stored is None or not campaign.indexed:
            oracle = stored is None
            pieces = [_Piece(campaign, s, n, path, s - start, self.capacity, oracle) for s, n in _pieces(start, length)]
            self._pending = pool.map_async(_host_piece, pieces, chunksize=1)

    def _compute_here(self) -> None:
        campaign, start, length = self.campaign, self.start, self.length
        if not campaign.indexed:
            self.operands = adversarial(campaign, start, length)
            if self.stored is None:
                k = np.arange(start, start + length, dtype=np.uint64).astype(np.uint32)
                self._sums = mix_sums(k, oracle_words(campaign, self.operands))
        elif self.stored is None:
            self._sums = _add_sums(_host_piece(_Piece(campaign, s, n)) for s, n in _pieces(start, length))

    def sums(self) -> Sums:
        """The chunk's expected sums, stored or the oracle's (waits for the pieces)."""
        if self._pending is not None:
            pieces, self._pending = self._pending.get(), None
            if self.stored is None:
                self._sums = _add_sums(pieces)
        return self._sums

    def words(self) -> dict[str, np.ndarray]:
        """The kernel's inputs of the chunk (call after `sums`)."""
        words: dict[str, np.ndarray] = {"params": np.array([self.start, self.length], dtype=np.uint32)}
        if self.campaign.indexed:
            return words
        memory = _memory(self.path, self.campaign.arity, self.capacity)
        operands = [memory[j, : self.length] for j in range(self.campaign.arity)] if memory is not None else self.operands
        for j, operand in enumerate(operands):
            words[f"in{j}"] = np.asarray(operand)
        return words


@contextlib.contextmanager
def _buffers(campaign: Campaign, count: int, pool: Any) -> Generator[list[str | None]]:
    """`count` chunk buffer files for the operands of an uploaded space computed
    by a pool (`_scratch`), removed after."""
    if pool is None or campaign.indexed:
        yield [None] * count
        return
    size = count * campaign.arity * CHUNK * 4
    with tempfile.TemporaryDirectory(prefix="vyre-floats-", dir=_scratch(size)) as scratch:
        paths: list[str | None] = []
        for n in range(count):
            path = str(Path(scratch) / f"operands{n}.u32")
            np.memmap(path, dtype=np.uint32, mode="w+", shape=(campaign.arity, CHUNK)).flush()
            paths.append(path)
        yield paths


def _device(backend: str) -> str:
    """The device chunks run on `backend` record (`ConformBackend.device`)."""
    from vyre.conform.backends import backend_named

    return backend_named(backend).device()


def _check(
    stage: _Stage, backend: str, began: float, kernels: Kernels, device: str = "", truth: Truth | None = None
) -> ChunkResult:
    """Run the chunk's kernel and compare its sums with the expected ones; on a
    difference, read the results back and name the inputs where they differ
    from the oracle's (whose sums must then be the stored ones: `Truth.check`)."""
    campaign, start, length = stage.campaign, stage.start, stage.length
    groups = _groups(length)
    want = stage.sums()
    words = stage.words()
    got = _partial_sums(_run(backend, kernels.sums, words, groups, 2 * groups))
    if got == want:
        return ChunkResult(campaign.name, start, length, 0, [], time.perf_counter() - began, device)
    results = _run(backend, kernels.readback, words, groups, length)
    k = np.arange(start, start + length, dtype=np.uint64).astype(np.uint32)
    operands = operands_of(campaign, k) if campaign.indexed else [words[f"in{j}"] for j in range(campaign.arity)]
    expected = oracle_words(campaign, operands)
    if stage.stored is not None and truth is not None:
        truth.check(start, length, mix_sums(k, expected))
    bad = np.flatnonzero(results != expected)
    first = [[*(int(o[i]) for o in operands), int(results[i]), int(expected[i])] for i in bad[:8]]
    return ChunkResult(campaign.name, start, length, len(bad), first, time.perf_counter() - began, device)


def _gang(campaign: Campaign, chunks: Sequence[tuple[int, int]], stored: Sequence[Sums | None], n: int) -> int:
    """How many chunks from `chunks[n]` on one dispatch checks (1: the chunk alone).
    A gang is up to `GANG` consecutive chunks with no host work (an exhaustive
    space whose stored sums the truth gives), each starting where the one before
    ends and each but the last a whole number of workgroups long, so every
    workgroup's partial sums belong to one chunk. One submission and one
    read-back then serve the gang instead of each chunk."""
    if not campaign.indexed:
        return 1
    per_group = WORKGROUP * PER_INVOCATION
    count, end = 0, chunks[n][0]
    while n + count < len(chunks) and count < GANG and stored[n + count] is not None:
        start, length = chunks[n + count]
        if start != end:
            break
        count, end = count + 1, start + length
        if length % per_group:
            break
    return max(count, 1)


def _submit_sums(backend: str, prepared: Prepared, params: U32, groups: int) -> Callable[[], U32]:
    """The sums kernel over `groups` workgroups submitted now; the returned call
    waits for its partial sums (2 words a workgroup) and reads them back. On wgpu
    the call can come after the next submission, so the GPU runs the next gang
    while this one's read-back is waited for (the interpreter runs it at once)."""
    if backend == "interp":
        partial = _run(backend, prepared, {"params": params}, groups, 2 * groups)
        return lambda: partial
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import Resident, gpu_device

    gpu = gpu_device()
    out = Resident.allocate(gpu, 2 * groups)  # every workgroup writes its two words
    bound = {"params": Resident.upload_uniform(gpu, params), "out": out}
    wgpu_backend.run_steps([(prepared, bound, (groups, 1, 1))])
    return out.read


class _Gang:
    """A gang (`_gang`) in flight: its one dispatch submitted when it is made,
    its chunks compared when `finish` reads the partial sums back."""

    def __init__(
        self,
        campaign: Campaign,
        chunks: Sequence[tuple[int, int]],
        stored: Sequence[Sums],
        backend: str,
        kernels: Kernels,
        device: str = "",
        truth: Truth | None = None,
    ) -> None:
        self.campaign, self.chunks, self.stored = campaign, list(chunks), list(stored)
        self.backend, self.kernels, self.device, self.truth = backend, kernels, device, truth
        self.began = time.perf_counter()
        first, total = self.chunks[0][0], sum(length for _, length in self.chunks)
        params = np.array([first, total], dtype=np.uint32)
        self._partial = _submit_sums(backend, kernels.sums, params, _groups(total))

    def finish(self) -> list[ChunkResult]:
        """Each chunk's sums from its own workgroups' partial sums; a chunk whose
        sums differ is checked again alone (`_check`: its results read back and
        diffed against the oracle). A chunk's seconds are its share of the
        gang's, from the submission to the read-back."""
        partial = self._partial()
        seconds = (time.perf_counter() - self.began) / len(self.chunks)
        results: list[ChunkResult] = []
        group = 0
        for (start, length), want in zip(self.chunks, self.stored, strict=True):
            count = _groups(length)
            got = _partial_sums(partial[2 * group : 2 * (group + count)])
            group += count
            if got == want:
                results.append(ChunkResult(self.campaign.name, start, length, 0, [], seconds, self.device))
                continue
            stage = _Stage(self.campaign, start, length, None, None, want)
            results.append(_check(stage, self.backend, time.perf_counter(), self.kernels, self.device, self.truth))
        return results


def run_chunk(campaign: Campaign, start: int, length: int, backend: str, pool: Any = None) -> ChunkResult:
    """One chunk on its own (no overlap): the kernel's sums against the oracle's."""
    began = time.perf_counter()
    device = _device(backend)
    with _buffers(campaign, 1, pool) as (path,):
        return _check(_Stage(campaign, start, length, path, pool), backend, began, Kernels(campaign), device)


def chunks_of(
    campaign: Campaign,
    *,
    shard: tuple[int, int] = (0, 1),
    span: tuple[int, int] | None = None,
    done: Collection[int] = (),
) -> list[tuple[int, int]]:
    """The chunks (start, length) a run of `campaign` covers, in order: those of
    shard I of N (chunk n belongs to shard n % N) that meet `span` (first input,
    count; None: the whole space), less those whose start is in `done`. A span
    runs whole chunks (`CHUNK` inputs), the same chunks a run of the whole space
    checks, so their records count towards it."""
    index, count = shard
    if span is not None:
        first, length = span
        if first < 0 or length <= 0 or first + length > campaign.size:
            raise ValueError(
                f"the range {first:#x}:{length:#x} must hold at least one input of {campaign.name},"
                f" within 0..{campaign.size:#x}"
            )
    chunks: list[tuple[int, int]] = []
    for n, (start, length) in enumerate(campaign.chunks()):
        if n % count != index or start in done:
            continue
        if span is not None and (start + length <= span[0] or start >= span[0] + span[1]):
            continue
        chunks.append((start, length))
    return chunks


def run_campaign(
    campaign: Campaign,
    backend: str = "wgpu",
    *,
    checkpoint: Path | None = None,
    shard: tuple[int, int] = (0, 1),
    span: tuple[int, int] | None = None,
    jobs: int | None = None,
    progress: Callable[[ChunkResult], None] | None = None,
    pool: Any = None,
    truth: Truth | None = None,
    save_truth: Callable[[TruthRecord], None] | None = None,
) -> Iterator[ChunkResult]:
    """Run (the shard of) a campaign's chunks not yet in `checkpoint` (those
    that meet `span` when given: `chunks_of`); each chunk's result is appended
    to the checkpoint as it completes (`run_chunks`, which also says what
    `truth` and `save_truth` do)."""
    done = finished_starts(checkpoint, campaign.name)
    todo = chunks_of(campaign, shard=shard, span=span, done=done)
    yield from run_chunks(
        campaign, todo, backend, checkpoint=checkpoint, jobs=jobs, progress=progress, pool=pool,
        truth=truth, save_truth=save_truth,
    )  # fmt: skip


def run_chunks(
    campaign: Campaign,
    chunks: Sequence[tuple[int, int]],
    backend: str = "wgpu",
    *,
    checkpoint: Path | None = None,
    jobs: int | None = None,
    progress: Callable[[ChunkResult], None] | None = None,
    pool: Any = None,
    truth: Truth | None = None,
    save_truth: Callable[[TruthRecord], None] | None = None,
    kernels: Kernels | None = None,
) -> Iterator[ChunkResult]:
    """Check `chunks` in order; each chunk's result is appended to `checkpoint`
    (when given) as it completes.

    With `jobs` > 1 (default: every core) or a `pool` (`worker_pool`, to share
    one between campaigns) the host work (operands, oracle, sums) runs in worker
    processes, piece by piece, and the next chunk's host work proceeds while
    this chunk's kernel runs (uploaded operands go through two buffer files the
    workers write).

    With a `truth` (`float_truth.load_truth`) a chunk it holds takes its expected
    sums from it, and no oracle is computed for it (an exhaustive campaign whose
    chunks are all stored starts no pool); the chunks it lacks are computed by
    the oracle, and each oracle-computed chunk's sums go to `save_truth` (a
    `float_truth.TruthWriter`'s `add`). Consecutive chunks with no host work at
    all (stored, of an exhaustive space) are checked `GANG` at a time by one
    dispatch (`_gang`), each still recorded as a chunk of its own, the next
    gang submitted before the last one's partial sums are read back. `kernels`:
    the campaign's prepared kernels, when the caller keeps them between runs."""
    todo = list(chunks)
    jobs = jobs or os.cpu_count() or 1
    if not todo:
        return
    stored = [truth.expected(start, length) if truth is not None else None for start, length in todo]
    host_work = not campaign.indexed or None in stored
    parallel = pool is not None or (jobs > 1 and host_work)
    device = _device(backend)
    with _NoPool(pool) if pool is not None or not parallel else worker_pool(jobs) as pool:
        with _buffers(campaign, 2, pool) as paths:

            def stage(n: int) -> _Stage:
                start, length = todo[n]
                return _Stage(campaign, start, length, paths[n % 2], pool, stored[n])

            began = time.perf_counter()
            current = stage(0)
            kernels = kernels or Kernels(campaign)  # prepared while the pool computes the first chunk
            following: _Stage | None = None
            n = 0
            flying: _Gang | None = None  # a gang whose results come after the next submission

            def record(result: ChunkResult) -> ChunkResult:
                if checkpoint is not None:
                    append_chunk(checkpoint, result.to_json())
                if progress is not None:
                    progress(result)
                return result

            try:
                while n < len(todo):
                    size = _gang(campaign, todo, stored, n)
                    following = stage(n + size) if n + size < len(todo) else None
                    launched: _Gang | None = None
                    if size > 1:  # submitted before the gang in flight is read back
                        gang = [sums for sums in stored[n : n + size] if sums is not None]
                        launched = _Gang(campaign, todo[n : n + size], gang, backend, kernels, device, truth)
                    landed = flying.finish() if flying is not None else []
                    flying = launched
                    for result in landed:
                        yield record(result)
                    if size == 1:
                        result = _check(current, backend, began, kernels, device, truth)
                        if save_truth is not None and current.stored is None:
                            save_truth(TruthRecord(campaign.name, result.start, result.length, current.sums()))
                        yield record(result)
                    began = time.perf_counter()
                    n += size
                    if following is not None:
                        current, following = following, None
                if flying is not None:
                    landed, flying = flying.finish(), None
                    for result in landed:
                        yield record(result)
            finally:
                if following is not None:  # stopped early: let its pieces finish before the files go
                    following.sums()


def _scratch(size: int) -> str | None:
    """Where `size` bytes of chunk buffer files go: /dev/shm (memory-backed) when
    it has room to spare (a full tmpfs would kill the workers with SIGBUS), else
    the default temporary directory (the page cache keeps it in memory too)."""
    try:
        if shutil.disk_usage("/dev/shm").free >= 2 * size:
            return "/dev/shm"
    except OSError:
        pass
    return None


def worker_pool(jobs: int | None = None) -> Any:
    """A pool of `jobs` worker processes (default: every core) for
    `run_campaign(pool=...)`; use it as a context manager. Workers are spawned,
    never forked (the parent may hold a GPU device)."""
    context = multiprocessing.get_context("spawn")
    return context.Pool(jobs or os.cpu_count() or 1)


class _NoPool:
    """A context manager handing out a pool owned by someone else (or none)."""

    def __init__(self, pool: Any = None) -> None:
        self.pool = pool

    def __enter__(self) -> Any:
        return self.pool

    def __exit__(self, *exc: object) -> None:
        return None


def summary(checkpoint: Path) -> dict[str, dict[str, Any]]:
    """Per campaign: inputs checked, mismatches, chunks, seconds, first
    mismatches; each recorded chunk counted once (`float_checkpoint.read_chunks`:
    a line that is not a chunk record is a `FloatCheckpointError`). The chunks
    are taken in input order, whatever order they were recorded in (a sharded
    or distributed run appends them as they finish), so the first mismatches are
    those of the lowest inputs."""
    totals: dict[str, dict[str, Any]] = {}
    for entry in sorted(read_chunks(checkpoint), key=lambda record: record["start"]):
        row = totals.setdefault(entry["campaign"], {"inputs": 0, "mismatches": 0, "chunks": 0, "seconds": 0.0, "first": []})
        row["inputs"] += entry["length"]
        row["mismatches"] += entry["mismatches"]
        row["chunks"] += 1
        row["seconds"] += entry["seconds"]
        row["first"] += entry["first"][: 8 - len(row["first"])]
    return totals
