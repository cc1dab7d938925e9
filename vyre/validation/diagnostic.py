"""The result type of validation: one finding per independent problem."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation


@dataclass(frozen=True)
class Diagnostic:
    """One validation finding: the stable rule id, the exact message, the op."""

    rule: str
    message: str
    op: Operation | None = None

    def __str__(self) -> str:
        return self.message


class ValidationError(ValueError):
    """An invalid program; `.diagnostics` lists every independent finding."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.message for d in self.diagnostics))
