"""Float campaigns (`vyre.conform.float_campaign`) spread over a Dask cluster whose
workers each own one GPU (`vyre.conform.cluster`: "local" starts one worker per GPU
of this host, each pinned with `VYRE_ADAPTER=gpu:k`).

The chunks a run owes (`float_campaign.chunks_of`: its shard and range, less those
the checkpoint holds) are cut into tasks of consecutive chunks, in input order. A
worker runs a task as one process runs a campaign (`float_campaign.run_chunks`: the
host side of the next chunk in the worker's own pool of processes while its GPU
checks the current one) and returns the chunks' records. This process alone
appends them to the checkpoint, task by task as the tasks finish, so the checkpoint
is the one a one-GPU run writes: the same records (a chunk's record depends on the
chunk alone, never on the worker that ran it), in another order and with other
seconds. `floats-summary` reads it the same way, and a rerun of the same command
resumes from it; an interrupted task's chunks run again. Several campaigns
(`run_all_on_cluster`, as `vyre-conform floats --dask` runs its ops) are submitted
together: the scheduler's round trips (some 15 ms a submission on a local
cluster) are paid once, and a worker done with one campaign goes on with the next.

With a stored truth (`float_truth`) each task carries the part of it its chunks
need (`Truth.only`: two sums a chunk), so the workers read no file and need no
file system shared with this process; a worker computes the oracle only for the
chunks the truth lacks, returns their sums with the records, and this process
hands them to `save_truth`. The records are those of a one-GPU run, with or
without a truth. When the truth gives every chunk of an exhaustive space, the
tasks are larger (`MAX_STORED_BATCH` chunks at most, checked in gangs of one
dispatch each: `float_campaign.GANG`) and fewer (`stored_tasks_per_worker`: 1,
2 or 4 a worker, the fewest whose tasks still share the run evenly among the
workers): every task boundary drains a worker's GPU, where inside a task the
next gang is submitted before the last one is read back.

Host processes per worker (`jobs`): when 0, the host's cores shared among the
workers of that host; one process (no pool) on a daemonic worker, which may have
no children (`dask worker` starts daemons unless DASK_DISTRIBUTED__WORKER__DAEMON
is False), and with the interpreter, whose workers are the pool (`jobs` of them on
a local cluster, 2 by default). The pool's processes start without the
`MALLOC_TRIM_THRESHOLD_` a nanny gives its worker: with it, glibc returns the
memory of every large numpy temporary at once and the oracle takes twice the CPU
time (measured: f32 exp2 108 -> 232 ns an input, neg 14 -> 23).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from vyre.conform.cluster import LOCAL, MALLOC_TRIM, dask_client, workers_per_host
from vyre.conform.float_campaign import GANG, Campaign, Kernels, chunks_of, run_chunk, run_chunks, worker_pool
from vyre.conform.float_checkpoint import append_chunk, finished_starts
from vyre.conform.float_truth import Sums, Truth, TruthRecord

__all__ = [
    "campaign_client",
    "describe_workers",
    "run_all_on_cluster",
    "run_campaign_dask",
    "run_on_cluster",
    "stored_tasks_per_worker",
    "warm_up",
]

Record = dict[str, Any]

MAX_BATCH = 8
"""Chunks per task at most (2**27 inputs): what an interruption can cost a worker."""

MAX_STORED_BATCH = 16 * GANG
"""Chunks per task at most when no chunk has host work (an exhaustive space whose
sums a truth gives): the GPU checks them in gangs of `GANG` (a few ms each), so
a task of a whole F32 space (256 chunks, about 0.1 s of an H200) costs an
interruption little, and fewer tasks cost fewer round trips through the
scheduler."""

TruthUse = tuple[Truth | None, Callable[[TruthRecord], None] | None]
"""A campaign's truth and where the sums its oracle computes go (`run_all_on_cluster`)."""


def run_campaign_dask(
    campaign: Campaign,
    backend: str,
    address: str = LOCAL,
    *,
    checkpoint: Path | None = None,
    jobs: int = 0,
    gpus: int | None = None,
    shard: tuple[int, int] = (0, 1),
    span: tuple[int, int] | None = None,
    progress: Callable[[Record], None] | None = None,
    truth: Truth | None = None,
    save_truth: Callable[[TruthRecord], None] | None = None,
) -> list[Record]:
    """Every chunk of `campaign` this run owes (see the module doc), on the
    cluster at `address` ("local": one worker per GPU here, `gpus` workers when
    given; with the interpreter `jobs` workers, default 2); the records of the
    chunks run, by start. `truth` and `save_truth` as in
    `float_campaign.run_chunks`."""
    if not chunks_of(campaign, shard=shard, span=span, done=finished_starts(checkpoint, campaign.name)):
        return []  # nothing owed: no cluster to start
    with campaign_client(backend, address, jobs, gpus) as client:
        return run_on_cluster(
            client, campaign, backend, checkpoint=checkpoint, jobs=jobs, shard=shard, span=span, progress=progress,
            truth=truth, save_truth=save_truth,
        )  # fmt: skip


