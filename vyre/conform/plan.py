"""The proof plan: every unit of work of a certification run, in a fixed order.

A run is a deterministic list of units (op x check x domain x chunk). Each unit
regenerates its own inputs from the seed, so units can run in any order, on any
shard, before or after an interruption; the certificate is assembled from the
unit results in plan order, so one run, sharded runs merged, and resumed runs
give the same certificate. The plan (its JSON form, `Plan.data`) holds
everything the certificate needs besides the results; its digest ties shard
results, checkpoints and certificates to it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from vyre import ops
from vyre.ops import registry
from vyre.conform import generate as gen
from vyre.conform.algebra import UnsupportedLaw, law_check_name, law_variables
from vyre.conform.backends import ConformBackend
from vyre.conform.corpus import Entry
from vyre.conform.strength import Strength
from vyre.ir import Call, DataType
from vyre.kernels.spec import KernelSpec
from vyre.ops.spec import OpSpec, walk_expr
from vyre.pipeline import lower_to_wgsl
from vyre.kernels.evaluate import elementwise_program

__all__ = [
    "CHECK_GROUPS",
    "SUITE_VERSION",
    "Plan",
    "PlanError",
    "Unit",
    "build_plan",
    "canonical_json",
    "dependencies",
    "registry_hash",
    "select_ops",
]

SUITE_VERSION = "vyre-conform 0.1.0"

CHECK_GROUPS = (
    "laws", "reference", "parity", "determinism", "regression", "oracle", "zero-overhead",
)
"""What a run can be restricted to (`checks=`); all of them by default."""


LANE_COST = 170.0
REFERENCE_LANE_COST = 12.0
"""Unit costs (scheduling, shard balance and progress only), in IR-op evaluations:
a backend lane costs about LANE_COST plus the ops it evaluates, a CPU-reference
lane about REFERENCE_LANE_COST per law (measured on the interpreter and numpy)."""


class PlanError(ValueError):
    """Bad selection arguments (no such op, bad check name, ...)."""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def sha256_json(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


@dataclass(frozen=True)
class Unit:
    """One unit of work. `part` is the domain: "u8:k" (exhaustive, k variables),
    "w" (witnessed), "inputs" (an op's input stream), "runs", "corpus"."""

    kind: str
    op: str
    part: str
    chunk: int
    lanes: int
    cost: float = field(default=0.0, compare=False)

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.op}|{self.part}|{self.chunk}"

    def to_json(self) -> list[Any]:
        return [self.kind, self.op, self.part, self.chunk, self.lanes]


@dataclass(frozen=True)
class Plan:
    data: dict[str, Any]
    units: tuple[Unit, ...]

    @property
    def digest(self) -> str:
        return str(self.data["digest"])

    def op(self, op_id: str) -> dict[str, Any]:
        for entry in self.data["ops"]:
            if entry["id"] == op_id:
                return entry
        raise KeyError(op_id)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Plan:
        units = tuple(Unit(k, o, p, int(c), int(n)) for k, o, p, c, n in data["units"])
        return cls(dict(data), units)


# ---------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------


def select_ops(patterns: Iterable[str] | str) -> list[str]:
    """Registered op ids matching any glob pattern (`primitive.*`), sorted."""
    if isinstance(patterns, str):
        patterns = [patterns]
    wanted = [p.strip() for item in patterns for p in str(item).split(",") if p.strip()]
    if not wanted:
        raise PlanError("no ops selected: give op ids or patterns, e.g. ops=['primitive.*']")
    known = ops.known_op_ids()
    chosen: set[str] = set()
    for pattern in wanted:
        matches = [op_id for op_id in known if fnmatch.fnmatchcase(op_id, pattern)]
        if not matches:
            raise PlanError(
                f"no registered op matches {pattern!r} (ops.known_op_ids() lists the"
                f" {len(known)} registered ops)"
            )
        chosen.update(matches)
    return sorted(chosen)


