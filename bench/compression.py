"""Decompression of many streams on the GPU against CPython's `zlib.decompress`
on all CPU cores, same machine, same run (docs/compression.md).

    python bench/compression.py [--rows many,large] [--streams N] [--stream-kib K]
                                [--large-streams N] [--large-mib M] [--trials 3] [--out FILE]

Rows (one `compression.zlib_decompress` batch each; text-like data of a Zipf
vocabulary with numbers, zlib level 6, ratio about 3.6):

- `many`: `--streams` streams of `--stream-kib` KiB of output (10,000 x 64 KiB;
  lavapipe: 256 x 16 KiB);
- `large`: `--large-streams` streams of `--large-mib` MiB (64 x 4 MiB; lavapipe:
  4 x 256 KiB).

Columns:

- **device**: the batched plan (`plan_many`: one invocation per stream, rounds
  of at most `STEPS` steps until every stream is done) with the compressed
  streams already on the device and the outputs left there; the time runs
  from the first submission to the last flag readback (the planner, the
  uploads of its small tables and the flag readbacks between rounds are in it;
  no input upload, no output readback);
- **end to end**: `ops.evaluate_many` from host `bytes` to host arrays (checks,
  planning, upload, rounds, readback, the output split);
- **CPU**: `zlib.decompress` of every stream over `os.cpu_count()` processes
  (the streams are in the workers before the timing; each worker returns a
  CRC-32 per stream, not the bytes).

Every GPU output is checked against `zlib.decompress` (CRC-32 and length of
each stream; a mismatch prints WRONG and the script exits non-zero). A row
whose first output capacities (8x the input) pass 1 GiB runs as several
batches, one after the other (one storage binding holds a batch's outputs).
Median of `--trials`.
"""

from __future__ import annotations

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout on sys.path)

import argparse
import json
import os
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from _common import cpu_name, gpu_is_cpu, gpu_name, median, table
from vyre.cli.pipes import quiet_on_closed_pipe

OP = "compression.zlib_decompress"
CHUNK_BYTES = 1 << 30
"""Output capacity of one batch at most (a storage binding: 2 GiB or less on
many adapters); a larger row is several batches, one after the other."""
HEADER = ["row", "streams", "output", "ratio", "device ms", "end to end ms", "CPU zlib ms", "device vs CPU",
          "e2e vs CPU", "checked"]

_STREAMS: list[bytes] = []
"""The compressed streams, set before the CPU pool forks (its workers read them)."""


@dataclass
class Workload:
    name: str
    streams: int
    output_bytes: int


def text(rng: np.random.Generator, n: int) -> bytes:
    """n bytes of text-like data: Zipf-distributed words of a 2,000-word
    vocabulary, and numbers (zlib level 6 compresses it about 3.6x)."""
    vocabulary = [bytes(rng.integers(97, 123, int(rng.integers(2, 11)), dtype=np.uint8)) for _ in range(2000)]
    parts: list[bytes] = []
    size = 0
    while size < n:
        if rng.integers(0, 10):
            word = vocabulary[int(rng.zipf(1.3)) % len(vocabulary)]
        else:
            word = str(int(rng.integers(0, 100_000))).encode()
        parts.append(word)
        size += len(word) + 1
    return b" ".join(parts)[:n]