def campaign_client(backend: str, address: str = LOCAL, jobs: int = 0, gpus: int | None = None) -> Any:
    """The client (a context manager, `cluster.dask_client`) campaigns on `backend` run
    on: at `address`, or for "local" one worker per GPU here (`gpus` when given), or
    with the interpreter `jobs` forked workers (default 2)."""
    interp = backend == "interp"
    return dask_client(address, gpu=not interp, jobs=(jobs or 2) if interp else 1, gpus=gpus, fork=interp)


def run_on_cluster(
    client: Any,
    campaign: Campaign,
    backend: str,
    *,
    checkpoint: Path | None = None,
    jobs: int = 0,
    shard: tuple[int, int] = (0, 1),
    span: tuple[int, int] | None = None,
    progress: Callable[[Record], None] | None = None,
    truth: Truth | None = None,
    save_truth: Callable[[TruthRecord], None] | None = None,
) -> list[Record]:
    """`run_campaign_dask` on the cluster of `client` (which stays open, for
    the next campaign)."""
    runs = run_all_on_cluster(
        client, [campaign], backend, checkpoint=checkpoint, jobs=jobs, shard=shard, span=span, progress=progress,
        truths={campaign.name: (truth, save_truth)},
    )  # fmt: skip
    return runs[campaign.name]


def run_all_on_cluster(
    client: Any,
    campaigns: Sequence[Campaign],
    backend: str,
    *,
    checkpoint: Path | None = None,
    jobs: int = 0,
    shard: tuple[int, int] = (0, 1),
    span: tuple[int, int] | None = None,
    progress: Callable[[Record], None] | None = None,
    truths: Mapping[str, TruthUse] | None = None,
) -> dict[str, list[Record]]:
    """`run_on_cluster` of several campaigns at once: the tasks of all of them
    are submitted together, so the cluster's round trips are paid once for the
    lot, not once a campaign, and a worker that finishes its share of one
    campaign goes on with the next. `truths`: by campaign name, its truth and
    where the sums the oracle computes go (as `truth` and `save_truth`). The
    records of each campaign, by start."""
    import importlib

    distributed: Any = importlib.import_module("distributed")
    uses = truths or {}

    def truth_of(campaign: Campaign) -> Truth | None:
        return uses.get(campaign.name, (None, None))[0]

    owed = {
        campaign.name: chunks_of(campaign, shard=shard, span=span, done=finished_starts(checkpoint, campaign.name))
        for campaign in campaigns
    }
    out: dict[str, list[Record]] = {campaign.name: [] for campaign in campaigns}
    if not any(owed.values()):
        return out
    per_host = dict(workers_per_host(client))
    workers = max(1, len(client.nthreads()))
    stored = all(  # no host work in any task: larger tasks
        campaign.indexed
        and (truth := truth_of(campaign)) is not None
        and all(truth.expected(*chunk) is not None for chunk in owed[campaign.name])
        for campaign in campaigns
    )
    lengths = [len(owed[campaign.name]) for campaign in campaigns]
    most, per_worker = (MAX_STORED_BATCH, stored_tasks_per_worker(lengths, workers)) if stored else (MAX_BATCH, 4)
    total = sum(lengths)
    tasks: dict[Any, Campaign] = {}
    for campaign in campaigns:
        truth = truth_of(campaign)
        for batch in _batches(owed[campaign.name], workers, most, total, per_worker):
            part = truth.only(batch) if truth is not None else None
            future = client.submit(_run_batch, campaign, batch, backend, jobs, per_host, part, pure=False)
            tasks[future] = campaign
    for future in distributed.as_completed(list(tasks)):
        campaign = tasks[future]
        save_truth = uses.get(campaign.name, (None, None))[1]
        results: list[tuple[Record, Sums | None]] = future.result()
        for record, sums in results:
            if save_truth is not None and sums is not None:
                save_truth(TruthRecord(campaign.name, int(record["start"]), int(record["length"]), sums))
            if checkpoint is not None:
                append_chunk(checkpoint, record)
            if progress is not None:
                progress(record)
            out[campaign.name].append(record)
    return {name: sorted(records, key=lambda record: int(record["start"])) for name, records in out.items()}