def dependencies(op_ids: Iterable[str]) -> list[str]:
    """The ops plus every op they call or their laws name, transitively."""
    seen: set[str] = set()
    stack = list(op_ids)
    while stack:
        op_id = stack.pop()
        if op_id in seen:
            continue
        seen.add(op_id)
        spec = registry.resolve(op_id)
        if spec is None:  # unknown, or a kernel op (it calls no op)
            continue
        stack.extend(spec.callees)
        for law in spec.laws:
            stack.extend(law.referenced_ops())
    return sorted(seen)


def _wgsl(spec: OpSpec) -> str:
    try:
        return lower_to_wgsl(elementwise_program(spec, 1))
    except Exception as error:  # noqa: BLE001 - the hash records what lowering said
        return f"<lowering failed: {type(error).__name__}: {error}>"


def spec_fingerprint(op_id: str) -> dict[str, Any]:
    """What the registry hash covers for one op."""
    try:
        found = ops.get(op_id)
    except KeyError:
        return {"id": op_id, "missing": True}
    if isinstance(found, KernelSpec):
        return kernel_fingerprint(found)
    spec = found
    return {
        "id": spec.id,
        "version": spec.version,
        "category": spec.category,
        "signature": str(spec.signature),
        "laws": [str(law) for law in spec.laws],
        "wgsl": _wgsl(spec),
    }


KERNEL_FINGERPRINT_LENGTHS = (1, 4097)
"""Input lengths whose kernel pipelines a kernel op's fingerprint covers."""


def kernel_fingerprint(spec: KernelSpec) -> dict[str, Any]:
    """What the registry hash covers for a kernel op: its identity, ports, laws,
    boundaries, and the WGSL and dispatch of every step of its pipeline at
    sample lengths (a changed kernel changes the hash)."""
    pipelines: list[list[Any]] = []
    for n in KERNEL_FINGERPRINT_LENGTHS:
        sizes = {p.name: n for p in spec.array_inputs}
        scalars = {p.name: 0 for p in spec.scalar_inputs}
        try:
            plan = spec.plan(sizes, scalars)
        except (ValueError, TypeError) as error:  # an op that needs particular scalars
            pipelines.append([n, f"no plan: {error}"])
            continue
        steps = [
            [hashlib.sha256(lower_to_wgsl(step.program).encode()).hexdigest(), list(step.dispatch), dict(step.bind)]
            for step in plan.steps
        ]
        buffers = [[b.name, str(b.dtype), b.count, b.fill] for b in plan.buffers]
        pipelines.append([n, steps, buffers])
    return {
        "id": spec.id,
        "version": spec.version,
        "kind": spec.kind,
        "signature": str(spec.signature),
        "laws": [str(law) for law in spec.laws],
        "boundaries": list(spec.boundaries),
        "max_length": spec.max_length,
        "pipelines": pipelines,
    }


def registry_hash(op_ids: Iterable[str]) -> str:
    """SHA-256 over (id, version, category, signature, laws, lowered WGSL) of each op."""
    return sha256_json([spec_fingerprint(op_id) for op_id in sorted(set(op_ids))])


# ---------------------------------------------------------------------------
# Costs (for scheduling only)
# ---------------------------------------------------------------------------


@cache
def _op_cost(op_id: str, version: int) -> float:
    spec = registry.get_scalar(op_id)
    if spec.intrinsic is not None:
        return 1.0
    total = 0.0
    for node in walk_expr(spec.composition_tree):
        if isinstance(node, Call):
            try:
                callee = registry.get_scalar(node.op_id)
                total += _op_cost(callee.id, callee.version)
            except KeyError:
                total += 1.0
        else:
            total += 1.0
    return max(total, 1.0)


def op_cost(spec: OpSpec) -> float:
    try:
        return _op_cost(spec.id, spec.version)
    except Exception:  # noqa: BLE001 - a cost estimate never fails a run
        return 10.0


# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------


TRACKS: dict[str, DataType] = {"integer": DataType.U32, "float": DataType.F32}
"""conform.md's two tracks, by the one word type of their ops' signatures: the
integer track (L1, L2) certifies u32 scalar ops, the float track (L1f, L2f) the
strict F32 ops, compared as bit patterns. A certificate never mixes them."""


def in_track(spec: OpSpec | KernelSpec, track: str) -> bool:
    if isinstance(spec, KernelSpec):
        return track == "kernel"
    if track not in TRACKS:
        return False
    sig = spec.signature
    word = TRACKS[track]
    return sig.arity >= 1 and all(t is word for t in (*sig.inputs, sig.output))


