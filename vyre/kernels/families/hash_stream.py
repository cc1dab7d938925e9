"""Sequential hashes, one message per invocation (C2 kind `batch`):
FNV-1a, MurmurHash3, xxHash32 (`hash_words.py`), MD5, SHA-1, SHA-256
(`hash_digests.py`), and the one-invocation CRC and Adler walks of the batched
checksum plans (`hash_crc.py`, `hash_adler.py`) are built from this.

A *stream hash* walks a message in blocks (FNV, murmur, xxHash32, CRC, Adler:
16 bytes, `block_words` and `tail_nodes` handle the rest; MD5/SHA: a 64-byte
block of the padded message) carrying a state of `state_words` words, then
`finish` turns the state, the tail and the length into the output words. Nothing but
the order of the blocks is shared between messages, so the parallelism is
across messages: invocation t hashes message t.

**Messages.** The stream program reads a table `msgs` of (first byte, byte
count) per message over one packed Bytes buffer `data` (C1: four bytes per
word, padding unspecified). A single evaluation is the table [(0, n)]; a
batched one (`plan_many`, `ops.evaluate_many`) has every message starting on a
word (`batch_starts`). Words past a message's end are loaded (another
message's bytes, or the guarded read of 0 past the buffer) and masked by the
byte count: a hash never uses them.

**Long messages.** A long message is sequential work. So that no invocation
runs long in one dispatch (lavapipe stops a shader invocation silently after
65,535 back-edges; the reference interpreter refuses a dispatch predicted to
take more than about 15 s), a plan runs ceil(max blocks / `per_dispatch`)
dispatches of the same program: dispatch s walks blocks [s B, (s + 1) B) of
every message (fewer where a message has fewer), the first one starting from
`init`, the others from the state the previous one left in the buffer
`state`; the last one applies `finish` and writes `out`. Parameter words per
dispatch: [messages, first block, end block, first (0/1), last (0/1)].

**The `_batch` ops** (`batch_spec`, `hash.<h>_batch`): (Bytes data,
U32[] offsets) -> one output per message data[offsets[i]:offsets[i+1]], at any
byte offset (each word from two: (w[i] >> 8b) | (w[i+1] << (32 - 8b))). How
many blocks the longest message has is data, not a size, so the plan is
`Repeat` rounds (`offsets_program`): each message keeps a progress word, a
round walks up to `per_dispatch` blocks of every unfinished message and sets
a flag while any is left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families.common import param, params_buffer
from vyre.kernels.spec import BatchPlan, Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Repeat, Step, batch_starts

__all__ = [
    "DONE",
    "MAX_MESSAGE",
    "BatchEqualsSingle",
    "MessagesAlone",
    "PackedVectors",
    "batch_spec",
    "check_offsets",
    "clear_flag_program",
    "offsets_plan",
    "offsets_program",
    "Message",
    "StreamHash",
    "batch_plan",
    "block_words",
    "bswap",
    "rotl",
    "rotr",
    "single_plan",
    "stream_program",
    "table_plan",
    "tail_nodes",
]

MAX_MESSAGE = (1 << 32) - (1 << 16)
"""The longest message in bytes: positions up to n + 72 (the padded message)
stay below 2^32."""

MESSAGES, FIRST, END, IS_FIRST, IS_LAST = 0, 1, 2, 3, 4

WORKGROUP = 64
"""Invocations per workgroup of the stream programs: a single message is one
busy invocation, and the reference interpreter runs (and budgets) every lane of
a workgroup, so a small workgroup keeps one long message cheap there; on a GPU
64 is two warps, plenty per workgroup for a million messages."""


def rotl(x: Expr, s: int) -> Expr:
    """x rotated left by s; x is used twice, so pass a variable (an expression
    tree would be evaluated twice)."""
    return E.bitor(E.shl(x, E.u32(s)), E.shr(x, E.u32(32 - s)))


def rotr(x: Expr, s: int) -> Expr:
    """x rotated right by s (pass a variable, as for `rotl`)."""
    return E.bitor(E.shr(x, E.u32(s)), E.shl(x, E.u32(32 - s)))


def bswap(x: Expr) -> Expr:
    """The word with its four bytes reversed (little- <-> big-endian); pass a variable."""
    return E.bitor(
        E.bitor(E.shl(x, E.u32(24)), E.shl(E.bitand(x, E.u32(0xFF00)), E.u32(8))),
        E.bitor(E.bitand(E.shr(x, E.u32(8)), E.u32(0xFF00)), E.shr(x, E.u32(24))),
    )


@dataclass(frozen=True)
class Message:
    """The message of the current invocation, for a hash's IR builders."""

    n: Expr
    """Its byte count."""
    word: Callable[[Expr], Expr]
    """Word i of the message, little-endian (bytes 4i..4i+3; bytes at or past
    n are unspecified: mask them)."""

    def masked(self, i: Expr) -> Expr:
        """Word i with the bytes at or past n zeroed (a word wholly past n is 0)."""
        at = E.shl(i, E.u32(2))
        rem = E.sub(self.n, at)
        keep = E.select(
            E.ge(at, self.n),
            E.u32(0),
            E.select(E.ge(rem, E.u32(4)), E.u32(0xFFFF_FFFF), E.sub(E.shl(E.u32(1), E.shl(rem, E.u32(3))), E.u32(1))),
        )
        return E.bitand(self.word(i), keep)


