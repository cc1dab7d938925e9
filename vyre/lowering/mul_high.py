"""The WGSL of `mul_high`: the high word of the unsigned 64-bit product of two
u32 words (`BinOpKind.MUL_HIGH`).

Two forms, the same bits:

- portable (every adapter; WGSL has no 64-bit integer type of its own): a helper
  `vyre_mul_high(a, b)` from 16-bit halves (Hacker's Delight's `mulhu`). With
  a = ah 2^16 + al and b = bh 2^16 + bl, a b = ah bh 2^32 + (al bh + ah bl) 2^16
  + al bl; t = al bh + (al bl >> 16) and u = ah bl + (t & 0xffff) stay below
  2^32 (each is at most (2^16 - 1)^2 + 2^16 - 1), and a b = (ah bh + (t >> 16) +
  (u >> 16)) 2^32 + (u & 0xffff) 2^16 + (al bl & 0xffff): the high word is
  ah bh + (t >> 16) + (u >> 16), 16 operations;
- `int64` (options.py: the adapter offers wgpu's `shader-int64` and the device
  was requested with it): `u32((u64(a) * u64(b)) >> 32u)`, which a GPU runs as one
  wide multiply (NVIDIA: IMAD.WIDE.U32, which also yields `a * b`'s low word).
"""

from __future__ import annotations

from collections.abc import Callable

from vyre.dialects.vyre import DataTypeKind
from vyre.lowering.guards import Guards
from vyre.lowering.values import Value

__all__ = ["emit_mul_high", "mul_high_helper"]

U32 = DataTypeKind.U32


def mul_high_helper(name: str, claim: Callable[[str], str]) -> str:
    """The portable helper's WGSL text, `fn <name>(a: u32, b: u32) -> u32`, its
    parameters and locals named by `claim`."""
    a, b, al, ah, bl, bh, t, u = (claim(word) for word in ("a", "b", "al", "ah", "bl", "bh", "t", "u"))
    return (
        "// The high word of the 64-bit product a * b, from 16-bit halves.\n"
        f"fn {name}({a}: u32, {b}: u32) -> u32 {{\n"
        f"  let {al} = {a} & 0xffffu;\n"
        f"  let {ah} = {a} >> 16u;\n"
        f"  let {bl} = {b} & 0xffffu;\n"
        f"  let {bh} = {b} >> 16u;\n"
        f"  let {t} = {al} * {bh} + (({al} * {bl}) >> 16u);\n"
        f"  let {u} = {ah} * {bl} + ({t} & 0xffffu);\n"
        f"  return {ah} * {bh} + ({t} >> 16u) + ({u} >> 16u);\n"
        "}"
    )


def emit_mul_high(guards: Guards, lhs: Value, rhs: Value) -> Value:
    """`mul_high(lhs, rhs)` in the form the target takes (`guards.int64`); two
    constants never get here (they fold)."""
    if guards.int64:
        text = f"u32((u64({lhs.text}) * u64({rhs.text})) >> 32u)"
        return Value.derived(text, U32, lhs, rhs)

    def make(name: str) -> str:
        return mul_high_helper(name, guards.local_names())

    helper = guards.helper("mul_high", "vyre_mul_high", make)
    return Value.derived(f"{helper}({lhs.text}, {rhs.text})", U32, lhs, rhs)
