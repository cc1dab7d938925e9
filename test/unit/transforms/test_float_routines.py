"""float-strict makes each soft-float program once per module (a `vyre.routine`)
and invokes it at every use: the WGSL and every compile stage grow with the
number of distinct float operations plus the number of uses, not their product.
The integer meaning is unchanged: the interpreter runs the routines, the GPU runs
their WGSL functions, and both equal the interpreter's own float oracle."""

from __future__ import annotations

import io
import re
import time

import numpy as np
import pytest

import vyre
from vyre import progress
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.pipeline import prepare
from vyre.text import parse_module, print_module
from vyre.wire import WireError

FORBIDDEN_IR_WORDS = re.compile(r"fadd|fsub|fmul|fdiv|fsqrt|fma", re.IGNORECASE)
FLOAT_TOKENS = re.compile(r"\bf(32|16)\b")
FLOAT_CALLS = re.compile(
    r"\b(exp|exp2|log|log2|sin|cos|tan|asin|acos|atan|atan2|tanh|pow|sqrt|inverseSqrt|fma)\("
)


def chain(count: int, dtype: DataType = DataType.F32) -> Program:
    """`count` lets mixing add, mul, fma, div and sqrt over two float inputs."""
    body: list[Node] = [
        N.let("i", E.gid_x()),
        N.let("v0", E.load("a", E.var("i"))),
        N.let("v1", E.load("b", E.var("i"))),
    ]
    names = ["v0", "v1"]
    for k in range(count):
        x, y, z = (E.var(names[(k * s + 1) % len(names)]) for s in (7, 3, 5))
        step: Expr = [
            lambda: E.fadd(x, y),
            lambda: E.fmul(x, y),
            lambda: E.fma(x, y, z),
            lambda: E.fdiv(x, E.fadd(y, E.float_bits(dtype, 0x3F80 if dtype is not DataType.F32 else 0x3F800000))),
            lambda: E.fsqrt(E.fabs(x)),
        ][k % 5]()
        names.append(f"v{k + 2}")
        body.append(N.let(names[-1], step))
    body.append(N.store("out", E.var("i"), E.var(names[-1])))
    buffers = [
        BufferDecl.read("a", 0, dtype),
        BufferDecl.read("b", 1, dtype),
        BufferDecl.read_write("out", 2, dtype),
    ]
    return Program(buffers, (64, 1, 1), body, name="chain")


def _strict_text(program: Program) -> str:
    return print_module(prepare(program).strict_module)


def test_one_routine_per_operation_and_format_invoked_at_every_use() -> None:
    module = prepare(chain(200)).strict_module
    routines = [op for op in module.ops if isinstance(op, d.RoutineOp)]
    names = sorted(r.sym_name.data for r in routines)
    # add (also inside div's operand), mul, fma, div and sqrt (each its fast path, and
    # the whole algorithm it invokes where that does not apply); fabs is a sign-bit routine
    assert names == [
        "soft_binary32_abs", "soft_binary32_add", "soft_binary32_add_general", "soft_binary32_div",
        "soft_binary32_div_general", "soft_binary32_mul", "soft_binary32_mul_add",
        "soft_binary32_mul_add_general", "soft_binary32_mul_general", "soft_binary32_sqrt",
        "soft_binary32_sqrt_general",
    ]  # fmt: skip
    invokes = [op for op in d.kernel_of(module).walk() if isinstance(op, d.InvokeOp)]
    assert len(invokes) == 280  # 200 steps; each div adds an fadd, each sqrt an fabs (40 each)
    assert not any(isinstance(op, d.FloatOp) for op in module.walk())


def test_the_output_never_names_a_float_op_type_or_builtin() -> None:
    text = _strict_text(chain(60))
    assert not FORBIDDEN_IR_WORDS.search(text.replace("vyre.fabs", ""))  # no float op remains either
    wgsl = vyre.lower_to_wgsl(chain(60))
    assert not FLOAT_TOKENS.search(wgsl)
    assert not FLOAT_CALLS.search(wgsl)
    for fmt in (DataType.F16, DataType.BF16):
        wgsl = vyre.lower_to_wgsl(chain(30, fmt))
        assert not FLOAT_TOKENS.search(wgsl) and not FLOAT_CALLS.search(wgsl)


def test_the_wgsl_grows_with_uses_not_with_uses_times_algorithm() -> None:
    sizes = {n: len(vyre.lower_to_wgsl(chain(n))) for n in (100, 200, 400)}
    per_use = (sizes[400] - sizes[200]) / 200
    assert per_use < 200, sizes  # a use is one call: tens of bytes, not the algorithm's kilobytes
    assert sizes[200] <= 40 * 1024, sizes
    assert abs((sizes[400] - sizes[200]) - 2 * (sizes[200] - sizes[100])) < 0.1 * sizes[400], sizes


def test_the_routines_compute_what_the_float_ops_compute() -> None:
    """The interpreter runs the float ops with its own oracle; it also runs the
    float-strict output (routines of integer code): both equal, and equal the GPU."""
    program = chain(120)
    rng = np.random.default_rng(7)
    a = rng.standard_normal(256).astype(np.float32)
    b = rng.standard_normal(256).astype(np.float32)
    a[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38, -1e-40]
    args = {"a": a, "b": b}
    oracle = vyre.run(program, args, dispatch=(4, 1, 1), outputs={"out": 256}, backend="interp")["out"]
    strict = Program.from_module(parse_module(_strict_text(program)))
    interp = vyre.run(strict, args, dispatch=(4, 1, 1), outputs={"out": 256}, backend="interp")["out"]
    gpu = vyre.run(program, args, dispatch=(4, 1, 1), outputs={"out": 256}, backend="wgpu")["out"]
    assert np.array_equal(oracle.view(np.uint32), interp.view(np.uint32))
    assert np.array_equal(oracle.view(np.uint32), gpu.view(np.uint32))


