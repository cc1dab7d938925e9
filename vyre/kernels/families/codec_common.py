"""Pieces the byte kernels build from: the byte codecs (`codec_radix.py`,
`codec_percent.py`), `utf8.py`, `string.py` and `uleb128.py` (docs/byte-codecs.md;
the conventions C1, C4 and C6 of docs/kernels.md).

- Bytes: a Bytes input reaches a program as its packed words (four bytes a
  word, little-endian, C1); `byte_of` takes byte j of a word, `byte_at` the byte
  at a dynamic position. The byte count is a uniform parameter, and every
  kernel masks the padding bytes of the last word by it (they are unspecified).
- The first error (C6): every invocation finds the first bad position of its own
  bytes (`NONE` when there is none); `first_error` merges them into the op's
  `error_offset` word (initially NONE): a workgroup atomicMax of the complement
  (workgroup memory starts zeroed, and 0 is "no error" in that form), one
  barrier, then one global atomicMin per workgroup that saw an error. min is
  commutative and associative, so the offset does not depend on the schedule
  (C4), and an input full of errors costs one global atomic per workgroup.
- Data-dependent output positions (percent codecs, split, LEB128):
  `ScanKernel`: every invocation counts what its chunk emits, an exclusive scan
  (one workgroup's for up to SMALL_CHUNKS chunks, else the three passes of
  `scan.py` via `exclusive_scan_steps`) turns the counts into offsets, and the
  chunk writes its output from there (`ByteWriter` for bytes). Bytes of one
  output word may come from two invocations: a writer ORs its bytes into the
  first and last word of its range with atomicOr (the buffer starts zeroed and
  the byte lanes of different invocations are disjoint, so the result is
  deterministic) and stores the words in between, which are its alone.
- Batches (`KernelSpec.plan_many`): `JOB_BUFFERS` hold one row of fields per
  evaluation and where its units (invocations or workgroups) start; `locate`
  finds an invocation's evaluation by binary search. One evaluation is a batch
  of one (`single`), so every op has one set of programs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import count
from typing import Any, overload

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels.families.common import GROUPS, SCAN_WORDS, WORKGROUP, params_buffer, workgroup_scan
from vyre.kernels.families.scan import BLOCK, TILE, block_sums_program, scan_sums_program, scan_tiles_program
from vyre.kernels.spec import NO_ERROR, BatchPlan, Buffer, KernelPlan, Port, Step, size_column, unit_starts

__all__ = [
    "CHUNK",
    "CHUNK_WORDS",
    "DECODER_OUTPUTS",
    "ERROR_WORKGROUP",
    "JOB_BUFFERS",
    "BYTE_BOUNDARIES",
    "SCAN_BOUNDARIES",
    "SMALL_CHUNKS",
    "SCAN_ROW",
    "ArrayOutput",
    "ByteWriter",
    "ScanKernel",
    "between",
    "byte_at",
    "byte_of",
    "chunks",
    "exclusive_scan_steps",
    "field",
    "first_error",
    "groups_for",
    "job_buffers",
    "one_each",
    "pairs",
    "unit_starts",
    "locate",
    "min_u32",
    "single",
    "unique",
    "word_starts",
]

CHUNK_WORDS = 1
CHUNK = 4 * CHUNK_WORDS
"""Bytes one invocation of a scan-based byte kernel reads (its chunk)."""

DECODER_OUTPUTS = (
    Port("out", DataType.BYTES, length_from="length"),
    Port("length", DataType.U32, scalar=True),
    Port("error_offset", DataType.U32, scalar=True),
    Port("error_code", DataType.U32, scalar=True),
)
"""The outputs of a strict decoder (C6, C7): the decoded bytes, their
length, the offset of the first bad byte (NO_ERROR when the input is well
formed) and the C6 code (0 when well formed). On malformed input the length is
0, so no decoded byte reaches the caller."""

ERROR_WORKGROUP = BufferDecl.workgroup("err_wg", 1, DataType.U32)

_names = count()


def unique(stem: str) -> str:
    """A fresh local name (IR locals are names; generated code must not reuse one
    in the same scope)."""
    return f"{stem}_{next(_names)}"


def byte_of(word: Expr, j: int) -> Expr:
    """Byte j (0 = lowest address) of a little-endian word."""
    if j == 0:
        return E.bitand(word, E.u32(0xFF))
    if j == 3:
        return E.shr(word, E.u32(24))
    return E.bitand(E.shr(word, E.u32(8 * j)), E.u32(0xFF))


def byte_at(buffer: str, position: Expr) -> Expr:
    """The byte at a dynamic position of a packed Bytes buffer."""
    word = E.load(buffer, E.shr(position, E.u32(2)))
    return E.bitand(E.shr(word, E.shl(E.bitand(position, E.u32(3)), E.u32(3))), E.u32(0xFF))


def between(value: Expr, low: int, high: int) -> Expr:
    """low <= value <= high, as one wrapping compare."""
    if low == 0:
        return E.le(value, E.u32(high))
    return E.lt(E.sub(value, E.u32(low)), E.u32(high - low + 1))


def min_u32(a: Expr, b: Expr) -> Expr:
    return E.select(E.lt(b, a), b, a)


def groups_for(invocations: int) -> int:
    """Workgroups of a one-dimensional dispatch of `invocations` (the runtime
    splits a dispatch past 65,535 workgroups per axis)."""
    return -(-invocations // WORKGROUP)


def chunks(n: int) -> int:
    return -(-n // CHUNK)


def first_error(bad: Expr, error: str = "error_offset", index: Expr | None = None) -> list[Node]:
    """Merge each invocation's first bad offset `bad` (NONE: none) into word
    `index` (default 0) of `error`; needs ERROR_WORKGROUP among the program's
    buffers, and every invocation of a workgroup must work for the same
    evaluation and reach it (it holds a barrier)."""
    where = E.u32(0) if index is None else index
    local = E.local_id(0)
    mine, merged = unique("bad"), unique("wg_bad")
    return [
        Node.let(mine, bad),
        Node.if_(
            E.ne(E.var(mine), E.u32(NO_ERROR)),
            [Node.let(unique("_o"), E.atomic(AtomicOp.MAX, "err_wg", E.u32(0), E.bitxor(E.var(mine), E.u32(NO_ERROR))))],
        ),
        Node.barrier(),
        Node.if_(
            E.eq(local, E.u32(0)),
            [
                Node.let(merged, E.load("err_wg", E.u32(0))),
                Node.if_(
                    E.ne(E.var(merged), E.u32(0)),
                    [
                        Node.let(
                            unique("_o"),
                            E.atomic(AtomicOp.MIN, error, where, E.bitxor(E.var(merged), E.u32(NO_ERROR))),
                        )
                    ],
                ),
            ],
        ),
    ]


class ByteWriter:
    """Writes a run of bytes, one at a time, from a dynamic byte position into a
    zeroed U32 buffer: the first and the last word of the run are ORed in with
    atomicOr (a neighbouring run may share them), the words in between stored."""

    def __init__(self, out: str, stem: str = "bw"):
        self.out = out
        self.pos = unique(f"{stem}_pos")
        self.first = unique(f"{stem}_first")
        self.word = unique(f"{stem}_word")
        self.acc = unique(f"{stem}_acc")

    def begin(self, position: Expr) -> list[Node]:
        return [
            Node.let(self.pos, position),
            Node.let(self.first, E.shr(E.var(self.pos), E.u32(2))),
            Node.let(self.word, E.var(self.first)),
            Node.let(self.acc, E.u32(0)),
        ]

    def _or(self) -> Node:
        return Node.let(unique("_o"), E.atomic(AtomicOp.OR, self.out, E.var(self.word), E.var(self.acc)))

    def put(self, byte: Expr) -> list[Node]:
        """Append one byte (a u32 below 256)."""
        here = E.shr(E.var(self.pos), E.u32(2))
        flush = Node.if_(
            E.ne(E.var(self.acc), E.u32(0)),
            [
                Node.if_(
                    E.eq(E.var(self.word), E.var(self.first)),
                    [self._or()],
                    [Node.store(self.out, E.var(self.word), E.var(self.acc))],
                )
            ],
        )
        lane = E.shl(E.bitand(E.var(self.pos), E.u32(3)), E.u32(3))
        return [
            Node.if_(
                E.ne(here, E.var(self.word)),
                [flush, Node.assign(self.word, here), Node.assign(self.acc, E.u32(0))],
            ),
            Node.assign(self.acc, E.bitor(E.var(self.acc), E.shl(byte, lane))),
            Node.assign(self.pos, E.add(E.var(self.pos), E.u32(1))),
        ]

    def end(self) -> list[Node]:
        return [Node.if_(E.ne(E.var(self.acc), E.u32(0)), [self._or()])]


def exclusive_scan_steps(source: str, target: str, m: int, tag: str) -> tuple[tuple[Buffer, ...], tuple[Step, ...]]:
    """Buffers and steps turning the m u32 counts of `source` into their
    exclusive prefix sums in `target` (an m-element buffer the caller declares):
    scan.py's three-step block scan (block sums, the one-workgroup scan of the
    sums, the tile-by-tile scan) on other buffers."""
    if m == 0:
        return (), ()
    blocks = -(-m // BLOCK)
    sums, params = f"{tag}_block_sums", f"{tag}_scan_params"
    buffers = (Buffer(sums, DataType.U32, blocks), params_buffer(params, [blocks, -(-blocks // TILE)]))
    steps = (
        Step(block_sums_program(), (blocks, 1, 1), {"x": source, "sums": sums}),
        Step(scan_sums_program(), (1, 1, 1), {"sums": sums, "params": params}),
        Step(scan_tiles_program(True), (blocks, 1, 1), {"x": source, "offsets": sums, "out": target}),
    )
    return buffers, steps


# ---------------------------------------------------------------------------
# Jobs: one plan for one evaluation or many (`KernelSpec.plan_many`)
# ---------------------------------------------------------------------------

JOB_BUFFERS = (
    BufferDecl.read("job_starts", 10, DataType.U32),
    BufferDecl.read("jobs", 11, DataType.U32),
    BufferDecl.uniform("job_params", 12, DataType.U32),
)
"""Declared by every program that serves batched evaluations: `job_starts[k]` is
the first unit (invocation or workgroup) of evaluation k (K + 1 entries, the
last the total), `jobs` holds a row of u32 fields per evaluation,
`job_params` = [K, binary-search steps]."""


def locate(key: Expr, job: str = "job") -> list[Node]:
    """`job` := the evaluation k whose units [starts[k], starts[k+1]) hold `key`
    (the largest k < K with starts[k] <= key: an evaluation without units is
    skipped), by binary search in ceil(log2 K) steps (none for one evaluation)."""
    lo, hi, mid = unique("lo"), unique("hi"), unique("mid")
    return [
        Node.let(lo, E.u32(0)),
        Node.let(hi, E.load("job_params", E.u32(0))),
        Node.loop(
            unique("step"),
            E.u32(0),
            E.load("job_params", E.u32(1)),
            [
                Node.let(mid, E.shr(E.add(E.var(lo), E.var(hi)), E.u32(1))),
                Node.if_(
                    E.gt(E.sub(E.var(hi), E.var(lo)), E.u32(1)),
                    [
                        Node.if_(
                            E.le(E.load("job_starts", E.var(mid)), key),
                            [Node.assign(lo, E.var(mid))],
                            [Node.assign(hi, E.var(mid))],
                        )
                    ],
                ),
            ],
        ),
        Node.let(job, E.var(lo)),
    ]


def field(job: Expr, index: int, stride: int) -> Expr:
    """Field `index` of a job's row in `jobs`."""
    return E.load("jobs", E.add(E.mul(job, E.u32(stride)), E.u32(index)) if index else E.mul(job, E.u32(stride)))


