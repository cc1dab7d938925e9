"""Compile a `vyre.kernel` into the lockstep machine's steps.

The walk follows the dialect directly: every expression op becomes a step that
fills one value slot, at its position in its block; every statement op becomes
a step. Float ops (`vyre.fadd` ... `vyre.fis_inf`, `vyre.fcmp`, `vyre.fma`,
`vyre.lit_float`, `vyre.bitcast`, float casts) compute on bit patterns through
`floats`. Type facts the interpreter relies on (operand widths, float operand
types, cast and bitcast pairs, buffer kinds) are checked here, before
execution, so that a program that slipped past validation fails with a clear
`InterpError` instead of a numpy traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.ir import Block as IRBlock
from xdsl.ir import Operation, SSAValue

from vyre.dialects import vyre as d
from vyre.dialects.tables import Dispatch
from vyre.runtime.interp import machine as m
from vyre.runtime.interp.errors import InterpError
from vyre.runtime.interp.intrinsics import INTRINSICS
from vyre.runtime.interp.memory import ATOMIC_ACCESS, BufferInfo
from vyre.runtime.interp import u128
from vyre.runtime.interp.routines import Routines
from vyre.runtime.interp.values import (
    FLOATS,
    SCALARS,
    binop_function,
    bitcast_function,
    cast_function,
    float_function,
    lookup_function,
    unop_function,
    words_per_value,
)

_ID_FAMILIES: dict[type[Operation], str] = {
    d.InvocationIdOp: "invocation",
    d.WorkgroupIdOp: "workgroup",
    d.LocalIdOp: "local",
}


_KINDS = {kind.value: kind for kind in d.DataTypeKind}


def value_kind(value: SSAValue, user: Operation) -> d.DataTypeKind:
    ty = value.type
    kind = _KINDS.get(ty.kind.data) if isinstance(ty, d.DataTypeAttr) else None
    if kind is None:
        raise InterpError(f"`{user.name}` has a value of non-vyre type {ty}")
    return kind


def _scalar_operand(value: SSAValue, user: Operation, role: str, rule: str) -> None:
    kind = value_kind(value, user)
    if kind not in SCALARS:
        raise InterpError(
            f"`{user.name}` {role} must be a u32 (or i32/bool) scalar, got `{kind.value}` "
            f"({rule})"
        )


_U128 = d.DataTypeKind.U128


def _u128_operands(op: Operation, values: tuple[SSAValue, ...]) -> None:
    """Both operands of a binary operation on u128 are u128 (V144)."""
    for value in values:
        kind = value_kind(value, op)
        if kind != _U128:
            raise InterpError(
                f"`{op.name}` mixes `u128` and `{kind.value}` operands (V144)"
            )


def _float_operands(op: Operation, values: tuple[SSAValue, ...]) -> d.DataTypeKind:
    """The one float type of a float op's operands (V140/V141)."""
    kinds = [value_kind(value, op) for value in values]
    for position, kind in enumerate(kinds):
        if kind not in FLOATS:
            raise InterpError(
                f"float operation `{op.name}` operand {position} must be `f32`, `f16` or "
                f"`bf16`, got `{kind.value}` (V140)"
            )
    for kind in kinds[1:]:
        if kind != kinds[0]:
            raise InterpError(
                f"float operation `{op.name}` mixes `{kinds[0].value}` and `{kind.value}` "
                "operands (V141)"
            )
    return kinds[0]


def _check_result(op: Operation, expected: d.DataTypeKind) -> None:
    kind = value_kind(op.results[0], op)
    if kind != expected:
        raise InterpError(
            f"`{op.name}` yields `{kind.value}`, but its operands make it `{expected.value}`"
        )


EXPRESSIONS: Dispatch[Compiler, [int], m.Step] = Dispatch(
    "interpreter expression steps", lambda: d.EXPRESSION_OPS
)
"""The step of each expression op, filling the value slot it is given."""
STATEMENTS: Dispatch[Compiler, [], m.Step] = Dispatch(
    "interpreter statement steps", lambda: d.STATEMENT_OPS
)