def block_words(msg: Message, blk: Expr) -> list[Expr]:
    """The four words of 16-byte block `blk` of the message."""
    first = E.shl(blk, E.u32(2))
    return [msg.word(E.add(first, E.u32(j))) if j else msg.word(first) for j in range(4)]


def tail_nodes(
    msg: Message,
    on_word: Callable[[Expr], list[Node]],
    on_bytes: Callable[[Expr, Expr], list[Node]],
) -> list[Node]:
    """The message past its 16-byte blocks: up to three whole words
    (`on_word(w)` each), then `on_bytes(tail word, byte count)` for the 0-3 last
    bytes (the tail word with the bytes past n zeroed)."""
    n = msg.n
    start = E.bitand(E.shr(n, E.u32(2)), E.u32(0xFFFF_FFFC))
    words = E.shr(E.bitand(n, E.u32(15)), E.u32(2))
    out: list[Node] = []
    for j in range(3):
        out.append(Node.if_(E.lt(E.u32(j), words), on_word(msg.word(E.add(start, E.u32(j))))))
    out += on_bytes(msg.masked(E.shr(n, E.u32(2))), E.bitand(n, E.u32(3)))
    return out


@dataclass(frozen=True)
class StreamHash:
    """What `hash_stream` needs of a sequential hash (see the module doc)."""

    name: str
    state_words: int
    out_words: int
    """Output words per message (U32 hashes: 1; digests: 4, 5, 8)."""
    init: Callable[[Expr], list[Expr]]
    """(n) -> the initial state."""
    blocks: Callable[[Expr], Expr]
    """(n) -> how many blocks the streaming loop walks."""
    host_blocks: Callable[[int], int]
    """`blocks` on the host (the number of dispatches depends on the longest
    message); non-decreasing in n (a batch's plan takes it of the longest)."""
    block: Callable[[Sequence[str], Message, Expr], list[Node]]
    """(state variable names, the message, block index) -> nodes updating the state."""
    finish: Callable[[Sequence[str], Message], tuple[list[Node], list[Expr]]]
    """(state variable names, the message) -> (nodes, the output words)."""
    per_dispatch: int
    """Blocks per invocation and dispatch (lavapipe's loop limit, see the module doc)."""
    constants: tuple[int, ...] = ()
    """Words of a read-only constant buffer `k` the block function reads (SHA-256's K)."""


def _message(unaligned: bool) -> Message:
    base = E.var("base")
    if not unaligned:
        return Message(E.var("n"), lambda i: E.load("data", E.add(base, i)))
    shift = E.var("shift")

    def word(i: Expr) -> Expr:
        # (low >> 8b) | (high << (32 - 8b)), written so that b = 0 needs no
        # select: (high << 1) << (31 - 8b) is 0 then; each word loaded once
        at = E.add(base, i)
        high = E.load("data", E.add(at, E.u32(1)))
        return E.bitor(E.shr(E.load("data", at), shift), E.shl(E.shl(high, E.u32(1)), E.sub(E.u32(31), shift)))

    return Message(E.var("n"), word)


