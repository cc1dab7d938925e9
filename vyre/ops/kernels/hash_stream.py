"""Sequential hashes, one message per invocation (oplib.md C2 kind `batch`):
FNV-1a, MurmurHash3, xxHash32 (`hash_words.py`), MD5, SHA-1, SHA-256
(`hash_digests.py`) are built from this.

A *stream hash* walks a message in blocks of `block_words` words (FNV and
murmur: one word; xxHash32: a 16-byte stripe; MD5/SHA: a 64-byte block of the
padded message) carrying a state of `state_words` words, then `finish` turns
the state, the tail bytes and the length into the output words. Nothing but
the order of the blocks is shared between messages, so the parallelism is
across messages: invocation t hashes message t.

**Messages.** The program reads a table `msgs` of (first byte, byte count) per
message over one packed Bytes buffer `data` (C1: four bytes per word, padding
unspecified). A single evaluation is the table [(0, n)]; a batched one
(`plan_many`, `ops.evaluate_many`) has every message starting on a word
(`batch_starts`). The `unaligned` program variant reads messages at any byte
offset (each word from two: (w[i] >> 8b) | (w[i+1] << (32 - 8b))). Words past a
message's end are loaded (another message's bytes, or the guarded read of 0
past the buffer) and masked by the byte count: a hash never uses them.

**Long messages.** A long message is sequential work. So that no invocation
runs more than a few thousand loop iterations in one dispatch (lavapipe stops
a shader invocation silently after 65,535 back-edges), a plan runs
ceil(max blocks / `per_dispatch`) dispatches of the same program: dispatch s
walks blocks [s B, (s + 1) B) of every message (fewer where a message has
fewer), the first one starting from `init`, the others from the state the
previous one left in the buffer `state`; the last one applies `finish` and
writes `out`. Parameter words per dispatch: [messages, first block, end block,
first (0/1), last (0/1)].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.ops.kernel import BatchPlan, Buffer, KernelLaw, KernelPlan, Step, batch_starts
from vyre.ops.kernels.common import WORKGROUP, param, params_buffer

__all__ = [
    "MAX_MESSAGE",
    "BatchEqualsSingle",
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


def rotl(x: Expr, s: int) -> Expr:
    return E.bitor(E.shl(x, E.u32(s)), E.shr(x, E.u32(32 - s)))


def rotr(x: Expr, s: int) -> Expr:
    return E.bitor(E.shr(x, E.u32(s)), E.shl(x, E.u32(32 - s)))


def bswap(x: Expr) -> Expr:
    """The word with its four bytes reversed (little- <-> big-endian)."""
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
        keep = E.sub(E.shl(E.u32(1), E.shl(rem, E.u32(3))), E.u32(1))
        return E.select(
            E.ge(at, self.n),
            E.u32(0),
            E.select(E.ge(rem, E.u32(4)), self.word(i), E.bitand(self.word(i), keep)),
        )

    def byte(self, index: Expr) -> Expr:
        """Byte `index` of the message (index < n)."""
        shift = E.shl(E.bitand(index, E.u32(3)), E.u32(3))
        return E.bitand(E.shr(self.word(E.shr(index, E.u32(2))), shift), E.u32(0xFF))


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
    """`blocks` on the host (the number of dispatches depends on the longest message)."""
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
        at = E.add(base, i)
        low = E.load("data", at)
        funnel = E.bitor(E.shr(low, shift), E.shl(E.load("data", E.add(at, E.u32(1))), E.sub(E.u32(32), shift)))
        return E.select(E.eq(shift, E.u32(0)), low, funnel)

    return Message(E.var("n"), word)


@cache
def stream_program(h: StreamHash, unaligned: bool = False) -> Program:
    """The program of every dispatch of hash `h` (see the module doc)."""
    t = E.var("t")
    st = [f"h{k}" for k in range(h.state_words)]
    msg = _message(unaligned)
    start = E.load("msgs", E.mul(t, E.u32(2)))
    head: list[Node] = [
        Node.let("n", E.load("msgs", E.add(E.mul(t, E.u32(2)), E.u32(1)))),
        Node.let("base", E.shr(start, E.u32(2))),
    ]
    if unaligned:
        head.append(Node.let("shift", E.shl(E.bitand(start, E.u32(3)), E.u32(3))))
    state_at = E.mul(t, E.u32(h.state_words))
    head += [Node.let(name, E.u32(0)) for name in st]
    init = [Node.assign(name, value) for name, value in zip(st, h.init(msg.n))]
    load = [Node.assign(name, E.load("state", E.add(state_at, E.u32(k)))) for k, name in enumerate(st)]
    head.append(Node.if_(E.ne(param(IS_FIRST), E.u32(0)), init, load))
    end = E.var("end")
    walk = [
        Node.let("end", h.blocks(msg.n)),
        Node.if_(E.gt(end, param(END)), [Node.assign("end", param(END))]),
        Node.loop("blk", param(FIRST), end, h.block(st, msg, E.var("blk"))),
    ]
    finish_nodes, words = h.finish(st, msg)
    out_at = E.mul(t, E.u32(h.out_words))
    write = [*finish_nodes, *[Node.store("out", E.add(out_at, E.u32(k)), w) for k, w in enumerate(words)]]
    keep = [Node.store("state", E.add(state_at, E.u32(k)), E.var(name)) for k, name in enumerate(st)]
    tail = [Node.if_(E.ne(param(IS_LAST), E.u32(0)), write, keep)]
    body: list[Node] = [
        Node.let("t", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), E.local_id(0))),
        Node.if_(E.lt(t, param(MESSAGES)), [*head, *walk, *tail]),
    ]
    buffers = [
        BufferDecl.read("data", 0, DataType.U32),
        BufferDecl.read("msgs", 1, DataType.U32),
        BufferDecl.read_write("state", 2, DataType.U32),
        BufferDecl.read_write("out", 3, DataType.U32),
        BufferDecl.uniform("params", 4, DataType.U32),
    ]
    if h.constants:
        buffers.append(BufferDecl.read("k", 5, DataType.U32))
    return Program(
        buffers=buffers,
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"{h.name}_{'unaligned' if unaligned else 'stream'}",
    )


def table_plan(
    h: StreamHash,
    source: str,
    table: np.ndarray,
    lengths: Sequence[int],
    out: Buffer,
    unaligned: bool = False,
) -> KernelPlan:
    """The dispatches over messages (first byte, byte count) = `table` (2 words
    per message) of input `source`, writing `out` (`out_words` per message)."""
    messages = len(lengths)
    buffers: list[Buffer] = [out]
    if messages == 0:
        return KernelPlan(tuple(buffers), ())
    longest = max(h.host_blocks(n) for n in lengths)
    dispatches = max(1, -(-longest // h.per_dispatch))
    buffers.append(Buffer("msgs", DataType.U32, len(table), words=table.astype(np.uint32)))
    state = "state" if dispatches > 1 else "no_state"
    buffers.append(Buffer(state, DataType.U32, messages * h.state_words if dispatches > 1 else 1))
    bind = {"data": source, "state": state}
    if h.constants:
        buffers.append(Buffer("k", DataType.U32, len(h.constants), words=np.array(h.constants, dtype=np.uint32)))
    groups = -(-messages // WORKGROUP)
    program = stream_program(h, unaligned)
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


def batch_plan(h: StreamHash, sizes: Sequence[int], dtype: DataType) -> BatchPlan:
    """`plan_many`: the evaluations' inputs laid end to end (each on a word),
    one invocation per message; output k at words [k O, (k + 1) O)."""
    starts = batch_starts(DataType.BYTES, sizes)
    table = np.empty(2 * len(sizes), dtype=np.uint32)
    table[0::2] = np.asarray(starts[:-1], dtype=np.uint64) * 4
    table[1::2] = np.asarray(sizes, dtype=np.uint64)
    plan = table_plan(h, "data", table, sizes, _out(h, dtype, len(sizes)))
    count = 4 * h.out_words if dtype is DataType.BYTES else h.out_words
    splits = tuple((k * h.out_words, count) for k in range(len(sizes)))
    return BatchPlan(plan, {"out": splits})


class BatchEqualsSingle(KernelLaw):
    """batch(i) = single(i) (oplib.md §14): the op over a batch of messages in
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
