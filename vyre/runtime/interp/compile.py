"""Compile a `vyre.kernel` into the lockstep machine's steps.

The walk follows the dialect directly: every expression op becomes a step that
fills one value slot, at its position in its block; every statement op becomes
a step. Type facts the interpreter relies on (operand widths, cast pairs,
buffer kinds) are checked here, before execution, so that a program that
slipped past validation fails with a clear `InterpError` instead of a numpy
traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.ir import Block as IRBlock
from xdsl.ir import Operation, SSAValue

from vyre.dialects import vyre as d
from vyre.runtime.interp import machine as m
from vyre.runtime.interp.errors import InterpError
from vyre.runtime.interp.memory import BufferInfo
from vyre.runtime.interp.values import (
    SCALARS,
    binop,
    cast_function,
    unop,
    words_per_value,
)

_ID_FAMILIES: dict[type[Operation], str] = {
    d.InvocationIdOp: "invocation",
    d.WorkgroupIdOp: "workgroup",
    d.LocalIdOp: "local",
}


def value_kind(value: SSAValue, user: Operation) -> d.DataTypeKind:
    ty = value.type
    if not isinstance(ty, d.DataTypeAttr):
        raise InterpError(f"`{user.name}` has an operand of non-vyre type {ty}")
    return ty.data_kind


def _scalar_operand(value: SSAValue, user: Operation, role: str, rule: str) -> None:
    kind = value_kind(value, user)
    if kind not in SCALARS:
        raise InterpError(
            f"`{user.name}` {role} must be a u32 (or i32/bool) scalar, got `{kind.value}` "
            f"({rule})"
        )


@dataclass
class Compiler:
    buffers: Mapping[str, BufferInfo]
    counts: Mapping[str, int]
    slots: dict[SSAValue, int] = field(default_factory=dict)
    visible: list[set[SSAValue]] = field(default_factory=list)

    # -- blocks ---------------------------------------------------------------
    def body(self, block: IRBlock) -> m.Body:
        self.visible.append(set())
        try:
            ops = list(block.ops)
            steps = [self.step(op) for op in ops]
            frees = self._frees(block, ops)
        finally:
            self.visible.pop()
        return m.Body(tuple(steps), frees)

    def _frees(self, block: IRBlock, ops: list[Operation]) -> tuple[tuple[int, ...], ...]:
        """For each op of the block, the slots whose last use (anywhere below
        the block) is that op, so that memory stays bounded on long programs."""
        position = {op: k for k, op in enumerate(ops)}
        frees: list[list[int]] = [[] for _ in ops]
        for k, op in enumerate(ops):
            for result in op.results:
                last = k
                for use in result.uses:
                    last = max(last, position[self._ancestor_in(use.operation, block)])
                frees[last].append(self.slots[result])
        return tuple(tuple(slots) for slots in frees)

    @staticmethod
    def _ancestor_in(op: Operation, block: IRBlock) -> Operation:
        current: Operation | None = op
        while current is not None and current.parent_block() is not block:
            current = current.parent_op()
        if current is None:
            raise InterpError(f"a value is used outside the block that defines it ({op.name})")
        return current

    # -- operands and results ---------------------------------------------------
    def operand(self, value: SSAValue, user: Operation) -> int:
        if not any(value in frame for frame in self.visible):
            raise InterpError(
                f"`{user.name}` uses a value that is not defined before it in an "
                "enclosing statement list"
            )
        return self.slots[value]

    def result(self, op: Operation) -> int:
        if len(op.results) != 1:
            raise InterpError(f"expression op `{op.name}` must have exactly one result")
        value = op.results[0]
        slot = len(self.slots)
        self.slots[value] = slot
        self.visible[-1].add(value)
        return slot

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
        if isinstance(op, d.ExprOp):
            return self.expression(op)
        return self.statement(op)

    def expression(self, op: d.ExprOp) -> m.Step:
        step = self._expression(op)
        # a result is visible to later ops only: register it after its operands
        self.result(op)
        return step

    def _expression(self, op: d.ExprOp) -> m.Step:
        slot = len(self.slots)
        match op:
            case d.LitU32Op() | d.LitBoolOp():
                return m.Constant(slot, (op.value.data & 0xFFFF_FFFF,))
            case d.LitI32Op():
                return m.Constant(slot, (op.value.data & 0xFFFF_FFFF,))
            case d.BufLenOp():
                info = self.buffer(op.buffer.data, op)
                return m.Constant(slot, (self.counts[info.name] & 0xFFFF_FFFF,))
            case d.InvocationIdOp() | d.WorkgroupIdOp() | d.LocalIdOp():
                axis = op.axis.data
                if not 0 <= axis <= 2:
                    raise InterpError(
                        f"invocation/workgroup ID axis {axis} out of range (V007)"
                    )
                return m.Identity(slot, _ID_FAMILIES[type(op)], axis)
            case d.VarOp():
                width = words_per_value(op.value_type.data_kind)
                return m.ReadVar(slot, op.var_name.data, width)
            case d.LoadOp():
                info = self._typed_buffer(op.buffer.data, op, "load")
                _scalar_operand(op.index, op, "index", "V021")
                if words_per_value(op.value_type.data_kind) != info.words_per_element:
                    raise InterpError(
                        f"load from buffer `{info.name}` of {info.element.value} elements "
                        f"typed as `{op.value_type.data_kind.value}`"
                    )
                return m.Load(slot, info.name, info.is_workgroup, self.operand(op.index, op))
            case d.BinOp():
                _scalar_operand(op.lhs, op, "left operand", "V021")
                _scalar_operand(op.rhs, op, "right operand", "V021")
                kind = op.op_kind

                def apply_binop(a: m.Lanes, b: m.Lanes) -> m.Lanes:
                    return binop(kind, a, b)

                return m.Apply2(
                    slot, apply_binop, self.operand(op.lhs, op), self.operand(op.rhs, op)
                )
            case d.UnOp():
                _scalar_operand(op.operand, op, "operand", "V021")
                unary = op.op_kind

                def apply_unop(a: m.Lanes) -> m.Lanes:
                    return unop(unary, a)

                return m.Apply1(slot, apply_unop, self.operand(op.operand, op))
            case d.SelectOp():
                _scalar_operand(op.cond, op, "condition", "V022")
                true_kind = value_kind(op.if_true, op)
                false_kind = value_kind(op.if_false, op)
                if words_per_value(true_kind) != words_per_value(false_kind):
                    raise InterpError(
                        f"select arms have different types `{true_kind.value}` and "
                        f"`{false_kind.value}`"
                    )
                return m.Select(
                    slot,
                    self.operand(op.cond, op),
                    self.operand(op.if_true, op),
                    self.operand(op.if_false, op),
                )
            case d.CastOp():
                source = value_kind(op.value, op)
                function = cast_function(source, op.value_type.data_kind)
                return m.Apply1(slot, function, self.operand(op.value, op))
            case d.AtomicOp():
                return self._atomic(op, slot)
            case d.CallOp():
                raise InterpError(
                    f"call of `{op.op_id.data}` survived inlining; the interpreter runs "
                    "only inlined programs"
                )
            case _:
                raise InterpError(f"the interpreter does not know expression op `{op.name}`")

    def _atomic(self, op: d.AtomicOp, slot: int) -> m.Step:
        info = self.buffer(op.buffer.data, op)
        if info.access != d.AccessKind.READ_WRITE or info.element != d.DataTypeKind.U32:
            raise InterpError(
                f"atomic on buffer `{info.name}` ({info.access.value} "
                f"{info.element.value}): atomics need a read_write buffer of u32 elements "
                "(V009/V014/V025)"
            )
        kind = op.op_kind
        if (kind == d.AtomicOpKind.COMPARE_EXCHANGE) != (op.expected is not None):
            raise InterpError(
                "atomic compare_exchange needs an `expected` operand, and only it takes one"
            )
        _scalar_operand(op.index, op, "index", "V021")
        _scalar_operand(op.value, op, "value", "V014")
        expected = None
        if op.expected is not None:
            _scalar_operand(op.expected, op, "expected value", "V014")
            expected = self.operand(op.expected, op)
        return m.Atomic(
            slot,
            kind,
            info.name,
            self.operand(op.index, op),
            self.operand(op.value, op),
            expected,
        )

    def statement(self, op: Operation) -> m.Step:
        match op:
            case d.LetOp():
                words_per_value(value_kind(op.value, op))
                return m.Let(op.var_name.data, self.operand(op.value, op))
            case d.AssignOp():
                return m.Assign(op.var_name.data, self.operand(op.value, op))
            case d.StoreOp():
                return self._store(op)
            case d.IfOp():
                _scalar_operand(op.cond, op, "condition", "V022")
                cond = self.operand(op.cond, op)
                return m.If(cond, self.body(op.then_block), self.body(op.else_block))
            case d.LoopOp():
                _scalar_operand(op.lower, op, "lower bound", "V015")
                _scalar_operand(op.upper, op, "upper bound", "V015")
                lower = self.operand(op.lower, op)
                upper = self.operand(op.upper, op)
                return m.Loop(op.var_name.data, lower, upper, self.body(op.body_block))
            case d.BlockOp():
                return m.Block(self.body(op.body_block))
            case d.ReturnOp():
                return m.Return()
            case d.BarrierOp():
                return m.Barrier()
            case _:
                raise InterpError(f"the interpreter does not know statement op `{op.name}`")

    def _store(self, op: d.StoreOp) -> m.Step:
        info = self._typed_buffer(op.buffer.data, op, "store")
        if info.access not in (d.AccessKind.READ_WRITE, d.AccessKind.WORKGROUP):
            raise InterpError(f"store to non-writable buffer `{info.name}` (V005)")
        _scalar_operand(op.index, op, "index", "V021")
        kind = value_kind(op.value, op)
        if words_per_value(kind) != info.words_per_element:
            raise InterpError(
                f"store of a `{kind.value}` value into buffer `{info.name}` of "
                f"{info.element.value} elements. Fix: cast the value to the element type"
            )
        return m.Store(
            info.name, info.is_workgroup, self.operand(op.index, op), self.operand(op.value, op)
        )


def compile_kernel(
    kernel: d.KernelOp, buffers: Mapping[str, BufferInfo], counts: Mapping[str, int]
) -> tuple[m.Body, int]:
    """The kernel's entry body as machine steps, and the number of value slots."""
    compiler = Compiler(buffers, counts)
    body = compiler.body(kernel.entry)
    return body, len(compiler.slots)
