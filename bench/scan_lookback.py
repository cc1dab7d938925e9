"""A probe, not a library kernel: the single-pass prefix sum measured against
the shipped scan (reduce-then-scan in two dispatches), and why it is not shipped.

    python bench/scan_lookback.py [--n N] [--group-size GS] [--reps R] [--fallback-only]

prints, for the same input on the best adapter: the shipped
scan.prefix_sum_inclusive_u32 and this kernel (microseconds a run, GB/s as 2
words an element), each output checked against numpy, and the look-back's
spins and fallbacks (debug counters).

Measured on the H200 (64 Mi elements, A/B in one run, torch.cumsum 2.5 TB/s):
this kernel moved 1.45 TB/s with GS = 256 (0.58 of torch), 1.25 with GS = 64,
1.33 with GS = 1,024, while the three-dispatch scan of that day moved 1.8-1.9
(the two-dispatch scan shipped since: 2.17, 0.86 of torch). Each tile spun
11-20 reloads on average (at most 17-24 in one invocation) waiting for the
aggregates of the tiles just before it; no fallback was taken. Tiles of 2,048
and 4,096 words were slower still (0.63 and 1.03 TB/s with an earlier gather):
the time is a wait per tile, not bandwidth. Earlier forms measured: a serial
walk of 16 predecessors a round by one invocation (the inclusive prefix
chain of CUB's look-back) 0.86 TB/s; each tile reading every group aggregate
1.33; group prefixes as a chain 1.33.

The single-pass prefix sum: each tile learns the sum before it from the
aggregates other workgroups publish in the same dispatch (a two-level
decoupled reduce), with a fallback that needs no forward-progress guarantee.

Each workgroup scans one tile of TILE = SUBTILES x 2,048 u32 words held in
registers, so the input is read once and the output written once (2 words an
element; reduce-then-scan moves 3). Tiles form groups of GS consecutive tiles
(GS = 256, or more when there are over 256 x 256 tiles, so that there are at
most 256 groups).

The protocol (one `state` buffer, zeroed once when the plan is staged: word 0
the claim counter, then two words per tile aggregate A[t], then two per group
aggregate G[g]):

1. **Claim.** Invocation 0 takes `old = atomicAdd(state[0], 1)`: the tile is
   `old & 0xFFFFF` (tiles in the order workgroups start, so a tile's
   predecessors have all started), the epoch `old >> 20`. The workgroup that
   claims the last tile adds `2**20 - tiles`, so the next run of the dispatch
   (a repeated plan reuses the buffer without clearing it) starts again at
   tile 0 with the next epoch.
2. **Publish the aggregate** A[t] (the tile's sum, after its workgroup scan)
   as two words `tag << 16 | half` (tag = epoch mod 4,096 + 1): each word says
   by itself whether this run wrote it, so no ordering between stores is
   needed; a reader takes a value only when both of its words carry the tag.
3. **Gather.** Tile t = g GS + p needs A of the p tiles before it in its group
   and G of the g groups before it. Each invocation loads its share of them
   (one of each for up to 256 tiles and groups), reloading a value not yet
   published up to SPINS times, and the workgroup sums them. A tile's prefix
   never waits for another tile's prefix: only for aggregates, which every
   tile publishes as soon as it has read its words, and for the G of earlier
   groups, which the last tile of each group publishes (the sum it gathered
   in its group plus its own aggregate). No chain runs through the tiles.
4. **Fallback.** If a value is still missing after the spins, the workgroup
   adds up the input words of every tile before its own (a loop whose bound is
   data, without a barrier in it) - no waiting on another workgroup, so no
   forward-progress guarantee is needed, and the sums are the ones it would
   have read.
5. **Store** the tile's outputs (and G[g] if it is the group's last tile).

Every word of the state is written with `atomicStore` and read with
`atomicLoad` (the claim's `atomicAdd` makes the buffer atomic in the
lowering). Whichever way a tile learns its prefix, the value is the same
wrapping sum of the same words, so the output does not depend on the schedule
(C4). The barriers are all in uniform control flow.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels.families.common import GROUPS, WORKGROUP, param
from vyre.kernels.families.scan import ITEMS, register_arrays, register_loads, register_scans, register_stores
from vyre.kernels.families.scan import REGISTER_SUBTILES as SUBTILES

TILE = WORKGROUP * ITEMS * SUBTILES
"""Words a tile (a workgroup) scans: the shipped scan's register block."""
SPINS_INNER = 8
SPINS_OUTER = 8
"""At most SPINS_INNER x SPINS_OUTER reloads of a value not yet published
(two nested loops, so a value found early skips the rest cheaply)."""
TILE_BITS = 20
"""Bits of the claim counter that hold the tile; the epoch is above them."""
MAX_TILES = 1 << TILE_BITS

