"""Compiling an untrusted kernel in a child process first (`vyre.run(...,
isolate=True)`).

A GPU driver can crash on a valid shader: NVIDIA's Vulkan driver segfaulted in
`create_compute_pipeline` on one random program in 24,311, killing the Python
process with no error. With isolation, each WGSL text this process has not
compiled yet is compiled first by a child process on the same adapter
(`python -m vyre.runtime.isolate`, the request as JSON on its stdin, Python's
faulthandler on); only when the child compiles it does this process compile
it too. A child that dies (a signal, or no answer within `TIMEOUT_S`) raises
`DriverCrashError` naming the program, the signal and where the child was; this
process and its device are untouched. Runs of a text compiled before pay
nothing; a first compile pays a child's start (about a second: importing wgpu,
opening the device) on top of the compile itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vyre.runtime.wgpu_device import GpuDevice, LayoutEntry

__all__ = ["TIMEOUT_S", "DriverCrashError", "child_command", "compile_in_child", "main"]

TIMEOUT_S = 600.0
"""How long the child may compile (lavapipe took 26 s on one 577-line shader)."""

_DONE = "compiled"


class DriverCrashError(RuntimeError):
    """The GPU driver crashed (or hung) compiling a program in the isolating
    child process; the message names the program, the signal and the adapter."""


def child_command() -> list[str]:
    """The command of the isolating child (a function: tests swap in a child
    that crashes on purpose)."""
    return [sys.executable, "-X", "faulthandler", "-m", "vyre.runtime.isolate"]


def compile_in_child(
    gpu: GpuDevice, wgsl: str, entry_point: str, entries: Sequence[LayoutEntry], label: str
) -> None:
    """Compile the kernel in a child process on `gpu`'s adapter; return when it
    compiled there (or failed with an ordinary wgpu error, which this process
    reports when it compiles it itself), raise `DriverCrashError` when the child
    died or hung."""
    request = json.dumps({
        "wgsl": wgsl, "entry_point": entry_point, "entries": list(entries), "label": label,
        "int64": gpu.int64,  # the child's device takes the parent's features, whatever its environment
    })  # fmt: skip
    environment = dict(os.environ)
    environment.setdefault("VYRE_ADAPTER", gpu.adapter.info.get("device", ""))
    try:
        done = subprocess.run(
            child_command(), input=request, capture_output=True, text=True, timeout=TIMEOUT_S,
            env=environment, check=False,
        )
    except subprocess.TimeoutExpired:
        raise DriverCrashError(
            f"the GPU driver of {gpu.adapter_name} did not finish compiling {label} within"
            f" {TIMEOUT_S:.0f} s in the isolating child process (vyre.run(..., isolate=True)); the"
            f" child was stopped and this process is unaffected. {_FIX}"
        ) from None
    if done.returncode == 0 and done.stdout.strip().endswith(_DONE):
        return
    raise DriverCrashError(_crash_message(gpu, label, done.returncode, done.stderr))


_FIX = (
    "Fix: run the program on the reference interpreter (backend='interp') or on another"
    " adapter (VYRE_ADAPTER), and report it with its text (vyre.print_ir) and the adapter."
)


def _crash_message(gpu: GpuDevice, label: str, returncode: int, stderr: str) -> str:
    how = f"exit status {returncode}"
    if returncode < 0:
        try:
            how = f"{signal.Signals(-returncode).name} (signal {-returncode})"
        except ValueError:
            how = f"signal {-returncode}"
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith("Fatal Python error")][:1]
    current = next((k for k, line in enumerate(lines) if line.startswith("Current thread")), len(lines))
    frames: list[str] = []
    for line in lines[current + 1 :]:  # the crashing thread's frames, innermost first
        if not line.startswith('File "') or len(frames) == 3:
            break
        frames.append(line)
    where = fatal + frames if fatal or frames else lines[-3:]
    tail = (" The child's last words: " + " | ".join(where)) if where else ""
    return (
        f"the GPU driver of {gpu.adapter_name} crashed compiling {label}: the isolating child"
        f" process (vyre.run(..., isolate=True)) died with {how}; this process is unaffected."
        f" {_FIX}{tail}"
    )


def main() -> int:
    """The child: read the request, open a device on the adapter vyre chooses
    (`VYRE_ADAPTER` set by the parent) with the parent device's 64-bit integers,
    compile, say so."""
    from vyre.runtime.wgpu_device import create_pipeline, new_device

    request: dict[str, Any] = json.loads(sys.stdin.read())
    gpu = new_device(int64=bool(request.get("int64", False)))
    entries = [(int(binding), str(kind)) for binding, kind in request["entries"]]
    try:
        create_pipeline(gpu.device, request["wgsl"], request["entry_point"], entries, request["label"])
    except Exception as error:  # noqa: BLE001 - an ordinary error: the parent reports it itself
        print(f"wgpu error: {type(error).__name__}", file=sys.stderr)
    print(_DONE, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
