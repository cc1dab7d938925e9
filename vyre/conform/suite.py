"""Orchestration: `certify` (options -> plan -> units -> certificate), `merge`, resumption.

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
from typing import Any

import numpy as np

from vyre import ops as registry
from vyre.conform import corpus as corpus_mod
from vyre.conform.assemble import assemble
from vyre.conform.backends import ConformBackend, InterpBackend, WgpuBackend
from vyre.conform.campaign_evidence import campaign_evidence
from vyre.conform.certificate import PARTIAL_FORMAT, Certificate, CertificateError, content_digest, finish
from vyre.conform.engine import Engine
from vyre.conform.executors import EngineRecipe, run_units
from vyre.conform.independence import IndependenceError, check_oracle, runs_function
from vyre.conform.kernel_track import KernelEngine, build_kernel_plan
from vyre.conform.kinds import CheckKind, Level, Track
from vyre.conform.options import DEFAULT_SEED, CertifyOptions, parse_shard
from vyre.conform.plan import Plan, PlanError, Unit, build_plan
from vyre.conform.progress import Progress
from vyre.conform.results import UnitRecord, record_from_json, records_to_json
from vyre.conform.strength import Strength
from vyre.conform.tensor_track import TensorEngine, build_tensor_plan
from vyre.kernels.samplers import make_case
from vyre.kernels.spec import KernelSpec
from vyre.ops.registry import get_scalar
from vyre.ops.spec import OpSpec

__all__ = ["DEFAULT_SEED", "CertifyOptions", "certify", "certify_with", "merge", "parse_shard", "shard_units"]

CHECKPOINT_FORMAT = "vyre-conform-checkpoint/1"

UnitResults = dict[str, list[UnitRecord]]


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


def _checkpoint_lines(path: Path, plan: Plan) -> list[str]:
    """The record lines of a checkpoint of `plan` ([] when there is none yet)."""
    from vyre.conform.schema import CHECKPOINT_HEADER, first_problem

    if not path.exists():
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise CertificateError(f"{path}: unreadable checkpoint ({error})") from None
    if not lines:
        return []
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
    return lines[1:]


def _load_checkpoint(path: Path, plan: Plan) -> UnitResults:
    """The finished units of a checkpoint. A line that is not JSON is one cut by
    an interruption and is skipped (its unit runs again); a JSON line that
    breaks the checkpoint schema is corruption and an error."""
    from vyre.conform.schema import CHECKPOINT_RECORD, first_problem

    done: UnitResults = {}
    for number, line in enumerate(_checkpoint_lines(path, plan), start=2):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by an interruption
        problem = first_problem(record, CHECKPOINT_RECORD)
        if problem is None:
            try:
                done[record["key"]] = [record_from_json(r) for r in record["results"]]
                continue
            except (KeyError, TypeError, ValueError) as error:
                problem = f"not a unit result ({error})"
        raise CertificateError(f"{path}:{number}: corrupt checkpoint record: {problem}")
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

    def add(self, key: str, results: Sequence[UnitRecord]) -> None:
        from vyre.conform.files import append_lines

        if self.path is None:
            return
        line = json.dumps({"key": key, "results": records_to_json(results)}, sort_keys=True)
        append_lines(self.path, [line], lock=False)

    def close(self, *, delete: bool) -> None:
        if delete and self.path is not None and self.path.exists():
            self.path.unlink()


# ---------------------------------------------------------------------------
# Running units
# ---------------------------------------------------------------------------

AnyEngine = Engine | KernelEngine | TensorEngine


def _user_specs(plan: Plan) -> tuple[Any, ...]:
    """The registered non-built-in specs a plan names (shipped to Dask workers)."""
    from vyre.ops.registry import builtin_op_ids

    builtin = set(builtin_op_ids())
    names = set(plan.data.get("dependencies") or []) | {e.id for e in plan.entries}
    return tuple(registry.get(op_id) for op_id in sorted(names - builtin) if op_id in registry.known_op_ids())


# ---------------------------------------------------------------------------
# certify
# ---------------------------------------------------------------------------


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
    track: str | Track = "integer",
    prove: bool = False,
    prove_timeout: float | None = None,
    level: str | Level = "L2",
    dask: str | None = None,
    gpus: int | None = None,
    campaigns: str | Path | None = None,
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
    address, or "local" for a cluster of this host: with the wgpu backend one
    worker per GPU, each on its own GPU (`gpus` workers when given, worker k
    on `VYRE_ADAPTER=gpu:(k mod GPUs)`), otherwise `jobs` workers: the units
    run there (`vyre.conform.executors`, `vyre.conform.cluster`), with the same
    certificate. `campaigns` (float track): a float-campaign checkpoint; the
    float laws of each unary function whose exhaustive campaign on this
    backend's device and law campaign (`vyre-conform floats --laws`) are
    complete and clean are obligations of strength `exhaustive`
    (`vyre.conform.campaign_evidence`).

    The keywords become a `CertifyOptions` (strings turned into the typed
    values, a `PlanError` naming any invalid one); `certify_with` runs that."""
    started = time.monotonic()
    options = CertifyOptions.parse(
        backend, ops, strength, seed=seed, witnesses=witnesses, checks=checks, laws=laws, shard=shard,
        checkpoint=checkpoint, resume=resume, corpus=corpus, record=record, oracles=oracles, jobs=jobs,
        progress=progress, track=track, prove=prove, prove_timeout=prove_timeout, level=level, dask=dask,
        gpus=gpus, campaigns=campaigns,
    )
    return certify_with(options, started)


