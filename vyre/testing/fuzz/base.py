"""What every fuzzer provides, and the registry of fuzzers (lazy)."""

from __future__ import annotations

import importlib
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = [
    "FUZZERS",
    "HANG_SECONDS",
    "IN_CHECKOUT",
    "SUPPORT",
    "TARGETS",
    "Fuzzer",
    "FuzzerUnavailable",
    "OracleFailure",
    "Target",
    "describe",
    "get_fuzzer",
    "hang_seconds",
    "unavailable",
    "weight",
]

HANG_SECONDS = 10.0
"""CPU seconds on one input past which it is a hang (a target may allow more)."""


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


@dataclass(frozen=True)
class Target:
    """A fuzz target of the driver: its name (`--only NAME`, the corpus folder),
    the fuzzer class as `module:class` (imported on first use), its share of a
    timed run, the test-support file it lives in when it is test code (its
    oracles are the checkout's: it runs from a checkout only), and the CPU
    seconds on one input past which an input is a hang."""

    name: str
    factory: str
    weight: int = 1
    support_file: str | None = None
    hang_seconds: float = HANG_SECONDS


TARGETS: tuple[Target, ...] = (
    Target("text", "vyre.testing.fuzz.text:TextFuzzer", weight=3),
    Target("wire", "vyre.testing.fuzz.wire:WireFuzzer", weight=3),
    Target("api", "vyre.testing.fuzz.api:ApiFuzzer", weight=1),
    Target("differential", "vyre.testing.fuzz.differential:DifferentialFuzzer", weight=3),
    Target("kernel", "kernel_fuzz:KernelFuzzer", weight=3, support_file="kernel_fuzz.py"),
    # lavapipe's LLVM compiles a program holding two soft-float functions in up to
    # about 20 s of CPU: a hang there is a minute
    Target("float-functions", "float_fuzz:FloatFunctionsFuzzer", weight=3, support_file="float_fuzz.py", hang_seconds=60.0),
    Target("tensor", "tensor_fuzz:TensorFuzzer", weight=3, support_file="tensor_fuzz.py", hang_seconds=30.0),
    Target("tensor-text", "tensor_text_fuzz:TensorTextFuzzer", weight=2, support_file="tensor_text_fuzz.py"),
    Target("u128", "u128_fuzz:U128Fuzzer", weight=2, support_file="u128_fuzz.py"),
)
"""The registry of fuzz targets, in the order `make fuzz` runs them. A new
target is one entry here (and its corpus folder under test/fuzz_corpus/)."""

FUZZERS: dict[str, str] = {target.name: target.factory for target in TARGETS}
"""Fuzzer name -> `module:class` (tests plant fuzzers of their own here)."""

SUPPORT = Path(__file__).resolve().parents[3] / "test" / "support"
"""The checkout's test-support modules, beside the tests that use them."""

IN_CHECKOUT: dict[str, str] = {t.name: t.support_file for t in TARGETS if t.support_file is not None}
"""Fuzzers whose module is a file of `SUPPORT` (the kernel, float-functions,
tensor, tensor-text and u128 fuzzers and their oracles are test code; tensor-text
runs vyre-opt, a tool above vyre.testing's layer): they run from a checkout
only."""


def _target(name: str) -> Target | None:
    return next((t for t in TARGETS if t.name == name), None)


def weight(name: str) -> int:
    """The target's share of a timed run (1 for a fuzzer outside the registry)."""
    target = _target(name)
    return target.weight if target is not None else 1


def hang_seconds(name: str) -> float:
    """CPU seconds on one input past which the target's input is a hang."""
    target = _target(name)
    return target.hang_seconds if target is not None else HANG_SECONDS


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
