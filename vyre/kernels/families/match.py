"""match.find_all: every start of a needle in a haystack (docs/kernel-library.md).

`match.find_all(hay, needle)` (Bytes, Bytes -> U32[], U32 count): the start of
every occurrence of `needle` in `hay`, overlapping ones included, ascending:
`[m.start() for m in re.finditer(b"(?=" + re.escape(needle) + b")", hay)]`.
Hence an empty needle occurs at every position 0..n (n + 1 starts, as `re` and
`bytes.find(b"", i)` say), and a needle longer than the haystack nowhere. The
output's length is `count` (`Port.length_from`).

Over the P = n - m + 1 candidate starts (P = 0 when m > n):

1. Filter (`compaction.bits_program`): start p is a candidate when the first
   min(m, 4) bytes at p equal the needle's and (m >= 4) the last four bytes
   (p + m - 4 ..) equal the needle's last four (Muła's first/last filter, four
   bytes a side; unaligned words are two loads and a funnel shift). For m <= 8
   the two windows cover the needle: the filter is exact.
2. Verify (m > 8): a two-dimensional dispatch, x over the candidate words (32
   starts each), y over the needle in chunks of CHUNK = 512 bytes. An
   invocation whose word has candidates compares its chunk at each of them
   (at most 32 x 128 word comparisons, far below lavapipe's loop cap whatever
   m is) and clears the starts that differ with `atomicAnd` (the final value of
   an AND does not depend on the schedule, C4). A word with no candidate costs
   one load. Long needles therefore work at any length; the work is
   O(P · m / (32 · CHUNK)) loads for the dispatch plus the comparisons of the
   candidates (worst case, every start a candidate, e.g. all-equal bytes: the
   naive search's P · m byte comparisons, spread over the invocations).
3. Compaction of the remaining flags (`compaction`: tile counts, scan, ranked
   scatter of the start itself): the output is in ascending order on every
   device.

Padding bytes of the last word of either input are never compared: every
window compared lies below n (haystack) and m (needle), and partial words are
masked (`wordwise.byte_mask`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families import compaction as C
from vyre.kernels.families.common import WORKGROUP, param, params_buffer
from vyre.kernels.families.wordwise import byte_mask, unaligned
from vyre.kernels.spec import Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step

__all__ = ["CHUNK", "EXACT_FILTER", "KERNELS"]

CHUNK = 512
"""Needle bytes one verifying invocation compares at each of its candidates."""
EXACT_FILTER = 8
"""Needles up to this length are decided by the filter alone."""

Op = Callable[..., tuple[np.ndarray, ...]]


# ---------------------------------------------------------------------------
# 1. the filter: params = [P, n, m]
# ---------------------------------------------------------------------------


def _needle_ends() -> list[Node]:
    """The needle's first min(m, 4) bytes and last four, once per invocation."""
    m = param(2)
    tail_nodes, tail = unaligned("needle", E.select(E.ge(m, E.u32(4)), E.sub(m, E.u32(4)), E.u32(0)), "nt")
    return [
        Node.let("_nh", E.bitand(E.load("needle", E.u32(0)), byte_mask(m))),
        *tail_nodes,
        Node.let("_nt", tail),
    ]


def _candidate(p: Expr) -> tuple[list[Node], Expr]:
    m = param(2)
    head_nodes, head = unaligned("hay", p, "h")
    last = E.select(E.ge(m, E.u32(4)), E.sub(E.add(p, m), E.u32(4)), p)
    tail_nodes, tail = unaligned("hay", last, "t")
    nodes = [*head_nodes, Node.let("_hh", head), *tail_nodes, Node.let("_ht", tail)]
    head_ok = E.eq(E.bitand(E.bitxor(E.var("_hh"), E.var("_nh")), byte_mask(m)), E.u32(0))
    tail_ok = E.or_(E.lt(m, E.u32(4)), E.eq(E.var("_ht"), E.var("_nt")))
    return nodes, E.and_(head_ok, tail_ok)


@cache
def filter_program() -> Program:
    return C.bits_program("find_all_filter", ["hay", "needle"], _candidate, _needle_ends())


# ---------------------------------------------------------------------------
# 2. verification of long needles: params = [P, n, m, words of bits]
# ---------------------------------------------------------------------------


