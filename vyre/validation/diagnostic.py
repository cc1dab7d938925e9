"""The result type of validation: one finding per independent problem."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation

from vyre.dialects.vyre import KernelOp


@dataclass(frozen=True)
class Diagnostic:
    """One validation finding: the stable rule id, the exact message, the op."""

    rule: str
    message: str
    op: Operation | None = None

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        """`Diagnostic(V004 at vyre.store in kernel 'k' (k.vyre:5:5): <message>)`:
        the rule, where (the op, its kernel, its source location) and the message."""
        if self.op is None:
            return f"Diagnostic({self.rule}: {self.message})"
        return f"Diagnostic({self.rule} at {_where(self.op)}: {self.message})"


def _where(op: Operation) -> str:
    """The op and its kernel (`vyre.store in kernel 'k'`, `kernel 'k'` for the
    kernel itself), then its `file:line:col` when it was parsed from text."""
    kernel = _kernel_of(op)
    if kernel is None:
        where = op.name
    elif kernel is op:
        where = f"kernel {kernel.sym_name.data!r}"
    else:
        where = f"{op.name} in kernel {kernel.sym_name.data!r}"
    location = op.location
    if isinstance(location, FileLineColLoc):
        where += f" ({location.filename.data}:{location.line.data}:{location.column.data})"
    return where


def _kernel_of(op: Operation) -> KernelOp | None:
    """The `vyre.kernel` holding `op` (or `op` itself), walking up without recursion."""
    current: Operation | None = op
    while current is not None and not isinstance(current, KernelOp):
        current = current.parent_op()
    return current


class ValidationError(ValueError):
    """An invalid program; `.diagnostics` lists every independent finding."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.message for d in self.diagnostics))
