"""`inline-calls`: expand every `vyre.call` of a library op into vyre IR.

`InlineCallPattern` rewrites one call. A call of a Category A op is replaced by
the ops of its composition (`vyre.ir.emit_expr`, the same translation the
builder uses): the composition's expression DAG is materialised right before the
call, with the call's argument SSA values as its leaves (each argument was
evaluated once, before the call, and every use of a parameter reuses that
value), and the call's result is replaced by the composition's value. The
walker visits the new ops too, so calls inside a composition are expanded the
same way, until no Category A call remains. A call of a Category C op whose
intrinsic is a vyre `UnOp` (popcount, clz, ctz, reverse_bits) becomes that
UnOp; other Category C calls stay `vyre.call` and are mapped 1:1 by the
lowering and the interpreter (`vyre.ops.intrinsics`).

Errors use docs/validation.md's messages: V016 (unknown op), V017 (call depth over
32 or a recursive composition), V020 (non-inlinable op), and the signature
rules V131/V132/V130. Every problem is reported, each once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from vyre.dialects import vyre as d
from vyre.ir import DataType, Program, emit_expr
from vyre.ops.registry import resolve
from vyre.ops.spec import OpSpec
from vyre.validate import Diagnostic, ValidationError
from vyre.transforms.walk import operations
from vyre.validation import messages

__all__ = [
    "MAX_CALL_DEPTH",
    "InlineCallPattern",
    "InlineCallsError",
    "InlineCallsPass",
    "inline_calls",
    "inline_module",
]

MAX_CALL_DEPTH = messages.MAX_CALL_DEPTH
"""The deepest nesting of calls that inlining follows (V017)."""


class InlineCallsError(ValidationError, PassFailedException):
    """Calls that cannot be inlined; `.diagnostics` holds one entry per problem.

    A `vyre.ValidationError` for Python callers and an xDSL `PassFailedException`
    (a `DiagnosticException`) for pass pipelines, so tools print the messages."""


@dataclass
class InlineCallPattern(RewritePattern):
    """Expand one `vyre.call`. Problems are collected in `diagnostics` (the call
    stays); `specs` are consulted before the registry (an op being admitted)."""

    specs: Mapping[str, OpSpec] = field(default_factory=lambda: {})
    diagnostics: dict[str, Diagnostic] = field(default_factory=lambda: {})
    _chains: dict[d.CallOp, tuple[str, ...]] = field(default_factory=lambda: {})
    """The op ids whose compositions created a call, outermost first (kept for the
    whole walk: the walker revisits every op until nothing changes)."""

    def resolve(self, op_id: str) -> OpSpec | None:
        spec = self.specs.get(op_id)
        return spec if spec is not None else resolve(op_id)

    def call_type(self, op_id: str) -> DataType | None:
        spec = self.resolve(op_id)
        return None if spec is None else spec.signature.output

    def report(self, rule: str, message: str, op: Operation) -> None:
        self.diagnostics.setdefault(message, Diagnostic(rule, message, op))

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: d.CallOp, rewriter: PatternRewriter, /) -> None:
        op_id = op.op_id.data
        chain = self._chains.get(op, ())
        if op_id in chain or len(chain) >= MAX_CALL_DEPTH:
            self.report("V017", messages.call_depth_exceeded(), op)
            return
        spec = self.resolve(op_id)
        if spec is None:
            self.report("V016", messages.unknown_op(op_id), op)
            return
        if not spec.inlinable:
            self.report("V020", messages.non_inlinable_call(op_id), op)
            return
        if not self._signature_matches(op, spec):
            return
        intrinsic = spec.intrinsic
        if intrinsic is not None:
            if intrinsic.unop is not None:
                rewriter.replace(op, d.UnOp(intrinsic.unop.value, op.args[0]))
            return
        new_ops, result = emit_expr(spec.composition_tree, op.args, call_type=self.call_type)
        for new_op in new_ops:
            if isinstance(new_op, d.CallOp):
                self._chains[new_op] = (*chain, op_id)
        # `rewriter.replace` would give every new value the call's name hint; only
        # the value that replaces the call takes it (the IR and WGSL stay readable)
        rewriter.insert(new_ops, InsertPoint.before(op))
        if result.name_hint is None and result.owner in new_ops:
            result.name_hint = op.res.name_hint
        rewriter.replace_all_uses_with(op.res, result)
        rewriter.erase(op)

    def _signature_matches(self, call: d.CallOp, spec: OpSpec) -> bool:
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


def _type_name(ty: Attribute) -> str:
    return ty.kind.data if isinstance(ty, d.DataTypeAttr) else str(ty)


def inline_module(module: ModuleOp, *, specs: Mapping[str, OpSpec] | None = None) -> None:
    """Inline every call under `module`, in place; `InlineCallsError` lists every
    call that cannot be inlined. A module without calls is left as it is, unwalked."""
    if not any(type(op) is d.CallOp for op in operations(module)):
        return
    pattern = InlineCallPattern(specs or {})
    PatternRewriteWalker(pattern).rewrite_module(module)
    if pattern.diagnostics:
        raise InlineCallsError(list(pattern.diagnostics.values()))


def inline_calls(program: Program, *, specs: Mapping[str, OpSpec] | None = None) -> Program:
    """A new Program in which no call of a Category A op remains.

    `specs` are consulted before the registry (used to admit an op that is not
    registered yet). Raises `InlineCallsError` (a `vyre.ValidationError`)."""
    module = program.module.clone()
    inline_module(module, specs=specs)
    return Program.from_module(module)


@dataclass(frozen=True)
class InlineCallsPass(ModulePass):
    """Expand library calls into their compositions (Category A) or UnOps (C)."""

    name = "inline-calls"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_module(op)
