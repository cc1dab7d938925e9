"""The pipeline's canonicalize (vyre.transforms.fold) gives what xDSL's
CanonicalizePass gives (the same ops, order, literals and name hints), after
inline-calls and after float-strict; vyre-opt keeps xDSL's pass."""

from __future__ import annotations

import io

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer
from xdsl.transforms.canonicalize import CanonicalizePass

from vyre.context import vyre_context
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.kernels.evaluate import elementwise_program
from vyre.ops import registry
from vyre.testing.random_maps import random_map_case
from vyre.testing.random_programs import random_case
from vyre.transforms import get_all_passes
from vyre.transforms.float_strict import float_strict, has_float_arithmetic
from vyre.transforms.fold import canonicalize
from vyre.transforms.inline_calls import inline_module


def _generic(module: ModuleOp) -> str:
    """The generic form, with every name hint."""
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def _assert_same_as_xdsl(module: ModuleOp) -> ModuleOp:
    """Both canonicalizations of (copies of) `module` print the same; returns ours."""
    expected, ours = module.clone(), module.clone()
    CanonicalizePass().apply(vyre_context(), expected)
    canonicalize(ours)
    assert _generic(ours) == _generic(expected)
    ours.verify()
    return ours


def _assert_pipeline_stages(program: Program) -> None:
    module = program.module.clone()
    inline_module(module)
    prepared = _assert_same_as_xdsl(module)
    if has_float_arithmetic(prepared):
        float_strict(prepared)
        _assert_same_as_xdsl(prepared)


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_random_programs_fold_as_xdsl_canonicalize_does(seed: int) -> None:
    _assert_pipeline_stages(random_case(seed).program)
    _assert_pipeline_stages(random_map_case(seed).program)


def test_every_scalar_library_op_folds_as_xdsl_canonicalize_does() -> None:
    """Every op's composition inlined (float ones then rewritten by float-strict)."""
    for op_id in registry.scalar_op_ids():
        _assert_pipeline_stages(elementwise_program(registry.get_scalar(op_id), 1))


def _folding_program() -> Program:
    """Constants meeting everywhere: binops, unops, casts, selects (both arms),
    bitcast pairs, a constant If, a dead If and Loop, dead loads and vars."""
    x = E.load("a", E.gid_x())
    return Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (4, 1, 1),
        [
            N.let("k", E.add(E.mul(E.u32(3), E.u32(5)), E.shl(E.u32(1), E.u32(33)))),
            N.let("v", E.select(E.lt(E.u32(1), E.u32(2)), x, E.u32(9))),
            N.let("w", E.select(E.bool_(False), x, E.bitxor(x, E.var("k")))),
            N.let("c", E.cast(DataType.U32, E.cast(DataType.I32, E.u32(300)))),
            N.let("f", E.bitcast(DataType.U32, E.bitcast(DataType.F32, x))),
            N.if_(E.eq(E.u32(0), E.u32(0)), [N.store("out", E.gid_x(), E.var("v"))]),
            N.if_(x, [N.let("dead", E.load("a", E.u32(0)))]),
            N.loop("i", E.u32(0), E.u32(4), []),
            N.loop("j", E.u32(0), E.u32(4), [N.let("kept", E.var("j"))]),
            N.block([]),
            N.let("unused_load", E.add(E.load("a", E.u32(1)), E.var("w"))),
            N.store("out", E.u32(1), E.add(E.var("w"), E.add(E.var("c"), E.var("f")))),
        ],
    )


def test_folds_and_dead_ops_as_xdsl_canonicalize_does() -> None:
    program = _folding_program()
    module = program.module.clone()
    ours = _assert_same_as_xdsl(module)
    names = [type(op).__name__ for op in ours.walk()]
    # the empty loop and block are gone, the loop with a let stays
    assert "BinOp" in names and names.count("LoopOp") == 1 and "BlockOp" not in names
    assert canonicalize(ours) is False  # a fixpoint: nothing left to do
    assert canonicalize(program.module.clone()) is True


def test_vyre_opt_canonicalize_is_xdsls_pass() -> None:
    assert get_all_passes()["canonicalize"]() is CanonicalizePass


def test_has_float_arithmetic_is_what_float_strict_rewrites() -> None:
    x = E.load("a", E.gid_x())
    plain = Program([BufferDecl.read_write("a", 0, DataType.F32)], (1, 1, 1),
                    [N.store("a", E.u32(0), E.bitcast(DataType.F32, E.bitcast(DataType.U32, x)))])
    assert not has_float_arithmetic(plain.module)
    for value in (E.fadd(x, x), E.cast(DataType.F32, E.cast(DataType.U32, x))):
        program = Program([BufferDecl.read_write("a", 0, DataType.F32)], (1, 1, 1),
                          [N.store("a", E.u32(0), value)])
        assert has_float_arithmetic(program.module)
        module = program.module.clone()
        float_strict(module)
        assert not has_float_arithmetic(module)
    approximate = Program([BufferDecl.read_write("a", 0, DataType.F32)], (1, 1, 1),
                          [N.store("a", E.u32(0), E.fsin_approx(x))])
    assert any(isinstance(op, d.ApproximateUnaryOp) for op in approximate.kernel.walk())
    assert not has_float_arithmetic(approximate.module)
