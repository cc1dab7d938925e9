"""Scaling of exhaustive float campaigns over the GPUs of one host.

    python bench/scale.py                                   # f32 exp2, all 2**32 inputs
    python bench/scale.py --range 0x38000000:0x10000000     # a quick run: 16 chunks of 2**24
    python bench/scale.py --op sqrt --gpus 1,2,4 --jobs 16
    python bench/scale.py --truth bench/truths/f32-functions.truth.jsonl   # GPU-bound
    python bench/scale.py --op exp2,sin,tan,asin,acos,atan --truth bench/truths/f32-functions.truth.jsonl

`--op` takes one campaign or several, run together: one after the other in this process,
submitted together to Dask (`run_all_on_cluster`, as `vyre-conform floats --dask` runs its ops).
One summary line per configuration, each over the same inputs:

  host      the host side alone (operands, exact oracle, sums) in a pool of every core, no
            GPU: the most inputs/s any number of GPUs reaches on this host
  gpu       the kernels alone on one GPU (no oracle; a dispatch for each gang of chunks, the
            next submitted before the last one's read-back, as a run against a truth checks
            them): the most inputs/s one GPU reaches
  1 here    one GPU in this process, as `vyre-conform floats` runs without --dask (a pool
            of every core beside the GPU)
  N dask    N GPU workers of a local Dask cluster, as `vyre-conform floats --dask --gpus N`
            runs: worker k on VYRE_ADAPTER=gpu:k, each with its own pool of the host's
            cores divided by N (or --jobs processes each)

With `--repeat N` each configuration runs N times and the fastest counts (a whole
campaign against a truth takes a fraction of a second). The Dask lines give the speedup
over 1 worker, the efficiency (speedup / N) and what the last added GPU brought (the gain over the line before, per GPU added). The cluster's start,
each worker's kernel compile and its pool's start are left out of the times (`warm_up`).
Last, the ceiling of N GPUs (the lower of host and N x gpu: which side bounds the run) and
whether every configuration found the same chunk records (mismatches and first
mismatches; only seconds may differ). `--json FILE` appends one JSON object per line.

`--truth FILE`: the configurations run against a stored truth (`vyre.conform.float_truth`):
each chunk's expected checksum comes from FILE, the host computes no oracle, and a campaign
over an exhaustive space has no host work left but the dispatches, so the GPUs bound it. The
chunks FILE lacks are computed first by the oracle in a pool of every core (no GPU) and
appended to it (the file is created when missing), outside every timed part; `host` is then
left out (there is no host side to time) and the ceiling is N x one GPU. The truths of
the F32 functions exp2, sin, tan, asin, acos and atan are in `bench/truths/`.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the repository on sys.path)

from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.conform import float_campaign
from vyre.conform.float_campaign import Campaign, chunks_of, run_chunk, run_chunks, worker_pool
from vyre.conform.float_truth import Truth

Chunks = list[tuple[int, int]]


def _range(text: str) -> tuple[int, int]:
    first, _, count = text.partition(":")
    return int(first, 0), int(count, 0)


def _counts(text: str | None, gpus: int) -> list[int]:
    """The worker counts to run, always 1 first (the base of the speedups)."""
    if text:
        counts = sorted({int(part) for part in text.split(",") if part.strip()} | {1})
    elif gpus <= 4:
        counts = list(range(1, gpus + 1))
    else:
        counts = [*(1 << k for k in range(gpus.bit_length()) if 1 << k < gpus), gpus]
    if counts[0] < 1:
        raise SystemExit(f"--gpus takes positive worker counts, got {text!r}")
    return counts


def _normal(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The records less their seconds, by start: what must equal across configurations."""
    rows = [(r["campaign"], r["start"], r["length"], r["mismatches"], json.dumps(r["first"])) for r in records]
    return sorted(rows)


Work = list[tuple[Campaign, Chunks]]
"""The campaigns of a run, each with its chunks."""


