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
sums. The host computes the same sums over the results of the oracle
(`vyre.runtime.interp.floats`, which shares no code with the soft-float rewrite),
in parallel processes. A chunk whose sums differ is run again with its results
read back, and its mismatching inputs are reported exactly. Two equal 64-bit
sums of mixed values let a mismatch through with probability about 2**-64 per
chunk.

Chunks are recorded in an append-only JSONL checkpoint, so a campaign can be
sharded (`shard=(i, n)`) and resumed; `summary` merges a checkpoint.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.pipeline import prepare
from vyre.runtime.interp import floats as oracle

__all__ = [
    "CAMPAIGN_OPS",
    "Campaign",
    "ChunkResult",
    "campaign_program",
    "mix_sums",
    "run_campaign",
    "summary",
]

U32 = npt.NDArray[np.uint32]
WORKGROUP = 256
PER_INVOCATION = 64
"""Inputs per invocation: 16,384 per workgroup (every loop far below lavapipe's
65,535-iteration cap)."""
CHUNK = 1 << 24
"""Inputs per chunk (one dispatch of 1,024 workgroups)."""
MIX_1 = 0x9E37_79B1
MIX_2 = 0x85EB_CA77

CAMPAIGN_OPS: dict[str, tuple[str, int]] = {
    **{op: ("binary", 2) for op in ("add", "sub", "mul", "div", "min", "max")},
    **{op: ("compare", 2) for op in ("eq", "ne", "lt", "le", "gt", "ge")},
    "fma": ("fma", 3),
    **{op: ("unary", 1) for op in ("neg", "abs", "sqrt", "floor", "ceil", "round", "trunc")},
    **{op: ("predicate", 1) for op in ("is_nan", "is_inf")},
    **{f"to_{t}": ("convert", 1) for t in ("f32", "f16", "bf16", "u32", "i32")},
    **{f"from_{s}": ("convert_in", 1) for s in ("u32", "i32")},
    **{op: ("approximate", 1) for op in ("sqrt_approx", "exp2_approx", "log2_approx", "sin_approx", "cos_approx")},
}
"""Op name -> (family, arity). `to_X` converts the format to X; `from_u32` /
`from_i32` convert 32-bit integers to the format."""

_TYPES = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}
_BINARY_EXPR: dict[str, Callable[[Expr, Expr], Expr]] = {
    "add": E.fadd, "sub": E.fsub, "mul": E.fmul, "div": E.fdiv, "min": E.fmin, "max": E.fmax,
    "eq": E.feq, "ne": E.fne, "lt": E.flt, "le": E.fle, "gt": E.fgt, "ge": E.fge,
}  # fmt: skip
_UNARY_EXPR: dict[str, Callable[[Expr], Expr]] = {
    "neg": E.fneg, "abs": E.fabs, "sqrt": E.fsqrt, "floor": E.ffloor, "ceil": E.fceil,
    "round": E.fround, "trunc": E.ftrunc, "is_nan": E.fis_nan, "is_inf": E.fis_inf,
    "sqrt_approx": E.fsqrt_approx, "exp2_approx": E.fexp2_approx, "log2_approx": E.flog2_approx,
    "sin_approx": E.fsin_approx, "cos_approx": E.fcos_approx,
}  # fmt: skip


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


def _hash_words(seed: int, index: npt.NDArray[np.uint64], stream: int) -> U32:
    """A 32-bit word that depends only on (seed, input index, stream): splitmix64."""
    with np.errstate(over="ignore"):
        z = (index * np.uint64(3) + np.uint64(stream)) * np.uint64(0x9E37_79B9_7F4A_7C15)
        z = z + np.uint64(seed) * np.uint64(0xD1B5_4A32_D192_ED03)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58_476D_1CE4_E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D0_49BB_1331_11EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(32)).astype(np.uint32)


