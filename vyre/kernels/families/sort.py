"""sort.u32 and sort.key_value_u32: stable LSD radix sort of U32 keys
(python-api.md; oplib.md §7).

Eight passes of 4-bit digits (least significant first); each pass is five
dispatches in the reduce-then-scan form (Satish, Harris & Garland 2009; C3: no
inter-workgroup communication inside a dispatch, so no onesweep look-back):

1. `radix_count`: each workgroup counts the digits of its tile of TILE = 1,024
   keys into 16 bins with workgroup atomics (integer adds: deterministic) and
   writes the digit-major table `hist[digit * blocks + block]`.
2.-4. the exclusive prefix sum of `hist` (the three programs of
   `vyre/kernels/families/scan.py` with blocks of one tile, HIST_SUBTILES, bound to
   this pipeline's buffers): `offs[digit * blocks + block]` is where the
   block's keys of that digit start.
5. `radix_scatter`: invocation l takes keys 4l .. 4l + 3 of its tile (tile
   order is input order; one vec4 load), packs the counts of their digits into
   8 words of two 16-bit counters, whose exclusive `common.multi_scan` over the
   workgroup counts the same-digit keys in earlier invocations;
   plus the same-digit keys before it among its own four, that is each key's
   rank among the tile's keys of its digit, and the key (and its value, one
   vec4 load of the four) goes to `offs[digit, block] + rank`. Equal digits
   keep their order, so every pass is stable and so is the sort.

Ranks come from prefix sums (no atomics in the scatter), so the result is
deterministic on every device. The plan depends on n only: every pass runs (no data-dependent skipping),
buffers ping-pong between `ka`/`kb` (and `va`/`vb`), the eighth pass writes `ka`.
Per invocation: straight-line code over 4 keys, no loop (lavapipe's loop cap).

Traffic per pass: keys read twice and written once (+ values read and written
once), about 8 x 12 = 96 bytes per key for sort.u32. The multi-word scan keeps
all 256 invocations busy in each of its phases; with `workgroup_scan` (16 serial
scanners over 8 arrays) the scatter took 416 us per pass at 16 Mi keys on the
H100, with `multi_scan` 220 us. Per pass now (H100, 16 Mi keys, the count
measured with atomics before): count 95, hist scan 14 + 30 + 15, scatter 220 us;
the ranking's three barriers per tile are the main cost (bench/notes-h100-speed.md).
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

ITEMS = 4
TILE = WORKGROUP * ITEMS
DIGIT_BITS = 4
BINS = 1 << DIGIT_BITS
PASSES = 32 // DIGIT_BITS
WORDS = BINS // 2
"""Packed counter words per invocation: two 16-bit counters each (a tile holds
at most 1,024 keys, so no counter overflows)."""
INVALID = BINS
"""The digit of a position past n: it matches no bin."""
HIST_SUBTILES = 1
"""Tiles of 2,048 entries per block of the hist scan: 128 workgroups for the
262,144 entries at 16 Mi keys (16 with the scan op's blocks of 16,384, whose
8 serial tiles per workgroup made the three scan steps latency-bound: 165 us
per pass on the H100)."""


def _packed(digits: Sequence[Expr]) -> list[Expr]:
    """The WORDS packed counter words of a list of digits (INVALID counts nowhere)."""
    words: list[Expr] = []
    for w in range(WORDS):
        total: Expr = E.u32(0)
        for d in digits:
            total = E.add(total, E.select(E.eq(d, E.u32(2 * w)), E.u32(1), E.u32(0)))
            total = E.add(total, E.select(E.eq(d, E.u32(2 * w + 1)), E.u32(1 << 16), E.u32(0)))
        words.append(total)
    return words


def _ranked_digits(prefix: str) -> list[Node]:
    """Invocation l's keys 4l .. 4l + 3 of the workgroup's tile (tile order is
    input order; one vec4 load: the lowering combines the loads at `q + j`,
    combine.py), their digits `d{j}`, their packed counter words and the
    workgroup's exclusive scan of those (`multi_scan`): `{prefix}ex{w}` counts
    the same digits in the earlier invocations, `{prefix}tot{w}` in the tile."""
    local = E.local_id(0)
    body: list[Node] = [Node.let("q", E.add(E.mul(E.workgroup_id(0), E.u32(TILE)), E.mul(local, E.u32(ITEMS))))]
    digits: list[Expr] = []
    for j in range(ITEMS):
        index = E.add(E.var("q"), E.u32(j)) if j else E.var("q")
        body.append(Node.let(f"i{j}", index))
        body.append(Node.let(f"k{j}", E.load("keys", E.var(f"i{j}"))))
        body.append(Node.let(f"d{j}", _digit(E.var(f"k{j}"), E.var(f"i{j}"))))
        digits.append(E.var(f"d{j}"))
    for w, word in enumerate(_packed(digits)):
        body.append(Node.let(f"p{w}", word))
    body += multi_scan([f"p{w}" for w in range(WORDS)], "scan", "sums", "pre", "totals", prefix)
    return body


def _scan_buffers() -> list[BufferDecl]:
    return [
        BufferDecl.workgroup("scan", multi_scan_words(WORDS), DataType.U32),
        BufferDecl.workgroup("sums", MULTI_SCAN_PRE_WORDS, DataType.U32),
        BufferDecl.workgroup("pre", MULTI_SCAN_PRE_WORDS, DataType.U32),
        BufferDecl.workgroup("totals", WORDS, DataType.U32),
    ]


def _counter(words: Sequence[Expr], digit: Expr) -> Expr:
    """The 16-bit counter of `digit` in packed `words`."""
    word: Expr = words[0]
    for w in range(1, WORDS):
        word = E.select(E.eq(E.shr(digit, E.u32(1)), E.u32(w)), words[w], word)
    return E.bitand(E.shr(word, E.mul(E.bitand(digit, E.u32(1)), E.u32(16))), E.u32(0xFFFF))


def _digit(key: Expr, index: Expr) -> Expr:
    """The pass's digit of `key`, INVALID at positions past n (params = [n, blocks, shift])."""
    value = E.bitand(E.shr(key, param(2)), E.u32(BINS - 1))
    return E.select(E.lt(index, param(0)), value, E.u32(INVALID))


