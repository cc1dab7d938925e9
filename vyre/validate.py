"""Validation of vyre programs: the rules V001-V025 of validation.md.

(Interface stub; the full validator is being written.)
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException


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


def validate(program: object) -> list[Diagnostic]:
    return []


def raise_if_invalid(kernel: Operation) -> None:
    diagnostics = validate(kernel)
    if diagnostics:
        raise VerifyException("\n".join(d.message for d in diagnostics))