def certify_with(options: CertifyOptions, started: float | None = None) -> Certificate:
    """The certificate of a run given as a `CertifyOptions` (`started`: the
    `time.monotonic()` the run's duration counts from; now by default)."""
    began = time.monotonic() if started is None else started
    if options.track is Track.KERNEL:
        return _certify_kernels(options, began)
    if options.track is Track.TENSOR:
        return _certify_tensors(options, began)
    entries = corpus_mod.replayed(options.corpus)  # the shipped corpus and this one
    rejections = _oracle_rejections(options.oracles, options.op_ids)
    backend = options.backend
    evidence = None
    if options.campaigns is not None:
        evidence = campaign_evidence(options.campaigns, options.op_ids, backend.device())
    plan = build_plan(
        backend, options.op_ids, options.strength, options.seed, options.checks, options.laws, entries,
        rejections, _reference_probe(backend), options.track, options.prove_timeout, options.level, evidence,
    )
    oracles = {k: v for k, v in options.oracles.items() if not rejections.get(k)}
    cert = _execute_plan(
        plan, lambda: Engine(plan, backend, oracles), options, began,
        lambda: EngineRecipe(plan.data, _backend_for_workers(backend), options.track, _user_specs(plan), oracles),
    )
    if options.record and options.corpus is not None:
        added = corpus_mod.append(options.corpus, _corpus_entries(cert, backend.id))
        cert.data["run"]["corpus_added"] = added
    return cert


def _certify_kernels(options: CertifyOptions, started: float) -> Certificate:
    """The kernel track (`vyre.conform.kernel_track`): cases instead of rows, no
    regression corpus (kernel counterexamples are whole buffers) and no user oracles."""
    backend = options.backend
    plan = build_kernel_plan(
        backend, options.op_ids, options.strength, options.seed, options.checks, options.laws,
        _kernel_reference_probe(backend),
    )
    return _execute_plan(
        plan, lambda: KernelEngine(plan, backend), options, started,
        lambda: EngineRecipe(plan.data, _backend_for_workers(backend), Track.KERNEL),
    )


def _certify_tensors(options: CertifyOptions, started: float) -> Certificate:
    """The tensor track (`vyre.conform.tensor_track`): graphs of `vyre.tensor`
    against the independent reference; no laws, corpus or user oracles."""
    backend = options.backend
    plan = build_tensor_plan(backend, options.op_ids, options.strength, options.seed, options.checks, options.level)
    return _execute_plan(
        plan, lambda: TensorEngine(plan, backend), options, started,
        lambda: EngineRecipe(plan.data, _backend_for_workers(backend), Track.TENSOR),
    )