def _law_entries(spec: OpSpec, law_filter: set[str] | None) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for index, law in enumerate(spec.laws):
        if law_filter is not None and law.name not in law_filter and str(law) not in law_filter:
            continue
        try:
            variables = law_variables(law)
        except UnsupportedLaw:
            variables = 0
        entries.append(
            {"index": index, "law": str(law), "check": law_check_name(law), "variables": variables}
        )
    return entries


def _chunks(total: int) -> list[int]:
    return [min(gen.CHUNK, total - start) for start in range(0, total, gen.CHUNK)]


def build_plan(
    backend: ConformBackend,
    op_ids: Sequence[str],
    strength: Strength,
    seed: int,
    checks: Iterable[str],
    law_filter: Iterable[str] | None,
    corpus_entries: Sequence[Entry],
    oracle_rejections: Mapping[str, str | None],
    reference_probe: Callable[[OpSpec], str | None],
    track: str = "integer",
    prove: float | None = None,
    level: str = "L2",
) -> Plan:
    """The plan of a run. `oracle_rejections` maps op ids with a user oracle to
    None (accepted) or the gate's reason; `reference_probe(spec)` returns the
    gate's reason to reject the reference check of an op on this backend.
    `prove`: the per-attempt solver time limit of the SMT obligations (one
    unit per obligation: the composition, then each declared law), None for
    no proofs."""
    selected = set(checks)
    filter_set = set(law_filter) if law_filter is not None else None
    units: list[Unit] = []
    op_entries: list[dict[str, Any]] = []
    independence: list[dict[str, str]] = []
    regressions: list[list[Any]] = []
    parity_applies = not backend.is_reference_interpreter
    if "parity" in selected and not parity_applies:
        independence.append(
            {
                "op": "*",
                "check": "parity",
                "verdict": "rejected",
                "reason": f"backend `{backend.id}` is the reference interpreter: parity would"
                " compare it with itself",
            }
        )
    for op_id in op_ids:
        spec = registry.get_scalar(op_id)
        entry: dict[str, Any] = {
            "id": spec.id,
            "version": spec.version,
            "category": spec.category,
            "signature": str(spec.signature),
            "laws": _law_entries(spec, filter_set),
            "classes": len(spec.equivalence_classes),
            "representatives": sum(len(c.representatives) for c in spec.equivalence_classes),
            "boundaries": len(spec.boundaries),
            "status": "checked",
            "reason": "",
        }
        op_entries.append(entry)
        if not backend.supports(spec):
            entry["status"] = "unsupported"
            entry["reason"] = (
                f"Category C intrinsic `{spec.intrinsic.hardware if spec.intrinsic else '?'}`"
                f" is not available on backend `{backend.id}` (UnsupportedByBackend)"
            )
            continue
        if not in_track(spec, track):
            entry["status"] = "unsupported"
            entry["reason"] = (
                f"signature {spec.signature}: the {track} track checks"
                f" {TRACKS[track]} scalar ops"
            )
            continue
        specials = gen.special_values(spec)
        entry["specials"] = len(specials)
        structured = gen.structured_op_rows(spec)
        entry["structured_inputs"] = len(structured)
        cost = op_cost(spec)
        units.extend(_law_units(spec, entry["laws"], strength, specials, cost, selected))
        if "reference" in selected:
            reason = reference_probe(spec)
            if reason:
                independence.append(
                    {"op": op_id, "check": "reference", "verdict": "rejected", "reason": reason}
                )
            else:
                units.extend(_input_units("reference", op_id, len(structured), strength, cost))
        if "parity" in selected and parity_applies:
            units.extend(_input_units("parity", op_id, len(structured), strength, LANE_COST + 2 * cost))
        if "oracle" in selected and op_id in oracle_rejections:
            reason = oracle_rejections[op_id]
            if reason:
                independence.append(
                    {"op": op_id, "check": "oracle", "verdict": "rejected", "reason": reason}
                )
            else:
                units.extend(_input_units("oracle", op_id, len(structured), strength, cost))
        if prove is not None:
            units.extend(_proof_units(spec, entry["laws"]))
        if level == "L4":
            units.extend(_l4_units(spec, backend, independence))
        if "zero-overhead" in selected and spec.category == "A":
            units.append(Unit("zero-overhead", op_id, "wgsl", 0, 1, cost))
        if "determinism" in selected:
            lanes = len(determinism_rows(spec, seed, strength.determinism_random))
            units.append(
                Unit(
                    "determinism", op_id, "runs", 0, lanes,
                    lanes * (LANE_COST + cost) * strength.determinism_runs,
                )
            )
        if "regression" in selected:
            mine = [e for e in corpus_entries if _replayable(e, spec, entry, parity_applies)]
            if mine:
                regressions.extend(
                    [e.op, e.check, e.law, e.target, list(e.inputs)] for e in mine
                )
                units.append(Unit("regression", op_id, "corpus", 0, len(mine), len(mine) * cost))
    if level in ("L3", "L4"):
        units.extend(_invariant_units(strength))
    deps = dependencies(op_ids)
    data: dict[str, Any] = {
        "suite_version": SUITE_VERSION,
        "track": track,
        "backend": backend.info(),
        "strength": strength.to_json(),
        "seed": seed,
        "checks": sorted(selected),
        "parity_applies": parity_applies,
        "law_filter": sorted(filter_set) if filter_set is not None else None,
        "ops": op_entries,
        "dependencies": deps,
        "registry_hash": registry_hash(deps),
        "prove": None if prove is None else _proof_settings(prove),
        "level": level,
        "regressions": regressions,
        "independence": independence,
        "units": [u.to_json() for u in units],
    }
    data["digest"] = sha256_json(data)
    costed = tuple(units)
    return Plan(data, costed)


