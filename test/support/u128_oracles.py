"""The u128 fuzzer's oracle: docs/semantics.md's integer rules on Python ints,
written from the document alone (nothing here is imported from vyre).

A tree is JSON: `["lit", type, value]` (`u128` or `u32`), `["load", buffer,
offset]` (element `i + offset` of an input buffer, 0 past its end),
`["bin", op, x, y]`, `["un", op, x]`, `["cast", type, x]`, `["select", c, t,
f]`. `evaluate` gives `(type, value)` where a scalar or `u64`/`u128` value is an
int (a `u32`/`i32`/`bool` one its 32-bit pattern) and a vector a tuple of
words; a program the documented rules refuse raises `Invalid`, naming the
rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["INPUT_TYPES", "Invalid", "evaluate", "store"]

W32 = (1 << 32) - 1
W64 = (1 << 64) - 1
W128 = (1 << 128) - 1

INPUT_TYPES: dict[str, str] = {"a": "u128", "b": "u128", "w": "u32"}
"""The input buffers and their element types."""

SCALARS = ("u32", "i32", "bool")
INTEGER_TYPES = (*SCALARS, "u64", "vec2u32", "vec4u32", "u128")
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")

Value = int | tuple[int, ...]


class Invalid(Exception):
    """The documented rules refuse the program (the message names the rule)."""


def _u128_binary(op: str, a: int, b: int) -> int:
    """Two u128 operands (semantics.md, "u128"): wrapping, /0 and %0 are 0,
    shifts by the amount's low seven bits, unsigned comparisons give 1 or 0."""
    if op == "add":
        return (a + b) % (1 << 128)
    if op == "sub":
        return (a - b) % (1 << 128)
    if op == "mul":
        return (a * b) % (1 << 128)
    if op == "div":
        return a // b if b else 0
    if op == "mod":
        return a % b if b else 0
    if op in ("bit_and", "bit_or", "bit_xor"):
        return {"bit_and": a & b, "bit_or": a | b, "bit_xor": a ^ b}[op]
    if op == "shl":
        return (a << (b % 128)) % (1 << 128)
    if op == "shr":
        return a >> (b % 128)
    if op in COMPARISONS:
        return int({"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op])
    raise Invalid(f"V145: `{op}` is not defined on u128")


def _u32_binary(op: str, a: int, b: int) -> int:
    """Two 32-bit operands (semantics.md, "Integer operations")."""
    if op in ("add", "sub", "mul"):
        return {"add": a + b, "sub": a - b, "mul": a * b}[op] % (1 << 32)
    if op == "div":
        return a // b if b else 0
    if op == "mod":
        return a % b if b else 0
    if op in ("bit_and", "bit_or", "bit_xor"):
        return {"bit_and": a & b, "bit_or": a | b, "bit_xor": a ^ b}[op]
    if op == "shl":
        return (a << (b % 32)) % (1 << 32)
    if op == "shr":
        return a >> (b % 32)
    if op in COMPARISONS:
        return int({"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op])
    if op in ("and", "or"):
        return int(a != 0 and b != 0) if op == "and" else int(a != 0 or b != 0)
    raise Invalid(f"`{op}` is not an integer operation")


def _count(op: str, value: int, width: int) -> int:
    if op == "popcount":
        return bin(value).count("1")
    if op == "clz":
        return width - len(bin(value)) + 2 if value else width
    bits = bin(value)[2:]
    return len(bits) - len(bits.rstrip("0")) if value else width


def _unary(op: str, kind: str, a: int) -> tuple[str, int]:
    if kind == "u128":
        if op == "bit_not":
            return "u128", W128 - a
        if op in ("popcount", "clz", "ctz"):
            return "u32", _count(op, a, 128)
        raise Invalid(f"V145: `{op}` is not defined on u128")
    if kind != "u32":
        raise ValueError(f"`{op}` of {kind}: outside the cases the fuzzer makes")
    if op == "negate":
        return "u32", (-a) % (1 << 32)
    if op == "bit_not":
        return "u32", W32 - a
    if op == "logical_not":
        return "u32", int(a == 0)
    if op == "reverse_bits":
        return "u32", int(f"{a:032b}"[::-1], 2)
    if op in ("popcount", "clz", "ctz"):
        return "u32", _count(op, a, 32)
    raise Invalid(f"`{op}` is not an integer operation")


def _words(kind: str, value: Value) -> tuple[int, ...]:
    """The value's 32-bit words, the least significant first."""
    if isinstance(value, tuple):
        return value
    count = {"u64": 2, "u128": 4}.get(kind, 1)
    return tuple((value >> (32 * k)) & W32 for k in range(count))


def cast(source: str, value: Value, target: str) -> Value:
    """semantics.md's cast table among the integer types (`Invalid` for a pair
    it leaves out: `u64`/`vec2u32` to `vec4u32`, anything with another type)."""
    if source not in INTEGER_TYPES or target not in INTEGER_TYPES:
        raise Invalid(f"V012: cast from {source} to {target}")
    words = _words(source, value)
    if source == target:
        return value
    if target == "bool":
        return int(any(words))
    if source == "bool":
        return {"vec2u32": (words[0],) * 2, "vec4u32": (words[0],) * 4}.get(target, words[0])
    if source in ("u32", "i32"):
        word = words[0]
        if target in ("u32", "i32"):
            return word
        if target in ("vec2u32", "vec4u32"):
            return (word,) * (2 if target == "vec2u32" else 4)
        negative = source == "i32" and word >= 1 << 31
        return (word - (1 << 32) if negative else word) % (1 << (64 if target == "u64" else 128))
    if target in ("u32", "i32"):
        return words[0]
    if target == "u128":  # zero-extend u64/vec2u32; vec4u32 is the same storage
        return sum(w << (32 * k) for k, w in enumerate(words))
    if target == "vec4u32":
        if source != "u128":
            raise Invalid(f"V012: cast from {source} to {target}")
        return words
    low = words[:2]  # u64 or vec2u32 from any of the wider ones: words 0 and 1
    return low if target == "vec2u32" else low[0] | low[1] << 32


def evaluate(tree: Sequence[Any], row: int, inputs: Mapping[str, Sequence[int]]) -> tuple[str, Value]:
    """`(type, value)` of `tree` in invocation `row` (`Invalid` when the rules refuse it)."""
    head = tree[0]
    if head == "lit":
        kind, value = str(tree[1]), int(tree[2])
        return kind, value
    if head == "load":
        name, offset = str(tree[1]), int(tree[2])
        column = inputs[name]
        index = row + offset
        return INPUT_TYPES[name], int(column[index]) if index < len(column) else 0
    if head == "select":
        kc, c = evaluate(tree[1], row, inputs)
        kt, t = evaluate(tree[2], row, inputs)
        kf, f = evaluate(tree[3], row, inputs)
        if kc != "u32":
            raise ValueError(f"select on a {kc}: outside the cases the fuzzer makes")
        if kt != kf:
            raise Invalid(f"select of {kt} or {kf}")
        return kt, t if c != 0 else f
    if head == "cast":
        kind, value = evaluate(tree[2], row, inputs)
        return str(tree[1]), cast(kind, value, str(tree[1]))
    op = str(tree[1])
    kx, x = evaluate(tree[2], row, inputs)
    if head == "un":
        assert isinstance(x, int), tree
        return _unary(op, kx, x)
    ky, y = evaluate(tree[3], row, inputs)
    assert isinstance(x, int) and isinstance(y, int), tree
    if "u128" in (kx, ky):
        if kx != ky:
            raise Invalid(f"V144: `{op}` of {kx} and {ky}")
        return ("u32" if op in COMPARISONS else "u128"), _u128_binary(op, x, y)
    if kx != "u32" or ky != "u32":
        raise ValueError(f"`{op}` of {kx} and {ky}: outside the cases the fuzzer makes")
    return "u32", _u32_binary(op, x, y)


def store(kind: str, tree: Sequence[Any], row: int, inputs: Mapping[str, Sequence[int]]) -> int:
    """The value `out[row] = tree` leaves in a buffer of element type `kind`."""
    found, value = evaluate(tree, row, inputs)
    if found != kind:
        raise Invalid(f"a {found} stored to a {kind} buffer")
    assert isinstance(value, int)
    return value
