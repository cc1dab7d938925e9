"""Where the units of a plan run: in this process, in a local process pool
(`jobs=`), or on a Dask cluster (`dask=`). One path for all three.

A unit is self-describing (kind, op, domain, chunk): it regenerates its own
inputs from the plan's seed, so any worker can run any unit and the
certificate, assembled from the unit results in plan order, is the same
whatever ran them and in whatever order they finished. An executor only
submits units and hands each finished unit's results to `on_done` (which
checkpoints it and advances the progress bar) as it completes.

Dask (`pip install vyre[dask]`; the cluster: `vyre.conform.cluster`):
`dask="local"` starts a cluster of this host, with the wgpu backend one worker
per GPU, each pinned to its GPU (`VYRE_ADAPTER=gpu:k`; `gpus` workers when
given), with the interpreter (or a backend object) `jobs` worker processes; any
other value is a scheduler address (`tcp://host:8786`). A worker builds the
engine of a plan once (from the plan's JSON, the backend's name and the pickled
user ops and oracles the run needs) and reuses it for every unit of that plan;
with the wgpu backend each worker process opens its own device on its GPU.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from vyre.conform.cluster import dask_client
from vyre.conform.interrupt import interrupted
from vyre.conform.kinds import Track
from vyre.conform.plan import Plan, Unit
from vyre.conform.results import UnitError, UnitRecord

__all__ = ["EngineRecipe", "run_units"]

OnDone = Callable[[Unit, list[UnitRecord]], None]


@dataclass(frozen=True)
class EngineRecipe:
    """What a worker needs to build the engine of a plan: the plan's JSON, the
    backend's name (or the backend object itself, pickled), the track, the
    user ops the plan names (pickled specs) and the accepted user oracles."""

    plan: dict[str, Any]
    backend: Any
    track: Track
    user_specs: tuple[Any, ...] = ()
    oracles: Mapping[str, Callable[..., Any]] = field(default_factory=lambda: {})

    def build(self) -> Any:
        from vyre import ops
        from vyre.conform.backends import backend_named
        from vyre.conform.engine import Engine
        from vyre.conform.kernel_track import KernelEngine
        from vyre.conform.tensor_track import TensorEngine

        known = set(ops.known_op_ids())
        for spec in self.user_specs:
            if spec.id not in known:
                ops.register(spec)
        backend = backend_named(self.backend) if isinstance(self.backend, str) else self.backend
        plan = Plan.from_json(self.plan)
        if self.track is Track.KERNEL:
            return KernelEngine(plan, backend)
        if self.track is Track.TENSOR:
            return TensorEngine(plan, backend)
        return Engine(plan, backend, dict(self.oracles))


def run_one(engine: Any, unit: Unit) -> list[UnitRecord]:
    """A unit's results; an exception becomes a `UnitError` (a finding: "execution"),
    but after a SIGINT (`vyre.conform.interrupt`) it is the interrupt, re-raised."""
    try:
        return engine.run_unit(unit)
    except Exception as error:  # noqa: BLE001 - a unit that cannot run is a finding
        if interrupted():
            raise KeyboardInterrupt from error
        message = str(error).strip().splitlines()
        text = f"{type(error).__name__}: {message[0] if message else ''}"
        return [UnitError(text[:500])]


# -- the worker side ---------------------------------------------------------------

_ENGINES: dict[str, Any] = {}


def _engine_for(recipe: EngineRecipe) -> Any:
    digest = str(recipe.plan["digest"])
    engine = _ENGINES.get(digest)
    if engine is None:
        _ENGINES.clear()
        engine = _ENGINES[digest] = recipe.build()
    return engine


def _work(recipe: EngineRecipe, unit: Unit) -> tuple[str, list[UnitRecord]]:
    return unit.key, run_one(_engine_for(recipe), unit)


_forked_engine: Any = None


def _work_forked(unit: Unit) -> tuple[str, list[UnitRecord]]:
    return unit.key, run_one(_forked_engine, unit)


# -- the three executors ----------------------------------------------------------------


def run_units(
    units: Sequence[Unit],
    on_done: OnDone,
    *,
    engine: Any,
    recipe: Callable[[], EngineRecipe],
    jobs: int = 1,
    dask: str | None = None,
    gpus: int | None = None,
) -> None:
    """Run `units`, calling `on_done(unit, results)` as each finishes (longest
    first on pools and clusters, plan order in this process); `gpus`: the
    workers of a local cluster for the wgpu backend (default: one per GPU)."""
    if dask is not None:
        _run_dask(units, on_done, recipe(), dask, jobs, gpus)
        return
    if jobs <= 1 or len(units) <= 1:
        for unit in units:
            on_done(unit, run_one(engine, unit))
        return
    global _forked_engine
    _forked_engine = engine
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            _drain(units, on_done, lambda unit: pool.submit(_work_forked, unit), _wait_futures)
    finally:
        _forked_engine = None


def _wait_futures(pending: set[Any]) -> tuple[set[Any], set[Any]]:
    done, rest = wait(pending, return_when=FIRST_COMPLETED)
    return set(done), set(rest)


def _drain(
    units: Sequence[Unit],
    on_done: OnDone,
    submit: Callable[[Unit], Any],
    wait_some: Callable[[set[Any]], tuple[set[Any], set[Any]]],
) -> None:
    """Submit every unit (costliest first), then hand results over as they come."""
    by_key = {u.key: u for u in units}
    pending = {submit(unit) for unit in sorted(units, key=lambda u: -u.cost)}
    while pending:
        finished, pending = wait_some(pending)
        for future in finished:
            key, results = future.result()
            on_done(by_key[key], results)


def _run_dask(
    units: Sequence[Unit], on_done: OnDone, recipe: EngineRecipe, address: str, jobs: int, gpus: int | None
) -> None:
    import importlib

    gpu = recipe.backend == "wgpu"
    with dask_client(address, gpu=gpu, jobs=jobs, gpus=gpus, fork=recipe.backend == "interp") as client:
        distributed: Any = importlib.import_module("distributed")
        shipped = client.scatter(recipe, broadcast=True)

        def submit(unit: Unit) -> Any:
            return client.submit(_work, shipped, unit, key=f"vyre-{recipe.plan['digest'][:12]}-{unit.key}", pure=False)

        def wait_some(pending: set[Any]) -> tuple[set[Any], set[Any]]:
            done: set[Any] = set(distributed.wait(list(pending), return_when="FIRST_COMPLETED").done)
            return done, pending - done

        _drain(units, on_done, submit, wait_some)
