"""Bytes families against CPython on the CPU, same machine, same run (hashes and
codecs: README.md, "Whole-buffer ops", and docs/byte-codecs.md).

    python bench/bytes.py [--rows crc32,adler32,sha256_many,...] [--crc-mib 256]
                          [--messages 1048576] [--e2e-messages N] [--reps 10] [--trials 5]
                          [--out FILE]

The table is a list of rows (`ROWS`: name -> function returning table lines);
each row times the vyre op two ways, checks its output against the CPU oracle
(a wrong result prints WRONG and exits non-zero), and times the oracle:

- **device**: the op's dispatches with the input already on the device (a
  `vyre.DeviceBuffer`): the op's plan staged once, `--reps` evaluations
  encoded into one command buffer, time from the submission to the end of a
  4-byte readback, divided by reps (the encoding, host work done once per
  command buffer, is not counted);
- **end to end**: `ops.evaluate` / `ops.evaluate_many` from host bytes to the
  host result (argument checks, planning, upload, dispatches, readback);
- **CPU**: the CPython oracle (`zlib.crc32`, `zlib.adler32`: single-threaded
  C; `hashlib.sha256` etc. over all CPU cores with a process pool, each worker
  hashing a contiguous slice of the messages; the pool is started before
  timing).

Rows:
- `crc32`, `adler32`, `crc32c`: one buffer of `--crc-mib` MiB (target for
  CRC-32: >= 10x `zlib.crc32`); crc32c only where the `crc32c` package is
  installed.
- `sha256_batch`: the same messages through `hash.sha256_batch(data, offsets)`
  (one buffer and an offsets array; no per-message Python work): device time
  with both on the device and the digests left there (`on_device=True`), and
  end to end from host arrays.
- `sha256_many`, `md5_many`, `sha1_many`, `fnv_many`: `--messages` messages of
  64 bytes (target for SHA-256: >= 5x hashlib on all cores). The device time is
  the batched plan (`plan_many`: one invocation per message) with the messages
  on the device; end to end is one `ops.evaluate_many` over `--e2e-messages`
  argument lists (default 65,536), scaled to `--messages` (its cost is per
  message: the argument checks and the output split of each evaluation).

- `base64_decode` (target >= 20x `base64.b64decode(validate=True)`),
  `base64_encode`, `hex` (encode and decode), `utf8` (validation of ASCII and
  of mixed 1-4 byte text vs `bytes.decode("utf-8")`): one buffer of
  `--codec-mib` MiB of input, the output checked byte for byte (decoders: and
  no error reported).

On a CPU Vulkan device (lavapipe) the sizes shrink (16 MiB, 16,384 messages).
Median of `--trials`.
"""

from __future__ import annotations

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout on sys.path)

import argparse
import hashlib
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


@dataclass
class Settings:
    crc_bytes: int
    messages: int
    e2e_messages: int
    reps: int
    trials: int
    codec_bytes: int = 256 * 2**20
    """Input bytes of the codec and UTF-8 rows (--codec-mib)."""


Line = list[str]
Record = dict[str, Any]


def best(fn: Callable[[], float], trials: int) -> float:
    fn()  # warm up (pipelines, pools, caches)
    return median([fn() for _ in range(trials)])


def wall(fn: Callable[[], object]) -> Callable[[], float]:
    def once() -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    return once


def device_time(spec: Any, plan: Any, inputs: dict[str, Any], reps: int) -> tuple[Callable[[], float], dict[str, Any]]:
    """The plan's steps with `inputs` (DeviceBuffers) bound in place: a timer
    and the device buffers by name (to read the output back)."""
    from vyre.kernels import run as kernel_run, wgpu_backend
    from vyre.runtime.wgpu_device import Resident, gpu_device

    args = kernel_run.KernelArgs(user=(), words=inputs, sizes={}, scalars={})
    steps, clear, state = kernel_run.stage_wgpu(plan, args)
    probe = Resident.allocate(gpu_device(), 1)

    def once() -> float:
        submitted = wgpu_backend.run_steps(steps, clear=clear, repeat=reps)
        probe.read()
        return (time.perf_counter() - submitted) / reps

    once()  # the outputs of one evaluation are in `state` now
    return once, state


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.3f}" if seconds < 0.01 else f"{seconds * 1e3:,.1f}"


def _x(peer: float, ours: float) -> str:
    return f"{peer / ours:,.1f}x"