@cache
def count_program() -> Program:
    """The tile's digit counts with workgroup atomics (16 bins; docs/kernels.md),
    written digit-major to `hist`. (Counting through the packed-counter
    `multi_scan` instead, as the scatter ranks, took 176 us per pass at 16 Mi
    keys on the H100 against 95 us for these atomics.)"""
    local = E.local_id(0)
    base = E.add(E.mul(E.workgroup_id(0), E.u32(TILE)), local)
    body: list[Node] = []
    for k in range(ITEMS):
        index = E.add(base, E.u32(k * WORKGROUP))
        body.append(Node.let(f"d{k}", _digit(E.load("keys", index), index)))
        # INVALID (16) is past the 16 bins: the guarded atomic does nothing there
        body.append(Node.let(f"_o{k}", E.atomic(AtomicOp.ADD, "bins", E.var(f"d{k}"), E.u32(1))))
    body.append(Node.barrier())
    at = E.add(E.mul(local, param(1)), E.workgroup_id(0))
    body.append(
        Node.if_(E.lt(local, E.u32(BINS)), [Node.store("hist", at, E.atomic(AtomicOp.ADD, "bins", local, E.u32(0)))])
    )
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


@cache
def scatter_program(with_values: bool) -> Program:
    """Each key to `offs[digit, block]` + its rank among the tile's keys of the
    same digit before it (the earlier invocations' count from the packed scan,
    plus the same digits before it among the invocation's own four); its value
    goes to the same place."""
    body = _ranked_digits("_p")
    if with_values:
        # the values of the invocation's four keys (one vec4 load)
        body += [Node.let(f"v{j}", E.load("values", E.var(f"i{j}"))) for j in range(ITEMS)]
    earlier = [E.var(f"_pex{w}") for w in range(WORDS)]
    for j in range(ITEMS):
        d = E.var(f"d{j}")
        rank: Expr = _counter(earlier, d)
        for before in range(j):
            rank = E.add(rank, E.select(E.eq(E.var(f"d{before}"), d), E.u32(1), E.u32(0)))
        start = E.load("offs", E.add(E.mul(d, param(1)), E.workgroup_id(0)))
        writes = [Node.let(f"to{j}", E.add(start, rank)), Node.store("keys_out", E.var(f"to{j}"), E.var(f"k{j}"))]
        if with_values:
            writes.append(Node.store("values_out", E.var(f"to{j}"), E.var(f"v{j}")))
        body.append(Node.if_(E.lt(d, E.u32(INVALID)), writes))
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
        buffers=[*buffers, *_scan_buffers()],
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
        blocks = -(-n // TILE)
        entries = BINS * blocks
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
            buffers.append(params_buffer(f"params{p}", [n, blocks, DIGIT_BITS * p]))
            source = "keys" if p == 0 else ("ka" if p % 2 == 0 else "kb")
            target = "kb" if p % 2 == 0 else "ka"
            steps.append(Step(count_program(), (blocks, 1, 1), {"keys": source, "params": f"params{p}"}))
            steps.append(Step(block_sums_program(HIST_SUBTILES), (scan_blocks, 1, 1), {"x": "hist", "sums": "hsums"}))
            steps.append(Step(scan_sums_program(), (1, 1, 1), {"sums": "hsums", "params": "hparams"}))
            steps.append(
                Step(
                    scan_tiles_program(True, HIST_SUBTILES),
                    (scan_blocks, 1, 1),
                    {"x": "hist", "offsets": "hsums", "out": "offs"},
                )
            )
            bind = {"keys": source, "keys_out": target, "params": f"params{p}"}
            if with_values:
                bind["values"] = "values" if p == 0 else ("va" if p % 2 == 0 else "vb")
                bind["values_out"] = "vb" if p % 2 == 0 else "va"
            steps.append(Step(scatter_program(with_values), (blocks, 1, 1), bind))
        return KernelPlan(tuple(buffers), tuple(steps), _output_names(with_values))

    return plan


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
        summary="ascending (np.sort); stable LSD radix sort, 8 passes of 4-bit digits",
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
