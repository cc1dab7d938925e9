"""`vyre.lookup`: a word of a constant table (0 past its end), as the soft-float
functions read their constants; the same words on every backend, in every form."""

from __future__ import annotations

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N

TABLE = [0x3F800000, 7, 0xFFFFFFFF, 12345, 0x80000000]


def _program(table: list[int], index_type: DataType = DataType.U32) -> Program:
    return Program(
        [BufferDecl.read("i", 0, index_type), BufferDecl.read_write("o", 1, DataType.U32)],
        (8, 1, 1),
        [N.let("k", E.gid_x()), N.store("o", E.var("k"), E.lookup(table, E.load("i", E.var("k"))))],
    )


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_a_lookup_reads_the_table_and_zero_past_its_end(backend: str) -> None:
    index = np.array([0, 1, 2, 3, 4, 5, 100, 0xFFFFFFFF], dtype=np.uint32)
    out = vyre.run(_program(TABLE), {"i": index}, dispatch=(1, 1, 1), outputs={"o": 8}, backend=backend)["o"]
    expected = [TABLE[k] if k < len(TABLE) else 0 for k in index.tolist()]
    assert out.tolist() == expected


def test_a_lookup_round_trips_as_text_and_wire_and_folds_a_literal_index() -> None:
    program = _program(TABLE)
    assert vyre.parse_ir(vyre.print_ir(program)) == program
    assert Program.from_wire(program.to_wire()) == program
    folded = Program(
        [BufferDecl.read_write("o", 0, DataType.U32)],
        (1, 1, 1),
        [N.store("o", E.u32(0), E.lookup(TABLE, E.u32(3))), N.store("o", E.u32(1), E.lookup(TABLE, E.u32(9)))],
    )
    wgsl = vyre.lower_to_wgsl(folded)
    assert "vyre_table" not in wgsl and "12345u" in wgsl


def test_a_lookup_index_must_be_u32_and_the_table_well_formed() -> None:
    diagnostics = vyre.validate(_program(TABLE, DataType.I32))
    assert [d.rule for d in diagnostics] == ["V122"]
    with pytest.raises(ValueError, match="at least one word"):
        E.lookup([], E.u32(0))
    with pytest.raises(ValueError, match=r"lookup table word 1 must be in \[0, 2\*\*32\)"):
        E.lookup([1, -1], E.u32(0))
    with pytest.raises(TypeError, match="sequence of u32 ints"):
        E.lookup(3, E.u32(0))  # pyright: ignore[reportArgumentType]


def test_a_table_of_one_patterns_is_read_from_memory_without_the_opaque_zero() -> None:
    # the four choices Mesa's NIR rewrites between constants (opaque_constants.py):
    # as table words they come from the table buffer, never constants NIR could fold
    table = [0x3F800000, 0x80000000, 0xBF800000, 0x00000000]
    wgsl = vyre.lower_to_wgsl(_program(table))
    assert "opaque_zero" not in wgsl and "0x3f800000" not in wgsl and "0xbf800000" not in wgsl
    index = np.array([0, 1, 2, 3, 3, 2, 1, 0], dtype=np.uint32)
    out = vyre.run(_program(table), {"i": index}, dispatch=(1, 1, 1), outputs={"o": 8}, backend="wgpu")["o"]
    assert out.tolist() == [table[k] for k in index.tolist()]
