"""The typed intermediate records of certificate assembly.

`group_results` folds the unit records of a plan into one `Group` per (op,
check, law, target) with a `Tally` per domain, and the first error of each op
whose unit could not run; `op_verdict` judges one op from the groups: the
verdict of each declared law on each target, of each op-level check, its
coverage and its level; `run_level` is the level rule of the whole run. Each
record's `to_json` is the certificate's form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vyre.conform.entries import OpEntry
from vyre.conform.kinds import CheckGroup, CheckKind, CheckVerdict, LawVerdict, Level, Target, Track
from vyre.conform.plan import Plan
from vyre.conform.results import Composition, PerfSummary, ProofSummary, Result, UnitError, UnitRecord

__all__ = [
    "CheckResult",
    "Coverage",
    "Domains",
    "Group",
    "GroupKey",
    "Grouped",
    "LawResult",
    "OpVerdict",
    "Replay",
    "Tally",
    "group_results",
    "l1_checks",
    "op_verdict",
    "run_level",
]

GroupKey = tuple[str, str, str | None, Target]
"""(op, check, law, target)."""

OP_CHECKS = (CheckKind.REFERENCE, CheckKind.PARITY, CheckKind.DETERMINISM, CheckKind.ORACLE)
"""The op-level checks, in certificate order."""


@dataclass(frozen=True)
class Tally:
    cases: int = 0
    violations: int = 0

    def to_json(self) -> dict[str, int]:
        return {"cases": self.cases, "violations": self.violations}


Domains = Mapping[str, Tally]


def _domains_json(domains: Domains) -> dict[str, dict[str, int]]:
    return {name: tally.to_json() for name, tally in domains.items()}


@dataclass(frozen=True)
class Group:
    """Every result of one (op, check, law, target): a tally per domain, the
    first violating result, and the last proof, composition or performance record."""

    domains: dict[str, Tally]
    failure: Result | None = None
    proof: ProofSummary | None = None
    compose: Composition | None = None
    perf: PerfSummary | None = None

    @property
    def cases(self) -> int:
        return sum(d.cases for d in self.domains.values())

    @property
    def violations(self) -> int:
        return sum(d.violations for d in self.domains.values())

    @classmethod
    def of(cls, items: Sequence[Result]) -> Group:
        domains: dict[str, Tally] = {}
        for item in items:
            old = domains.get(item.domain, Tally())
            domains[item.domain] = Tally(old.cases + item.cases, old.violations + item.violations)

        proofs = [item.proof for item in items if item.proof is not None]
        compositions = [item.compose for item in items if item.compose is not None]
        perfs = [item.perf for item in items if item.perf is not None]
        return cls(
            domains,
            failure=next((item for item in items if item.violations), None),
            proof=proofs[-1] if proofs else None,
            compose=compositions[-1] if compositions else None,
            perf=perfs[-1] if perfs else None,
        )


@dataclass(frozen=True)
class Grouped:
    """The groups of a plan's results (in the order they first appear), and
    the first unit error of each op that had one, as "unit key: error"."""

    groups: dict[GroupKey, Group]
    errors: dict[str, tuple[str, str]] = field(default_factory=lambda: {})

    def get(self, op: str, check: str, law: str | None, target: Target) -> Group | None:
        return self.groups.get((op, check, law, target))

    def of_op(self, op: str) -> list[tuple[GroupKey, Group]]:
        return [(key, group) for key, group in self.groups.items() if key[0] == op]


def group_results(plan: Plan, results: Mapping[str, Sequence[UnitRecord]]) -> Grouped:
    buckets: dict[GroupKey, list[Result]] = {}
    errors: dict[str, tuple[str, str]] = {}
    for unit in plan.units:
        for item in results.get(unit.key, ()):
            if isinstance(item, UnitError):
                errors.setdefault(unit.op, (unit.key, item.error))
                continue
            buckets.setdefault((unit.op, item.check, item.law, item.target), []).append(item)
    return Grouped({key: Group.of(items) for key, items in buckets.items()}, errors)


@dataclass(frozen=True)
class LawResult:
    """A declared law of an op on one target."""

    op: str
    law: str
    target: Target
    verdict: LawVerdict
    domains: Domains

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op, "law": self.law, "target": self.target.value, "verdict": self.verdict.value,
            "domains": _domains_json(self.domains),
        }


@dataclass(frozen=True)
class CheckResult:
    """An op-level check (reference, parity, determinism, oracle)."""

    domains: Domains
    verdict: CheckVerdict

    def to_json(self) -> dict[str, Any]:
        return {"domains": _domains_json(self.domains), "verdict": self.verdict.value}


@dataclass(frozen=True)
class Replay:
    """The regression corpus entries of an op replayed, and how many fail again."""

    replayed: int
    violations: int

    def to_json(self) -> dict[str, int]:
        return {"replayed": self.replayed, "violations": self.violations}


@dataclass(frozen=True)
class Coverage:
    """What an op's evidence covered: its rule material and the law cases per target:domain."""

    op: str
    classes: int
    class_representatives: int
    boundaries: int
    special_values: int
    structured_inputs: int
    laws: tuple[str, ...]
    law_cases: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op, "classes": self.classes, "class_representatives": self.class_representatives,
            "boundaries": self.boundaries, "special_values": self.special_values,
            "structured_inputs": self.structured_inputs, "laws": list(self.laws), "law_cases": self.law_cases,
        }


