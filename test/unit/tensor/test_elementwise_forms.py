"""The two forms of the elementwise kernel (vyre/transforms/tensors/elementwise.py)
against numpy, on the interpreter and on lavapipe: the flat form (a map the
runtime vectorises; leaves laid out like the output read at the invocation's
own index) and the tiled form (a transpose read through workgroup memory):
broadcasts, transposes, slices with positive and negative steps, sizes that
are not multiples of the tile, dims of size 0 and 1, dynamic dims, several
and repeated staged leaves, integers, halves, copies, and more workgroups than
the device's per-axis limit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from vyre import tensor as vt
from vyre.dialects.symbolic import sym
from vyre.dialects.tensor_layout import Layout
from vyre.ir import BufferAccess, DataType, Program
from vyre.lowering.map_shape import MapShape, map_shape
from vyre.transforms.tensors.elementwise import staged_axis
from vyre.transforms.tensors.kernel import Leaf, coalesce


_NUMPY = {DataType.F32: np.float32, DataType.U32: np.uint32, DataType.I32: np.int32, DataType.F16: np.float16}


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: DataType) -> np.ndarray:
    if dtype in (DataType.F32, DataType.F16):
        return (rng.standard_normal(shape) * 2.0 ** rng.integers(-8, 8, shape)).astype(_NUMPY[dtype])
    info = np.iinfo(_NUMPY[dtype])
    return rng.integers(info.min, info.max, shape, dtype=np.int64, endpoint=True).astype(_NUMPY[dtype])


@dataclass(frozen=True)
class Case:
    """A graph of views and elementwise ops over inputs `x` (and `y`)."""

    name: str
    x: tuple[Any, ...]
    """x's dims in the graph (a str is a dynamic dim)."""
    sizes: tuple[int, ...]
    build: Callable[[vt.Graph, vt.Tensor], vt.Tensor]
    expect: Callable[[np.ndarray, dict[str, np.ndarray]], np.ndarray]
    dtype: DataType = DataType.F32
    extra: tuple[tuple[str, tuple[Any, ...], tuple[int, ...]], ...] = ()
    """Other inputs: (name, dims in the graph, sizes)."""
    tiled: bool = False
    """The result's kernel is the tiled form."""


def _bias(g: vt.Graph, t: vt.Tensor) -> vt.Tensor:
    b = g.input("b", DataType.F32, (t.shape[-1],))
    return vt.transpose(t) + vt.transpose(vt.broadcast_to(b, (1, t.shape[-1])))


