"""vyre.to_device / vyre.DeviceBuffer / vyre.run(on_device=True) (device-resident
buffers: README.md, docs/kernels.md): chained runs without a host round trip, every
element type's layout, inputs never modified, clear errors."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program

pytestmark = pytest.mark.usefixtures("gpu_adapter")


def _increment(dtype: DataType = DataType.U32, access: str = "read") -> Program:
    """out[i] = a[i] + 1 (u32), or a copy for other types."""
    source = BufferDecl.read("a", 0, dtype) if access == "read" else BufferDecl.read_write("a", 0, dtype)
    i = E.var("i")
    value = E.load("a", i)
    if dtype is DataType.U32:
        value = E.add(value, E.u32(1))
    return Program(
        buffers=[source, BufferDecl.read_write("out", 1, dtype)],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(E.lt(i, E.buf_len("out")), [N.store("out", i, value)]),
        ],
    )


def test_chained_runs_stay_on_the_device() -> None:
    a = np.arange(1000, dtype=np.uint32) * 7
    x = vyre.to_device(a)
    assert isinstance(x, vyre.DeviceBuffer) and len(x) == 1000 and x.dtype is DataType.U32
    step = _increment()
    first = vyre.run(step, {"a": x}, dispatch=(16, 1, 1), outputs={"out": 1000}, on_device=True)
    assert isinstance(first["out"], vyre.DeviceBuffer)
    second = vyre.run(step, {"a": first["out"]}, dispatch=(16, 1, 1), outputs={"out": 1000}, on_device=True)
    third = vyre.run(step, {"a": second["out"]}, dispatch=(16, 1, 1), outputs={"out": 1000})
    np.testing.assert_array_equal(third["out"], a + 3)
    np.testing.assert_array_equal(first["out"].numpy(), a + 1)
    np.testing.assert_array_equal(x.numpy(), a)


def test_interp_reads_device_inputs() -> None:
    a = np.arange(70, dtype=np.uint32)
    x = vyre.to_device(a)
    got = vyre.run(_increment(), {"a": x}, dispatch=(2, 1, 1), outputs={"out": 70}, backend="interp")
    np.testing.assert_array_equal(got["out"], a + 1)


def test_read_write_device_input_is_not_modified() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("a", 0, DataType.U32)],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(
                E.lt(E.var("i"), E.buf_len("a")),
                [N.store("a", E.var("i"), E.mul(E.load("a", E.var("i")), E.u32(2)))],
            ),
        ],
    )
    a = np.arange(100, dtype=np.uint32)
    x = vyre.to_device(a)
    doubled = vyre.run(program, {"a": x}, dispatch=(2, 1, 1), on_device=True)["a"]
    np.testing.assert_array_equal(doubled.numpy(), a * 2)
    np.testing.assert_array_equal(x.numpy(), a)
    again = vyre.run(program, {"a": doubled}, dispatch=(2, 1, 1))["a"]
    np.testing.assert_array_equal(again, a * 4)
    np.testing.assert_array_equal(doubled.numpy(), a * 2)


@pytest.mark.parametrize(
    ("array", "dtype"),
    [
        (np.array([1.5, -0.0, np.inf, 1e-45], dtype=np.float32), None),
        (np.array([1.5, -2.0, 65504.0], dtype=np.float16), None),
        (np.array([0x3F80, 0x7FC0, 0x0001], dtype=np.uint16), DataType.BF16),
        (np.array([2**40 + 3, 0, 2**64 - 1], dtype=np.uint64), None),
        (np.array([-5, 0, 2**31 - 1], dtype=np.int32), None),
        (np.array([[1, 2], [3, 4], [5, 6]], dtype=np.uint32), DataType.VEC2U32),
        (b"hello, device", None),
        (np.array([1, 0, 1], dtype=np.uint32), DataType.BOOL),
    ],
)
def test_round_trip_keeps_every_bit(array: object, dtype: DataType | None) -> None:
    x = vyre.to_device(array, dtype=dtype)
    back = x.numpy()
    expected = np.frombuffer(array, dtype=np.uint8) if isinstance(array, bytes) else array
    assert back.dtype == np.asarray(expected).dtype
    assert back.tobytes() == np.asarray(expected).tobytes()


@pytest.mark.parametrize("dtype", [DataType.F16, DataType.U64, DataType.F32])
def test_copy_kernel_through_device_buffers(dtype: DataType) -> None:
    values = {
        DataType.F16: np.array([1.0, -2.5, 3.0, 0.5, 7.0], dtype=np.float16),
        DataType.U64: np.array([2**63 + 5, 1, 0], dtype=np.uint64),
        DataType.F32: np.array([1e-45, -0.0, 3.0], dtype=np.float32),
    }[dtype]
    x = vyre.to_device(values, dtype=dtype)
    program = _increment(dtype)
    out = vyre.run(program, {"a": x}, dispatch=(1, 1, 1), outputs={"out": len(values)}, on_device=True)["out"]
    assert len(out) == len(values) and out.dtype is dtype
    assert out.numpy().tobytes() == values.tobytes()


def test_empty_device_buffer() -> None:
    x = vyre.to_device(np.zeros(0, dtype=np.uint32))
    assert len(x) == 0 and x.numpy().shape == (0,)
    out = vyre.run(_increment(), {"a": x}, dispatch=(1, 1, 1), outputs={"out": 0}, on_device=True)["out"]
    assert out.numpy().shape == (0,)


def test_collected_buffers_go_back_to_the_pool() -> None:
    from vyre.runtime.wgpu_device import gpu_device, storage_size, storage_usage

    gpu = gpu_device()
    size = storage_size(4 * 12345)
    before = len(gpu.free_buffers.get((storage_usage(), size), []))
    x = vyre.to_device(np.ones(12345, dtype=np.uint32))
    del x
    gc.collect()
    assert len(gpu.free_buffers.get((storage_usage(), size), [])) == before + 1


def test_errors_name_the_problem() -> None:
    x = vyre.to_device(np.arange(4, dtype=np.float32))
    with pytest.raises(TypeError, match="input `a` .*DeviceBuffer of f32"):
        vyre.run(_increment(), {"a": x}, dispatch=(1, 1, 1), outputs={"out": 4})
    with pytest.raises(ValueError, match="on_device=True keeps results on the wgpu device"):
        vyre.run(_increment(), {"a": np.arange(4, dtype=np.uint32)}, dispatch=(1, 1, 1),
                 outputs={"out": 4}, backend="interp", on_device=True)
    with pytest.raises(TypeError, match="on_device must be True or False"):
        vyre.run(_increment(), {"a": np.arange(4, dtype=np.uint32)}, dispatch=(1, 1, 1),
                 outputs={"out": 4}, on_device=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot infer the element type of a int64 array"):
        vyre.to_device(np.arange(3))
    with pytest.raises(TypeError, match="numpy array or bytes"):
        vyre.to_device([1, 2, 3])
    with pytest.raises(TypeError, match="dtype must be a vyre.ir.DataType"):
        vyre.to_device(np.arange(3, dtype=np.uint32), dtype="u32")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Bool elements must be 0 or 1"):
        vyre.to_device(np.array([2], dtype=np.uint32), dtype=DataType.BOOL)
    with pytest.raises(TypeError, match="made by vyre.to_device"):
        vyre.DeviceBuffer(object(), DataType.U32, 1)


def test_oversized_uniform_device_buffer_is_a_clear_error() -> None:
    prog = Program(
        buffers=[BufferDecl.uniform("u", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(0), E.load("u", E.u32(0)))],
    )
    big = vyre.to_device(np.zeros(16_385, dtype=np.uint32))  # 65,540 bytes
    with pytest.raises(ValueError, match="uniform buffer `u` holds 65540 bytes"):
        vyre.run(prog, {"u": big}, dispatch=(1, 1, 1), outputs={"out": 1})
