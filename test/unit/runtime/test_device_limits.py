"""Device limits are `ValueError`s (docs/reliability.md): each names the WebGPU limit, the
amount asked for and the adapter, and is raised before any GPU work."""

from __future__ import annotations

import re
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


_OUT_OF_MEMORY = r"""
import gc, resource, sys
import numpy as np
import vyre
from vyre import ops
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program

program = Program([BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("o", 1, DataType.U32)], (64, 1, 1),
                  [N.if_(E.lt(E.gid_x(), E.buf_len("a")), [N.store("o", E.gid_x(), E.add(E.load("a", E.gid_x()), E.u32(1)))])])
a = np.arange(100, dtype=np.uint32)

def works():
    assert vyre.run(program, {"a": a}, outputs={"o": 100}, dispatch=(2, 1, 1))["o"].tolist() == list(range(1, 101))
    assert ops.evaluate("sort.u32", [a[::-1].copy()]).tolist() == a.tolist()

works()
host = np.zeros(sys.argv[2] and int(sys.argv[2]) // 4, dtype=np.uint32)
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
limit = int(status["VmSize"].split()[0]) * 1024 + int(sys.argv[1])
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (limit, hard))  # the device's memory (lavapipe: the process's)
kept = []
try:
    for _ in range(1000):
        kept.append(vyre.to_device(host, dtype=DataType.U32))
    sys.exit("no error after 1000 buffers")
except vyre.DeviceLimitError as error:
    print(f"{len(kept)} buffers, then: {error}")
kept.clear()
gc.collect()
resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
works()
print("works")
"""


@pytest.mark.parametrize("buffer_mib,memory_mib", [(64, 1000), (128, 1500)])
def test_memory_beyond_the_device_is_a_clear_error_and_the_process_keeps_working(
    gpu_adapter: Any, buffer_mib: int, memory_mib: int
) -> None:
    """DeviceBuffers of 64 or 128 MiB until the device has no memory left (lavapipe's
    memory is the process's: bounded here by RLIMIT_AS). wgpu raised its own
    multi-line GPUValidationError, and a driver that ran out of memory lost the
    device, so every later run failed. Now: a DeviceLimitError naming the size,
    the adapter and the fix; vyre lets go of its pools, opens a new device if
    the driver lost the old one, and once the buffers are dropped, runs work."""
    import subprocess
    import sys

    if not gpu_device().cpu:
        pytest.skip("bounding the device's memory by RLIMIT_AS works on a CPU adapter only")
    done = subprocess.run(
        [sys.executable, "-c", _OUT_OF_MEMORY, str(memory_mib << 20), str(buffer_mib << 20)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    first, last = done.stdout.strip().splitlines()
    size = f"{buffer_mib << 20:,}"
    assert re.search(rf"\d+ buffers, then: (uploading|a buffer of) {size} bytes exceeds the memory left on", first)
    assert "Fix: drop the DeviceBuffers you no longer need" in first and gpu_device().adapter_name in first
    assert last == "works"
