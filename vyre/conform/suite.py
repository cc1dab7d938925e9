"""Orchestration: `certify` (plan -> units -> certificate), `merge`, resumption.

Units stream (generate -> dispatch -> compare, one chunk of 2**20 witnesses at
a time, so memory is bounded whatever the strength). `shard=(i, n)` runs the
i-th of n cost-balanced, deterministic partitions of the plan and returns a
partial certificate that `merge` combines; `checkpoint=` appends each finished
unit's results to a JSON Lines file and `resume=True` skips the units it
already holds. All three give the same certificate content as one run.
"""

from __future__ import annotations

import json

import platform
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

import numpy as np

from vyre import ops as registry
from vyre.ops.registry import get_scalar
from vyre.conform import corpus as corpus_mod
from vyre.conform.backends import ConformBackend, InterpBackend, WgpuBackend, backend_named
from vyre.conform.executors import EngineRecipe, run_units
from vyre.conform.certificate import (
    PARTIAL_FORMAT,
    Certificate,
    CertificateError,
    assemble,
    content_digest,
    finish,
)
from vyre.conform.engine import Engine
from vyre.conform.independence import IndependenceError, check_oracle, runs_function
from vyre.conform.kernel_track import KERNEL_CHECKS, KernelEngine, build_kernel_plan
from vyre.conform.plan import (
    CHECK_GROUPS,
    TRACKS,
    Plan,
    PlanError,
    Unit,
    build_plan,
    in_track,
    select_ops,
)
from vyre.conform.progress import Progress
from vyre.conform.strength import Strength, strength_named
from vyre.kernels.samplers import make_case
from vyre.kernels.spec import KernelSpec
from vyre.ops.spec import OpSpec

__all__ = ["DEFAULT_SEED", "certify", "merge", "parse_shard", "shard_units"]

DEFAULT_SEED = 0x7679_7265
"""The base seed of every certificate unless one is given ("vyre")."""

CHECKPOINT_FORMAT = "vyre-conform-checkpoint/1"

UnitResults = dict[str, list[dict[str, Any]]]


def parse_shard(value: object) -> tuple[int, int] | None:
    """`"I/N"` or `(I, N)` with 0 <= I < N; None for no sharding."""
    if value is None:
        return None
    if isinstance(value, str):
        parts = value.split("/")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise PlanError(f"shard must be I/N with 0 <= I < N (e.g. 0/4), got {value!r}")
        index, count = int(parts[0]), int(parts[1])
    elif (
        isinstance(value, tuple)
        and len(cast("tuple[object, ...]", value)) == 2
        and all(isinstance(v, int) for v in cast("tuple[object, ...]", value))
    ):
        index, count = cast("tuple[int, int]", value)
    else:
        raise PlanError(f"shard must be I/N or a tuple (I, N), got {value!r}")
    if count < 1 or not 0 <= index < count:
        raise PlanError(f"shard must be I/N with 0 <= I < N, got {index}/{count}")
    return index, count