def adversarial(campaign: Campaign, start: int, length: int) -> list[U32]:
    """The operands of inputs start..start+length of an adversarial f32 space:
    eight classes (input i in class i % 8), every word a function of (seed, i)
    alone, so any slice of the space can be generated on its own."""
    index = np.arange(start, start + length, dtype=np.uint64)
    x, y, z = (_hash_words(campaign.seed, index, stream) for stream in range(3))
    n = length
    cls = (np.arange(start, start + n, dtype=np.uint64) % 8).astype(np.uint32)
    exp_mask, frac_mask, sign = np.uint32(0x7F80_0000), np.uint32(0x007F_FFFF), np.uint32(0x8000_0000)
    a, b, c = x.copy(), y.copy(), z.copy()
    # 1: equal exponents; 2: nearly equal magnitudes, both signs (cancellation)
    b = np.where(cls == 1, (x & (sign | exp_mask)) | (y & frac_mask), b)
    b = np.where(cls == 2, (x ^ (y & np.uint32(0x3F))) ^ (y & sign), b)
    # 3: exponent differences 0..40 (alignment shifts, sticky bits)
    shifted = ((x >> np.uint32(23) & np.uint32(0xFF)) - (y % np.uint32(41))) & np.uint32(0xFF)
    b = np.where(cls == 3, (y & (sign | frac_mask)) | (shifted << np.uint32(23)), b)
    # 4: subnormal operands and results
    a = np.where(cls == 4, x & np.uint32(0x80FF_FFFF), a)
    b = np.where(cls == 4, (y & np.uint32(0x807F_FFFF)) | np.uint32(0x3F00_0000), b)
    # 5: overflow and underflow boundaries of products and quotients
    big = np.uint32(0x7E00_0000) | (x & np.uint32(0x80FF_FFFF))
    small = np.uint32(0x0100_0000) | (y & np.uint32(0x80FF_FFFF))
    a = np.where(cls == 5, big, a)
    b = np.where(cls == 5, np.where(z & np.uint32(1), small, y & np.uint32(0x80FF_FFFF) | np.uint32(0x3F80_0000)), b)
    # 6: short significands: exact products, ties, and tiny addends beside them
    short = np.uint32(0xFFFF_E000)
    a = np.where(cls == 6, x & short & np.uint32(0x3FFF_FFFF) | np.uint32(0x3F00_0000), a)
    b = np.where(cls == 6, y & short & np.uint32(0x3FFF_FFFF) | np.uint32(0x3F00_0000), b)
    c = np.where(cls == 6, (z & np.uint32(0x80FF_FFFF)) | np.uint32(0x0C00_0000), c)
    # 7: specials crossed with anything
    specials = np.array(
        [0, 0x8000_0000, 1, 0x8000_0001, 0x007F_FFFF, 0x0080_0000, 0x3F80_0000, 0xBF80_0000,
         0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFC0_0001,
         0x7F80_0001, 0x3F00_0000],
        dtype=np.uint32,
    )  # fmt: skip
    a = np.where(cls == 7, specials[x & np.uint32(15)], a)
    c = np.where(cls == 7, np.where(y & np.uint32(16), specials[z & np.uint32(15)], c), c)
    # fma: the addend near -(a*b) half of the time (cancellation of the exact product)
    if campaign.family == "fma":
        product = oracle.binary("mul", "f32", a, b)
        near = (product ^ sign) ^ (z & np.uint32(0xFF))
        c = np.where((cls < 4) & ((z >> np.uint32(8)) & np.uint32(1)).astype(bool), near, c)
    return [a, b, c][: campaign.arity]


def oracle_words(campaign: Campaign, operands: Sequence[U32]) -> U32:
    """The exact result words of the op (the reference interpreter's floats)."""
    fmt, op = campaign.fmt, campaign.op
    match campaign.family:
        case "binary":
            return oracle.binary(op, fmt, *operands)
        case "compare":
            return oracle.compare(op, fmt, *operands)
        case "fma":
            return oracle.fma(fmt, *operands)
        case "unary":
            return oracle.unary(op, fmt, *operands)
        case "approximate":
            return oracle.approximate(op, *operands)
        case "predicate":
            return oracle.predicate(op, fmt, *operands)
        case "convert":
            target = op.removeprefix("to_")
            return np.asarray(oracle.convert(fmt, target, operands[0]), dtype=np.uint32)
        case _:
            source = op.removeprefix("from_")
            return np.asarray(oracle.convert(source, fmt, operands[0]), dtype=np.uint32)


