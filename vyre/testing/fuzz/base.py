"""What every fuzzer provides, and the registry of fuzzers (lazy)."""

from __future__ import annotations

import importlib
import traceback
from collections.abc import Callable
from typing import Protocol

__all__ = ["FUZZERS", "Fuzzer", "OracleFailure", "describe", "get_fuzzer"]


class OracleFailure(Exception):
    """The input was accepted but the result is wrong (a round trip that changed
    the program, two backends that disagree)."""


class Fuzzer(Protocol):
    name: str
    extension: str
    """File suffix of its corpus entries."""

    def generate(self, index: int) -> bytes:
        """The `index`-th input of this fuzzer's seed (deterministic)."""
        ...

    def check(self, data: bytes) -> None:
        """Feed one input through the code under test. Returns when every outcome
        is allowed; raises `OracleFailure`, or lets an unexpected exception out."""
        ...

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        """A smaller input that still fails (the input itself if none is found)."""
        ...


FUZZERS: dict[str, str] = {
    "text": "vyre.testing.fuzz.text:TextFuzzer",
    "wire": "vyre.testing.fuzz.wire:WireFuzzer",
    "api": "vyre.testing.fuzz.api:ApiFuzzer",
    "differential": "vyre.testing.fuzz.differential:DifferentialFuzzer",
    "kernel": "vyre.testing.kernel_fuzz:KernelFuzzer",
}
"""Fuzzer name -> `module:class`, imported on first use."""


def get_fuzzer(name: str, seed: int = 0) -> Fuzzer:
    """The fuzzer `name` for `seed` (its inputs are a function of the seed)."""
    target = FUZZERS.get(name)
    if target is None:
        raise ValueError(f"unknown fuzzer {name!r}; choose from {', '.join(FUZZERS)}")
    module, _, cls = target.partition(":")
    factory: Callable[[int], Fuzzer] = getattr(importlib.import_module(module), cls)
    return factory(seed)


def describe(error: BaseException) -> str:
    """`Type: message (file:line in function)` at the innermost frame: what
    identifies a failure (two inputs failing there are one bug)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" ({last.filename.rsplit('/', 1)[-1]}:{last.lineno} in {last.name})"
    message = str(error).splitlines()[0][:300] if str(error) else ""
    return f"{type(error).__name__}: {message}{where}"