def test_an_operation_of_literals_still_folds_to_a_literal() -> None:
    program = Program(
        [BufferDecl.read_write("out", 0, DataType.F32)],
        (1, 1, 1),
        [N.store("out", E.u32(0), E.fsqrt(E.fadd(E.f32(1.5), E.f32(2.5))))],
    )
    module = prepare(program).strict_module
    assert not [op for op in module.ops if isinstance(op, d.RoutineOp)]
    stored = [op for op in module.walk() if isinstance(op, d.StoreOp)][0].value.owner
    assert isinstance(stored, d.LitFloatOp) and stored.bits.data == 0x40000000  # sqrt(4) = 2


def test_a_strict_module_round_trips_as_text_and_the_wire_form_refuses_it() -> None:
    text = _strict_text(chain(20))
    assert print_module(parse_module(text)) == text
    program = Program.from_module(parse_module(text))
    assert vyre.validate(program) == []
    with pytest.raises(WireError, match="routines"):
        program.to_wire()


def test_only_the_variant_a_run_dispatches_is_lowered() -> None:
    program = chain(3)
    prepared = prepare(program)
    n = 4096
    args = {"a": np.ones(n, np.float32), "b": np.ones(n, np.float32)}
    vyre.run(program, args, dispatch=(n // 64, 1, 1), outputs={"out": n}, backend="wgpu")
    lowered = prepared._lowerings  # pyright: ignore[reportPrivateUsage]
    assert [options.vectorize for options in lowered] == [True]  # a map covering each index once
    # two rows of workgroups run every index twice: only the program as written does that
    vyre.run(program, args, dispatch=(n // 64, 2, 1), outputs={"out": n}, backend="wgpu")
    assert sorted(options.vectorize for options in lowered) == [False, True]


def test_long_stages_say_what_they_do_and_short_ones_stay_silent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = io.StringIO()
    previous = progress.report_to(stream)
    try:
        with progress.stage("a short stage"):
            pass
        monkeypatch.setattr(progress, "DELAY", 0.05)
        with progress.stage("lowering kernel @k to WGSL"):
            time.sleep(0.3)
    finally:
        progress.report_to(previous)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "vyre: lowering kernel @k to WGSL ..."
    assert re.fullmatch(r"vyre: lowering kernel @k to WGSL: 0\.\d s", lines[1])
    assert len(lines) == 2
    silent = io.StringIO()
    with progress.stage("unreported"):  # no stream asked for: the API says nothing
        time.sleep(0.1)
    assert silent.getvalue() == ""


def test_a_map_whose_elements_cost_much_is_not_vectorised() -> None:
    """Vectorising runs 8 lane calls per invocation: it pays for memory-bound maps,
    not for elements of hundreds of soft-float operations (and a driver that inlines
    the calls would compile 8 times the code)."""
    from vyre.lowering.options import LoweringOptions
    from vyre.lowering.wgsl import VECTOR_WORK_LIMIT, element_work, vectorises

    options = LoweringOptions(vectorize=True)
    small, big = prepare(chain(2)).strict_kernel, prepare(chain(200)).strict_kernel
    assert element_work(small) <= VECTOR_WORK_LIMIT < element_work(big)
    assert vectorises(small, options) and not vectorises(big, options)
    assert prepare(chain(200)).lowered_for(options).vector is None


def test_a_fast_paths_fallback_counts_as_one_call_in_the_element_work() -> None:
    """Four chained F32 fmas: the elements run four fast paths (the general routine
    only where those do not apply), so the map is vectorised as it was before F32
    fma had a fast path; the loop-unrolling budget (code size) still counts the
    fallback's body."""
    from vyre.lowering.loops import is_fallback_call, ops_work, routine_work
    from vyre.lowering.options import LoweringOptions
    from vyre.lowering.wgsl import VECTOR_WORK_LIMIT, element_work, vectorises

    x = E.load("a", E.var("i"))
    value = x
    for _ in range(4):
        value = E.fma(value, x, x)
    program = Program(
        [BufferDecl.read("a", 0, DataType.F32), BufferDecl.read_write("out", 1, DataType.F32)],
        (64, 1, 1),
        [N.let("i", E.invocation_id(0)), N.store("out", E.var("i"), value)],
    )
    kernel = prepare(program).strict_kernel
    routines = d.routines_of(kernel)
    fast = routines["soft_binary32_mul_add"]
    calls = [op for op in fast.entry.ops if isinstance(op, d.InvokeOp)]
    assert len(calls) == 1 and is_fallback_call(calls[0])
    general = routine_work(kernel)("soft_binary32_mul_add_general")
    assert routine_work(kernel)("soft_binary32_mul_add") > general  # what the shader holds
    assert routine_work(kernel, fallbacks=False)("soft_binary32_mul_add") < general  # what an element runs
    assert element_work(kernel) <= VECTOR_WORK_LIMIT < ops_work(list(kernel.walk()), routine_work(kernel))
    assert vectorises(kernel, LoweringOptions(vectorize=True))
