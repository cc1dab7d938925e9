"""The function of a `vtensor.map` as a vyre expression tree.

The body of a map is pure vyre expression code over its block arguments (one
element of each operand). `map_expr` reads it back as an `Expr` with each
argument replaced by the expression given for it, which the kernel then
computes per element. One handler per expression op class (a base class
covers its subclasses: every float operation is a `FloatOp`).
"""

from __future__ import annotations

from collections.abc import Sequence
from xdsl.ir import Operation, SSAValue

from vyre.dialects import tensor as t
from vyre.dialects import vyre as v
from vyre.dialects.tables import Dispatch
from vyre.ir import BinOp, DataType, Expr, UnOp, float_op_expr
from vyre.ir import Expr as E

__all__ = ["map_expr"]

_IMPURE = (v.LoadOp, v.VarOp, v.BufLenOp, v.IdOp, v.AtomicOp, v.CallOp, v.InvokeOp)


def _pure_expression_ops() -> list[type[Operation]]:
    return [op for op in v.OPERATIONS if issubclass(op, v.ExprOp) and not issubclass(op, _IMPURE)]


MAP_TERMS: Dispatch[None, [Sequence[Expr]], Expr] = Dispatch(
    "vtensor.map body expressions", _pure_expression_ops
)
"""The `Expr` of each pure vyre expression op, from its operands' `Expr`s."""


@MAP_TERMS.on(v.LitU32Op)
def _lit_u32(_: None, op: v.LitU32Op, args: Sequence[Expr]) -> Expr:
    return E.u32(op.value.data)


@MAP_TERMS.on(v.LitI32Op)
def _lit_i32(_: None, op: v.LitI32Op, args: Sequence[Expr]) -> Expr:
    return E.i32(op.value.data)


@MAP_TERMS.on(v.LitBoolOp)
def _lit_bool(_: None, op: v.LitBoolOp, args: Sequence[Expr]) -> Expr:
    return E.bool_(bool(op.value.data))


@MAP_TERMS.on(v.LitU128Op)
def _lit_u128(_: None, op: v.LitU128Op, args: Sequence[Expr]) -> Expr:
    return E.u128(op.value.data)


@MAP_TERMS.on(v.LitFloatOp)
def _lit_float(_: None, op: v.LitFloatOp, args: Sequence[Expr]) -> Expr:
    return E.float_bits(op.float_kind, op.bits.data)


@MAP_TERMS.on(v.BinOp)
def _binop(_: None, op: v.BinOp, args: Sequence[Expr]) -> Expr:
    return E.binop(BinOp(op.kind.data), args[0], args[1])


@MAP_TERMS.on(v.UnOp)
def _unop(_: None, op: v.UnOp, args: Sequence[Expr]) -> Expr:
    return E.unop(UnOp(op.kind.data), args[0])


@MAP_TERMS.on(v.SelectOp)
def _select(_: None, op: v.SelectOp, args: Sequence[Expr]) -> Expr:
    return E.select(args[0], args[1], args[2])


@MAP_TERMS.on(v.CastOp)
def _cast(_: None, op: v.CastOp, args: Sequence[Expr]) -> Expr:
    return E.cast(DataType.of(op.res.type), args[0])


@MAP_TERMS.on(v.BitcastOp)
def _bitcast(_: None, op: v.BitcastOp, args: Sequence[Expr]) -> Expr:
    return E.bitcast(DataType.of(op.res.type), args[0])


@MAP_TERMS.on(v.LookupOp)
def _lookup(_: None, op: v.LookupOp, args: Sequence[Expr]) -> Expr:
    return E.lookup(op.words, args[0])


@MAP_TERMS.on(v.FloatOp)
def _float(_: None, op: v.FloatOp, args: Sequence[Expr]) -> Expr:
    variant = op.predicate.data if isinstance(op, v.FCmpOp) else ""
    return float_op_expr(type(op), args, variant)


def map_expr(op: t.MapOp, arguments: Sequence[Expr]) -> Expr:
    """The element `op` computes, its block arguments bound to `arguments`."""
    values: dict[SSAValue, Expr] = dict(zip(op.entry.args, arguments))
    for inner in op.entry.ops:
        if isinstance(inner, t.YieldOp):
            return values[inner.value]
        handler = MAP_TERMS.get(type(inner))
        if handler is None:
            raise ValueError(f"vtensor.map: `{inner.name}` cannot be computed per element")
        values[inner.results[0]] = handler(None, inner, [values[o] for o in inner.operands])
    raise ValueError("vtensor.map: the body ends with vtensor.yield")
