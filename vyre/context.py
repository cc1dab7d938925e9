"""The xDSL context that knows the dialects vyre programs use, and the stack
that walks over deeply nested programs run on.

xDSL's printer, parser and verifier recurse once per region level (about ten
Python frames each), so a program nested a few dozen levels deep exhausts
Python's default recursion limit of 1,000. vyre's own walks are iterative;
where xDSL recurses, `run_deep` runs the walk on a thread whose stack and
recursion limit fit `MAX_NESTING` levels, and callers refuse deeper programs
with a clear error (V018 allows 64 levels: anything near `MAX_NESTING` is far
from a valid program, and the text of such a program is quadratic in its depth).
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Operation

from vyre.dialects.vyre import Vyre

__all__ = [
    "MAX_BUILD_NODES",
    "MAX_NESTING",
    "NestingError",
    "bulk_ir",
    "check_nesting",
    "nesting_depth",
    "run_deep",
    "vyre_context",
]

_T = TypeVar("_T")

MAX_NESTING = 1024
"""Deepest region nesting (a kernel's body is level 1) that the text form, the
wire form and program equality hold."""

MAX_BUILD_NODES = 200_000
"""Ops the Python builder materialises for one program before it stops with a
ValueError: twice V019's 100,000 (so validation still reports V019 for a
program just over it). Every use of a shared `Expr`/`Node` becomes its own
copy, so a DAG of 41 nodes can expand to 2^40 ops; the cap stops that in about
a second instead of exhausting memory."""

_FRAMES_PER_LEVEL = 16
"""Python frames one region level costs xDSL's recursive walks (measured: 10)."""
_SHALLOW_LEVELS = 32
"""Up to this depth the walks run on the caller's thread, as they are."""
_DEEP_STACK_BYTES = 512 * 1024 * 1024
"""Stack of the thread deep walks run on (virtual memory, touched only as used)."""

_deep_lock = threading.Lock()
_deep_active = 0
_saved_limit = 0


class NestingError(ValueError):
    """A program nested deeper than `MAX_NESTING` levels."""


@contextmanager
def bulk_ir() -> Generator[None]:
    """Pause Python's cyclic garbage collector while a whole program's IR is
    built (builder, parser, wire decoder). Each collection rescans every live
    object, so while tens of thousands of ops are allocated it rescans the
    growing IR again and again: 40k ops decode 3x faster and build 3x faster
    without it, and the cost grows linearly again. Reference counting still
    frees all garbage meanwhile; the collector runs again at the end."""
    global _bulk_depth
    with _gc_lock:
        _bulk_depth += 1
        if _bulk_depth == 1:
            global _gc_was_enabled
            _gc_was_enabled = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            _bulk_depth -= 1
            if _bulk_depth == 0 and _gc_was_enabled:
                gc.enable()


_gc_lock = threading.Lock()
_bulk_depth = 0
_gc_was_enabled = True


def vyre_context() -> Context:
    """A fresh context with `builtin` and `vyre` loaded."""
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Vyre)
    return ctx


def _nested_ops(op: Operation) -> Iterator[Operation]:
    return chain.from_iterable(block.ops for region in op.regions for block in region.blocks)


def nesting_depth(op: Operation) -> int:
    """How many regions deep the ops below `op` go (0: `op` has no region),
    measured without recursion."""
    deepest = 0
    stack: list[tuple[Iterator[Operation], int]] = [(_nested_ops(op), 1)] if op.regions else []
    while stack:
        ops, depth = stack[-1]
        deepest = max(deepest, depth)
        nested = next(ops, None)
        if nested is None:
            stack.pop()
        elif nested.regions:
            stack.append((_nested_ops(nested), depth + 1))
    return deepest


def check_nesting(op: Operation, what: str) -> int:
    """The region levels a recursive walk over `op` goes through; `NestingError`
    (a ValueError) naming `what` when its program nests deeper than `MAX_NESTING`
    (a module's own region aside: its kernel's body is level 1)."""
    depth = nesting_depth(op) - isinstance(op, ModuleOp)
    if depth > MAX_NESTING:
        raise NestingError(
            f"{what}: the program nests regions {depth} levels deep; vyre holds at most"
            f" {MAX_NESTING} (and V018 allows 64). Fix: flatten nested If/Loop/Block"
            " statements"
        )
    return depth + 1


def run_deep(fn: Callable[[], _T], depth: int) -> _T:
    """`fn()` with room for `depth` region levels of xDSL recursion: on the
    calling thread when `depth` is small, otherwise on a thread with a large
    stack and a raised recursion limit (exceptions propagate to the caller)."""
    if depth <= _SHALLOW_LEVELS:
        return fn()
    needed = 2_000 + _FRAMES_PER_LEVEL * depth
    outcome: list[_T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(fn())
        except BaseException as error:  # re-raised on the calling thread
            failure.append(error)

    _enter_deep(needed)
    try:
        with _deep_lock:
            previous = threading.stack_size(_DEEP_STACK_BYTES)
            try:
                worker = threading.Thread(target=target, name="vyre-deep-walk", daemon=True)
                worker.start()
            finally:
                threading.stack_size(previous)
        worker.join()
    finally:
        _leave_deep()
    if failure:
        raise failure[0]
    return outcome[0]


def _enter_deep(needed: int) -> None:
    global _deep_active, _saved_limit
    with _deep_lock:
        if _deep_active == 0:
            _saved_limit = sys.getrecursionlimit()
        _deep_active += 1
        if sys.getrecursionlimit() < needed:
            sys.setrecursionlimit(needed)


def _leave_deep() -> None:
    global _deep_active
    with _deep_lock:
        _deep_active -= 1
        if _deep_active == 0:
            sys.setrecursionlimit(max(_saved_limit, 1_000))
