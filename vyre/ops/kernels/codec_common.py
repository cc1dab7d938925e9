"""Pieces the byte kernels build from: the byte codecs (`codec_radix.py`,
`codec_percent.py`), `utf8.py`, `string.py` and `uleb128.py` (python-api.md
"Buffer-level operations"; oplib.md C1, C4, C6, §2, §9).

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
- Data-dependent output positions (percent codecs, split, LEB128): every
  invocation counts what its chunk of CHUNK bytes emits, `exclusive_scan_steps`
  turns the counts into offsets with the three passes of `scan.py`, and
  `ByteWriter` writes the chunk's bytes from its offset. Bytes of one output
  word may come from two invocations: a writer ORs its bytes into the first and
  last word of its range with atomicOr (the buffer starts zeroed and the byte
  lanes of different invocations are disjoint, so the result is deterministic)
  and stores the words in between, which are its alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import count

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.ops.kernel import NO_ERROR, BatchPlan, Buffer, KernelPlan, Port, Step
from vyre.ops.kernels.common import GROUPS, SCAN_WORDS, WORKGROUP, params_buffer, workgroup_scan
from vyre.ops.kernels.scan import BLOCK, TILE, block_sums_program, scan_sums_program, scan_tiles_program

__all__ = [
    "CHUNK",
    "CHUNK_WORDS",
    "DECODER_OUTPUTS",
    "ERROR_WORKGROUP",
    "JOB_BUFFERS",
    "SMALL_CHUNKS",
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
    "locate",
    "min_u32",
    "single",
    "unique",
    "word_starts",
]

CHUNK_WORDS = 4
CHUNK = 4 * CHUNK_WORDS
"""Bytes one invocation of a scan-based byte kernel reads (its chunk)."""

DECODER_OUTPUTS = (
    Port("out", DataType.BYTES, length_from="length"),
    Port("length", DataType.U32, scalar=True),
    Port("error_offset", DataType.U32, scalar=True),
    Port("error_code", DataType.U32, scalar=True),
)
"""The outputs of a strict decoder (oplib.md C6, C7): the decoded bytes, their
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
    the three dispatches of `scan.prefix_sum_exclusive_u32` on other buffers."""
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
    BufferDecl.read("starts", 10, DataType.U32),
    BufferDecl.read("jobs", 11, DataType.U32),
    BufferDecl.uniform("job_params", 12, DataType.U32),
)
"""Declared by every program that serves batched evaluations: `starts[k]` is
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
                            E.le(E.load("starts", E.var(mid)), key),
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


def job_buffers(starts: Sequence[int], rows: Sequence[Sequence[int]]) -> tuple[Buffer, ...]:
    """The constant buffers of JOB_BUFFERS for evaluations with these unit
    starts (K + 1 entries) and job rows."""
    count_ = len(rows)
    flat = [int(v) for row in rows for v in row]
    return (
        Buffer("starts", DataType.U32, len(starts), words=_words(starts)),
        Buffer("jobs", DataType.U32, len(flat), words=_words(flat)),
        params_buffer("job_params", [count_, max(0, (count_ - 1).bit_length())]),
    )


def _words(values: Sequence[int]) -> np.ndarray:
    return np.array([int(v) & 0xFFFF_FFFF for v in values], dtype=np.uint32)


def single(batch: BatchPlan) -> KernelPlan:
    """The plan of one evaluation from its batch of one: each output buffer
    holds that evaluation's output from word 0, sized to its element count."""
    counts: dict[str, int] = {}
    for port, parts in batch.splits.items():
        ((first, elements),) = parts
        assert first == 0
        counts[batch.plan.output_buffer(port)] = elements
    buffers = tuple(
        replace(b, count=counts[b.name]) if b.name in counts else b for b in batch.plan.buffers
    )
    return replace(batch.plan, buffers=buffers)


def word_starts(counts: Sequence[int]) -> list[int]:
    """Where each of several packed Bytes buffers of `counts` bytes starts when
    laid end to end on word boundaries (K + 1 entries)."""
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

Count = Callable[[Expr], tuple[list[Node], Expr]]
Scatter = Callable[[Expr, str], list[Node]]
Finish = Callable[[Expr], list[Node]]


@dataclass(frozen=True)
class ScanKernel:
    """A byte kernel whose output positions come from a prefix sum of per-chunk
    counts. `count(c)` gives the nodes and the count of chunk c; `scatter(c, r)`
    writes chunk c's output from index variable `r` (advancing it); `finish(total)`
    runs once with the total. `buffers` are the op's own (inputs, outputs,
    `params`, whose words 0..2 are [n, chunks, chunks per invocation of the
    one-workgroup form]), without `counts` and `offsets`."""

    name: str
    buffers: tuple[BufferDecl, ...]
    count: Count
    scatter: Scatter
    finish: Finish

    def programs(self) -> tuple[Program, Program, Program, Program]:
        """(one workgroup, count, scatter, finish)."""
        return _scan_programs(self)

    def plan(self, n: int, m: int, buffers: Sequence[Buffer], params: Sequence[int]) -> KernelPlan:
        """The plan over n elements in m chunks with the op's `buffers` and
        `params` words from index 3 on."""
        per = max(1, -(-m // WORKGROUP))
        small, count, scatter, finish = self.programs()
        words = params_buffer("params", [n, m, per, *params])
        if m <= SMALL_CHUNKS:
            return KernelPlan((*buffers, words), (Step(small, (1, 1, 1)),))
        scan_buffers, scan_steps = exclusive_scan_steps("counts", "offsets", m, self.name)
        grid = (groups_for(m), 1, 1)
        return KernelPlan(
            (*buffers, words, Buffer("counts", DataType.U32, m), Buffer("offsets", DataType.U32, m), *scan_buffers),
            (Step(count, grid), *scan_steps, Step(scatter, grid), Step(finish, (1, 1, 1))),
        )


_SCAN_PROGRAMS: dict[str, tuple[Program, Program, Program, Program]] = {}


def _scan_programs(kernel: ScanKernel) -> tuple[Program, Program, Program, Program]:
    cached = _SCAN_PROGRAMS.get(kernel.name)
    if cached is not None:
        return cached
    local = E.local_id(0)
    m, per = E.load("params", E.u32(1)), E.load("params", E.u32(2))
    count_nodes, count = kernel.count(E.var("c"))
    small_body: list[Node] = [
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
            BufferDecl.workgroup("scan_values", SCAN_WORDS, DataType.U32),
            BufferDecl.workgroup("scan_groups", GROUPS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=small_body,
        name=f"{kernel.name}_one_workgroup",
    )
    c = E.invocation_id(0)
    count_nodes, count = kernel.count(c)
    counter = Program(
        buffers=[*kernel.buffers, BufferDecl.read_write("counts", 20, DataType.U32)],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[Node.if_(E.lt(c, m), [*count_nodes, Node.store("counts", c, count)])],
        name=f"{kernel.name}_count",
    )
    scatter = Program(
        buffers=[*kernel.buffers, BufferDecl.read("offsets", 21, DataType.U32)],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[Node.if_(E.lt(c, m), [Node.let("r", E.load("offsets", c)), *kernel.scatter(c, "r")])],
        name=f"{kernel.name}_scatter",
    )
    last = E.sub(m, E.u32(1))
    total = E.select(E.eq(m, E.u32(0)), E.u32(0), E.add(E.load("offsets", last), E.load("counts", last)))
    finish = Program(
        buffers=[
            *kernel.buffers,
            BufferDecl.read("counts", 20, DataType.U32),
            BufferDecl.read("offsets", 21, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[Node.let("total", total), *kernel.finish(E.var("total"))],
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