PERF_COST = 200_000.0
"""Scheduling cost of one performance baseline (two kernels, several timed submissions)."""


def _l4_units(spec: OpSpec, backend: ConformBackend, independence: list[dict[str, str]]) -> list[Unit]:
    """L4: a compositional analysis for an op that calls library ops, and a
    performance baseline where a hand-written WGSL equivalent exists."""
    from vyre.conform.perf import baseline

    units: list[Unit] = []
    if spec.intrinsic is None and spec.callees:
        units.append(Unit("compose", spec.id, "structure", 0, 1, PROOF_COST))
    if baseline(spec.id) is None:
        independence.append({"op": spec.id, "check": "perf", "verdict": "rejected",
                             "reason": "no hand-written WGSL baseline (vyre.conform.perf.register_baseline)"})
    elif backend.id != "wgpu":
        independence.append({"op": spec.id, "check": "perf", "verdict": "rejected",
                             "reason": f"backend `{backend.id}` runs no WGSL: performance baselines are GPU measurements"})
    else:
        units.append(Unit("perf", spec.id, "wgsl", 0, 1, PERF_COST))
    return units


INVARIANT_COST = 50_000.0
"""Scheduling cost of one chunk of generated programs (both backends, several runs each)."""


def _invariant_units(strength: Strength) -> list[Unit]:
    """L3: one unit per (engine check, chunk of generated programs)."""
    from vyre.conform.invariants import INVARIANTS, programs_per_chunk

    chunks, programs = programs_per_chunk(strength.name)
    return [
        Unit("invariant", "engine", name, chunk, programs, INVARIANT_COST * programs)
        for name in INVARIANTS
        for chunk in range(chunks)
    ]


PROOF_COST = 2_000.0
"""Scheduling cost of one SMT obligation (most take milliseconds, a few the time limit)."""


def _proof_units(spec: OpSpec, laws: Sequence[Mapping[str, Any]]) -> list[Unit]:
    """One unit per obligation: chunk 0 is composition == reference, chunk
    1 + i the declared law i (those the law filter keeps)."""
    units = [Unit("prove", spec.id, "smt", 0, 1, PROOF_COST)]
    units.extend(Unit("prove", spec.id, "smt", 1 + int(law["index"]), 1, PROOF_COST) for law in laws)
    return units


def _proof_settings(timeout: float) -> dict[str, Any]:
    from vyre.conform.smt import solver_versions

    return {"timeout_s": timeout, "solvers": dict(sorted(solver_versions().items()))}


