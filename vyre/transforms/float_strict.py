"""`float-strict`: rewrite every strict float operation into integer vyre IR.

Each float op (`vyre.fadd` ... `vyre.fis_inf`, `vyre.fcmp`, `vyre.fma`) and every
`vyre.cast` that converts to or from a float is replaced by the soft-float
program of its format (`vyre.transforms.softfloat`), built over the operands'
bit patterns: the operands are bitcast to u32, the integer DAG is materialised
by `vyre.ir.emit_expr` (the same translation the builder uses), and the result
is bitcast back to the float type (or is the u32/i32 or bool the op yields).
Bitcast pairs between consecutive float ops cancel under `canonicalize`, and
float literals flow into the integer IR, so constant float expressions fold.

After the pass no float arithmetic remains: float values only travel (loads,
stores, locals, select, bitcasts, literals), which the WGSL lowering carries as
u32 words, so no GPU float unit decides a result bit (flush-to-zero, fused
multiply-add, approximate division or square root cannot change a bit). The
pipeline applies it on the WGSL path; the reference interpreter runs the float
ops themselves with its own exact implementation, which makes it the oracle of
this pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from vyre.dialects import vyre as d
from vyre.ir import ExprEmitter, Param, emit_expr
from vyre.transforms import softfloat as sf
from vyre.transforms.walk import operations

__all__ = [
    "FloatStrictPass",
    "FloatStrictPattern",
    "float_strict",
    "has_float_arithmetic",
    "soft_float_program",
]

_CONVERTIBLE = ("u32", "i32", "f32", "f16", "bf16")


def _kind(value: SSAValue | Attribute) -> d.DataTypeKind | None:
    ty = value.type if isinstance(value, SSAValue) else value
    return ty.data_kind if isinstance(ty, d.DataTypeAttr) else None


def soft_float_program(op: Operation) -> Callable[..., sf.W[Any]] | None:
    """The soft-float function replacing `op`, or None if `op` is not a float
    operation (or is malformed: validation reports that)."""
    found = soft_float_routine(op)
    return None if found is None else found[0]()


_FORMAT_WORDS = {"f32": "binary32", "f16": "binary16", "bf16": "bfloat16", "u32": "u32", "i32": "i32"}
"""How a routine's name spells a format: never like a float type or builtin
(`f32`, `f16`), so the WGSL has no such token."""


def _operation_word(op: type[d.FloatOp], variant: str) -> str:
    """How a routine's name spells the operation: its short name (`add`, `sqrt`),
    `compare_<predicate>`, `mul_add` for fma; never a float op's or a WGSL
    builtin's name."""
    if variant:
        return f"compare_{variant}"
    if op.SHORT_NAME == "fma":
        return "mul_add"
    return op.SHORT_NAME


_Program = Callable[..., sf.W[Any]]


def soft_float_routine(op: Operation) -> tuple[Callable[[], _Program], str] | None:
    """The soft-float function replacing `op` (made on call) and the name of the
    routine that holds it (`soft_binary32_add`, `soft_bfloat16_to_i32`), or None if `op` is
    not a float operation (or is malformed: validation reports that)."""
    operand_kinds = [_kind(v) for v in op.operands]
    result = _kind(op.results[0]) if op.results else None
    if isinstance(op, d.CastOp):
        source, target = operand_kinds[0], result
        if source is None or target is None or source == target:
            return None
        if not (source.is_float or target.is_float):
            return None
        if source.value not in _CONVERTIBLE or target.value not in _CONVERTIBLE:
            return None
        name = f"soft_{_FORMAT_WORDS[source.value]}_to_{_FORMAT_WORDS[target.value]}"
        return lambda: sf.convert_op(source.value, target.value), name
    if not operand_kinds or any(k is None or not k.is_float for k in operand_kinds):
        return None
    first = operand_kinds[0]
    assert first is not None
    if any(k != first for k in operand_kinds):
        return None
    fmt = sf.FORMATS[first.value]
    if not isinstance(op, d.FloatOp) or isinstance(op, d.ApproximateUnaryOp):
        return None
    variant = op.predicate.data if isinstance(op, d.FCmpOp) else ""
    if isinstance(op, d.FCmpOp) and variant not in d.FLOAT_PREDICATES:
        return None
    name = f"soft_{_FORMAT_WORDS[first.value]}_{_operation_word(type(op), variant)}"
    op_class = type(op)
    return lambda: sf.algorithm_of(op_class, fmt, variant), name


