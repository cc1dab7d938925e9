"""The independence gate: a test oracle must not be the implementation it judges.

- A user-supplied oracle for op X is rejected when it is X's CPU reference
  (the same function object, a wrapper of it, a bound/partial form of it, or the
  same code), or when evaluating it runs X's reference (`runs_function`).
- The reference check (backend vs CPU reference) of X is rejected on a backend
  whose evaluation of X runs X's reference itself (the check would compare the
  reference with itself).
- Parity on the reference interpreter is rejected (it would compare the
  interpreter with itself).

Law checks are independent by construction: their oracle is the op at other
points or other ops, never a reference.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

__all__ = ["IndependenceError", "check_oracle", "runs_function", "same_function"]


class IndependenceError(ValueError):
    """A tautological oracle, rejected by the independence gate."""


def _unwrap(fn: Any) -> Any:
    seen: set[int] = set()
    while id(fn) not in seen:
        seen.add(id(fn))
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif hasattr(fn, "__func__"):
            fn = fn.__func__
        elif hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        else:
            break
    return fn


def _code(fn: Any) -> CodeType | None:
    code = getattr(_unwrap(fn), "__code__", None)
    return code if isinstance(code, CodeType) else None


def same_function(oracle: Any, reference: Any) -> bool:
    """True when `oracle` is `reference` (or wraps it, or runs the same code)."""
    if oracle is reference:
        return True
    left, right = _unwrap(oracle), _unwrap(reference)
    if left is right:
        return True
    code = _code(left)
    return code is not None and code is _code(right)


def runs_function(action: Callable[[], object], target: Any) -> bool:
    """Whether running `action()` executes the Python code of `target`,
    observed with a profile hook. (A C callable such as a numpy ufunc used
    directly as a reference cannot be told apart from the backend's own use of
    numpy, so only Python code is traced; `same_function` still catches it.)"""
    code = _code(target)
    if code is None:
        return False
    hit = False

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal hit
        if event == "call" and frame.f_code is code:
            hit = True

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(previous)
    return hit


def check_oracle(op_id: str, oracle: Any, reference: Any, probe: Callable[[], object]) -> None:
    """Reject `oracle` for `op_id` when it is, wraps or runs the op's own reference.
    `probe` evaluates the oracle on a few inputs."""
    if not callable(oracle):
        raise IndependenceError(
            f"the oracle given for `{op_id}` is not callable ({type(oracle).__name__})"
        )
    if same_function(oracle, reference):
        raise IndependenceError(
            f"the oracle given for `{op_id}` is the op's own CPU reference: a check against"
            " it would be tautological. Fix: write the expected values independently"
            " (a table, a different algorithm)."
        )
    if runs_function(probe, reference):
        raise IndependenceError(
            f"the oracle given for `{op_id}` calls the op's own CPU reference: a check against"
            " it would be tautological. Fix: compute the expected values without it."
        )