def host_alone(work: Work, jobs: int) -> tuple[float, None]:
    """Seconds of the host side of every chunk in a pool of `jobs` (operands, oracle, sums)."""
    from vyre.conform.float_campaign import _host_piece, _Piece, _pieces  # pyright: ignore[reportPrivateUsage]

    tasks = [_Piece(c, s, n) for c, chunks in work for start, length in chunks for s, n in _pieces(start, length)]
    with worker_pool(jobs) as pool:
        pool.map(_host_piece, tasks[: min(len(tasks), jobs)], chunksize=1)  # warm: imports, tables
        began = time.perf_counter()
        pool.map(_host_piece, tasks, chunksize=1)
        return time.perf_counter() - began, None


def _best(runs: list[tuple[float, Any]]) -> tuple[float, Any]:
    """The fastest of repeated runs (their results are the same)."""
    return min(runs, key=lambda run: run[0])


def gpu_alone(work: Work, backend: str) -> tuple[float, None]:
    """Seconds of the chunks' kernels alone on this process's GPU (no oracle): the most
    inputs/s one GPU reaches."""
    import numpy as np

    from vyre.conform.float_campaign import Kernels, _gang, _groups, _submit_sums  # pyright: ignore[reportPrivateUsage]

    kernels = [Kernels(campaign).sums for campaign, _ in work]
    for campaign, _ in work:
        run_chunk(campaign, 0, min(campaign.size, 1 << 14), backend)  # compile
    began = time.perf_counter()
    flying: Any = None
    for (campaign, chunks), kernel in zip(work, kernels, strict=True):
        stored = [(0, 0)] * len(chunks)  # as though a truth gave every chunk: gangs where they apply
        n = 0
        while n < len(chunks):
            size = _gang(campaign, chunks, stored, n)
            start, length = chunks[n][0], sum(length for _, length in chunks[n : n + size])
            params = np.array([start, length], dtype=np.uint32)
            launched = _submit_sums(backend, kernel, params, _groups(length))
            if flying is not None:
                flying()  # the previous gang's read-back, while this one runs (as run_chunks does)
            flying = launched
            n += size
    if flying is not None:
        flying()
    return time.perf_counter() - began, None


def build_truth(campaign: Campaign, chunks: Chunks, path: Path, jobs: int) -> Truth:
    """The stored truth of the chunks at `path`: the chunks it lacks computed first by the
    oracle in a pool of `jobs` (no GPU) and appended, chunk by chunk."""
    from vyre.conform.float_campaign import _add_sums, _host_piece, _Piece, _pieces  # pyright: ignore[reportPrivateUsage]
    from vyre.conform.float_campaign import oracle_description, truth_identity
    from vyre.conform.float_truth import TruthRecord, TruthWriter, load_truth

    identity = truth_identity(campaign)
    stored = load_truth(path, identity, building=True)
    missing = [(s, n) for s, n in chunks if stored.expected(s, n) is None]
    if missing:
        writer = TruthWriter(path, identity, oracle_description(campaign))
        began = time.perf_counter()
        with worker_pool(jobs) as pool:
            for start, length in missing:
                pieces = [_Piece(campaign, s, n) for s, n in _pieces(start, length)]
                sums = _add_sums(pool.map(_host_piece, pieces, chunksize=1))
                writer.add(TruthRecord(campaign.name, start, length, sums))
        print(f"truth {path}: {len(missing)} chunks computed by the oracle in {time.perf_counter() - began:.1f} s"
              f" ({jobs} processes, not timed)", flush=True)
    truth = load_truth(path, identity)
    print(f"truth {path}: {truth.describe()}", flush=True)
    return truth


