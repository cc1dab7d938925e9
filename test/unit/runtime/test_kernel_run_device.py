"""Kernel ops whose outputs stay on the device (`ops.evaluate(...,
on_device=True)`, evaluate_raw and evaluate_many likewise): chains of kernel ops
and `vyre.run` with no host round trip, checked against numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vyre
from vyre import ops
from vyre.ir import BufferDecl, DataType, Node, Program
from vyre.ir import Expr as E

pytestmark = pytest.mark.usefixtures("gpu_adapter")


@pytest.fixture
def readbacks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of buffers of every readback from the device."""
    from vyre.runtime import wgpu_device

    reads: list[int] = []
    original = wgpu_device.GpuDevice.read_many

    def counting(self: Any, residents: Any) -> Any:
        reads.append(len(residents))
        return original(self, residents)

    monkeypatch.setattr(wgpu_device.GpuDevice, "read_many", counting)
    return reads


def _distinct_flags(n: int) -> Program:
    """flags[i] = 1 where sorted[i] starts a run of equal values."""
    i = E.invocation_id(0)
    return Program(
        buffers=[
            BufferDecl.read("sorted", 0, DataType.U32),
            BufferDecl.read_write("flags", 1, DataType.U32),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            Node.if_(
                E.lt(i, E.u32(n)),
                [
                    Node.let("first", E.eq(i, E.u32(0))),
                    Node.let("prev", E.load("sorted", E.select(E.var("first"), E.u32(0), E.sub(i, E.u32(1))))),
                    Node.store(
                        "flags",
                        i,
                        E.select(
                            E.or_(E.var("first"), E.ne(E.var("prev"), E.load("sorted", i))), E.u32(1), E.u32(0)
                        ),
                    ),
                ],
            )
        ],
        name="distinct_flags",
    )


def test_sort_then_count_distinct_on_the_device(readbacks: list[int]) -> None:
    rng = np.random.default_rng(11)
    x = rng.integers(0, 500, 3000).astype(np.uint32)
    ordered = ops.evaluate("sort.u32", [x], on_device=True)
    assert isinstance(ordered, vyre.DeviceBuffer) and len(ordered) == len(x)
    flags = vyre.run(
        _distinct_flags(len(x)), {"sorted": ordered}, dispatch=(-(-len(x) // 64), 1, 1),
        outputs={"flags": len(x)}, on_device=True,
    )["flags"]
    distinct = ops.evaluate("reductions.reduce_count", [flags], on_device=True)
    assert readbacks == []  # nothing came back to the host on the way
    assert distinct.numpy().tolist() == [len(np.unique(x))]
    np.testing.assert_array_equal(ordered.numpy(), np.sort(x))


def test_scan_then_reduce_on_the_device(readbacks: list[int]) -> None:
    x = np.random.default_rng(2).integers(0, 2**32, 5000, dtype=np.uint64).astype(np.uint32)
    scanned = ops.evaluate("scan.prefix_sum_inclusive_u32", [x], on_device=True)
    top = ops.evaluate("reductions.reduce_max_u32", [scanned], on_device=True)
    where = ops.evaluate("reductions.argmax_u32", [scanned], on_device=True)
    assert readbacks == []
    cumsum = (np.cumsum(x.astype(np.uint64)) % 2**32).astype(np.uint32)
    assert top.numpy().tolist() == [int(cumsum.max())]
    assert where.numpy().tolist() == [int(np.argmax(cumsum))]
    np.testing.assert_array_equal(scanned.numpy(), cumsum)


def test_evaluate_raw_and_many_on_the_device(readbacks: list[int]) -> None:
    raw = ops.evaluate_raw("reductions.argmin_u32", [np.array([4, 2, 2, 9], dtype=np.uint32)], on_device=True)
    assert list(raw) == ["out"] and isinstance(raw["out"], vyre.DeviceBuffer)
    inputs = [np.arange(n, dtype=np.uint32) for n in (0, 1, 300, 4097)]
    scans = ops.evaluate_many("scan.prefix_sum_exclusive_u32", [[x] for x in inputs], on_device=True)
    assert readbacks == []
    assert raw["out"].numpy().tolist() == [1]
    for x, s in zip(inputs, scans):
        assert len(s) == len(x)
        np.testing.assert_array_equal(s.numpy(), np.cumsum(x) - x)


def test_empty_and_scalar_op_outputs_on_the_device() -> None:
    empty = ops.evaluate("scan.prefix_sum_inclusive_u32", [np.zeros(0, np.uint32)], on_device=True)
    assert len(empty) == 0 and empty.numpy().tolist() == []
    a, b = np.array([1, 2, 0xFFFF_FFFF], np.uint32), np.array([5, 6, 1], np.uint32)
    summed = ops.evaluate("primitive.math.add", [a, b], on_device=True)
    assert isinstance(summed, vyre.DeviceBuffer) and summed.numpy().tolist() == [6, 8, 0]
    assert ops.evaluate("primitive.math.add", [a[:0], b[:0]], on_device=True).numpy().tolist() == []


def test_on_device_is_for_wgpu_only() -> None:
    x = np.arange(5, dtype=np.uint32)
    for call in (
        lambda: ops.evaluate("reductions.reduce_sum_u32", [x], backend="interp", on_device=True),
        lambda: ops.evaluate_many("reductions.reduce_sum_u32", [[x]], backend="interp", on_device=True),
        lambda: ops.evaluate_raw("reductions.reduce_sum_u32", [x], backend="interp", on_device=True),
        lambda: ops.evaluate("primitive.math.add", [x, x], backend="interp", on_device=True),
    ):
        with pytest.raises(ValueError, match="on_device=True keeps outputs on the wgpu device"):
            call()
    with pytest.raises(TypeError, match="on_device must be True or False"):
        ops.evaluate("reductions.reduce_sum_u32", [x], on_device="yes")  # type: ignore[arg-type]
