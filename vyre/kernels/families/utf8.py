"""decode.utf8_validate: is a byte string well-formed UTF-8 (RFC 3629, Unicode
Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF, no truncated
sequence), and where is the first bad byte (docs/byte-codecs.md).

Outputs: `valid` (Bool, the primary output: `bytes.decode("utf-8")` succeeds),
`first_bad` (U32: `UnicodeDecodeError.start`, the start of the first maximal
ill-formed subsequence, NO_ERROR when valid) and `code` (U32: 0 when valid, 5
"truncated" when the input ends inside a sequence that was well formed so far,
CPython's "unexpected end of data", else 1 "invalid symbol": CPython's "invalid
start byte" or "invalid continuation byte"). A validator reports rather than
raises: `ops.evaluate` returns `valid`, `ops.evaluate_raw` all three.

GPU algorithm (reduce, one pass and a one-invocation finish; local
validation): invocation w owns the four bytes of word w. A word
with no byte >= 0x80 is valid as it is (the ASCII fast path: one load). Else it
loads the previous and the next word (12 bytes; bytes before 0 or past the input
read as NUL, which neither starts a multi-byte sequence nor continues one) and
computes, for the 7 positions q = -3..3 around it, V(q) = the length of the
well-formed sequence starting at q (0 if none) from a 256-entry lead table in
workgroup memory (length, and the range of the second byte: E0 -> A0..BF,
ED -> 80..9F, F0 -> 90..BF, F4 -> 80..8F). A position p of the word is bad when

- it is not a continuation byte and V(p) = 0, or
- it is a continuation byte and no well-formed sequence starting 1-3 bytes
  before covers it (V(p-1) < 2, V(p-2) < 3, V(p-3) < 4).

The first bad position is CPython's `start`: the bytes before the first error
are a tiling of well-formed sequences, each of which starts where its lead byte
is and covers its continuation bytes (a well-formed sequence is determined by
its lead byte), so none of them is flagged, and the first error's byte is (a
lead that starts no well-formed sequence, or a continuation byte that no
sequence of the tiling covers). `codec_common.first_error` takes the minimum
(atomicMin: deterministic); the finish step derives the code by re-reading the
sequence at that offset.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families import codec_laws as L
from vyre.kernels.families.codec_common import (
    BYTE_BOUNDARIES,
    ERROR_WORKGROUP,
    JOB_BUFFERS,
    byte_at,
    byte_of,
    field,
    first_error,
    groups_for,
    job_buffers,
    locate,
    one_each,
    single,
    unit_starts,
    word_starts,
)
from vyre.kernels.families.codec_host import as_bytes
from vyre.kernels.families.common import WORKGROUP
from vyre.kernels.spec import NO_ERROR, BatchPlan, Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step, size_column

__all__ = ["KERNELS", "lead_table", "validate_program"]


def lead_table() -> np.ndarray:
    """Per byte: the length of the sequence it leads (0: no lead: a
    continuation byte, C0, C1, F5..FF), the low and high bound of the second byte
    at bits 8 and 16."""
    table = np.zeros(256, dtype=np.uint32)
    for b in range(256):
        if b < 0x80:
            length = 1
        elif 0xC2 <= b <= 0xDF:
            length = 2
        elif 0xE0 <= b <= 0xEF:
            length = 3
        elif 0xF0 <= b <= 0xF4:
            length = 4
        else:
            continue
        low = {0xE0: 0xA0, 0xF0: 0x90}.get(b, 0x80)
        high = {0xED: 0x9F, 0xF4: 0x8F}.get(b, 0xBF)
        table[b] = length | low << 8 | high << 16
    return table


def _is_continuation(byte: Expr) -> Expr:
    return E.eq(E.bitand(byte, E.u32(0xC0)), E.u32(0x80))


def _sequence_length(name: str, entry: Expr, second: Expr, third: Expr, fourth: Expr) -> list[Node]:
    """`name` := V, the length of the well-formed sequence whose lead table
    entry is `entry` and whose next bytes are given (0 when it is none)."""
    length, e = E.var(f"{name}_l"), E.var(f"{name}_e")
    low = E.bitand(E.shr(e, E.u32(8)), E.u32(0xFF))
    span = E.sub(E.shr(e, E.u32(16)), low)
    second_ok = E.le(E.sub(second, low), span)
    ok = E.or_(
        E.eq(length, E.u32(1)),
        E.and_(
            E.and_(E.ge(length, E.u32(2)), second_ok),
            E.and_(
                E.or_(E.lt(length, E.u32(3)), _is_continuation(third)),
                E.or_(E.lt(length, E.u32(4)), _is_continuation(fourth)),
            ),
        ),
    )
    return [
        Node.let(f"{name}_e", entry),
        Node.let(f"{name}_l", E.bitand(e, E.u32(7))),
        Node.let(name, E.select(ok, length, E.u32(0))),
    ]


ROW = 2
"""Job row: [n, first input word] (`codec_common.JOB_BUFFERS`)."""


def _word(local_word: Expr) -> Expr:
    return E.load("data", E.add(E.var("in0"), local_word))


@cache
def validate_program() -> Program:
    """Invocation w of an evaluation checks the bytes of its word w; an
    evaluation owns whole workgroups (`starts` counts workgroups)."""
    n = E.var("n")
    local = E.local_id(0)
    w = E.var("w")
    slow: list[Node] = [
        Node.let("prev", E.select(E.eq(w, E.u32(0)), E.u32(0), _word(E.sub(w, E.u32(1))))),
        Node.let("next", _word(E.add(w, E.u32(1)))),
    ]
    # bytes -4..7 around the word; those at or past n read as 0 (NUL)
    start = E.var("at")
    for r in range(-4, 8):
        source = "prev" if r < 0 else "cur" if r < 4 else "next"
        raw = byte_of(E.var(source), r % 4)
        if r >= 0:
            raw = E.select(E.lt(E.add(start, E.u32(r)) if r else start, n), raw, E.u32(0))
        slow.append(Node.let(f"b{r + 4}", raw))

    def b(r: int) -> Expr:
        return E.var(f"b{r + 4}")

    for q in range(-3, 4):
        slow += _sequence_length(f"v{q + 3}", E.load("tbl", b(q)), b(q + 1), b(q + 2), b(q + 3))

    def v(q: int) -> Expr:
        return E.var(f"v{q + 3}")

    flags: list[Expr] = []
    for q in range(4):
        covered = E.or_(E.or_(E.ge(v(q - 1), E.u32(2)), E.ge(v(q - 2), E.u32(3))), E.ge(v(q - 3), E.u32(4)))
        flags.append(E.select(_is_continuation(b(q)), E.logical_not(covered), E.eq(v(q), E.u32(0))))
    first: Expr = E.u32(NO_ERROR)
    for q in range(3, -1, -1):
        first = E.select(flags[q], E.add(start, E.u32(q)) if q else start, first)
    slow.append(Node.assign("bad", first))
    body: list[Node] = [
        Node.store("tbl", local, E.load("table", local)),
        Node.barrier(),
        *locate(E.workgroup_id(0)),
        Node.let("n", field(E.var("job"), 0, ROW)),
        Node.let("in0", field(E.var("job"), 1, ROW)),
        Node.let("w", E.add(E.mul(E.sub(E.workgroup_id(0), E.load("job_starts", E.var("job"))), E.u32(WORKGROUP)), local)),
        Node.let("at", E.mul(w, E.u32(4))),
        Node.let("bad", E.u32(NO_ERROR)),
        Node.if_(
            E.lt(E.var("at"), n),
            [
                Node.let("cur", _word(w)),
                Node.if_(E.ne(E.bitand(E.var("cur"), E.u32(0x8080_8080)), E.u32(0)), slow),
            ],
        ),
        *first_error(E.var("bad"), "first_bad", E.var("job")),
    ]
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read("table", 1, DataType.U32),
            BufferDecl.read_write("first_bad", 2, DataType.U32),
            *JOB_BUFFERS,
            BufferDecl.workgroup("tbl", 256, DataType.U32),
            ERROR_WORKGROUP,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="utf8_validate",
    )


@cache
def finish_program() -> Program:
    """Invocation k: `valid` and the code of evaluation k's first bad sequence
    (5 when the input ends inside a sequence well formed so far, else 1)."""
    k = E.invocation_id(0)
    n, e = E.var("n"), E.var("e")
    entry = E.var("entry")
    length = E.bitand(entry, E.u32(7))
    low = E.bitand(E.shr(entry, E.u32(8)), E.u32(0xFF))
    high = E.shr(entry, E.u32(16))

    def byte(at: Expr) -> Expr:
        return byte_at("data", E.add(E.shl(E.var("in0"), E.u32(2)), at))

    body: list[Node] = [
        Node.let("n", field(k, 0, ROW)),
        Node.let("in0", field(k, 1, ROW)),
        Node.let("e", E.load("first_bad", k)),
        Node.let("entry", E.load("table", byte(e))),
        Node.let("code", E.u32(0)),
    ]
    for j in range(1, 4):
        at = E.add(e, E.u32(j))
        fits = E.le(E.sub(byte(at), low), E.sub(high, low)) if j == 1 else _is_continuation(byte(at))
        body.append(
            Node.if_(
                E.and_(E.eq(E.var("code"), E.u32(0)), E.lt(E.u32(j), length)),
                [
                    Node.if_(
                        E.ge(at, n),
                        [Node.assign("code", E.u32(5))],
                        [Node.if_(E.logical_not(fits), [Node.assign("code", E.u32(1))])],
                    )
                ],
            )
        )
    valid = E.eq(e, E.u32(NO_ERROR))
    body += [
        Node.store("valid", k, E.select(valid, E.u32(1), E.u32(0))),
        Node.store(
            "code", k, E.select(valid, E.u32(0), E.select(E.eq(E.var("code"), E.u32(5)), E.u32(5), E.u32(1)))
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read("table", 1, DataType.U32),
            BufferDecl.read("first_bad", 2, DataType.U32),
            BufferDecl.read_write("valid", 3, DataType.U32),
            BufferDecl.read_write("code", 4, DataType.U32),
            *JOB_BUFFERS,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[Node.if_(E.lt(k, E.load("job_params", E.u32(0))), body)],
        name="utf8_validate_finish",
    )


def _batch(ns: Sequence[int] | np.ndarray) -> BatchPlan:
    """Numpy passes over the input lengths `ns` (nothing per evaluation in Python)."""
    lengths = np.asarray(ns, dtype=np.int64).reshape(-1)
    ins = word_starts(lengths)
    starts = unit_starts(-(-np.diff(ins) // WORKGROUP))  # groups_for of each input's words
    count = len(lengths)
    buffers = (
        Buffer("valid", DataType.BOOL, count, fill=1),
        Buffer("first_bad", DataType.U32, count, fill=NO_ERROR),
        Buffer("code", DataType.U32, count),
        Buffer("table", DataType.U32, 256, words=lead_table()),
        *job_buffers(starts, np.stack([lengths, ins[:-1]], axis=1)),
    )
    steps: list[Step] = []
    if starts[-1]:
        grid = (int(starts[-1]), 1, 1)
        steps += [Step(validate_program(), grid), Step(finish_program(), (groups_for(count), 1, 1))]
    splits = {name: one_each(count) for name in ("valid", "first_bad", "code")}
    return BatchPlan(KernelPlan(buffers, tuple(steps)), splits)


def _plan(sizes: Any, scalars: Any) -> KernelPlan:
    return single(_batch([int(sizes["data"])]))


def _plan_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
    return _batch(size_column(sizes, "data"))


def _reference(data: Any) -> tuple[np.ndarray, ...]:
    """The UTF-8 codec of CPython."""
    try:
        as_bytes(data).decode("utf-8")
    except UnicodeDecodeError as error:
        code = 5 if error.reason == "unexpected end of data" else 1
        return (np.array([0], np.uint32), np.array([error.start], np.uint32), np.array([code], np.uint32))
    return (np.array([1], np.uint32), np.array([NO_ERROR], np.uint32), np.array([0], np.uint32))


class Agreement(KernelLaw):
    """valid <=> first_bad is NO_ERROR <=> code is 0; first_bad < n when invalid."""

    name = "Agreement"

    def check(self, op: Any, args: tuple[Any, ...]) -> str | None:
        valid, first_bad, code = (int(x[0]) for x in L.run(op, as_bytes(args[0])))
        n = len(np.asarray(args[0]))
        if (valid == 1) != (first_bad == NO_ERROR) or (valid == 1) != (code == 0):
            return f"valid {valid}, first_bad {first_bad}, code {code}"
        if not valid and (first_bad >= n or code not in (1, 5)):
            return f"invalid, with first_bad {first_bad} of {n} bytes and code {code}"
        return None


class ValidConcatenation(KernelLaw):
    """valid(a) and valid(b) => valid(a ‖ b); and any text re-encoded by
    CPython (`decode(errors="replace").encode()`) is valid."""

    name = "ValidConcatenation"

    def check(self, op: Any, args: tuple[Any, ...]) -> str | None:
        data = as_bytes(args[0])
        k = len(data) // 3
        a, b = data[:k], data[k:]

        def ok(text: bytes) -> bool:
            return int(L.run(op, text)[0][0]) == 1

        if ok(a) and ok(b) and not ok(data):
            return f"both parts (cut at {k}) are valid, the whole is not"
        repaired = data.decode("utf-8", errors="replace").encode("utf-8")
        if not ok(repaired):
            return "CPython's re-encoding of the text is reported invalid"
        return None


_LAWS: tuple[KernelLaw, ...] = (Agreement(), L.ValidPrefixBeforeError(error_output=1), ValidConcatenation())

KERNELS = (
    KernelSpec(
        id="decode.utf8_validate",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(
            Port("valid", DataType.BOOL, scalar=True),
            Port("first_bad", DataType.U32, scalar=True),
            Port("code", DataType.U32, scalar=True),
        ),
        kind="reduce",
        reference=_reference,
        plan=_plan,
        plan_many=_plan_many,
        summary="well-formed UTF-8 (RFC 3629); first_bad = UnicodeDecodeError.start, code 5 truncated / 1 invalid",
        laws=_LAWS,
        sample=S.utf8_text,
        boundaries=BYTE_BOUNDARIES,
    ),
)