CASES = [
    Case("bcast", ("r", 70), (45, 70), lambda g, t: t + g.input("b", DataType.F32, (70,)), lambda x, o: x + o["b"],
         extra=(("b", (70,), (70,)),)),
    Case("bcast_dynamic_cols", ("r", "c"), (9, 37), lambda g, t: t * g.input("b", DataType.F32, ("c",)),
         lambda x, o: x * o["b"], extra=(("b", ("c",), (37,)),)),
    Case("transpose_bias", ("r", 70), (45, 70), _bias, lambda x, o: (x + o["b"]).T,
         extra=(("b", (70,), (70,)),), tiled=True),
    Case("transpose_bias_static", (45, 70), (45, 70), _bias, lambda x, o: (x + o["b"]).T,
         extra=(("b", (70,), (70,)),), tiled=True),
    Case("transpose_whole_tiles", (64, 96), (64, 96), lambda g, t: -vt.transpose(t), lambda x, o: -x.T, tiled=True),
    Case("transpose_dynamic", ("r", "c"), (33, 47), lambda g, t: vt.neg(vt.transpose(t)),
         lambda x, o: -x.T, tiled=True),
    Case("one_row", ("r", "c"), (1, 40), lambda g, t: vt.neg(vt.transpose(t)), lambda x, o: -x.T, tiled=True),
    Case("one_column", ("r", "c"), (40, 1), lambda g, t: vt.neg(vt.transpose(t)), lambda x, o: -x.T, tiled=True),
    Case("empty", ("r", "c"), (0, 40), lambda g, t: vt.neg(vt.transpose(t)), lambda x, o: -x.T, tiled=True),
    Case("empty_columns", ("r", "c"), (40, 0), lambda g, t: vt.neg(vt.transpose(t)), lambda x, o: -x.T, tiled=True),
    Case("steps", ("r", 90), (50, 90), lambda g, t: vt.neg(vt.transpose(t)[::2, ::-3]), lambda x, o: -x.T[::2, ::-3]),
    Case("reversed_rows", ("r", 70), (41, 70), lambda g, t: vt.neg(vt.transpose(t)[::-1]), lambda x, o: -x.T[::-1],
         tiled=True),
    Case("reversed_then_transposed", ("r", 70), (41, 70), lambda g, t: vt.neg(vt.transpose(t[::-1, 3:])),
         lambda x, o: -x[::-1, 3:].T, tiled=True),
    Case("two_staged", ("r", 40), (35, 40),
         lambda g, t: vt.transpose(t) - vt.transpose(g.input("y", DataType.F32, ("r", 40))),
         lambda x, o: x.T - o["y"].T, extra=(("y", ("r", 40), (35, 40)),), tiled=True),
    Case("staged_twice", ("r", 40), (35, 40), lambda g, t: vt.transpose(t) * vt.transpose(t), lambda x, o: x.T * x.T,
         tiled=True),
    Case("staged_and_contiguous", ("r", 40), (35, 40),
         lambda g, t: vt.transpose(t) + g.input("y", DataType.F32, (40, "r")),
         lambda x, o: x.T + o["y"], extra=(("y", (40, "r"), (40, 35)),), tiled=True),
    Case("permute_3d", (3, "n", 33), (3, 20, 33), lambda g, t: vt.neg(vt.transpose(t, (2, 0, 1))),
         lambda x, o: -x.transpose(2, 0, 1), tiled=True),
    Case("batched_transpose", (3, "n", 33), (3, 20, 33), lambda g, t: vt.neg(vt.transpose(t, (0, 2, 1))),
         lambda x, o: -x.transpose(0, 2, 1), tiled=True),
    Case("batched_transpose_dynamic", ("k", "n", 33), (2, 20, 33), lambda g, t: vt.neg(vt.transpose(t, (0, 2, 1))),
         lambda x, o: -x.transpose(0, 2, 1), tiled=True),
    Case("short_axis", ("r", 5), (40, 5), lambda g, t: vt.neg(vt.transpose(t)), lambda x, o: -x.T),
    Case("ints", ("r", 40), (35, 40), lambda g, t: vt.maximum(vt.transpose(t), vt.neg(vt.transpose(t))),
         lambda x, o: np.maximum(x.T, (-x.astype(np.int64)).astype(np.int32).T), dtype=DataType.I32, tiled=True),
    Case("unsigned", ("r", 40), (35, 40), lambda g, t: vt.transpose(t) + vt.transpose(t),
         lambda x, o: x.T + x.T, dtype=DataType.U32, tiled=True),
    Case("halves", ("r", 40), (35, 40), lambda g, t: vt.neg(vt.transpose(t)), lambda x, o: -x.T, dtype=DataType.F16),
    Case("halves_contiguous", ("r", 40), (35, 40), lambda g, t: vt.neg(t) * t[::-1], lambda x, o: -x * x[::-1],
         dtype=DataType.F16),
    Case("offset_rows", ("r", 40), (35, 40), lambda g, t: t[2:] - t[:-2], lambda x, o: x[2:] - x[:-2],
         dtype=DataType.I32),
    Case("copy", ("r", 40), (35, 40), lambda g, t: vt.reshape(vt.transpose(t), (-1,)), lambda x, o: x.T.reshape(-1),
         tiled=True),
]