def one_here(
    work: Work, backend: str, jobs: int, truths: dict[str, Truth | None], repeat: int = 1
) -> tuple[float, list[dict[str, Any]]]:
    """Seconds (the best of `repeat` runs) and records of the chunks on this process's
    GPU (`run_chunks`, one campaign after the other, a pool of `jobs`)."""
    from vyre.conform.float_campaign import Kernels

    kernels = {campaign.name: Kernels(campaign) for campaign, _ in work}  # prepared once, as a Dask worker keeps them
    for campaign, _ in work:
        run_chunk(campaign, 0, min(campaign.size, 1 << 14), backend)  # compile
    with worker_pool(jobs) as pool:
        pool.map(abs, range(jobs))  # the pool's processes are up
        runs: list[tuple[float, Any]] = []
        for _ in range(repeat):
            began = time.perf_counter()
            records = [
                r.to_json()
                for campaign, chunks in work
                for r in run_chunks(
                    campaign, chunks, backend, pool=pool, truth=truths[campaign.name], kernels=kernels[campaign.name]
                )
            ]
            runs.append((time.perf_counter() - began, records))
        return _best(runs)


def on_dask(
    campaigns: list[Campaign],
    span: tuple[int, int] | None,
    backend: str,
    workers: int,
    jobs: int,
    truths: dict[str, Truth | None],
    repeat: int = 1,
) -> tuple[float, list[dict[str, Any]], list[str]]:
    """Seconds (the best of `repeat` runs) and records of the chunks on a local cluster
    of `workers` GPU workers (`run_all_on_cluster`: every campaign's tasks submitted together)."""
    from vyre.conform.float_dask import campaign_client, describe_workers, run_all_on_cluster, warm_up

    uses = {name: (truth, None) for name, truth in truths.items()}
    with campaign_client(backend, "local", jobs, workers) as client:
        described = describe_workers(client)
        for campaign in campaigns:
            warm_up(client, campaign, backend, jobs)
        runs: list[tuple[float, Any]] = []
        for _ in range(repeat):
            began = time.perf_counter()
            found = run_all_on_cluster(client, campaigns, backend, jobs=jobs, span=span, truths=uses)
            runs.append((time.perf_counter() - began, [r for c in campaigns for r in found[c.name]]))
        seconds, records = _best(runs)
        return seconds, records, described


def _line(label: str, inputs: int, seconds: float, extra: str = "") -> str:
    rate = inputs / seconds if seconds > 0 else float("inf")
    return f"{label:<10} {inputs:>14,} inputs in {seconds:8.3f} s: {rate / 1e6:10,.1f} M inputs/s{extra}"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--op", default="exp2",
        help="campaign op, or several comma-separated, run together (default: exp2, the correctly rounded vyre.fexp2)",
    )
    parser.add_argument("--format", default="f32", help="f32, f16 or bf16 (default: f32)")
    parser.add_argument("--range", type=_range, metavar="FIRST:COUNT", help="the chunks meeting these inputs (default: all)")
    parser.add_argument("--gpus", help="comma-separated worker counts to run (default: 1..G, G the host's GPUs)")
    parser.add_argument("--jobs", type=int, default=0, help="host processes per Dask worker (default 0: cores / workers)")
    parser.add_argument("--backend", default="wgpu", help="wgpu (default) or interp")
    parser.add_argument("--skip", default="", help="comma-separated: host, gpu, here (configurations to leave out)")
    parser.add_argument("--json", type=Path, help="append one JSON object per configuration here")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each configuration, the best timed (default 1)")
    parser.add_argument(
        "--truth", type=Path, metavar="FILE",
        help="run against this stored truth, built first (outside the timings) where it lacks chunks"
        " (default: none, the host computes the oracle)",
    )
    return parser.parse_args()