def workload_streams(w: Workload) -> list[bytes]:
    """`w.streams` zlib streams (at most 64 distinct ones and 32 MiB of distinct
    text, repeated)."""
    rng = np.random.default_rng(len(w.name))
    count = max(1, min(64, w.streams, (32 << 20) // w.output_bytes))
    distinct = [zlib.compress(text(rng, w.output_bytes), 6) for _ in range(count)]
    return [distinct[k % len(distinct)] for k in range(w.streams)]


def chunks(streams: Sequence[bytes]) -> list[tuple[int, int]]:
    """(first, stop) of consecutive groups of streams whose first output
    capacities (`initial_capacity`) total at most CHUNK_BYTES: one storage
    binding holds a batch's outputs."""
    from vyre.kernels.families.compression import initial_capacity

    out: list[tuple[int, int]] = []
    first, total = 0, 0
    for k, s in enumerate(streams):
        need = initial_capacity(len(s)) + 4
        if k > first and total + need > CHUNK_BYTES:
            out.append((first, k))
            first, total = k, 0
        total += need
    out.append((first, len(streams)))
    return out


def _crc_slice(bounds: tuple[int, int]) -> list[tuple[int, int]]:
    return [(zlib.crc32(out), len(out)) for out in (zlib.decompress(s) for s in _STREAMS[bounds[0] : bounds[1]])]


def cpu_time(pool: ProcessPoolExecutor, workers: int, trials: int) -> tuple[float, list[tuple[int, int]]]:
    chunks = workers * 4
    bounds = [(len(_STREAMS) * k // chunks, len(_STREAMS) * (k + 1) // chunks) for k in range(chunks)]
    results: list[list[tuple[int, int]]] = []

    def once() -> float:
        start = time.perf_counter()
        results.append([r for part in pool.map(_crc_slice, bounds) for r in part])
        return time.perf_counter() - start

    once()
    return median([once() for _ in range(trials)]), results[-1]


def device_run(streams: Sequence[bytes]) -> tuple[Callable[[], float], Callable[[], list[tuple[int, int]]]]:
    """A timer of the batched plans (one per chunk) with the streams on the
    device, and a reader of (CRC-32, length) of each output of the last run."""
    parts = [_device_chunk(streams[a:b]) for a, b in chunks(streams)]

    def once() -> float:
        return sum(timer() for timer, _ in parts)

    def outputs() -> list[tuple[int, int]]:
        return [r for _, read in parts for r in read()]

    return once, outputs


def _device_chunk(streams: Sequence[bytes]) -> tuple[Callable[[], float], Callable[[], list[tuple[int, int]]]]:
    import vyre
    from vyre.ir import DataType
    from vyre.ops import registry
    from vyre.kernels.spec import batch_starts
    from vyre.kernels import run as kernel_run

    spec = registry.get_kernel(OP)
    plan_many = spec.plan_many
    assert plan_many is not None
    sizes = [{"data": len(s)} for s in streams]
    empty: list[dict[str, int]] = [{} for _ in streams]
    starts = batch_starts(DataType.BYTES, [len(s) for s in streams])
    laid = np.zeros(4 * starts[-1], dtype=np.uint8)
    for k, s in enumerate(streams):
        laid[4 * starts[k] : 4 * starts[k] + len(s)] = np.frombuffer(s, dtype=np.uint8)
    data = vyre.to_device(laid)
    jobs: list[Any] = []

    def once() -> float:
        start = time.perf_counter()
        batch = plan_many(sizes, empty)
        job = kernel_run._Job(batch.plan, {"data": data}, {})  # pyright: ignore[reportPrivateUsage]
        kernel_run._run(spec, [job], "wgpu")  # pyright: ignore[reportPrivateUsage]
        elapsed = time.perf_counter() - start
        jobs.append((batch, job))
        return elapsed

    def outputs() -> list[tuple[int, int]]:
        batch, job = jobs[-1]
        lengths = job.state["length"].read()
        codes = job.state["error_code"].read()
        words = job.state["out"].read()
        out: list[tuple[int, int]] = []
        for k, (first, _) in enumerate(batch.splits["out"]):
            if int(codes[k]) != 0:
                out.append((-int(codes[k]), 0))
                continue
            raw = words[int(first) :].view(np.uint8)[: int(lengths[k])].tobytes()
            out.append((zlib.crc32(raw), len(raw)))
        return out

    return once, outputs


def end_to_end(streams: Sequence[bytes], trials: int) -> tuple[float, list[tuple[int, int]]]:
    from vyre import ops

    results: list[list[Any]] = []

    def once() -> float:
        start = time.perf_counter()
        results.append([o for a, b in chunks(streams) for o in ops.evaluate_many(OP, [[s] for s in streams[a:b]], backend="wgpu")])
        return time.perf_counter() - start

    once()
    elapsed = median([once() for _ in range(trials)])
    return elapsed, [(zlib.crc32(o.tobytes()), len(o)) for o in results[-1]]


def rate(nbytes: int, seconds: float) -> str:
    per_second = nbytes / seconds
    return f"{per_second / 1e9:,.2f} GB/s" if per_second >= 1e9 else f"{per_second / 1e6:,.1f} MB/s"


def row(w: Workload, trials: int) -> tuple[list[str], dict[str, Any]]:
    _STREAMS.clear()
    _STREAMS.extend(workload_streams(w))
    compressed = sum(len(s) for s in _STREAMS)
    workers = os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=workers) as pool:
        cpu, expected = cpu_time(pool, workers, trials)
    timer, read = device_run(_STREAMS)
    timer()  # warm up: pipelines, buffer pool
    device = median([timer() for _ in range(trials)])
    ok = read() == expected
    e2e, got = end_to_end(_STREAMS, trials)
    ok = ok and got == expected
    total = sum(length for _, length in expected)
    line = [
        w.name, f"{w.streams:,}", f"{w.output_bytes / 2**10:,.0f} KiB each ({total / 2**20:,.0f} MiB)",
        f"{total / compressed:.2f}", f"{device * 1e3:,.1f} ({rate(total, device)})",
        f"{e2e * 1e3:,.1f} ({rate(total, e2e)})", f"{cpu * 1e3:,.1f} ({workers} processes, {rate(total, cpu)})",
        f"{cpu / device:,.2f}x", f"{cpu / e2e:,.2f}x", "yes" if ok else "WRONG",
    ]
    record = {"row": w.name, "streams": w.streams, "output_bytes": total, "compressed_bytes": compressed,
              "device_s": device, "e2e_s": e2e, "cpu_s": cpu, "cpu_workers": workers, "checked": ok}
    return line, record


@quiet_on_closed_pipe
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", default="many,large", help="comma-separated, from many, large")
    parser.add_argument("--streams", type=int, default=None, help="streams of the `many` row (10,000; lavapipe 256)")
    parser.add_argument("--stream-kib", type=int, default=None, help="KiB of output per stream of `many` (64; lavapipe 16)")
    parser.add_argument("--large-streams", type=int, default=None, help="streams of the `large` row (64; lavapipe 4)")
    parser.add_argument("--large-mib", type=float, default=None, help="MiB of output per stream of `large` (4; lavapipe 0.25)")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--out", help="write the figures as JSON here")
    options = parser.parse_args(argv)
    small = gpu_is_cpu()
    workloads = {
        "many": Workload("many", options.streams or (256 if small else 10_000), (options.stream_kib or (16 if small else 64)) * 2**10),
        "large": Workload("large", options.large_streams or (4 if small else 64), int((options.large_mib or (0.25 if small else 4)) * 2**20)),
    }
    names = [n for n in options.rows.split(",") if n]
    unknown = [n for n in names if n not in workloads]
    if unknown:
        parser.error(f"unknown rows {unknown}; choose from many, large")
    device = gpu_name()
    lines: list[list[str]] = []
    records: list[dict[str, Any]] = []
    for name in names:
        line, record = row(workloads[name], options.trials if not small else min(options.trials, 2))
        lines.append(line)
        records.append(record)
    print(f"device: {device}; CPU: {cpu_name()}")
    print(table(HEADER, [[f"{OP} {line[0]} ({device})", *line[1:]] for line in lines]))
    if options.out:
        with open(options.out, "w") as handle:
            json.dump({"device": device, "cpu": cpu_name(), "rows": records}, handle, indent=1)
    return 0 if all(r["checked"] for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
