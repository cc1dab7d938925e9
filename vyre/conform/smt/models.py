# pyright: reportUnknownLambdaType=false, reportUnknownMemberType=false, reportUnknownArgumentType=false, reportUnknownVariableType=false
"""Formal models of the integer ops' references, written from each op's summary.

A model is a function `(B, *inputs) -> output` over the `Bits` vocabulary. It
is written separately from both the op's composition and its numpy reference,
and in a different formulation where one exists (popcount as an adder tree,
clz as a count of thresholds, ctz as a count of zero low fields, gcd as
Euclid's algorithm unrolled to Lamé's bound, saturation and averages in a
wider word, the high word of a 64-bit product). Each model is cross-checked
against the op's numpy reference exhaustively over u8 inputs and on the op's
boundary and class values (`check_model`), so a proof against the model is a
proof against the reference.

User ops get the same treatment by registering a model: `register_model(op_id,
model)`. An op without a model still has its laws proved on its composition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vyre.conform.smt.terms import Bits

__all__ = ["MODELS", "Model", "model_for", "register_model", "unregister_model"]

Model = Callable[..., Any]
MAX = 0xFFFF_FFFF

EUCLID_STEPS = 47
"""Euclid's algorithm on u32 needs at most 46 division steps (Lamé: the
smallest pair needing n steps is (F(n+2), F(n+1)), and F(48) > 2**32); one
more step is a no-op once y = 0."""


def _c(B: Bits, v: int, w: int = 32) -> Any:
    return B.const(v, w)


def _masked(B: Bits, b: Any) -> Any:
    return B.band(b, _c(B, 31))


# -- bitwise ------------------------------------------------------------------


def _rotl(B: Bits, a: Any, b: Any) -> Any:
    s = _masked(B, b)
    rotated = B.bor(B.shl(a, s), B.lshr(a, B.sub(_c(B, 32), s)))
    return B.ite(B.eq(s, _c(B, 0)), a, rotated)


def _rotr(B: Bits, a: Any, b: Any) -> Any:
    s = _masked(B, b)
    rotated = B.bor(B.lshr(a, s), B.shl(a, B.sub(_c(B, 32), s)))
    return B.ite(B.eq(s, _c(B, 0)), a, rotated)


def _bit_test(B: Bits, a: Any, b: Any) -> Any:
    selector = B.shl(_c(B, 1), _masked(B, b))
    return B.truth(B.nonzero(B.band(a, selector)))


def _byte_swap(B: Bits, a: Any) -> Any:
    return B.concat([B.extract(a, 8 * k + 7, 8 * k) for k in range(4)])


def _popcount(B: Bits, a: Any) -> Any:
    return B.sum([B.zext(B.bit(a, i), 31) for i in range(32)])


def _clz(B: Bits, a: Any) -> Any:
    # the bit length is the number of k in 1..32 with a >= 2**(k-1)
    length = B.sum([B.truth(B.uge(a, _c(B, 1 << (k - 1)))) for k in range(1, 33)])
    return B.sub(_c(B, 32), length)


def _ctz(B: Bits, a: Any) -> Any:
    return B.sum([B.truth(B.eq(B.extract(a, k - 1, 0), _c(B, 0, k))) for k in range(1, 33)])


def _reverse_bits(B: Bits, a: Any) -> Any:
    return B.concat([B.bit(a, i) for i in range(32)])


def _field(B: Bits, offset: Any, count: Any) -> tuple[Any, Any]:
    """WGSL: o = min(offset, 32), c = min(count, 32 - o)."""
    o = B.ite(B.ult(offset, _c(B, 32)), offset, _c(B, 32))
    room = B.sub(_c(B, 32), o)
    return o, B.ite(B.ult(count, room), count, room)


def _extract_bits(B: Bits, e: Any, offset: Any, count: Any) -> Any:
    o, c = _field(B, offset, count)
    wide = B.zext(e, 32)
    bits: list[Any] = []
    for i in range(32):
        source = B.lshr(wide, B.zext(B.add(o, _c(B, i)), 32))
        keep = B.ult(_c(B, i), c)
        bits.append(B.ite(keep, B.bit(source, 0), _c(B, 0, 1)))
    return B.concat(bits[::-1])


def _insert_bits(B: Bits, e: Any, newbits: Any, offset: Any, count: Any) -> Any:
    o, c = _field(B, offset, count)
    end = B.add(o, c)
    bits: list[Any] = []
    for i in range(32):
        index = _c(B, i)
        inside = B.all_([B.ule(o, index), B.ult(index, end)])
        from_new = B.bit(B.lshr(newbits, B.sub(index, o)), 0)
        bits.append(B.ite(inside, from_new, B.bit(e, i)))
    return B.concat(bits[::-1])


# -- math -----------------------------------------------------------------------


def _wide_sum(B: Bits, a: Any, b: Any, extra: int = 1) -> Any:
    return B.add(B.zext(a, extra), B.zext(b, extra))


def _product64(B: Bits, a: Any, b: Any) -> Any:
    return B.mul(B.zext(a, 32), B.zext(b, 32))


def _gcd(B: Bits, a: Any, b: Any) -> Any:
    x, y = a, b
    for _ in range(EUCLID_STEPS):
        live = B.nonzero(y)
        x, y = B.ite(live, y, x), B.ite(live, B.urem(x, y), y)
    return x


def _lcm(B: Bits, a: Any, b: Any) -> Any:
    g = _gcd(B, a, b)
    exact = B.udiv(_product64(B, a, b), B.zext(g, 32))
    return B.ite(B.eq(g, _c(B, 0)), _c(B, 0), B.extract(exact, 31, 0))


def _add_sat(B: Bits, a: Any, b: Any) -> Any:
    s = _wide_sum(B, a, b)
    return B.ite(B.ugt(s, _c(B, MAX, 33)), _c(B, MAX), B.extract(s, 31, 0))


def _mul_sat(B: Bits, a: Any, b: Any) -> Any:
    p = _product64(B, a, b)
    return B.ite(B.ugt(p, _c(B, MAX, 64)), _c(B, MAX), B.extract(p, 31, 0))


def _div_ceil(B: Bits, a: Any, b: Any) -> Any:
    numerator = B.sub(_wide_sum(B, a, b), _c(B, 1, 33))
    quotient = B.udiv(numerator, B.zext(b, 1))
    return B.ite(B.eq(b, _c(B, 0)), _c(B, 0), B.extract(quotient, 31, 0))


def _avg(B: Bits, a: Any, b: Any, up: int) -> Any:
    s = B.add(_wide_sum(B, a, b), _c(B, up, 33))
    return B.extract(s, 32, 1)


def _umin(B: Bits, a: Any, b: Any) -> Any:
    return B.ite(B.ule(a, b), a, b)


def _umax(B: Bits, a: Any, b: Any) -> Any:
    return B.ite(B.uge(a, b), a, b)


def _sign(B: Bits, a: Any) -> Any:
    negative = B.slt(a, _c(B, 0))
    return B.ite(negative, _c(B, MAX), B.ite(B.eq(a, _c(B, 0)), _c(B, 0), _c(B, 1)))


def _abs(B: Bits, a: Any) -> Any:
    return B.ite(B.slt(a, _c(B, 0)), B.sub(_c(B, 0), a), a)


def _clamp(B: Bits, x: Any, lo: Any, hi: Any) -> Any:
    raised = B.ite(B.ult(x, lo), lo, x)
    return B.ite(B.ugt(raised, hi), hi, raised)


def _logical(table: Callable[[bool, bool], bool]) -> Model:
    def model(B: Bits, a: Any, b: Any) -> Any:
        ta, tb = B.nonzero(a), B.nonzero(b)
        cases = [
            B.all_([ta if x else B.not_(ta), tb if y else B.not_(tb)])
            for x in (False, True) for y in (False, True) if table(x, y)
        ]
        return B.truth(B.any_(cases))

    return model


M = "primitive.math."
W = "primitive.bitwise."
C = "primitive.compare."
G = "primitive.logical."

MODELS: dict[str, Model] = {
    # bitwise
    W + "and": lambda B, a, b: B.band(a, b),
    W + "or": lambda B, a, b: B.bor(a, b),
    W + "xor": lambda B, a, b: B.bxor(a, b),
    W + "not": lambda B, a: B.bxor(a, _c(B, MAX)),
    W + "shl": lambda B, a, b: B.shl(a, _masked(B, b)),
    W + "shr": lambda B, a, b: B.lshr(a, _masked(B, b)),
    W + "rotl": _rotl,
    W + "rotr": _rotr,
    W + "andn": lambda B, a, b: B.band(a, B.bxor(b, _c(B, MAX))),
    W + "xnor": lambda B, a, b: B.bor(B.band(a, b), B.band(B.bnot(a), B.bnot(b))),
    W + "bit_test": _bit_test,
    W + "byte_swap": _byte_swap,
    W + "popcount": _popcount,
    W + "clz": _clz,
    W + "ctz": _ctz,
    W + "reverse_bits": _reverse_bits,
    W + "extract_bits": _extract_bits,
    W + "insert_bits": _insert_bits,
    # compare
    C + "eq": lambda B, a, b: B.truth(B.eq(a, b)),
    C + "ne": lambda B, a, b: B.truth(B.not_(B.eq(a, b))),
    C + "lt": lambda B, a, b: B.truth(B.ult(a, b)),
    C + "le": lambda B, a, b: B.truth(B.ule(a, b)),
    C + "gt": lambda B, a, b: B.truth(B.ult(b, a)),
    C + "ge": lambda B, a, b: B.truth(B.ule(b, a)),
    C + "logical_not": lambda B, a: B.truth(B.eq(a, _c(B, 0))),
    C + "select": lambda B, c, a, b: B.ite(B.nonzero(c), a, b),
    # logical
    G + "and": _logical(lambda x, y: x and y),
    G + "or": _logical(lambda x, y: x or y),
    G + "xor": _logical(lambda x, y: x != y),
    G + "nand": _logical(lambda x, y: not (x and y)),
    G + "nor": _logical(lambda x, y: not (x or y)),
    # math
    M + "add": lambda B, a, b: B.extract(_wide_sum(B, a, b), 31, 0),
    M + "sub": lambda B, a, b: B.add(a, B.add(B.bnot(b), _c(B, 1))),
    M + "mul": lambda B, a, b: B.extract(_product64(B, a, b), 31, 0),
    M + "div": lambda B, a, b: B.ite(B.eq(b, _c(B, 0)), _c(B, 0), B.udiv(a, b)),
    M + "mod": lambda B, a, b: B.ite(B.eq(b, _c(B, 0)), _c(B, 0), B.urem(a, b)),
    M + "abs_diff": lambda B, a, b: B.sub(_umax(B, a, b), _umin(B, a, b)),
    M + "min": _umin,
    M + "max": _umax,
    M + "gcd": _gcd,
    M + "lcm": _lcm,
    M + "add_sat": _add_sat,
    M + "sub_sat": lambda B, a, b: B.ite(B.ule(a, b), _c(B, 0), B.sub(a, b)),
    M + "clamp": _clamp,
    M + "avg_floor": lambda B, a, b: _avg(B, a, b, 0),
    M + "avg_ceil": lambda B, a, b: _avg(B, a, b, 1),
    M + "mul_sat": _mul_sat,
    M + "div_ceil": _div_ceil,
    M + "wrapping_neg": lambda B, a: B.sub(_c(B, 0), a),
    M + "negate": lambda B, a: B.add(B.bnot(a), _c(B, 1)),
    M + "sign": _sign,
    M + "abs": _abs,
    M + "mul_high": lambda B, a, b: B.extract(_product64(B, a, b), 63, 32),
}
"""The built-in models (every `primitive.*` integer op)."""

_USER: dict[str, Model] = {}


def register_model(op_id: str, model: Model) -> None:
    """Give a user op a formal model of its reference (`(B, *inputs) -> output`
    over `vyre.conform.smt.terms.Bits`); it is cross-checked against the op's
    reference before any proof uses it."""
    if op_id in MODELS:
        raise ValueError(f"`{op_id}` is a built-in op: its model is fixed")
    if not callable(model):
        raise TypeError(f"a model must be callable (B, *inputs) -> output, got {type(model).__name__}")
    _USER[op_id] = model


def unregister_model(op_id: str) -> None:
    _USER.pop(op_id, None)


def model_for(op_id: str) -> Model | None:
    return MODELS.get(op_id) or _USER.get(op_id)
