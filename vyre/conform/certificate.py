"""Conformance certificates (conform.md "certify/"): assembly, digest, report, checks.

A certificate is assembled from a plan and its unit results only, so a single
run, merged shards and a resumed run produce the same content. Its
`content_digest` is the SHA-256 of the canonical JSON of every field except
`run` (timestamp, duration, host, shard and resume details) and the digest
itself; `registry_hash` covers every spec it certifies and their dependencies.
`verify_certificate` recomputes both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from vyre.conform.plan import Plan, registry_hash, sha256_json

__all__ = [
    "FORMAT",
    "Certificate",
    "Obligation",
    "CertificateError",
    "Failure",
    "assemble",
    "content_digest",
    "load_certificate",
    "verify_certificate",
]

FORMAT = "vyre-conform-certificate/1"
PARTIAL_FORMAT = "vyre-conform-shard/1"

LEVEL_SUFFIX = {"float": "f", "kernel": "k"}
"""Levels of the tracks other than the integer one carry a suffix (L1f, L2k)."""


class CertificateError(ValueError):
    """A certificate that cannot be read, merged or verified."""


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
    target: str = "backend"
    domain: str = ""
    violations: int = 0
    cases: int = 0
    detail: str = ""
    raw_counterexample: tuple[int, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Failure:
        return cls(
            op_id=data["op_id"],
            check=data["check"],
            counterexample=tuple(data.get("counterexample") or ()),
            fix=data["fix"],
            law=data.get("law"),
            target=data.get("target", "backend"),
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


STRENGTH_ORDER = ("proved", "exhaustive-u16", "exhaustive-u8", "witnessed")
"""Obligation strengths, strongest first (python-api.md)."""


@dataclass(frozen=True)
class Obligation:
    """What was established for one (op, check): `strength` is "proved" (all
    inputs, SMT), "exhaustive-u16", "exhaustive-u8" or "witnessed"; `detail`
    names the solver and version, or the cases and the seed; `holds` is False
    when a violation was found."""

    op_id: str
    check: str
    strength: str
    detail: str
    holds: bool = True

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Obligation:
        return cls(
            op_id=str(data["op_id"]), check=str(data["check"]), strength=str(data["strength"]),
            detail=str(data.get("detail", "")), holds=bool(data.get("holds", True)),
        )


def content_digest(data: Mapping[str, Any]) -> str:
    body = {k: v for k, v in data.items() if k not in ("run", "content_digest")}
    return sha256_json(body)


class Certificate:
    """A certificate (python-api.md): `.level`, `.failures`, `.to_json()`, `.to_human()`."""

    def __init__(self, data: Mapping[str, Any]):
        self.data: dict[str, Any] = dict(data)

    @property
    def level(self) -> str:
        return str(self.data["level"])

    @property
    def passed(self) -> bool:
        return not self.data["failures"]

    @property
    def failures(self) -> list[Failure]:
        return [Failure.from_json(f) for f in self.data["failures"]]

    @property
    def obligations(self) -> list[Obligation]:
        return [Obligation.from_json(o) for o in self.data.get("obligations", [])]

    @property
    def partial(self) -> bool:
        return self.data.get("format") == PARTIAL_FORMAT

    @property
    def content_digest(self) -> str:
        return str(self.data["content_digest"])

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.data, indent=indent, sort_keys=True)

    def write(self, path: Path | str) -> None:
        """Atomically (temp file, fsync, rename): never a torn certificate."""
        from vyre.conform.files import write_atomic

        write_atomic(path, self.to_json() + "\n")

    def to_human(self) -> str:
        return human_report(self.data)

    def __repr__(self) -> str:
        return (
            f"Certificate(backend={self.data['backend'].get('id')!r}, level={self.level!r},"
            f" ops={len(self.data['ops'])}, failures={len(self.data['failures'])})"
        )


# ---------------------------------------------------------------------------
# Assembly
# ---------------------------------------------------------------------------


def _kernel_fix(op_id: str, check: str, target: str, law: str | None, backend: str, detail: str) -> str:
    if check == "execution":
        return f"Fix: make backend `{backend}` run the pipeline of `{op_id}`; the error was: {detail}"
    if check.startswith("law:") and target == "reference":
        return (
            f"Fix: the CPU reference of `{op_id}` violates its declared law {law}: remove the law"
            " if it does not hold, or correct the reference."
        )
    if check.startswith("law:"):
        return (
            f"Fix: the kernel pipeline of `{op_id}` on `{backend}` violates {law}: correct the"
            " step programs or the plan (dispatch sizes, scratch, tile boundaries) for this length."
        )
    if check == "reference":
        return (
            f"Fix: the kernel pipeline of `{op_id}` disagrees with its CPU reference on `{backend}`"
            " at this length: correct the step programs or the plan (or the reference, if it is wrong)."
        )
    if check == "parity":
        return (
            f"Fix: `{backend}` and the reference interpreter disagree on the pipeline of `{op_id}`:"
            " check the lowering of its step programs on this backend."
        )
    return (
        f"Fix: `{backend}` returned different bytes for the same input of `{op_id}`: look for"
        " races, unzeroed workgroup or scratch memory, or unordered atomics in its steps."
    )


def _fix(op_id: str, check: str, target: str, law: str | None, backend: str, detail: str) -> str:
    if check.startswith("perf:"):
        return (
            f"Fix: the lowered kernel of `{op_id}` runs below {0.8} of its hand-written WGSL on"
            f" `{backend}`: compare the two shaders (vyre-opt -t wgsl) and remove what the lowering adds."
        )
    if check.startswith("invariant:"):
        return (
            f"Fix: backend `{backend}` breaks the engine invariant {check[10:]} on the program shown"
            " (shrunk, vyre text): find the lowering or runtime step that loses, repeats, reorders"
            " or races on its memory, and compare with the reference interpreter."
        )
    if target == "proof":
        if check == "composition":
            return (
                f"Fix: the composition of `{op_id}` differs from its reference for some input (an SMT"
                " counterexample, replayed and shrunk): correct the composition, or the reference."
            )
        return (
            f"Fix: the declared law {law} of `{op_id}` is false for some input (an SMT counterexample,"
            " replayed through the CPU references and shrunk): remove the law, or correct the reference."
        )
    if check == "execution":
        return (
            f"Fix: make backend `{backend}` run `{op_id}` (or declare it Category C without"
            f" `{backend}` in its backends); the error was: {detail}"
        )
    if check.startswith("law:"):
        if target == "reference":
            return (
                f"Fix: the CPU reference of `{op_id}` violates its declared law {law}: remove the"
                " law from the spec if it does not hold, or correct the reference."
            )
        return (
            f"Fix: `{op_id}` evaluated on `{backend}` violates {law} although it is declared:"
            " correct the op's composition (or the backend's lowering of the ops it uses)."
        )
    if check == "reference":
        return (
            f"Fix: the composition of `{op_id}` disagrees with its CPU reference on `{backend}`:"
            " correct the composition (or the reference, if it is the one that is wrong)."
        )
    if check == "parity":
        return (
            f"Fix: `{backend}` and the reference interpreter disagree on `{op_id}`: check the"
            " lowering of the ops in its composition on this backend."
        )
    if check == "zero-overhead":
        return (
            f"Fix: build `{op_id}` from straight-line vyre expressions: its inlined, lowered"
            " form must cost what hand-written code costs (admission gate 3)."
        )
    if check == "determinism":
        return (
            f"Fix: `{backend}` returned different bytes for the same input of `{op_id}`: look"
            " for races, uninitialised memory or unordered reductions in the lowering."
        )
    return (
        f"Fix: `{op_id}` on `{backend}` disagrees with the independent oracle: correct the"
        " composition, or the oracle."
    )


def assemble(plan: Plan, results: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """The certificate content of `plan` given the results of its units
    (a mapping from unit key to that unit's result list)."""
    data = plan.data
    backend_id = str(data["backend"].get("id"))
    groups: dict[tuple[str, str, str | None, str], dict[str, Any]] = {}
    order: list[tuple[str, str, str | None, str]] = []
    errors: dict[str, dict[str, Any]] = {}
    for unit in plan.units:
        for item in results.get(unit.key, ()):
            if item.get("error"):
                errors.setdefault(unit.op, {"unit": unit.key, "error": item["error"]})
                continue
            key = (unit.op, item["check"], item.get("law"), item["target"])
            group: dict[str, Any] | None = groups.get(key)
            if group is None:
                group = {"domains": {}, "failure": None}
                groups[key] = group
                order.append(key)
            domain = group["domains"].setdefault(item["domain"], {"cases": 0, "violations": 0})
            domain["cases"] += int(item["cases"])
            domain["violations"] += int(item["violations"])
            if item["violations"] and group["failure"] is None:
                group["failure"] = dict(item)
            if item.get("proof") is not None:
                group["proof"] = item["proof"]
            for extra in ("compose", "perf"):
                if item.get(extra) is not None:
                    group[extra] = item[extra]

    failures: list[dict[str, Any]] = []
    for key in order:
        op_id, check, law, target = key
        failure = groups[key]["failure"]
        if failure is None:
            continue
        totals = groups[key]["domains"]
        failures.append(
            {
                "op_id": op_id,
                "check": check,
                "law": law,
                "target": target,
                "domain": failure["domain"],
                "counterexample": failure["counterexample"] or [],
                "raw_counterexample": failure["raw"] or [],
                "violations": sum(d["violations"] for d in totals.values()),
                "cases": sum(d["cases"] for d in totals.values()),
                "detail": failure.get("detail") or "",
                "fix": (_kernel_fix if data.get("track") == "kernel" else _fix)(
                    op_id, check, target, law, backend_id, failure.get("detail") or ""
                ),
            }
        )
    for op_id, error in errors.items():
        failures.append(
            {
                "op_id": op_id,
                "check": "execution",
                "law": None,
                "target": "backend",
                "domain": "",
                "counterexample": [],
                "raw_counterexample": [],
                "violations": 1,
                "cases": 0,
                "detail": f"{error['unit']}: {error['error']}",
                "fix": _fix(op_id, "execution", "backend", None, backend_id, error["error"]),
            }
        )

    law_results: list[dict[str, Any]] = []
    checks: dict[str, dict[str, Any]] = {}
    coverage: list[dict[str, Any]] = []
    op_levels: dict[str, str] = {}
    selected = set(data["checks"])
    rejected = {(e["op"], e["check"]) for e in data["independence"]}
    parity_applies = bool(data.get("parity_applies", True))
    l1_checks = ["reference", "determinism"] + (["parity"] if parity_applies else [])
    claims_l1 = all(c in selected for c in l1_checks)
    for entry in data["ops"]:
        op_id = entry["id"]
        if entry["status"] != "checked":
            continue
        failed_l1 = op_id in errors
        failed_l2 = False
        op_checks: dict[str, Any] = {}
        law_cases: dict[str, int] = {}
        for law in entry["laws"]:
            for target in ("reference", "backend"):
                group = groups.get((op_id, law["check"], law["law"], target))
                domains: dict[str, Any] = group["domains"] if group else {}
                violations = sum(d["violations"] for d in domains.values())
                if not law["variables"]:
                    verdict = "unsupported-law"
                elif not domains:
                    verdict = "not-run"
                else:
                    verdict = "violated" if violations else "verified"
                failed_l2 = failed_l2 or verdict != "verified"
                law_results.append(
                    {"op": op_id, "law": law["law"], "target": target, "verdict": verdict, "domains": domains}
                )
                for name, domain in domains.items():
                    label = f"{target}:{name}"
                    law_cases[label] = law_cases.get(label, 0) + domain["cases"]
        for check in ("reference", "parity", "determinism", "oracle"):
            group = groups.get((op_id, check, None, "backend"))
            if not group:
                continue
            violations = sum(d["violations"] for d in group["domains"].values())
            op_checks[check] = {
                "domains": group["domains"],
                "verdict": "violated" if violations else "passed",
            }
            failed_l1 = failed_l1 or violations > 0
        for (g_op, g_check, _, g_target), group in groups.items():
            if g_op != op_id or g_target != "proof" or not group["failure"]:
                continue
            if g_check == "composition":
                failed_l1 = True
            else:
                failed_l2 = True
        replays = [g["domains"]["regression"] for k, g in groups.items() if k[0] == op_id and "regression" in g["domains"]]
        if replays:
            op_checks["regression"] = {
                "replayed": sum(r["cases"] for r in replays),
                "violations": sum(r["violations"] for r in replays),
            }
        checks[op_id] = op_checks
        complete = all(c in op_checks or (op_id, c) in rejected for c in l1_checks)
        level_l1 = claims_l1 and complete and not failed_l1
        level_l2 = level_l1 and "laws" in selected and not failed_l2
        op_levels[op_id] = "L2" if level_l2 else "L1" if level_l1 else "none"
        coverage.append(
            {
                "op": op_id,
                "classes": entry["classes"],
                "class_representatives": entry["representatives"],
                "boundaries": entry["boundaries"],
                "special_values": entry.get("specials", 0),
                "structured_inputs": entry.get("structured_inputs", 0),
                "laws": [law["law"] for law in entry["laws"]],
                "law_cases": law_cases,
            }
        )
    regression_count = sum(c.get("regression", {}).get("replayed", 0) for c in checks.values())
    suffix = LEVEL_SUFFIX.get(str(data.get("track")), "")  # the float track: L1f, L2f; kernels: L1k, L2k
    if suffix:
        op_levels = {op: lv if lv == "none" else lv + suffix for op, lv in op_levels.items()}
    levels = [lv.removesuffix(suffix) if suffix else lv for lv in op_levels.values()]
    if not levels:
        level = "none"
    elif all(lv == "L2" for lv in levels):
        level = "L2"
    elif all(lv in ("L1", "L2") for lv in levels):
        level = "L1"
    else:
        level = "none"
    wanted = str(data.get("level") or "L2")
    engine_groups = {k: g for k, g in groups.items() if k[0] == "engine"}
    if level == "L2" and wanted in ("L3", "L4") and engine_groups:
        engine_ok = not any(g["failure"] for g in engine_groups.values()) and "engine" not in errors
        if engine_ok:
            level = "L3"
            l4 = {k: g for k, g in groups.items() if k[1].startswith(("compose:", "perf:"))}
            if wanted == "L4" and not any(g["failure"] for g in l4.values()):
                level = "L4"
    if level != "none":
        level += suffix
    ops_out = [
        {
            "id": e["id"],
            "version": e["version"],
            "category": e["category"],
            "signature": e["signature"],
            "outcome": (
                "unsupported"
                if e["status"] != "checked"
                else "failed"
                if any(f["op_id"] == e["id"] for f in failures)
                else "passed"
            ),
            "level": op_levels.get(e["id"], "none"),
            "reason": e["reason"],
        }
        for e in data["ops"]
    ]
    return {
        "format": FORMAT,
        "suite_version": data["suite_version"],
        "backend": data["backend"],
        "level": level,
        "strength": data["strength"],
        "seeds": {"base": data["seed"], "streams": "sha256(seed, stream labels, op id) -> PCG64 blocks of 2**20"},
        "checks_run": data["checks"],
        "prove": data.get("prove"),
        "law_filter": data["law_filter"],
        "ops": ops_out,
        "unsupported_ops": [e["id"] for e in data["ops"] if e["status"] != "checked"],
        "registry": {"ops": data["dependencies"], "hash": data["registry_hash"]},
        "coverage": coverage,
        "law_results": law_results,
        "checks": checks,
        "independence": data["independence"],
        "failures": failures,
        "obligations": obligations(data, groups, law_results, checks) + engine_obligations(data, groups)
        + l4_obligations(data, groups, failures),
        "regression_count": regression_count,
        "plan": {"digest": plan.digest, "units": len(plan.units)},
    }


def _evidence(domains: Mapping[str, Mapping[str, int]], arity: int | None = None) -> tuple[str, str]:
    """(strength, detail) of sampled evidence: the exhaustive u8 grid when it
    ran (a law's "u8" domain, or an op's structured inputs, which hold every u8
    input for arities 1 and 2), witnessed otherwise."""
    names = set(domains)
    parts = [f"{name} {d['cases']:,}" for name, d in sorted(domains.items())]
    exhaustive = any(n.endswith(":u8") or n == "u8" for n in names) or (
        arity is not None and arity <= 2 and "structured" in names
    )
    return ("exhaustive-u8" if exhaustive else "witnessed"), "cases: " + ", ".join(parts)


def obligations(
    data: Mapping[str, Any],
    groups: Mapping[tuple[str, str, str | None, str], Mapping[str, Any]],
    law_results: Sequence[Mapping[str, Any]],
    checks: Mapping[str, Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """One record per (op, obligation): `check` ("composition", "law:<law>"),
    `strength` ("proved", "exhaustive-u16", "exhaustive-u8", "witnessed"),
    `holds` and `detail` (the solver and version, or the cases and the seed).
    A law is "proved" only when it is proved and the composition is proved
    equal to the reference (or the law was proved on the composition itself);
    a solver timeout is never "proved": the obligation keeps its sampled
    evidence and the detail names the attempts."""
    seed = f"seed {int(data['seed']):#x}"
    out: list[dict[str, Any]] = []
    for entry in data["ops"]:
        if entry["status"] != "checked":
            continue
        op_id = entry["id"]
        arity = str(entry["signature"]).count(",") + 1 if "()" not in str(entry["signature"]) else 0

        def proof(check: str, law: str | None) -> dict[str, Any] | None:
            group = groups.get((op_id, check, law, "proof"))
            if not group:
                return None
            failure = group["failure"]
            return dict(failure["proof"]) if failure else dict(group.get("proof") or {})

        comp_proof = proof("composition", None)
        reference = checks.get(op_id, {}).get("reference")
        comp_holds = (reference is None or reference["verdict"] == "passed") and not (
            comp_proof and comp_proof.get("status") == "counterexample"
        )
        if comp_proof and comp_proof.get("status") == "proved":
            comp_strength, comp_detail = "proved", str(comp_proof['detail'])
        elif reference is not None:
            comp_strength, comp_detail = _evidence(reference["domains"], arity)
            comp_detail += f" ({seed})"
            if comp_proof:
                comp_detail = f"not proved ({comp_proof.get('status')}: {comp_proof.get('detail')}); " + comp_detail
        else:
            comp_strength, comp_detail = "", "not checked"
        if comp_strength:
            out.append({"op_id": op_id, "check": "composition", "strength": comp_strength,
                        "holds": comp_holds, "detail": comp_detail})
        for law in entry["laws"]:
            check = f"law:{law['law']}"
            lp = proof(law["check"], law["law"])
            results = [r for r in law_results if r["op"] == op_id and r["law"] == law["law"]]
            violated = any(r["verdict"] == "violated" for r in results) or bool(
                lp and lp.get("status") == "counterexample"
            )
            on_composition = bool(lp and "law on the compositions of" in str(lp.get("detail")) and op_id in str(lp.get("detail")))
            if lp and lp.get("status") == "proved" and (comp_strength == "proved" or on_composition):
                strength, detail = "proved", str(lp['detail'])
            else:
                domains: dict[str, dict[str, int]] = {}
                for r in results:
                    for name, d in r["domains"].items():
                        slot = domains.setdefault(f"{r['target']}:{name}", {"cases": 0, "violations": 0})
                        slot["cases"] += d["cases"]
                if not domains and not lp:
                    continue
                strength, detail = _evidence(domains) if domains else ("witnessed", "no sampled evidence")
                detail += f" ({seed})"
                if lp and lp.get("status") == "proved":
                    detail = "law proved on the models, but the composition is not proved equal to the reference; " + detail
                elif lp:
                    detail = f"not proved ({lp.get('status')}: {lp.get('detail')}); " + detail
            out.append({"op_id": op_id, "check": check, "strength": strength, "holds": not violated, "detail": detail})
    return out


def engine_obligations(
    data: Mapping[str, Any], groups: Mapping[tuple[str, str, str | None, str], Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """`invariant:<Name>` obligations (op_id "engine"): witnessed over generated programs."""
    out: list[dict[str, Any]] = []
    for (op_id, check, _, _), group in groups.items():
        if op_id != "engine":
            continue
        cases = sum(d["cases"] for d in group["domains"].values())
        failure = group["failure"]
        detail = f"{cases} generated and targeted programs on {data['backend'].get('id')} (seed {int(data['seed']):#x})"
        if failure:
            detail = f"violated: {str(failure.get('detail') or '').splitlines()[0]}; " + detail
        out.append({"op_id": "engine", "check": check, "strength": "witnessed", "holds": not failure, "detail": detail})
    return out


def l4_obligations(
    data: Mapping[str, Any],
    groups: Mapping[tuple[str, str, str | None, str], Mapping[str, Any]],
    failures: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """`compose:<op>` (proved: the laws inherited from the callees' laws) and
    `perf:<op>` (witnessed: the measured ratio) obligations."""
    failed = {f["op_id"] for f in failures}
    out: list[dict[str, Any]] = []
    for (op_id, check, _, _), group in groups.items():
        if check.startswith("compose:"):
            record: dict[str, Any] = dict(group.get("compose") or {})
            callees = [str(c) for c in record.get("callees", [])]
            bad = [c for c in callees if c in failed]
            detail = (
                f"{record.get('solver', '')}: from the laws of {', '.join(callees)}, inherits"
                f" [{', '.join(record.get('inherited', []))}]; not implied by the structure"
                f" [{', '.join(record.get('not_implied', []))}]; undecided [{', '.join(record.get('undecided', []))}]"
            )
            if bad:
                detail = f"callee(s) {', '.join(bad)} failed in this certificate; " + detail
            out.append({"op_id": op_id, "check": check, "strength": "proved", "holds": not bad, "detail": detail})
        elif check.startswith("perf:"):
            failure = group["failure"]
            perf: dict[str, Any] = dict(group.get("perf") or {})
            detail = str(perf.get("detail") or f"ratio {perf.get('ratio')} on {perf.get('device')}")
            out.append({"op_id": op_id, "check": check, "strength": "witnessed", "holds": not failure, "detail": detail})
    return out


def finish(content: dict[str, Any], run: Mapping[str, Any]) -> Certificate:
    data = dict(content)
    data["content_digest"] = content_digest(data)
    data["run"] = dict(run)
    return Certificate(data)


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _strength_line(data: Mapping[str, Any]) -> str:
    strength = data["strength"]
    if data["level"].endswith("k") or any(o.get("category") == "kernel" for o in data["ops"]):
        return (
            f"  strength  {strength['name']}: every boundary length x data pattern, and random"
            " cases (kernel track)"
        )
    return (
        f"  strength  {strength['name']}: {strength['witnesses']:,} witnesses per law/check,"
        f" u8 exhaustive (u{strength['backend_cube_bits']} cube on the backend,"
        f" u{strength['reference_cube_bits']} on the reference)"
    )


def human_report(data: Mapping[str, Any]) -> str:
    backend = data["backend"]
    name = backend.get("adapter") or backend.get("implementation") or ""
    lines = [
        f"vyre-conform certificate ({data['suite_version']})",
        f"  backend   {backend.get('id')}" + (f" — {name}" if name else ""),
        _strength_line(data),
        f"  seed      {data['seeds']['base']}",
        f"  level     {data['level']}",
    ]
    checked = [o for o in data["ops"] if o["outcome"] != "unsupported"]
    passed = [o for o in checked if o["outcome"] == "passed"]
    lines.append(f"  ops       {len(passed)}/{len(checked)} passed, {len(data['unsupported_ops'])} unsupported")
    verified = sum(1 for r in data["law_results"] if r["verdict"] == "verified")
    lines.append(f"  laws      {verified}/{len(data['law_results'])} (law x target) verified")
    cases = sum(d["cases"] for r in data["law_results"] for d in r["domains"].values())
    cases += sum(
        d["cases"] for c in data["checks"].values() for k, v in c.items() if k != "regression"
        for d in v["domains"].values()
    )
    lines.append(f"  cases     {cases:,} evaluated")
    obligations_list = data.get("obligations", [])
    if obligations_list:
        tally = {name: 0 for name in STRENGTH_ORDER}
        for ob in obligations_list:
            tally[ob["strength"]] = tally.get(ob["strength"], 0) + 1
        summary = ", ".join(f"{count} {name}" for name, count in tally.items() if count)
        lines.append(f"  obligations {len(obligations_list)}: {summary}")
        if data.get("prove"):
            for ob in obligations_list:
                if ob["strength"] != "proved" and (ob["check"] == "composition" or ob["check"].startswith("law:")):
                    lines.append(f"  not proved {ob['op_id']} {ob['check']}: {ob['strength']} — {ob['detail'][:240]}")
    lines.append(f"  corpus    {data['regression_count']} regression entries replayed")
    for entry in data["independence"]:
        lines.append(f"  gate      {entry['check']} of {entry['op']} rejected: {entry['reason']}")
    for op in data["ops"]:
        if op["outcome"] == "unsupported":
            lines.append(f"  skipped   {op['id']}: {op['reason']}")
    if data["failures"]:
        lines.append("")
        lines.append(f"FAILURES ({len(data['failures'])})")
        for f in data["failures"]:
            args = ", ".join(f"{v:#x}" for v in f["counterexample"])
            label = f["check"]
            if f["law"] and f["law"] != f["check"][4:]:
                label = f"{label} [{f['law']}]"
            lines.append(f"  ✗ {f['op_id']}  {label}  on {f['target']}")
            if f["check"] != "execution":
                lines.append(
                    f"      counterexample ({args})  — {f['violations']:,} of {f['cases']:,} cases violate"
                )
            if f["detail"]:
                lines.append(f"      {f['detail']}")
            lines.append(f"      {f['fix']}")
    else:
        lines.append("")
        lines.append("PASS: no violation found.")
    lines.append(f"content digest {data['content_digest']}")
    lines.append(f"registry hash  {data['registry']['hash']}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Reading and verifying
# ---------------------------------------------------------------------------


def load_certificate(path: Path | str) -> Certificate:
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CertificateError(f"no such certificate: {file}") from None
    except (OSError, json.JSONDecodeError) as error:
        raise CertificateError(f"{file}: not a JSON certificate ({error})") from None
    document = cast("dict[str, Any]", data) if isinstance(data, dict) else None
    if document is None or document.get("format") not in (FORMAT, PARTIAL_FORMAT):
        raise CertificateError(f"{file}: not a vyre-conform certificate (no `format: {FORMAT}`)")
    from vyre.conform.schema import CERTIFICATE, first_problem

    problem = first_problem(document, CERTIFICATE)
    if problem is not None:
        raise CertificateError(f"{file}: malformed certificate: {problem}")
    return Certificate(document)


def verify_certificate(cert: Certificate) -> list[str]:
    """Problems found by recomputing the content digest and the registry hash
    ([] when the certificate is intact and matches the registry)."""
    data = cert.data
    problems: list[str] = []
    try:
        recorded = data["content_digest"]
        actual = content_digest(data)
    except (KeyError, TypeError) as error:
        return [f"malformed certificate: {error}"]
    if recorded != actual:
        problems.append(
            f"content digest mismatch: recorded {recorded}, recomputed {actual}"
            " (the certificate was changed after it was issued)"
        )
    registry = data.get("registry", {})
    from vyre import ops

    known = set(ops.known_op_ids())
    missing = [op_id for op_id in registry.get("ops", []) if op_id not in known]
    if missing:
        problems.append(
            f"op(s) {', '.join(missing)} are not registered here: register them (ops.register)"
            " before verifying"
        )
    try:
        current = registry_hash(registry.get("ops", []))
    except Exception as error:  # noqa: BLE001 - reported, not raised
        problems.append(f"could not recompute the registry hash: {error}")
        return problems
    if registry.get("hash") != current:
        problems.append(
            f"registry hash mismatch: certificate {registry.get('hash')}, current registry {current}"
            " (an op's id, version, laws, signature or lowered WGSL changed since it was issued)"
        )
    return problems
