"""The records a unit returns (what `vyre.conform.assemble` groups).

A unit returns a list of `Result`s, or one `UnitError` when it could not run.
They cross process boundaries (the `--jobs` pool, Dask) as pickles and are
written to checkpoints and shard certificates as JSON: `to_json` gives the
exact dict the suite has always written (every field, None included; the
`proof`, `compose` and `perf` attachments only when present) and
`record_from_json` reads it back, so old checkpoints resume.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from vyre.conform.kinds import CheckKind, ProofStatus, Target

__all__ = [
    "Composition",
    "PerfSummary",
    "ProofSummary",
    "Result",
    "UnitError",
    "UnitRecord",
    "record_from_json",
    "records_to_json",
    "result",
]


def _ints(values: Sequence[Any] | None) -> tuple[int, ...] | None:
    return None if values is None else tuple(int(v) for v in values)


def _list(values: tuple[int, ...] | None) -> list[int] | None:
    return None if values is None else list(values)


@dataclass(frozen=True)
class ProofSummary:
    """What a proof unit keeps of the solver's record (no timings: the
    certificate content is reproducible)."""

    status: ProofStatus
    solver: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"status": self.status.value, "solver": self.solver, "detail": self.detail}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProofSummary:
        return cls(ProofStatus(data["status"]), str(data["solver"]), str(data["detail"]))


@dataclass(frozen=True)
class Composition:
    """The laws a composition inherits from its callees' laws (`compose.analyse`):
    proved from the structure, refuted by it, or undecided."""

    callees: tuple[str, ...]
    inherited: tuple[str, ...]
    not_implied: tuple[str, ...]
    undecided: tuple[str, ...]
    solver: str

    def to_json(self) -> dict[str, Any]:
        return {
            "callees": list(self.callees), "inherited": list(self.inherited),
            "not_implied": list(self.not_implied), "undecided": list(self.undecided), "solver": self.solver,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Composition:
        return cls(
            tuple(data["callees"]), tuple(data["inherited"]), tuple(data["not_implied"]),
            tuple(data["undecided"]), str(data["solver"]),
        )


@dataclass(frozen=True)
class PerfSummary:
    """A performance baseline: the ratio hand-written time / vyre time (the
    median of the repetitions), its spread over them (`low`, `high`; None in
    records made before they were kept) and the adapter (`device`)."""

    ratio: float
    device: str
    n: int
    detail: str
    low: float | None = None
    high: float | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"ratio": self.ratio, "device": self.device, "n": self.n, "detail": self.detail}
        if self.low is not None and self.high is not None:
            data |= {"low": self.low, "high": self.high}
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PerfSummary:
        low, high = data.get("low"), data.get("high")
        return cls(
            data["ratio"], str(data["device"]), int(data["n"]), str(data["detail"]),
            None if low is None else float(low), None if high is None else float(high),
        )


@dataclass(frozen=True)
class Result:
    """`check` ("law:Name", "reference", "parity", ...) on `target` over `cases`
    inputs of `domain`, `violations` of which failed; the first violating
    index, the minimal `counterexample` and the `raw` one it was shrunk from."""

    check: str
    target: Target
    domain: str
    cases: int
    violations: int
    law: str | None = None
    first: int | None = None
    counterexample: tuple[int, ...] | None = None
    raw: tuple[int, ...] | None = None
    detail: str | None = None
    proof: ProofSummary | None = None
    compose: Composition | None = None
    perf: PerfSummary | None = None

    @property
    def kind(self) -> CheckKind:
        return CheckKind.of(self.check)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "check": self.check, "law": self.law, "target": self.target.value, "domain": self.domain,
            "cases": self.cases, "violations": self.violations, "first": self.first,
            "counterexample": _list(self.counterexample), "raw": _list(self.raw),
            "detail": self.detail, "error": None,
        }
        for name, attached in (("proof", self.proof), ("compose", self.compose), ("perf", self.perf)):
            if attached is not None:
                out[name] = attached.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        proof, compose, perf = data.get("proof"), data.get("compose"), data.get("perf")
        return cls(
            check=str(data["check"]), target=Target(data["target"]), domain=str(data["domain"]),
            cases=int(data["cases"]), violations=int(data["violations"]), law=data.get("law"),
            first=data.get("first"), counterexample=_ints(data.get("counterexample")),
            raw=_ints(data.get("raw")), detail=data.get("detail"),
            proof=None if proof is None else ProofSummary.from_json(proof),
            compose=None if compose is None else Composition.from_json(compose),
            perf=None if perf is None else PerfSummary.from_json(perf),
        )


@dataclass(frozen=True)
class UnitError:
    """A unit that raised instead of returning results (a finding: "execution")."""

    error: str
    check: ClassVar[str] = CheckKind.EXECUTION.value

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "error": self.error}


UnitRecord = Result | UnitError


def record_from_json(data: Mapping[str, Any]) -> UnitRecord:
    """A unit record from a checkpoint or shard certificate (ValueError or
    KeyError when it is not one)."""
    if data.get("error"):
        return UnitError(str(data["error"]))
    return Result.from_json(data)


def records_to_json(records: Sequence[UnitRecord]) -> list[dict[str, Any]]:
    return [record.to_json() for record in records]


def result(
    check: str,
    target: Target,
    domain: str,
    cases: int,
    violations: int,
    *,
    law: str | None = None,
    first: int | None = None,
    counterexample: Sequence[int] | None = None,
    raw: Sequence[int] | None = None,
    detail: str | None = None,
    proof: ProofSummary | None = None,
    compose: Composition | None = None,
    perf: PerfSummary | None = None,
) -> Result:
    """A `Result` with its numbers made plain ints (numpy scalars come in)."""
    return Result(
        check=check, target=target, domain=domain, cases=int(cases), violations=int(violations), law=law,
        first=None if first is None else int(first), counterexample=_ints(counterexample), raw=_ints(raw),
        detail=detail, proof=proof, compose=compose, perf=perf,
    )