@dataclass(frozen=True)
class OpVerdict:
    """One checked op judged: its laws, its checks (and regression replay), coverage and level."""

    laws: tuple[LawResult, ...]
    checks: dict[CheckKind, CheckResult]
    regression: Replay | None
    coverage: Coverage
    level: Level

    def checks_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {kind.value: found.to_json() for kind, found in self.checks.items()}
        if self.regression is not None:
            out["regression"] = self.regression.to_json()
        return out


def _law_verdict(variables: int, group: Group | None) -> LawVerdict:
    if not variables:
        return LawVerdict.UNSUPPORTED_LAW
    if group is None or not group.domains:
        return LawVerdict.NOT_RUN
    return LawVerdict.VIOLATED if group.violations else LawVerdict.VERIFIED


def _law_results(entry: OpEntry, grouped: Grouped) -> tuple[LawResult, ...]:
    out: list[LawResult] = []
    for law in entry.laws:
        for target in (Target.REFERENCE, Target.BACKEND):
            group = grouped.get(entry.id, law.check, law.law, target)
            domains: Domains = group.domains if group else {}
            out.append(LawResult(entry.id, law.law, target, _law_verdict(law.variables, group), domains))
    return tuple(out)


def _check_results(op_id: str, grouped: Grouped) -> dict[CheckKind, CheckResult]:
    out: dict[CheckKind, CheckResult] = {}
    for kind in OP_CHECKS:
        group = grouped.get(op_id, kind.value, None, Target.BACKEND)
        if group:
            verdict = CheckVerdict.VIOLATED if group.violations else CheckVerdict.PASSED
            out[kind] = CheckResult(group.domains, verdict)
    return out


def _replay(op_id: str, grouped: Grouped) -> Replay | None:
    replays = [g.domains["regression"] for _, g in grouped.of_op(op_id) if "regression" in g.domains]
    if not replays:
        return None
    return Replay(sum(r.cases for r in replays), sum(r.violations for r in replays))


def _coverage(entry: OpEntry, laws: Sequence[LawResult]) -> Coverage:
    law_cases: dict[str, int] = {}
    for found in laws:
        for name, tally in found.domains.items():
            label = f"{found.target}:{name}"
            law_cases[label] = law_cases.get(label, 0) + tally.cases
    return Coverage(
        op=entry.id, classes=entry.classes, class_representatives=entry.representatives,
        boundaries=entry.boundaries, special_values=entry.specials or 0,
        structured_inputs=entry.structured_inputs or 0, laws=tuple(law.law for law in entry.laws),
        law_cases=law_cases,
    )


