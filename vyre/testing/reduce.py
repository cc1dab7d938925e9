"""Shrink a failing program: drop statements while a property still holds.

`reduce_program(program, still_fails)` greedily erases one statement op at a
time (with its nested body and the expression ops only it used), keeps the
erasure when the result still validates and `still_fails(candidate)` is true,
and repeats until no single erasure is kept. Barriers are never erased: losing
one could turn a race-free program into a racy one.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from vyre.dialects import vyre as d
from vyre.ir import Program
from vyre.validate import validate

__all__ = ["reduce_program"]


def _statements(program: Program) -> list[Operation]:
    return [
        op
        for op in program.kernel.walk()
        if isinstance(op, d.StmtOp) and not isinstance(op, d.BarrierOp)
    ]


def _erase_dead_expressions(program: Program) -> None:
    changed = True
    while changed:
        changed = False
        for op in list(program.kernel.walk()):
            if isinstance(op, d.ExprOp) and not op.results[0].uses:
                op.detach()
                op.erase()
                changed = True


def _without(program: Program, position: int) -> Program:
    candidate = program.clone()
    target = _statements(candidate)[position]
    target.detach()
    target.erase(safe_erase=False)
    _erase_dead_expressions(candidate)
    return candidate


def reduce_program(
    program: Program,
    still_fails: Callable[[Program], bool],
    *,
    max_checks: int = 2000,
) -> Program:
    """A smaller valid program for which `still_fails` holds (the input if none)."""
    current = program
    checks = 0
    progress = True
    while progress and checks < max_checks:
        progress = False
        position = len(_statements(current)) - 1
        while position >= 0 and checks < max_checks:
            candidate = _without(current, position)
            checks += 1
            if not validate(candidate) and still_fails(candidate):
                current = candidate
                progress = True
            position = min(position - 1, len(_statements(current)) - 1)
    return current
