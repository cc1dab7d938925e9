"""Stream compaction: keep the positions whose flag is set, in input order
(C4: scan-based, so the order is canonical and the result is the same
on every device). Shared by `buffer.compact`, `collection.unique_u32` and
`match.find_all`.

The flags travel as a bitset, one bit per position (bit p % 32 of word p / 32),
so the expensive part of an op (a needle comparison) runs once, and the
compaction reads n / 8 bytes of flags instead of n words. Over P positions, in
tiles of TILE = 8,192 positions (256 words, one workgroup each):

1. `bits_program(flag)` (the op's own flag): each workgroup evaluates the flag
   at its tile's positions, 8 per invocation and round over 4 rounds (coalesced:
   invocation l takes positions l, l + 256, ...), stores them in workgroup
   memory, and packs them into words (invocation l packs 8 consecutive flags
   into byte l % 4 of word l / 4 of the round, ORed in with a workgroup atomic;
   `skewed` positions, so the 32 invocations of a warp read 32 distinct banks).
   Positions at or past P are not flagged.
2. `sums_program`: the number of set bits of every tile (`popcount`, a
   two-level workgroup sum) into `sums[tile]`.
3. `scan.scan_sums_program`: `sums` becomes the exclusive offsets of the tiles.
4. `scatter_program(value)`: each workgroup scans the popcounts of its 256
   words (`common.workgroup_scan`), keeps the words and their offsets in
   workgroup memory, then invocation l visits positions l, l + 256, ... of the
   tile (32 rounds); a flagged position p writes `value(p)` to
   `out[offset(tile) + offset(word) + popcount(word below p)]` (consecutive
   flagged positions go to consecutive outputs: coalesced when the flags are
   dense). The last tile writes the total to `count[0]`.

An input of a single tile skips steps 2 and 3 (its offset is 0), and the
rounds of steps 1 and 4 stop at the last position of the input (the bound is
the same for every workgroup), so small inputs cost little.

An op may clear bits between steps 1 and 2 (find_all's verification of long
needles does, with `atomicAnd`). Every invocation's loops are short (4 and 32
rounds); the dispatches grow with P / 8,192 and the runtime splits them past the
per-axis limit. Traffic beyond the op's own reads: P / 8 bytes written, read
twice, and the kept values written once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels.families.common import (
    GROUPS,
    SCAN_WORDS,
    WORKGROUP,
    param,
    params_buffer,
    skewed,
    skewed_size,
    workgroup_scan,
)
from vyre.kernels.families.scan import TILE as SCAN_TILE
from vyre.kernels.families.scan import group_sum, scan_sums_program
from vyre.kernels.spec import Buffer, Step

__all__ = [
    "TILE",
    "TILE_WORDS",
    "Flag",
    "bits_program",
    "compaction_steps",
    "scatter_program",
    "sums_program",
    "tiles",
]

TILE_WORDS = WORKGROUP
"""Flag words per tile: one per invocation."""
TILE = 32 * TILE_WORDS
"""Positions per tile (one workgroup)."""
ROUND = 8 * WORKGROUP
"""Positions per round of `bits_program` (8 flags per invocation)."""
ROUNDS = TILE // ROUND

Flag = Callable[[Expr], tuple[list[Node], Expr]]
"""position (< P) -> (statements, Bool): whether the position is kept."""
Value = Callable[[Expr], Expr]
"""position -> the u32 written for a kept position."""


def tiles(positions: int) -> int:
    return -(-positions // TILE)


def _rounds(positions: Expr, per_round: int, most: int) -> Expr:
    """min(most, ceil(positions / per_round)) (per_round a power of two; no
    overflow near 2^32): a tile needs no more rounds than the whole input has
    positions, so an input of one small tile runs one round, not all of them.
    The same bound for every workgroup (uniform: a barrier may follow)."""
    shift = per_round.bit_length() - 1
    needed = E.add(E.shr(positions, E.u32(shift)), E.select(E.ne(E.bitand(positions, E.u32(per_round - 1)), E.u32(0)), E.u32(1), E.u32(0)))
    return E.select(E.lt(needed, E.u32(most)), needed, E.u32(most))


def bits_program(name: str, inputs: Sequence[str], flag: Flag, prelude: Sequence[Node] = ()) -> Program:
    """Step 1: the flags of P = params[0] positions as bits (see the module doc).
    `inputs` are read-only u32 buffers bound 0..; then `bits` (read_write,
    TILE_WORDS words per tile) and `params` ([P, the op's own words...]).
    `prelude` runs once per invocation before the rounds."""
    local = E.local_id(0)
    evaluate: list[Node] = [Node.let("_pr", E.add(E.var("_mine"), E.mul(E.var("_r"), E.u32(ROUND))))]
    for k in range(8):
        # position k * 256 + l of the round, stored at skewed(k * 256 + l) = k * 264 + skewed(l)
        p = f"_p{k}"
        nodes, kept = flag(E.var(p))
        evaluate += [
            Node.let(p, E.add(E.var("_pr"), E.u32(k * WORKGROUP))),
            Node.let(f"_f{k}", E.u32(0)),
            Node.if_(E.lt(E.var(p), param(0)), [*nodes, Node.assign(f"_f{k}", E.select(kept, E.u32(1), E.u32(0)))]),
            Node.store("_fl", E.add(E.var("_sl"), E.u32(k * (WORKGROUP + WORKGROUP // 32))), E.var(f"_f{k}")),
        ]
    evaluate.append(Node.barrier())
    # invocation l packs flags 8l .. 8l + 7 of the round (byte l % 4 of word l / 4);
    # 8l + t never crosses a multiple of 32, so skewed(8l + t) = skewed(8l) + t
    part: Expr = E.u32(0)
    for t in range(8):
        flag_bit = E.load("_fl", E.add(E.var("_pack_at"), E.u32(t)))
        part = E.bitor(part, E.shl(flag_bit, E.add(E.var("_pack_shift"), E.u32(t))))
    word = E.add(E.mul(E.var("_r"), E.u32(ROUND // 32)), E.shr(local, E.u32(2)))
    evaluate += [
        Node.let("_part", part),
        Node.if_(E.ne(E.var("_part"), E.u32(0)), [Node.let("_old", E.atomic(AtomicOp.OR, "_wb", word, E.var("_part")))]),
        Node.barrier(),
    ]
    first = E.mul(local, E.u32(8))
    setup = [
        Node.let("_mine", E.add(E.mul(E.workgroup_id(0), E.u32(TILE)), local)),
        Node.let("_sl", skewed(local)),
        Node.let("_pack_at", skewed(first)),
        Node.let("_pack_shift", E.bitand(first, E.u32(31))),
    ]
    out = E.add(E.mul(E.workgroup_id(0), E.u32(TILE_WORDS)), local)
    entry: list[Node] = [
        *setup,
        *prelude,
        Node.loop("_r", E.u32(0), _rounds(param(0), ROUND, ROUNDS), evaluate),
        Node.store("bits", out, E.load("_wb", local)),
    ]
    buffers = [BufferDecl.read(b, k, DataType.U32) for k, b in enumerate(inputs)]
    buffers += [
        BufferDecl.read_write("bits", len(inputs), DataType.U32),
        BufferDecl.uniform("params", len(inputs) + 1, DataType.U32),
        BufferDecl.workgroup("_fl", skewed_size(ROUND), DataType.U32),
        BufferDecl.workgroup("_wb", TILE_WORDS, DataType.U32),
    ]
    return Program(buffers=buffers, workgroup_size=(WORKGROUP, 1, 1), entry=entry, name=name)


@cache
def sums_program() -> Program:
    """Step 2: `sums[tile]` = the set bits of the tile's words of `bits`."""
    local = E.local_id(0)
    word = E.load("bits", E.add(E.mul(E.workgroup_id(0), E.u32(TILE_WORDS)), local))
    body = group_sum("_sh", "_groups", E.popcount(word))
    body.append(Node.if_(E.eq(local, E.u32(0)), [Node.store("sums", E.workgroup_id(0), E.var("_gsum"))]))
    return Program(
        buffers=[
            BufferDecl.read("bits", 0, DataType.U32),
            BufferDecl.read_write("sums", 1, DataType.U32),
            BufferDecl.workgroup("_sh", WORKGROUP, DataType.U32),
            BufferDecl.workgroup("_groups", GROUPS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="compact_tile_counts",
    )


def scatter_program(name: str, inputs: Sequence[str], value: Value) -> Program:
    """Step 4: every flagged position p writes value(p) to its rank among the
    flagged positions (see the module doc). `inputs` (read-only u32, bound 0..),
    then `bits`, `offsets` (the scanned tile counts), `out`, `count`, `params`
    ([P, tiles])."""
    local = E.local_id(0)
    tile = E.workgroup_id(0)
    body: list[Node] = [
        Node.let("_w", E.load("bits", E.add(E.mul(tile, E.u32(TILE_WORDS)), local))),
        Node.let("_pc", E.popcount(E.var("_w"))),
        *workgroup_scan(["_pc"], ["_cscan"], ["_cgroups"], "_c"),
        Node.store("_wb", local, E.var("_w")),
        Node.store("_wx", local, E.var("_cex0")),
        Node.barrier(),
        Node.let("_base", E.load("offsets", tile)),
        Node.let("_bit", E.bitand(local, E.u32(31))),
        Node.let("_below", E.sub(E.shl(E.u32(1), E.var("_bit")), E.u32(1))),
    ]
    word = E.add(E.mul(E.var("_j"), E.u32(WORKGROUP // 32)), E.shr(local, E.u32(5)))
    position = E.add(E.mul(tile, E.u32(TILE)), E.add(E.mul(E.var("_j"), E.u32(WORKGROUP)), local))
    rank = E.add(E.load("_wx", E.var("_word")), E.popcount(E.bitand(E.var("_bw"), E.var("_below"))))
    visit = [
        Node.let("_word", word),
        Node.let("_bw", E.load("_wb", E.var("_word"))),
        Node.if_(
            E.ne(E.bitand(E.shr(E.var("_bw"), E.var("_bit")), E.u32(1)), E.u32(0)),
            [Node.let("_pos", position), Node.store("out", E.add(E.var("_base"), rank), value(E.var("_pos")))],
        ),
    ]
    body.append(Node.loop("_j", E.u32(0), _rounds(param(0), WORKGROUP, TILE // WORKGROUP), visit))
    last = E.and_(E.eq(tile, E.sub(param(1), E.u32(1))), E.eq(local, E.u32(0)))
    body.append(Node.if_(last, [Node.store("count", E.u32(0), E.add(E.var("_base"), E.var("_ctot0")))]))
    k = len(inputs)
    buffers = [BufferDecl.read(b, i, DataType.U32) for i, b in enumerate(inputs)]
    buffers += [
        BufferDecl.read("bits", k, DataType.U32),
        BufferDecl.read("offsets", k + 1, DataType.U32),
        BufferDecl.read_write("out", k + 2, DataType.U32),
        BufferDecl.read_write("count", k + 3, DataType.U32),
        BufferDecl.uniform("params", k + 4, DataType.U32),
        BufferDecl.workgroup("_wb", TILE_WORDS, DataType.U32),
        BufferDecl.workgroup("_wx", TILE_WORDS, DataType.U32),
        BufferDecl.workgroup("_cscan", SCAN_WORDS, DataType.U32),
        BufferDecl.workgroup("_cgroups", GROUPS, DataType.U32),
    ]
    return Program(buffers=buffers, workgroup_size=(WORKGROUP, 1, 1), entry=body, name=name)


def compaction_steps(
    positions: int, scatter: Program, bind: dict[str, str], out: str = "out", count: str = "count", prefix: str = "c_"
) -> tuple[list[Buffer], list[Step]]:
    """The buffers and steps 2-4 over `positions` positions, once a step has
    written the flags to the pipeline buffer `{prefix}bits` (`bits_buffer`).
    `bind` binds the scatter program's inputs; its outputs go to `out` and
    `count` (plan buffers the caller declares)."""
    n_tiles = tiles(positions)
    sums, scan_params, scatter_params = f"{prefix}sums", f"{prefix}scan", f"{prefix}params"
    buffers = [Buffer(sums, DataType.U32, n_tiles), params_buffer(scatter_params, [positions, n_tiles])]
    steps: list[Step] = []
    if n_tiles > 1:  # one tile starts at offset 0: the zeroed `sums` already says so
        buffers.append(params_buffer(scan_params, [n_tiles, -(-n_tiles // SCAN_TILE)]))
        steps += [
            Step(sums_program(), (n_tiles, 1, 1), {"bits": f"{prefix}bits", "sums": sums}),
            Step(scan_sums_program(), (1, 1, 1), {"sums": sums, "params": scan_params}),
        ]
    steps += [
        Step(
            scatter,
            (n_tiles, 1, 1),
            {**bind, "bits": f"{prefix}bits", "offsets": sums, "out": out, "count": count, "params": scatter_params},
        ),
    ]
    return buffers, steps


def bits_buffer(positions: int, prefix: str = "c_") -> Buffer:
    """The flag bitset of `positions` positions (whole tiles, zeroed)."""
    return Buffer(f"{prefix}bits", DataType.U32, tiles(positions) * TILE_WORDS)
