"""One range rule for numbers in every form (docs/reliability.md): a workgroup dimension
is a u32 >= 1 (V003) and a literal is a value of its type (V133).

The builder and the text parser refuse values no program can hold (ValueError,
located parse error), the wire form cannot spell them, and `vyre.validate`
reports IR made any other way (the dialect's constructors, xDSL passes)."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp

import vyre
from vyre.dialects import vyre as d
from vyre.ir import Program

BIG = 99_999_999_999_999_999_999


def _program(sizes: tuple[int, int, int], *ops: object) -> Program:
    kernel = d.KernelOp("k", sizes, [], list(ops))  # type: ignore[arg-type]
    return Program.from_module(ModuleOp([kernel]))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_v003_a_workgroup_dimension_above_u32(axis: int) -> None:
    sizes = [1, 1, 1]
    sizes[axis] = BIG
    diagnostics = vyre.validate(_program((sizes[0], sizes[1], sizes[2])))
    assert [(diag.rule, diag.message) for diag in diagnostics] == [
        (
            "V003",
            f"vyre IR validation: workgroup_size[{axis}] is {BIG}, more than a u32 holds."
            " Fix: all workgroup dimensions must be in [1, 4294967295].",
        )
    ]


def test_the_largest_u32_workgroup_dimension_is_valid_ir() -> None:
    """2**32 - 1 is a u32: the IR holds it (devices refuse it when it runs)."""
    assert vyre.validate(_program((0xFFFF_FFFF, 1, 1))) == []


def test_the_builder_and_text_refuse_what_validation_reports() -> None:
    with pytest.raises(ValueError, match=r"workgroup_size\[0\] must be in \[0, 2\*\*32\)"):
        Program([], (BIG, 1, 1), [])
    with pytest.raises(vyre.VyreParseError, match=r"<vyre>:1:16: error: workgroup_size\[0\] is"):
        vyre.parse_ir(f"vyre.kernel @k workgroup_size({BIG}, 1, 1) {{\n}}\n")
    program = _program((1, 2**32, 1))
    with pytest.raises(ValueError, match=r"workgroup_size\[1\] = 4294967296: not a u32"):
        program.to_wire()
    with pytest.raises(vyre.VyreParseError, match=r"workgroup_size\[1\] is 4294967296"):
        vyre.parse_ir(vyre.print_ir(program))


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (d.LitU32Op(2**32), "u32 literal 4294967296 is out of range. Fix: a u32 literal is in [0, 4294967295]."),
        (d.LitU32Op(-1), "u32 literal -1 is out of range. Fix: a u32 literal is in [0, 4294967295]."),
        (d.LitI32Op(2**31), "i32 literal 2147483648 is out of range. Fix: a i32 literal is in [-2147483648, 2147483647]."),
        (d.LitBoolOp(2), "bool literal 2 is out of range. Fix: a bool literal is in [0, 1]."),
        (
            d.LitFloatOp(0x1_0000, d.DataTypeAttr("f16")),
            "f16 bit-pattern literal 65536 is out of range. Fix: a f16 bit-pattern literal is in [0, 65535].",
        ),
    ],
)
def test_v133_a_literal_its_type_cannot_hold(op: d.ExprOp, message: str) -> None:
    diagnostics = vyre.validate(_program((1, 1, 1), op))
    assert [(diag.rule, diag.message) for diag in diagnostics] == [("V133", f"vyre IR validation: {message}")]
    if isinstance(op, d.LitBoolOp):
        return  # the text spells a bool `true`/`false`: no out-of-range spelling exists
    with pytest.raises(vyre.VyreParseError, match="out of range|do not fit|Expected integer literal"):
        vyre.parse_ir(vyre.print_ir(_program((1, 1, 1), op.clone())))