def shard_units(units: Sequence[Unit], count: int) -> list[list[Unit]]:
    """A deterministic, cost-balanced partition of `units` into `count` shards
    (longest unit first onto the least loaded shard), each in plan order."""
    loads = [0.0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    order = sorted(range(len(units)), key=lambda i: (-units[i].cost, i))
    for i in order:
        target = min(range(count), key=lambda s: (loads[s], s))
        loads[target] += units[i].cost + 1.0
        members[target].append(i)
    return [[units[i] for i in sorted(m)] for m in members]


# ---------------------------------------------------------------------------
# Independence probes
# ---------------------------------------------------------------------------


def _reference_probe(backend: ConformBackend) -> Callable[[OpSpec], str | None]:
    engine_cache: dict[str, Engine] = {}

    def probe(spec: OpSpec) -> str | None:
        engine = engine_cache.get("e")
        if engine is None:
            engine = Engine(Plan({"seed": 0, "strength": {}}, ()), backend)
            engine_cache["e"] = engine
        rows = np.array([[1] * spec.signature.arity, [2] * spec.signature.arity], dtype=np.uint32)
        try:
            ran = runs_function(lambda: engine.evaluate(spec, rows), spec.reference)
        except Exception:  # noqa: BLE001 - a failing backend is reported by the units
            return None
        if ran:
            return (
                f"backend `{backend.id}` evaluates `{spec.id}` by running its CPU reference:"
                " comparing them would be tautological"
            )
        return None

    return probe


def _kernel_reference_probe(backend: ConformBackend) -> Callable[[KernelSpec], str | None]:
    def probe(spec: KernelSpec) -> str | None:
        case = make_case(spec, np.random.default_rng(0), 5, "random")
        try:
            ran = runs_function(lambda: backend.run_kernel(spec, [case]), spec.reference)
        except Exception:  # noqa: BLE001 - a failing backend is reported by the units
            return None
        if ran:
            return (
                f"backend `{backend.id}` evaluates `{spec.id}` by running its CPU reference:"
                " comparing them would be tautological"
            )
        return None

    return probe


def _oracle_rejections(
    oracles: Mapping[str, Callable[..., Any]], op_ids: Sequence[str]
) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for op_id, oracle in oracles.items():
        if op_id not in op_ids:
            raise PlanError(f"an oracle is given for `{op_id}`, which is not among the selected ops")
        spec = get_scalar(op_id)
        columns = [np.array([1, 2, 0xFFFF_FFFF], dtype=np.uint32)] * spec.signature.arity
        try:
            check_oracle(op_id, oracle, spec.reference, lambda: oracle(*columns))
            out[op_id] = None
        except IndependenceError as error:
            out[op_id] = str(error)
    return out


# ---------------------------------------------------------------------------
# Checkpoints
# ---------------------------------------------------------------------------


def _load_checkpoint(path: Path, plan: Plan) -> UnitResults:
    """The finished units of a checkpoint. A line that is not JSON is one cut by
    an interruption and is skipped (its unit runs again); a JSON line that
    breaks the checkpoint schema is corruption and an error."""
    from vyre.conform.schema import CHECKPOINT_HEADER, CHECKPOINT_RECORD, first_problem

    if not path.exists():
        return {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise CertificateError(f"{path}: unreadable checkpoint ({error})") from None
    if not lines:
        return {}
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise CertificateError(f"{path}: not a vyre-conform checkpoint") from None
    if first_problem(header, CHECKPOINT_HEADER) is not None:
        raise CertificateError(f"{path}: not a vyre-conform checkpoint")
    if header.get("plan") != plan.digest:
        raise CertificateError(
            f"{path} belongs to a different plan (other ops, strength, seed, backend or"
            " registry); delete it or run without --resume"
        )
    done: UnitResults = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by an interruption
        problem = first_problem(record, CHECKPOINT_RECORD)
        if problem is not None:
            raise CertificateError(f"{path}:{number}: corrupt checkpoint record: {problem}")
        done[record["key"]] = record["results"]
    return done


class _Checkpoint:
    """The checkpoint of a run: a header written atomically, then one fsynced
    line per finished unit (a kill can only cut the last line)."""

    def __init__(self, path: Path | None, plan: Plan, keep: bool):
        from vyre.conform.files import write_atomic

        self.path = path
        if path is None:
            return
        if not (keep and path.exists() and path.stat().st_size):
            write_atomic(path, json.dumps({"format": CHECKPOINT_FORMAT, "plan": plan.digest}) + "\n")

    def add(self, key: str, results: list[dict[str, Any]]) -> None:
        from vyre.conform.files import append_lines

        if self.path is None:
            return
        append_lines(self.path, [json.dumps({"key": key, "results": results}, sort_keys=True)], lock=False)

    def close(self, *, delete: bool) -> None:
        if delete and self.path is not None and self.path.exists():
            self.path.unlink()


# ---------------------------------------------------------------------------
# Running units
# ---------------------------------------------------------------------------

AnyEngine = Engine | KernelEngine


def _user_specs(plan: Plan) -> tuple[Any, ...]:
    """The registered non-built-in specs a plan names (shipped to Dask workers)."""
    from vyre.ops.registry import builtin_op_ids

    builtin = set(builtin_op_ids())
    names = set(plan.data.get("dependencies") or []) | {e["id"] for e in plan.data.get("ops", [])}
    return tuple(registry.get(op_id) for op_id in sorted(names - builtin) if op_id in registry.known_op_ids())


# ---------------------------------------------------------------------------
# certify
# ---------------------------------------------------------------------------


def _check_names(
    checks: Iterable[str] | None, groups: Sequence[str] = CHECK_GROUPS, where: str = ""
) -> list[str]:
    if checks is None:
        return list(groups)
    if isinstance(checks, str):
        checks = [c for c in checks.split(",") if c.strip()]
    chosen = [c.strip() for c in checks if c.strip()]
    unknown = [c for c in chosen if c not in groups]
    if unknown or not chosen:
        raise PlanError(f"unknown check(s) {unknown or chosen!r}{where}; choose among: {', '.join(groups)}")
    return chosen


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def certify(
    backend: str | ConformBackend = "wgpu",
    ops: Iterable[str] | str = ("primitive.*",),
    strength: str | Strength = "standard",
    *,
    seed: int = DEFAULT_SEED,
    witnesses: int | None = None,
    checks: Iterable[str] | str | None = None,
    laws: Iterable[str] | None = None,
    shard: str | tuple[int, int] | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    corpus: str | Path | None = corpus_mod.DEFAULT_CORPUS,
    record: bool = False,
    oracles: Mapping[str, Callable[..., Any]] | None = None,
    jobs: int = 1,
    progress: bool | None = False,
    track: str = "integer",
    prove: bool = False,
    prove_timeout: float | None = None,
    level: str = "L2",
    dask: str | None = None,
) -> Certificate:
    """Run the proof suite for `ops` on `backend` and return the certificate.

    `strength`: "fast" (1e4 witnesses per law), "standard" (1e6), "legendary"
    (1e8); `witnesses` overrides the count. `checks` restricts the strategies
    (laws, reference, parity, determinism, regression, oracle) and `laws` the
    laws (by name, e.g. ["Commutative"]). `corpus` is the regression corpus
    replayed (None: none); with `record=True` new counterexamples are appended
    to it. `oracles` maps op ids to independent vectorised oracles (the
    independence gate rejects an op's own reference). `jobs` > 1 runs units in
    that many processes (interpreter only). `shard`, `checkpoint`, `resume`:
    see the module docstring; a sharded run returns a partial certificate.
    `track`: "integer" (u32 ops, levels L1/L2) or "float" (strict F32 ops,
    levels L1f/L2f); the selected ops of the other track are left out.
    `prove=True` adds the SMT obligations of every integer op (composition ==
    reference and every declared law, for all inputs; `vyre.conform.smt`),
    `prove_timeout` seconds per solver attempt (default 10). `level`: "L2"
    (laws), "L3" (adds the engine invariants, I4 and the data-race detector
    over generated programs: `vyre.conform.invariants`) or "L4" (adds the
    compositional proofs and performance baselines). `dask`: a Dask scheduler
    address, or "local" for a LocalCluster of `jobs` workers: the units run
    there (`vyre.conform.executors`), with the same certificate."""
    started = time.monotonic()
    engine_backend = backend_named(backend) if isinstance(backend, str) else backend
    if not isinstance(engine_backend, ConformBackend):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"backend must be a name or a ConformBackend, got {type(backend).__name__}")
    chosen_strength = strength_named(strength)
    if witnesses is not None:
        if isinstance(witnesses, bool) or not isinstance(witnesses, int) or witnesses < 0:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise PlanError(f"witnesses must be a non-negative int, got {witnesses!r}")
        chosen_strength = chosen_strength.with_witnesses(witnesses)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise PlanError(f"seed must be an int in [0, 2**64), got {seed!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise PlanError(f"jobs must be a positive int, got {jobs!r}")
    if track not in (*TRACKS, "kernel"):
        raise PlanError(f"unknown track {track!r}; choose one of: {', '.join((*TRACKS, 'kernel'))}")
    op_ids = [op_id for op_id in select_ops(ops) if in_track(registry.get(op_id), track)]
    if not op_ids:
        raise PlanError(f"no op of the {track} track among the selected ops")
    if dask is not None and (not isinstance(dask, str) or not dask.strip()):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise PlanError(f"dask must be a scheduler address or 'local', got {dask!r}")
    if track == "kernel":
        return _certify_kernels(
            engine_backend, op_ids, chosen_strength, seed, checks, laws, shard, checkpoint,
            resume, oracles, jobs, progress, started, dask,
        )
    check_list = _check_names(checks)
    law_filter = None if laws is None else [laws] if isinstance(laws, str) else list(laws)
    shard_spec = parse_shard(shard)
    proof_timeout = _proof_timeout(prove, prove_timeout, track)
    if level not in ("L1", "L2", "L3", "L4"):
        raise PlanError(f"level must be one of L1, L2, L3, L4, got {level!r}")
    corpus_path = Path(corpus) if corpus is not None else None
    entries = corpus_mod.load(corpus_path)
    rejections = _oracle_rejections(dict(oracles or {}), op_ids)

    plan = build_plan(
        engine_backend,
        op_ids,
        chosen_strength,
        seed,
        check_list,
        law_filter,
        entries,
        rejections,
        _reference_probe(engine_backend),
        track,
        proof_timeout,
        level,
    )
    engine_oracles = {k: v for k, v in (oracles or {}).items() if not rejections.get(k)}
    cert = _execute_plan(
        plan, lambda: Engine(plan, engine_backend, engine_oracles), engine_backend,
        shard_spec, checkpoint, resume, jobs, progress, started, corpus_path,
        dask, lambda: EngineRecipe(plan.data, _backend_for_workers(engine_backend), track,
                                   _user_specs(plan), engine_oracles),
    )
    if record and corpus_path is not None:
        added = corpus_mod.append(corpus_path, _corpus_entries(cert, engine_backend.id))
        cert.data["run"]["corpus_added"] = added
    return cert


def _proof_timeout(prove: object, timeout: object, track: str) -> float | None:
    if not isinstance(prove, bool):
        raise PlanError(f"prove must be True or False, got {prove!r}")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600
    ):
        raise PlanError(f"prove_timeout must be a number of seconds in (0, 3600], got {timeout!r}")
    if not prove:
        return None
    if track != "integer":
        raise PlanError(f"prove=True proves integer ops; the {track} track has no SMT obligations")
    return float(timeout) if timeout is not None else 10.0


def _execute_plan(
    plan: Plan,
    make_engine: Callable[[], AnyEngine],
    backend: ConformBackend,
    shard_spec: tuple[int, int] | None,
    checkpoint: str | Path | None,
    resume: bool,
    jobs: int,
    progress: bool | None,
    started: float,
    corpus_path: Path | None,
    dask: str | None = None,
    recipe: Callable[[], EngineRecipe] | None = None,
) -> Certificate:
    """Run the plan's units (this shard's, less those the checkpoint holds when
    resuming), checkpointing each, and issue the (partial) certificate."""
    units = list(plan.units)
    if shard_spec is not None:
        units = shard_units(plan.units, shard_spec[1])[shard_spec[0]]
    checkpoint_path = Path(checkpoint) if checkpoint is not None else None
    if resume and checkpoint_path is None:
        raise PlanError("resume=True needs a checkpoint file (checkpoint=PATH)")
    done: UnitResults = _load_checkpoint(checkpoint_path, plan) if resume and checkpoint_path else {}
    done = {key: value for key, value in done.items() if key in {u.key for u in units}}
    todo = [u for u in units if u.key not in done]
    if not backend.is_reference_interpreter and dask is None:
        jobs = 1
    engine = make_engine() if dask is None else None
    writer = _Checkpoint(checkpoint_path, plan, keep=resume)
    bar = Progress(
        total=sum(u.cost + 1.0 for u in units),
        done=sum(u.cost + 1.0 for u in units if u.key in done),
        units=len(units),
        enabled=sys.stderr.isatty() if progress is None else progress,
    )
    results: UnitResults = dict(done)
    _run_units(engine, todo, jobs, writer, bar, results, dask, recipe)
    writer.close(delete=checkpoint_path is not None)
    run = {
        "timestamp": _now(),
        "duration_s": round(time.monotonic() - started, 3),
        "host": platform.node(),
        "python": platform.python_version(),
        "jobs": jobs,
        "dask": dask,
        "units_run": len(todo),
        "units_resumed": len(done),
        "shard": None if shard_spec is None else f"{shard_spec[0]}/{shard_spec[1]}",
        "corpus": str(corpus_path) if corpus_path else None,
    }
    return _issue(plan, units, results, shard_spec, run)


def _backend_for_workers(backend: ConformBackend) -> str | ConformBackend:
    """A built-in backend travels by name (each worker opens its own device);
    any other (a test double, a third-party backend) is pickled."""
    return backend.id if type(backend) in (InterpBackend, WgpuBackend) else backend


def _run_units(
    engine: AnyEngine | None,
    todo: Sequence[Unit],
    jobs: int,
    writer: _Checkpoint,
    bar: Progress,
    results: UnitResults,
    dask: str | None,
    recipe: Callable[[], EngineRecipe] | None,
) -> None:
    def on_done(unit: Unit, unit_results: list[dict[str, Any]]) -> None:
        results[unit.key] = unit_results
        writer.add(unit.key, unit_results)
        bar.advance(unit)

    def no_recipe() -> EngineRecipe:
        raise PlanError("this track cannot run on Dask")

    try:
        run_units(todo, on_done, engine=engine, recipe=recipe or no_recipe, jobs=jobs, dask=dask)
    finally:
        bar.close()
        writer.close(delete=False)


def _issue(
    plan: Plan,
    units: Sequence[Unit],
    results: UnitResults,
    shard_spec: tuple[int, int] | None,
    run: dict[str, Any],
) -> Certificate:
    if shard_spec is None:
        return finish(assemble(plan, results), run)
    partial = assemble(Plan(plan.data, tuple(units)), results)
    partial["format"] = PARTIAL_FORMAT
    partial["shard"] = {"index": shard_spec[0], "count": shard_spec[1]}
    partial["plan_full"] = plan.data
    partial["units"] = {u.key: results[u.key] for u in units}
    return finish(partial, run)


def _certify_kernels(
    backend: ConformBackend,
    op_ids: Sequence[str],
    strength: Strength,
    seed: int,
    checks: Iterable[str] | str | None,
    laws: Iterable[str] | None,
    shard: str | tuple[int, int] | None,
    checkpoint: str | Path | None,
    resume: bool,
    oracles: Mapping[str, Callable[..., Any]] | None,
    jobs: int,
    progress: bool | None,
    started: float,
    dask: str | None = None,
) -> Certificate:
    """The kernel track (`vyre.conform.kernel_track`): cases instead of rows, no
    regression corpus (kernel counterexamples are whole buffers) and no user oracles."""
    if oracles:
        raise PlanError("the kernel track takes no oracles: the CPU reference and the laws are its oracles")
    check_list = _check_names(checks, KERNEL_CHECKS, " for the kernel track")
    law_filter = None if laws is None else [laws] if isinstance(laws, str) else list(laws)
    shard_spec = parse_shard(shard)
    plan = build_kernel_plan(
        backend, op_ids, strength, seed, check_list, law_filter, _kernel_reference_probe(backend)
    )
    return _execute_plan(
        plan, lambda: KernelEngine(plan, backend), backend,
        shard_spec, checkpoint, resume, jobs, progress, started, None,
        dask, lambda: EngineRecipe(plan.data, _backend_for_workers(backend), "kernel"),
    )


def _corpus_entries(cert: Certificate, backend_id: str) -> list[corpus_mod.Entry]:
    versions = {op["id"]: op["version"] for op in cert.data["ops"]}
    out: list[corpus_mod.Entry] = []
    for f in cert.data["failures"]:
        if f["check"] in ("execution", "oracle") or f["domain"] == "regression":
            continue
        if not f["counterexample"]:
            continue
        out.append(
            corpus_mod.Entry(
                op=f["op_id"],
                check=f["check"],
                target=f["target"],
                inputs=tuple(f["counterexample"]),
                law=f["law"],
                op_version=versions.get(f["op_id"], 1),
                backend=backend_id,
                suite_version=cert.data["suite_version"],
                found=cert.data["run"]["timestamp"],
            )
        )
    return out


# ---------------------------------------------------------------------------
# merge
# ---------------------------------------------------------------------------


def merge(certificates: Sequence[Certificate]) -> Certificate:
    """The certificate of a whole plan from the partial certificates of all its
    shards (each shard exactly once)."""
    if not certificates:
        raise CertificateError("merge needs the shard certificates of one run")
    for cert in certificates:
        if not cert.partial:
            raise CertificateError(
                "merge takes shard certificates (made with --shard I/N); got a complete one"
            )
        if content_digest(cert.data) != cert.data.get("content_digest"):
            raise CertificateError(
                f"shard {cert.data.get('shard')} was changed after it was issued (digest mismatch)"
            )
    plans = {cert.data["plan_full"]["digest"] for cert in certificates}
    if len(plans) != 1:
        raise CertificateError(
            "the shards come from different plans (other ops, strength, seed, backend or registry)"
        )
    counts = {cert.data["shard"]["count"] for cert in certificates}
    if len(counts) != 1:
        raise CertificateError(f"the shards disagree on the shard count: {sorted(counts)}")
    count = counts.pop()
    indices = sorted(cert.data["shard"]["index"] for cert in certificates)
    if indices != list(range(count)):
        missing = sorted(set(range(count)) - set(indices))
        duplicated = sorted({i for i in indices if indices.count(i) > 1})
        raise CertificateError(
            f"merge needs each of the {count} shards exactly once"
            + (f"; missing {missing}" if missing else "")
            + (f"; given twice {duplicated}" if duplicated else "")
        )
    plan = Plan.from_json(certificates[0].data["plan_full"])
    results: UnitResults = {}
    for cert in certificates:
        results.update(cert.data["units"])
    missing_units = [u.key for u in plan.units if u.key not in results]
    if missing_units:
        raise CertificateError(f"the shards lack {len(missing_units)} unit(s), e.g. {missing_units[0]}")
    run = {
        "timestamp": _now(),
        "duration_s": round(sum(float(c.data["run"].get("duration_s", 0)) for c in certificates), 3),
        "merged_from": [c.data["shard"] for c in sorted(certificates, key=lambda c: c.data["shard"]["index"])],
        "host": platform.node(),
    }
    return finish(assemble(plan, results), run)
