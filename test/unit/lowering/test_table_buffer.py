"""The constant tables of a kernel (`vyre.lookup`: the correctly rounded
functions' constants) live in one read-only storage buffer the runtime binds
(vyre/lowering/layout.py `TableBuffer`), never in a dynamically indexed WGSL
`const` array (naga copies such an array into function-local memory on every
access). Every function op runs bit for bit as on the interpreter: vectorised,
as written, several tables in one kernel, and with words on the device."""

from __future__ import annotations

import re

import numpy as np
import pytest

import vyre
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.lowering.options import LoweringOptions
from vyre.pipeline import prepare

N_INPUTS = 4096
GROUP = 64
UNARY = tuple(sorted(op.SHORT_NAME for op in d.ops_of(d.FloatFunctionOp)))
CONST_ARRAY = re.compile(r"\bconst\s+\w+\s*(?::[^=]*)?=\s*array\b")


def _builder(name: str):  # noqa: ANN202 - an Expr builder of one operand
    return getattr(E, f"f{name}")


def _inputs(seed: int) -> np.ndarray:
    """Specials, every binade's neighbourhood of 1, moderate values, any bits."""
    rng = np.random.default_rng(seed)
    specials = np.array(
        [0, 0x8000_0000, 1, 0x8000_0001, 0x007F_FFFF, 0x0080_0000, 0x3F80_0000, 0xBF80_0000,
         0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFC0_0001, 0x4049_0FDB],
        dtype=np.uint32,
    )  # fmt: skip
    count = N_INPUTS - specials.size
    moderate = rng.uniform(-30.0, 30.0, count // 2).astype(np.float32).view(np.uint32)
    anything = rng.integers(0, 1 << 32, count - moderate.size, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([specials, moderate, anything])


def _map(builders: dict[str, object]) -> Program:
    """`out_k[i] = f_k(a[i])` for every builder: a map (vectorised by the runtime)."""
    names = list(builders)
    i = E.var("i")
    return Program(
        [BufferDecl.read("a", 0, DataType.F32)]
        + [BufferDecl.read_write(name, k + 1, DataType.F32) for k, name in enumerate(names)],
        (GROUP, 1, 1),
        [N.let("i", E.gid_x()), N.let("x", E.load("a", i))]
        + [N.store(name, i, build(E.var("x"))) for name, build in builders.items()],  # pyright: ignore[reportCallIssue]
        name="tables",
    )


def _words(result: dict[str, np.ndarray], name: str) -> np.ndarray:
    return np.asarray(result[name]).view(np.uint32)


@pytest.mark.parametrize("name", UNARY)
def test_a_function_kernel_has_no_const_array_and_reads_the_table_buffer(name: str) -> None:
    prepared = prepare(_map({"o": _builder(name)}))
    for options in (LoweringOptions(), LoweringOptions(vectorize=True), LoweringOptions(loop_limit=65_535)):
        lowered = prepared.lowered_for(options)
        assert CONST_ARRAY.search(lowered.wgsl) is None, name
        assert lowered.tables is not None and lowered.tables.words, name
        declaration = f"@group(0) @binding({lowered.tables.binding}) var<storage, read> {lowered.tables.wgsl_name}: array<u32>;"
        assert declaration in lowered.wgsl
        assert lowered.tables.binding not in {b.binding for b in lowered.buffers} | {lowered.meta.binding}
        assert lowered.tables.binding != lowered.status_binding
    assert prepared.lowered_for(LoweringOptions(vectorize=True)).vector is not None, name


@pytest.mark.parametrize("name", UNARY)
def test_every_function_runs_vectorised_bit_for_bit_as_on_the_interpreter(gpu_adapter: object, name: str) -> None:
    from vyre.runtime.wgpu_backend import lowering_for

    program = _map({"o": _builder(name)})
    a = _inputs(len(name)).view(np.float32)
    dispatch = (N_INPUTS // GROUP, 1, 1)
    interp = vyre.run(program, {"a": a}, dispatch=dispatch, outputs={"o": N_INPUTS}, backend="interp")
    gpu = vyre.run(program, {"a": a}, dispatch=dispatch, outputs={"o": N_INPUTS}, backend="wgpu")
    assert np.array_equal(_words(interp, "o"), _words(gpu, "o")), name
    words = {"a": a.view(np.uint32), "o": np.zeros(N_INPUTS, dtype=np.uint32)}
    assert lowering_for(prepare(program), words, dispatch).vector is not None


SEVERAL = {"e": E.fexp, "l": E.flog, "s": E.fsin, "t": E.fatan, "c": E.facos}


def test_several_routines_reading_tables_share_one_buffer_as_written_and_vectorised(gpu_adapter: object) -> None:
    from vyre.runtime.wgpu_backend import execute

    program = _map(SEVERAL)  # pyright: ignore[reportArgumentType]
    prepared = prepare(program)
    lowered = prepared.lowered_for(LoweringOptions())
    assert lowered.tables is not None
    assert lowered.wgsl.count("var<storage, read> vyre_tables") == 1
    single = max(
        len(tables.words)
        for build in SEVERAL.values()
        if (tables := prepare(_map({"o": build})).lowered_for(LoweringOptions()).tables) is not None
    )
    assert len(lowered.tables.words) > single  # the tables of every function, concatenated
    a = _inputs(5)
    dispatch = (N_INPUTS // GROUP, 1, 1)
    outputs = {name: N_INPUTS for name in SEVERAL}
    interp = vyre.run(program, {"a": a.view(np.float32)}, dispatch=dispatch, outputs=outputs, backend="interp")
    words = {"a": a, **{name: np.zeros(N_INPUTS, dtype=np.uint32) for name in SEVERAL}}
    for vectorize in (True, False):
        gpu = execute(prepared, words, dispatch, vectorize=vectorize)
        for name in SEVERAL:
            assert np.array_equal(_words(interp, name), gpu[name]), (name, vectorize)


def test_a_device_resident_run_binds_the_tables_too(gpu_adapter: object) -> None:
    from vyre.runtime.wgpu_backend import bind, run_steps
    from vyre.runtime.wgpu_device import Resident, gpu_device

    program = _map({"o": E.fexp2, "p": E.flog10})
    a = _inputs(7)
    dispatch = (N_INPUTS // GROUP, 1, 1)
    outputs = {"o": N_INPUTS, "p": N_INPUTS}
    interp = vyre.run(program, {"a": a.view(np.float32)}, dispatch=dispatch, outputs=outputs, backend="interp")
    kept = vyre.run(
        program, {"a": vyre.to_device(a.view(np.float32))}, dispatch=dispatch, outputs=outputs, on_device=True
    )
    for name in outputs:
        assert np.array_equal(_words(interp, name), np.asarray(kept[name].numpy()).view(np.uint32)), name
    gpu = gpu_device()
    resident = {"a": Resident.upload(gpu, a), **{name: Resident.allocate(gpu, N_INPUTS) for name in outputs}}
    run_steps([(prepare(program), resident, dispatch)], clear=[resident["o"], resident["p"]])
    for name in outputs:
        assert np.array_equal(_words(interp, name), resident[name].read()), name
    bound = bind(prepare(program), resident, dispatch)
    assert bound.kernel.tables is not None
    encoder = gpu.device.create_command_encoder()
    for name in outputs:
        encoder.clear_buffer(resident[name].buffer, 0, N_INPUTS * 4)
    compute = encoder.begin_compute_pass()
    bound.record(compute)
    compute.end()
    gpu.device.queue.submit([encoder.finish()])
    for name in outputs:
        assert np.array_equal(_words(interp, name), resident[name].read()), name


def test_the_table_buffer_is_uploaded_once_per_distinct_tables(gpu_adapter: object) -> None:
    from vyre.runtime.wgpu_device import gpu_device

    gpu = gpu_device()
    program = _map({"o": E.fexp})
    a = _inputs(3).view(np.float32)
    dispatch = (N_INPUTS // GROUP, 1, 1)
    vyre.run(program, {"a": a}, dispatch=dispatch, outputs={"o": N_INPUTS})
    tables = prepare(program).lowered_for(LoweringOptions(vectorize=True, loop_limit=gpu.loop_limit)).tables
    assert tables is not None
    buffer = gpu.tables.get(tables.words)
    assert buffer is not None
    half = (N_INPUTS // GROUP // 2, 1, 1)  # another run shape: binds the same buffer
    again = vyre.run(program, {"a": a}, dispatch=half, outputs={"o": N_INPUTS // 2})
    assert gpu.tables.get(tables.words) is buffer
    interp = vyre.run(program, {"a": a}, dispatch=half, outputs={"o": N_INPUTS // 2}, backend="interp")
    assert np.array_equal(_words(again, "o"), _words(interp, "o"))