def job_buffers(
    starts: Sequence[int] | np.ndarray, rows: Sequence[Sequence[int]] | np.ndarray
) -> tuple[Buffer, ...]:
    """The constant buffers of JOB_BUFFERS for evaluations with these unit
    starts (K + 1 entries) and job rows (or an integer array of shape (K,
    fields), row k evaluation k's; each value taken mod 2^32 either way)."""
    count_ = len(rows)
    if isinstance(rows, np.ndarray):
        flat: Sequence[int] | np.ndarray = rows.reshape(-1)
    else:
        flat = [int(v) for row in rows for v in row]
    return (
        Buffer("job_starts", DataType.U32, len(starts), words=_words(starts)),
        Buffer("jobs", DataType.U32, len(flat), words=_words(flat)),
        params_buffer("job_params", [count_, max(0, (count_ - 1).bit_length())]),
    )


def _words(values: Sequence[int] | np.ndarray) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return (np.asarray(values, dtype=np.int64).reshape(-1) & 0xFFFF_FFFF).astype(np.uint32)
    return np.array([int(v) & 0xFFFF_FFFF for v in values], dtype=np.uint32)


def single(batch: BatchPlan) -> KernelPlan:
    """The plan of one evaluation from its batch of one: each output buffer
    holds that evaluation's output from word 0, sized to its element count."""
    counts: dict[str, int] = {}
    for port, parts in batch.splits.items():
        ((first, elements),) = parts  # one pair, a tuple or a (1, 2) array's row
        assert int(first) == 0
        counts[batch.plan.output_buffer(port)] = int(elements)
    buffers = tuple(
        replace(b, count=counts[b.name]) if b.name in counts else b for b in batch.plan.buffers
    )
    return replace(batch.plan, buffers=buffers)