# ---------------------------------------------------------------------------
# One large buffer: CRC-32, CRC-32C, Adler-32
# ---------------------------------------------------------------------------


def _checksum_row(op_id: str, oracle: Callable[[bytes], int], s: Settings, target: str) -> tuple[Line, Record]:
    import vyre
    from vyre import ops
    from vyre.ops import registry

    rng = np.random.default_rng(1)
    data = rng.integers(0, 256, s.crc_bytes, dtype=np.uint8)
    raw = data.tobytes()
    expected = oracle(raw)
    spec = registry.get_kernel(op_id)
    buffer = vyre.to_device(data)
    timer, state = device_time(spec, spec.plan({"data": s.crc_bytes}, {}), {"data": buffer}, s.reps)
    ok = int(state["out"].read()[0]) == expected
    on_device = best(timer, s.trials)
    e2e_value: list[int] = []
    end_to_end = best(wall(lambda: e2e_value.append(int(ops.evaluate(op_id, [data], backend="wgpu")[0]))), s.trials)
    ok = ok and all(v == expected for v in e2e_value)
    cpu = best(wall(lambda: oracle(raw)), s.trials)
    gbs = s.crc_bytes / on_device / 1e9
    line = [
        op_id, f"{s.crc_bytes / 2**20:,.0f} MiB", _ms(on_device) + f" ({gbs:,.1f} GB/s)", _ms(end_to_end),
        _ms(cpu) + f" ({s.crc_bytes / cpu / 1e9:,.2f} GB/s, 1 thread)", _x(cpu, on_device), _x(cpu, end_to_end),
        target, "yes" if ok else "WRONG",
    ]
    return line, {"op": op_id, "bytes": s.crc_bytes, "device_s": on_device, "e2e_s": end_to_end, "cpu_s": cpu, "checked": ok}


def row_crc32(s: Settings) -> list[tuple[Line, Record]]:
    return [_checksum_row("hash.crc32", zlib.crc32, s, ">= 10x zlib.crc32")]


def row_adler32(s: Settings) -> list[tuple[Line, Record]]:
    return [_checksum_row("hash.adler32", zlib.adler32, s, "reported")]


def row_crc32c(s: Settings) -> list[tuple[Line, Record]]:
    try:
        import crc32c  # pyright: ignore[reportMissingTypeStubs]
    except ImportError:
        return []
    return [_checksum_row("hash.crc32c", crc32c.crc32c, s, "reported")]  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]


# ---------------------------------------------------------------------------
# Many messages: digests and word hashes, one invocation per message
# ---------------------------------------------------------------------------

_blob: bytes = b""
"""The messages, in each pool worker (set once by the initializer)."""


def _pool_init(blob: bytes) -> None:
    global _blob
    _blob = blob


def _hash_slice(job: tuple[str, int, int, int]) -> bytes:
    name, first, last, size = job
    view = memoryview(_blob)
    new = hashlib.new
    return b"".join(new(name, view[i * size : (i + 1) * size]).digest() for i in range(first, last))


def _fnv_slice(job: tuple[str, int, int, int]) -> bytes:
    _, first, last, size = job
    out = bytearray()
    for i in range(first, last):
        h = 0x811C_9DC5
        for b in _blob[i * size : (i + 1) * size]:
            h = ((h ^ b) * 0x0100_0193) & 0xFFFF_FFFF
        out += h.to_bytes(4, "little")
    return bytes(out)


