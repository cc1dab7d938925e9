"""vyre.transforms.clone.clone_module is xDSL's `module.clone()`: the same
printed IR (name hints included), the same use lists, a verified module that
shares nothing with the original."""

from __future__ import annotations

import io

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.printer import Printer

from vyre.context import MAX_NESTING
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.testing.random_maps import random_map_case
from vyre.testing.random_programs import random_case
from vyre.transforms.clone import clone_module
from vyre.transforms.walk import operations


def _generic(module: ModuleOp) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def _uses(module: ModuleOp) -> list[list[tuple[int, int]]]:
    """Each value's uses as (user's pre-order number, operand index), in use-list order."""
    ops = operations(module)
    number = {id(op): k for k, op in enumerate(ops)}
    values: list[SSAValue] = []
    for op in ops:
        values += op.results
        for region in op.regions:
            for block in region.blocks:
                values += block.args
    return [[(number[id(use.operation)], use.index) for use in value.uses] for value in values]


def _objects(module: ModuleOp) -> set[int]:
    found: set[int] = set()
    for op in operations(module):
        found.add(id(op))
        found.update(id(value) for value in op.results)
        for region in op.regions:
            found.add(id(region))
            for block in region.blocks:
                found.add(id(block))
    return found


def _assert_clone(module: ModuleOp) -> ModuleOp:
    before = _generic(module)
    expected, copy = module.clone(), clone_module(module)
    copy.verify()
    assert _generic(copy) == _generic(expected) == before
    assert _uses(copy) == _uses(expected)
    assert not _objects(copy) & _objects(module)
    for op in operations(copy):
        for value in op.operands:
            assert isinstance(value.owner, Operation | Block)
    return copy


@pytest.mark.parametrize("seed", range(0, 40, 4))
def test_random_programs_clone_as_xdsl_does(seed: int) -> None:
    _assert_clone(random_case(seed).program.module)
    _assert_clone(random_map_case(seed).program.module)


def test_the_copy_is_independent() -> None:
    program = Program(
        [BufferDecl.read_write("out", 0, DataType.U32)],
        (1, 1, 1),
        [N.let("x", E.u32(1)), N.if_(E.var("x"), [N.store("out", E.u32(0), E.var("x"))])],
    )
    copy = _assert_clone(program.module)
    for op in list(operations(copy))[::-1]:
        if op.parent is not None and not op.regions:
            op.detach()
            op.erase()
            break
    assert _generic(copy) != _generic(program.module)
    assert Program.from_module(program.module) == program


def test_deep_nesting_and_block_arguments() -> None:
    body: list[N] = [N.store("out", E.u32(0), E.u32(1))]
    for k in range(60):
        body = [N.if_(E.u32(k), body, [N.block([])]), N.loop(f"i{k}", E.u32(0), E.u32(1), [])]
    module = Program([BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1), body).module
    assert 60 < MAX_NESTING
    _assert_clone(module)
    # a block with arguments (not vyre IR, but the copy keeps them)
    region = Region(Block(arg_types=[DataType.U32.attr]))
    foreign = ModuleOp(region)
    copy = clone_module(foreign)
    assert [arg.type for arg in copy.body.block.args] == [DataType.U32.attr]
    assert copy.body.block.args[0] is not foreign.body.block.args[0]
