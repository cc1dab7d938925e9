"""The obligations of a certificate and their strength (docs/conform.md).

One record per (op, obligation): `check` ("composition", "law:<law>",
"invariant:<Name>", "compose:<op>", "perf:<op>"), `strength` ("proved",
"exhaustive", "exhaustive-u16", "exhaustive-u8", "witnessed"), `holds` and
`detail` (the solver and version, or the cases and the seed). A law is
"proved" only when it is proved and the composition is proved equal to the
reference (or the law was proved on the composition itself); a solver timeout
is never "proved": the obligation keeps its sampled evidence and the detail
names the attempts. A float law is "exhaustive" when it is a list of exact
cases checked one by one, or when float campaigns establish it for every
input (`campaign_evidence`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vyre.conform.campaign_evidence import law_violated
from vyre.conform.findings import Failure, Obligation
from vyre.conform.entries import LawEntry, OpEntry
from vyre.conform.kinds import CheckKind, CheckVerdict, LawVerdict, ObligationStrength, ProofStatus, Target
from vyre.conform.plan import Plan
from vyre.conform.results import Composition, PerfSummary, ProofSummary
from vyre.conform.verdicts import Domains, Grouped, OpVerdict, Tally

__all__ = ["engine_obligations", "l4_obligations", "op_obligations"]


def _evidence(domains: Domains, arity: int | None = None) -> tuple[ObligationStrength, str]:
    """(strength, detail) of sampled evidence: every case of an exact-cases law
    (its "cases" domain, on both targets); the exhaustive u8 grid when it ran
    (a law's "u8" domain, or an op's structured inputs, which hold every u8
    input for arities 1 and 2); witnessed otherwise."""
    names = set(domains)
    parts = [f"{name} {d.cases:,}" for name, d in sorted(domains.items())]
    sampled = {tuple(n.split(":", 1)) for n in names if not n.endswith(":regression")}
    every_case = sampled == {(Target.REFERENCE.value, "cases"), (Target.BACKEND.value, "cases")}
    exhaustive = any(n.endswith(":u8") or n == "u8" for n in names) or (
        arity is not None and arity <= 2 and "structured" in names
    )
    if every_case:
        strength = ObligationStrength.EXHAUSTIVE
    else:
        strength = ObligationStrength.EXHAUSTIVE_U8 if exhaustive else ObligationStrength.WITNESSED
    return strength, "cases: " + ", ".join(parts)


def _proof(grouped: Grouped, op_id: str, check: str, law: str | None) -> ProofSummary | None:
    group = grouped.get(op_id, check, law, Target.PROOF)
    if not group:
        return None
    return group.failure.proof if group.failure else group.proof


def op_obligations(plan: Plan, grouped: Grouped, verdicts: Mapping[str, OpVerdict]) -> list[Obligation]:
    """The composition and law obligations of every checked op."""
    seed = f"seed {plan.seed:#x}"
    out: list[Obligation] = []
    for entry in plan.entries:
        if not entry.checked:
            continue
        composition = _composition(entry, grouped, verdicts[entry.id], seed)
        if composition is not None:
            out.append(composition)
        proved = composition is not None and composition.strength is ObligationStrength.PROVED
        for law in entry.laws:
            found = _law(entry, law, grouped, verdicts[entry.id], proved, seed, plan.campaigns)
            if found is not None:
                out.append(found)
    return out


def _composition(entry: OpEntry, grouped: Grouped, verdict: OpVerdict, seed: str) -> Obligation | None:
    """composition == reference: proved by the solver, else the reference check's evidence."""
    proof = _proof(grouped, entry.id, CheckKind.COMPOSITION, None)
    reference = verdict.checks.get(CheckKind.REFERENCE)
    refuted = proof is not None and proof.status is ProofStatus.COUNTEREXAMPLE
    holds = (reference is None or reference.verdict is CheckVerdict.PASSED) and not refuted
    if proof is not None and proof.status is ProofStatus.PROVED:
        return Obligation(entry.id, CheckKind.COMPOSITION.value, ObligationStrength.PROVED, proof.detail, holds)
    if reference is None:
        return None
    strength, detail = _evidence(reference.domains, entry.arity)
    detail += f" ({seed})"
    if proof is not None:
        detail = f"not proved ({proof.status}: {proof.detail}); " + detail
    return Obligation(entry.id, CheckKind.COMPOSITION.value, strength, detail, holds)


