"""Regressions found by review: each once made the two backends disagree or crash."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ArrayAttr, IntAttr

import vyre
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType as T, Expr as E, Node as N, Program
from vyre.wire import WireError, decode, encode


def _retyped_literal(ty: str) -> Program:
    """out[0] = u64(0xFFFFFFFF), with the literal's result type forced to `ty` (API route)."""
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, T.U64)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("o", E.u32(0), E.cast(T.U64, E.u32(0xFFFFFFFF)))],
    )
    literal = next(op for op in program.kernel.walk() if isinstance(op, d.LitU32Op) and op.value.data)
    forged = d.LitU32Op.create(properties=dict(literal.properties), result_types=[d.DataTypeAttr(ty)])
    block = literal.parent_block()
    assert block is not None
    block.insert_op_before(forged, literal)
    literal.results[0].replace_all_uses_with(forged.results[0])
    literal.detach()
    literal.erase()
    return decode(encode(program))


def test_an_op_carrying_another_result_type_than_it_defines_is_invalid() -> None:
    program = _retyped_literal("i32")
    assert [(x.rule, x.message) for x in vyre.validate(program)] == [
        (
            "V130",
            "vyre IR validation: `vyre.lit_u32` yields `i32` but the op defines its result as"
            " `u32`. Fix: build the op with its own result type `u32`.",
        )
    ]
    with pytest.raises(vyre.ValidationError):
        vyre.run(program, {}, dispatch=(1, 1, 1), outputs={"o": 1}, backend="interp")


def test_a_workgroup_size_of_two_components_is_refused_by_the_wire_and_validation() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, T.U32)],
        workgroup_size=(4, 1, 1),
        entry=[N.store("o", E.gid_x(), E.u32(1))],
    )
    program.kernel.properties["workgroup_size"] = ArrayAttr([IntAttr(4), IntAttr(1)])
    with pytest.raises(WireError, match="exactly 3"):
        decode(encode(program))
    with pytest.raises(ValueError, match="exactly 3"):
        vyre.validate(program)


def test_a_kernel_name_cannot_inject_wgsl(gpu_adapter) -> None:
    name = "k\nconst junk: u32 = 1u / 0u;\n//"
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, T.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("o", E.u32(0), E.u32(7))],
        name=name,
    )
    assert "const junk" not in "\n".join(
        line for line in vyre.lower_to_wgsl(program).splitlines() if not line.startswith("//")
    )
    for backend in ("interp", "wgpu"):
        out = vyre.run(program, {}, dispatch=(1, 1, 1), outputs={"o": 1}, backend=backend)
        assert out["o"].tolist() == [7]


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_uniform_buffers_hold_at_most_64_kib_on_every_backend(backend: str, gpu_adapter) -> None:
    program = Program(
        buffers=[BufferDecl.uniform("u", 0, T.U32), BufferDecl.read_write("o", 1, T.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("o", E.u32(0), E.buf_len("u"))],
    )
    fits = vyre.run(program, {"u": np.zeros(16384, np.uint32)}, dispatch=(1, 1, 1),
                    outputs={"o": 1}, backend=backend)
    assert fits["o"].tolist() == [16384]
    with pytest.raises(ValueError, match="uniform buffer `u` holds 65540 bytes"):
        vyre.run(program, {"u": np.zeros(16385, np.uint32)}, dispatch=(1, 1, 1),
                 outputs={"o": 1}, backend=backend)


def test_the_interpreter_refuses_absurd_workgroups_with_a_clear_error() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, T.U32)],
        workgroup_size=(0xFFFFFFFF, 1, 1),
        entry=[N.store("o", E.u32(0), E.u32(1))],
    )
    with pytest.raises(ValueError, match="at most 65536"):
        vyre.run(program, {}, dispatch=(1, 1, 1), outputs={"o": 1}, backend="interp")
