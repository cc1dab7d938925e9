"""sort.u32 and sort.key_value_u32: stable LSD radix sort of U32 keys.

Four passes of 8-bit digits (least significant first); each pass is five
dispatches in the reduce-then-scan form (Satish, Harris & Garland 2009; C3: no
inter-workgroup communication inside a dispatch, so no onesweep look-back).
A workgroup owns one tile of TILE = 2,048 keys (256 invocations x 8):

1. `radix_count`: the tile's digits counted into 256 bins with workgroup
   atomics (integer adds: deterministic), written digit-major to
   `hist[digit * tiles + tile]`.
2.-4. the exclusive prefix sum of `hist` (the three programs of
   `vyre/kernels/families/scan.py` with blocks of one scan tile, HIST_SUBTILES,
   bound to this pipeline's buffers): `offs[digit * tiles + tile]` is where the
   tile's keys of that digit start.
5. `radix_scatter`: the tile is sorted by its digit in workgroup memory, as
   two stable rounds of 4 bits (low nibble, then high nibble; LSD within the
   tile). A round: invocation l holds 8 consecutive keys of the tile's current
   order (keys past n are 0xFFFFFFFF, digit 255: they sort last); it counts
   its nibbles in 4-bit fields of two words (each key's count of the same
   nibble among its own earlier keys), spreads them into 8 words of two 16-bit
   counters, whose exclusive `common.multi_scan` over the workgroup counts the
   same nibbles in earlier invocations; plus the start of each nibble in the
   tile (a scan of the 16 totals), that is each key's new position. The keys
   (for key_value, the key's tile position and digit, one word) are stored at
   those positions. After the second round, the invocation at sorted position
   p = l + 256 m (m = 0..7) finds the runs of equal digits (p is a head when
   the digit before it differs), a head stores `offs[digit, tile] - p` as its
   digit's delta, and every key goes to `delta[digit] + p`: equal digits are
   written to consecutive addresses (key_value: the key and value read from the
   input tile at the stored position). Equal digits keep their order in both
   rounds, so every pass is stable and so is the sort.

Ranks come from prefix sums (no atomics in the scatter), so the result is
deterministic on every device. The plan depends on n only: every pass runs (no
data-dependent skipping: a pass whose digit is the same for every key could
only be skipped by a decision on the host, a read-back, or on the device, where
a branch around the scatter's barriers must not depend on a storage value), buffers ping-pong between `ka`/`kb` (and `va`/`vb`),
the fourth pass writes `ka`. Per invocation: straight-line code over 8 keys, no
loop (lavapipe's loop cap). Every storage write of the count and the scatter
comes after their last barrier, so no barrier keeps the storage fence
(`vyre/lowering/fences.py`): a loop over several tiles per workgroup would
write inside the barriers' loop and fence all twelve.

Traffic per pass and key: the key read twice and written once (12 B), the
hist (256 words per tile, 0.5 B per key) written by the count, read by the
block sums, read and written by the tile scan, read by the scatter (2.5 B):
about 4 x 14.5 = 58 B per key for sort.u32, against 8 x 12.3 = 98 B with 4-bit
digits; key_value adds the value read and written (8 B) and the key read again
from the tile just loaded (a cache hit) per pass. Per tile: 12 barriers (two
rounds of three-barrier scans and the stores between them, the heads),
against 3 per 1,024 keys and 4 bits before (bench/notes-h100-speed.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels.families.common import (
    MULTI_SCAN_PRE_WORDS,
    WORKGROUP,
    multi_scan,
    multi_scan_words,
    param,
    params_buffer,
)
from vyre.kernels.families.scan import block_sums_program, scan_sums_program, scan_tiles_program
from vyre.kernels.families.scan import TILE as SCAN_TILE
from vyre.kernels.spec import Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step

__all__ = ["DIGIT_BITS", "KERNELS", "PASSES", "TILE"]

ITEMS = 8
TILE = WORKGROUP * ITEMS
DIGIT_BITS = 8
BINS = 1 << DIGIT_BITS
PASSES = 32 // DIGIT_BITS
ROUND_BITS = 4
"""Bits of the digit ranked per round of the in-tile sort (two rounds a digit)."""
WORDS = (1 << ROUND_BITS) // 2
"""Packed counter words per invocation and round: two 16-bit counters each (a
tile holds 2,048 keys, so no counter and no position overflows 16 bits)."""
SLOTS = multi_scan_words(WORDS)
"""Words of the `work` array: the round's `multi_scan` rows, then the tile in its
new order at `_slot` positions (2,303 at most)."""
PAD = 0xFFFF_FFFF
"""The key of a position past n: digit 255 in every pass, after every real key."""
HIST_SUBTILES = 1
"""Tiles of 2,048 entries per block of the hist scan: 1,024 workgroups for the
2 Mi entries at 16 Mi keys (the scan op's blocks of 16,384 give too few
workgroups: 8 serial tiles each made the three scan steps latency-bound)."""


def _slot(p: Expr) -> Expr:
    """Where position p of the tile lives in `work`: a pad word every 8, so an
    invocation's 8 consecutive positions and the warp's 8l + j fall in distinct
    memory banks."""
    return E.add(p, E.shr(p, E.u32(3)))


def _nibble_counts(nibbles: Sequence[Expr], prefix: str) -> list[Node]:
    """The invocation's own counts of its 8 nibbles: `{prefix}o{j}` is how many
    of keys 0..j-1 have key j's nibble, `{prefix}a8`/`{prefix}b8` the counts of
    nibbles 0-7/8-15 in 4-bit fields (at most 8 each)."""
    body: list[Node] = [Node.let(f"{prefix}a0", E.u32(0)), Node.let(f"{prefix}b0", E.u32(0))]
    for j, nibble in enumerate(nibbles):
        a, b = E.var(f"{prefix}a{j}"), E.var(f"{prefix}b{j}")
        low, at = f"{prefix}l{j}", f"{prefix}f{j}"
        body += [
            Node.let(f"{prefix}n{j}", nibble),
            Node.let(low, E.lt(E.var(f"{prefix}n{j}"), E.u32(8))),
            Node.let(at, E.shl(E.bitand(E.var(f"{prefix}n{j}"), E.u32(7)), E.u32(2))),
            Node.let(f"{prefix}o{j}", E.bitand(E.shr(E.select(E.var(low), a, b), E.var(at)), E.u32(15))),
            Node.let(f"{prefix}i{j}", E.shl(E.u32(1), E.var(at))),
            Node.let(f"{prefix}a{j + 1}", E.add(a, E.select(E.var(low), E.var(f"{prefix}i{j}"), E.u32(0)))),
            Node.let(f"{prefix}b{j + 1}", E.add(b, E.select(E.var(low), E.u32(0), E.var(f"{prefix}i{j}")))),
        ]
    return body


def _packed_words(prefix: str) -> list[Node]:
    """`{prefix}p{w}` = the counts of nibbles 2w and 2w + 1 as two 16-bit counters."""
    body: list[Node] = []
    for half, source in enumerate((f"{prefix}a{ITEMS}", f"{prefix}b{ITEMS}")):
        even = E.bitand(E.var(source), E.u32(0x0F0F_0F0F))
        odd = E.bitand(E.shr(E.var(source), E.u32(4)), E.u32(0x0F0F_0F0F))
        body += [Node.let(f"{prefix}e{half}", even), Node.let(f"{prefix}d{half}", odd)]
        for byte in range(4):
            lo = E.bitand(E.shr(E.var(f"{prefix}e{half}"), E.u32(8 * byte)), E.u32(0xFF))
            hi = E.bitand(E.shr(E.var(f"{prefix}d{half}"), E.u32(8 * byte)), E.u32(0xFF))
            body.append(Node.let(f"{prefix}p{4 * half + byte}", E.bitor(lo, E.shl(hi, E.u32(16)))))
    return body


def _packed_counter(words: Sequence[Expr], nibble: Expr) -> Expr:
    """The 16-bit counter of `nibble` in 8 packed words (a select tree)."""
    level: list[Expr] = list(words)
    for bit in (2, 4, 8):
        taken = E.ne(E.bitand(nibble, E.u32(bit)), E.u32(0))
        level = [E.select(taken, level[k + 1], level[k]) for k in range(0, len(level), 2)]
    return E.bitand(E.shr(level[0], E.shl(E.bitand(nibble, E.u32(1)), E.u32(4))), E.u32(0xFFFF))


def _rank_round(nibbles: Sequence[Expr], prefix: str) -> list[Node]:
    """`{prefix}r{j}`: the new tile position of the invocation's key j in a
    stable sort of the tile (in its current order, key j of invocation l at
    8l + j) by `nibbles[j]` (0..15): the start of its nibble in the tile + the
    same nibbles in earlier invocations (`multi_scan`) + in its own earlier keys."""
    body = _nibble_counts(nibbles, prefix)
    body += _packed_words(prefix)
    body += multi_scan([f"{prefix}p{w}" for w in range(WORDS)], "work", "sums", "pre", "totals", prefix)
    # the nibbles' starts in the tile, packed like the counters: s(2w) | s(2w + 1) << 16
    body.append(Node.let(f"{prefix}c0", E.u32(0)))
    for w in range(WORDS):
        total, start = E.var(f"{prefix}tot{w}"), E.var(f"{prefix}c{w}")
        middle = E.add(start, E.bitand(total, E.u32(0xFFFF)))
        body.append(Node.let(f"{prefix}base{w}", E.add(E.var(f"{prefix}ex{w}"), E.bitor(start, E.shl(middle, E.u32(16))))))
        body.append(Node.let(f"{prefix}c{w + 1}", E.add(middle, E.shr(total, E.u32(16)))))
    bases = [E.var(f"{prefix}base{w}") for w in range(WORDS)]
    for j in range(ITEMS):
        nibble = E.var(f"{prefix}n{j}")
        body.append(Node.let(f"{prefix}r{j}", E.add(_packed_counter(bases, nibble), E.var(f"{prefix}o{j}"))))
    return body


def _digit(key: Expr) -> Expr:
    """The pass's digit of `key` (`shift` = params[2]; params = [n, tiles, shift])."""
    return E.bitand(E.shr(key, E.var("shift")), E.u32(BINS - 1))