def _law(
    entry: OpEntry,
    law: LawEntry,
    grouped: Grouped,
    verdict: OpVerdict,
    composition_proved: bool,
    seed: str,
    campaigns: Mapping[str, Any],
) -> Obligation | None:
    """A declared law: proved (with the composition), else its sampled evidence
    on both targets; None when there is neither."""
    check = CheckKind.LAW.check(law.law)
    proof = _proof(grouped, entry.id, law.check, law.law)
    results = [r for r in verdict.laws if r.law == law.law]
    violated = any(r.verdict is LawVerdict.VIOLATED for r in results) or (
        proof is not None and proof.status is ProofStatus.COUNTEREXAMPLE
    )
    on_composition = proof is not None and "law on the compositions of" in proof.detail and entry.id in proof.detail
    if proof is not None and proof.status is ProofStatus.PROVED and (composition_proved or on_composition):
        return Obligation(entry.id, check, ObligationStrength.PROVED, proof.detail, not violated)
    domains: dict[str, Tally] = {}
    for r in results:
        for name, tally in r.domains.items():
            label = f"{r.target}:{name}"
            domains[label] = Tally(domains.get(label, Tally()).cases + tally.cases, 0)
    if not domains and proof is None:
        return None
    strength, detail = _evidence(domains) if domains else (ObligationStrength.WITNESSED, "no sampled evidence")
    detail += f" ({seed})"
    if proof is not None and proof.status is ProofStatus.PROVED:
        detail = "law proved on the models, but the composition is not proved equal to the reference; " + detail
    elif proof is not None:
        detail = f"not proved ({proof.status}: {proof.detail}); " + detail
    campaign = campaigns.get(entry.id)
    if campaign is not None and law.index in campaign["covered"]:
        return _campaign_law(entry.id, check, law.index, campaign, strength, detail, violated)
    return Obligation(entry.id, check, strength, detail, not violated)


def _campaign_law(
    op_id: str, check: str, index: int, campaign: Mapping[str, Any], strength: ObligationStrength, detail: str,
    violated: bool,
) -> Obligation:
    """A float law a law campaign checks: `exhaustive` when the campaigns
    establish it for every input (`campaign_evidence`), else the sampled
    evidence with the reason; violated when the law campaign found it so."""
    parity, laws = campaign["parity"], campaign["laws"]
    if law_violated(campaign, index):
        first = next(row for row in laws["first"] if row[1] == index)
        note = f"violated over every input: {laws['campaign']} at input {first[0]:#010x} (f = {first[2]:#010x}); "
        return Obligation(op_id, check, strength, note + detail, False)
    if not campaign["exhaustive"]:
        return Obligation(op_id, check, strength, f"not exhaustive ({campaign['reason']}); " + detail, not violated)
    note = (
        f"every F32 input ({laws['inputs']:,}): {parity['campaign']} on {parity['devices'][0]} (the result of every"
        f" input equal to the exact oracle's) and {laws['campaign']} (the law on the oracle's result of every"
        f" input, 0 violations); sampled: "
    )
    return Obligation(op_id, check, ObligationStrength.EXHAUSTIVE, note + detail, not violated)


def engine_obligations(plan: Plan, grouped: Grouped) -> list[Obligation]:
    """`invariant:<Name>` obligations (op_id "engine"): witnessed over generated programs."""
    out: list[Obligation] = []
    for (op_id, check, _, _), group in grouped.groups.items():
        if op_id != "engine":
            continue
        detail = f"{group.cases} generated and targeted programs on {plan.backend_id} (seed {plan.seed:#x})"
        if group.failure:
            detail = f"violated: {(group.failure.detail or '').splitlines()[0]}; " + detail
        out.append(Obligation("engine", check, ObligationStrength.WITNESSED, detail, not group.failure))
    return out


def l4_obligations(grouped: Grouped, failures: Sequence[Failure]) -> list[Obligation]:
    """`compose:<op>` (proved: the laws inherited from the callees' laws) and
    `perf:<op>` (witnessed: the measured ratio) obligations."""
    failed = {f.op_id for f in failures}
    out: list[Obligation] = []
    for (op_id, check, _, _), group in grouped.groups.items():
        kind = CheckKind.of(check)
        if kind is CheckKind.COMPOSE:
            out.append(_compose(op_id, check, group.compose, failed))
        elif kind is CheckKind.PERF:
            detail = _perf_detail(group.perf)
            out.append(Obligation(op_id, check, ObligationStrength.WITNESSED, detail, not group.failure))
    return out


def _compose(op_id: str, check: str, record: Composition | None, failed: set[str]) -> Obligation:
    found = record or Composition((), (), (), (), "")
    bad = [c for c in found.callees if c in failed]
    detail = (
        f"{found.solver}: from the laws of {', '.join(found.callees)}, inherits"
        f" [{', '.join(found.inherited)}]; not implied by the structure"
        f" [{', '.join(found.not_implied)}]; undecided [{', '.join(found.undecided)}]"
    )
    if bad:
        detail = f"callee(s) {', '.join(bad)} failed in this certificate; " + detail
    return Obligation(op_id, check, ObligationStrength.PROVED, detail, not bad)


def _perf_detail(perf: PerfSummary | None) -> str:
    if perf is not None and perf.detail:
        return perf.detail
    return f"ratio {perf.ratio if perf else None} on {perf.device if perf else None}"
