"""Loops on adapters that stop them silently (options.py `loop_limit`).

lavapipe (Mesa's llvmpipe) gives every shader invocation one counter of loop
back-edges, shared by all its loops (nested loops count together, loops in
sequence too, helper functions are inlined into the same count) and, because
it runs 8 invocations per SIMD batch, by the whole batch: when 65,535
back-edges have been taken it leaves every loop, silently, and execution goes
on after them. Measured (Mesa 22.3.6): one loop of 100,000 stops at 65,535; a
20 x 4,096 nest at 65,505 inner iterations; two loops of 40,000 in sequence run
40,000 and 25,534; a loop whose body is written 4 times per iteration runs
4 x 65,535 iterations; two lanes of one batch whose loops of 60,000 run in
different iterations of an outer loop stop at 60,000 and 5,533.

So no per-invocation bound makes results correct by itself; the lowering
therefore does two things:

1. *Fewer back-edges.* A vyre Loop is emitted as a WGSL `loop` whose body holds
   `u` copies of the vyre body, each preceded by the exact exit test
   (`if (i >= end) { break; }`): `u` iterations per back-edge. `u` is a power of
   two up to `MAX_UNROLL` that keeps the emitted body under `BODY_BUDGET` ops
   (inner loops count with their own copies, and an invoke of a routine counts
   as the routine's ops: drivers inline routines, so each copy of a body that
   calls a soft-float function carries the whole function), so a small loop of
   1,000,000 iterations takes 31,250 back-edges. (Counting an invoke as one op,
   a 3-iteration loop calling `flog` was written 32 times: lavapipe took 139 s
   of CPU to compile it, 1.5 s without the loop; a loop calling a correctly
   rounded function is now written once per iteration.)
2. *Detection.* After the loop, `if (i < end)` means it did not end by its own
   condition (the driver stopped it): the loop sets the status word, which the
   runtime reads with the results and turns into an error naming the limit. A
   `return` inside the loop never reaches the check. The lowering's own loops
   (strong compare-exchange, F16/BF16 stores, workgroup zeroing) check too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from typing import cast

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation

from vyre.dialects import vyre as d
from vyre.lowering import u128

__all__ = ["BODY_BUDGET", "MAX_UNROLL", "is_fallback_call", "ops_work", "routine_work", "unroll_factors"]

MAX_UNROLL = 32
BODY_BUDGET = 256
"""Ops of one unrolled loop body (all its copies) the unrolling aims to stay under."""


def unroll_factors(kernel: d.KernelOp) -> dict[Operation, int]:
    """The copies of each Loop's body per WGSL iteration."""
    factors: dict[Operation, int] = {}
    _size(kernel.entry, factors, routine_work(kernel))
    return factors


def is_fallback_call(op: object) -> bool:
    """Whether `op` is a routine call that only an arm of one select uses: the
    WGSL lowering makes such a call only where the select picks it (a fast path's
    fallback, run by the elements the fast path does not cover)."""
    if not isinstance(op, d.InvokeOp):
        return False
    uses = list(op.res.uses)
    if len(uses) != 1:
        return False
    user = uses[0].operation
    return isinstance(user, d.SelectOp) and uses[0].index != 0


def routine_work(kernel: Operation, fallbacks: bool = True) -> Callable[[str], int]:
    """The ops one invoke of each routine beside `kernel` runs (by name): its
    body, an invoke in it counting as that routine (routines through routines);
    an unknown routine counts 0, a cycle (V137) once. `fallbacks=False`: a
    fallback call (`is_fallback_call`) counts 1, what an element the fast path
    covers runs; True: its routine, what the shader holds."""
    routines = d.routines_of(kernel)
    costs: dict[str, int] = {}

    def cost(name: str) -> int:
        found = costs.get(name)
        if found is None:
            routine = routines.get(name)
            costs[name] = 0
            found = 0 if routine is None else ops_work(routine.entry.ops, cost, fallbacks)
            costs[name] = found
        return found

    return cost


def ops_work(ops: Iterable[Operation], cost: Callable[[str], int], fallbacks: bool = True) -> int:
    """The ops `ops` run, an invoke counting as its routine's `cost` (a fallback
    call as 1 with `fallbacks=False`) and a u128 operator as its WGSL operations
    (`u128.WORK`, 8 where not listed)."""
    total = 0
    for op in ops:
        if isinstance(op, d.InvokeOp):
            total += cost(op.callee.data) if fallbacks or not is_fallback_call(op) else 1
        elif isinstance(op, d.BinOp | d.UnOp) and op.operands[0].type == d.U128:
            total += u128.WORK.get(cast(StringAttr, op.properties["kind"]).data, 8)
        else:
            total += 1
    return total


def _size(block: Block, factors: dict[Operation, int], cost: Callable[[str], int]) -> int:
    """Ops the block emits, counting nested loops with their copies and invokes
    as their routines (iteratively deep programs are bounded by validation's
    nesting limit)."""
    total = 0
    for op in block.ops:
        total += cost(op.callee.data) if isinstance(op, d.InvokeOp) else 1
        if isinstance(op, d.LoopOp):
            body = _size(op.body_block, factors, cost)
            copies = 1
            while copies < MAX_UNROLL and copies * 2 * max(body, 1) <= BODY_BUDGET:
                copies *= 2
            factors[op] = copies
            total += copies * body
        else:
            for region in op.regions:
                for inner in region.blocks:
                    total += _size(inner, factors, cost)
    return total
