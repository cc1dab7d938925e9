"""Host overhead of `ops.evaluate_many` per evaluation (docs/kernels.md, "Batched evaluation").

    python bench/evaluate_overhead.py [--messages N] [--ops hash.sha256,hash.crc32] [--trials 3]

For each op, `--messages` messages of 64 bytes (and a second row of lengths
0-127, most not a multiple of 4: the padding path) go through
`ops.evaluate_many(op, [[m] for m in messages])`, the batched plan's columnar
path. Every digest is checked against `hashlib` / `zlib` (a wrong one exits
non-zero). Reported per message, best of `--trials`:

- **whole**: `ops.evaluate_many`, wall time;
- **device**: the op's pipeline (`kernel_run._run`: uploads, dispatches, the
  wait) and the readback of the outputs (`_read_words`); not host overhead;
- **host**: whole minus device: what Python costs per message. Its parts
  (timed by wrapping the functions, in a separate instrumented call): the
  argument checks and the join (`_Columns.of`, the op's `check_args`), the
  op's own planner (`plan_many`, code of the op family), the output split
  (`_cut`), and the rest (the plan checks, the list of results);
- **list of views alone**: `list()` over a 2-D array of the same outputs, what
  a Python list of one numpy view per message costs by itself (the floor of
  any split into per-message arrays);
- **general path**: the same messages given as `bytearray`s, which take the
  per-evaluation checks (`check_args` each), on an eighth of the messages.

On a CPU Vulkan device (lavapipe) the default is 32,768 messages; on a GPU
1,048,576.
"""

from __future__ import annotations

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout on sys.path)

import argparse
import dataclasses
import hashlib
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from vyre.cli.pipes import quiet_on_closed_pipe

ORACLES: dict[str, Callable[[bytes], bytes]] = {
    "hash.sha256": lambda m: hashlib.sha256(m).digest(),
    "hash.md5": lambda m: hashlib.md5(m).digest(),
    "hash.crc32": lambda m: zlib.crc32(m).to_bytes(4, "little"),
    "hash.adler32": lambda m: zlib.adler32(m).to_bytes(4, "little"),
}


def messages(count: int, varied: bool, seed: int = 7) -> list[bytes]:
    rng = np.random.default_rng(seed)
    if not varied:
        blob = rng.integers(0, 256, 64 * count, dtype=np.uint8).tobytes()
        return [blob[64 * k : 64 * k + 64] for k in range(count)]
    lengths = rng.integers(0, 128, count)
    blob = rng.integers(0, 256, int(lengths.sum()), dtype=np.uint8).tobytes()
    ends = np.cumsum(lengths).tolist()
    return [blob[e - n : e] for e, n in zip(ends, lengths.tolist())]


def check(op_id: str, msgs: Sequence[bytes], got: Sequence[Any]) -> None:
    oracle = ORACLES[op_id]
    for k, (message, value) in enumerate(zip(msgs, got)):
        if np.asarray(value).tobytes() != oracle(message):
            sys.exit(f"WRONG: {op_id} of message {k} ({len(message)} bytes)")
    if len(got) != len(msgs):
        sys.exit(f"WRONG: {op_id}: {len(got)} results for {len(msgs)} messages")