def _cpu_many(pool: ProcessPoolExecutor, worker: Callable[[tuple[str, int, int, int]], bytes], name: str,
              messages: int, size: int, workers: int) -> bytes:
    chunks = workers * 4
    bounds = [messages * k // chunks for k in range(chunks + 1)]
    jobs = [(name, bounds[k], bounds[k + 1], size) for k in range(chunks)]
    return b"".join(pool.map(worker, jobs))


def _many_row(op_id: str, name: str, s: Settings, target: str, size: int = 64) -> tuple[Line, Record]:
    import vyre
    from vyre import ops
    from vyre.ir import DataType
    from vyre.ops import registry

    rng = np.random.default_rng(2)
    blob = rng.integers(0, 256, s.messages * size, dtype=np.uint8)
    raw = blob.tobytes()
    spec = registry.get_kernel(op_id)
    out_bytes = spec.reference(blob[:size])[0].nbytes
    worker = _fnv_slice if name == "fnv1a32" else _hash_slice
    workers = os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=workers, initializer=_pool_init, initargs=(raw,)) as pool:
        expected = _cpu_many(pool, worker, name, s.messages, size, workers)
        cpu = best(wall(lambda: _cpu_many(pool, worker, name, s.messages, size, workers)), s.trials)
    # device: the batched plan, the messages already on the device
    assert spec.plan_many is not None
    empty: dict[str, int] = {}
    batch = spec.plan_many([{"data": size}] * s.messages, [empty] * s.messages)
    buffer = vyre.to_device(blob)
    timer, state = device_time(spec, batch.plan, {"data": buffer}, s.reps)
    out = state[batch.plan.output_buffer("out")].read()
    got = out.view(np.uint8)[: s.messages * out_bytes].tobytes() if spec.outputs[0].dtype is DataType.BYTES else out[: s.messages].astype("<u4").tobytes()
    ok = got == expected
    on_device = best(timer, s.trials)
    # end to end: ops.evaluate_many over argument lists
    m = min(s.e2e_messages, s.messages)
    args = [[blob[i * size : (i + 1) * size]] for i in range(m)]
    ops.evaluate_many(op_id, args[:1000], backend="wgpu")  # warm up (pipelines)
    start = time.perf_counter()
    last = ops.evaluate_many(op_id, args, backend="wgpu")
    end_to_end = time.perf_counter() - start
    joined = b"".join(np.asarray(r).astype("<u4").tobytes() if r.dtype != np.uint8 else r.tobytes() for r in last)
    ok = ok and joined == expected[: m * out_bytes]
    per_message_e2e = end_to_end / m
    line = [
        f"{op_id} x {s.messages:,}", f"{size} B each", _ms(on_device) + f" ({s.messages / on_device / 1e6:,.1f} M msg/s)",
        _ms(per_message_e2e * s.messages) + (f" (x{s.messages / m:,.0f} of {m:,})" if m < s.messages else ""),
        _ms(cpu) + f" ({workers} processes)", _x(cpu, on_device), _x(cpu, per_message_e2e * s.messages),
        target, "yes" if ok else "WRONG",
    ]
    record = {"op": op_id, "messages": s.messages, "size": size, "device_s": on_device, "e2e_s": end_to_end,
              "e2e_messages": m, "cpu_s": cpu, "cpu_workers": workers, "checked": ok}
    return line, record


def _batch_row(op_id: str, name: str, s: Settings, target: str, size: int = 64) -> tuple[Line, Record]:
    """`hash.<h>_batch(data, offsets)`: the messages as one buffer and an
    offsets array, no per-message Python work. Device: both inputs already on
    the device and the digests left there (`on_device=True`; the time includes
    the read back and host check of the offsets and the round flag's readback);
    end to end: host arrays in, host digests out."""
    import vyre
    from vyre import ops

    rng = np.random.default_rng(2)
    blob = rng.integers(0, 256, s.messages * size, dtype=np.uint8)
    offsets = (np.arange(s.messages + 1, dtype=np.uint64) * size).astype(np.uint32)
    workers = os.cpu_count() or 1
    worker = _fnv_slice if name == "fnv1a32" else _hash_slice
    with ProcessPoolExecutor(max_workers=workers, initializer=_pool_init, initargs=(blob.tobytes(),)) as pool:
        expected = _cpu_many(pool, worker, name, s.messages, size, workers)
        cpu = best(wall(lambda: _cpu_many(pool, worker, name, s.messages, size, workers)), s.trials)
    data, cuts = vyre.to_device(blob), vyre.to_device(offsets)
    kept: list[Any] = []
    on_device = best(wall(lambda: kept.append(ops.evaluate(op_id, [data, cuts], backend="wgpu", on_device=True))), s.trials)
    got = kept[-1].numpy()
    ok = (got.tobytes() if got.dtype == np.uint8 else got.astype("<u4").tobytes()) == expected
    results: list[np.ndarray] = []
    end_to_end = best(wall(lambda: results.append(ops.evaluate(op_id, [blob, offsets], backend="wgpu"))), s.trials)
    last = results[-1]
    ok = ok and (last.tobytes() if last.dtype == np.uint8 else last.astype("<u4").tobytes()) == expected
    line = [
        f"{op_id} x {s.messages:,}", f"{size} B each", _ms(on_device) + f" ({s.messages / on_device / 1e6:,.1f} M msg/s)",
        _ms(end_to_end), _ms(cpu) + f" ({workers} processes)", _x(cpu, on_device), _x(cpu, end_to_end),
        target, "yes" if ok else "WRONG",
    ]
    record = {"op": op_id, "messages": s.messages, "size": size, "device_s": on_device, "e2e_s": end_to_end,
              "cpu_s": cpu, "cpu_workers": workers, "checked": ok}
    return line, record


