"""Many threads calling `vyre.run` and `ops.evaluate` at once, every result
checked against numpy or the standard library.

Each thread loops until the deadline, picking at random (its own seeded
generator): a program shared by all threads, its own program, a program built
anew on every call (the fingerprint and prepare caches), an F32 program, a
scalar or kernel op through `ops.evaluate`/`ops.evaluate_many`, or a chain kept
on the device (`vyre.to_device`, `on_device=True`); on wgpu or on the
interpreter. A wrong result or an exception stops that thread and is reported;
a thread still running long after the deadline is a hang (a deadlock).

`python test/support/thread_load.py THREADS SECONDS` runs it and exits 1 on any
wrong result, error or hang; `test/unit/runtime/test_threads.py` runs it for
5 s (`make test`) and 25 s (`make test-all`) in a child process, so that a
process abort is a failure too.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
import zlib
from dataclasses import dataclass, field

import numpy as np

import vyre
from vyre import ops
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N

GID = E.gid_x()
U32 = np.uint32


def add_program(k: int) -> Program:
    """out[i] = 3 * a[i] + k."""
    guard = E.lt(GID, E.buf_len("a"))
    value = E.add(E.mul(E.load("a", GID), E.u32(3)), E.u32(k))
    return Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (64, 1, 1),
        [N.if_(guard, [N.store("out", GID, value)])],
    )


def square_program() -> Program:
    """y[i] = x[i] * x[i] + 0.5 in F32 (strict: each operation rounded once)."""
    x = E.load("x", GID)
    return Program(
        [BufferDecl.read("x", 0, DataType.F32), BufferDecl.read_write("y", 1, DataType.F32)],
        (64, 1, 1),
        [N.if_(E.lt(GID, E.buf_len("x")), [N.store("y", GID, E.fadd(E.fmul(x, x), E.f32(0.5)))])],
    )


SHARED = (add_program(7), add_program(11))
SQUARE = square_program()


def _groups(n: int) -> tuple[int, int, int]:
    return (max(1, -(-n // 64)), 1, 1)


def _check_add(rng: np.random.Generator, program: Program, k: int, backend: str) -> None:
    n = int(rng.integers(1, 3000))
    a = rng.integers(0, 2**32, n, dtype=U32)
    out = vyre.run(program, {"a": a}, outputs={"out": n}, dispatch=_groups(n), backend=backend)["out"]
    want = (a.astype(np.uint64) * 3 + k).astype(U32)
    assert np.array_equal(out, want), f"wrong result of add_program({k}), n = {n}, {backend}"


def _check_square(rng: np.random.Generator, backend: str) -> None:
    n = int(rng.integers(1, 2000))
    x = rng.standard_normal(n).astype(np.float32)
    y = vyre.run(SQUARE, {"x": x}, outputs={"y": n}, dispatch=_groups(n), backend=backend)["y"]
    want = x * x + np.float32(0.5)
    assert np.array_equal(y.view(U32), want.view(U32)), f"wrong F32 result, n = {n}, {backend}"


def _check_device_chain(rng: np.random.Generator) -> None:
    n = int(rng.integers(1, 3000))
    a = rng.integers(0, 2**32, n, dtype=U32)
    kept = vyre.run(SHARED[0], {"a": vyre.to_device(a, dtype=DataType.U32)}, outputs={"out": n},
                    dispatch=_groups(n), on_device=True)["out"]  # fmt: skip
    out = vyre.run(SHARED[1], {"a": kept}, outputs={"out": n}, dispatch=_groups(n))["out"]
    first = (a.astype(np.uint64) * 3 + 7) % 2**32
    assert np.array_equal(out, ((first * 3 + 11) % 2**32).astype(U32)), f"wrong device chain, n = {n}"


def _check_op(rng: np.random.Generator, backend: str) -> None:
    n = int(rng.integers(0, 5000))
    a = rng.integers(0, 2**32, n, dtype=U32)
    data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
    match int(rng.integers(0, 6)):
        case 0:
            b = rng.integers(0, 2**32, n, dtype=U32)
            assert np.array_equal(ops.evaluate("primitive.math.add", [a, b], backend=backend), a + b), "add"
        case 1:
            got = int(ops.evaluate("reductions.reduce_sum_u32", [a], backend=backend)[0])
            assert got == int(a.sum(dtype=np.uint64)) % 2**32, "reduce_sum_u32"
        case 2:
            assert np.array_equal(ops.evaluate("sort.u32", [a], backend=backend), np.sort(a)), "sort.u32"
        case 3:
            assert int(ops.evaluate("hash.crc32", [data], backend=backend)[0]) == zlib.crc32(data), "crc32"
        case 4:
            got = ops.evaluate("scan.prefix_sum_inclusive_u32", [a], backend=backend)
            assert np.array_equal(got, np.cumsum(a, dtype=np.uint64).astype(U32)), "prefix sum"
        case _:
            half = a[: n // 2]
            many = ops.evaluate_many("reductions.reduce_max_u32", [[a], [half]], backend=backend)
            want = [int(a.max()) if n else 0, int(half.max()) if len(half) else 0]
            assert [int(m[0]) for m in many] == want, "reduce_max_u32 (evaluate_many)"


@dataclass
class Load:
    """What the threads did: calls per thread, the failures (with tracebacks)."""

    calls: list[int]
    failures: list[str] = field(default_factory=lambda: list[str]())
    hung: int = 0
    seconds: float = 0.0


def _worker(index: int, deadline: float, load: Load, interp_share: float) -> None:
    rng = np.random.default_rng(index)
    mine = add_program(1000 + index)
    while time.monotonic() < deadline:
        backend = "interp" if rng.random() < interp_share else "wgpu"
        try:
            match int(rng.integers(0, 6)):
                case 0:
                    k = int(rng.integers(0, 2))
                    _check_add(rng, SHARED[k], (7, 11)[k], backend)
                case 1:
                    _check_add(rng, mine, 1000 + index, backend)
                case 2:  # a new Program object every call
                    k = int(rng.integers(0, 100))
                    _check_add(rng, add_program(5000 + k), 5000 + k, backend)
                case 3:
                    _check_square(rng, backend)
                case 4:
                    _check_device_chain(rng)
                case _:
                    _check_op(rng, backend)
        except Exception:  # noqa: BLE001 - every failure is reported
            load.failures.append(f"thread {index}: {traceback.format_exc()}")
            return
        load.calls[index] += 1


def run_load(threads: int, seconds: float, interp_share: float = 0.2) -> Load:
    """Run `threads` threads for `seconds`; a thread not done 120 s after the
    deadline counts as hung."""
    load = Load([0] * threads)
    deadline = time.monotonic() + seconds
    began = time.monotonic()
    pool = [
        threading.Thread(target=_worker, args=(k, deadline, load, interp_share), daemon=True)
        for k in range(threads)
    ]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=max(0.0, deadline - time.monotonic()) + 120)
    load.hung = sum(thread.is_alive() for thread in pool)
    load.seconds = time.monotonic() - began
    return load


def main(argv: list[str]) -> int:
    threads, seconds = int(argv[0]), float(argv[1])
    load = run_load(threads, seconds)
    print(
        f"{threads} threads, {load.seconds:.1f} s: {sum(load.calls):,} checked calls"
        f" (per thread {load.calls}), {len(load.failures)} failures, {load.hung} hung"
    )
    for failure in load.failures[:5]:
        print(failure)
    return 1 if load.failures or load.hung else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