def op_expr(campaign: Campaign, words: Sequence[Expr]) -> Expr:
    """The op under test on operand words, as a u32 word (vyre IR)."""
    ty = _TYPES[campaign.fmt]

    def value(word: Expr) -> Expr:
        return E.bitcast(ty, word)

    op = campaign.op
    match campaign.family:
        case "binary":
            return E.bitcast(DataType.U32, _BINARY_EXPR[op](value(words[0]), value(words[1])))
        case "compare":
            return E.cast(DataType.U32, _BINARY_EXPR[op](value(words[0]), value(words[1])))
        case "fma":
            return E.bitcast(DataType.U32, E.fma(*(value(w) for w in words)))
        case "unary" | "approximate":
            return E.bitcast(DataType.U32, _UNARY_EXPR[op](value(words[0])))
        case "predicate":
            return E.cast(DataType.U32, _UNARY_EXPR[op](value(words[0])))
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
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x85EB_CA6B)
    x = x ^ (x >> np.uint32(13))
    x = x * np.uint32(0xC2B2_AE35)
    return x ^ (x >> np.uint32(16))


def mix_sums(k: U32, r: U32) -> tuple[int, int]:
    """The two wrapping u32 sums of mixed (index, result) pairs the kernel computes."""
    with np.errstate(over="ignore"):
        s1 = _fmix(r ^ (k * np.uint32(MIX_1)))
        s2 = _fmix((r + k * np.uint32(MIX_2)) ^ np.uint32(0x5BD1_E995))
    return int(s1.astype(np.uint64).sum() & 0xFFFF_FFFF), int(s2.astype(np.uint64).sum() & 0xFFFF_FFFF)