def _walk(h: StreamHash, msg: Message, st: Sequence[str], first: Expr, end: Expr) -> list[Node]:
    """Blocks [first, min(end, blocks(n))) of the message into the state; `_end`
    holds where the walk stopped."""
    stop = E.var("_end")
    return [
        Node.let("_end", h.blocks(msg.n)),
        Node.if_(E.gt(stop, end), [Node.assign("_end", end)]),
        Node.loop("blk", first, stop, h.block(st, msg, E.var("blk"))),
    ]


def _write(h: StreamHash, msg: Message, st: Sequence[str], t: Expr) -> list[Node]:
    """`finish`, and the output words of message t."""
    finish_nodes, words = h.finish(st, msg)
    out_at = E.mul(t, E.u32(h.out_words))
    return [*finish_nodes, *[Node.store("out", E.add(out_at, E.u32(k)), w) for k, w in enumerate(words)]]


def _buffers(h: StreamHash, table: str) -> list[BufferDecl]:
    buffers = [
        BufferDecl.read("data", 0, DataType.U32),
        BufferDecl.read(table, 1, DataType.U32),
        BufferDecl.read_write("state", 2, DataType.U32),
        BufferDecl.read_write("out", 3, DataType.U32),
        BufferDecl.uniform("params", 4, DataType.U32),
    ]
    if h.constants:
        buffers.append(BufferDecl.read("k", 5, DataType.U32))
    return buffers


def _invocation() -> Node:
    return Node.let("t", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), E.local_id(0)))


@cache
def stream_program(h: StreamHash) -> Program:
    """The program of every dispatch of hash `h` over a message table (see the
    module doc): messages start on a word."""
    t = E.var("t")
    st = [f"h{k}" for k in range(h.state_words)]
    msg = _message(False)
    head: list[Node] = [
        Node.let("n", E.load("msgs", E.add(E.mul(t, E.u32(2)), E.u32(1)))),
        Node.let("base", E.shr(E.load("msgs", E.mul(t, E.u32(2))), E.u32(2))),
    ]
    state_at = E.mul(t, E.u32(h.state_words))
    head += [Node.let(name, E.u32(0)) for name in st]
    init = [Node.assign(name, value) for name, value in zip(st, h.init(msg.n))]
    load = [Node.assign(name, E.load("state", E.add(state_at, E.u32(k)))) for k, name in enumerate(st)]
    head.append(Node.if_(E.ne(param(IS_FIRST), E.u32(0)), init, load))
    walk = _walk(h, msg, st, param(FIRST), param(END))
    keep = [Node.store("state", E.add(state_at, E.u32(k)), E.var(name)) for k, name in enumerate(st)]
    tail = [Node.if_(E.ne(param(IS_LAST), E.u32(0)), _write(h, msg, st, t), keep)]
    body: list[Node] = [_invocation(), Node.if_(E.lt(t, param(MESSAGES)), [*head, *walk, *tail])]
    return Program(
        buffers=_buffers(h, "msgs"),
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"{h.name}_stream",
    )


DONE = 0xFFFF_FFFF
"""Progress word of a message whose output is written."""


@cache
def offsets_program(h: StreamHash) -> Program:
    """One round of hash `h` over messages data[offsets[t]:offsets[t+1]] at any
    byte offset (the `_batch` ops). Each message keeps a progress word before
    its state in `state`: 0 not started (start from `init`), k + 1 (blocks
    0..k-1 done), DONE (output written). A round walks up to `per_dispatch`
    blocks of every unfinished message, writes the output of those it
    finishes and sets flag[0] when any is left (a round after the last changes
    nothing). params = [messages, per_dispatch]."""
    t = E.var("t")
    st = [f"h{k}" for k in range(h.state_words)]
    msg = _message(True)
    at = E.mul(t, E.u32(h.state_words + 1))
    progress = E.var("progress")
    start = E.var("start")
    work: list[Node] = [
        Node.let("start", E.load("offsets", t)),
        Node.let("n", E.sub(E.load("offsets", E.add(t, E.u32(1))), start)),
        Node.let("base", E.shr(start, E.u32(2))),
        Node.let("shift", E.shl(E.bitand(start, E.u32(3)), E.u32(3))),
        Node.let("first", E.select(E.eq(progress, E.u32(0)), E.u32(0), E.sub(progress, E.u32(1)))),
        *[Node.let(name, E.u32(0)) for name in st],
    ]
    init = [Node.assign(name, value) for name, value in zip(st, h.init(msg.n))]
    load = [Node.assign(name, E.load("state", E.add(at, E.u32(k + 1)))) for k, name in enumerate(st)]
    work.append(Node.if_(E.eq(progress, E.u32(0)), init, load))
    work += _walk(h, msg, st, E.var("first"), E.add(E.var("first"), param(1)))
    done = [*_write(h, msg, st, t), Node.store("state", at, E.u32(DONE))]
    more = [
        *[Node.store("state", E.add(at, E.u32(k + 1)), E.var(name)) for k, name in enumerate(st)],
        Node.store("state", at, E.add(E.var("_end"), E.u32(1))),
        Node.let("_was", E.atomic(AtomicOp.OR, "flag", E.u32(0), E.u32(1))),
    ]
    work.append(Node.if_(E.eq(E.var("_end"), h.blocks(msg.n)), done, more))
    body: list[Node] = [
        _invocation(),
        Node.if_(
            E.lt(t, param(MESSAGES)),
            [Node.let("progress", E.load("state", at)), Node.if_(E.ne(progress, E.u32(DONE)), work)],
        ),
    ]
    return Program(
        buffers=[*_buffers(h, "offsets"), BufferDecl.read_write("flag", 6, DataType.U32)],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"{h.name}_offsets",
    )