def l1_checks(plan: Plan) -> tuple[CheckKind, ...]:
    """The checks an op must pass (or have rejected by the gate) for L1."""
    parity = (CheckKind.PARITY,) if plan.parity_applies else ()
    return (CheckKind.REFERENCE, CheckKind.DETERMINISM, *parity)


def _op_rung(
    plan: Plan, entry: OpEntry, grouped: Grouped, laws: Sequence[LawResult], checks: Mapping[CheckKind, CheckResult]
) -> int:
    """2 when the op passes its L1 checks and every law, 1 for the L1 checks only, else 0."""
    proof_failures = [
        key[1] for key, g in grouped.of_op(entry.id) if key[3] is Target.PROOF and g.failure is not None
    ]
    failed_l1 = entry.id in grouped.errors or any(c.verdict is CheckVerdict.VIOLATED for c in checks.values())
    failed_l1 = failed_l1 or CheckKind.COMPOSITION in proof_failures
    failed_l2 = any(r.verdict is not LawVerdict.VERIFIED for r in laws)
    failed_l2 = failed_l2 or bool(plan.campaigns.get(entry.id, {}).get("violated"))
    failed_l2 = failed_l2 or any(check != CheckKind.COMPOSITION for check in proof_failures)
    required = l1_checks(plan)
    rejected = {(r.op, r.check) for r in plan.rejections}
    claims_l1 = all(c in plan.selected for c in required)
    complete = all(c in checks or (entry.id, c) in rejected for c in required)
    if not (claims_l1 and complete and not failed_l1):
        return 0
    if plan.track is Track.TENSOR:
        return 4 if entry.category == "tensor-composite" else 3
    return 2 if CheckGroup.LAWS in plan.selected and not failed_l2 else 1


def op_verdict(plan: Plan, entry: OpEntry, grouped: Grouped) -> OpVerdict:
    """The verdicts and level of one checked op."""
    laws = _law_results(entry, grouped)
    checks = _check_results(entry.id, grouped)
    level = Level.at(_op_rung(plan, entry, grouped, laws, checks), plan.track)
    return OpVerdict(laws, checks, _replay(entry.id, grouped), _coverage(entry, laws), level)


def run_level(plan: Plan, verdicts: Iterable[OpVerdict], grouped: Grouped) -> Level:
    """The level of the whole run: the lowest of its ops' (L2 at most, none
    when no op was checked), raised to L3 when it aims there and every engine
    invariant holds, and to L4 when it aims there and every compositional
    proof and performance baseline holds."""
    track: Track = plan.track
    if track is Track.TENSOR:
        return _tensor_level(plan, verdicts)
    rung = min((v.level.rung for v in verdicts), default=0)
    engine = [g for key, g in grouped.groups.items() if key[0] == "engine"]
    if rung < 2 or plan.level.rung < 3 or not engine:
        return Level.at(rung, track)
    if any(g.failure for g in engine) or "engine" in grouped.errors:
        return Level.at(rung, track)
    l4 = [g for key, g in grouped.groups.items() if CheckKind.of(key[1]) in (CheckKind.COMPOSE, CheckKind.PERF)]
    if plan.level is Level.L4 and not any(g.failure for g in l4):
        return Level.at(4, track)
    return Level.at(3, track)


def _tensor_level(plan: Plan, verdicts: Iterable[OpVerdict]) -> Level:
    """The tensor track: L3f when every op passed (none checked: none), L4f
    when the run aims at L4 and holds a composite too."""
    found = list(verdicts)
    if not found or any(v.level.rung == 0 for v in found):
        return Level.NONE
    composites = any(v.level.rung == 4 for v in found)
    return Level.L4F if plan.level is Level.L4 and composites else Level.L3F
