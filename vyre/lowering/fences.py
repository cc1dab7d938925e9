"""Which barriers keep the storage fence (`storageBarrier()`).

A vyre `Barrier` (docs/semantics.md, "A kernel and how it runs") waits for the whole
workgroup and makes every storage write of the workgroup's invocations before
it visible to them after it; it also orders workgroup memory. In WGSL the two
halves are separate builtins: `workgroupBarrier()` (the control barrier, with
acquire-release ordering of workgroup memory) and `storageBarrier()` (the same
control barrier with acquire-release ordering of storage memory). On NVIDIA the
storage half is a device-scope memory fence, and the barrier-heavy kernels
(tile scans, the radix count and scatter, the reductions' workgroup tree) are
bound by it. This module decides, per IR barrier, whether its storage fence can
be observed; the lowering emits `storageBarrier(); workgroupBarrier();` where
it can and `workgroupBarrier()` alone where it cannot.

**The condition.** The fence of barrier `b` is kept iff some *writable* storage
buffer `B` (declared `read_write`; its accesses are loads, stores and atomics)
is accessed both before and after `b`, where, in the program text:

- "before" is any access that precedes `b`, "after" any access that follows it;
- an access anywhere inside a Loop that contains `b` (the outermost such loop,
  with everything nested in it) counts as both before and after;
- If and Block are straight-line text: both arms of an If count by their
  position (an access in the else arm counts as "after" a barrier in the then
  arm, although one execution never runs both: conservative). Any other op with
  a body is treated as a Loop.

It is computed from one pre-order walk (positions of ops): per buffer the first
and last access position, per barrier the span `[lo, hi]` of its outermost
enclosing loop (or its own position); the fence is kept iff some writable
buffer has `first <= hi` and `last >= lo`.

**Why dropping the fence elsewhere changes no result.** What the fence adds to
the control barrier is ordering of storage accesses of different invocations of
the workgroup across the barrier (vyre: writes before it are
visible after it; WGSL: `storageBarrier` orders storage accesses of the
invocations across the barrier). Such ordering can only change an outcome for a
*conflicting* pair: two accesses to the same storage location, at least one a
write, X by invocation P before barrier instance b and Y by invocation Q after
it. Its observable effects are the value Y reads (read after write), the value
X reads (a read before must not see a write after: write after read), and
which of two writes is final (write after write); the final contents after the
dispatch are guaranteed by the dispatch boundary, not by any barrier.

1. The location is in a writable buffer: read_only and uniform buffers are not
   written during the dispatch, so no pair on them conflicts. Distinct
   declarations are distinct memory: V002 gives each buffer its own binding,
   `vyre.run` copies a read_write input on the device before the run, WebGPU
   forbids a read-only binding of a buffer bound writable in the same dispatch,
   and the reference interpreter gives every buffer its own words (a backend
   aliasing two declarations would differ from the oracle already).
2. Every invocation runs the same program text, so X (dynamically before b in
   P) is textually before b or inside a loop enclosing b, and Y (after b in Q)
   is textually after b or inside such a loop: structured control flow (If,
   Block, Loop, Return) visits the text in order except along loop back-edges.
   So the buffer of X and Y is accessed before and after b by the rule above,
   and b keeps its fence.
3. No ordering passes *through* a fenceless barrier either. A chain from X to Y
   through other invocations continues after b only by another barrier c
   later in the text (every invocation reaches the same barriers) or by
   atomics. X is before c as well, and Y after it, so c keeps its fence and
   orders X and Y directly. Atomics add no ordering: WGSL atomics are relaxed
   (the lowering has no acquire/release atomics), so they never carried
   storage visibility between invocations in the first place.

Hence for a conflicting pair that the spec's barrier orders, every barrier
between them keeps its fence, and the dropped fences order only pairs whose
order no read and no final value can observe. Workgroup memory is untouched:
`workgroupBarrier()` keeps ordering it at every barrier. The lowering's own
storage accesses inside the body are the IR's accesses (guarded loads and
stores, vec4 groups of combine.py, F16/BF16 compare-exchange stores: the same
buffer) or the loop status word, which is only ever raised by `atomicMax` to 1
and read by the host after the dispatch (order-independent). Barriers the
lowering itself emits (after zeroing workgroup memory) are `workgroupBarrier()`
and are not IR barriers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from xdsl.ir import Operation

from vyre.dialects import vyre as d
from vyre.dialects.vyre import AccessKind

__all__ = ["FENCED", "UNFENCED", "StorageFences", "storage_fences"]

FENCED: tuple[str, ...] = ("storageBarrier();", "workgroupBarrier();")
"""A barrier whose storage ordering some invocation can observe."""
UNFENCED: tuple[str, ...] = ("workgroupBarrier();",)
"""A barrier that orders workgroup memory and execution only."""

_UNWRITTEN = frozenset({AccessKind.READ_ONLY, AccessKind.UNIFORM, AccessKind.WORKGROUP})
"""Declarations whose accesses never need the storage fence: not written during
a dispatch (read_only, uniform) or not storage (workgroup)."""


@dataclass(frozen=True)
class StorageFences:
    """The IR barriers of one kernel that keep the storage fence."""

    fenced: frozenset[Operation]
    barriers: int
    """How many IR barriers the kernel has."""

    def needs_fence(self, barrier: Operation) -> bool:
        return barrier in self.fenced

    def lines(self, barrier: Operation) -> tuple[str, ...]:
        """The WGSL statements of `barrier`."""
        return FENCED if barrier in self.fenced else UNFENCED


def storage_fences(kernel: d.KernelOp) -> StorageFences:
    """Decide, for every barrier of `kernel`, whether it keeps the storage fence
    (see the module doc for the condition and why it is sound)."""
    unwritten = {
        decl.buffer_name.data for decl in kernel.buffer_decls if decl.access_kind in _UNWRITTEN
    }
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    spans: dict[Operation, tuple[int, int]] = {}
    position = 0
    loop_start = 0
    """Position of the open outermost loop (0: none)."""
    in_loop: list[Operation] = []
    """Barriers inside the open outermost loop: spanned when it closes."""
    stack: list[tuple[Iterator[Operation], bool]] = [(iter(kernel.entry.ops), False)]
    while stack:
        ops, closes = stack[-1]
        op = next(ops, None)
        if op is None:
            stack.pop()
            if closes:  # the outermost loop ends: `position` is its last op
                for barrier in in_loop:
                    spans[barrier] = (loop_start, position)
                in_loop.clear()
                loop_start = 0
            continue
        position += 1
        kind = _kind(type(op))
        if kind == _ACCESS:
            name = cast("d.LoadOp | d.StoreOp | d.AtomicOp", op).buffer.data
            if name not in unwritten:
                first.setdefault(name, position)
                last[name] = position
        elif kind == _BARRIER:
            if loop_start:
                in_loop.append(op)
            else:
                spans[op] = (position, position)
        if not op.regions:
            continue
        # If and Block are straight-line text; a Loop (or any other op with a
        # body) opens a loop span unless an outer loop is open already
        opens = loop_start == 0 and kind != _STRAIGHT
        blocks = [block for region in op.regions for block in region.blocks]
        if opens and blocks:
            loop_start = position
        for k, block in enumerate(reversed(blocks)):
            # the frame pushed first is popped last: it closes the loop
            stack.append((iter(block.ops), opens and k == 0))
    fenced = frozenset(
        barrier
        for barrier, (lo, hi) in spans.items()
        if any(first[name] <= hi and last[name] >= lo for name in first)
    )
    return StorageFences(fenced, len(spans))


_ACCESS, _BARRIER, _STRAIGHT, _OTHER = range(4)
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    """What an op class is to the analysis, cached per class (isinstance on
    xDSL's ABC-based op classes is slow; the walk must stay linear and cheap)."""
    kind = _KINDS.get(cls)
    if kind is None:
        if issubclass(cls, (d.LoadOp, d.StoreOp, d.AtomicOp)):
            kind = _ACCESS
        elif issubclass(cls, d.BarrierOp):
            kind = _BARRIER
        elif issubclass(cls, (d.IfOp, d.BlockOp)):
            kind = _STRAIGHT
        else:
            kind = _OTHER
        _KINDS[cls] = kind
    return kind
