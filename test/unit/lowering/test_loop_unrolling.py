"""Loop unrolling for adapters that stop loops (vyre/lowering/loops.py) counts
an invoked routine as its ops: drivers inline routines, so each copy of a body
that calls a soft-float function carries the whole function. Found by the
float-functions fuzzer: a 3-iteration loop calling `flog` was written 32 times
and lavapipe took 139 s of CPU to compile it (1.5 s without the loop)."""

from __future__ import annotations

from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.lowering.loops import BODY_BUDGET, MAX_UNROLL, unroll_factors
from vyre.lowering.options import LoweringOptions
from vyre.pipeline import prepare


def _loop_program(value: E, dtype: DataType) -> Program:
    k = E.var("k")
    return Program(
        [BufferDecl.read("a", 0, dtype), BufferDecl.read_write("out", 1, dtype)],
        (1, 1, 1),
        [N.loop("k", E.u32(0), E.u32(3), [N.store("out", k, value)])],
        name="loop",
    )


def _factor(program: Program) -> int:
    kernel = prepare(program).strict_kernel
    (factor,) = [f for op, f in unroll_factors(kernel).items() if isinstance(op, d.LoopOp)]
    return factor


def test_a_small_integer_body_is_still_written_max_unroll_times() -> None:
    assert _factor(_loop_program(E.add(E.load("a", E.var("k")), E.u32(1)), DataType.U32)) == MAX_UNROLL


def test_a_body_calling_a_correctly_rounded_function_is_written_once() -> None:
    for build in (E.flog, E.fsin, E.fexp2, E.fatan):
        for dtype in (DataType.F32, DataType.F16, DataType.BF16):
            assert _factor(_loop_program(build(E.load("a", E.var("k"))), dtype)) == 1, (build, dtype)


def test_a_body_of_soft_float_arithmetic_counts_its_routines() -> None:
    """fmin is a routine of some 30 ops after float-strict (fadd 138 with its fallback): a body
    calling it is written fewer times than a body of integer ops, more than
    once, and all the copies with their routines stay within the budget."""
    a = E.load("a", E.var("k"))
    program = _loop_program(E.fmin(a, a), DataType.F32)
    factor = _factor(program)
    assert 1 < factor < MAX_UNROLL
    (routine,) = d.routines_of(prepare(program).strict_kernel).values()
    assert factor * len(list(routine.entry.ops)) <= BODY_BUDGET
    lowered = prepare(program).lowered_for(LoweringOptions(loop_limit=65535)).wgsl
    assert lowered.count("soft_binary32_min(") == factor + 1  # the calls, and the definition
    # F32 add: its fast path and the general routine it calls where that does not apply
    # are both code of the body (138 ops): one copy
    assert _factor(_loop_program(E.fadd(a, a), DataType.F32)) == 1


def test_the_lowered_loop_calls_the_function_once_per_iteration() -> None:
    program = _loop_program(E.flog(E.load("a", E.var("k"))), DataType.F32)
    wgsl = prepare(program).lowered_for(LoweringOptions(loop_limit=65535)).wgsl
    assert wgsl.count("soft_binary32_log(") == 2  # one call in the loop, and the definition
