"""The Dask cluster a campaign runs on (`pip install 'vyre[dask]'`): a client of an
existing cluster, or a cluster of this host started for the run.

`dask_client(address, gpu=..., jobs=..., gpus=...)`, a context manager, yields a
`distributed.Client`:

- `address` a scheduler address (`tcp://host:8786`): the cluster's workers as
  they were started (one per GPU, each pinned to its GPU: see below);
- `address` "local" with `gpu=True` (a GPU backend): one worker process per GPU
  of this host (`vyre.runtime.adapters.gpu_worker_adapters`), worker k started
  with `VYRE_ADAPTER=gpu:k`, set by its nanny before the worker imports vyre,
  so it opens its device on its own GPU; `gpus` workers when given (a host whose
  only adapter is lavapipe gets one, or `gpus` all on `gpu:0`). The workers are
  spawned, never forked (this process may hold a device), and are no daemons, so
  each may keep a pool of processes of its own (the host side of float campaigns);
  they run without Dask's `MALLOC_TRIM_THRESHOLD_` (it doubled the CPU time of the
  campaigns' numpy oracles);
- `address` "local" with `gpu=False`: `jobs` worker processes, forked with
  `fork=True` (the interpreter), else spawned (a backend object of the caller's).

Every worker runs one task at a time (one thread). The cluster started here
listens on 127.0.0.1 only and is closed when the block ends.

A cluster of several hosts is started by hand, one worker per GPU, the same way:

    dask scheduler                                      # prints tcp://HOST:8786
    VYRE_ADAPTER=gpu:0 DASK_DISTRIBUTED__WORKER__DAEMON=False \\
        dask worker tcp://HOST:8786 --nworkers 1 --nthreads 1     # and gpu:1, gpu:2, ...
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Generator, Mapping
from typing import Any

__all__ = ["LOCAL", "MALLOC_TRIM", "DaskUnavailable", "dask_client", "workers_per_host"]

LOCAL = "local"
"""The address that starts a cluster of this host for the run."""

_HOST = {"host": "127.0.0.1", "protocol": "tcp://"}

MALLOC_TRIM = "MALLOC_TRIM_THRESHOLD_"
"""The glibc setting Dask's nannies give their workers (65536 by default)."""


class DaskUnavailable(RuntimeError):
    """A Dask run without `dask.distributed` installed."""


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise DaskUnavailable("--dask needs dask.distributed: pip install 'vyre[dask]'") from None


@contextlib.contextmanager
def dask_client(
    address: str, *, gpu: bool, jobs: int = 1, gpus: int | None = None, fork: bool = False
) -> Generator[Any]:
    """A client of the cluster at `address`, or of one started here for "local"
    (see the module doc); closed, with the cluster started here, when the block ends."""
    distributed = _distributed()
    if address != LOCAL:
        client = distributed.Client(address, timeout=30)
        try:
            yield client
        finally:
            client.close()
        return
    cluster = _gpu_cluster(distributed, gpus) if gpu else _cpu_cluster(distributed, jobs, fork)
    try:
        client = distributed.Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def _gpu_cluster(distributed: Any, gpus: int | None) -> Any:
    from vyre.runtime.adapters import gpu_worker_adapters

    adapters = gpu_worker_adapters(gpus)
    workers = {
        f"vyre-gpu-{k}": {
            "cls": distributed.Nanny,
            "options": {
                **_HOST, "nthreads": 1, "env": {"VYRE_ADAPTER": adapter}, "memory_limit": 0,
                "silence_logs": 40,
            },
        }
        for k, adapter in enumerate(adapters)
    }
    scheduler = {"cls": distributed.Scheduler, "options": {**_HOST, "dashboard": False, "dashboard_address": ":0"}}
    settings = {
        "distributed.worker.multiprocessing-method": "spawn",
        "distributed.worker.daemon": False,
        # Dask's default makes glibc give memory back at every free of more than 64 KiB,
        # which doubles the CPU time of numpy's large temporaries (the campaigns' oracles)
        f"distributed.nanny.pre-spawn-environ.{MALLOC_TRIM}": None,
    }
    with _config().set(settings):
        return distributed.SpecCluster(workers=workers, scheduler=scheduler, silence_logs=40)


def _cpu_cluster(distributed: Any, jobs: int, fork: bool) -> Any:
    # interp workers fork (no __main__ re-import); any other backend spawns fresh
    # processes (never fork a process holding a device): guard __main__ then
    with _config().set({"distributed.worker.multiprocessing-method": "fork" if fork else "spawn"}):
        return distributed.LocalCluster(
            n_workers=max(1, jobs), threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40,
        )


def _config() -> Any:
    return importlib.import_module("dask").config


def workers_per_host(client: Any) -> Mapping[str, int]:
    """How many workers of the cluster run on each host (by the host of their address)."""
    distributed = _distributed()
    counts: dict[str, int] = {}
    for address in client.nthreads():
        host = str(distributed.comm.get_address_host(address))
        counts[host] = counts.get(host, 0) + 1
    return counts
