"""The fuzzing harness finds hangs, tracebacks, wrong results and crashes, and
shrinks and saves each (vyre/testing/fuzz/harness.py)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vyre.testing.fuzz import FUZZERS, OracleFailure
from vyre.testing.fuzz.harness import run_fuzzer
from vyre.testing.fuzz.shrink import ddmin, shrink_bytes


class PlantedFuzzer:
    """Input k is `k` spaces and the byte k; some inputs misbehave on purpose."""

    name = "planted"
    extension = "bin"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def generate(self, index: int) -> bytes:
        return b" " * index + bytes([index])

    def check(self, data: bytes) -> None:
        kind = data[-1]
        if kind == 2:
            while True:  # a hang that no signal interrupts in time
                pass
        if kind == 4:
            raise AttributeError("planted traceback")
        if kind == 5:
            os._exit(3)  # a crash of the checking process
        if kind == 6:
            raise OracleFailure("planted wrong result")

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        return shrink_bytes(data, still_fails)


@pytest.fixture
def planted() -> Iterator[str]:
    FUZZERS["planted"] = f"{__name__}:PlantedFuzzer"
    yield "planted"
    del FUZZERS["planted"]


def test_every_kind_of_failure_is_found_shrunk_and_saved(planted: str, tmp_path: Path) -> None:
    report = run_fuzzer(planted, max_inputs=8, seconds=120, corpus=tmp_path, hang_seconds=3.0)  # a restart after a crash outlasts 1 s on a loaded VM
    assert report.inputs == 8
    found = {(f.kind, f.index) for f in report.failures}
    assert found == {("hang", 2), ("traceback", 4), ("crash", 5), ("oracle", 6)}
    traceback = next(f for f in report.failures if f.kind == "traceback")
    assert "AttributeError: planted traceback" in traceback.description
    saved = {path.read_bytes() for path in (tmp_path / planted).iterdir()}
    assert bytes([4]) in saved and bytes([6]) in saved  # shrunk: the spaces are gone
    assert b" " * 2 + bytes([2]) in saved and b" " * 5 + bytes([5]) in saved  # kept as found


def test_ddmin_finds_a_minimal_failing_subsequence() -> None:
    assert ddmin(list(range(100)), lambda items: 17 in items and 83 in items) == [17, 83]
