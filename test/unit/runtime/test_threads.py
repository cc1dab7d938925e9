"""Threads: one GPU device per process however the first calls race, and many
threads running programs and ops at once give only right results, no
deadlock and no process abort (each in a child process, so that an abort is a
failure and the device is made fresh)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SUPPORT = Path(__file__).resolve().parents[2] / "support"

_FIRST_CALLS = r"""
import threading, zlib
import numpy as np
import wgpu, vyre.runtime.wgpu_backend  # imported first: the threads race on the device alone
import vyre
from vyre import ops
from vyre.runtime.wgpu_device import gpu_device
from thread_load import add_program

THREADS = 8
barrier = threading.Barrier(THREADS)
devices, failures = [], []

def first_call(k):
    barrier.wait()
    try:
        devices.append(id(gpu_device()))
        data = bytes(range(k, k + 200))
        assert int(ops.evaluate("hash.crc32", [data])[0]) == zlib.crc32(data)
        a = np.arange(300, dtype=np.uint32)
        out = vyre.run(add_program(k), {"a": a}, outputs={"out": 300}, dispatch=(5, 1, 1))["out"]
        assert np.array_equal(out, a * 3 + k)
    except Exception as error:
        failures.append(repr(error))

threads = [threading.Thread(target=first_call, args=(k,)) for k in range(THREADS)]
for t in threads: t.start()
for t in threads: t.join()
print(len(set(devices)), failures)
"""


def _child(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=SUPPORT, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.mark.parametrize("runs", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_threads_making_their_first_gpu_call_together_share_one_device(runs: int, gpu_adapter: Any) -> None:
    """`gpu_device()` was a plain functools.cache: 8 threads calling it at once
    made 8 devices, and a kernel op then failed with "the words of buffer
    `data` live on another device" (wgpu-core could also abort the process),
    in each of 3 runs. One run (a new process), and three in make test-all."""
    for _ in range(runs):
        done = _child("-c", _FIRST_CALLS, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "1 []", done.stdout + done.stderr


@pytest.mark.parametrize("seconds", [5, pytest.param(25, marks=pytest.mark.slow)])  # the soak: make test-all
def test_eight_threads_run_programs_and_ops_with_right_results(seconds: int, gpu_adapter: Any) -> None:
    """8 threads for 5 s, and 25 s in make test-all (test/support/thread_load.py):
    shared, own and newly built programs, F32, device-resident chains, scalar
    and kernel ops, on wgpu and the interpreter; every result checked, no
    thread left hanging."""
    done = _child(str(SUPPORT / "thread_load.py"), "8", str(seconds), timeout=400)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "0 failures, 0 hung" in done.stdout
