"""string.ascii_lower, string.ascii_upper, match.byte_class and
string.split_offsets (docs/byte-codecs.md).

- `string.ascii_lower(b)` / `string.ascii_upper(b)` (Bytes -> Bytes):
  `bytes.lower()` / `bytes.upper()`: only A-Z / a-z change, every other byte
  (>= 0x80 included) is kept. Map, one word per invocation, SWAR: on the 7-bit
  lanes h = w & 0x7F7F7F7F, `h + (0x80 - 'A')` has its top bit set exactly when
  h >= 'A' and `h + (0x80 - 'Z' - 1)` when h > 'Z' (no carry crosses a lane);
  with the top bit of w clear, that is the mask of upper-case letters, and
  `w ^ (mask >> 2)` flips their 0x20 bit.
- `match.byte_class(b, table)` (Bytes, Bytes[256] -> Bytes): out[i] =
  table[b[i]], `bytes.translate(table)`. The table must be 256 bytes
  (ValueError naming it). Map: an evaluation owns whole workgroups; each loads
  its table into workgroup memory (64 words) and every invocation translates
  four words (coalesced, 4 KiB a workgroup).
- `string.split_offsets(b, delim)` (Bytes, U32 -> U32 starts[k], U32 ends[k],
  U32 k): the tokens of `b.split(bytes([delim]))` as half-open byte ranges,
  token j = b[starts[j]:ends[j]]: k = b.count(delim) + 1 (empty tokens kept;
  empty input: one empty token (0, 0)); starts[0] = 0, starts[j] = position of
  delimiter j-1 plus 1, ends[j] = position of delimiter j, ends[k-1] = len(b).
  `delim` must be in [0, 255] (ValueError naming it). Scan-based
  (`codec_common.ScanKernel`): each invocation counts the delimiters of its
  chunk (one word; SWAR zero-byte test of `w ^ delim * 0x01010101`), an
  exclusive scan (one workgroup's, or scan.py's three-step block scan past
  4,096 chunks) gives each chunk its first token index, and each
  chunk writes the ends and starts of its delimiters (the set bits of the
  zero-byte mask, lowest first); the finish writes starts[0], ends[k-1] and k.
  The outputs are sized for the worst case (n + 1 tokens); the host trims them
  to k.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families import codec_laws as L
from vyre.kernels.families.codec_common import (
    BYTE_BOUNDARIES,
    CHUNK_WORDS,
    JOB_BUFFERS,
    SCAN_BOUNDARIES,
    ArrayOutput,
    ScanKernel,
    field,
    groups_for,
    job_buffers,
    locate,
    pairs,
    single,
    unit_starts,
    word_starts,
)
from vyre.kernels.families.codec_host import as_bytes
from vyre.kernels.families.common import WORKGROUP
from vyre.kernels.spec import BatchPlan, Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step, size_column

__all__ = ["KERNELS", "ascii_case_program", "byte_class_program", "split_programs"]

LANES = 0x0101_0101
HIGH = 0x8080_8080
LOW7 = 0x7F7F_7F7F

ROW = 4
"""Job row of the map programs: [n, first input word, first output word,
output words] (`codec_common.JOB_BUFFERS`)."""


def zero_bytes(x: Expr) -> Expr:
    """The top bit of every zero byte of x (exact: no false positives)."""
    return E.bitand(E.bitnot(E.bitor(E.add(E.bitand(x, E.u32(LOW7)), E.u32(LOW7)), x)), E.u32(HIGH))


def _letters(w: Expr, first: int, last: int) -> Expr:
    """The top bit of every byte of w in [first, last]."""
    h = E.bitand(w, E.u32(LOW7))
    at_least = E.add(h, E.u32((0x80 - first) * LANES))
    above = E.add(h, E.u32((0x80 - last - 1) * LANES))
    return E.bitand(E.bitand(at_least, E.bitnot(above)), E.bitand(E.bitnot(w), E.u32(HIGH)))


def _row(job: Expr) -> list[Node]:
    return [
        Node.let("in0", field(job, 1, ROW)),
        Node.let("out0", field(job, 2, ROW)),
        Node.let("out_words", field(job, 3, ROW)),
    ]


# ---------------------------------------------------------------------------
# ASCII case
# ---------------------------------------------------------------------------


@cache
def ascii_case_program(upper: bool) -> Program:
    """Invocation w of an evaluation maps its word w (`starts` counts
    invocations; the padding bytes map to garbage the host trims)."""
    w = E.var("w")
    first, last = (ord("a"), ord("z")) if upper else (ord("A"), ord("Z"))
    word = E.var("word")
    body: list[Node] = [
        *locate(E.invocation_id(0)),
        *_row(E.var("job")),
        Node.let("w", E.sub(E.invocation_id(0), E.load("job_starts", E.var("job")))),
        Node.if_(
            E.lt(w, E.var("out_words")),
            [
                Node.let("word", E.load("data", E.add(E.var("in0"), w))),
                Node.store(
                    "out", E.add(E.var("out0"), w), E.bitxor(word, E.shr(_letters(word, first, last), E.u32(2)))
                ),
            ],
        ),
    ]
    return Program(
        buffers=[BufferDecl.read("data", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32), *JOB_BUFFERS],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"ascii_{'upper' if upper else 'lower'}",
    )


def _same_shape_batch(program: Program, ns: Sequence[int] | np.ndarray, per_unit_words: int, unit: int) -> BatchPlan:
    """A map whose output has the input's length: evaluation k's words start at
    the same word in the input and the output; `unit` = invocations (1) or
    workgroups (WORKGROUP) of `per_unit_words` words each. Numpy passes over
    the input lengths `ns` (nothing per evaluation in Python)."""
    lengths = np.asarray(ns, dtype=np.int64).reshape(-1)
    ins = word_starts(lengths)
    words = np.diff(ins)
    starts = unit_starts(-(-words // (per_unit_words * unit)))
    rows = np.stack([lengths, ins[:-1], ins[:-1], words], axis=1)
    buffers = (Buffer("out", DataType.BYTES, 4 * int(ins[-1])), *job_buffers(starts, rows))
    total = int(starts[-1])
    dispatch = total if unit == WORKGROUP else groups_for(total)
    steps = (Step(program, (dispatch, 1, 1)),) if total else ()
    return BatchPlan(KernelPlan(buffers, steps), {"out": pairs(ins[:-1], lengths)})


# ---------------------------------------------------------------------------
# Byte class
# ---------------------------------------------------------------------------

CLASS_WORDS = 4
"""Words one invocation of byte_class translates."""


@cache
def byte_class_program() -> Program:
    """An evaluation owns whole workgroups (`starts` counts workgroups); the
    first 64 invocations copy its table (`table` words 64k..64k+63) into
    workgroup memory; invocation l translates words l + 256 r, r < 4, of the
    workgroup's 1,024."""
    local = E.local_id(0)
    job = E.var("job")
    body: list[Node] = [
        *locate(E.workgroup_id(0)),
        *_row(job),
        Node.if_(
            E.lt(local, E.u32(64)),
            [Node.store("tbl", local, E.load("table", E.add(E.mul(job, E.u32(64)), local)))],
        ),
        Node.barrier(),
        Node.let("base", E.mul(E.sub(E.workgroup_id(0), E.load("job_starts", job)), E.u32(WORKGROUP * CLASS_WORDS))),
    ]
    for r in range(CLASS_WORDS):
        w = f"w{r}"
        word = E.var(f"x{r}")
        parts: list[Expr] = []
        for j in range(4):
            byte = E.bitand(E.shr(word, E.u32(8 * j)), E.u32(0xFF)) if j else E.bitand(word, E.u32(0xFF))
            entry = E.load("tbl", E.shr(byte, E.u32(2)))
            value = E.bitand(E.shr(entry, E.shl(E.bitand(byte, E.u32(3)), E.u32(3))), E.u32(0xFF))
            parts.append(value if j == 0 else E.shl(value, E.u32(8 * j)))
        translated = E.bitor(E.bitor(parts[0], parts[1]), E.bitor(parts[2], parts[3]))
        body += [
            Node.let(w, E.add(E.var("base"), E.add(E.u32(r * WORKGROUP), local))),
            Node.if_(
                E.lt(E.var(w), E.var("out_words")),
                [
                    Node.let(f"x{r}", E.load("data", E.add(E.var("in0"), E.var(w)))),
                    Node.store("out", E.add(E.var("out0"), E.var(w)), translated),
                ],
            ),
        ]
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read("table", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
            *JOB_BUFFERS,
            BufferDecl.workgroup("tbl", 64, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="byte_class",
    )


def _check_table(args: tuple[Any, ...]) -> None:
    table = np.asarray(args[1])
    if len(table) != 256:
        raise ValueError(f"input `table` of `match.byte_class` must be 256 bytes, got {len(table)}")


# ---------------------------------------------------------------------------
# Split
# ---------------------------------------------------------------------------


def _delimiter_masks(c: Expr) -> list[Node]:
    """`z{k}` := the top bits of the delimiter bytes of chunk c's word k (the
    bytes at or past n masked off); the delimiter is the row's extra word."""
    n = E.var("n")
    nodes: list[Node] = [Node.let("c0", E.mul(c, E.u32(CHUNK_WORDS))), Node.let("pattern", E.mul(E.var("x0"), E.u32(LANES)))]
    for k in range(CHUNK_WORDS):
        at = E.add(E.var("c0"), E.u32(k)) if k else E.var("c0")
        start = E.shl(at, E.u32(2))
        # bytes of this word below n: all, none, or the first n - start
        left = E.sub(n, start)
        present = E.select(
            E.ge(start, n),
            E.u32(0),
            E.select(E.ge(left, E.u32(4)), E.u32(HIGH), E.shr(E.u32(0xFF_FFFF), E.shl(E.sub(E.u32(3), left), E.u32(3)))),
        )
        word = E.load("data", E.add(E.var("in0"), at))
        nodes.append(
            Node.let(f"z{k}", E.bitand(zero_bytes(E.bitxor(word, E.var("pattern"))), E.bitand(present, E.u32(HIGH))))
        )
    return nodes


def _split_count(c: Expr) -> tuple[list[Node], Expr]:
    total: Expr = E.popcount(E.var("z0"))
    for k in range(1, CHUNK_WORDS):
        total = E.add(total, E.popcount(E.var(f"z{k}")))
    return _delimiter_masks(c), total


def _split_scatter(c: Expr, r: str) -> list[Node]:
    """Chunk c writes the ends and starts of its delimiters, lowest first."""
    nodes = _delimiter_masks(c)
    for k in range(CHUNK_WORDS):
        z = f"z{k}"
        base = E.shl(E.add(E.var("c0"), E.u32(k)), E.u32(2))
        nodes.append(
            Node.loop(
                f"bit{k}",
                E.u32(0),
                E.u32(4),
                [
                    Node.if_(
                        E.ne(E.var(z), E.u32(0)),
                        [
                            Node.let(f"p{k}", E.add(base, E.shr(E.ctz(E.var(z)), E.u32(3)))),
                            Node.store("ends", E.add(E.var("out1"), E.var(r)), E.var(f"p{k}")),
                            Node.store(
                                "starts", E.add(E.var("out0"), E.add(E.var(r), E.u32(1))), E.add(E.var(f"p{k}"), E.u32(1))
                            ),
                            Node.assign(r, E.add(E.var(r), E.u32(1))),
                            Node.assign(z, E.bitand(E.var(z), E.sub(E.var(z), E.u32(1)))),
                        ],
                    )
                ],
            )
        )
    return nodes


def _split_finish(total: Expr) -> list[Node]:
    """starts[0] = 0, ends[k-1] = n, k = delimiters + 1."""
    return [
        Node.store("starts", E.var("out0"), E.u32(0)),
        Node.store("ends", E.add(E.var("out1"), total), E.var("n")),
        Node.store("k", E.var("job"), E.add(total, E.u32(1))),
    ]


SPLIT = ScanKernel(
    "split",
    (
        BufferDecl.read("data", 0, DataType.U32),
        BufferDecl.read_write("starts", 1, DataType.U32),
        BufferDecl.read_write("ends", 2, DataType.U32),
        BufferDecl.read_write("k", 3, DataType.U32),
    ),
    _split_count,
    _split_scatter,
    _split_finish,
    arrays=(
        ArrayOutput("starts", DataType.U32, lambda n: n + 1),
        ArrayOutput("ends", DataType.U32, lambda n: n + 1),
    ),
    scalars=(("k", 0),),
)


def split_programs() -> tuple[Program, Program, Program, Program]:
    return SPLIT.programs()


def _split_extras(scalars: Mapping[str, int]) -> list[int]:
    delim = int(scalars["delim"])
    _check_delim(delim)
    return [delim]


_split_plan, _split_plan_many = SPLIT.planners(_split_extras)


def _check_delim(delim: int) -> None:
    if not 0 <= delim <= 255:
        raise ValueError(f"input `delim` of `string.split_offsets` must be a byte value in [0, 255], got {delim}")


def _check_split(args: tuple[Any, ...]) -> None:
    _check_delim(int(args[1]))


# ---------------------------------------------------------------------------
# References, laws, samples, specs
# ---------------------------------------------------------------------------


def _lower(data: Any) -> tuple[np.ndarray]:
    return (np.frombuffer(as_bytes(data).lower(), dtype=np.uint8).copy(),)


def _upper(data: Any) -> tuple[np.ndarray]:
    return (np.frombuffer(as_bytes(data).upper(), dtype=np.uint8).copy(),)


def _byte_class(data: Any, table: Any) -> tuple[np.ndarray]:
    return (np.frombuffer(as_bytes(data).translate(as_bytes(table)), dtype=np.uint8).copy(),)


def _split(data: Any, delim: int) -> tuple[np.ndarray, ...]:
    _check_delim(delim)
    text = as_bytes(data)
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for token in text.split(bytes([delim])):
        starts.append(at)
        ends.append(at + len(token))
        at += len(token) + 1
    return np.array(starts, np.uint32), np.array(ends, np.uint32), np.array([len(starts)], np.uint32)


class CaseLaws(KernelLaw):
    """Idempotent; op(other(x)) = op(x) for the other case map of the standard
    library (lower ∘ upper = lower); same length; only letters of the mapped
    case change, each by 0x20."""

    name = "CaseLaws"

    def __init__(self, upper: bool):
        self.upper = upper

    def check(self, op: Any, args: tuple[Any, ...]) -> str | None:
        data = as_bytes(args[0])
        out = as_bytes(L.run(op, data)[0])
        if len(out) != len(data):
            return f"{len(out)} bytes out for {len(data)} in"
        if as_bytes(L.run(op, out)[0]) != out:
            return "not idempotent"
        other = data.lower() if self.upper else data.upper()
        if as_bytes(L.run(op, other)[0]) != out:
            return f"op({'lower' if self.upper else 'upper'}(x)) != op(x)"
        letters = range(ord("a"), ord("z") + 1) if self.upper else range(ord("A"), ord("Z") + 1)
        for i, (a, b) in enumerate(zip(data, out)):
            if (b != a ^ 0x20) if a in letters else (b != a):
                return f"byte {i}: {a:#04x} -> {b:#04x}"
        return None


class TableLaws(KernelLaw):
    """The identity table maps x to itself; translating by t1 then t2 equals
    translating by t2[t1] (composition); the length is kept; the count of each
    class in the output is the sum of the input's counts of the bytes the table
    maps to it (class_count = Σ over the class)."""

    name = "TableLaws"

    def check(self, op: Any, args: tuple[Any, ...]) -> str | None:
        data, t1 = as_bytes(args[0]), np.asarray(args[1], dtype=np.uint8)
        identity = np.arange(256, dtype=np.uint8)
        if as_bytes(L.run(op, data, identity)[0]) != data:
            return "the identity table changes the input"
        t2 = np.roll(t1[::-1], 7)
        once = L.run(op, data, t1)[0]
        if len(once) != len(data):
            return f"{len(once)} bytes out for {len(data)} in"
        twice = as_bytes(L.run(op, as_bytes(once), t2)[0])
        if twice != as_bytes(L.run(op, data, t2[t1])[0]):
            return "op(op(x, t1), t2) != op(x, t2[t1])"
        counts = np.bincount(np.frombuffer(data, dtype=np.uint8), minlength=256)
        classes = np.zeros(256, dtype=np.int64)
        np.add.at(classes, t1.astype(np.int64), counts)
        if not np.array_equal(np.bincount(np.asarray(once, dtype=np.uint8), minlength=256), classes):
            return "the class counts of the output are not the input's counts summed over each class"
        return None


class SplitLaws(KernelLaw):
    """k = count(delim) + 1; the tokens joined by the delimiter give the input;
    no token holds the delimiter; starts[0] = 0, ends[k-1] = n, and each token
    starts one byte after the previous one ends."""

    name = "SplitLaws"

    def check(self, op: Any, args: tuple[Any, ...]) -> str | None:
        data, delim = as_bytes(args[0]), int(args[1])
        starts, ends, k = L.run(op, data, delim)
        sep = bytes([delim])
        if int(k[0]) != data.count(sep) + 1 or len(starts) != int(k[0]) or len(ends) != int(k[0]):
            return f"k = {int(k[0])} ({len(starts)} starts, {len(ends)} ends) for {data.count(sep)} delimiters"
        tokens = [data[int(s) : int(e)] for s, e in zip(starts, ends)]
        if sep.join(tokens) != data or any(sep in t for t in tokens):
            return "the tokens joined by the delimiter are not the input"
        if int(starts[0]) != 0 or int(ends[-1]) != len(data) or any(
            int(starts[j + 1]) != int(ends[j]) + 1 for j in range(len(starts) - 1)
        ):
            return "token boundaries are not delimiter positions"
        return None


def _case_spec(upper: bool) -> KernelSpec:
    name = "upper" if upper else "lower"

    def plan_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
        return _same_shape_batch(ascii_case_program(upper), size_column(sizes, "data"), 1, 1)

    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        return single(plan_many([sizes], [scalars]))

    reference: Callable[..., tuple[np.ndarray, ...]] = _upper if upper else _lower
    return KernelSpec(
        id=f"string.ascii_{name}",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.BYTES),),
        kind="map",
        reference=reference,
        plan=plan,
        plan_many=plan_many,
        summary=f"bytes.{name}(): only {'a-z' if upper else 'A-Z'} change; bytes >= 0x80 kept",
        laws=(CaseLaws(upper),),
        boundaries=BYTE_BOUNDARIES,
    )