@cache
def count_program() -> Program:
    """The tile's digit counts with workgroup atomics (256 bins; docs/kernels.md),
    written digit-major to `hist`. Invocation l counts keys 8l .. 8l + 7 of the
    tile (two vec4 loads); a key past n counts in bin 256, past the bins: the
    lowering's guard runs no atomic there."""
    local = E.local_id(0)
    body: list[Node] = [
        Node.let("n", param(0)),
        Node.let("shift", param(2)),
        Node.let("q", E.add(E.mul(E.workgroup_id(0), E.u32(TILE)), E.mul(local, E.u32(ITEMS)))),
    ]
    for k in range(ITEMS):
        index = E.add(E.var("q"), E.u32(k)) if k else E.var("q")
        body.append(Node.let(f"i{k}", index))
        body.append(Node.let(f"k{k}", E.load("keys", E.var(f"i{k}"))))
        digit = E.select(E.lt(E.var(f"i{k}"), E.var("n")), _digit(E.var(f"k{k}")), E.u32(BINS))
        body.append(Node.let(f"_o{k}", E.atomic(AtomicOp.ADD, "bins", digit, E.u32(1))))
    body.append(Node.barrier())
    at = E.add(E.mul(local, param(1)), E.workgroup_id(0))
    body.append(Node.store("hist", at, E.atomic(AtomicOp.ADD, "bins", local, E.u32(0))))
    return Program(
        buffers=[
            BufferDecl.read("keys", 0, DataType.U32),
            BufferDecl.read_write("hist", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
            BufferDecl.workgroup("bins", BINS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="radix_count",
    )


def _entry_digit(with_values: bool) -> Callable[[Expr], Expr]:
    """The digit of a `work` entry: the key itself (sort.u32) or the key's tile
    position << 8 | its digit (key_value)."""
    if with_values:
        return lambda entry: E.bitand(entry, E.u32(BINS - 1))
    return _digit


def _load_tile(with_values: bool) -> list[Node]:
    """Invocation l's keys 8l .. 8l + 7 of the tile (two vec4 loads; PAD past n),
    their digits `d{j}` and `work` entries `e{j}`."""
    local = E.local_id(0)
    body: list[Node] = [
        Node.let("n", param(0)),
        Node.let("shift", param(2)),
        Node.let("tb", E.mul(E.workgroup_id(0), E.u32(TILE))),
        Node.let("q", E.add(E.var("tb"), E.mul(local, E.u32(ITEMS)))),
    ]
    for j in range(ITEMS):
        body.append(Node.let(f"i{j}", E.add(E.var("q"), E.u32(j)) if j else E.var("q")))
        body.append(Node.let(f"x{j}", E.load("keys", E.var(f"i{j}"))))
        body.append(Node.let(f"k{j}", E.select(E.lt(E.var(f"i{j}"), E.var("n")), E.var(f"x{j}"), E.u32(PAD))))
        body.append(Node.let(f"d{j}", _digit(E.var(f"k{j}"))))
        if with_values:
            position = E.add(E.mul(local, E.u32(ITEMS)), E.u32(j))
            body.append(Node.let(f"e{j}", E.bitor(E.shl(position, E.u32(DIGIT_BITS)), E.var(f"d{j}"))))
        else:
            body.append(Node.let(f"e{j}", E.var(f"k{j}")))
    return body


def _local_sort(with_values: bool) -> list[Node]:
    """The tile sorted by digit in `work` (at `_slot` positions): round 1 by the
    low nibble from registers, round 2 by the high nibble over round 1's order."""
    local = E.local_id(0)
    digit = _entry_digit(with_values)
    body = _rank_round([E.bitand(E.var(f"d{j}"), E.u32(15)) for j in range(ITEMS)], "_r")
    body.append(Node.barrier())  # every read of the scan rows is done
    body += [Node.store("work", _slot(E.var(f"_rr{j}")), E.var(f"e{j}")) for j in range(ITEMS)]
    body.append(Node.barrier())
    for j in range(ITEMS):
        body.append(Node.let(f"f{j}", E.load("work", _slot(E.add(E.mul(local, E.u32(ITEMS)), E.u32(j))))))
    body.append(Node.barrier())  # every read of round 1's order is done
    body += _rank_round([E.shr(digit(E.var(f"f{j}")), E.u32(ROUND_BITS)) for j in range(ITEMS)], "_s")
    body.append(Node.barrier())
    body += [Node.store("work", _slot(E.var(f"_sr{j}")), E.var(f"f{j}")) for j in range(ITEMS)]
    body.append(Node.barrier())
    return body


def _write_runs(with_values: bool) -> list[Node]:
    """Sorted position p = l + 256 m of the tile: a head of a run of equal
    digits stores `offs[digit, tile] - p` as the digit's delta; after a barrier
    every key (and value) goes to delta[digit] + p."""
    local = E.local_id(0)
    digit = _entry_digit(with_values)
    body: list[Node] = []
    for m in range(ITEMS):
        p = f"p{m}"
        body.append(Node.let(p, E.add(local, E.u32(m * WORKGROUP)) if m else local))
        body.append(Node.let(f"y{m}", E.load("work", _slot(E.var(p)))))
        body.append(Node.let(f"g{m}", digit(E.var(f"y{m}"))))
        before = digit(E.load("work", _slot(E.sub(E.var(p), E.u32(1)))))
        head = E.ne(before, E.var(f"g{m}"))
        if m == 0:
            head = E.or_(E.eq(E.var(p), E.u32(0)), head)
        start = E.load("offs", E.add(E.mul(E.var(f"g{m}"), param(1)), E.workgroup_id(0)))
        body.append(Node.if_(head, [Node.store("delta", E.var(f"g{m}"), E.sub(start, E.var(p)))]))
    body.append(Node.barrier())
    for m in range(ITEMS):
        to = f"to{m}"
        writes: list[Node] = [Node.let(to, E.add(E.load("delta", E.var(f"g{m}")), E.var(f"p{m}")))]
        if with_values:
            source = E.add(E.var("tb"), E.shr(E.var(f"y{m}"), E.u32(DIGIT_BITS)))
            writes.append(Node.store("keys_out", E.var(to), E.load("keys", source)))
            writes.append(Node.store("values_out", E.var(to), E.load("values", source)))
        else:
            writes.append(Node.store("keys_out", E.var(to), E.var(f"y{m}")))
        body.append(Node.if_(E.lt(E.add(E.var("tb"), E.var(f"p{m}")), E.var("n")), writes))
    return body


@cache
def scatter_program(with_values: bool) -> Program:
    """The tile sorted by digit in workgroup memory (two stable 4-bit rounds),
    then each run of equal digits written to consecutive addresses from
    `offs[digit, tile]`; the values travel with their keys."""
    body = [*_load_tile(with_values), *_local_sort(with_values), *_write_runs(with_values)]
    buffers = [
        BufferDecl.read("keys", 0, DataType.U32),
        BufferDecl.read("offs", 1, DataType.U32),
        BufferDecl.read_write("keys_out", 2, DataType.U32),
        BufferDecl.uniform("params", 3, DataType.U32),
    ]
    if with_values:
        buffers += [
            BufferDecl.read("values", 4, DataType.U32),
            BufferDecl.read_write("values_out", 5, DataType.U32),
        ]
    return Program(
        buffers=[
            *buffers,
            BufferDecl.workgroup("work", SLOTS, DataType.U32),
            BufferDecl.workgroup("sums", MULTI_SCAN_PRE_WORDS, DataType.U32),
            BufferDecl.workgroup("pre", MULTI_SCAN_PRE_WORDS, DataType.U32),
            BufferDecl.workgroup("totals", WORDS, DataType.U32),
            BufferDecl.workgroup("delta", BINS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"radix_scatter{'_kv' if with_values else ''}",
    )


def _radix_plan(with_values: bool) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n = sizes["keys"]
        keys_out = Buffer("ka", DataType.U32, n)
        values_out = Buffer("va", DataType.U32, n)
        outputs = (keys_out, values_out) if with_values else (keys_out,)
        if n == 0:
            return KernelPlan(outputs, (), _output_names(with_values))
        tiles = -(-n // TILE)
        entries = BINS * tiles
        scan_blocks = -(-entries // (SCAN_TILE * HIST_SUBTILES))
        buffers = [
            *outputs,
            Buffer("kb", DataType.U32, n),
            Buffer("hist", DataType.U32, entries),
            Buffer("offs", DataType.U32, entries),
            Buffer("hsums", DataType.U32, scan_blocks),
            params_buffer("hparams", [scan_blocks, -(-scan_blocks // SCAN_TILE)]),
        ]
        if with_values:
            buffers.append(Buffer("vb", DataType.U32, n))
        steps: list[Step] = []
        for p in range(PASSES):
            buffers.append(params_buffer(f"params{p}", [n, tiles, DIGIT_BITS * p]))
            steps += _pass_steps(p, tiles, scan_blocks, with_values)
        return KernelPlan(tuple(buffers), tuple(steps), _output_names(with_values))

    return plan


def _pass_steps(p: int, tiles: int, scan_blocks: int, with_values: bool) -> list[Step]:
    """Pass p's five dispatches: count, the hist scan's three, scatter."""
    source = "keys" if p == 0 else ("ka" if p % 2 == 0 else "kb")
    target = "kb" if p % 2 == 0 else "ka"
    bind = {"keys": source, "keys_out": target, "params": f"params{p}"}
    if with_values:
        bind["values"] = "values" if p == 0 else ("va" if p % 2 == 0 else "vb")
        bind["values_out"] = "vb" if p % 2 == 0 else "va"
    return [
        Step(count_program(), (tiles, 1, 1), {"keys": source, "params": f"params{p}"}),
        Step(block_sums_program(HIST_SUBTILES), (scan_blocks, 1, 1), {"x": "hist", "sums": "hsums"}),
        Step(scan_sums_program(), (1, 1, 1), {"sums": "hsums", "params": "hparams"}),
        Step(
            scan_tiles_program(True, HIST_SUBTILES),
            (scan_blocks, 1, 1),
            {"x": "hist", "offsets": "hsums", "out": "offs"},
        ),
        Step(scatter_program(with_values), (tiles, 1, 1), bind),
    ]


def _output_names(with_values: bool) -> dict[str, str]:
    return {"values_out": "va", "keys_out": "ka"} if with_values else {"out": "ka"}


# ---------------------------------------------------------------------------
# References and laws
# ---------------------------------------------------------------------------


def _sort_reference(keys: np.ndarray) -> tuple[np.ndarray]:
    return (np.sort(np.asarray(keys, dtype=np.uint32), kind="stable"),)


def _kv_reference(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keys = np.asarray(keys, dtype=np.uint32)
    order = np.argsort(keys, kind="stable")
    return np.asarray(values, dtype=np.uint32)[order], keys[order]


class Ordered(KernelLaw):
    """The sorted keys are non-decreasing and a permutation of the input keys."""

    name = "OrderedPermutation"

    def __init__(self, keys_output: int = 0):
        self.keys_output = keys_output

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        keys = np.asarray(args[0], dtype=np.uint32)
        out = np.asarray(op(*args)[self.keys_output], dtype=np.uint32)
        if out.shape != keys.shape:
            return f"{out.size} keys out for {keys.size} in"
        bad = np.flatnonzero(out[1:] < out[:-1])
        if bad.size:
            return f"out[{int(bad[0]) + 1}] = {int(out[bad[0] + 1])} < out[{int(bad[0])}] = {int(out[bad[0]])}"
        if not np.array_equal(np.sort(keys), np.sort(out)):
            return "the output keys are not a permutation of the input keys"
        return None


class Idempotent(KernelLaw):
    """sort(sort(x)) = sort(x), and sorting a shuffled input gives the same keys."""

    name = "Idempotent"

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        keys = np.asarray(args[0], dtype=np.uint32)
        once = np.asarray(op(keys)[0])
        if not np.array_equal(np.asarray(op(once)[0]), once):
            return "sort(sort(x)) != sort(x)"
        if not np.array_equal(np.asarray(op(keys[::-1].copy())[0]), once):
            return "sort(reversed x) != sort(x)"
        return None


class Stable(KernelLaw):
    """Values come out grouped by key, equal keys keeping the input order of their
    values, and the (key, value) pairs are those of the input."""

    name = "Stable"

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        keys = np.asarray(args[0], dtype=np.uint32)
        n = len(keys)
        index = np.arange(n, dtype=np.uint32)  # values that name their input position
        values_out, keys_out = (np.asarray(a, dtype=np.uint32) for a in op(keys, index))
        if values_out.shape != (n,) or keys_out.shape != (n,):
            return "outputs of the wrong length"
        if not np.array_equal(keys[values_out], keys_out):
            return "a value travelled without its key"
        if n and not np.array_equal(np.sort(values_out), index):
            return "the values out are not a permutation of the values in"
        for i in np.flatnonzero(keys_out[1:] == keys_out[:-1]):
            if values_out[i] > values_out[i + 1]:
                return f"equal keys at {int(i)}, {int(i) + 1} swapped their order"
        return None


def _check_kv(args: tuple[Any, ...]) -> None:
    keys, values = args
    if len(keys) != len(values):
        raise ValueError(
            f"`sort.key_value_u32`: input `values` has {len(values)} elements, input `keys` {len(keys)};"
            " they must have the same length"
        )


KERNELS = (
    KernelSpec(
        id="sort.u32",
        version=1,
        inputs=(Port("keys", DataType.U32),),
        outputs=(Port("out", DataType.U32),),
        kind="scan-based",
        reference=_sort_reference,
        plan=_radix_plan(False),
        summary="ascending (np.sort); stable LSD radix sort, 4 passes of 8-bit digits",
        laws=(Ordered(), Idempotent()),
    ),
    KernelSpec(
        id="sort.key_value_u32",
        version=1,
        inputs=(Port("keys", DataType.U32), Port("values", DataType.U32)),
        outputs=(Port("values_out", DataType.U32), Port("keys_out", DataType.U32)),
        kind="scan-based",
        reference=_kv_reference,
        plan=_radix_plan(True),
        summary="values ordered by key, stable (np.argsort kind='stable'); the sorted keys as the second output",
        laws=(Ordered(keys_output=1), Stable()),
        check_args=_check_kv,
    ),
)