def _fmix_nodes(name: str, value: Expr) -> tuple[list[Node], Expr]:
    """fmix32 of `value` as let statements (each stage bound once)."""
    stages: list[Node] = []
    x = value
    steps = [
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
        lane = E.local_id(0)
        body += [
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
    return Program(buffers, (WORKGROUP, 1, 1), body, name=f"campaign_{campaign.fmt}_{campaign.op}")


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

    def to_json(self) -> dict[str, Any]:
        return {
            "campaign": self.campaign, "start": self.start, "length": self.length,
            "mismatches": self.mismatches, "first": self.first, "seconds": round(self.seconds, 3),
        }  # fmt: skip


def _groups(length: int) -> int:
    return -(-length // (WORKGROUP * PER_INVOCATION))


def _chunk_words(campaign: Campaign, start: int, length: int) -> dict[str, np.ndarray]:
    words: dict[str, np.ndarray] = {"params": np.array([start, length], dtype=np.uint32)}
    if not campaign.indexed:
        for j, operand in enumerate(adversarial(campaign, start, length)):
            words[f"in{j}"] = operand
    return words


def _host_sums(args: tuple[Campaign, int, int]) -> tuple[int, int]:
    campaign, start, length = args
    k = np.arange(start, start + length, dtype=np.uint64).astype(np.uint32)
    operands = operands_of(campaign, k) if campaign.indexed else adversarial(campaign, start, length)
    return mix_sums(k, oracle_words(campaign, operands))


def _pieces(start: int, length: int, parts: int) -> list[tuple[int, int]]:
    step = max(1, -(-length // parts))
    return [(s, min(step, start + length - s)) for s in range(start, start + length, step)]


def _oracle_sums(campaign: Campaign, start: int, length: int, pool: Any) -> tuple[int, int]:
    pieces = [(campaign, s, n) for s, n in _pieces(start, length, 64)]
    results = pool.map(_host_sums, pieces) if pool is not None else map(_host_sums, pieces)
    s1 = s2 = 0
    for a, b in results:
        s1, s2 = (s1 + a) & 0xFFFF_FFFF, (s2 + b) & 0xFFFF_FFFF
    return s1, s2


def _run(
    campaign: Campaign, backend: str, program: Program, words: dict[str, np.ndarray], groups: int, out: int
) -> U32:
    from vyre.runtime.interp import execute as interp_execute

    words = {**words, "out": np.zeros(out, dtype=np.uint32)}
    prepared = prepare(program)
    if backend == "interp":
        return interp_execute(prepared, words, (groups, 1, 1))["out"]
    from vyre.runtime.wgpu_backend import execute

    return execute(prepared, words, (groups, 1, 1))["out"]


def run_chunk(campaign: Campaign, start: int, length: int, backend: str, pool: Any = None) -> ChunkResult:
    began = time.perf_counter()
    groups = _groups(length)
    words = _chunk_words(campaign, start, length)
    partial = _run(campaign, backend, campaign_program(campaign), words, groups, 2 * groups)
    got = (
        int(partial[0::2].astype(np.uint64).sum() & 0xFFFF_FFFF),
        int(partial[1::2].astype(np.uint64).sum() & 0xFFFF_FFFF),
    )
    if got == _oracle_sums(campaign, start, length, pool):
        return ChunkResult(campaign.name, start, length, 0, [], time.perf_counter() - began)
    # the sums differ: read the results back and name the inputs
    results = _run(campaign, backend, campaign_program(campaign, readback=True), words, groups, length)
    k = np.arange(start, start + length, dtype=np.uint64).astype(np.uint32)
    operands = operands_of(campaign, k) if campaign.indexed else [words[f"in{j}"] for j in range(campaign.arity)]
    want = oracle_words(campaign, operands)
    bad = np.flatnonzero(results != want)
    first = [[*(int(o[i]) for o in operands), int(results[i]), int(want[i])] for i in bad[:8]]
    return ChunkResult(campaign.name, start, length, len(bad), first, time.perf_counter() - began)


def _done(checkpoint: Path | None, campaign: Campaign) -> set[int]:
    if checkpoint is None or not checkpoint.exists():
        return set()
    done: set[int] = set()
    for line in checkpoint.read_text().splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by an interruption: that chunk runs again
        if isinstance(entry, dict) and entry.get("campaign") == campaign.name:
            done.add(int(entry["start"]))
    return done


def run_campaign(
    campaign: Campaign,
    backend: str = "wgpu",
    *,
    checkpoint: Path | None = None,
    shard: tuple[int, int] = (0, 1),
    jobs: int | None = None,
    progress: Callable[[ChunkResult], None] | None = None,
) -> Iterator[ChunkResult]:
    """Run (the shard of) a campaign's chunks not yet in `checkpoint`; each
    chunk's result is appended to the checkpoint as it completes."""
    index, count = shard
    todo = [c for n, c in enumerate(campaign.chunks()) if n % count == index]
    done = _done(checkpoint, campaign)
    jobs = jobs or os.cpu_count() or 1
    context = multiprocessing.get_context("spawn")  # no fork of a process holding a GPU device
    with context.Pool(jobs) if jobs > 1 else _NoPool() as pool:
        for start, length in todo:
            if start in done:
                continue
            result = run_chunk(campaign, start, length, backend, pool if jobs > 1 else None)
            if checkpoint is not None:
                with checkpoint.open("a") as stream:
                    stream.write(json.dumps(result.to_json()) + "\n")
            if progress is not None:
                progress(result)
            yield result


class _NoPool:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def summary(checkpoint: Path) -> dict[str, dict[str, Any]]:
    """Per campaign: inputs checked, mismatches, chunks, seconds, first mismatches."""
    totals: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, int]] = set()
    for line in checkpoint.read_text().splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        key = (entry["campaign"], entry["start"])
        if key in seen:
            continue
        seen.add(key)
        row = totals.setdefault(entry["campaign"], {"inputs": 0, "mismatches": 0, "chunks": 0, "seconds": 0.0, "first": []})
        row["inputs"] += entry["length"]
        row["mismatches"] += entry["mismatches"]
        row["chunks"] += 1
        row["seconds"] += entry["seconds"]
        row["first"] += entry["first"][: 8 - len(row["first"])]
    return totals
