"""Integer soft-float: strict IEEE 754 F32, F16 and BF16 over u32 words.

Every strict float operation is a straight-line program of vyre's integer
operations (`machine.W`: wrapping add/sub/mul, bitwise ops, masked shifts,
unsigned compares, select, clz) on bit patterns, so no GPU float unit decides a
result bit. One shared rounding core (`pack.round_pack`) handles round to
nearest even, subnormals and overflow for the three formats (`round_normal`
where no shift to the subnormal grid is needed). Every algorithm is written for
the three formats and computes F16 and BF16 directly in their own format, with
one rounding: add.py (guard and jam bits), mul.py, div.py (integer reciprocal,
quotient digits, exact remainder), sqrt.py (reciprocal square root, exact
remainder), fma.py (64-bit pairs for F32, one word for F16/BF16), over
wide.py's 64-bit helpers, and the fast paths of F32 add/sub, mul, div, sqrt and fma for normal values
(add_normal.py, mul_normal.py, div_normal.py, sqrt_normal.py, fma_normal.py:
`fast_path_of(op, fmt)`, (applies, result); float-strict invokes the whole
algorithm only where it does not apply); compare.py, rounding.py, convert.py.

The same functions run vectorised on numpy (`NumpyMachine`, for verification)
and build vyre IR (`ExprMachine`, for the `float-strict` pass):

```python
from vyre.transforms import softfloat as sf
m = sf.NumpyMachine()
bits = sf.binary("add", sf.F16)(m.word(a), m.word(b)).v
```

The catalogue (patterns of the format in, patterns out; comparisons and
classifications give 0/1 words; conversions take and give patterns or u32/i32
words): `binary(op, fmt)` for add sub mul div min max; `compare(op, fmt)` for
eq ne lt le gt ge; `unary(op, fmt)` for neg abs sqrt floor ceil round trunc
is_nan is_inf; `ternary("fma", fmt)`; `convert(source, target)` between
"u32", "i32" and the three formats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat import add, add_normal, asin, atan, compare, convert, div, div_normal, erf, exp, fma, fma_normal, log, mul, mul_normal, pow, rounding, sqrt, sqrt_normal, tanh, trig
from vyre.transforms.softfloat.formats import BF16, F16, F32, FORMATS, Format
from vyre.transforms.softfloat.machine import ExprMachine, NumpyMachine, W, sel
from vyre.transforms.softfloat.registry import ALGORITHMS, FAST_PATHS, Algorithm, FastPath

__all__ = [
    "ALGORITHMS", "BF16", "F16", "F32", "FORMATS", "ExprMachine", "Format", "NumpyMachine", "W",
    "FastPath", "algorithm_of", "binary", "fast_path_of", "compare_op", "convert_op", "count_ops", "sel", "ternary", "unary",
]  # fmt: skip

_MODULES = (add, add_normal, asin, atan, compare, div, div_normal, exp, fma, fma_normal, log, mul, mul_normal, pow, rounding, sqrt, sqrt_normal, trig, erf, tanh)
"""The modules that register algorithms (imported for that)."""

V = TypeVar("V")
Binary = Callable[[W[Any], W[Any]], W[Any]]
Unary = Callable[[W[Any]], W[Any]]


def algorithm_of(op: type[d.FloatOp], fmt: Format, variant: str = "") -> Algorithm:
    """The integer program of the strict float op class `op` in format `fmt`
    (`variant`: a comparison's predicate)."""
    return ALGORITHMS[op](fmt, variant)


def fast_path_of(op: type[d.FloatOp], fmt: Format) -> FastPath | None:
    """The program of `op`'s common case in `fmt` ((applies, result); the result is
    the algorithm's where applies is 1), or None: the op has no fast path there."""
    return FAST_PATHS.get((op, fmt.name))


def _named(base: type[d.FloatOp], name: str, what: str) -> type[d.FloatOp]:
    for op in d.strict_float_ops():
        if issubclass(op, base) and op.SHORT_NAME == name:
            return op
    raise KeyError(f"no soft-float {what} op `{name}`")


def binary(op: str, fmt: Format) -> Binary:
    """add, sub, mul, div, min, max of format `fmt`."""
    return algorithm_of(_named(d.FloatBinaryOp, op, "binary"), fmt)


def compare_op(op: str, fmt: Format) -> Binary:
    """eq, ne, lt, le, gt, ge of format `fmt`: 0/1 words."""
    return algorithm_of(d.FCmpOp, fmt, op)


def unary(op: str, fmt: Format) -> Unary:
    """neg, abs, sqrt, floor, ceil, round, trunc, is_nan, is_inf of `fmt`."""
    return algorithm_of(_named(d.FloatUnaryOp, op, "unary"), fmt)


def ternary(op: str, fmt: Format) -> Callable[[W[Any], W[Any], W[Any]], W[Any]]:
    """fma of `fmt` (one rounding)."""
    if op != "fma":
        raise KeyError(op)
    return algorithm_of(d.FmaOp, fmt)
def convert_op(source: str, target: str) -> Unary:
    """A conversion between "u32", "i32", "f32", "f16" and "bf16" (at least one
    side a float): the value converted as docs/floats.md defines it."""
    if source in ("u32", "i32"):
        fmt = FORMATS[target]
        return (lambda x: convert.from_u32(fmt, x)) if source == "u32" else (
            lambda x: convert.from_i32(fmt, x)
        )
    src = FORMATS[source]
    if target == "u32":
        return lambda x: convert.to_u32(src, x)
    if target == "i32":
        return lambda x: convert.to_i32(src, x)
    dst = FORMATS[target]
    if src is dst:
        return lambda x: x
    return lambda x: convert.from_f32(dst, convert.to_f32(src, x))


def count_ops(build: Callable[[ExprMachine], object]) -> int:
    """Integer operations `build` creates on a fresh ExprMachine."""
    machine = ExprMachine()
    build(machine)
    return machine.ops