@dataclass
class Compiler:
    """One compilation: value slots by SSA value (keyed by id) and the values
    visible at the current point (defined earlier in an enclosing block)."""

    buffers: Mapping[str, BufferInfo]
    slots: dict[int, int] = field(default_factory=lambda: {})
    visible: set[int] = field(default_factory=lambda: set[int]())
    constants: dict[int, int] = field(default_factory=lambda: {})
    """Slot -> value of the integer literals (static loop trip counts)."""
    routines: Routines = field(default_factory=lambda: Routines({}))
    """The routines beside the kernel (`vyre.invoke`)."""

    # -- blocks ---------------------------------------------------------------
    def body(self, block: IRBlock) -> m.Body:
        ops = list(block.ops)
        try:
            steps = [self.step(op) for op in ops]
            frees = self._frees(block, ops)
        finally:
            for op in ops:
                for result in op.results:
                    self.visible.discard(id(result))
        return m.Body(tuple(steps), frees)

    def _frees(self, block: IRBlock, ops: list[Operation]) -> tuple[tuple[int, ...], ...]:
        """For each op of the block, the slots whose last use (anywhere below
        the block) is that op, so that memory stays bounded on long programs."""
        position = {id(op): k for k, op in enumerate(ops)}
        frees: list[list[int]] = [[] for _ in ops]
        for k, op in enumerate(ops):
            for result in op.results:
                last = k
                for use in result.uses:
                    user: Operation | None = use.operation
                    while user is not None and id(user) not in position:
                        user = user.parent_op()
                    if user is None:
                        raise InterpError(
                            f"a value of `{op.name}` is used outside the block that defines it"
                        )
                    last = max(last, position[id(user)])
                frees[last].append(self.slots[id(result)])
        return tuple(tuple(slots) for slots in frees)

    # -- operands and results ---------------------------------------------------
    def operand(self, value: SSAValue, user: Operation) -> int:
        key = id(value)
        if key not in self.visible:
            raise InterpError(
                f"`{user.name}` uses a value that is not defined before it in an "
                "enclosing statement list"
            )
        return self.slots[key]

    def buffer(self, name: str, user: Operation) -> BufferInfo:
        info = self.buffers.get(name)
        if info is None:
            raise InterpError(f"`{user.name}` names unknown buffer `{name}` (V004)")
        return info

    def _typed_buffer(self, name: str, user: Operation, what: str) -> BufferInfo:
        info = self.buffer(name, user)
        if info.element == d.DataTypeKind.BYTES:
            raise InterpError(
                f"{what} on buffer `{name}` with element type `bytes` is not supported "
                "(V013). Fix: use a typed buffer"
            )
        return info

    # -- ops --------------------------------------------------------------------
    def step(self, op: Operation) -> m.Step:
        expression = EXPRESSIONS.get(type(op))
        if expression is None:
            statement = STATEMENTS.get(type(op))
            if statement is None:
                raise InterpError(f"the interpreter does not know op `{op.name}`")
            return statement(self, op)
        if len(op.results) != 1:
            raise InterpError(f"expression op `{op.name}` must have exactly one result")
        slot = len(self.slots)
        step = expression(self, op, slot)
        # the result is visible to later ops only: register it after the operands
        key = id(op.results[0])
        self.slots[key] = slot
        self.visible.add(key)
        return step

    # -- expressions ------------------------------------------------------------
    @EXPRESSIONS.on(d.LitU32Op, d.LitI32Op, d.LitBoolOp)
    def _literal(self, op: d.LitU32Op | d.LitI32Op | d.LitBoolOp, slot: int) -> m.Step:
        word = op.value.data & 0xFFFF_FFFF
        self.constants[slot] = word
        return m.Constant(slot, (word,))

    @EXPRESSIONS.on(d.LitU128Op)
    def _literal_u128(self, op: d.LitU128Op, slot: int) -> m.Step:
        value = op.value.data
        if not 0 <= value < u128.MODULUS:
            raise InterpError(f"u128 literal {value} is out of range (V133)")
        return m.Constant(slot, tuple(int(w) for w in u128.from_ints([value])[0]))

    @EXPRESSIONS.on(d.BufLenOp)
    def _buf_len(self, op: d.BufLenOp, slot: int) -> m.Step:
        info = self.buffer(op.buffer.data, op)
        return m.BufferLength(slot, info.name)

    @EXPRESSIONS.on(d.InvocationIdOp, d.WorkgroupIdOp, d.LocalIdOp)
    def _id(self, op: d.IdOp, slot: int) -> m.Step:
        axis = op.axis.data
        if not 0 <= axis <= 2:
            raise InterpError(f"invocation/workgroup ID axis {axis} out of range (V007)")
        return m.Identity(slot, _ID_FAMILIES[type(op)], axis)

    @EXPRESSIONS.on(d.VarOp)
    def _var(self, op: d.VarOp, slot: int) -> m.Step:
        width = words_per_value(value_kind(op.results[0], op))
        return m.ReadVar(slot, op.var_name.data, width)

    @EXPRESSIONS.on(d.LoadOp)
    def _load(self, op: d.LoadOp, slot: int) -> m.Step:
        info = self._typed_buffer(op.buffer.data, op, "load")
        index = op.index
        _scalar_operand(index, op, "index", "V021")
        kind = value_kind(op.results[0], op)
        if words_per_value(kind) != info.words_per_element or (
            (kind in FLOATS or info.element in FLOATS) and kind != info.element
        ):
            raise InterpError(
                f"load from buffer `{info.name}` of {info.element.value} elements "
                f"typed as `{kind.value}`"
            )
        return m.Load(slot, info.name, info.is_workgroup, self.operand(index, op))

    @EXPRESSIONS.on(d.BinOp)
    def _binop(self, op: d.BinOp, slot: int) -> m.Step:
        lhs, rhs = op.operands
        if _U128 in (value_kind(lhs, op), value_kind(rhs, op)):
            _u128_operands(op, (lhs, rhs))
            function = u128.binop_function(op.kind.data)
            return m.ApplyN(slot, function, (self.operand(lhs, op), self.operand(rhs, op)))
        _scalar_operand(lhs, op, "left operand", "V021")
        _scalar_operand(rhs, op, "right operand", "V021")
        function = binop_function(op.kind.data)
        return m.Apply2(slot, function, self.operand(lhs, op), self.operand(rhs, op))

    @EXPRESSIONS.on(d.UnOp)
    def _unop(self, op: d.UnOp, slot: int) -> m.Step:
        (operand,) = op.operands
        if value_kind(operand, op) == _U128:
            return m.ApplyN(slot, u128.unop_function(op.kind.data), (self.operand(operand, op),))
        _scalar_operand(operand, op, "operand", "V021")
        function = unop_function(op.kind.data)
        return m.Apply1(slot, function, self.operand(operand, op))

    @EXPRESSIONS.on(d.SelectOp)
    def _select(self, op: d.SelectOp, slot: int) -> m.Step:
        cond, if_true, if_false = op.operands
        _scalar_operand(cond, op, "condition", "V022")
        true_kind = value_kind(if_true, op)
        false_kind = value_kind(if_false, op)
        if words_per_value(true_kind) != words_per_value(false_kind) or (
            (true_kind in FLOATS or false_kind in FLOATS) and true_kind != false_kind
        ):
            raise InterpError(
                f"select arms have different types `{true_kind.value}` and "
                f"`{false_kind.value}`"
            )
        return m.Select(
            slot, self.operand(cond, op), self.operand(if_true, op), self.operand(if_false, op)
        )

    @EXPRESSIONS.on(d.CastOp)
    def _cast(self, op: d.CastOp, slot: int) -> m.Step:
        (value,) = op.operands
        function = cast_function(value_kind(value, op), value_kind(op.results[0], op))
        return m.Apply1(slot, function, self.operand(value, op))

    @EXPRESSIONS.on(d.BitcastOp)
    def _bitcast(self, op: d.BitcastOp, slot: int) -> m.Step:
        (value,) = op.operands
        function = bitcast_function(value_kind(value, op), value_kind(op.results[0], op))
        return m.Apply1(slot, function, self.operand(value, op))

    # -- strict floats: values are bit patterns, computed by `floats` -----------
    @EXPRESSIONS.on(d.LitFloatOp)
    def _lit_float(self, op: d.LitFloatOp, slot: int) -> m.Step:
        kind = value_kind(op.results[0], op)
        if kind not in FLOATS:
            raise InterpError(
                f"a float literal has a float type (f32, f16, bf16), not `{kind.value}`"
            )
        bits = op.bits.data
        width = d.FLOAT_BITS[kind]
        if not 0 <= bits < 1 << width:
            raise InterpError(
                f"float literal bits {bits:#x} do not fit the {width} bits of `{kind.value}`"
            )
        return m.Constant(slot, (bits,))

    @EXPRESSIONS.on(d.FloatOp)
    def _float(self, op: d.FloatOp, slot: int) -> m.Step:
        args = tuple(op.operands)
        kind = _float_operands(op, args)
        variant = ""
        if isinstance(op, d.FCmpOp):
            variant = op.predicate.data
            if variant not in d.FLOAT_PREDICATES:
                raise InterpError(
                    f"unknown float predicate `{variant}` (one of {', '.join(d.FLOAT_PREDICATES)})"
                )
        _check_result(op, kind if op.RESULT is None else op.RESULT.data_kind)
        function = float_function(type(op), kind, variant)
        operands = tuple(self.operand(arg, op) for arg in args)
        if len(operands) == 1:
            return m.Apply1(slot, function, operands[0])
        if len(operands) == 2:
            return m.Apply2(slot, function, operands[0], operands[1])
        return m.ApplyN(slot, function, operands)

    @EXPRESSIONS.on(d.LookupOp)
    def _lookup(self, op: d.LookupOp, slot: int) -> m.Step:
        _scalar_operand(op.index, op, "index", "V122")
        return m.Apply1(slot, lookup_function(op.words), self.operand(op.index, op))

    @EXPRESSIONS.on(d.InvokeOp)
    def _invoke(self, op: d.InvokeOp, slot: int) -> m.Step:
        name = op.callee.data
        function, _ = self.routines.function(name, op)
        operands = tuple(self.operand(arg, op) for arg in op.args)
        return m.Invoke(slot, function, operands, self.routines.cost(name))

    @EXPRESSIONS.on(d.AtomicOp)
    def _atomic(self, op: d.AtomicOp, slot: int) -> m.Step:
        info = self.buffer(op.buffer.data, op)
        if info.access not in ATOMIC_ACCESS or info.element != d.DataTypeKind.U32:
            raise InterpError(
                f"atomic on buffer `{info.name}` ({info.access.value} "
                f"{info.element.value}): atomics need a read_write or workgroup buffer of "
                "u32 elements (V009/V014/V025)"
            )
        kind = d.AtomicOpKind(op.kind.data)
        expected_value = op.expected
        if (kind == d.AtomicOpKind.COMPARE_EXCHANGE) != (expected_value is not None):
            raise InterpError(
                "atomic compare_exchange needs an `expected` operand, and only it takes one"
            )
        _scalar_operand(op.index, op, "index", "V021")
        _scalar_operand(op.value, op, "value", "V014")
        expected = None
        if expected_value is not None:
            _scalar_operand(expected_value, op, "expected value", "V014")
            expected = self.operand(expected_value, op)
        return m.Atomic(
            slot,
            kind,
            info.name,
            self.operand(op.index, op),
            self.operand(op.value, op),
            expected,
            info.is_workgroup,
        )

    @EXPRESSIONS.on(d.CallOp)
    def _call(self, op: d.CallOp, slot: int) -> m.Step:
        op_id = op.op_id.data
        intrinsic = INTRINSICS.get(op_id)
        if intrinsic is None:
            known = ", ".join(f"`{name}`" for name in INTRINSICS)
            raise InterpError(
                f"call to `{op_id}` was not inlined: the interpreter runs only inlined "
                f"programs (this call survived inlining), and the only calls it executes "
                f"are the Category C intrinsics {known}. Fix: run inline-calls first; only "
                "inlinable ops may be called (V020)"
            )
        args = list(op.operands)
        if len(args) != intrinsic.arity:
            raise InterpError(
                f"call to `{op_id}` ({intrinsic.wgsl}) passes {len(args)} argument(s) but "
                f"the op takes {intrinsic.arity} u32 argument(s)"
            )
        roles = [f"argument {position}" for position in range(len(args))]
        for role, value in zip([*roles, "result"], [*args, op.results[0]], strict=True):
            kind = value_kind(value, op)
            if kind != d.DataTypeKind.U32:
                raise InterpError(
                    f"call to `{op_id}` ({intrinsic.wgsl}): {role} must be `u32`, got "
                    f"`{kind.value}`"
                )
        operands = tuple(self.operand(arg, op) for arg in args)
        return m.ApplyN(slot, intrinsic.function, operands)

    # -- statements -------------------------------------------------------------
    @STATEMENTS.on(d.LetOp)
    def _let(self, op: d.LetOp) -> m.Step:
        (value,) = op.operands
        words_per_value(value_kind(value, op))
        return m.Let(op.var_name.data, self.operand(value, op))

    @STATEMENTS.on(d.AssignOp)
    def _assign(self, op: d.AssignOp) -> m.Step:
        (value,) = op.operands
        return m.Assign(op.var_name.data, self.operand(value, op))

    @STATEMENTS.on(d.StoreOp)
    def _store(self, op: d.StoreOp) -> m.Step:
        info = self._typed_buffer(op.buffer.data, op, "store")
        if info.access not in (d.AccessKind.READ_WRITE, d.AccessKind.WORKGROUP):
            raise InterpError(f"store to non-writable buffer `{info.name}` (V005)")
        index, value = op.operands
        _scalar_operand(index, op, "index", "V021")
        kind = value_kind(value, op)
        if words_per_value(kind) != info.words_per_element or (
            (kind in FLOATS or info.element in FLOATS) and kind != info.element
        ):
            raise InterpError(
                f"store of a `{kind.value}` value into buffer `{info.name}` of "
                f"{info.element.value} elements. Fix: cast the value to the element type"
            )
        return m.Store(
            info.name, info.is_workgroup, self.operand(index, op), self.operand(value, op)
        )

    @STATEMENTS.on(d.IfOp)
    def _if(self, op: d.IfOp) -> m.Step:
        (cond,) = op.operands
        _scalar_operand(cond, op, "condition", "V022")
        slot = self.operand(cond, op)
        return m.If(slot, self.body(op.then_block), self.body(op.else_block))

    @STATEMENTS.on(d.LoopOp)
    def _loop(self, op: d.LoopOp) -> m.Step:
        lower, upper = op.operands
        _scalar_operand(lower, op, "lower bound", "V015")
        _scalar_operand(upper, op, "upper bound", "V015")
        lower_slot, upper_slot = self.operand(lower, op), self.operand(upper, op)
        first, end = self.constants.get(lower_slot), self.constants.get(upper_slot)
        trips = None if first is None or end is None else max(0, end - first)
        return m.Loop(op.var_name.data, lower_slot, upper_slot, self.body(op.body_block), trips)

    @STATEMENTS.on(d.BlockOp)
    def _block(self, op: d.BlockOp) -> m.Step:
        return m.Block(self.body(op.body_block))

    @STATEMENTS.on(d.ReturnOp)
    def _return(self, op: d.ReturnOp) -> m.Step:
        return m.Return()

    @STATEMENTS.on(d.BarrierOp)
    def _barrier(self, op: d.BarrierOp) -> m.Step:
        return m.Barrier()


def compile_kernel(kernel: d.KernelOp, buffers: Mapping[str, BufferInfo]) -> tuple[m.Body, int]:
    """The kernel's entry body as machine steps, and the number of value slots.
    Nothing of a dispatch is compiled in (buffer lengths are read when
    `vyre.buf_len` runs), so one body serves every run of the kernel."""
    compiler = Compiler(buffers, routines=Routines(d.routines_of(kernel)))
    body = compiler.body(kernel.entry)
    return body, len(compiler.slots)