@quiet_on_closed_pipe
def main() -> None:
    from vyre.runtime.adapters import adapter_listing, gpu_worker_adapters

    args = _args()
    campaigns = [Campaign(op.strip(), args.format) for op in args.op.split(",") if op.strip()]
    work: Work = [(campaign, chunks_of(campaign, span=args.range)) for campaign in campaigns]
    inputs = sum(length for _, chunks in work for _, length in chunks)
    cores = os.cpu_count() or 1
    gpus = len(set(gpu_worker_adapters()))
    names = ", ".join(campaign.name for campaign in campaigns)
    chunk_count = sum(len(chunks) for _, chunks in work)
    print(f"{names}: {chunk_count} chunks of {float_campaign.CHUNK:,}, {inputs:,} inputs; {cores} cores")
    for line in adapter_listing():
        print(f"  {line}")
    rows: list[dict[str, Any]] = []
    results: dict[str, list[tuple[Any, ...]]] = {}
    skip = {part.strip() for part in args.skip.split(",") if part.strip()}
    truths: dict[str, Truth | None] = {
        campaign.name: build_truth(campaign, chunks, args.truth, cores) if args.truth is not None else None
        for campaign, chunks in work
    }
    truth = args.truth
    if truth is not None:
        skip.add("host")  # no host side left to time

    def emit(label: str, seconds: float, extra: str = "", **more: Any) -> None:
        print(_line(label, inputs, seconds, extra), flush=True)
        if truth is not None:
            more["truth"] = str(args.truth)
        rows.append({"config": label, "campaign": names, "inputs": inputs, "seconds": round(seconds, 3),
                     "inputs_per_s": inputs / seconds if seconds else None, "cores": cores, **more})

    host_rate = 0.0
    if "host" not in skip:
        seconds, _ = host_alone(work, cores)
        host_rate = inputs / seconds
        emit("host", seconds, f"  ({cores} processes, no GPU)")
    gpu_rate = 0.0
    if "gpu" not in skip:
        seconds, _ = _best([gpu_alone(work, args.backend) for _ in range(max(1, args.repeat))])
        gpu_rate = inputs / seconds
        emit("gpu", seconds, "  (kernels alone, one GPU, no oracle)")
    if "here" not in skip:
        seconds, records = one_here(work, args.backend, cores, truths, max(1, args.repeat))
        results["1 here"] = _normal(records)
        emit("1 here", seconds, f"  ({cores} host processes)")
    previous: tuple[int, float] | None = None
    base = 0.0
    for count in _counts(args.gpus, gpus):
        seconds, records, described = on_dask(
            campaigns, args.range, args.backend, count, args.jobs, truths, max(1, args.repeat)
        )
        results[f"{count} dask"] = _normal(records)
        rate = inputs / seconds
        base = base or rate  # 1 worker comes first
        speedup = rate / base
        gain = ""
        if previous is not None:
            gain = f", {(rate - previous[1]) / previous[1] / (count - previous[0]):+.0%} per added GPU"
        jobs = args.jobs or max(1, cores // count)
        emit(f"{count} dask", seconds, f"  ({jobs} host processes each) speedup {speedup:.2f},"
             f" efficiency {speedup / count:.0%}{gain}", workers=described, speedup=speedup)
        previous = (count, rate)
    if truth is not None and gpu_rate:
        top = _counts(args.gpus, gpus)[-1]
        print(f"ceiling with {top} GPUs: {top * gpu_rate / 1e6:,.1f} M inputs/s, set by the GPUs (the stored truth:"
              f" no host side; one GPU {gpu_rate / 1e6:,.1f})")
    if host_rate and gpu_rate:
        top = _counts(args.gpus, gpus)[-1]
        bound = "the host side" if host_rate < top * gpu_rate else "the GPUs"
        print(f"ceiling with {top} GPUs: {min(host_rate, top * gpu_rate) / 1e6:,.1f} M inputs/s, set by {bound}"
              f" (host {host_rate / 1e6:,.1f}, one GPU {gpu_rate / 1e6:,.1f})")
    same = len({json.dumps(v) for v in results.values()}) <= 1
    none: list[tuple[Any, ...]] = []
    bad = sum(row[3] for row in next(iter(results.values()), none))
    print(f"results equal in every configuration: {'yes' if same else 'NO'} ({bad} mismatches)")
    if args.json:
        with args.json.open("a") as out:
            for row in rows:
                out.write(json.dumps({**row, "equal": same}) + "\n")


if __name__ == "__main__":
    main()
