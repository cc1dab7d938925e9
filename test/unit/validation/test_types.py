"""The type rules beyond V001-V025 that lowering needs (0.7 codes), and the
absence of cascades: one mistake, one diagnostic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest

import vyre
from vyre.dialects import vyre as d
from vyre.ir import AtomicOp, BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N

if TYPE_CHECKING:
    from conftest import FakeRegistry

INP = BufferDecl.read("inp", 0, DataType.U32)
OUT = BufferDecl.read_write("out", 1, DataType.U32)
FLAGS = BufferDecl.read_write("flags", 2, DataType.BOOL)


def found(entry: Sequence[N], buffers: Sequence[BufferDecl] = (INP, OUT, FLAGS)) -> list[tuple[str, str]]:
    return [(d.rule, d.message) for d in vyre.validate(Program(buffers, (64, 1, 1), entry))]


def found_in_text(body: str) -> list[tuple[str, str]]:
    text = (
        "builtin.module {\n  vyre.kernel @main workgroup_size(64, 1, 1) buffers("
        "@inp : read_only u32 binding(0), @out : read_write u32 binding(1)) {\n"
        f"{body}\n  }}\n}}\n"
    )
    return [(d.rule, d.message) for d in vyre.validate(vyre.parse_ir(text))]


def test_v121_store_value_must_match_element_type() -> None:
    entry = [
        N.store("out", E.u32(0), E.i32(-1)),
        N.store("flags", E.u32(0), E.u32(1)),
        N.store("flags", E.u32(0), E.bool_(True)),
        N.store("out", E.u32(0), E.cast(DataType.U32, E.i32(-1))),
    ]
    assert found(entry) == [
        (
            "V121",
            "vyre IR validation: store value type `i32` does not match element type `u32` of buffer `out`. Fix: cast the stored value to `u32`.",
        ),
        (
            "V121",
            "vyre IR validation: store value type `u32` does not match element type `bool` of buffer `flags`. Fix: cast the stored value to `bool`.",
        ),
    ]


def test_v122_load_and_store_index_must_be_u32() -> None:
    entry = [
        N.let("x", E.load("inp", E.i32(0))),
        N.store("out", E.bool_(False), E.u32(1)),
    ]
    assert found(entry) == [
        ("V122", "vyre IR validation: load index must be `u32`, got `i32`. Fix: cast the index to U32."),
        ("V122", "vyre IR validation: store index must be `u32`, got `bool`. Fix: cast the index to U32."),
    ]


def test_v027_v057_v058_atomic_operand_types() -> None:
    entry = [
        N.let("a", E.atomic(AtomicOp.ADD, "out", E.i32(0), E.u32(1))),
        N.let("b", E.atomic(AtomicOp.EXCHANGE, "out", E.u32(0), E.bool_(True))),
        N.let("c", E.atomic(AtomicOp.COMPARE_EXCHANGE, "out", E.u32(0), E.u32(1), E.i32(2))),
    ]
    assert found(entry) == [
        ("V027", "vyre IR validation: atomic index must be `u32`, got `i32`. Fix: cast the index to U32."),
        ("V057", "vyre IR validation: atomic value must be `u32`, got `bool`. Fix: cast the value to U32."),
        (
            "V058",
            "vyre IR validation: compare-exchange expected value must be `u32`, got `i32`. Fix: cast the expected value to U32.",
        ),
    ]


def test_v029_select_condition_and_arms() -> None:
    entry = [
        N.let("a", E.select(E.i32(1), E.u32(1), E.u32(2))),
        N.let("b", E.select(E.u32(1), E.u32(1), E.i32(2))),
        N.let("c", E.select(E.bool_(True), E.i32(1), E.i32(2))),
    ]
    assert found(entry) == [
        (
            "V029",
            "vyre IR validation: select condition must be `u32` or `bool`, got `i32`. Fix: cast or rewrite the condition to produce U32 or Bool.",
        ),
        (
            "V029",
            "vyre IR validation: select arms must have the same type, got `u32` and `i32`. Fix: cast one arm to the type of the other.",
        ),
    ]


def test_v045_assignment_must_keep_the_declared_type() -> None:
    entry = [
        N.let("x", E.u32(0)),
        N.assign("x", E.i32(-1)),
        N.assign("x", E.add(E.var("x"), E.u32(1))),
        N.let("s", E.i32(0)),
        N.assign("s", E.negate(E.var("s"))),  # negate keeps i32
    ]
    assert found(entry) == [
        (
            "V045",
            "vyre IR validation: assignment to `x` has type `i32` but the variable is declared `u32`. Fix: cast the assigned value to `u32`.",
        )
    ]


def test_v099_unary_operand_type() -> None:
    entry = [
        N.let("a", E.popcount(E.cast(DataType.U64, E.u32(1)))),
        N.let("b", E.bitnot(E.i32(1))),
        N.let("c", E.logical_not(E.bool_(False))),
    ]
    assert found(entry) == [
        (
            "V099",
            "vyre IR validation: unary operation operand must be `u32`, `i32` or `bool`, got `u64`. Fix: cast the operand to U32 or I32.",
        )
    ]


def test_variables_carry_their_declared_type_into_operations() -> None:
    entry = [N.let("s", E.i32(3)), N.let("t", E.add(E.var("s"), E.u32(1)))]
    assert found(entry) == [
        (
            "V021",
            "vyre IR validation: binary operation left operand must be `u32`, got `i32`. Fix: cast or rewrite the operand to produce U32.",
        )
    ]


def test_no_cascade_from_unknown_buffer_or_variable() -> None:
    # the textual form can give the unknown things any type: none of it cascades
    body = """
    %0 = vyre.lit_u32 0
    %1 = vyre.load @nope[%0] : i32
    %2 = vyre.var "ghost" : vec2u32
    %3 = vyre.binop add %1, %2
    %4 = vyre.cast %2 to vec4u32
    %5 = vyre.unop popcount %2
    vyre.let "g" = %2
    %6 = vyre.var "g" : vec2u32
    vyre.assign "g" = %0
    %7 = vyre.select %2, %1, %0
    vyre.if %2 {
    }
    vyre.loop "i" = %1 to %2 {
    }
    vyre.store @out[%1] = %2
    """
    assert found_in_text(body) == [
        ("V004", "vyre IR validation: load from unknown buffer `nope`. Fix: declare it in Program::buffers."),
        (
            "V006",
            "vyre IR validation: reference to undeclared variable `ghost`. Fix: add `let ghost = ...;` before this use.",
        ),
    ]


def test_no_cascade_from_bytes_buffer_or_unknown_op() -> None:
    blob = BufferDecl.read("blob", 3, DataType.BYTES)
    entry = [
        N.let("b", E.load("blob", E.u32(0))),
        N.let("c", E.cast(DataType.U32, E.var("b"))),
        N.let("d", E.add(E.var("b"), E.call("no.such", []))),
    ]
    assert [rule for rule, _ in found(entry, (INP, OUT, blob))] == ["V013", "V016"]


def test_v130_text_annotations_must_match_declarations(registry: FakeRegistry) -> None:
    registry.add("test.pair", output=DataType.VEC2U32)
    body = """
    %0 = vyre.lit_u32 0
    vyre.let "x" = %0
    %1 = vyre.var "x" : i32
    %2 = vyre.load @inp[%0] : bool
    %3 = vyre.call "test.pair"() : u32
    vyre.loop "i" = %0 to %0 {
      %4 = vyre.var "i" : u64
    }
    """
    assert found_in_text(body) == [
        (
            "V130",
            "vyre IR validation: variable `x` is read as `i32` but has type `u32`. Fix: read it as `u32`.",
        ),
        (
            "V130",
            "vyre IR validation: load from buffer `inp` yields `bool` but its element type is `u32`. Fix: load it as `u32`.",
        ),
        (
            "V130",
            "vyre IR validation: call to `test.pair` yields `u32` but the op returns `vec2u32`. Fix: declare the call's result as `vec2u32`.",
        ),
        (
            "V130",
            "vyre IR validation: variable `i` is read as `u64` but has type `u32`. Fix: read it as `u32`.",
        ),
    ]


def test_call_result_takes_the_registered_output_type(registry: FakeRegistry) -> None:
    registry.add("test.pair", output=DataType.VEC2U32)
    entry = [N.let("p", E.call("test.pair", [])), N.let("q", E.add(E.var("p"), E.u32(1)))]
    assert found(entry) == [
        (
            "V021",
            "vyre IR validation: binary operation left operand must be `u32`, got `vec2u32`. Fix: cast or rewrite the operand to produce U32.",
        )
    ]


def test_v131_v132_call_arguments_match_the_signature(registry: FakeRegistry) -> None:
    registry.add("test.mix", inputs=(DataType.U32, DataType.U64))
    entry = [
        N.let("a", E.call("test.mix", [E.u32(1)])),
        N.let("b", E.call("test.mix", [E.i32(1), E.cast(DataType.U64, E.u32(2))])),
        N.let("c", E.call("test.mix", [E.u32(1), E.cast(DataType.U64, E.u32(2))])),
        N.let("d", E.call("test.mix", [E.var("ghost"), E.u32(2)])),
    ]
    assert found(entry) == [
        (
            "V131",
            "vyre IR validation: call to `test.mix` passes 1 argument(s) but the op takes 2. Fix: call it as test.mix(u32, u64) -> u32.",
        ),
        (
            "V132",
            "vyre IR validation: argument 0 of the call to `test.mix` must be `u32`, got `i32`. Fix: cast the argument to u32.",
        ),
        (
            "V006",
            "vyre IR validation: reference to undeclared variable `ghost`. Fix: add `let ghost = ...;` before this use.",
        ),
        (
            "V132",
            "vyre IR validation: argument 1 of the call to `test.mix` must be `u64`, got `u32`. Fix: cast the argument to u64.",
        ),
    ]


def _retyped_literal(ty: str) -> Program:
    """out[0] = u64(0xFFFFFFFF), with the literal's result type forced to `ty` (API route)."""
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, DataType.U64)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("o", E.u32(0), E.cast(DataType.U64, E.u32(0xFFFFFFFF)))],
    )
    literal = next(op for op in program.kernel.walk() if isinstance(op, d.LitU32Op) and op.value.data)
    forged = d.LitU32Op.create(properties=dict(literal.properties), result_types=[d.DataTypeAttr(ty)])
    block = literal.parent_block()
    assert block is not None
    block.insert_op_before(forged, literal)
    literal.results[0].replace_all_uses_with(forged.results[0])
    literal.detach()
    literal.erase()
    return Program.from_wire(program.to_wire())  # the wire keeps the forged type


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
