"""The plan's records of what it certifies: one `OpEntry` per selected op (with
its `LawEntry`s) and one `Rejection` per check the independence gate refused.

They live in the plan's JSON (`Plan.data["ops"]`, `["independence"]`), which
is digested and embedded in shard certificates, so `to_json` writes exactly the
keys the suite has always written (an unsupported op has no `specials` or
`structured_inputs`) and `from_json` reads them back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from vyre.conform.kinds import CheckKind, OpStatus

__all__ = ["LawEntry", "OpEntry", "Rejection"]


@dataclass(frozen=True)
class LawEntry:
    """Declared law `index` of an op: its text ("Identity(0x0)"), its check
    ("law:Identity") and how many variables it quantifies (0: unsupported)."""

    index: int
    law: str
    check: str
    variables: int

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "law": self.law, "check": self.check, "variables": self.variables}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LawEntry:
        return cls(int(data["index"]), str(data["law"]), str(data["check"]), int(data["variables"]))


@dataclass(frozen=True)
class OpEntry:
    """One selected op: identity, signature, declared laws, the size of its
    rule material, and whether it is checked (else `reason` says why not)."""

    id: str
    version: int
    category: str
    signature: str
    laws: tuple[LawEntry, ...]
    classes: int
    representatives: int
    boundaries: int
    status: OpStatus = OpStatus.CHECKED
    reason: str = ""
    specials: int | None = None
    structured_inputs: int | None = None

    @property
    def checked(self) -> bool:
        return self.status is OpStatus.CHECKED

    @property
    def arity(self) -> int:
        """Inputs of the signature ("(u32, u32) -> u32": 2; "() -> ...": 0)."""
        return 0 if "()" in self.signature else self.signature.count(",") + 1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "version": self.version, "category": self.category, "signature": self.signature,
            "laws": [law.to_json() for law in self.laws], "classes": self.classes,
            "representatives": self.representatives, "boundaries": self.boundaries,
            "status": self.status.value, "reason": self.reason,
        }
        if self.specials is not None:
            out["specials"] = self.specials
        if self.structured_inputs is not None:
            out["structured_inputs"] = self.structured_inputs
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OpEntry:
        specials, structured = data.get("specials"), data.get("structured_inputs")
        return cls(
            id=str(data["id"]), version=int(data["version"]), category=str(data["category"]),
            signature=str(data["signature"]), laws=tuple(LawEntry.from_json(x) for x in data["laws"]),
            classes=int(data["classes"]), representatives=int(data["representatives"]),
            boundaries=int(data["boundaries"]), status=OpStatus(data["status"]), reason=str(data["reason"]),
            specials=None if specials is None else int(specials),
            structured_inputs=None if structured is None else int(structured),
        )


@dataclass(frozen=True)
class Rejection:
    """A check the independence gate refused for an op ("*": every op), and why."""

    op: str
    check: CheckKind
    reason: str
    verdict: ClassVar[str] = "rejected"

    def to_json(self) -> dict[str, str]:
        return {"op": self.op, "check": self.check.value, "verdict": self.verdict, "reason": self.reason}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rejection:
        return cls(str(data["op"]), CheckKind(data["check"]), str(data["reason"]))
