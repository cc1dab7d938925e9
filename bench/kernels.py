"""Kernel ops against their peers, same GPU, same run (docs/kernel-library.md).

    python bench/kernels.py [--n 67108864] [--sort-n 16777216] [--reps 20] [--batch-ms 50] [--trials 5] [--only PREFIXES] [--out FILE]

For each kernel op: the op's whole pipeline with its input already on the
device (a `vyre.DeviceBuffer`), a batch of evaluations encoded into one command
buffer; the time is from the submission to the end of a 4-byte readback,
divided by the evaluations (the encoding, which is host work done once per
command buffer, is not counted; the upload is not counted). Median of
`--trials`. Peers, when torch with CUDA is present: `torch.sum`,
`torch.cumsum`, `torch.bincount`, `torch.sort`, and `copy_` (the bandwidth
bound: read + write of n words), each timed as a batch of launches and a
synchronisation. A batch is `--reps` runs or more, enough to last `--batch-ms`
on each side (the read-back is then a small share of vyre's batch, as the
synchronisation is of torch's). vyre's own copy kernel (a vyre program) is
measured too.

GB/s counts the bytes the op must read (and write, for scans and sorts) once.
"copy share" = the op's GB/s / torch copy GB/s (target: >= 0.8 for
reductions, scan and histogram at 64 Mi elements); sort is reported as keys/s
against torch.sort's (target >= 0.5 at 16 Mi keys).

The kernel-op chain row: 10 library kernel ops in sequence (bitset xor, not,
and, or, gather, scatter, and_not, compact, unique, contains), with
`on_device=True` DeviceBuffers between them against host arrays.

The chain row: 10 kernels in sequence through `vyre.run`, once with
`vyre.DeviceBuffer`s between them (`on_device=True`: no host round trip; one
upload, one readback at the end) and once through host arrays, every result
checked.

The library rows (buffer.*, bitset.*, collection.*, match.find_all)
compare with the copy bound and with the torch op that computes the same
thing where one exists: `argmax(t == b)` for memchr, `(t == b).sum()` for
byte_count, `bitwise_xor`, `masked_select` for compact (the values; torch's
`nonzero` gives the indices), `index_select` for gather, `torch.unique` and
`torch.isin` (their inputs at --sort-n keys). Bytes ops run over 4n bytes.

Every vyre result is checked against numpy (or CPython's bytes/re) before it
is timed.
"""

from __future__ import annotations

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout on sys.path)

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

import numpy as np

from _common import gpu_name, median, table
from vyre.cli.pipes import quiet_on_closed_pipe


def _staged(op_id: str, args: Sequence[Any]) -> tuple[list[Any], list[Any], dict[str, Any], Any]:
    """The encoded steps of one evaluation of `op_id` with its inputs on the device."""
    from vyre.ops import registry
    from vyre.kernels import run as kernel_run

    spec = registry.get_kernel(op_id)
    checked = kernel_run.check_args(spec, args)
    plan = kernel_run.plan_of(spec, checked)
    steps, clear, state = kernel_run.stage_wgpu(plan, checked)
    return steps, clear, state, plan


batch_seconds: list[float] = [0.0]
"""Seconds a timed batch lasts at least (`--batch-ms`, set by `main`; `_batched`)."""


def _batched(run: Callable[[int], float], reps: int) -> Callable[[], float]:
    """`run(n)` (n runs, one synchronisation, seconds a run) as a timing of batches:
    the first call runs `reps` and sizes the later batches to last
    `batch_seconds` at least, so the one synchronisation of a batch (vyre's
    4-byte read-back, 0.2-0.4 ms on the H200; torch's synchronize) is a small
    share of it on both sides, where a fixed 20 runs charged vyre ~13 us a run."""
    size = [reps]

    def once() -> float:
        seconds = run(size[0])
        if size[0] == reps and batch_seconds[0] > 0:
            size[0] = max(reps, math.ceil(batch_seconds[0] / max(seconds, 1e-9)))
        return seconds

    return once