_TAG_MASK = 0xFFF


def group_size(tiles: int, least: int = WORKGROUP) -> int:
    """Tiles per group: `least` (256), or more so that there are at most 256 groups."""
    return max(least, -(-tiles // WORKGROUP))


def state_words(tiles: int, gs: int) -> int:
    """Words of the `state` buffer of a dispatch of `tiles` workgroups in
    groups of `gs`, and 3 counters after them (`debug`)."""
    return 1 + 2 * tiles + 2 * -(-tiles // gs) + 3


def _tile_word(tile: Expr, half: int) -> Expr:
    return E.add(E.mul(tile, E.u32(2)), E.u32(1 + half))


def _group_word(group: Expr, half: int) -> Expr:
    return E.add(E.add(E.mul(group, E.u32(2)), E.mul(param(0), E.u32(2))), E.u32(1 + half))


def _publish(word: Callable[[int], Expr], value: Expr) -> list[Node]:
    tagged = E.shl(E.var("tag"), E.u32(16))
    return [
        Node.store("state", word(0), E.bitor(tagged, E.bitand(value, E.u32(0xFFFF)))),
        Node.store("state", word(1), E.bitor(tagged, E.shr(value, E.u32(16)))),
    ]


def _gather(name: str, wanted: Expr, word: Callable[[int], Expr]) -> list[Node]:
    """`{name}` = the value at `word` if `wanted`, else 0; `{name}_miss` = 1 when
    it is wanted and still not published after the spins."""
    lo, hi = f"{name}_lo", f"{name}_hi"
    tag = E.var("tag")

    def missing() -> Expr:
        ok = E.and_(E.eq(E.shr(E.var(lo), E.u32(16)), tag), E.eq(E.shr(E.var(hi), E.u32(16)), tag))
        return E.select(E.and_(wanted_bit(), E.logical_not(E.select(ok, E.u32(1), E.u32(0)))), E.u32(1), E.u32(0))

    def wanted_bit() -> Expr:
        return E.select(wanted, E.u32(1), E.u32(0))

    reload = [Node.assign(lo, E.load("state", word(0))), Node.assign(hi, E.load("state", word(1)))]
    spin = Node.loop("_si", E.u32(0), E.u32(SPINS_INNER), [Node.if_(E.ne(missing(), E.u32(0)), [*reload, Node.assign("_spins", E.add(E.var("_spins"), E.u32(1)))])])
    return [
        Node.let(lo, E.u32(0)),
        Node.let(hi, E.u32(0)),
        Node.if_(wanted, reload),
        Node.loop(f"{name}_so", E.u32(0), E.u32(SPINS_OUTER), [Node.if_(E.ne(missing(), E.u32(0)), [spin])]),
        Node.let(f"{name}_miss", missing()),
        Node.let(
            name,
            E.select(E.eq(E.var(f"{name}_miss"), E.u32(0)), E.select(wanted, _joined(lo, hi), E.u32(0)), E.u32(0)),
        ),
    ]


def _joined(lo: str, hi: str) -> Expr:
    return E.bitor(E.bitand(E.var(lo), E.u32(0xFFFF)), E.shl(E.var(hi), E.u32(16)))


def _sums(values: list[Expr], out: str) -> list[Node]:
    """Workgroup sums of the u32 `values` (one per invocation) side by side:
    every invocation gets `{out}{w}` (two barriers; arrays `red{w}`, `redg{w}`)."""
    local = E.local_id(0)
    body: list[Node] = [Node.store(f"red{w}", local, v) for w, v in enumerate(values)]
    body.append(Node.barrier())
    part: list[Node] = []
    for w in range(len(values)):
        part.append(Node.let(f"{out}_p{w}", E.u32(0)))
        for j in range(WORKGROUP // GROUPS):
            at = E.add(local, E.u32(j * GROUPS))
            part.append(Node.assign(f"{out}_p{w}", E.add(E.var(f"{out}_p{w}"), E.load(f"red{w}", at))))
        part.append(Node.store(f"redg{w}", local, E.var(f"{out}_p{w}")))
    body.append(Node.if_(E.lt(local, E.u32(GROUPS)), part))
    body.append(Node.barrier())
    for w in range(len(values)):
        total: Expr = E.load(f"redg{w}", E.u32(0))
        for g in range(1, GROUPS):
            total = E.add(total, E.load(f"redg{w}", E.u32(g)))
        body.append(Node.let(f"{out}{w}", total))
    return body


@cache
def lookback_scan_program(exclusive: bool, publish: bool = True, subtiles: int = SUBTILES, debug: bool = False) -> Program:
    """The single-pass scan of `x` into `out`; params = [tiles (the dispatch's
    workgroup count), GS, ceil(GS / WORKGROUP)]. `publish=False` builds a
    program whose tiles never publish (every tile then spins and takes the
    fallback): `--fallback-only` checks that path's output."""
    local = E.local_id(0)
    first = E.eq(local, E.u32(0))
    tiles, gs = param(0), param(1)
    body: list[Node] = [
        Node.if_(
            first,
            [
                Node.let("_old", E.atomic(AtomicOp.ADD, "state", E.u32(0), E.u32(1))),
                Node.let("_claimed", E.bitand(E.var("_old"), E.u32(MAX_TILES - 1))),
                Node.if_(
                    E.eq(E.var("_claimed"), E.sub(tiles, E.u32(1))),
                    # the last claim of the run: the count back to 0, the epoch up by one
                    [Node.let("_reset", E.atomic(AtomicOp.ADD, "state", E.u32(0), E.sub(E.u32(MAX_TILES), tiles)))],
                ),
                Node.store("shared", E.u32(0), E.var("_claimed")),
                Node.store("shared", E.u32(1), E.bitand(E.shr(E.var("_old"), E.u32(TILE_BITS)), E.u32(_TAG_MASK))),
            ],
        ),
        Node.barrier(),
        Node.let("tile", E.load("shared", E.u32(0))),
        Node.let("tag", E.add(E.load("shared", E.u32(1)), E.u32(1))),
        Node.let("base", E.mul(E.var("tile"), E.u32(WORKGROUP * ITEMS * subtiles))),
        Node.let("group", E.div(E.var("tile"), gs)),
        Node.let("place", E.sub(E.var("tile"), E.mul(E.var("group"), gs))),  # tiles before it in its group
    ]
    # load and scan each subtile in registers: invocation l holds words 8l .. 8l + 7 of it
    body += register_loads(E.var("base"), subtiles)
    body += register_scans(subtiles)
    aggregate: Expr = E.var("_stot0")
    for s in range(1, subtiles):
        aggregate = E.add(aggregate, E.var(f"_stot{s}"))
    body.append(Node.let("aggregate", aggregate))
    if publish:
        body.append(Node.if_(first, _publish(lambda h: _tile_word(E.var("tile"), h), E.var("aggregate"))))
    # gather A of the tiles before it in its group and in the group before (own / prev), and G of
    # the groups before those: only aggregates, which every tile publishes as soon as it has read
    body += [
        Node.let("_own", E.u32(0)),
        Node.let("_prev", E.u32(0)),
        Node.let("_miss", E.u32(0)),
        Node.let("_spins", E.u32(0)),
        Node.let("_span", E.add(E.var("place"), E.select(E.eq(E.var("group"), E.u32(0)), E.u32(0), gs))),
    ]
    at = E.add(E.mul(E.var("_c"), E.u32(WORKGROUP)), local)
    source = E.add(E.sub(E.var("tile"), E.var("_span")), at)
    gather = _gather("_a", E.lt(at, E.var("_span")), lambda h: _tile_word(source, h))
    in_prev = E.lt(at, E.sub(E.var("_span"), E.var("place")))
    gather += [
        Node.assign("_own", E.add(E.var("_own"), E.select(in_prev, E.u32(0), E.var("_a")))),
        Node.assign("_prev", E.add(E.var("_prev"), E.select(in_prev, E.var("_a"), E.u32(0)))),
        Node.assign("_miss", E.bitor(E.var("_miss"), E.var("_a_miss"))),
    ]
    body.append(Node.loop("_c", E.u32(0), E.mul(param(2), E.u32(2)), gather))
    body += _gather("_g", E.lt(E.add(local, E.u32(1)), E.var("group")), lambda h: _group_word(local, h))
    body += _sums(
        [E.var("_own"), E.add(E.var("_prev"), E.var("_g")), E.bitor(E.var("_miss"), E.var("_g_miss"))], "_ls"
    )
    # the fallback: every tile before this one summed from the input (a loop whose bound is data, no barrier)
    body += [Node.let("_fi", E.u32(0)), Node.let("_fe", E.u32(0))]
    fallback: list[Node] = [Node.let("_ft", E.u32(0))]
    for s in range(subtiles):
        start = E.add(E.add(E.mul(E.var("_t"), E.u32(WORKGROUP * ITEMS * subtiles)), E.u32(s * WORKGROUP * ITEMS)), E.mul(local, E.u32(ITEMS)))
        for k in range(ITEMS):
            fallback.append(Node.assign("_ft", E.add(E.var("_ft"), E.load("x", E.add(start, E.u32(k)) if k else start))))
    earlier_group = E.lt(E.var("_t"), E.sub(E.var("tile"), E.var("place")))
    fallback += [
        Node.assign("_fe", E.add(E.var("_fe"), E.select(earlier_group, E.var("_ft"), E.u32(0)))),
        Node.assign("_fi", E.add(E.var("_fi"), E.select(earlier_group, E.u32(0), E.var("_ft")))),
    ]
    fell_back = E.ne(E.var("_ls2"), E.u32(0))
    body.append(Node.loop("_t", E.u32(0), E.select(fell_back, E.var("tile"), E.u32(0)), fallback))
    body += _sums([E.var("_fi"), E.var("_fe")], "_fs")
    if debug:  # spins (total, most of one invocation) and fallbacks, in the 3 words after the state
        dbg = param(3)
        body.append(Node.if_(E.ne(E.var("_spins"), E.u32(0)), [Node.let("_d1", E.atomic(AtomicOp.ADD, "state", dbg, E.var("_spins")))]))
        body.append(Node.if_(E.and_(first, fell_back), [Node.let("_d2", E.atomic(AtomicOp.ADD, "state", E.add(dbg, E.u32(1)), E.u32(1)))]))
        body.append(Node.if_(E.ne(E.var("_spins"), E.u32(0)), [Node.let("_d3", E.atomic(AtomicOp.MAX, "state", E.add(dbg, E.u32(2)), E.var("_spins")))]))
    body += [
        Node.let("in_group", E.select(fell_back, E.var("_fs0"), E.var("_ls0"))),
        Node.let("exclusive_prefix", E.add(E.var("in_group"), E.select(fell_back, E.var("_fs1"), E.var("_ls1")))),
    ]
    if publish:
        last_of_group = E.and_(first, E.eq(E.var("place"), E.sub(gs, E.u32(1))))
        group_total = E.add(E.var("in_group"), E.var("aggregate"))
        body.append(Node.if_(last_of_group, _publish(lambda h: _group_word(E.var("group"), h), group_total)))
    body += register_stores(E.var("exclusive_prefix"), subtiles, exclusive)
    kind = "exclusive" if exclusive else "inclusive"
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.read_write("state", 2, DataType.U32),
            BufferDecl.uniform("params", 3, DataType.U32),
            BufferDecl.workgroup("shared", 2, DataType.U32),
            *register_arrays(subtiles),
            *(BufferDecl.workgroup(f"red{w}", WORKGROUP, DataType.U32) for w in range(3)),
            *(BufferDecl.workgroup(f"redg{w}", GROUPS, DataType.U32) for w in range(3)),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"scan_lookback_{kind}" if publish else f"scan_fallback_only_{kind}",
    )


def params(tiles: int, gs: int) -> list[int]:
    """The parameter words of a dispatch of `tiles` tiles in groups of `gs`."""
    return [tiles, gs, -(-gs // WORKGROUP), state_words(tiles, gs) - 3]


def main() -> None:
    import argparse
    import time
    from typing import Any

    import numpy as np

    from vyre.kernels import run as kernel_run
    from vyre.kernels.families.common import params_buffer
    from vyre.kernels.spec import Buffer, KernelPlan, Step
    from vyre.ops import registry
    from vyre.runtime import wgpu_backend

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--n", type=int, default=64 * 2**20)
    parser.add_argument("--group-size", type=int, default=WORKGROUP)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument(
        "--fallback-only", action="store_true", help="tiles never publish: every tile spins, then sums its input itself"
    )
    args = parser.parse_args()
    n = args.n
    x: np.ndarray = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32)
    expect = np.cumsum(x, dtype=np.uint32)
    spec: Any = registry.get_kernel("scan.prefix_sum_inclusive_u32")
    checked = kernel_run.check_args(spec, [x])
    tiles = -(-n // TILE)
    gs = group_size(tiles, args.group_size)
    plans = {
        "shipped scan": kernel_run.plan_of(spec, checked),
        f"look-back, GS = {gs}{', fallback only' if args.fallback_only else ''}": KernelPlan(
            (
                Buffer("out", DataType.U32, n),
                Buffer("state", DataType.U32, state_words(tiles, gs)),
                params_buffer("params", params(tiles, gs)),
            ),
            (Step(lookback_scan_program(False, publish=not args.fallback_only, debug=True), (tiles, 1, 1)),),
        ),
    }
    for name, plan in plans.items():
        steps, clear, state = kernel_run.stage_wgpu(plan, checked)
        wgpu_backend.run_steps(steps, clear=clear)
        ok = bool((state["out"].read()[:n] == expect).all())
        before = state["state"].read()[-3:] if "state" in state else None
        start = time.perf_counter()
        wgpu_backend.run_steps(steps, repeat=args.reps)
        state["out"].read()
        seconds = (time.perf_counter() - start) / args.reps
        line = f"{name}: {seconds * 1e6:,.0f} us a run, {8 * n / seconds / 1e9:,.0f} GB/s, checked {ok}"
        if before is not None:
            after = state["state"].read()[-3:]
            line += (
                f"; spins {int(after[0] - before[0]) / args.reps / tiles:.1f} a tile (at most {int(after[2])}"
                f" in one invocation), fallbacks {int(after[1] - before[1]) / args.reps:.1f} a run"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
