"""Assembling a certificate's content from a plan and its unit results.

The content depends on the plan and the results only (never on how or where
the units ran), so one run, merged shards and a resumed run give the same
certificate. The steps: group the results (`verdicts.group_results`), one
failure record per violated group and per op whose unit could not run, the
verdicts and level of each op (`verdicts.op_verdict`), the run's level
(`verdicts.run_level`), the obligations (`obligations`), and the JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vyre.conform.certificate import FORMAT
from vyre.conform.findings import Failure
from vyre.conform.fixes import Finding, fix_for
from vyre.conform.kinds import CheckKind, Level, OpOutcome, Target, Track
from vyre.conform.obligations import engine_obligations, l4_obligations, op_obligations
from vyre.conform.plan import Plan
from vyre.conform.results import UnitRecord
from vyre.conform.verdicts import Grouped, OpVerdict, group_results, op_verdict, run_level

__all__ = ["assemble"]

SEED_STREAMS = "sha256(seed, stream labels, op id) -> PCG64 blocks of 2**20"


def assemble(plan: Plan, results: Mapping[str, Sequence[UnitRecord]]) -> dict[str, Any]:
    """The certificate content of `plan` given the results of its units
    (a mapping from unit key to that unit's records)."""
    data = plan.data
    grouped = group_results(plan, results)
    failures = failure_records(plan, grouped)
    verdicts = {e.id: op_verdict(plan, e, grouped) for e in plan.entries if e.checked}
    obligations = op_obligations(plan, grouped, verdicts) + engine_obligations(plan, grouped)
    obligations += l4_obligations(grouped, failures)
    replayed = sum(v.regression.replayed for v in verdicts.values() if v.regression is not None)
    content = {
        "format": FORMAT,
        "suite_version": data["suite_version"],
        "backend": data["backend"],
        "level": run_level(plan, verdicts.values(), grouped).value,
        "strength": data["strength"],
        "seeds": {"base": data["seed"], "streams": SEED_STREAMS},
        "checks_run": data["checks"],
        "prove": data.get("prove"),
        "law_filter": data["law_filter"],
        "ops": _ops(plan, verdicts, failures),
        "unsupported_ops": [e.id for e in plan.entries if not e.checked],
        "registry": {"ops": data["dependencies"], "hash": data["registry_hash"]},
        "coverage": [v.coverage.to_json() for v in verdicts.values()],
        "law_results": [r.to_json() for v in verdicts.values() for r in v.laws],
        "checks": {op_id: v.checks_json() for op_id, v in verdicts.items()},
        "independence": data["independence"],
        "failures": [f.to_json() for f in failures],
        "obligations": [o.to_json() for o in obligations],
        "regression_count": replayed,
        "plan": {"digest": plan.digest, "units": len(plan.units)},
    }
    if "campaigns" in data:
        content["campaigns"] = data["campaigns"]
    return content


def failure_records(plan: Plan, grouped: Grouped) -> list[Failure]:
    """One failure per violated (op, check, law, target), at its first
    violating result with the totals of the group, then one per op whose unit
    raised ("execution")."""
    failures: list[Failure] = []
    for (op_id, check, law, target), group in grouped.groups.items():
        found = group.failure
        if found is None:
            continue
        detail = found.detail or ""
        finding = Finding(op_id, check, target, law, plan.backend_id, detail)
        failures.append(Failure(
            op_id=op_id, check=check, counterexample=found.counterexample or (), fix=fix_for(finding, plan.track),
            law=law, target=target, domain=found.domain, violations=group.violations, cases=group.cases,
            detail=detail, raw_counterexample=found.raw or (),
        ))
    for op_id, (unit, error) in grouped.errors.items():
        finding = Finding(op_id, CheckKind.EXECUTION.value, Target.BACKEND, None, plan.backend_id, error)
        failures.append(Failure(
            op_id=op_id, check=CheckKind.EXECUTION.value, counterexample=(), fix=fix_for(finding, Track.INTEGER),
            violations=1, detail=f"{unit}: {error}",
        ))
    return failures


def _ops(plan: Plan, verdicts: Mapping[str, OpVerdict], failures: Sequence[Failure]) -> list[dict[str, Any]]:
    """Each op's line: identity, outcome, level and why it was left out."""
    failed = {f.op_id for f in failures}
    out: list[dict[str, Any]] = []
    for e in plan.entries:
        verdict = verdicts.get(e.id)
        outcome = OpOutcome.UNSUPPORTED if not e.checked else OpOutcome.FAILED if e.id in failed else OpOutcome.PASSED
        out.append({
            "id": e.id, "version": e.version, "category": e.category, "signature": e.signature,
            "outcome": outcome.value, "level": (verdict.level if verdict else Level.NONE).value, "reason": e.reason,
        })
    return out