def _byte_class_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
    batch = _same_shape_batch(byte_class_program(), size_column(sizes, "data"), CLASS_WORDS, WORKGROUP)
    return batch


def _byte_class_plan(sizes: Any, scalars: Any) -> KernelPlan:
    return single(_byte_class_many([sizes], [scalars]))


KERNELS = (
    _case_spec(False),
    _case_spec(True),
    KernelSpec(
        id="match.byte_class",
        version=1,
        inputs=(Port("data", DataType.BYTES), Port("table", DataType.BYTES)),
        outputs=(Port("out", DataType.BYTES),),
        kind="map",
        reference=_byte_class,
        plan=_byte_class_plan,
        plan_many=_byte_class_many,
        summary="out[i] = table[data[i]] with a 256-byte table (bytes.translate)",
        laws=(TableLaws(),),
        boundaries=BYTE_BOUNDARIES,
        check_args=_check_table,
        sample=S.byte_table,
    ),
    KernelSpec(
        id="string.split_offsets",
        version=1,
        inputs=(Port("data", DataType.BYTES), Port("delim", DataType.U32, scalar=True)),
        outputs=(
            Port("starts", DataType.U32, length_from="k"),
            Port("ends", DataType.U32, length_from="k"),
            Port("k", DataType.U32, scalar=True),
        ),
        kind="scan-based",
        reference=_split,
        plan=_split_plan,
        plan_many=_split_plan_many,
        summary="tokens of bytes.split(bytes([delim])) as [starts[j], ends[j]); k = count + 1",
        laws=(SplitLaws(),),
        boundaries=SCAN_BOUNDARIES,
        max_length=0xFFFF_FFFE,  # n + 1 tokens at most; `k` is a u32 (C5)
        check_args=_check_split,
        sample=S.split,
    ),
)