class Parts:
    """Seconds spent in wrapped functions during one instrumented call."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

        return timed


def instrumented(op_id: str, many: list[list[bytes]]) -> tuple[float, Parts]:
    """(whole seconds, parts) of one evaluate_many with its parts wrapped."""
    from vyre.ops.registry import get_kernel
    from vyre.kernels import run as kernel_run

    parts = Parts()
    spec = get_kernel(op_id)
    assert spec.plan_many is not None
    timed_spec = dataclasses.replace(spec, plan_many=parts.wrap("planner", spec.plan_many))
    saved = {name: getattr(kernel_run, name) for name in ("_run", "_read_words", "_cut")}
    columns = kernel_run._Columns  # pyright: ignore[reportPrivateUsage]
    raw_of, raw_check = columns.__dict__["of"], columns.__dict__["check"]  # the classmethod itself, to restore
    columns_of, columns_check = columns.of, columns.check
    try:
        kernel_run._run = parts.wrap("device", saved["_run"])  # pyright: ignore[reportPrivateUsage]
        kernel_run._read_words = parts.wrap("readback", saved["_read_words"])  # pyright: ignore[reportPrivateUsage]
        kernel_run._cut = parts.wrap("split", saved["_cut"])  # pyright: ignore[reportPrivateUsage]
        kernel_run._Columns.of = parts.wrap("arguments", columns_of)  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
        kernel_run._Columns.check = parts.wrap("arguments", columns_check)  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
        start = time.perf_counter()
        kernel_run.evaluate_kernel_columns(timed_spec, many, "wgpu")
        whole = time.perf_counter() - start
    finally:
        for name, function in saved.items():
            setattr(kernel_run, name, function)
        setattr(columns, "of", raw_of)
        setattr(columns, "check", raw_check)
    return whole, parts


@quiet_on_closed_pipe
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--messages", type=int, default=None, help="messages per row (1 Mi on a GPU, 32 Ki on lavapipe)")
    parser.add_argument("--ops", default="hash.sha256,hash.crc32", help=f"comma-separated, from {', '.join(ORACLES)}")
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args(argv)

    from _common import gpu_is_cpu, gpu_name, table
    from vyre import ops

    count = args.messages or ((1 << 15) if gpu_is_cpu() else (1 << 20))
    summary: list[list[str]] = []
    breakdown: list[list[str]] = []
    for op_id in args.ops.split(","):
        if op_id not in ORACLES:
            sys.exit(f"no oracle for {op_id}; choose from {', '.join(ORACLES)}")
        for varied in (False, True):
            msgs = messages(count, varied)
            many = [[m] for m in msgs]
            label = "0-127 B" if varied else "64 B"
            check(op_id, msgs[:64], ops.evaluate_many(op_id, many[:64]))  # warm up: pipelines compiled
            wholes: list[float] = []
            result: list[Any] = []
            for _ in range(args.trials):
                start = time.perf_counter()
                result = ops.evaluate_many(op_id, many)
                wholes.append(time.perf_counter() - start)
            check(op_id, msgs, result)
            best_parts: Parts | None = None
            best_whole = float("inf")
            for _ in range(args.trials):
                whole, parts = instrumented(op_id, many)
                if whole < best_whole:
                    best_whole, best_parts = whole, parts
            assert best_parts is not None
            seconds = best_parts.seconds
            device = seconds.get("device", 0.0) + seconds.get("readback", 0.0)
            whole = min(wholes)
            widths = np.asarray(result[0]).nbytes if result else 0
            grid = np.zeros((count, widths), dtype=np.uint8)
            start = time.perf_counter()
            views = list(grid)
            floor = time.perf_counter() - start
            del views
            general_count = max(2, count // 8)
            general = [[bytearray(m)] for m in msgs[:general_count]]
            start = time.perf_counter()
            slow = ops.evaluate_many(op_id, general)
            general_seconds = time.perf_counter() - start
            check(op_id, msgs[:general_count], slow)

            def per(value: float, n: int = count) -> str:
                return f"{value / n * 1e6:,.2f}"

            summary.append([
                gpu_name(), op_id, label, f"{count:,}", f"{whole * 1e3:,.1f}", per(whole), per(device),
                per(max(0.0, whole - device)), per(general_seconds, general_count),
            ])
            known = ("arguments", "planner", "split")
            rest = best_whole - device - sum(seconds.get(k, 0.0) for k in known)
            breakdown.append([
                gpu_name(), op_id, label, per(seconds.get("arguments", 0.0)), per(seconds.get("planner", 0.0)),
                per(seconds.get("split", 0.0)), per(max(0.0, rest)), per(floor),
            ])
    print(table(
        ["device", "op", "messages", "count", "evaluate_many ms", "whole µs/msg", "device µs/msg",
         "host µs/msg", "general path µs/msg"],
        summary,
    ))
    print()
    print(table(
        ["device", "op", "messages", "arguments µs/msg", "planner (op family) µs/msg", "output split µs/msg",
         "rest µs/msg", "list of views alone µs/msg"],
        breakdown,
    ))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
