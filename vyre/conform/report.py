"""The human-readable report of a certificate (`Certificate.to_human`, the CLI's output)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vyre.conform.findings import STRENGTH_ORDER, Failure, Obligation
from vyre.conform.kinds import CheckKind, ObligationStrength, OpOutcome, Track

__all__ = ["human_report"]


def human_report(data: Mapping[str, Any]) -> str:
    lines = _summary(data)
    lines.extend(_obligation_lines(data))
    lines.append(f"  corpus    {data['regression_count']} regression entries replayed")
    for entry in data["independence"]:
        lines.append(f"  gate      {entry['check']} of {entry['op']} rejected: {entry['reason']}")
    for op in data["ops"]:
        if op["outcome"] == OpOutcome.UNSUPPORTED:
            lines.append(f"  skipped   {op['id']}: {op['reason']}")
    lines.append("")
    failures = [Failure.from_json(f) for f in data["failures"]]
    if failures:
        lines.append(f"FAILURES ({len(failures)})")
        for failure in failures:
            lines.extend(_failure_lines(failure))
    else:
        lines.append("PASS: no violation found.")
    lines.append(f"content digest {data['content_digest']}")
    lines.append(f"registry hash  {data['registry']['hash']}")
    return "\n".join(lines)


def _strength_line(data: Mapping[str, Any]) -> str:
    strength = data["strength"]
    if any(str(o.get("category", "")).startswith("tensor") for o in data["ops"]):
        return (
            f"  strength  {strength['name']}: random input sets per graph, each op over graphs of random"
            " shapes, dynamic dims, views and formats (tensor track)"
        )
    if data["level"].endswith(Track.KERNEL.suffix) or any(o.get("category") == "kernel" for o in data["ops"]):
        return (
            f"  strength  {strength['name']}: every boundary length x data pattern, and random"
            " cases (kernel track)"
        )
    return (
        f"  strength  {strength['name']}: {strength['witnesses']:,} witnesses per law/check,"
        f" u8 exhaustive (u{strength['backend_cube_bits']} cube on the backend,"
        f" u{strength['reference_cube_bits']} on the reference)"
    )


def _summary(data: Mapping[str, Any]) -> list[str]:
    """Backend, strength, seed, level, and the op, law and case counts."""
    backend = data["backend"]
    name = backend.get("adapter") or backend.get("implementation") or ""
    checked = [o for o in data["ops"] if o["outcome"] != OpOutcome.UNSUPPORTED]
    passed = [o for o in checked if o["outcome"] == OpOutcome.PASSED]
    verified = sum(1 for r in data["law_results"] if r["verdict"] == "verified")
    cases = sum(d["cases"] for r in data["law_results"] for d in r["domains"].values())
    cases += sum(
        d["cases"] for c in data["checks"].values() for k, v in c.items() if k != "regression"
        for d in v["domains"].values()
    )
    return [
        f"vyre-conform certificate ({data['suite_version']})",
        f"  backend   {backend.get('id')}" + (f" — {name}" if name else ""),
        _strength_line(data),
        f"  seed      {data['seeds']['base']}",
        f"  level     {data['level']}",
        f"  ops       {len(passed)}/{len(checked)} passed, {len(data['unsupported_ops'])} unsupported",
        f"  laws      {verified}/{len(data['law_results'])} (law x target) verified",
        f"  cases     {cases:,} evaluated",
    ]


def _obligation_lines(data: Mapping[str, Any]) -> list[str]:
    """The tally by strength and, for a `prove` run, every law or composition not proved."""
    obligations = [Obligation.from_json(o) for o in data.get("obligations", [])]
    if not obligations:
        return []
    tally = {name: 0 for name in STRENGTH_ORDER}
    for ob in obligations:
        tally[ob.strength] += 1
    summary = ", ".join(f"{count} {name}" for name, count in tally.items() if count)
    lines = [f"  obligations {len(obligations)}: {summary}"]
    if data.get("prove"):
        for ob in obligations:
            sampled = ob.check == CheckKind.COMPOSITION or ob.check.startswith(f"{CheckKind.LAW}:")
            if ob.strength is not ObligationStrength.PROVED and sampled:
                lines.append(f"  not proved {ob.op_id} {ob.check}: {ob.strength} — {ob.detail[:240]}")
    return lines


def _failure_lines(f: Failure) -> list[str]:
    args = ", ".join(f"{v:#x}" for v in f.counterexample)
    label = f"{f.check} [{f.law}]" if f.law and f.law != f.check[4:] else f.check
    lines = [f"  ✗ {f.op_id}  {label}  on {f.target}"]
    if f.check != CheckKind.EXECUTION:
        lines.append(f"      counterexample ({args})  — {f.violations:,} of {f.cases:,} cases violate")
    if f.detail:
        lines.append(f"      {f.detail}")
    lines.append(f"      {f.fix}")
    return lines