def _execute_plan(
    plan: Plan,
    make_engine: Callable[[], AnyEngine],
    options: CertifyOptions,
    started: float,
    recipe: Callable[[], EngineRecipe],
) -> Certificate:
    """Run the plan's units (this shard's, less those the checkpoint holds when
    resuming), checkpointing each, and issue the (partial) certificate."""
    shard, checkpoint, dask = options.shard, options.checkpoint, options.dask
    units = list(plan.units) if shard is None else shard_units(plan.units, shard[1])[shard[0]]
    if options.resume and checkpoint is None:
        raise PlanError("resume=True needs a checkpoint file (checkpoint=PATH)")
    done = _load_checkpoint(checkpoint, plan) if options.resume and checkpoint else {}
    done = {key: value for key, value in done.items() if key in {u.key for u in units}}
    todo = [u for u in units if u.key not in done]
    jobs = options.jobs if options.backend.is_reference_interpreter or dask is not None else 1
    engine = make_engine() if dask is None else None
    writer = _Checkpoint(checkpoint, plan, keep=options.resume)
    bar = Progress(
        total=sum(u.cost + 1.0 for u in units),
        done=sum(u.cost + 1.0 for u in units if u.key in done),
        units=len(units),
        enabled=sys.stderr.isatty() if options.progress is None else options.progress,
    )
    results: UnitResults = dict(done)
    _run_units(engine, todo, jobs, writer, bar, results, (dask, options.gpus), recipe)
    writer.close(delete=checkpoint is not None and not options.keep_checkpoint)
    corpus = options.corpus if options.track is not Track.KERNEL else None
    run = {
        "timestamp": _now(),
        "duration_s": round(time.monotonic() - started, 3),
        "host": platform.node(),
        "python": platform.python_version(),
        "jobs": jobs,
        "dask": dask,
        "units_run": len(todo),
        "units_resumed": len(done),
        "shard": None if shard is None else f"{shard[0]}/{shard[1]}",
        "corpus": str(corpus) if corpus else None,
    }
    return _issue(plan, units, results, shard, run)


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
    dask: tuple[str | None, int | None],
    recipe: Callable[[], EngineRecipe],
) -> None:
    """Run `todo` (`dask`: the scheduler address or None, and the GPU workers of a
    local cluster), recording each unit's results as it finishes."""
    def on_done(unit: Unit, unit_results: list[UnitRecord]) -> None:
        results[unit.key] = unit_results
        writer.add(unit.key, unit_results)
        bar.advance(unit)

    try:
        run_units(todo, on_done, engine=engine, recipe=recipe, jobs=jobs, dask=dask[0], gpus=dask[1])
    finally:
        bar.close()
        writer.close(delete=False)


def _issue(
    plan: Plan,
    units: Sequence[Unit],
    results: UnitResults,
    shard: tuple[int, int] | None,
    run: Mapping[str, Any],
) -> Certificate:
    if shard is None:
        return finish(assemble(plan, results), run)
    partial = assemble(Plan(plan.data, tuple(units)), results)
    partial["format"] = PARTIAL_FORMAT
    partial["shard"] = {"index": shard[0], "count": shard[1]}
    partial["plan_full"] = plan.data
    partial["units"] = {u.key: records_to_json(results[u.key]) for u in units}
    return finish(partial, run)


def _corpus_entries(cert: Certificate, backend_id: str) -> list[corpus_mod.Entry]:
    versions = {op["id"]: op["version"] for op in cert.data["ops"]}
    out: list[corpus_mod.Entry] = []
    for f in cert.failures:
        if f.check in (CheckKind.EXECUTION, CheckKind.ORACLE) or f.domain == "regression":
            continue
        if not f.counterexample:
            continue
        out.append(
            corpus_mod.Entry(
                op=f.op_id,
                check=f.check,
                target=f.target.value,
                inputs=f.counterexample,
                law=f.law,
                op_version=versions.get(f.op_id, 1),
                backend=backend_id,
                suite_version=cert.data["suite_version"],
                found=cert.data["run"]["timestamp"],
            )
        )
    return out


# ---------------------------------------------------------------------------
# merge
# ---------------------------------------------------------------------------


def _check_shards(certificates: Sequence[Certificate]) -> None:
    """Every certificate a shard of one plan, unchanged, each shard exactly once."""
    if not certificates:
        raise CertificateError("merge needs the shard certificates of one run")
    from vyre.conform.schema import SHARD, first_problem

    for number, cert in enumerate(certificates, start=1):
        if not cert.partial:
            raise CertificateError(
                "merge takes shard certificates (made with --shard I/N); got a complete one"
            )
        problem = first_problem(cert.data, SHARD)
        if problem is not None:
            raise CertificateError(f"shard certificate {number} is malformed: {problem}")
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


def merge(certificates: Sequence[Certificate]) -> Certificate:
    """The certificate of a whole plan from the partial certificates of all its
    shards (each shard exactly once)."""
    _check_shards(certificates)
    try:
        plan = Plan.from_json(certificates[0].data["plan_full"])
        results: UnitResults = {}
        for cert in certificates:
            for key, records in cert.data["units"].items():
                results[key] = [record_from_json(r) for r in records]
    except (KeyError, TypeError, ValueError) as error:
        raise CertificateError(f"a shard certificate holds a malformed plan or unit ({error!r})") from None
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