def _graph(case: Case, rng: np.random.Generator) -> tuple[vt.Graph, dict[str, np.ndarray], np.ndarray]:
    g = vt.Graph(case.name)
    g.output("out", case.build(g, g.input("x", case.dtype, case.x)))
    inputs = {"x": _data(rng, case.sizes, case.dtype)}
    for name, _, sizes in case.extra:
        inputs[name] = _data(rng, sizes, DataType.F32 if name == "b" else case.dtype)
    with np.errstate(over="ignore"):
        expected = case.expect(inputs["x"], inputs)
    return g, inputs, np.ascontiguousarray(expected)


def _is_tiled(program: Program) -> bool:
    return any(decl.access is BufferAccess.WORKGROUP for decl in program.buffers)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_form_matches_numpy_on_the_interpreter(case: Case) -> None:
    g, inputs, expected = _graph(case, np.random.default_rng(len(case.name)))
    programs = vt.kernels(g)
    assert len(programs) == 1
    assert _is_tiled(programs[0]) is case.tiled
    out = vt.run(g, inputs, backend="interp")["out"]
    assert out.shape == expected.shape and out.dtype == expected.dtype
    assert out.tobytes() == expected.tobytes()


@pytest.mark.usefixtures("gpu_adapter")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_form_matches_numpy_on_the_gpu(case: Case) -> None:
    g, inputs, expected = _graph(case, np.random.default_rng(len(case.name)))
    out = vt.run(g, inputs, backend="wgpu")["out"]
    assert out.shape == expected.shape
    assert out.tobytes() == expected.tobytes()


@pytest.mark.usefixtures("gpu_adapter")
@pytest.mark.parametrize("name", ["transpose_bias", "bcast"])
def test_grids_past_the_per_axis_limit_are_split(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from vyre.runtime.wgpu_device import gpu_device

    monkeypatch.setitem(gpu_device().limits, "max-compute-workgroups-per-dimension", 2)
    case = replace(next(c for c in CASES if c.name == name), sizes=(300, 70))
    g, inputs, expected = _graph(case, np.random.default_rng(5))
    # 30 tiles; 83 workgroups of 256, run vectorised as 11 of 2,048 elements
    assert vt.run(g, inputs, backend="wgpu")["out"].tobytes() == expected.tobytes()


def _bench_graphs(rows: Any, cols: int) -> tuple[vt.Graph, vt.Graph]:
    """The two graphs of bench/tensor.py's elementwise rows."""
    graphs: list[vt.Graph] = []
    for build in (
        lambda t, b: t + b,
        lambda t, b: vt.transpose(t) + vt.transpose(vt.broadcast_to(b, (1, cols))),
    ):
        g = vt.Graph("ew")
        g.output("y", build(g.input("x", DataType.F32, (rows, cols)), g.input("b", DataType.F32, (cols,))))
        graphs.append(g)
    return graphs[0], graphs[1]


def test_a_broadcast_add_is_a_map_reading_x_at_its_own_index() -> None:
    """x + b: the runtime vectorises it, x and the output moved as vec4 words,
    the output's old content not read."""
    plain, _ = _bench_graphs("r", 1024)
    (program,) = vt.kernels(plain)
    shape = map_shape(program.kernel)
    assert isinstance(shape, MapShape), shape
    x, out = (local for local, name in vt.schedule_of(plain).dispatches[0].bind if name in ("x", "#0"))
    assert set(shape.vector_buffers) == {x, out} and shape.overwritten == {out}


def test_a_transposed_add_stages_x_through_workgroup_memory() -> None:
    """transpose(x) + b[:, None]: x (stride 1 down the output's columns) is
    staged, read along axis 0 of the output; b (stride 0 along its rows) is not."""
    _, transposed = _bench_graphs("r", 1024)
    (program,) = vt.kernels(transposed)
    assert _is_tiled(program)
    x = Leaf("x", DataType.F32, Layout((sym(1024), sym("r")), (sym(1), sym(1024)), sym(0)))
    b = Leaf("b", DataType.F32, Layout((sym(1024), sym("r")), (sym(1), sym(0)), sym(0)))
    assert staged_axis(coalesce(x)) == (0, (x,))
    assert staged_axis(coalesce(b)) is None