def _task_size(total: int, workers: int, most: int, per_worker: int) -> int:
    """Chunks a task: at most `most`, `per_worker` tasks a worker over `total`
    chunks where there are enough; a whole number of gangs from `GANG` up."""
    size = max(1, min(most, -(-total // (per_worker * workers))))
    if size > GANG:
        size -= size % GANG
    return size


def _batches(
    chunks: Sequence[tuple[int, int]],
    workers: int,
    most: int = MAX_BATCH,
    total: int | None = None,
    per_worker: int = 4,
) -> list[list[tuple[int, int]]]:
    """Consecutive chunks in tasks of `_task_size` (so the workers finish
    together; `total`: the chunks of every campaign of the run, default these)."""
    size = _task_size(len(chunks) if total is None else total, workers, most, per_worker)
    return [list(chunks[i : i + size]) for i in range(0, len(chunks), size)]


def stored_tasks_per_worker(lengths: Sequence[int], workers: int) -> int:
    """Tasks a worker for a run against a truth that gives every chunk (every
    chunk the same GPU work, tasks of one campaign each, `lengths` chunks a
    campaign): the fewest of 1, 2 or 4 whose tasks, handed in order to the
    worker free first, finish within 5 % of an even share; else the one that
    finishes first. Few tasks because each task boundary drains a worker's
    GPU (the last read-back, the records' trip through the scheduler, the next
    task's first submission), where inside a task the next gang is submitted
    before the last one is read back."""
    total = sum(lengths)
    even = -(-total // max(1, workers))
    best: tuple[int, int] | None = None
    for per_worker in (1, 2, 4):
        size = _task_size(total, workers, MAX_STORED_BATCH, per_worker)
        loads = [0] * max(1, workers)
        for n in lengths:
            for first in range(0, n, size):
                loads[loads.index(min(loads))] += min(size, n - first)
        finish = max(loads)
        if finish * 20 <= even * 21:
            return per_worker
        if best is None or finish < best[0]:
            best = (finish, per_worker)
    assert best is not None
    return best[1]


def warm_up(client: Any, campaign: Campaign, backend: str, jobs: int = 0) -> None:
    """Have every worker compile the campaign's kernel (one small chunk, recorded
    nowhere) and start its pool of host processes, so a timed run that follows
    measures the checking alone."""
    per_host = dict(workers_per_host(client))
    futures = [
        client.submit(_warm, campaign, backend, jobs, per_host, workers=[address], allow_other_workers=False, pure=False)
        for address in client.nthreads()
    ]
    client.gather(futures)


def describe_workers(client: Any) -> list[str]:
    """One line per worker: its address, its `VYRE_ADAPTER` and the adapter it runs on."""
    found: Mapping[str, str] = client.run(_adapter_here)
    return [f"{address}: {found[address]}" for address in sorted(found)]


# -- the worker side ---------------------------------------------------------------

_POOL: dict[int, Any] = {}
"""The worker's pool of host processes, by size (one at a time), kept between tasks."""

_KERNELS: dict[Campaign, Kernels] = {}
"""The worker's prepared kernels, by campaign, kept between tasks."""


def _run_batch(
    campaign: Campaign,
    chunks: list[tuple[int, int]],
    backend: str,
    jobs: int,
    per_host: Mapping[str, int],
    truth: Truth | None = None,
) -> list[tuple[Record, Sums | None]]:
    """The records of the chunks, each with the oracle's sums when this worker
    computed them (None: the truth gave them)."""
    pool = _host_pool(_host_jobs(backend, jobs, per_host))
    computed: dict[int, Sums] = {}

    def keep(record: TruthRecord) -> None:
        computed[record.start] = record.sums

    results = run_chunks(
        campaign, chunks, backend, jobs=1, pool=pool, truth=truth, save_truth=keep, kernels=_kernels(campaign)
    )
    return [(result.to_json(), computed.get(result.start)) for result in results]


def _kernels(campaign: Campaign) -> Kernels:
    kernels = _KERNELS.get(campaign)
    if kernels is None:
        kernels = _KERNELS[campaign] = Kernels(campaign)
    return kernels


def _warm(campaign: Campaign, backend: str, jobs: int, per_host: Mapping[str, int]) -> None:
    _host_pool(_host_jobs(backend, jobs, per_host))
    _kernels(campaign)
    run_chunk(campaign, 0, min(campaign.size, 1 << 14), backend)


def _host_jobs(backend: str, jobs: int, per_host: Mapping[str, int]) -> int:
    if backend == "interp" or multiprocessing.current_process().daemon:
        return 1
    if jobs:
        return jobs
    import importlib

    distributed: Any = importlib.import_module("distributed")
    host = str(distributed.comm.get_address_host(distributed.get_worker().address))
    return max(1, (os.cpu_count() or 1) // max(1, per_host.get(host, 1)))


def _host_pool(jobs: int) -> Any:
    if jobs <= 1:
        return None
    if jobs not in _POOL:
        for pool in _POOL.values():
            pool.terminate()
        _POOL.clear()
        trim = os.environ.pop(MALLOC_TRIM, None)  # a nanny's setting: not for the oracle's processes
        try:
            _POOL[jobs] = worker_pool(jobs)
        finally:
            if trim is not None:
                os.environ[MALLOC_TRIM] = trim
    return _POOL[jobs]


def _adapter_here() -> str:
    from vyre.runtime.adapters import adapter_info, choose_adapter

    wanted = os.environ.get("VYRE_ADAPTER", "")
    try:
        found = str(adapter_info(choose_adapter()))
    except (RuntimeError, ValueError) as error:
        found = f"none ({error})"
    return f"VYRE_ADAPTER={wanted or '(unset)'}: {found}"
