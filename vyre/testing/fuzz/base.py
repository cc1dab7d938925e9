"""What every fuzzer provides, and the registry of fuzzers (lazy)."""

from __future__ import annotations

import importlib
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

__all__ = [
    "FUZZERS",
    "IN_CHECKOUT",
    "SUPPORT",
    "Fuzzer",
    "FuzzerUnavailable",
    "OracleFailure",
    "describe",
    "get_fuzzer",
    "unavailable",
]


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
    "kernel": "kernel_fuzz:KernelFuzzer",
}
"""Fuzzer name -> `module:class`, imported on first use."""

SUPPORT = Path(__file__).resolve().parents[3] / "test" / "support"
"""The checkout's test-support modules, beside the tests that use them."""

IN_CHECKOUT: dict[str, str] = {"kernel": "kernel_fuzz.py"}
"""Fuzzers whose module is a file of `SUPPORT` (the kernel fuzzer and its
oracles are test code): they run from a checkout only."""


class FuzzerUnavailable(ValueError):
    """A fuzzer whose module is not installed (test code that lives in a checkout)."""


def unavailable(name: str) -> str | None:
    """Why the fuzzer `name` cannot run here (one line), or None."""
    file = IN_CHECKOUT.get(name)
    if file is None or (SUPPORT / file).is_file():
        return None
    others = ",".join(n for n in FUZZERS if n not in IN_CHECKOUT)
    return (
        f"the {name} fuzzer is test code (test/support/{file} of a vyre checkout), which this"
        f" installation does not have: run it from a checkout, or choose --only {others}"
    )


def get_fuzzer(name: str, seed: int = 0) -> Fuzzer:
    """The fuzzer `name` for `seed` (its inputs are a function of the seed);
    `FuzzerUnavailable` for a fuzzer of the checkout's tests run elsewhere."""
    target = FUZZERS.get(name)
    if target is None:
        raise ValueError(f"unknown fuzzer {name!r}; choose from {', '.join(FUZZERS)}")
    if name in IN_CHECKOUT:
        problem = unavailable(name)
        if problem is not None:
            raise FuzzerUnavailable(problem)
        if str(SUPPORT) not in sys.path:
            sys.path.append(str(SUPPORT))
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