def _replayable(entry: Entry, spec: OpSpec, op_entry: Mapping[str, Any], parity: bool) -> bool:
    if entry.op != spec.id or len(entry.inputs) == 0:
        return False
    if entry.check.startswith("law:"):
        declared = {law["law"]: law for law in op_entry["laws"]}
        law = declared.get(entry.law or "")
        return law is not None and len(entry.inputs) == law["variables"]
    if len(entry.inputs) != spec.signature.arity:
        return False
    if entry.check == "parity":
        return parity
    return entry.check in ("reference", "determinism")


def _law_units(
    spec: OpSpec,
    laws: Sequence[Mapping[str, Any]],
    strength: Strength,
    specials: Sequence[int],
    cost: float,
    selected: set[str],
) -> list[Unit]:
    if "laws" not in selected:
        return []
    checkable = [law for law in laws if law["variables"]]
    if not checkable:
        return []
    counts = sorted({law["variables"] for law in checkable})
    law_values = [v for law in spec.laws for v in gen.law_constants(law)]
    structured = len(gen.structured_law_rows(max(counts), specials, law_values))
    units: list[Unit] = []
    for target in ("reference", "backend"):
        kind = f"laws-{target}"
        per_lane = (
            REFERENCE_LANE_COST * len(checkable)
            if target == "reference"
            else LANE_COST + 3 * len(checkable) * cost
        )
        for k in counts:
            bits = 8 if k < 3 or target == "reference" else strength.backend_cube_bits
            for chunk, lanes in enumerate(_chunks(1 << (bits * k))):
                units.append(Unit(kind, spec.id, f"u8:{k}", chunk, lanes, lanes * per_lane))
        units.append(Unit(kind, spec.id, "w", 0, structured, structured * per_lane))
        for chunk, lanes in enumerate(_chunks(strength.witnesses), start=1):
            units.append(Unit(kind, spec.id, "w", chunk, lanes, lanes * per_lane))
    return units


def _input_units(kind: str, op_id: str, structured: int, strength: Strength, cost: float) -> list[Unit]:
    per_lane = LANE_COST + cost
    units = [Unit(kind, op_id, "inputs", 0, structured, structured * per_lane)]
    for chunk, lanes in enumerate(_chunks(strength.witnesses), start=1):
        units.append(Unit(kind, op_id, "inputs", chunk, lanes, lanes * per_lane))
    return units


def op_input_rows(spec: OpSpec, seed: int, chunk: int, lanes: int) -> np.ndarray:
    """Rows of chunk `chunk` of the op's input stream (0: structured)."""
    if chunk == 0:
        return gen.structured_op_rows(spec)
    entropy = gen.stream_entropy(seed, "inputs", spec.id)
    return gen.random_rows(entropy, chunk - 1, lanes, spec.signature.arity)


def law_witness_rows(
    spec: OpSpec, seed: int, k: int, chunk: int, lanes: int
) -> np.ndarray:
    """Rows of chunk `chunk` of the op's law witness stream (0: structured)."""
    if chunk == 0:
        law_values = [v for law in spec.laws for v in gen.law_constants(law)]
        return gen.structured_law_rows(k, gen.special_values(spec), law_values)
    entropy = gen.stream_entropy(seed, "laws", spec.id)
    return gen.random_rows(entropy, chunk - 1, lanes, k)


def determinism_rows(spec: OpSpec, seed: int, random: int) -> np.ndarray:
    """The rows re-run by the determinism check: the spec's special values
    (their product for arity <= 2, the structured rows otherwise, at most
    4,096) and `random` seeded random rows."""
    arity = spec.signature.arity
    if arity <= 2:
        values = np.asarray(gen.special_values(spec), dtype=np.uint32)
        grids = np.meshgrid(*([values] * arity), indexing="ij")
        structured = np.stack([g.ravel() for g in grids], axis=1)
    else:
        structured = gen.structured_op_rows(spec)[:4096]
    extra = gen.random_rows(gen.stream_entropy(seed, "determinism", spec.id), 0, random, arity)
    return np.concatenate([structured, extra], axis=0)
