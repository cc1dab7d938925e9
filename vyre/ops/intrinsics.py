"""How backends run the Category C ops that stay `vyre.call` after inline-calls.

`inline-calls` rewrites the intrinsics that are vyre UnOps (popcount, clz, ctz,
reverse_bits) into those UnOps. Every other Category C op reaches the lowering
and the interpreter as a `vyre.call` and is mapped 1:1:

- the WGSL lowering emits `<WGSL_BUILTINS[op_id]>(arg0, arg1, ...)`, the
  arguments in call order (all u32 for the primitive families);
- the reference interpreter runs its own vectorised implementation of the
  same WGSL definitions (vyre/runtime/interp/intrinsics.py: the oracle shares no
  code with the op's reference or the lowering); `SCALAR` here is the plain-int
  form used by the library's own tests and tools.

Both follow WGSL's definitions (extractBits/insertBits on u32: `o = min(offset,
32)`, `c = min(count, 32 - o)`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from vyre.ops.registry import resolve

__all__ = ["SCALAR", "WGSL_BUILTINS", "is_call_intrinsic", "wgsl_builtin"]

_U32 = 0xFFFF_FFFF


def _field(offset: int, count: int) -> tuple[int, int]:
    o = min(offset, 32)
    return o, min(count, 32 - o)


def extract_bits(e: int, offset: int, count: int) -> int:
    """WGSL `extractBits(e: u32, offset: u32, count: u32) -> u32`."""
    o, c = _field(offset, count)
    return (e >> o) & ((1 << c) - 1)


def insert_bits(e: int, newbits: int, offset: int, count: int) -> int:
    """WGSL `insertBits(e: u32, newbits: u32, offset: u32, count: u32) -> u32`."""
    o, c = _field(offset, count)
    mask = ((1 << c) - 1) << o
    return ((e & ~mask) | ((newbits << o) & mask)) & _U32


WGSL_BUILTINS: Mapping[str, str] = {
    "primitive.bitwise.extract_bits": "extractBits",
    "primitive.bitwise.insert_bits": "insertBits",
}
"""WGSL builtin function per Category C op id that stays a call."""

SCALAR: Mapping[str, Callable[..., int]] = {
    "primitive.bitwise.extract_bits": extract_bits,
    "primitive.bitwise.insert_bits": insert_bits,
}
"""Plain-Python evaluation per Category C op id that stays a call."""


def is_call_intrinsic(op_id: str) -> bool:
    """True for a registered Category C op that inline-calls leaves as a call."""
    spec = resolve(op_id)
    intrinsic = None if spec is None else spec.intrinsic
    return intrinsic is not None and intrinsic.unop is None


def wgsl_builtin(op_id: str) -> str:
    """The WGSL builtin of a Category C op (registered user intrinsics included)."""
    spec = resolve(op_id)
    if spec is None:
        raise ValueError(f"`{op_id}` is not a registered op (V016)")
    intrinsic = spec.intrinsic
    if intrinsic is None:
        raise ValueError(f"`{op_id}` is Category A: inline it (inline-calls), do not lower it")
    return intrinsic.wgsl