@cache
def verify_program() -> Program:
    """Workgroup (x, y): candidate words x * 256 .. + 255, needle chunk y."""
    local = E.local_id(0)
    m = param(2)
    w = E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), local)
    start = E.mul(E.workgroup_id(1), E.u32(CHUNK))
    length = E.select(E.lt(E.sub(m, E.var("_cs")), E.u32(CHUNK)), E.sub(m, E.var("_cs")), E.u32(CHUNK))
    hay_nodes, hay_word = unaligned("hay", E.add(E.var("_p"), E.var("_nb")), "v")
    compare = [
        Node.let("_nb", E.add(E.var("_cs"), E.shl(E.var("_t"), E.u32(2)))),
        *hay_nodes,
        Node.let("_d", E.bitxor(hay_word, E.load("needle", E.shr(E.var("_nb"), E.u32(2))))),
        Node.assign("_mis", E.bitor(E.var("_mis"), E.bitand(E.var("_d"), byte_mask(E.sub(m, E.var("_nb")))))),
    ]
    candidate = [
        Node.let("_s", E.ctz(E.var("_rest"))),
        Node.assign("_rest", E.bitand(E.var("_rest"), E.sub(E.var("_rest"), E.u32(1)))),
        Node.let("_p", E.add(E.shl(E.var("_w"), E.u32(5)), E.var("_s"))),
        Node.let("_mis", E.u32(0)),
        Node.loop(
            "_t",
            E.u32(0),
            E.shr(E.add(E.var("_len"), E.u32(3)), E.u32(2)),
            [Node.if_(E.eq(E.var("_mis"), E.u32(0)), compare)],
        ),
        Node.if_(
            E.ne(E.var("_mis"), E.u32(0)),
            [Node.assign("_keep", E.bitand(E.var("_keep"), E.bitnot(E.shl(E.u32(1), E.var("_s")))))],
        ),
    ]
    body: list[Node] = [
        Node.let("_w", w),
        Node.if_(
            E.lt(E.var("_w"), param(3)),
            [
                Node.let("_bits", E.load("bits", E.var("_w"))),
                Node.if_(
                    E.ne(E.var("_bits"), E.u32(0)),
                    [
                        Node.let("_cs", start),
                        Node.let("_len", length),
                        Node.let("_keep", E.var("_bits")),
                        Node.let("_rest", E.var("_bits")),
                        Node.loop("_k", E.u32(0), E.popcount(E.var("_bits")), candidate),
                        Node.if_(
                            E.ne(E.var("_keep"), E.var("_bits")),
                            [Node.let("_old", E.atomic(AtomicOp.AND, "bits", E.var("_w"), E.var("_keep")))],
                        ),
                    ],
                ),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read("hay", 0, DataType.U32),
            BufferDecl.read("needle", 1, DataType.U32),
            BufferDecl.read_write("bits", 2, DataType.U32),
            BufferDecl.uniform("params", 3, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="find_all_verify",
    )


@cache
def scatter_program() -> Program:
    return C.scatter_program("find_all_scatter", [], lambda p: p)


def _plan(sizes: Any, scalars: Any) -> KernelPlan:
    n, m = int(sizes["hay"]), int(sizes["needle"])
    positions = n - m + 1 if m <= n else 0
    out, count = Buffer("out", DataType.U32, positions), Buffer("count", DataType.U32, 1)
    if positions == 0:
        return KernelPlan((out, count), ())
    tiles = C.tiles(positions)
    bits = C.bits_buffer(positions)
    params = params_buffer("match_params", [positions, n, m, bits.count])
    steps = [Step(filter_program(), (tiles, 1, 1), {"bits": bits.name, "params": params.name})]
    if m > EXACT_FILTER:
        chunks = -(-m // CHUNK)
        steps.append(Step(verify_program(), (tiles, chunks, 1), {"bits": bits.name, "params": params.name}))
    buffers, compaction = C.compaction_steps(positions, scatter_program(), {})
    return KernelPlan((out, count, bits, params, *buffers), (*steps, *compaction))


# ---------------------------------------------------------------------------
# Reference (CPython's re), laws, sampler
# ---------------------------------------------------------------------------


def _find_all(hay: np.ndarray, needle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    text, pattern = np.asarray(hay, np.uint8).tobytes(), np.asarray(needle, np.uint8).tobytes()
    starts = [found.start() for found in re.finditer(b"(?=" + re.escape(pattern) + b")", text)]
    return np.array(starts, dtype=np.uint32), np.array([len(starts)], dtype=np.uint32)


class FindAllLaws(KernelLaw):
    """Every reported start holds the needle, ascending, count = the output
    length; a start is reported iff it fits in a prefix: find_all(hay[:k]) =
    the starts p with p + m <= k; the needle cut out of the haystack at i is
    found at i."""

    name = "SoundTruncationWitness"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        hay, needle = np.asarray(args[0], np.uint8), np.asarray(args[1], np.uint8)
        text, pattern, m = hay.tobytes(), needle.tobytes(), len(needle)
        out, count = (np.asarray(a, dtype=np.uint32) for a in op(hay, needle))
        if int(count[0]) != len(out):
            return f"count {int(count[0])} for {len(out)} starts"
        if np.any(out[1:] <= out[:-1]):
            return "the starts are not strictly ascending"
        for p in out.tolist():
            if text[p : p + m] != pattern or p + m > len(text):
                return f"start {p} does not hold the needle"
        k = 2 * len(text) // 3
        prefix = np.asarray(op(hay[:k], needle)[0], dtype=np.uint32)
        if prefix.tolist() != [p for p in out.tolist() if p + m <= k]:
            return f"find_all(hay[:{k}]) is not the starts that fit in the prefix"
        if len(text):
            i = len(text) // 2
            cut = hay[i : i + max(1, m)]
            if i not in np.asarray(op(hay, cut)[0]).tolist():
                return f"the needle hay[{i}:{i + len(cut)}] is not found at {i}"
        return None


KERNELS = (
    KernelSpec(
        id="match.find_all",
        version=1,
        inputs=(Port("hay", DataType.BYTES), Port("needle", DataType.BYTES)),
        outputs=(Port("out", DataType.U32, length_from="count"), Port("count", DataType.U32, scalar=True)),
        kind="scan-based",
        reference=_find_all,
        plan=_plan,
        summary="the start of every occurrence of the needle, overlapping, ascending (re.finditer"
        " with a lookahead); the empty needle occurs at 0..n",
        laws=(FindAllLaws(),),
        sample=S.find_all,
        max_length=0xFFFF_FFFE,
    ),
)
