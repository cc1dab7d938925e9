"""`vyre.run(..., isolate=True)`: a pipeline this process has not compiled yet
is compiled in a child process first, so a driver that crashes on a valid
program raises `vyre.DriverCrashError` naming it, and this process goes on.
The crash is planted: the child's compile is replaced by a real segfault in
native code (`ctypes.string_at(0)`), as a driver's would be."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime import isolate

_CRASHING_CHILD = """
import ctypes, sys
from vyre.runtime import isolate, wgpu_device

def crash(*args, **kwargs):
    ctypes.string_at(0)  # SIGSEGV in native code, where a driver would crash

wgpu_device.create_pipeline = crash
sys.exit(isolate.main())
"""


def _program(k: int, name: str) -> Program:
    gid = E.gid_x()
    return Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("o", 1, DataType.U32)],
        (64, 1, 1),
        [N.if_(E.lt(gid, E.buf_len("a")), [N.store("o", gid, E.add(E.load("a", gid), E.u32(k)))])],
        name=name,
    )


def _run(program: Program, **kw: Any) -> np.ndarray:
    a = np.arange(100, dtype=np.uint32)
    return vyre.run(program, {"a": a}, outputs={"o": 100}, dispatch=(2, 1, 1), **kw)["o"]


def test_an_isolated_run_compiles_in_a_child_once(gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _program(17, "isolated_once")
    assert _run(program, isolate=True).tolist() == list(range(17, 117))
    monkeypatch.setattr(isolate, "child_command", lambda: [sys.executable, "-c", "raise SystemExit(3)"])
    assert _run(program, isolate=True).tolist() == list(range(17, 117))  # compiled here: no child
    kept = _run(_program(18, "isolated_once"), isolate=False)  # another program, not isolated
    assert kept.tolist() == list(range(18, 118))


def test_a_driver_crash_in_the_child_is_an_exception_naming_the_program(
    gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(isolate, "child_command", lambda: [sys.executable, "-X", "faulthandler", "-c", _CRASHING_CHILD])
    program = _program(29, "untrusted_kernel")
    with pytest.raises(vyre.DriverCrashError) as info:
        _run(program, isolate=True)
    message = str(info.value)
    assert "crashed compiling kernel @untrusted_kernel" in message and "SIGSEGV (signal 11)" in message
    assert "this process is unaffected" in message and "Fix: " in message
    assert "Segmentation fault" in message  # the child's last words (faulthandler)
    with pytest.raises(vyre.DriverCrashError):  # nothing compiled here: the next isolated run checks again
        _run(program, isolate=True, on_device=True)
    monkeypatch.undo()
    assert _run(program).tolist() == list(range(29, 129))  # this process and its device go on


def test_a_hung_child_is_stopped(gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolate, "TIMEOUT_S", 2.0)
    monkeypatch.setattr(isolate, "child_command", lambda: [sys.executable, "-c", "import time; time.sleep(60)"])
    with pytest.raises(vyre.DriverCrashError, match=r"did not finish compiling kernel @hung within 2 s"):
        _run(_program(3, "hung"), isolate=True)


def test_isolate_is_a_bool_and_the_interpreter_ignores_it(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TypeError, match="isolate must be True or False"):
        _run(_program(1, "flag"), isolate="yes")
    monkeypatch.setattr(isolate, "child_command", lambda: [sys.executable, "-c", "raise SystemExit(3)"])
    assert _run(_program(5, "flag"), backend="interp", isolate=True).tolist() == list(range(5, 105))


def test_an_isolated_run_can_keep_its_results_on_the_device(gpu_adapter: Any) -> None:
    kept = vyre.run(_program(7, "isolated_device"), {"a": np.arange(100, dtype=np.uint32)}, outputs={"o": 100},
                    dispatch=(2, 1, 1), isolate=True, on_device=True)["o"]  # fmt: skip
    assert isinstance(kept, vyre.DeviceBuffer) and kept.numpy().tolist() == list(range(7, 107))
