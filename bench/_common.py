"""Shared helpers of the benchmark scripts (run as `python bench/<name>.py`).

Importing this module puts the repository root first on `sys.path`, so the
scripts use the vyre of this checkout without an installation.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


def gpu_name() -> str:
    """The adapter vyre's wgpu backend runs on, e.g. `NVIDIA H200 (Vulkan DiscreteGPU)`."""
    from vyre.runtime.wgpu_device import gpu_device

    return gpu_device().adapter_name


def gpu_is_cpu() -> bool:
    """True on a CPU Vulkan device (lavapipe): benchmarks then use smaller sizes."""
    from vyre.runtime.wgpu_device import gpu_device

    return "CPU" in gpu_device().adapter_name


def cpu_name() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
