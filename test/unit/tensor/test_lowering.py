"""`lower-tensors` as a pass and the schedule as IR: registered for vyre-opt
and the xdsl-opt plugin; the graph printed by `print(g)` parses back; the
schedule printed after the pass is the one `vt.run` executes; every kernel is
a valid vyre program; checks run before any dispatch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

import vyre
from vyre import tensor as vt
from vyre.dialects import tensor as t
from vyre.dialects.vyre import Vyre
from vyre.ir import DataType
from vyre.transforms import get_all_passes, get_vyre_passes
from vyre.transforms.lower_tensors import LowerTensorsPass, lower_module
from vyre.transforms.tensors.schedule import read_schedule, schedule_ops
from vyre.universe import VYRE_UNIVERSE

ROOT = Path(__file__).resolve().parents[3]


def _graph() -> vt.Graph:
    g = vt.Graph("demo")
    x = g.input("x", DataType.F32, ("n", 4))
    w = g.input("w", DataType.F32, (4, 3))
    b = g.input("b", DataType.F32, (3,))
    y = vt.matmul(x, w) + b
    g.output("y", y)
    g.output("s", vt.sum(vt.transpose(y)[::-1], 1, "tree"))
    return g


def _parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Vyre, t.VTensor):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "x": rng.standard_normal((5, 4)).astype(np.float32),
        "w": rng.standard_normal((4, 3)).astype(np.float32),
        "b": rng.standard_normal(3).astype(np.float32),
    }


def test_the_pass_is_registered_for_vyre_opt_and_xdsl_opt() -> None:
    assert get_all_passes()["lower-tensors"]() is LowerTensorsPass
    assert "lower-tensors" in get_vyre_passes()
    # the plugin runs each pass behind its input check: a subclass of the pass
    assert issubclass(VYRE_UNIVERSE.all_passes["lower-tensors"](), LowerTensorsPass)
    assert VYRE_UNIVERSE.all_dialects["vtensor"]() is t.VTensor


def test_the_printed_graph_parses_back_and_lowers_to_the_same_schedule() -> None:
    g = _graph()
    module = _parse(str(g))
    module.verify()
    assert str(module) == str(g.module)
    lower_module(module)
    schedule = read_schedule(module)
    expected = vt.schedule_of(g)
    assert [d.program for d in schedule.dispatches] == [d.program for d in expected.dispatches]
    assert (schedule.inputs, schedule.checks, schedule.buffers, schedule.results) == (
        expected.inputs,
        expected.checks,
        expected.buffers,
        expected.results,
    )


def test_the_schedule_vyre_opt_prints_runs_like_vt_run(tmp_path: Path) -> None:
    g = _graph()
    source = tmp_path / "demo.mlir"
    source.write_text(str(g))
    lowered = subprocess.run(
        [str(Path(sys.executable).parent / "vyre-opt"), str(source), "-p", "lower-tensors"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    schedule = read_schedule(_parse(lowered))
    inputs = _inputs()
    direct = vt.run(g, inputs, backend="interp")
    from_text = vt.run_schedule(schedule, inputs, backend="interp")
    for name in ("y", "s"):
        np.testing.assert_array_equal(from_text[name].view(np.uint32), direct[name].view(np.uint32))


def test_every_kernel_is_a_valid_vyre_program() -> None:
    programs = vt.kernels(_graph())
    assert [p.name for p in programs] == [
        # the 8-bit dot-product kernels, then the per-product kernel for the
        # outputs they flag (a constant inner length within one chunk: one kernel)
        *(f"demo_0_matmul_exact_{k}" for k in ("stats_a", "stats_b", "order_a", "order_b", "plan", "res_a", "res_b", "gemm", "crt")),
        "demo_0_matmul_exact_rest",
        "demo_1_map",
        "demo_2_sum_tree_push",
        "demo_2_sum_tree_finish",
    ]
    for program in programs:
        assert vyre.validate(program) == []


def test_the_schedule_round_trips_through_its_ir_form() -> None:
    schedule = vt.schedule_of(_graph())
    again = read_schedule(ModuleOp(schedule_ops(schedule)))
    assert again.checks == schedule.checks and again.buffers == schedule.buffers
    assert [(d.grid, d.repeat, d.params, d.bind) for d in again.dispatches] == [
        (d.grid, d.repeat, d.params, d.bind) for d in schedule.dispatches
    ]


def test_dynamic_strided_reads_are_checked_on_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    g = vt.Graph("bounds")
    a = g.input("a", DataType.U32, ("n",))
    b = g.input("b", DataType.U32, ("m",))
    g.output("c", a + b)
    schedule = vt.schedule_of(g)
    assert any("would read buffer 'a'" in c.message for c in schedule.checks)
    # a schedule whose check fails runs nothing
    module = ModuleOp(schedule_ops(schedule))
    check = next(op for op in module.walk() if isinstance(op, t.CheckOp) and "would read" in op.message.data)
    check.properties["cond"] = t.StringAttr("n < 0")
    broken = read_schedule(module)
    with pytest.raises(ValueError, match=r"kernel bounds_0_map would read buffer 'a' at \[0, 2\], outside its 3 elements"):
        vt.run_schedule(broken, {"a": np.zeros(3, np.uint32), "b": np.zeros(3, np.uint32)}, backend="interp")


def test_unused_values_make_no_kernel_and_results_may_be_inputs() -> None:
    g = vt.Graph("lean")
    x = g.input("x", DataType.F32, (3,))
    vt.neg(x)
    g.output("x", x)
    assert vt.kernels(g) == []
    np.testing.assert_array_equal(vt.run(g, {"x": np.arange(3, dtype=np.float32)}, backend="interp")["x"], [0, 1, 2])