def vyre_time(op_id: str, args: Sequence[Any], reps: int) -> Callable[[], float]:
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import Resident, gpu_device

    steps, clear, _state, _plan = _staged(op_id, args)
    probe = Resident.allocate(gpu_device(), 1)

    def run(n: int) -> float:
        submitted = wgpu_backend.run_steps(steps, clear=clear, repeat=n)
        probe.read()
        return (time.perf_counter() - submitted) / n

    return _batched(run, reps)


def vyre_end_to_end(op_id: str, args: Sequence[Any], reps: int) -> Callable[[], float]:
    """Seconds of one `ops.evaluate_raw(..., on_device=True)` on device-resident
    inputs: every submission of the evaluation and the read-back of the
    scalars that decide lengths and re-plans (a re-planned op's second run
    included); the outputs stay on the device."""
    from vyre import ops

    def once() -> float:
        start = time.perf_counter()
        last: dict[str, Any] = {}
        for _ in range(reps):
            last = ops.evaluate_raw(op_id, args, on_device=True)
        if last:  # the last evaluation's device copies done: the smallest output read back
            min(last.values(), key=len).numpy()
        return (time.perf_counter() - start) / reps

    return once


def step_times(op_id: str, args: Sequence[Any], reps: int, trials: int) -> list[tuple[str, tuple[int, int, int], float]]:
    """(program name, dispatch, seconds) of each step of the op's plan, each
    step repeated alone (`--profile`: where a pipeline spends its time)."""
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import Resident, gpu_device

    steps, clear, _state, plan = _staged(op_id, args)
    wgpu_backend.run_steps(steps, clear=clear)
    probe = Resident.allocate(gpu_device(), 1)
    out: list[tuple[str, tuple[int, int, int], float]] = []
    for step, staged in zip(plan.steps, steps):

        def run(n: int, staged: Any = staged) -> float:
            submitted = wgpu_backend.run_steps([staged], repeat=n)
            probe.read()
            return (time.perf_counter() - submitted) / n

        out.append((step.program.name, step.dispatch, best(_batched(run, reps), trials)))
    return out


def sync_cost() -> float:
    """Submission of an empty command buffer plus the 4-byte readback (subtracted from nothing: reported)."""
    from vyre.runtime.wgpu_device import Resident, gpu_device

    gpu = gpu_device()
    probe = Resident.allocate(gpu, 1)
    samples: list[float] = []
    for _ in range(10):
        start = time.perf_counter()
        gpu.device.queue.submit([gpu.device.create_command_encoder().finish()])
        probe.read()
        samples.append(time.perf_counter() - start)
    return median(samples)


def torch_time(make: Callable[[Any], Callable[[], object]], data: np.ndarray, reps: int) -> Callable[[], float] | None:
    return torch_many(make, [data], reps)


def torch_many(make: Callable[..., Callable[[], object]], arrays: Sequence[np.ndarray], reps: int) -> Callable[[], float] | None:
    """`reps` launches of `make(*tensors)()` on the CUDA copies of `arrays`, and a
    synchronisation (None without torch and CUDA)."""
    import importlib

    try:
        torch: Any = importlib.import_module("torch")
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    fn = make(*[torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in arrays])

    def run(n: int) -> float:
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / n

    return _batched(run, reps)


