"""`inline-calls`: expand every `vyre.call` of a library op into vyre IR.

A call of a Category A op is replaced by the ops of its composition: the
composition's expression DAG is materialised right before the call, with the
call's argument SSA values as its leaves (each argument was evaluated once,
before the call, and every use of a parameter reuses that value), and the call's
result is replaced by the composition's value. Calls the composition makes are
expanded the same way, until no Category A call remains. A call of a Category C
op whose intrinsic is a vyre `UnOp` (popcount, clz, ctz, reverse_bits) becomes
that UnOp; other Category C calls stay `vyre.call` and are mapped 1:1 by the
lowering and the interpreter (`vyre.ops.intrinsics`).

Errors use validation.md's messages: V016 (unknown op), V017 (call depth over
32 or a recursive composition), V020 (non-inlinable op).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from vyre.dialects import vyre as d
from vyre.ir import (
    BinaryExpr,
    Call,
    Cast,
    DataType,
    Expr,
    LitBool,
    LitI32,
    LitU32,
    Program,
    Select,
    UnaryExpr,
)
from vyre.ops.spec import OpSpec, Param, walk_expr
from vyre.validate import Diagnostic, ValidationError
from vyre.validation import messages

__all__ = ["MAX_CALL_DEPTH", "InlineCallsError", "InlineCallsPass", "inline_calls"]

MAX_CALL_DEPTH = messages.MAX_CALL_DEPTH
"""`DEFAULT_MAX_CALL_DEPTH` of validation.md (V017)."""


class InlineCallsError(ValidationError, PassFailedException):
    """Calls that cannot be inlined; `.diagnostics` holds one entry per problem.

    A `vyre.ValidationError` for Python callers and an xDSL `PassFailedException`
    (a `DiagnosticException`) for pass pipelines, so tools print the messages."""


def inline_calls(program: Program, *, specs: Mapping[str, OpSpec] | None = None) -> Program:
    """A new Program in which no call of a Category A op remains.

    `specs` are consulted before the registry (used to admit an op that is not
    registered yet). Raises `InlineCallsError` (a `vyre.ValidationError`)."""
    module = program.module.clone()
    inline_module(module, specs=specs)
    return Program.from_module(module)


def inline_module(module: Operation, *, specs: Mapping[str, OpSpec] | None = None) -> None:
    """Inline every call under `module`, in place."""
    inliner = _Inliner(specs or {})
    for call in [op for op in module.walk() if isinstance(op, d.CallOp)]:
        inliner.expand(call, ())
    if inliner.diagnostics:
        raise InlineCallsError(list(inliner.diagnostics.values()))


@dataclass(frozen=True)
class InlineCallsPass(ModulePass):
    """Expand library calls into their compositions (Category A) or UnOps (C)."""

    name = "inline-calls"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_module(op)


class _Inliner:
    def __init__(self, specs: Mapping[str, OpSpec]):
        self.specs = specs
        self.diagnostics: dict[str, Diagnostic] = {}

    def report(self, rule: str, message: str, op: Operation) -> None:
        self.diagnostics.setdefault(message, Diagnostic(rule, message, op))

    def resolve(self, op_id: str) -> OpSpec | None:
        from vyre.ops.registry import resolve

        return resolve(op_id, self.specs)

    def expand(self, call: d.CallOp, chain: tuple[str, ...]) -> None:
        op_id = call.op_id.data
        if op_id in chain or len(chain) >= MAX_CALL_DEPTH:
            self.report("V017", messages.call_depth_exceeded(), call)
            return
        spec = self.resolve(op_id)
        if spec is None:
            self.report("V016", messages.unknown_op(op_id), call)
            return
        if not spec.inlinable:
            self.report("V020", messages.non_inlinable_call(op_id), call)
            return
        if not self.check_signature(call, spec):
            return
        intrinsic = spec.intrinsic
        if intrinsic is not None:
            if intrinsic.unop is not None:
                unop = d.UnOp(intrinsic.unop.value, call.args[0])
                self.replace(call, [unop], unop.res)
            return
        new_ops, result = materialize(spec.composition_tree, list(call.args), self.resolve)
        self.replace(call, new_ops, result)
        for new_op in new_ops:
            if isinstance(new_op, d.CallOp):
                self.expand(new_op, (*chain, op_id))

    def check_signature(self, call: d.CallOp, spec: OpSpec) -> bool:
        sig = spec.signature
        op_id = spec.id
        if len(call.args) != sig.arity:
            message = messages.call_argument_count(op_id, len(call.args), sig.arity, str(sig))
            self.report("V131", message, call)
            return False
        ok = True
        for position, (arg, expected) in enumerate(zip(call.args, sig.inputs, strict=True)):
            if arg.type != expected.attr:
                found = _type_name(arg.type)
                message = messages.call_argument_type(op_id, position, expected, found)
                self.report("V132", message, call)
                ok = False
        found = call.res.type
        if found != sig.output.attr and isinstance(found, d.DataTypeAttr):  # pyright: ignore[reportUnnecessaryIsInstance]
            message = messages.call_result_type(op_id, found.data_kind, sig.output.attr.data_kind)
            self.report("V130", message, call)
            ok = False
        return ok

    @staticmethod
    def replace(call: d.CallOp, new_ops: Sequence[Operation], result: SSAValue) -> None:
        block = call.parent_block()
        assert block is not None
        if new_ops:
            block.insert_ops_before(list(new_ops), call)
        call.res.replace_all_uses_with(result)
        call.detach()
        call.erase()


def _type_name(ty: object) -> str:
    return ty.kind.data if isinstance(ty, d.DataTypeAttr) else str(ty)


def materialize(
    tree: Expr,
    args: Sequence[SSAValue],
    resolve: Callable[[str], OpSpec | None] | None = None,
) -> tuple[list[Operation], SSAValue]:
    """The ops computing composition `tree` with `Param(i)` bound to `args[i]`,
    in evaluation order, and the SSA value of the root. Shared sub-trees are
    emitted once (a composition is pure, so sharing is exact)."""
    values: dict[int, SSAValue] = {}
    ops: list[Operation] = []
    for node in walk_expr(tree):
        if isinstance(node, Param):
            values[id(node)] = args[node.index]
            continue
        op = _node_op(node, values, resolve)
        ops.append(op)
        values[id(node)] = op.results[0]
    return ops, values[id(tree)]


def _node_op(
    node: Expr,
    values: Mapping[int, SSAValue],
    resolve: Callable[[str], OpSpec | None] | None,
) -> Operation:
    match node:
        case LitU32(value):
            return d.LitU32Op(value)
        case LitI32(value):
            return d.LitI32Op(value)
        case LitBool(value):
            return d.LitBoolOp(value)
        case BinaryExpr(kind, left, right):
            return d.BinOp(kind.value, values[id(left)], values[id(right)])
        case UnaryExpr(kind, operand):
            return d.UnOp(kind.value, values[id(operand)])
        case Select(cond, if_true, if_false):
            return d.SelectOp(values[id(cond)], values[id(if_true)], values[id(if_false)])
        case Cast(target, value):
            return d.CastOp(values[id(value)], target.attr)
        case Call(op_id, call_args):
            spec = resolve(op_id) if resolve is not None else None
            result = spec.signature.output if spec is not None else DataType.U32
            return d.CallOp(op_id, [values[id(a)] for a in call_args], result.attr)
        case _:  # walk_expr admits nothing else
            raise AssertionError(f"unexpected composition node {type(node).__name__}")
