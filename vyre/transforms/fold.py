"""`canonicalize` for the pipeline: the ops' folders in one program-order walk,
then dead-code elimination in one reverse walk.

xDSL's `CanonicalizePass` (what `vyre-opt -p canonicalize` runs, unchanged)
applies the folders and removes trivially dead ops with a greedy worklist
rewriter that walks the module again after every round of changes and runs
a liveness analysis after each walk: several walks of the whole module where
vyre IR needs one. vyre IR allows a single walk because an expression is placed
before the op that consumes it (ARCHITECTURE.md, "IR shape"): walking in
program order, every operand of an op has been folded when the op is reached,
so the folders reach their fixpoint in one pass. Folding never needs a dead
op, and removing a dead op only frees its operands, which come before it:
one walk in reverse program order (nested ops before the op holding them)
removes every op xDSL's DCE removes.

`canonicalize(module)` gives the module xDSL's canonicalize gives: the same ops
in the same order, the same name hints (a folded value takes the name hint of
the op it replaces when it has none), and the same materialised literals (the
dialect's constant materialisation, inserted right before the folded op).
test/unit/transforms/test_fold.py compares the two on random programs, the
library's kernels and float-strict output. Op classes with canonicalization
patterns (none in vyre; foreign dialects in mixed modules may have them) send
the module through xDSL's pass instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.folder import Folder
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import ConstantLike, HasCanonicalizationPatternsTrait, HasFolder
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

from vyre.context import vyre_context
from vyre.dialects import vyre as d
from vyre.transforms.walk import operations

__all__ = ["canonicalize"]


def canonicalize(module: ModuleOp, ctx: Context | None = None) -> bool:
    """Fold and remove dead ops under `module`, in place, as xDSL's
    `CanonicalizePass` does (see the module doc). Returns whether anything
    changed."""
    context = ctx if ctx is not None else _context()
    ops = operations(module)
    for op in ops:
        if _has_patterns(type(op)):
            CanonicalizePass().apply(context, module)
            return True
    folder = Folder(context)
    changed = False
    for op in ops:
        kind = _fold_kind(type(op))
        if kind == _NONE:
            continue
        if kind == _VYRE:
            assert isinstance(op, HasFolderInterface)
            folded = _materialise(op, op.fold())
        else:
            folded = folder.try_fold(op)
        if folded is None:
            continue
        _replace(op, *folded)
        changed = True
    return _remove_dead(module) or changed


_NONE, _VYRE, _GENERIC = 0, 1, 2


@cache
def _fold_kind(cls: type[Operation]) -> int:
    """How ops of `cls` fold: not at all (no folder, or a constant), through
    their own `fold` (vyre's ops), or through xDSL's `Folder` (other dialects)."""
    if cls.has_trait(ConstantLike, value_if_unregistered=True):  # pyright: ignore[reportUnknownMemberType]
        return _NONE
    if not cls.has_trait(HasFolder, value_if_unregistered=False):  # pyright: ignore[reportUnknownMemberType]
        return _NONE
    if issubclass(cls, HasFolderInterface) and cls.__module__ == d.__name__:
        return _VYRE
    return _GENERIC


@cache
def _has_patterns(cls: type[Operation]) -> bool:
    return bool(cls.get_traits_of_type(HasCanonicalizationPatternsTrait))  # pyright: ignore[reportUnknownMemberType]


def _dead_when_unused(op: Operation) -> bool:
    """Whether `op`, unused, is dead (xDSL's `would_be_trivially_dead`): decided
    once per class for vyre's ops without regions (their effects are their
    class's traits), per op otherwise."""
    cls = type(op)
    dead = _DEAD.get(cls)
    if dead is None:
        dead = bool(would_be_trivially_dead(op))
        if cls.__module__ == d.__name__ and not issubclass(cls, d.BodyOp):
            _DEAD[cls] = dead
    return dead


_DEAD: dict[type[Operation], bool] = {}


def _materialise(
    op: Operation, folded: Sequence[SSAValue | Attribute] | None
) -> tuple[list[SSAValue], list[Operation]] | None:
    """`Folder.try_fold(op)` from a vyre op's own `fold()` result: literals
    made by the dialect's constant materialisation."""
    if folded is None:
        return None
    values: list[SSAValue] = []
    new_ops: list[Operation] = []
    for value, result in zip(folded, op.results, strict=True):
        if isinstance(value, SSAValue):
            values.append(value)
            continue
        literal = _MATERIALISE.materialize_constant(value, result.type)
        if literal is None:
            return None
        new_ops.append(literal)
        values.append(literal.results[0])
    return values, new_ops


_MATERIALISE = d.VyreConstantMaterialization()


def _replace(op: Operation, values: Sequence[SSAValue], new_ops: Sequence[Operation]) -> None:
    """`PatternRewriter.replace(op, new_ops, values)` without the rewriter."""
    block = op.parent_block()
    assert block is not None
    for new_op in new_ops:
        block.insert_op_before(new_op, op)
    for old, new in zip(op.results, values, strict=True):
        if old is not new:
            old.replace_all_uses_with(new)
        if not new.name_hint:
            new.name_hint = old.name_hint
    if len(values) == 1 and (hint := values[0].name_hint) is not None:
        for new_op in new_ops:
            for result in new_op.results:
                if not result.name_hint:
                    result.name_hint = hint
    block.erase_op(op)


def _remove_dead(module: ModuleOp) -> bool:
    """Erase every op whose results are unused and that has no effect but reads
    (xDSL's trivially dead ops, to the fixpoint), nested ops first."""
    changed = False
    for op in reversed(operations(module)):
        if op.parent is None:
            continue  # inside an op erased already
        for result in op.results:
            if result.first_use is not None:
                break
        else:
            if _dead_when_unused(op):
                block = op.parent
                block.erase_op(op)
                changed = True
    return changed


@cache
def _context() -> Context:
    return vyre_context()
