"""The laws of kernel ops: properties of whole-buffer ops that the
proof system witnesses on generated inputs (`vyre.conform.kernel_track`).

Each law gets the op as a function of its user inputs (evaluated on the backend
under test, returning every output) and one input tuple, and returns None when
the property holds there, else what was violated. A law checks the op against
itself and numpy only, never against the op's reference: parity with the
reference is its own obligation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vyre.kernels.spec import KernelLaw

__all__ = [
    "EmptyIs",
    "ExactOnSmallIntegers",
    "ExclusiveScanRecurrence",
    "IndexOfExtreme",
    "InclusiveScanRecurrence",
    "PermutationInvariant",
    "ResultInInput",
    "ScanSplit",
    "SplitCombine",
    "StrictSumRecurrence",
    "TreeSplit",
]

Op = Callable[..., tuple[np.ndarray, ...]]


def _split_point(n: int) -> int:
    return n // 3 if n >= 3 else n // 2


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _show(value: np.ndarray) -> str:
    if value.size <= 4:
        return str([int(v) if value.dtype.kind in "ui" else float(v) for v in value])
    return f"array of {value.size}"


class SplitCombine(KernelLaw):
    """op(a ‖ b) == combine(op(a), op(b)) (e.g. sum(a‖b) = sum(a)+sum(b))."""

    name = "SplitCombine"

    def __init__(self, combine: Callable[[np.ndarray, np.ndarray], np.ndarray]):
        self.combine = combine

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0])
        k = _split_point(len(x))
        whole = op(x, *args[1:])[0]
        left, right = op(x[:k], *args[1:])[0], op(x[k:], *args[1:])[0]
        expected = np.asarray(self.combine(left, right), dtype=whole.dtype)
        if not _same(whole, expected):
            return f"op(a‖b) = {_show(whole)} but combine(op(a), op(b)) = {_show(expected)} (split at {k})"
        return None


class PermutationInvariant(KernelLaw):
    """op(x) == op(reversed x) and op of a rotation of x."""

    name = "PermutationInvariant"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0])
        whole = op(x, *args[1:])[0]
        for label, permuted in (("reversed", x[::-1].copy()), ("rotated", np.roll(x, len(x) // 2 + 1))):
            other = op(permuted, *args[1:])[0]
            if not _same(whole, other):
                return f"op(x) = {_show(whole)} but op({label} x) = {_show(other)}"
        return None


class ResultInInput(KernelLaw):
    """For non-empty x the result is one of the elements (min, max)."""

    name = "ResultInInput"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0])
        if not len(x):
            return None
        value = op(x)[0]
        if not np.isin(value, x).all():
            return f"result {_show(value)} is not an element of the input"
        return None


class EmptyIs(KernelLaw):
    """op(empty) == value (C5: the identity of the reduction, or NONE)."""

    name = "EmptyIs"

    def __init__(self, value: int):
        self.value = value
        self.name = f"EmptyIs({value:#x})" if value > 9 else f"EmptyIs({value})"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0])
        value = op(x[:0], *args[1:])[0]
        if value.shape != (1,) or int(value.view(np.uint32)[0]) != self.value:
            return f"op(empty) = {_show(value)}, expected {self.value:#x}"
        return None


class IndexOfExtreme(KernelLaw):
    """x[r] is the minimum (maximum) and no earlier element equals it."""

    name = "IndexOfExtreme"

    def __init__(self, extreme: str):
        self.extreme = extreme
        self.name = f"IndexOf({extreme})"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0])
        if not len(x):
            return None
        r = int(op(x)[0][0])
        if r >= len(x):
            return f"index {r} is outside the input of {len(x)}"
        best = x.min() if self.extreme == "min" else x.max()
        if x[r] != best:
            return f"x[{r}] = {int(x[r])} is not the {self.extreme} {int(best)}"
        if np.any(x[:r] == best):
            return f"x[{int(np.flatnonzero(x == best)[0])}] is an earlier {self.extreme} than {r}"
        return None


class InclusiveScanRecurrence(KernelLaw):
    """out[0] = x[0]; out[i] = out[i-1] + x[i] (wrapping); same length."""

    name = "ScanRecurrence"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint32)
        out = op(x)[0].astype(np.uint32)
        if out.shape != x.shape:
            return f"output has {out.size} elements for {x.size} inputs"
        if len(x) and out[0] != x[0]:
            return f"out[0] = {int(out[0])} != x[0] = {int(x[0])}"
        bad = np.flatnonzero(out[1:] != out[:-1] + x[1:])
        if bad.size:
            i = int(bad[0]) + 1
            return f"out[{i}] = {int(out[i])} != out[{i - 1}] + x[{i}]"
        return None


class ExclusiveScanRecurrence(KernelLaw):
    """out[0] = 0; out[i] = out[i-1] + x[i-1] (wrapping); same length."""

    name = "ExclusiveScanRecurrence"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint32)
        out = op(x)[0].astype(np.uint32)
        if out.shape != x.shape:
            return f"output has {out.size} elements for {x.size} inputs"
        if len(x) and out[0] != 0:
            return f"out[0] = {int(out[0])} != 0"
        bad = np.flatnonzero(out[1:] != out[:-1] + x[:-1])
        if bad.size:
            i = int(bad[0]) + 1
            return f"out[{i}] = {int(out[i])} != out[{i - 1}] + x[{i - 1}]"
        return None


class ScanSplit(KernelLaw):
    """scan(a ‖ b) = scan(a) ‖ (scan(b) + total(a)), total(a) = sum of a."""

    name = "ScanSplit"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint32)
        k = _split_point(len(x))
        whole = op(x)[0]
        total = np.uint32(int(x[:k].sum(dtype=np.uint64)) & 0xFFFF_FFFF)
        expected = np.concatenate([op(x[:k])[0], op(x[k:])[0] + total]).astype(np.uint32)
        if not _same(whole, expected):
            bad = int(np.flatnonzero(whole != expected)[0]) if whole.shape == expected.shape else -1
            return f"scan(a‖b) differs from scan(a) ‖ (scan(b) + sum(a)) at {bad} (split at {k})"
        return None


def _f32_add(a: np.float32, b: np.float32) -> np.ndarray:
    with np.errstate(all="ignore"):
        total = np.array([a], dtype=np.float32) + np.array([b], dtype=np.float32)
    if np.isnan(total[0]):
        return np.array([0x7FC0_0000], dtype=np.uint32).view(np.float32)
    return total


class TreeSplit(KernelLaw):
    """For n >= 2: tree(x) = tree(x[:mid]) + tree(x[mid:]) bit for bit, mid the
    largest power of two below n (the canonical tree of docs/tensors.md)."""

    name = "TreeSplit"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.float32)
        if len(x) < 2:
            return None
        mid = 1 << ((len(x) - 1).bit_length() - 1)
        whole = op(x)[0]
        expected = _f32_add(op(x[:mid])[0][0], op(x[mid:])[0][0])
        if whole.tobytes() != expected.tobytes():
            return (
                f"tree(x) = {whole.view(np.uint32)[0]:#010x} but tree(x[:{mid}]) + tree(x[{mid}:])"
                f" = {expected.view(np.uint32)[0]:#010x}"
            )
        return None


class StrictSumRecurrence(KernelLaw):
    """For n >= 2: strict(x) = strict(x[:n-1]) + x[n-1] bit for bit."""

    name = "StrictSumRecurrence"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.float32)
        if len(x) < 2:
            return None
        whole = op(x)[0]
        expected = _f32_add(op(x[:-1])[0][0], x[-1])
        if whole.tobytes() != expected.tobytes():
            return (
                f"strict(x) = {whole.view(np.uint32)[0]:#010x} but strict(x[:-1]) + x[-1]"
                f" = {expected.view(np.uint32)[0]:#010x}"
            )
        return None


class ExactOnSmallIntegers(KernelLaw):
    """On integers of magnitude < 2^10 (n <= 2^13 of them, so every partial sum
    is an integer below 2^24 and every addition is exact) the sum is the exact
    integer sum, whatever the order."""

    name = "ExactOnSmallIntegers"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.float32)
        n = min(len(x), 1 << 13)
        bits = x[:n].view(np.uint32)
        small = ((bits % 2047).astype(np.int64) - 1023).astype(np.float32)
        got = op(small)[0]
        exact = float(small.astype(np.int64).sum()) if n else 0.0
        if n == 1:
            exact = float(small[0])
        if got.shape != (1,) or float(got[0]) != exact or (exact == 0 and n != 1 and np.signbit(got[0])):
            return f"sum of {n} small integers is {got[0] if got.size else got!r}, exactly {exact}"
        return None