def pairs(firsts: np.ndarray, counts: np.ndarray | int) -> np.ndarray:
    """A `BatchPlan` split as an (K, 2) int64 array: row k = (firsts[k],
    counts[k]) (`counts` may be one number for every row)."""
    out = np.empty((len(firsts), 2), dtype=np.int64)
    out[:, 0] = firsts
    out[:, 1] = counts
    return out


def one_each(count: int) -> np.ndarray:
    """The split of a scalar output with one word per evaluation: row k = (k, 1)."""
    return pairs(np.arange(count, dtype=np.int64), 1)


@overload
def word_starts(counts: np.ndarray) -> np.ndarray: ...
@overload
def word_starts(counts: Sequence[int]) -> list[int]: ...
def word_starts(counts: Sequence[int] | np.ndarray) -> list[int] | np.ndarray:
    """Where each of several packed Bytes buffers of `counts` bytes starts when
    laid end to end on word boundaries (K + 1 entries; an int64 array for an
    integer array of counts)."""
    if isinstance(counts, np.ndarray):
        return unit_starts(-(-np.asarray(counts, dtype=np.int64) // 4))
    starts = [0]
    for c in counts:
        starts.append(starts[-1] + -(-c // 4))
    return starts


# ---------------------------------------------------------------------------
# Scan-based byte kernels: count per chunk, exclusive scan, scatter, finish
# ---------------------------------------------------------------------------

SMALL_CHUNKS = WORKGROUP * 16
"""Inputs of at most this many chunks run as one workgroup in one dispatch
(each invocation counts and then scatters up to 16 consecutive chunks, with a
workgroup scan between); larger ones take the count, scan and scatter passes."""

BYTE_BOUNDARIES = (0, 1, 3, 4, 5, 63, 64, 65, 4095, 4096, 4097)
"""Kernel-track lengths of the byte maps: empty, one word +- 1, 64 +- 1 and a
workgroup's 4,096 bytes +- 1 (the track's 255..257 add nothing for kernels whose
invocations own whole words; the ops' test files cover every length 0-300)."""

SCAN_BOUNDARIES = (0, 1, 3, 4, 5, 63, 64, 65, 1023, 1024, 1025, 4097)
"""Kernel-track lengths of the scan-based byte ops: empty, one word +- 1, one
workgroup of chunks +- 1 (where an invocation of the one-workgroup form takes a
second chunk), and a tile past 4,096."""

Count = Callable[[Expr], tuple[list[Node], Expr]]
Scatter = Callable[[Expr, str], list[Node]]
Finish = Callable[[Expr], list[Node]]

SCAN_ROW = 8
"""Job row of a scan kernel: [n, chunks, chunks per invocation of the
one-workgroup form, first input word, first word of array output 0, of array
output 1, extra 0, extra 1]. The programs bind them to the locals `n`, `m`,
`per`, `in0`, `out0`, `out1`, `x0`, `x1`, and `job` to the evaluation's index
(where its scalar outputs live)."""
_ROW_NAMES = ("n", "m", "per", "in0", "out0", "out1", "x0", "x1")


@dataclass(frozen=True)
class ArrayOutput:
    """An array output of a scan kernel: its element type and its capacity for
    an input of n elements (the worst case; the host trims it to its length).
    `capacity` is numpy arithmetic: it takes the int64 array of a batch's n and
    gives each one's capacity (or one number for all)."""

    name: str
    dtype: DataType
    capacity: Callable[[np.ndarray], np.ndarray | int]


@dataclass(frozen=True)
class ScanKernel:
    """A byte kernel whose output positions come from a prefix sum of per-chunk
    counts, for one evaluation or a batch (`plan_many`).

    `count(c)` gives the nodes and the count of chunk c; `scatter(c, r)` writes
    chunk c's output from index variable `r` (relative to the evaluation's
    output, advancing it); `finish(total)` runs once per evaluation with its
    total. They read the row locals (SCAN_ROW) and index inputs from `in0`,
    array outputs from `out0`/`out1`, scalar outputs at `job`. `buffers` are the
    op's own: the input, the outputs, constants.

    An evaluation of at most SMALL_CHUNKS chunks is one workgroup of the
    one-workgroup program (all of a batch's small evaluations in one dispatch);
    a larger one gets its own count, scan (three passes), scatter and finish
    steps."""

    name: str
    buffers: tuple[BufferDecl, ...]
    count: Count
    scatter: Scatter
    finish: Finish
    input: str = "data"
    input_dtype: DataType = DataType.BYTES
    chunk: int = CHUNK
    """Input elements a chunk holds."""
    arrays: tuple[ArrayOutput, ...] = ()
    scalars: tuple[tuple[str, int], ...] = ()
    """Scalar outputs and their initial value."""
    constants: tuple[Buffer, ...] = ()
    """Constant buffers the programs read (tables)."""

    def programs(self) -> tuple[Program, Program, Program, Program]:
        """(one workgroup, count, scatter, finish)."""
        return _scan_programs(self)

    def batch(self, ns: Sequence[int] | np.ndarray, extras: Sequence[Sequence[int]] = ()) -> BatchPlan:
        """The plan of evaluations with inputs of ns elements (extras: up to two
        words of each evaluation's row). Numpy passes over `ns`: the job rows,
        unit starts and splits are arrays (a Python step per evaluation only
        for `extras` and for an evaluation too big for one workgroup)."""
        lengths = np.asarray(ns, dtype=np.int64).reshape(-1)
        count = len(lengths)
        unit = 4 if self.input_dtype is DataType.BYTES else 1
        ins = unit_starts(-(-lengths // unit))
        rows = np.zeros((count, SCAN_ROW), dtype=np.int64)
        buffers: list[Buffer] = []
        splits: dict[str, np.ndarray] = {}
        for i, array in enumerate(self.arrays):
            sizes = np.broadcast_to(np.asarray(array.capacity(lengths), dtype=np.int64), lengths.shape)
            starts = unit_starts(-(-sizes // 4) if array.dtype is DataType.BYTES else sizes)
            if i < 2:
                rows[:, 4 + i] = starts[:-1]
            buffers.append(Buffer(array.name, array.dtype, _elements(array.dtype, int(starts[-1]))))
            splits[array.name] = pairs(starts[:-1], sizes)
        for name, fill in self.scalars:
            buffers.append(Buffer(name, DataType.U32, count, fill=fill))
            splits[name] = one_each(count)
        ms = -(-lengths // self.chunk)
        rows[:, 0], rows[:, 1], rows[:, 3] = lengths, ms, ins[:-1]
        rows[:, 2] = np.maximum(1, -(-ms // WORKGROUP))
        if extras:
            for k in range(count):
                extra = [*extras[k], 0, 0][:2]
                rows[k, 6], rows[k, 7] = int(extra[0]), int(extra[1])
        small_starts = unit_starts(ms <= SMALL_CHUNKS)
        buffers += job_buffers(small_starts, rows)
        buffers += self.constants
        small, counter, scatter, finish = self.programs()
        steps: list[Step] = []
        if small_starts[-1]:
            steps.append(Step(small, (int(small_starts[-1]), 1, 1)))
        for big in np.flatnonzero(ms > SMALL_CHUNKS):
            k, m = int(big), int(ms[big])
            tag = f"{self.name}_{k}"
            counts, offsets, index = f"{tag}_counts", f"{tag}_offsets", f"{tag}_job"
            scan_buffers, scan_steps = exclusive_scan_steps(counts, offsets, m, tag)
            buffers += [
                Buffer(counts, DataType.U32, m),
                Buffer(offsets, DataType.U32, m),
                params_buffer(index, [k]),
                *scan_buffers,
            ]
            bind = {"counts": counts, "offsets": offsets, "job_index": index}
            grid = (groups_for(m), 1, 1)
            steps += [Step(counter, grid, bind), *scan_steps, Step(scatter, grid, bind), Step(finish, (1, 1, 1), bind)]
        return BatchPlan(KernelPlan(tuple(buffers), tuple(steps)), splits)

    def planners(
        self, extras: Callable[[Mapping[str, int]], Sequence[int]] | None = None
    ) -> tuple[Callable[[Any, Any], KernelPlan], Callable[[Any, Any], BatchPlan]]:
        """(plan, plan_many) for a KernelSpec; `extras(scalars)` gives the row's
        extra words of an evaluation from its scalar inputs."""

        def plan_many(sizes: Sequence[Mapping[str, int]], scalars: Sequence[Mapping[str, int]]) -> BatchPlan:
            rows = [list(extras(s)) for s in scalars] if extras is not None else []
            return self.batch(size_column(sizes, self.input), rows)

        def plan(sizes: Mapping[str, int], scalars: Mapping[str, int]) -> KernelPlan:
            return single(plan_many([sizes], [scalars]))

        return plan, plan_many


def host_words(dtype: DataType, count: int) -> int:
    return -(-count // 4) if dtype is DataType.BYTES else count


def _elements(dtype: DataType, words: int) -> int:
    return 4 * words if dtype is DataType.BYTES else words


_SCAN_PROGRAMS: dict[str, tuple[Program, Program, Program, Program]] = {}


def _row(job: Expr) -> list[Node]:
    return [Node.let(name, field(job, i, SCAN_ROW)) for i, name in enumerate(_ROW_NAMES)]


def _scan_programs(kernel: ScanKernel) -> tuple[Program, Program, Program, Program]:
    cached = _SCAN_PROGRAMS.get(kernel.name)
    if cached is not None:
        return cached
    local = E.local_id(0)
    m, per = E.var("m"), E.var("per")
    count_nodes, count = kernel.count(E.var("c"))
    small_body: list[Node] = [
        *locate(E.workgroup_id(0)),
        *_row(E.var("job")),
        Node.let("run", E.u32(0)),
        Node.loop(
            "i",
            E.u32(0),
            per,
            [
                Node.let("c", E.add(E.mul(local, per), E.var("i"))),
                Node.if_(E.lt(E.var("c"), m), [*count_nodes, Node.assign("run", E.add(E.var("run"), count))]),
            ],
        ),
        *workgroup_scan(["run"], ["scan_values"], ["scan_groups"], "_w"),
        Node.let("r", E.var("_wex0")),
        Node.loop(
            "j",
            E.u32(0),
            per,
            [
                Node.let("c", E.add(E.mul(local, per), E.var("j"))),
                Node.if_(E.lt(E.var("c"), m), kernel.scatter(E.var("c"), "r")),
            ],
        ),
        Node.if_(E.eq(local, E.u32(0)), kernel.finish(E.var("_wtot0"))),
    ]
    small = Program(
        buffers=[
            *kernel.buffers,
            *JOB_BUFFERS,
            BufferDecl.workgroup("scan_values", SCAN_WORDS, DataType.U32),
            BufferDecl.workgroup("scan_groups", GROUPS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=small_body,
        name=f"{kernel.name}_one_workgroup",
    )
    large = [*kernel.buffers, *JOB_BUFFERS, BufferDecl.uniform("job_index", 22, DataType.U32)]
    prologue = [Node.let("job", E.load("job_index", E.u32(0))), *_row(E.var("job"))]
    c = E.invocation_id(0)
    count_nodes, count = kernel.count(c)
    counter = Program(
        buffers=[*large, BufferDecl.read_write("counts", 20, DataType.U32)],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[*prologue, Node.if_(E.lt(c, m), [*count_nodes, Node.store("counts", c, count)])],
        name=f"{kernel.name}_count",
    )
    scatter = Program(
        buffers=[*large, BufferDecl.read("offsets", 21, DataType.U32)],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[*prologue, Node.if_(E.lt(c, m), [Node.let("r", E.load("offsets", c)), *kernel.scatter(c, "r")])],
        name=f"{kernel.name}_scatter",
    )
    last = E.sub(m, E.u32(1))
    total = E.add(E.load("offsets", last), E.load("counts", last))
    finish = Program(
        buffers=[*large, BufferDecl.read("counts", 20, DataType.U32), BufferDecl.read("offsets", 21, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[*prologue, Node.let("total", total), *kernel.finish(E.var("total"))],
        name=f"{kernel.name}_finish",
    )
    _SCAN_PROGRAMS[kernel.name] = (small, counter, scatter, finish)
    return small, counter, scatter, finish


def select_first(flags: Sequence[tuple[Expr, Expr]]) -> Expr:
    """The value of the first (flag, value) pair whose flag holds, NONE if none."""
    result: Expr = E.u32(NO_ERROR)
    for flag, value in reversed(flags):
        result = E.select(flag, value, result)
    return result
