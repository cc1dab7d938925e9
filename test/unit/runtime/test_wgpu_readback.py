"""Reading results back (`wgpu_device.read_words`): every staging buffer is
mapped without wgpu-py's empty pre-map submission on the wgpu-py it was
checked on, and with the documented `map_sync(READ)` on any other. Both
paths must give the same bytes as numpy, for one buffer and for several,
including through the device's loop-status word (lavapipe)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime import wgpu_device

I = E.var("i")


@pytest.fixture(params=["checked wgpu-py (no-sync map)", "any other wgpu-py (map_sync)"])
def readback(request: pytest.FixtureRequest, gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if request.param.startswith("any other"):
        import wgpu  # pyright: ignore[reportMissingTypeStubs]

        monkeypatch.setattr(wgpu_device, "map_read_mode", lambda: int(wgpu.MapMode.READ))
    yield request.param


def _two_outputs() -> Program:
    return Program(
        [
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read_write("x", 1, DataType.U32),
            BufferDecl.read_write("y", 2, DataType.U32),
        ],
        (64, 1, 1),
        [
            N.let("i", E.gid_x()),
            N.store("x", I, E.bitxor(E.load("a", I), E.u32(0xA5A5A5A5))),
            N.store("y", I, E.add(E.load("a", I), E.u32(7))),
        ],
        name="two_outputs",
    )


def test_the_checked_wgpu_py_maps_without_a_pre_map_submission(gpu_adapter: Any) -> None:
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    expected = "READ_NOSYNC" if str(wgpu.__version__).startswith("0.32.") else int(wgpu.MapMode.READ)
    assert wgpu_device.map_read_mode() == expected


@pytest.mark.parametrize("n", [1, 63, 1000, 70_001])
def test_every_output_reads_back_exactly(readback: str, n: int) -> None:
    a = np.random.default_rng(n).integers(0, 2**32, n, dtype=np.uint32)
    program = _two_outputs()
    for _ in range(3):  # the first call and the bundle's reuse
        got = vyre.run(program, {"a": a}, dispatch=(-(-n // 64), 1, 1), outputs={"x": n, "y": n})
        assert np.array_equal(got["x"], a ^ np.uint32(0xA5A5A5A5)), readback
        assert np.array_equal(got["y"], a + np.uint32(7)), readback


def test_device_buffers_read_back_exactly(readback: str) -> None:
    a = np.arange(5000, dtype=np.uint32)
    program = _two_outputs()
    kept = vyre.run(program, {"a": a}, dispatch=(79, 1, 1), outputs={"x": 5000, "y": 5000}, on_device=True)
    assert np.array_equal(kept["y"].numpy(), a + np.uint32(7)), readback
    assert np.array_equal(kept["x"].numpy(), a ^ np.uint32(0xA5A5A5A5)), readback


def test_an_empty_output_beside_a_full_one(readback: str) -> None:
    a = np.arange(100, dtype=np.uint32)
    got = vyre.run(_two_outputs(), {"a": a}, dispatch=(2, 1, 1), outputs={"x": 100, "y": 0})
    assert np.array_equal(got["x"], a ^ np.uint32(0xA5A5A5A5)) and got["y"].shape == (0,), readback