def _to_word(value: SSAValue) -> Operation | None:
    """The op reading `value` as a u32 word (None: it is one already)."""
    kind = _kind(value)
    if kind is d.DataTypeKind.U32:
        return None
    return d.BitcastOp(value, d.U32)


def _from_word(value: SSAValue, result: d.DataTypeKind) -> Operation | None:
    """The op turning the u32 word `value` into the op's result type."""
    if result is d.DataTypeKind.U32:
        return None
    if result is d.DataTypeKind.BOOL:
        return d.CastOp(value, d.BOOL)  # a 0/1 word
    return d.BitcastOp(value, result.attr)


def _constant_word(value: SSAValue) -> int | None:
    """The bit pattern of a value defined by a literal (float or integer), else None."""
    owner = value.owner
    if isinstance(owner, d.LitFloatOp):
        return owner.bits.data
    return d.literal_word(value)


def _literal(word: int, result: d.DataTypeKind) -> Operation:
    """The literal of type `result` holding `word` (a u32 result word of a program)."""
    if result.is_float:
        return d.LitFloatOp(word & ((1 << d.FLOAT_BITS[result]) - 1), result.attr)
    if result is d.DataTypeKind.BOOL:
        return d.LitBoolOp(int(word != 0))
    if result is d.DataTypeKind.I32:
        return d.LitI32Op(d.signed(word))
    return d.LitU32Op(word & d.U32_MAX)


def _evaluated(program: _Program, words: list[int]) -> int:
    """`program` on constant words (the soft-float algorithm on the numpy machine,
    the integer meaning the IR has): a float op of literals becomes a literal, so
    constant float expressions fold however deep they are."""
    machine = sf.NumpyMachine()
    result = program(*(machine.word(np.array([w], dtype=np.uint32)) for w in words))
    return int(np.asarray(result.v).reshape(-1)[0])


def _program_ops(
    program: Callable[..., sf.W[Any]], words: list[SSAValue]
) -> tuple[list[Operation], SSAValue]:
    """The integer ops of `program` over `words`, and the value they compute."""
    machine = sf.ExprMachine()
    params = [machine.word(Param(i)) for i in range(len(words))]
    return emit_expr(program(*params).v, words)


def _empty_routine(name: str, arity: int) -> d.RoutineOp:
    """The routine `name(a, b, ..) -> u32` of `arity` u32 words, its body empty."""
    routine = d.RoutineOp(name, [d.U32] * arity, d.U32)
    for k, param in enumerate(routine.entry.args):
        param.name_hint = "abc"[k] if k < 3 else f"p{k}"
    return routine


def _routine(name: str, program: Callable[..., sf.W[Any]], arity: int) -> d.RoutineOp:
    """The routine `name(p0, ..) -> u32` computing `program` on its u32 words."""
    routine = _empty_routine(name, arity)
    block = routine.entry
    ops, value = _program_ops(program, list(block.args))
    block.add_ops([*ops, d.YieldOp(value)])
    return routine


def fast_path_for(op: Operation) -> sf.FastPath | None:
    """The fast path of float op `op` in its operands' format (`sf.fast_path_of`),
    or None: not a float op (a cast), or no fast path there."""
    if not isinstance(op, d.FloatOp):
        return None
    kind = _kind(op.operands[0])
    if kind is None or kind.value not in sf.FORMATS:
        return None
    return sf.fast_path_of(type(op), sf.FORMATS[kind.value])


def _fast_routine(name: str, fast: sf.FastPath, general: str, arity: int) -> d.RoutineOp:
    """The routine `name` computing the fast path where it applies and invoking the
    routine `general` (the whole algorithm) elsewhere: `select(applies, fast,
    invoke @general)`, which the WGSL lowering turns into a call taken only by the
    lanes the fast path does not cover (a routine is pure: calling it only where
    its value is picked changes nothing)."""
    routine = _empty_routine(name, arity)
    block = routine.entry
    machine = sf.ExprMachine()
    applies, value = fast(*(machine.word(Param(i)) for i in range(arity)))
    emitter = ExprEmitter(list(block.args), share=True)
    applies_value, fast_value = emitter.emit(applies.v), emitter.emit(value.v)
    call = d.InvokeOp(general, list(block.args), d.U32)
    pick = d.SelectOp(applies_value, fast_value, call)
    block.add_ops([*emitter.ops, call, pick, d.YieldOp(pick)])
    return routine


