"""The vyre dialect's ops, types and custom syntax, independent of the builder."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from vyre.context import vyre_context
from vyre.dialects import vyre as d


def parse(text: str) -> ModuleOp:
    return Parser(vyre_context(), text).parse_module()


def test_dialect_holds_every_op_of_the_spec() -> None:
    names = {op.name for op in d.Vyre.operations}
    expressions = "lit_u32 lit_i32 lit_bool var load buf_len invocation_id workgroup_id local_id binop unop call select cast atomic"
    floats = (
        "lit_float fadd fsub fmul fdiv fmin fmax fcmp fma fneg fabs fsqrt ffloor fceil fround"
        " ftrunc fis_nan fis_inf bitcast fsqrt_approx fexp2_approx flog2_approx fsin_approx fcos_approx"
    )
    statements = "let assign store if loop return block barrier"
    routines = "routine invoke yield lookup"
    wide = "lit_u128"
    functions = "fexp2 fexp fexp10 flog flog2 flog10 fsin fcos ftan fasin facos fatan fatan2 ftanh ferf fpow"  # the correctly rounded functions, as they land
    assert names == {
        f"vyre.{n}" for n in f"kernel {expressions} {floats} {statements} {routines} {functions} {wide}".split()
    }


def test_data_type_attr_prints_and_parses() -> None:
    assert str(d.DataTypeAttr("vec4u32")) == "!vyre.type<vec4u32>"
    kernel = parse(
        'vyre.kernel @k workgroup_size(1, 1, 1) {\n %0 = vyre.lit_u32 1\n'
        ' %1 = vyre.cast %0 to !vyre.type<u64>\n}'
    ).body.block.first_op
    assert isinstance(kernel, d.KernelOp)
    cast = kernel.entry.last_op
    assert isinstance(cast, d.CastOp) and cast.target == d.DataTypeAttr("u64")
    with pytest.raises(ValueError):
        d.DataTypeAttr("f64")


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (d.LitU32Op(2**32), "u32 literal 4294967296 is out of range"),
        (d.LitI32Op(2**31), "i32 literal 2147483648 is out of range"),
    ],
)
def test_literal_ranges_are_verified(op, message: str) -> None:
    with pytest.raises(VerifyException, match=message):
        op.verify()


def test_atomic_expected_operand_is_checked() -> None:
    index = d.LitU32Op(0)
    cas = d.AtomicOp("compare_exchange", "b", index, index)
    with pytest.raises(VerifyException, match="needs an `expected` operand"):
        cas.verify_()
    add = d.AtomicOp("add", "b", index, index, index)
    with pytest.raises(VerifyException, match="takes no `expected` operand"):
        add.verify_()


def test_region_ops_hold_one_block() -> None:
    block_op = d.BlockOp(Region([Block(), Block()]))
    with pytest.raises(VerifyException, match="single-block|one statement list"):
        block_op.verify()


CUSTOM = """\
builtin.module {
  vyre.kernel @k workgroup_size(8, 2, 1) buffers(@a : read_only u64 binding(0), @o : read_write u32[4] binding(1), @t : workgroup vec4u32[16]) {
    %0 = vyre.workgroup_id y
    %1 = vyre.lit_u32 7
    %2 = vyre.binop shl %0, %1
    vyre.let "v" = %2
    %v = vyre.var "v" : u32
    vyre.if %v {
      vyre.return
    } else {
      vyre.barrier
    }
  }
}
"""


def test_custom_syntax_round_trips() -> None:
    module = parse(CUSTOM)
    module.verify()
    assert str(module) + "\n" == CUSTOM


def test_empty_bodies_parse_to_one_empty_block() -> None:
    module = parse('vyre.kernel @k workgroup_size(1, 1, 1) {\n}')
    kernel = module.body.block.first_op
    assert isinstance(kernel, d.KernelOp)
    assert len(kernel.body.blocks) == 1 and not kernel.entry.ops


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("vyre.kernel @k workgroup_size(1, 1, 1) buffers(@a : sideways u32) {\n}", "buffer access"),
        ("vyre.kernel @k workgroup_size(1, 1, 1) buffers(@a : read_only f64) {\n}", "vyre data type"),
        ("vyre.kernel @k workgroup_size(1, 1, 1) {\n %0 = vyre.binop frobnicate %0, %0\n}", "binary operator"),
        ("vyre.kernel @k workgroup_size(1, 1, 1) {\n vyre.let \"x\" = %9\n}", "used before it is defined"),
    ],
)
def test_bad_syntax_is_a_parse_error_with_a_clear_message(text: str, words: str) -> None:
    with pytest.raises(ParseError, match=words):
        parse(text)
