"""`clone_module`: xDSL's `module.clone()` for the pipeline, fast and without recursion.

The pipeline clones every program it prepares (the prepared module belongs to
the cache, the program to its user) and the WGSL target clones the prepared
module again when it has float operations to rewrite. xDSL's `Operation.clone`
builds each op through its generic constructor, recurses once per region, and
then walks the whole copy a second time to set every operand again: about 20 µs
per op, the largest single cost of preparing a program. `clone_module` makes the
same copy in two linear passes over the module (vyre.transforms.walk):

1. every op in pre-order, made directly (as `vyre.dialects.vyre._init_op` makes
   ops): its class, properties, attributes, location, results with their name
   hints, and its regions' blocks with their arguments, linked at the end of
   the copy of its parent block;
2. every op's operands, mapped to the copies of their values, with their uses
   added in the order xDSL's clone adds them (pre-order, operand order), so
   the copy's use lists are xDSL's too.

Values defined outside `module` stay as they are (as in xDSL). An op with
successors (none in vyre IR) sends the module to xDSL's clone. Tested against
xDSL's clone in test/unit/transforms/test_clone.py.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue, Use
from xdsl.ir.core import SSAValues

from vyre.transforms.walk import operations

__all__ = ["clone_module"]


def clone_module(module: ModuleOp) -> ModuleOp:
    """A deep copy of `module`, equal to `module.clone()` (structure, name hints,
    locations, use-list order)."""
    olds = operations(module)
    for op in olds:
        if op._successors:  # pyright: ignore[reportPrivateUsage]
            return module.clone()
    values: dict[int, SSAValue] = {}
    blocks: dict[int, Block] = {}
    news: list[Operation] = []
    append = news.append
    for op in olds:
        new = _copy(op, values, blocks)
        append(new)
        if op is not module:
            parent = op.parent
            assert parent is not None
            _link(blocks[id(parent)], new)
    for old, new in zip(olds, news):
        operands = old._operands  # pyright: ignore[reportPrivateUsage]
        if not operands:
            continue
        mapped = SSAValues(values.get(id(value), value) for value in operands)
        uses = tuple(Use(new, index) for index in range(len(mapped)))
        for value, use in zip(mapped, uses):
            value.add_use(use)
        new._operands = mapped  # pyright: ignore[reportPrivateUsage]
        new._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    copy = news[0]
    assert isinstance(copy, ModuleOp)
    return copy


def _copy(op: Operation, values: dict[int, SSAValue], blocks: dict[int, Block]) -> Operation:
    """`op` without operands, its regions holding empty copies of its blocks."""
    cls = type(op)
    new = cls.__new__(cls)
    results: list[OpResult] = []
    for result in op.results:
        copy = OpResult(result.type, new, result.index)
        copy._name = result._name  # pyright: ignore[reportPrivateUsage]
        values[id(result)] = copy
        results.append(copy)
    new.results = SSAValues(results)
    new.properties = dict(op.properties)
    new.attributes = dict(op.attributes) if op.attributes else {}
    new.location = op.location
    new.regions = ()
    for region in op.regions:
        copy_region = Region()
        for block in region.blocks:
            copy_block = Block(arg_types=block.arg_types)
            for arg, copy_arg in zip(block.args, copy_block.args):
                copy_arg._name = arg._name  # pyright: ignore[reportPrivateUsage]
                copy_arg.location = arg.location
                values[id(arg)] = copy_arg
            blocks[id(block)] = copy_block
            copy_region.add_block(copy_block)
        new.add_region(copy_region)
    return new


def _link(block: Block, op: Operation) -> None:
    """Append the fresh `op` to `block` (`Block.add_op` without its ancestry walk:
    `op` is new and holds no block of the copy's parents)."""
    op.parent = block
    last = block._last_op  # pyright: ignore[reportPrivateUsage]
    if last is None:
        block._first_op = op  # pyright: ignore[reportPrivateUsage]
    else:
        last._next_op = op  # pyright: ignore[reportPrivateUsage]
        op._prev_op = last  # pyright: ignore[reportPrivateUsage]
    block._last_op = op  # pyright: ignore[reportPrivateUsage]

