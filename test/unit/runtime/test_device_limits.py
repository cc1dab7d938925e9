"""Device limits are `ValueError`s (issue 16): each names the WebGPU limit, the
amount asked for and the adapter, and is raised before any GPU work."""

from __future__ import annotations

from typing import Any

import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.wgpu_device import DeviceLimitError, gpu_device


def _store_one(workgroup: tuple[int, int, int]) -> Program:
    return Program(
        [BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup,
        [N.store("out", E.gid_x(), E.u32(1))],
        name="limits",
    )


def _adapter() -> str:
    return gpu_device().adapter_name


def test_a_2048_invocation_workgroup_is_a_value_error(gpu_adapter: Any) -> None:
    limits = gpu_device().limits
    if limits["max-compute-invocations-per-workgroup"] >= 2048:
        pytest.skip("this adapter allows 2,048 invocations per workgroup")
    with pytest.raises(ValueError, match="max-compute-invocations-per-workgroup") as info:
        vyre.run(_store_one((32, 64, 1)), {}, dispatch=(1, 1, 1), outputs={"out": 4})
    assert isinstance(info.value, DeviceLimitError)
    assert "2,048 invocations" in str(info.value) and _adapter() in str(info.value)
    with pytest.raises(ValueError, match="max-compute-workgroup-size-x"):
        vyre.run(_store_one((2048, 1, 1)), {}, dispatch=(1, 1, 1), outputs={"out": 4})


def test_a_4_gib_output_is_a_value_error(gpu_adapter: Any) -> None:
    with pytest.raises(ValueError, match=r"buffer `out` \(4,294,967,296 bytes\) exceeds the adapter limit max-") as info:
        vyre.run(_store_one((64, 1, 1)), {}, dispatch=(1, 1, 1), outputs={"out": 2**30})
    assert _adapter() in str(info.value)


def test_a_binding_over_the_storage_binding_size_is_a_value_error(gpu_adapter: Any) -> None:
    cap = gpu_device().limits["max-storage-buffer-binding-size"]
    if cap >= gpu_device().limits["max-buffer-size"]:
        pytest.skip("the buffer-size limit comes first on this adapter")
    words = cap // 4 + 4
    with pytest.raises(ValueError, match="max-storage-buffer-binding-size") as info:
        vyre.run(_store_one((64, 1, 1)), {}, dispatch=(1, 1, 1), outputs={"out": words})
    assert _adapter() in str(info.value)
