"""The findings of a certificate: each `Failure` (a violation, its minimal
counterexample and `Fix:` hint) and each `Obligation` (what was established
for an (op, check), and how strongly). `to_json` is the certificate's form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vyre.conform.kinds import CheckKind, ObligationStrength, Target

__all__ = ["STRENGTH_ORDER", "Failure", "Obligation"]


@dataclass(frozen=True)
class Failure:
    """One violation: the op, the check ("law:Commutative", "reference", "parity",
    "determinism", "oracle", "execution"), the minimal counterexample (a tuple of
    input values) and the `Fix:` hint."""

    op_id: str
    check: str
    counterexample: tuple[int, ...]
    fix: str
    law: str | None = None
    target: Target = Target.BACKEND
    domain: str = ""
    violations: int = 0
    cases: int = 0
    detail: str = ""
    raw_counterexample: tuple[int, ...] = ()

    @property
    def kind(self) -> CheckKind:
        return CheckKind.of(self.check)

    def to_json(self) -> dict[str, Any]:
        return {
            "op_id": self.op_id, "check": self.check, "law": self.law, "target": self.target.value,
            "domain": self.domain, "counterexample": list(self.counterexample),
            "raw_counterexample": list(self.raw_counterexample), "violations": self.violations,
            "cases": self.cases, "detail": self.detail, "fix": self.fix,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Failure:
        return cls(
            op_id=data["op_id"],
            check=data["check"],
            counterexample=tuple(data.get("counterexample") or ()),
            fix=data["fix"],
            law=data.get("law"),
            target=Target(data.get("target", Target.BACKEND)),
            domain=data.get("domain", ""),
            violations=int(data.get("violations") or 0),
            cases=int(data.get("cases") or 0),
            detail=data.get("detail") or "",
            raw_counterexample=tuple(data.get("raw_counterexample") or ()),
        )

    def __str__(self) -> str:
        args = ", ".join(f"{v:#x}" for v in self.counterexample)
        what = f"{self.check} [{self.law}]" if self.law and self.law != self.check[4:] else self.check
        return f"{self.op_id}: {what} on {self.target} at ({args}): {self.detail} {self.fix}".strip()


STRENGTH_ORDER = tuple(ObligationStrength)
"""Obligation strengths, strongest first (docs/conform.md, "Obligations and strengths")."""


@dataclass(frozen=True)
class Obligation:
    """What was established for one (op, check): `strength` is "proved" (all
    inputs, SMT), "exhaustive-u16", "exhaustive-u8" or "witnessed"; `detail`
    names the solver and version, or the cases and the seed; `holds` is False
    when a violation was found."""

    op_id: str
    check: str
    strength: ObligationStrength
    detail: str
    holds: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "op_id": self.op_id, "check": self.check, "strength": self.strength.value,
            "holds": self.holds, "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Obligation:
        return cls(
            op_id=str(data["op_id"]), check=str(data["check"]), strength=ObligationStrength(data["strength"]),
            detail=str(data.get("detail", "")), holds=bool(data.get("holds", True)),
        )