GENERAL_SUFFIX = "_general"
"""The name of the whole algorithm's routine of an op with a fast path: the op's
routine name and this (`soft_binary32_mul_add_general`)."""


class FloatStrictPattern(RewritePattern):
    """Replace one float operation by a call of its soft-float routine.

    Each routine (per operation and format) is made once per module, on its first
    use, and placed after the kernel; every use is a `vyre.invoke`. An operation
    whose operands are all literals becomes the literal it computes."""

    def __init__(self) -> None:
        self.routines: dict[tuple[int, str], d.RoutineOp] = {}

    def _routine_for(
        self, op: Operation, name: str, program: Callable[[], _Program], rewriter: PatternRewriter
    ) -> d.RoutineOp:
        module = op.get_toplevel_object()
        block = module.regions[0].blocks.first if isinstance(module, ModuleOp) else None
        if block is None:
            raise ValueError(f"float-strict: `{op.name}` is not inside a builtin.module")
        key = (id(block), name)
        routine = self.routines.get(key)
        if routine is None:
            existing = d.routines_of(block.first_op) if block.first_op is not None else {}
            routine = existing.get(name)
            if routine is None:
                arity = len(op.operands)
                fast = fast_path_for(op)
                if fast is None:
                    routine = _routine(name, program(), arity)
                else:
                    general = name + GENERAL_SUFFIX
                    if general not in existing:
                        rewriter.insert(_routine(general, program(), arity), InsertPoint.at_end(block))
                    routine = _fast_routine(name, fast, general, arity)
                rewriter.insert(routine, InsertPoint.at_end(block))
            self.routines[key] = routine
        return routine

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        found = soft_float_routine(op)
        if found is None:
            return
        program, name = found
        result = _kind(op.results[0])
        assert result is not None
        constants = [_constant_word(operand) for operand in op.operands]
        if all(word is not None for word in constants):
            literal = _literal(_evaluated(program(), [w for w in constants if w is not None]), result)
            rewriter.replace(op, literal)
            return
        new_ops: list[Operation] = []
        words: list[SSAValue] = []
        for operand in op.operands:
            to_word = _to_word(operand)
            if to_word is not None:
                new_ops.append(to_word)
                words.append(to_word.results[0])
            else:
                words.append(operand)
        self._routine_for(op, name, program, rewriter)
        invoke = d.InvokeOp(name, words, d.U32)
        new_ops.append(invoke)
        value: SSAValue = invoke.results[0]
        from_word = _from_word(value, result)
        if from_word is not None:
            new_ops.append(from_word)
            value = from_word.results[0]
        rewriter.insert(new_ops, InsertPoint.before(op))
        if value.name_hint is None and value.owner in new_ops:
            value.name_hint = op.results[0].name_hint
        rewriter.replace_all_uses_with(op.results[0], value)
        rewriter.erase(op)


def float_strict(module: ModuleOp) -> None:
    """Rewrite every float operation under `module` into integer IR, in place."""
    PatternRewriteWalker(FloatStrictPattern(), apply_recursively=False).rewrite_module(module)


@dataclass(frozen=True)
class FloatStrictPass(ModulePass):
    """Strict float operations -> integer soft-float over their bit patterns."""

    name = "float-strict"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        float_strict(op)


def has_float_arithmetic(root: Operation) -> bool:
    """Whether `float_strict` has anything to rewrite under `root` (a float
    operation or a float value cast): the pipeline skips the pass, and the
    second canonicalize, for modules without one."""
    for op in operations(root):
        if isinstance(op, _CANDIDATES) and soft_float_routine(op) is not None:
            return True
    return False


_CANDIDATES = (d.FloatOp, d.CastOp)
"""The op classes `soft_float_program` may rewrite."""


def float_arithmetic(ops: Sequence[Operation]) -> list[Operation]:
    """The float operations among `ops` (what the pass rewrites): none may
    reach the WGSL emitter."""
    return [op for op in ops if soft_float_routine(op) is not None]