def gb(value: float) -> str:
    """GB/s with 3 significant digits (lavapipe figures are small)."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def best(fn: Callable[[], float], trials: int) -> float:
    fn()  # warm up (pipelines, caches)
    return median([fn() for _ in range(trials)])


def copy_program(n_groups: int) -> Any:
    """`y[i] = x[i]` at the invocation id: an elementwise map, so the runtime
    runs its vectorised lowering (vyre/lowering/vector.py), as for any copy a
    user writes this way."""
    from vyre.ir import BufferDecl, DataType, Program
    from vyre.ir import Expr as E
    from vyre.ir import Node as N

    i = E.gid_x()
    return Program(
        buffers=[BufferDecl.read("x", 0, DataType.U32), BufferDecl.read_write("y", 1, DataType.U32)],
        workgroup_size=(256, 1, 1),
        entry=[N.store("y", i, E.load("x", i))],
        name="copy",
    )


def vyre_copy_time(data: np.ndarray, reps: int) -> Callable[[], float]:
    from vyre.pipeline import prepare
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import Resident, gpu_device

    gpu = gpu_device()
    groups = -(-len(data) // 256)
    x = Resident.upload(gpu, data)
    y = Resident.allocate(gpu, len(data))
    steps = [(prepare(copy_program(groups)), {"x": x, "y": y}, (groups, 1, 1))]
    probe = Resident.allocate(gpu, 1)
    wgpu_backend.run_steps(steps)
    assert (y.read()[:8] == data[:8]).all()

    def run(n: int) -> float:
        submitted = wgpu_backend.run_steps(steps, repeat=n)
        probe.read()
        return (time.perf_counter() - submitted) / n

    return _batched(run, reps)


# ---------------------------------------------------------------------------
# The rows
# ---------------------------------------------------------------------------


def rows(n: int, sort_n: int, reps: int, trials: int, only: Sequence[str] = ()) -> tuple[list[list[str]], dict[str, Any]]:
    import vyre
    from vyre import ops
    from vyre.ops import registry

    rng = np.random.default_rng(7)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    small = rng.integers(0, 1000, n, dtype=np.uint32)
    record: dict[str, Any] = {"device": gpu_name(), "n": n, "sort_n": sort_n, "reps": reps, "trials": trials}
    table_rows: list[list[str]] = []

    copy_peer = torch_time(lambda t: (lambda out=t.clone(): out.copy_(t)), x.view(np.int32), reps)
    copy_t = best(copy_peer, trials) if copy_peer else None
    vcopy = best(vyre_copy_time(x, reps), trials)
    copy_gbs = 8 * n / copy_t / 1e9 if copy_t else None
    record["copy"] = {"torch_s": copy_t, "vyre_s": vcopy}
    table_rows.append(
        ["copy (read + write)", f"{n:,}", gb(8 * n / vcopy / 1e9), gb(copy_gbs) if copy_gbs else "-",
         f"{(8 * n / vcopy / 1e9) / copy_gbs:.2f}" if copy_gbs else "-", "bound"]
    )

    def add(label: str, op_id: str, args: list[Any], expected: Callable[[tuple[np.ndarray, ...]], bool],
            nbytes: int, peer: Callable[[], float] | None, target: str, end_to_end: bool = False) -> None:
        if only and not op_id.startswith(tuple(only)):
            return
        if op_id not in registry.kernel_op_ids():
            table_rows.append([label, "-", "not built", "-", "-", target])
            return
        device_args: list[Any] = [vyre.to_device(cast(np.ndarray, a)) if isinstance(a, np.ndarray) else a for a in args]
        got = tuple(ops.evaluate_raw(op_id, device_args).values())
        ok = expected(got)
        t = best((vyre_end_to_end if end_to_end else vyre_time)(op_id, device_args, reps), trials)
        try:
            pt = best(peer, trials) if peer else None
        except Exception as error:  # noqa: BLE001 - a peer torch lacks is reported, not fatal
            print(f"peer of {op_id} failed: {type(error).__name__}: {error}")
            pt = None
        gbs = nbytes / t / 1e9
        record[op_id] = {"s": t, "peer_s": pt, "checked": ok, "bytes": nbytes}
        share = f"{gbs / copy_gbs:.2f}" if copy_gbs else "-"
        vs_peer = f"{pt / t:.2f}" if pt else "-"
        table_rows.append(
            [label, f"{len(args[0]):,}", gb(gbs) + ("" if ok else " (WRONG)"),
             gb(nbytes / pt / 1e9) if pt else "-", share + f" (vs peer {vs_peer})", target]
        )

    def first(got: tuple[np.ndarray, ...]) -> np.ndarray:
        return np.asarray(got[0])

    total = int(x.astype(np.uint64).sum()) % 2**32
    add("reductions.reduce_sum_u32 / torch.sum", "reductions.reduce_sum_u32", [x],
        lambda g: int(first(g)[0]) == total, 4 * n,
        torch_time(lambda t: (lambda: t.sum()), x.view(np.int32), reps), ">= 0.8 of copy")
    add("reductions.reduce_max_u32 / torch.max", "reductions.reduce_max_u32", [x],
        lambda g: int(first(g)[0]) == int(x.max()), 4 * n,
        torch_time(lambda t: (lambda: t.max()), small.view(np.int32), reps), ">= 0.8 of copy")
    add("reductions.argmin_u32 / torch.argmin", "reductions.argmin_u32", [x],
        lambda g: int(first(g)[0]) == int(np.argmin(x)), 4 * n,
        torch_time(lambda t: (lambda: t.argmin()), small.view(np.int32), reps), ">= 0.8 of torch.argmin")
    fx = rng.standard_normal(n).astype(np.float32)
    add("reductions.f32_sum_tree / torch.sum(f32)", "reductions.f32_sum_tree", [fx],
        lambda g: bool(np.isfinite(first(g)[0])), 4 * n,
        torch_time(lambda t: (lambda: t.sum()), fx, reps), "reported")
    expect_scan = np.cumsum(small, dtype=np.uint32)
    add("scan.prefix_sum_inclusive_u32 / torch.cumsum", "scan.prefix_sum_inclusive_u32", [small],
        lambda g: bool((first(g) == expect_scan).all()), 8 * n,
        torch_time(lambda t: (lambda: t.cumsum(0, dtype=t.dtype)), small.view(np.int32), reps), ">= 0.8 of torch.cumsum")
    data = rng.integers(0, 256, 4 * n, dtype=np.uint8)
    add("stats.byte_histogram / torch.bincount", "stats.byte_histogram", [data],
        lambda g: bool((first(g) == np.bincount(data, minlength=256)).all()), 4 * n,
        torch_time(lambda t: (lambda: t.bincount(minlength=256)), data, reps), ">= 0.8 of copy")
    keys = rng.integers(0, 2**32, sort_n, dtype=np.uint64).astype(np.uint32)
    add("sort.u32 / torch.sort", "sort.u32", [keys],
        lambda g: bool((first(g) == np.sort(keys)).all()), 8 * sort_n,
        torch_time(lambda t: (lambda: t.sort()), keys.view(np.int32) ^ np.int32(-(2**31)), reps),
        ">= 0.5 of torch keys/s")
    vals = np.arange(sort_n, dtype=np.uint32)
    order = np.argsort(keys, kind="stable")
    add("sort.key_value_u32 / torch.sort(stable)", "sort.key_value_u32", [keys, vals],
        lambda g: bool((first(g) == vals[order]).all()), 16 * sort_n,
        torch_time(lambda t: (lambda: t.sort(stable=True)), keys.view(np.int32) ^ np.int32(-(2**31)), reps),
        ">= 0.5 of torch keys/s")
    if not only or any(p.startswith(("buffer", "bitset", "collection", "match")) for p in only):
        library_rows(add, rng, n, sort_n, reps)
    return table_rows, record


def _peer(op: Callable[[Any, Any], object]) -> Callable[[Any, Any], Callable[[], object]]:
    """A torch peer of two tensors as `torch_many` takes it."""

    def make(a: Any, b: Any) -> Callable[[], object]:
        return lambda: op(a, b)

    return make


class Add(Protocol):
    """The row adder `main` passes to `library_rows`."""

    def __call__(
        self, label: str, op_id: str, args: list[Any], expected: Callable[[tuple[np.ndarray, ...]], bool],
        nbytes: int, peer: Callable[[], float] | None, target: str, end_to_end: bool = False,
    ) -> None: ...


def library_rows(add: Add, rng: np.random.Generator, n: int, sort_n: int, reps: int) -> None:
    """buffer.*, bitset.*, collection.*, match.find_all against the
    copy bound and the torch op that computes the same thing, where there is one."""
    import re

    def first(got: tuple[np.ndarray, ...]) -> np.ndarray:
        return np.asarray(got[0])

    # 4n bytes of lowercase text: byte searches scan all of it (the byte is absent or last)
    text = rng.integers(0x61, 0x7B, 4 * n, dtype=np.uint8)
    text[-1] = ord("!")
    raw = text.tobytes()
    add("buffer.memchr (last byte) / argmax(t == b)", "buffer.memchr", [text, ord("!")],
        lambda g: int(first(g)[0]) == len(raw) - 1, 4 * n,
        torch_time(lambda t: (lambda: (t == ord("!")).to(dtype=t.dtype).argmax()), text, reps), ">= 0.85 of copy")
    add("buffer.byte_count / (t == b).sum()", "buffer.byte_count", [text, ord("e")],
        lambda g: int(first(g)[0]) == raw.count(b"e"), 4 * n,
        torch_time(lambda t: (lambda: (t == ord("e")).sum()), text, reps), ">= 0.85 of copy")
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    y = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    add("bitset.xor / torch.bitwise_xor", "bitset.xor", [x, y],
        lambda g: bool((first(g) == (x ^ y)).all()), 12 * n,
        torch_many(_peer(lambda a, b: a ^ b), [x.view(np.int32), y.view(np.int32)], reps), ">= 0.85 of copy")
    add("bitset.popcount (no torch op)", "bitset.popcount", [x],
        lambda g: int(first(g)[0]) == int(np.bitwise_count(x).sum(dtype=np.uint64)) % 2**32, 4 * n, None,
        ">= 0.85 of copy")
    mask = (rng.random(n) < 0.5).astype(np.uint32)
    kept = x[mask != 0]
    add("buffer.compact (half kept) / torch.masked_select", "buffer.compact", [x, mask],
        lambda g: bool(np.array_equal(first(g), kept)), 8 * n + 4 * len(kept),
        torch_many(_peer(lambda v, m: v.masked_select(m != 0)), [x.view(np.int32), mask.view(np.int32)], reps),
        "reported")
    idx = rng.integers(0, n, n, dtype=np.uint32)
    add("buffer.gather (random) / torch.index_select", "buffer.gather", [x, idx],
        lambda g: bool((first(g) == x[idx]).all()), 12 * n,
        torch_many(_peer(lambda s, i: s.index_select(0, i)), [x.view(np.int32), idx.view(np.int32)], reps),
        "reported")
    values = np.arange(n, dtype=np.uint32)
    expect_scatter = x.copy()
    expect_scatter[idx] = values  # numpy: distinct targets are exact; duplicates checked below
    order = np.argsort(idx, kind="stable")
    last = np.ones(n, dtype=bool)
    last[:-1] = idx[order][1:] != idx[order][:-1]
    expect_scatter[idx[order][last]] = values[order][last]  # the largest i of each index
    add("buffer.scatter (random, duplicates) (no deterministic torch op)", "buffer.scatter", [x, idx, values],
        lambda g: bool((first(g) == expect_scatter).all()), 16 * n, None, "reported")
    keys = rng.integers(0, sort_n // 4, sort_n, dtype=np.uint32)
    expect_unique = np.unique(keys)
    add("collection.unique_u32 / torch.unique", "collection.unique_u32", [keys],
        lambda g: bool(np.array_equal(first(g), expect_unique)), 8 * sort_n,
        torch_time(lambda t: (lambda: t.unique(sorted=True)), keys.view(np.int32), reps), "vs peer")
    # the same keys and full-range ones, end to end (the dense plan's read-back of `count`; for
    # full-range keys the dense attempt, its read-back and the sorted plan): like torch.unique,
    # which synchronises to learn its output's length
    wide = rng.integers(0, 2**32, sort_n, dtype=np.uint64).astype(np.uint32)
    expect_wide = np.unique(wide)
    for label, data, want in (("keys < n/4", keys, expect_unique), ("full-range keys", wide, expect_wide)):
        add(f"collection.unique_u32, {label}, end to end / torch.unique", "collection.unique_u32", [data],
            lambda g, want=want: bool(np.array_equal(first(g), want)), 8 * sort_n,
            torch_time(lambda t: (lambda: t.unique(sorted=True)), data.view(np.int32), reps), "reported",
            end_to_end=True)
    # few distinct values: the dense plan's atomics land on few words
    few = rng.integers(0, 8, sort_n).astype(np.uint32)
    add("collection.unique_u32, 8 distinct values / torch.unique", "collection.unique_u32", [few],
        lambda g: bool(np.array_equal(first(g), np.unique(few))), 8 * sort_n,
        torch_time(lambda t: (lambda: t.unique(sorted=True)), few.view(np.int32), reps), "reported")
    queries = rng.integers(0, sort_n // 2, n, dtype=np.uint32)
    expect_isin = np.isin(queries, keys)
    add("collection.contains_u32 (set sort_n, n queries) / torch.isin", "collection.contains_u32", [keys, queries],
        lambda g: bool((first(g) == expect_isin).all()), 4 * sort_n + 8 * n,
        torch_many(_peer(lambda s, q: q.isin(s)), [keys.view(np.int32), queries.view(np.int32)], reps),
        "vs peer")
    hay = bytearray(raw)
    hay[-1] = ord("q")
    for at in range(0, len(hay) - 64, max(1, len(hay) // 1000)):
        hay[at : at + 8] = b"needle!!"
    hay_bytes = bytes(hay)
    hay_array = np.frombuffer(hay_bytes, dtype=np.uint8)
    for needle in (b"needle!!", hay_bytes[len(hay_bytes) // 2 : len(hay_bytes) // 2 + 1000]):
        expect_starts = [m.start() for m in re.finditer(b"(?=" + re.escape(needle) + b")", hay_bytes)]
        add(f"match.find_all ({len(needle)}-byte needle) (no torch op)", "match.find_all",
            [hay_array, np.frombuffer(needle, dtype=np.uint8)],
            lambda g, e=expect_starts: first(g).tolist() == e, 4 * n, None, "reported")


def _step_program(k: int) -> Any:
    from vyre.ir import BufferDecl, DataType, Program
    from vyre.ir import Expr as E
    from vyre.ir import Node as N

    i = E.add(E.mul(E.workgroup_id(0), E.u32(256)), E.local_id(0))
    value = E.add(E.mul(E.load("x", i), E.u32(3)), E.u32(k))
    return Program(
        buffers=[BufferDecl.read("x", 0, DataType.U32), BufferDecl.read_write("y", 1, DataType.U32)],
        workgroup_size=(256, 1, 1),
        entry=[N.if_(E.lt(i, E.buf_len("x")), [N.store("y", i, value)])],
        name=f"chain_step_{k}",
    )


def chain(n: int, trials: int) -> tuple[list[str], dict[str, Any]]:
    """10 kernels in sequence (y = 3x + k, k = 0..9, through `vyre.run`): the
    intermediate results stay on the device (`on_device=True`, each output the
    next input) against the same chain through host arrays."""
    import vyre

    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    programs = [_step_program(k) for k in range(10)]
    dispatch = (-(-n // 256), 1, 1)
    want = x.copy()
    for k in range(10):
        want = want * np.uint32(3) + np.uint32(k)

    def on_device() -> tuple[float, np.ndarray]:
        start = time.perf_counter()
        value: Any = vyre.to_device(x)
        for prog in programs:
            value = vyre.run(prog, {"x": value}, dispatch=dispatch, outputs={"y": n}, on_device=True)["y"]
        result = value.numpy()
        return time.perf_counter() - start, result

    def on_host() -> tuple[float, np.ndarray]:
        start = time.perf_counter()
        value: Any = x
        for prog in programs:
            value = vyre.run(prog, {"x": value}, dispatch=dispatch, outputs={"y": n})["y"]
        return time.perf_counter() - start, value

    dev = [on_device() for _ in range(trials + 1)][1:]
    host = [on_host() for _ in range(trials + 1)][1:]
    ok = all(bool((r == want).all()) for _, r in dev + host)
    td, th = median([t for t, _ in dev]), median([t for t, _ in host])
    return (
        [f"{n:,}", f"{td * 1e3:,.1f}", f"{th * 1e3:,.1f}", f"{th / td:.1f}", "yes" if ok else "WRONG"],
        {"n": n, "device_s": td, "host_s": th, "checked": ok},
    )


def op_chain(n: int, trials: int) -> tuple[list[str], dict[str, Any]]:
    """10 kernel ops in sequence (bitset xor/not/and/or, gather, scatter,
    and_not, compact, unique, contains), each output the next input: once with
    `on_device=True` (DeviceBuffers between the ops; a data-sized output is
    read back as one length word) and once through host arrays; both checked
    against numpy."""
    from vyre import ops

    rng = np.random.default_rng(5)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    y = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    idx = rng.integers(0, n, n, dtype=np.uint32)
    spots = rng.permutation(n)[: n // 2].astype(np.uint32)
    mask = (rng.random(n) < 0.5).astype(np.uint32)
    queries = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)

    def run(on_device: bool) -> tuple[float, np.ndarray]:
        start = time.perf_counter()
        kw: dict[str, Any] = {"on_device": True} if on_device else {}
        a = ops.evaluate("bitset.xor", [x, y], **kw)
        a = ops.evaluate("bitset.not", [a], **kw)
        a = ops.evaluate("bitset.and", [a, x], **kw)
        a = ops.evaluate("bitset.or", [a, y], **kw)
        a = ops.evaluate("buffer.gather", [a, idx], **kw)
        a = ops.evaluate("buffer.scatter", [a, spots, x[: len(spots)]], **kw)
        a = ops.evaluate("bitset.and_not", [a, mask], **kw)
        a = ops.evaluate("buffer.compact", [a, mask], **kw)
        a = ops.evaluate("collection.unique_u32", [a], **kw)
        found = ops.evaluate("collection.contains_u32", [a, queries])
        return time.perf_counter() - start, np.asarray(found)

    w = ((~(x ^ y)) & x) | y
    w = w[idx]
    w[spots] = x[: len(spots)]
    w = (w & ~mask)[mask != 0]
    want = np.isin(queries, np.unique(w)).astype(np.uint32)
    dev = [run(True) for _ in range(trials + 1)][1:]
    host = [run(False) for _ in range(trials + 1)][1:]
    ok = all(bool((r == want).all()) for _, r in dev + host)
    td, th = median([t for t, _ in dev]), median([t for t, _ in host])
    return (
        [f"{n:,}", f"{td * 1e3:,.1f}", f"{th * 1e3:,.1f}", f"{th / td:.1f}", "yes" if ok else "WRONG"],
        {"n": n, "device_s": td, "host_s": th, "checked": ok},
    )


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=64 * 2**20)
    parser.add_argument("--sort-n", type=int, default=16 * 2**20)
    parser.add_argument("--chain-n", type=int, default=16 * 2**20)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument(
        "--batch-ms", type=float, default=50.0,
        help="each timed batch runs --reps times or more, to last this long at least (default 50)",
    )
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--profile", help="comma-separated U32[] kernel ops: time each step of their plans at --n")
    parser.add_argument("--only", help="comma-separated op id prefixes: only these rows (and copy), e.g. buffer.,bitset.")
    args = parser.parse_args()
    if args.profile:
        import vyre

        n_profile = int(args.n)
        x = vyre.to_device(np.random.default_rng(1).integers(0, 1000, n_profile, dtype=np.uint32))
        for op_id in args.profile.split(","):
            for name, dispatch, seconds in step_times(op_id, [x], args.reps, args.trials):
                print(f"{op_id}: {name} {dispatch}: {seconds * 1e6:,.1f} us ({4 * args.n / seconds / 1e9:,.0f} GB/s of n words)")
        return
    device = gpu_name()
    print(f"device: {device}")
    batch_seconds[0] = args.batch_ms / 1e3
    print(f"submit + 4-byte readback: {sync_cost() * 1e6:,.0f} us (included once a batch of {args.reps} runs"
          f" or more, at least {args.batch_ms:g} ms)")
    body, record = rows(args.n, args.sort_n, args.reps, args.trials, args.only.split(",") if args.only else ())
    body = [[device, *row] for row in body]
    print(table(["device", "op / peer", "elements", "vyre GB/s", "peer GB/s", "copy share (vs peer: time ratio)", "target"], body))
    chain_row, chain_record = chain(args.chain_n, args.trials)
    print()
    print(table(["device", "chain elements", "device buffers ms", "host arrays ms", "speed-up", "checked"], [[device, *chain_row]]))
    record["chain"] = chain_record
    if not args.only or any(p.startswith(("buffer", "bitset", "collection")) for p in args.only.split(",")):
        ops_row, ops_record = op_chain(args.chain_n, args.trials)
        print()
        print(table(["device", "kernel-op chain (10 ops) elements", "device buffers ms", "host arrays ms", "speed-up", "checked"],
                    [[device, *ops_row]]))
        record["op_chain"] = ops_record
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=2)


if __name__ == "__main__":
    main()
