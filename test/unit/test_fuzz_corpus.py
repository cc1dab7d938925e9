"""The fuzzers' regression corpus, replayed forever (docs/reliability.md).

`make fuzz` (python -m vyre.testing.fuzz) shrinks every failure it finds and
saves it under test/fuzz_corpus/<fuzzer>/; each entry must now pass its
fuzzer's oracle: no traceback, no hang, no wrong result (the differential
entries run on the interpreter and on wgpu). The corpus also holds the inputs
of earlier reliability defects (an unterminated 10 kB string, a workgroup size
past u32, a literal out of range, 200- and 1,100-level nesting, a generic-form
op of an unknown kind, a use before definition)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from vyre.testing.fuzz import FUZZERS, get_fuzzer
from vyre.testing.fuzz.base import hang_seconds
from vyre.testing.fuzz.harness import CORPUS, HANG_SECONDS

ENTRIES = sorted(
    path for name in FUZZERS for path in (CORPUS / name).glob("*") if not path.name.startswith(".")
)


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer within {seconds:.0f} s: a hang")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


DRIVER_CRASHES = {"8a0de831eb9e5e71.json"}
"""Differential entries that crashed NVIDIA's Vulkan driver (580.159.04) inside
`create_compute_pipeline`: a segfault of the process, 1 of 20,000 random programs on the
H100. Reduced on the GPU machine to 50 lines of WGSL (bench/results/nvidia-pipeline-crash-50.wgsl):
a loop whose constant bounds give no iteration, then a half-word compare-exchange store. The
lowering no longer emits such a loop, and the entry passes on the H200 with that driver. It
still runs in a subprocess, so that a regression fails this test instead of killing pytest."""


def test_the_corpus_holds_every_fuzzer() -> None:
    assert {path.parent.name for path in ENTRIES} == set(FUZZERS)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_corpus_entry_passes_its_oracle(entry: Path, request: pytest.FixtureRequest) -> None:
    if entry.parent.name == "differential":
        request.getfixturevalue("gpu_adapter")  # a differential entry needs a GPU adapter
        if entry.name in DRIVER_CRASHES:
            _in_a_subprocess(entry)
            return
    fuzzer = get_fuzzer(entry.parent.name)
    with _deadline(3 * hang_seconds(entry.parent.name)):
        fuzzer.check(entry.read_bytes())


def _in_a_subprocess(entry: Path) -> None:
    code = (
        "import sys; from vyre.testing.fuzz import get_fuzzer; "
        "get_fuzzer('differential').check(open(sys.argv[1], 'rb').read())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(entry)], capture_output=True, text=True, timeout=6 * HANG_SECONDS
    )
    assert done.returncode == 0, done.stderr[-2000:]