@cache
def clear_flag_program() -> Program:
    """flag[0] = 0 (the first step of an `offsets_program` round)."""
    return Program(
        buffers=[BufferDecl.read_write("flag", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[Node.store("flag", E.u32(0), E.u32(0))],
        name="hash_clear_flag",
    )


def table_plan(
    h: StreamHash,
    source: str,
    table: np.ndarray,
    lengths: Sequence[int] | np.ndarray,
    out: Buffer,
) -> KernelPlan:
    """The dispatches over messages (first byte, byte count) = `table` (2 words
    per message) of input `source`, writing `out` (`out_words` per message)."""
    messages = len(lengths)
    buffers: list[Buffer] = [out]
    if messages == 0:
        return KernelPlan(tuple(buffers), ())
    # host_blocks is non-decreasing: the longest message has the most blocks
    longest = h.host_blocks(int(np.max(lengths)) if isinstance(lengths, np.ndarray) else max(lengths))
    dispatches = max(1, -(-longest // h.per_dispatch))
    buffers.append(Buffer("msgs", DataType.U32, len(table), words=table.astype(np.uint32)))
    state = "state" if dispatches > 1 else "no_state"
    buffers.append(Buffer(state, DataType.U32, messages * h.state_words if dispatches > 1 else 1))
    bind = {"data": source, "state": state}
    if h.constants:
        buffers.append(Buffer("k", DataType.U32, len(h.constants), words=np.array(h.constants, dtype=np.uint32)))
    groups = -(-messages // WORKGROUP)
    program = stream_program(h)
    steps: list[Step] = []
    for s in range(dispatches):
        name = f"p{s}"
        first, end = s * h.per_dispatch, (s + 1) * h.per_dispatch
        buffers.append(params_buffer(name, [messages, first, end, int(s == 0), int(s == dispatches - 1)]))
        steps.append(Step(program, (groups, 1, 1), {**bind, "params": name}))
    return KernelPlan(tuple(buffers), tuple(steps))


def _out(h: StreamHash, dtype: DataType, messages: int) -> Buffer:
    if dtype is DataType.BYTES:
        return Buffer("out", DataType.BYTES, 4 * h.out_words * messages)
    return Buffer("out", dtype, h.out_words * messages)


def single_plan(h: StreamHash, n: int, dtype: DataType) -> KernelPlan:
    """One message: the whole input `data` of n bytes."""
    table = np.array([0, n], dtype=np.uint32)
    return table_plan(h, "data", table, [n], _out(h, dtype, 1))


def batch_plan(h: StreamHash, sizes: Sequence[int] | np.ndarray, dtype: DataType) -> BatchPlan:
    """`plan_many`: the evaluations' inputs laid end to end (each on a word),
    one invocation per message; output k at words [k O, (k + 1) O). Numpy
    passes over the message lengths: nothing per message in Python; the
    splits are an (evaluations, 2) array."""
    lengths = np.asarray(sizes, dtype=np.int64).reshape(-1)
    messages = len(lengths)
    starts = batch_starts(DataType.BYTES, lengths)
    table = np.empty(2 * messages, dtype=np.uint32)
    table[0::2] = starts[:-1] * 4
    table[1::2] = lengths
    plan = table_plan(h, "data", table, lengths, _out(h, dtype, messages))
    splits = np.empty((messages, 2), dtype=np.int64)
    splits[:, 0] = np.arange(messages, dtype=np.int64) * h.out_words
    splits[:, 1] = 4 * h.out_words if dtype is DataType.BYTES else h.out_words
    return BatchPlan(plan, {"out": splits})


class BatchEqualsSingle(KernelLaw):
    """batch(i) = single(i): the op over a batch of messages in
    one evaluation (`ops.evaluate_many`, the batched plan: every message in its
    own invocation of the same dispatches) equals the op on each message alone.
    The batch is the case's message cut a third of the way, the longer part
    first, so messages of two lengths sit side by side (the case itself is
    evaluated in batches by the reference check).

    It needs the batched form of the op from the proof system (`op.many`, a
    list of argument tuples -> their outputs) and reports a violation when
    that is missing, never a silent pass."""

    name = "BatchEqualsSingle"

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        many: Callable[[list[tuple[Any, ...]]], list[tuple[np.ndarray, ...]]] | None = getattr(op, "many", None)
        if many is None:
            return "no batched form of the op to compare with (op.many)"
        x = np.asarray(args[0], dtype=np.uint8)
        k = len(x) // 3
        messages = [x[k:], x[:k]]
        batched = many([(m,) for m in messages])
        for i, (message, got) in enumerate(zip(messages, batched)):
            alone = op(message)[0]
            if got[0].tobytes() != alone.tobytes():
                return (
                    f"message {i} of a batch ({len(message)} bytes) hashes to {got[0].tobytes().hex()}"
                    f" but alone to {alone.tobytes().hex()}"
                )
        return None


# ---------------------------------------------------------------------------
# The `_batch` ops: (data, offsets) -> one output per message
# ---------------------------------------------------------------------------


def offsets_plan(h: StreamHash, data_bytes: int, entries: int, dtype: DataType) -> KernelPlan:
    """Messages data[offsets[t]:offsets[t+1]] for t < entries - 1: rounds of
    [clear the flag, walk] until no message is left (`Repeat`); a message can be
    as long as the data, so at most ceil(blocks(data) / per_dispatch) rounds."""
    messages = max(0, entries - 1)
    out = _out(h, dtype, messages)
    if messages == 0:
        return KernelPlan((out,), ())
    rounds = max(1, -(-h.host_blocks(data_bytes) // h.per_dispatch))
    buffers = [
        out,
        Buffer("state", DataType.U32, messages * (h.state_words + 1)),
        Buffer("flag", DataType.U32, 1),
        params_buffer("params", [messages, h.per_dispatch]),
    ]
    if h.constants:
        buffers.append(Buffer("k", DataType.U32, len(h.constants), words=np.array(h.constants, dtype=np.uint32)))
    steps = (
        Step(clear_flag_program(), (1, 1, 1)),
        Step(offsets_program(h), (-(-messages // WORKGROUP), 1, 1)),
    )
    return KernelPlan(tuple(buffers), steps, repeats=(Repeat(0, 2, until="flag", max_rounds=rounds, rounds_per_check=1),))


def check_offsets(op_id: str, out_bytes: int = 0) -> Callable[[tuple[Any, ...]], None]:
    """The argument check of a `_batch` op: offsets non-decreasing, within the
    data; with Bytes outputs of `out_bytes` a message, at most
    (2^32 - 1) // out_bytes messages (C5: the output's byte count is a u32),
    checked before the offsets are read."""
    most = 0xFFFF_FFFF // out_bytes if out_bytes else None

    def check(args: tuple[Any, ...]) -> None:
        where = f"input `offsets` of `{op_id}`"
        if most is not None and len(args[1]) - 1 > most:
            raise ValueError(
                f"{where} has {len(args[1])} entries ({len(args[1]) - 1} messages); `{op_id}` takes at most"
                f" {most} messages (their {out_bytes}-byte digests must fit 2^32 - 1 bytes)"
            )
        data, offsets = np.asarray(args[0]), np.asarray(args[1], dtype=np.int64)
        if len(offsets) == 0:
            raise ValueError(f"{where} must hold at least one entry (n + 1 entries for n messages)")
        bad = np.flatnonzero(offsets[1:] < offsets[:-1])
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{where} must be non-decreasing: offsets[{i + 1}] = {offsets[i + 1]} < offsets[{i}] = {offsets[i]}")
        if int(offsets[-1]) > len(data):
            raise ValueError(f"{where} ends at {int(offsets[-1])}, past the {len(data)} bytes of `data`")

    return check


def _slice(out: np.ndarray, i: int, width: int) -> np.ndarray:
    return out[i * width : (i + 1) * width]


class MessagesAlone(KernelLaw):
    """batch(i) = single(i) for a `_batch` op: message i of the batch hashes as
    it does alone (data = the message, offsets = [0, len]), for the first, a
    middle and the last message (every byte offset and length occurs among the
    cases)."""

    name = "BatchEqualsSingle"

    def __init__(self, width: int):
        self.width = width
        """Output elements per message."""

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        data, offsets = np.asarray(args[0], dtype=np.uint8), np.asarray(args[1], dtype=np.uint32)
        messages = len(offsets) - 1
        if messages <= 0:
            return None
        out = op(data, offsets)[0]
        for i in sorted({0, messages // 2, messages - 1}):
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            alone = op(data[lo:hi].copy(), np.array([0, hi - lo], dtype=np.uint32))[0]
            mine = _slice(out, i, self.width)
            if alone.tobytes() != mine.tobytes():
                return f"message {i} (bytes {lo}..{hi}) is {mine.tobytes().hex()} in the batch but {alone.tobytes().hex()} alone"
        return None


class PackedVectors(KernelLaw):
    """The published vectors as one batch, each after a one-byte gap (so they
    start at every byte offset), equal their published values."""

    name = "PublishedVectors"

    def __init__(self, vectors: Sequence[tuple[bytes, Any]], width: int):
        self.vectors = tuple(vectors)
        self.width = width

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        data = b""
        offsets: list[int] = []
        for message, _ in self.vectors:
            data += b"\xa5"
            offsets.append(len(data))
            data += message
            offsets.append(len(data))
        # message 2k is a vector, message 2k + 1 the gap byte after it
        out = op(np.frombuffer(data, dtype=np.uint8), np.array(offsets, dtype=np.uint32))[0]
        for k, (message, expected) in enumerate(self.vectors):
            got = _slice(out, 2 * k, self.width)
            value = got.tobytes() if isinstance(expected, bytes) else int(got[0])
            if value != expected:
                return f"{message[:16]!r} in a batch hashes to {got.tobytes().hex()}, published {expected!r}"
        return None


def batch_spec(
    op_id: str,
    h: StreamHash,
    dtype: DataType,
    one: Callable[[bytes], Any],
    summary: str,
    vectors: Sequence[tuple[bytes, Any]],
    boundaries: tuple[int, ...],
    version: int = 1,
) -> KernelSpec:
    """`hash.<h>_batch`: (Bytes data, U32[] offsets) -> one output
    per message data[offsets[i]:offsets[i+1]] (U32[n], or the digests end to
    end as Bytes); `one` is the single-message reference (an int or bytes)."""
    width = 4 * h.out_words if dtype is DataType.BYTES else h.out_words

    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        return offsets_plan(h, int(sizes["data"]), int(sizes["offsets"]), dtype)

    def reference(data: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray]:
        raw = np.asarray(data, dtype=np.uint8).tobytes()
        cuts = [int(o) for o in np.asarray(offsets)]
        values = [one(raw[cuts[i] : cuts[i + 1]]) for i in range(len(cuts) - 1)]
        if dtype is DataType.BYTES:
            return (np.frombuffer(b"".join(values), dtype=np.uint8).copy(),)
        return (np.array(values, dtype=np.uint32),)

    return KernelSpec(
        id=op_id,
        version=version,
        inputs=(Port("data", DataType.BYTES), Port("offsets", DataType.U32)),
        outputs=(Port("out", dtype),),
        kind="batch",
        reference=reference,
        plan=plan,
        summary=summary,
        laws=(MessagesAlone(width), PackedVectors(vectors, width)),
        boundaries=boundaries,
        max_length=MAX_MESSAGE,
        check_args=check_offsets(op_id, width if dtype is DataType.BYTES else 0),
        sample=S.hash_batch,
    )