def row_sha256_batch(s: Settings) -> list[tuple[Line, Record]]:
    return [_batch_row("hash.sha256_batch", "sha256", s, ">= 5x hashlib, all cores")]


def row_sha256_many(s: Settings) -> list[tuple[Line, Record]]:
    return [_many_row("hash.sha256", "sha256", s, ">= 5x hashlib, all cores")]


def row_sha1_many(s: Settings) -> list[tuple[Line, Record]]:
    return [_many_row("hash.sha1", "sha1", s, "reported")]


def row_md5_many(s: Settings) -> list[tuple[Line, Record]]:
    return [_many_row("hash.md5", "md5", s, "reported")]


def row_fnv_many(s: Settings) -> list[tuple[Line, Record]]:
    return [_many_row("hash.fnv1a32", "fnv1a32", s, "reported (CPU: pure Python)")]


# ---------------------------------------------------------------------------
# Codecs and UTF-8: one large buffer (codec_radix.py, utf8.py)
# ---------------------------------------------------------------------------


def _codec_input(kind: str, n: int) -> np.ndarray:
    """n bytes of input: random bytes, their base64 text, lower-case hex text,
    ASCII text, or mixed UTF-8 text (1-4 byte characters)."""
    import base64

    rng = np.random.default_rng(3)
    if kind == "base64":
        return np.frombuffer(base64.b64encode(rng.integers(0, 256, n // 4 * 3, dtype=np.uint8).tobytes()), np.uint8)
    if kind == "hex":
        return np.frombuffer(rng.integers(0, 256, n // 2, dtype=np.uint8).tobytes().hex().encode(), np.uint8)
    if kind == "ascii":
        return rng.integers(0x20, 0x7F, n, dtype=np.uint8)
    if kind == "utf8":
        pieces = ["abc def ", "é", "Ж", "€", "中文", "𝄞", "\n"]
        unit = "".join(pieces[int(k)] for k in rng.integers(0, len(pieces), 4096)).encode()
        return np.frombuffer(unit * max(1, n // len(unit)), np.uint8)  # whole units: valid UTF-8
    return rng.integers(0, 256, n, dtype=np.uint8)


def _codec_row(op_id: str, kind: str, oracle: Callable[[bytes], Any], s: Settings, target: str) -> tuple[Line, Record]:
    """One buffer through a codec: the output (or the validity) checked against
    the CPython oracle, device time with the input on the device, end to end."""
    import vyre
    from vyre import ops
    from vyre.ops import registry
    from vyre.kernels.spec import NO_ERROR

    data = _codec_input(kind, s.codec_bytes)
    raw = data.tobytes()
    expected = oracle(raw)
    spec = registry.get_kernel(op_id)
    buffer = vyre.to_device(data)
    plan = spec.plan({"data": len(data)}, {})
    timer, state = device_time(spec, plan, {"data": buffer}, s.reps)
    first = spec.outputs[0]
    if op_id == "decode.utf8_validate":
        ok = int(state["valid"].read()[0]) == int(expected) and int(state["first_bad"].read()[0]) == NO_ERROR
    else:
        words = state[plan.output_buffer(first.name)].read()
        length = len(expected)
        ok = words.view(np.uint8)[:length].tobytes() == expected
        if spec.error_from is not None:
            ok = ok and int(state[spec.error_from].read()[0]) == NO_ERROR and int(state["length"].read()[0]) == length
    on_device = best(timer, s.trials)
    results: list[Any] = []
    end_to_end = best(wall(lambda: results.append(ops.evaluate(op_id, [data], backend="wgpu"))), s.trials)
    if op_id == "decode.utf8_validate":
        ok = ok and all(int(r[0]) == int(expected) for r in results)
    else:
        ok = ok and all(r.tobytes() == expected for r in results)
    cpu = best(wall(lambda: oracle(raw)), s.trials)
    gbs = len(raw) / on_device / 1e9
    line = [
        op_id + ("" if kind in ("base64", "hex", "random") else f" ({kind})"), f"{len(raw) / 2**20:,.0f} MiB in",
        _ms(on_device) + f" ({gbs:,.1f} GB/s in)", _ms(end_to_end),
        _ms(cpu) + f" ({len(raw) / cpu / 1e9:,.2f} GB/s in, 1 thread)", _x(cpu, on_device), _x(cpu, end_to_end),
        target, "yes" if ok else "WRONG",
    ]
    record = {"op": op_id, "input": kind, "bytes": len(raw), "device_s": on_device, "e2e_s": end_to_end, "cpu_s": cpu,
              "checked": ok}
    return line, record


def _valid_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def row_base64_decode(s: Settings) -> list[tuple[Line, Record]]:
    import base64

    return [_codec_row("decode.base64", "base64", lambda b: base64.b64decode(b, validate=True), s,
                       ">= 20x base64.b64decode")]


def row_base64_encode(s: Settings) -> list[tuple[Line, Record]]:
    import base64

    return [_codec_row("encode.base64_encode", "random", base64.b64encode, s, "reported")]


def row_hex(s: Settings) -> list[tuple[Line, Record]]:
    import binascii

    return [
        _codec_row("encode.hex_encode_lower", "random", lambda b: b.hex().encode(), s, "reported"),
        _codec_row("decode.hex", "hex", binascii.unhexlify, s, "reported"),
    ]


def row_utf8(s: Settings) -> list[tuple[Line, Record]]:
    return [
        _codec_row("decode.utf8_validate", "ascii", _valid_utf8, s, "vs bytes.decode"),
        _codec_row("decode.utf8_validate", "utf8", _valid_utf8, s, "vs bytes.decode"),
    ]


ROWS: dict[str, Callable[[Settings], list[tuple[Line, Record]]]] = {
    "crc32": row_crc32,
    "crc32c": row_crc32c,
    "adler32": row_adler32,
    "sha256_many": row_sha256_many,
    "sha256_batch": row_sha256_batch,
    "md5_many": row_md5_many,
    "sha1_many": row_sha1_many,
    "fnv_many": row_fnv_many,
    "base64_decode": row_base64_decode,
    "base64_encode": row_base64_encode,
    "hex": row_hex,
    "utf8": row_utf8,
}
"""Every row of the table, in order (codecs add theirs here)."""

HEADER = [
    "op", "size", "device ms (input on device)", "end to end ms", "CPU ms", "device vs CPU", "e2e vs CPU",
    "target", "checked",
]


def run(names: Sequence[str], s: Settings) -> tuple[list[Line], list[Record]]:
    lines: list[Line] = []
    records: list[Record] = []
    for name in names:
        for line, record in ROWS[name](s):
            lines.append(line)
            records.append(record)
    return lines, records


@quiet_on_closed_pipe
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, from {', '.join(ROWS)}")
    parser.add_argument("--crc-mib", type=int, default=None, help="MiB of the checksum rows (256; 16 on lavapipe)")
    parser.add_argument("--messages", type=int, default=None, help="messages of the many-message rows (1 Mi; 16 Ki on lavapipe)")
    parser.add_argument(
        "--e2e-messages", type=int, default=None,
        help="messages of the one evaluate_many timing (65,536; the column scales it to --messages)",
    )
    parser.add_argument("--codec-mib", type=int, default=None, help="MiB of input of the codec/UTF-8 rows (256; 16 on lavapipe)")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--out", help="write the figures as JSON here")
    options = parser.parse_args(argv)
    names = [n for n in options.rows.split(",") if n]
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        parser.error(f"unknown rows {unknown}; choose from {', '.join(ROWS)}")
    small = gpu_is_cpu()
    messages = options.messages or (16_384 if small else 1 << 20)
    settings = Settings(
        crc_bytes=(options.crc_mib or (16 if small else 256)) * 2**20,
        messages=messages,
        e2e_messages=options.e2e_messages or min(messages, 1 << 16),
        reps=options.reps if not small else min(options.reps, 3),
        trials=options.trials if not small else min(options.trials, 3),
        codec_bytes=(options.codec_mib or (16 if small else 256)) * 2**20,
    )
    device = gpu_name()
    lines, records = run(names, settings)
    print(f"device: {device}; CPU: {cpu_name()}")
    print(table(HEADER, [[f"{line[0]} ({device})", *line[1:]] for line in lines]))
    if options.out:
        with open(options.out, "w") as handle:
            json.dump({"device": device, "cpu": cpu_name(), "rows": records}, handle, indent=1)
    return 0 if all(r["checked"] for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
