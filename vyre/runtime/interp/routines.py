"""The interpreter's routines (`vyre.routine`): straight-line functions of lanes.

A routine's body is pure expression code over its parameters ending in
`vyre.yield` (the dialect's verifier and V135-V138 hold it to that). The
interpreter turns it, once per compilation, into a function of numpy lanes that
evaluates each op with the same lane semantics as the kernel's steps
(`values`, `floats`), so an invoke computes exactly what the body says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation, SSAValue

from vyre.dialects import vyre as d
from vyre.dialects.tables import Dispatch
from vyre.runtime.interp import u128
from vyre.runtime.interp.errors import InterpError
from vyre.runtime.interp.machine import Apply2, Lanes
from vyre.runtime.interp.values import (
    binop_function,
    bitcast_function,
    cast_function,
    float_function,
    lookup_function,
    truth,
    unop_function,
)

__all__ = ["Routines"]

_Env = dict[int, Lanes]
_Eval = Callable[[_Env], Lanes]


@dataclass
class Routines:
    """The routines of a module, compiled on first use (by name)."""

    ops: Mapping[str, d.RoutineOp]
    _compiled: dict[str, tuple[Callable[..., Lanes], int]] = field(default_factory=lambda: {})
    _active: set[str] = field(default_factory=lambda: set[str]())

    def function(self, name: str, user: Operation) -> tuple[Callable[..., Lanes], int]:
        """The lane function of routine `name` and the operations one call runs."""
        found = self._compiled.get(name)
        if found is not None:
            return found
        routine = self.ops.get(name)
        if routine is None:
            raise InterpError(f"`{user.name}` invokes unknown routine `@{name}` (V135)")
        if name in self._active:
            raise InterpError(f"routine `@{name}` invokes itself (V137)")
        self._active.add(name)
        try:
            found = self._compile(routine)
        finally:
            self._active.discard(name)
        self._compiled[name] = found
        return found

    def cost(self, name: str) -> tuple[float, int]:
        """The work units of one call (as many two-operand steps as it runs ops)."""
        count = self._compiled[name][1]
        return (Apply2.COST[0] * count, Apply2.COST[1] * count)

    def _compile(self, routine: d.RoutineOp) -> tuple[Callable[..., Lanes], int]:
        params = [id(param) for param in routine.params]
        steps: list[tuple[int, _Eval]] = []
        count = 0
        result: SSAValue | None = None
        for op in routine.entry.ops:
            if isinstance(op, d.YieldOp):
                result = op.value
                break
            compile_op = ROUTINE_OPS.get(type(op))
            if compile_op is None:
                raise InterpError(f"routine `@{routine.sym_name.data}` holds `{op.name}`, which a routine may not")
            steps.append((id(op.results[0]), compile_op(self, op)))
            count += self.cost_of(op)
        if result is None:
            raise InterpError(f"routine `@{routine.sym_name.data}` does not end with vyre.yield")
        key = id(result)

        def run(*args: Lanes) -> Lanes:
            env: _Env = dict(zip(params, args, strict=True))
            for slot, evaluate in steps:
                env[slot] = evaluate(env)
            return env[key]

        return run, count

    def cost_of(self, op: Operation) -> int:
        if isinstance(op, d.InvokeOp):
            return self._compiled[op.callee.data][1]
        return 1


def _operands(op: Operation) -> tuple[int, ...]:
    return tuple(id(value) for value in op.operands)


def _kind(value: SSAValue) -> d.DataTypeKind:
    ty = value.type
    if not isinstance(ty, d.DataTypeAttr):
        raise InterpError(f"a routine value of non-vyre type {ty}")
    return ty.data_kind


ROUTINE_OPS: Dispatch[Routines, [], _Eval] = Dispatch("interpreter routine ops", lambda: ())
"""How each op a routine body may hold is evaluated (ops without an entry are
refused: a routine reads no memory, local or id)."""


@ROUTINE_OPS.on(d.LitU32Op, d.LitI32Op, d.LitBoolOp)
def _literal(_: Routines, op: d.LitU32Op | d.LitI32Op | d.LitBoolOp) -> _Eval:
    word = np.uint32(op.value.data & 0xFFFF_FFFF)
    return lambda env: np.full(1, word, dtype=np.uint32)


@ROUTINE_OPS.on(d.LitU128Op)
def _literal_u128(_: Routines, op: d.LitU128Op) -> _Eval:
    words = u128.from_ints([op.value.data])
    return lambda env: words.copy()


@ROUTINE_OPS.on(d.LitFloatOp)
def _literal_float(_: Routines, op: d.LitFloatOp) -> _Eval:
    bits = np.uint32(op.bits.data)
    return lambda env: np.full(1, bits, dtype=np.uint32)


@ROUTINE_OPS.on(d.BinOp)
def _binop(_: Routines, op: d.BinOp) -> _Eval:
    wide = d.DataTypeKind.U128 in (_kind(op.lhs), _kind(op.rhs))
    function = (u128.binop_function if wide else binop_function)(op.kind.data)
    a, b = _operands(op)
    return lambda env: function(env[a], env[b])


@ROUTINE_OPS.on(d.UnOp)
def _unop(_: Routines, op: d.UnOp) -> _Eval:
    wide = _kind(op.operand) == d.DataTypeKind.U128
    function = (u128.unop_function if wide else unop_function)(op.kind.data)
    (a,) = _operands(op)
    return lambda env: function(env[a])


@ROUTINE_OPS.on(d.SelectOp)
def _select(_: Routines, op: d.SelectOp) -> _Eval:
    c, t, f = _operands(op)

    def select(env: _Env) -> Lanes:
        new, old = env[t], env[f]
        mask = truth(env[c])
        return np.where(mask if new.ndim == 1 else mask[:, None], new, old)

    return select


@ROUTINE_OPS.on(d.CastOp)
def _cast(_: Routines, op: d.CastOp) -> _Eval:
    function = cast_function(_kind(op.value), _kind(op.res))
    (a,) = _operands(op)
    return lambda env: function(env[a])


@ROUTINE_OPS.on(d.BitcastOp)
def _bitcast(_: Routines, op: d.BitcastOp) -> _Eval:
    function = bitcast_function(_kind(op.value), _kind(op.res))
    (a,) = _operands(op)
    return lambda env: function(env[a])


@ROUTINE_OPS.on(d.FloatOp)
def _float(_: Routines, op: d.FloatOp) -> _Eval:
    variant = op.predicate.data if isinstance(op, d.FCmpOp) else ""
    function = float_function(type(op), _kind(op.operands[0]), variant)
    args = _operands(op)
    return lambda env: function(*(env[a] for a in args))


@ROUTINE_OPS.on(d.LookupOp)
def _lookup(_: Routines, op: d.LookupOp) -> _Eval:
    function = lookup_function(op.words)
    (a,) = _operands(op)
    return lambda env: function(env[a])


@ROUTINE_OPS.on(d.InvokeOp)
def _invoke(routines: Routines, op: d.InvokeOp) -> _Eval:
    function, _ = routines.function(op.callee.data, op)
    args = _operands(op)
    return lambda env: function(*(env[a] for a in args))
