"""vyre.lowering.walk.operations is xDSL's `op.walk()`, fast: same ops, same order."""

from __future__ import annotations

import pytest

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.lowering.walk import operations
from vyre.pipeline import prepare
from vyre.testing.random_maps import random_map_case
from vyre.testing.random_programs import random_case


@pytest.mark.parametrize("seed", range(40))
def test_operations_equal_xdsl_walk_on_random_programs(seed: int) -> None:
    for program in (random_case(seed).program, random_map_case(seed).program):
        kernel = prepare(program).kernel
        assert operations(kernel) == list(kernel.walk())
        for op in kernel.entry.ops:  # and from any op inside
            assert operations(op) == list(op.walk())


def test_empty_blocks_and_deep_nesting() -> None:
    body: list[N] = [N.store("out", E.u32(0), E.u32(1))]
    for k in range(60):
        body = [N.if_(E.u32(k), body, []), N.block([]), N.loop(f"i{k}", E.u32(0), E.u32(1), [])]
    program = Program([BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1), body)
    kernel = program.kernel
    assert operations(kernel) == list(kernel.walk())
