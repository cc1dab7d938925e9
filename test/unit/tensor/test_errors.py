"""Shapes and types that do not fit: a `ValueError` naming the op and both
shapes (or types) when the graph is built, for static dims, or when it runs,
for dynamic dims, before anything is dispatched."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from vyre import tensor as vt
from vyre.ir import DataType
from vyre.ir import Expr as E
from vyre.tensor import runner

F32, U32 = DataType.F32, DataType.U32


def _inputs(*specs: tuple[str, DataType, tuple[int | str, ...]]) -> tuple[vt.Graph, list[vt.Tensor]]:
    g = vt.Graph("errors")
    return g, [g.input(name, dtype, shape) for name, dtype, shape in specs]


BUILD: list[tuple[str, Callable[[], object], str]] = []


def build_case(message: str) -> Callable[[Callable[[], object]], Callable[[], object]]:
    def register(fn: Callable[[], object]) -> Callable[[], object]:
        BUILD.append((fn.__name__, fn, message))
        return fn

    return register


@build_case(r"vt\.add: shapes \(3,\) and \(4,\) do not broadcast")
def broadcast() -> object:
    _, (a, b) = _inputs(("a", F32, (3,)), ("b", F32, (4,)))
    return a + b


@build_case(r"vt\.mul: shapes \(2, 3\) and \(2, 5\) do not broadcast")
def broadcast_2d() -> object:
    _, (a, b) = _inputs(("a", F32, (2, 3)), ("b", F32, (2, 5)))
    return a * b


@build_case(r"vt\.add: element types f32 and u32 differ")
def element_types() -> object:
    _, (a, b) = _inputs(("a", F32, (3,)), ("b", U32, (3,)))
    return vt.add(a, b)


@build_case(r"vt\.div is defined for f32, f16 and bf16 tensors, not u32")
def integer_div() -> object:
    _, (a,) = _inputs(("a", U32, (3,)))
    return vt.div(a, a)


@build_case(r"vt\.matmul: shapes \(2, 3\) and \(4, 5\) do not match \(inner dims differ\)")
def matmul_inner() -> object:
    _, (a, b) = _inputs(("a", F32, (2, 3)), ("b", F32, (4, 5)))
    return vt.matmul(a, b)


@build_case(r"vt\.matmul: operands need at least 2 dims, got shapes \(3,\) and \(3, 2\)")
def matmul_rank() -> object:
    _, (a, b) = _inputs(("a", F32, (3,)), ("b", F32, (3, 2)))
    return vt.matmul(a, b)


@build_case(r"vt\.reshape: cannot reshape shape \(3, 4\) to \(5,\) \(element counts differ\)")
def reshape_count() -> object:
    _, (a,) = _inputs(("a", F32, (3, 4)))
    return vt.reshape(a, (5,))


@build_case(r"vt\.index: index 5 is out of range for axis 0 of shape \(3, 4\)")
def index_range() -> object:
    _, (a,) = _inputs(("a", F32, (3, 4)))
    return a[5]


@build_case(r"vt\.transpose: axes \(0, 0\) are not a permutation of 2 dims")
def transpose_axes() -> object:
    _, (a,) = _inputs(("a", F32, (3, 4)))
    return vt.transpose(a, (0, 0))


@build_case(r"vt\.sum: axis 2 is out of range for shape \(3, 4\)")
def sum_axis() -> object:
    _, (a,) = _inputs(("a", F32, (3, 4)))
    return vt.sum(a, 2)


@build_case(r"vt\.sum: order is one of exact, sequential, tree, got 'fast'")
def sum_order() -> object:
    _, (a,) = _inputs(("a", F32, (3, 4)))
    return vt.sum(a, 0, "fast")


@build_case(r"vt\.broadcast_to: cannot broadcast shape \(3,\) to \(4,\)")
def broadcast_to() -> object:
    _, (a,) = _inputs(("a", F32, (3,)))
    return vt.broadcast_to(a, (4,))


@build_case(r"vt\.map: the function is not valid vyre over \['f32'\]")
def map_invalid() -> object:
    _, (a,) = _inputs(("a", F32, (3,)))
    return vt.map(lambda x: E.add(x, x), a)


@build_case(r"vt\.add: the tensor belongs to graph 'errors', not 'other'")
def two_graphs() -> object:
    _, (a,) = _inputs(("a", F32, (3,)))
    other = vt.Graph("other")
    b = other.input("b", F32, (3,))
    return b + a


@pytest.mark.parametrize(("name", "build", "message"), BUILD, ids=[b[0] for b in BUILD])
def test_static_mismatches_are_value_errors_when_built(name: str, build: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def test_bad_graph_inputs_and_map_functions() -> None:
    with pytest.raises(ValueError, match="a graph name must be an identifier"):
        vt.Graph("no spaces")
    g = vt.Graph("g")
    g.input("x", F32, (2,))
    with pytest.raises(ValueError, match="already has an input 'x'"):
        g.input("x", F32, (2,))
    with pytest.raises(ValueError, match="the element type is F32, F16, BF16, U32 or I32"):
        g.input("y", DataType.U64, (2,))
    with pytest.raises(TypeError, match="must hold ints and dimension names"):
        g.input("z", F32, (2.5,))
    x = g.input("w", F32, (2,))
    with pytest.raises(TypeError, match="must return a vyre Expr"):
        vt.map(lambda v: 3, x)
    with pytest.raises(TypeError, match="vt.add expects vt.Tensor values"):
        vt.add(x, 3)  # type: ignore[arg-type]


def _run_error(graph: vt.Graph, inputs: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> str:
    """The message of the error `vt.run` raises; asserts no kernel ran first."""
    calls: list[object] = []
    with monkeypatch.context() as patch:
        patch.setattr(runner, "interp_execute", lambda *a, **k: calls.append(a))  # pyright: ignore[reportUnknownLambdaType]
        with pytest.raises((ValueError, TypeError)) as info:
            vt.run(graph, inputs, backend="interp")
    assert calls == []
    return str(info.value)


def test_dynamic_mismatches_are_value_errors_before_anything_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    g, (a, b) = _inputs(("a", F32, ("n",)), ("b", F32, ("m",)))
    g.output("c", a + b)
    message = _run_error(g, {"a": np.zeros(3, np.float32), "b": np.zeros(5, np.float32)}, monkeypatch)
    assert message == "vt.add: shapes (3,) and (5,) do not broadcast"
    out = vt.run(g, {"a": np.ones(3, np.float32), "b": np.ones(1, np.float32)}, backend="interp")
    np.testing.assert_array_equal(out["c"], np.full(3, 2, np.float32))


def test_dynamic_matmul_index_and_reshape_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    g, (a, b) = _inputs(("a", F32, (2, "k")), ("b", F32, ("j", 3)))
    g.output("c", vt.matmul(a, b))
    message = _run_error(g, {"a": np.zeros((2, 4), np.float32), "b": np.zeros((5, 3), np.float32)}, monkeypatch)
    assert message == "vt.matmul: shapes (2, 4) and (5, 3) do not match (inner dims differ)"
    h, (x,) = _inputs(("x", F32, ("n", 2)))
    h.output("r", x[5])
    h.output("s", vt.reshape(x, (4, 2)))
    message = _run_error(h, {"x": np.zeros((3, 2), np.float32)}, monkeypatch)
    assert message == "vt.index: index 5 is out of range for axis 0 of shape (3, 2)"
    message = _run_error(h, {"x": np.zeros((6, 2), np.float32)}, monkeypatch)
    assert message == "vt.reshape: cannot reshape shape (6, 2) to (4, 2) (element counts differ)"


def test_arguments_that_do_not_fit_the_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    g, (x, y) = _inputs(("x", F32, ("n", 4)), ("y", F32, ("n",)))
    g.output("z", vt.transpose(x)[0] + y)
    ok = {"x": np.zeros((3, 4), np.float32), "y": np.zeros(3, np.float32)}
    assert "has shape (3, 5), the graph's is (n, 4)" in _run_error(g, {**ok, "x": np.zeros((3, 5), np.float32)}, monkeypatch)
    assert "(n = 3 from an earlier input)" in _run_error(g, {**ok, "y": np.zeros(5, np.float32)}, monkeypatch)
    assert "missing ['y'], unknown ['q']" in _run_error(g, {"x": ok["x"], "q": ok["y"]}, monkeypatch)
    assert "must be a float32 array, got float64" in _run_error(g, {**ok, "y": np.zeros(3)}, monkeypatch)
    with pytest.raises(ValueError, match="backend must be one of"):
        vt.run(g, ok, backend="cuda")
