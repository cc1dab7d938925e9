"""Which Vulkan adapters wgpu sees, and which one vyre uses.

`python -m vyre.runtime.adapters --check` exits 0 and names the chosen adapter
when a Vulkan adapter exists, 1 otherwise (the Makefile uses it to decide
whether to install lavapipe).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cache
from typing import Any

from vyre.cli.pipes import quiet_on_closed_pipe

_TYPE_RANK = {"DiscreteGPU": 0, "IntegratedGPU": 1, "VirtualGPU": 2, "CPU": 3}


@dataclass(frozen=True)
class AdapterInfo:
    name: str
    adapter_type: str
    backend: str
    description: str

    def __str__(self) -> str:
        return f"{self.name} ({self.backend} {self.adapter_type})"


def _info(adapter: Any) -> AdapterInfo:
    info = adapter.info
    return AdapterInfo(
        name=str(info.get("device", "")),
        adapter_type=str(info.get("adapter_type", "")),
        backend=str(info.get("backend_type", "")),
        description=str(info.get("description", "")),
    )


@cache
def vulkan_adapters() -> tuple[Any, ...]:
    """Every Vulkan adapter, best first: discrete GPUs, then integrated, then CPU."""
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    try:
        import wgpu  # pyright: ignore[reportMissingTypeStubs]
    except ModuleNotFoundError as missing:  # `pip install vyre` has no GPU stack
        raise RuntimeError(
            "the wgpu backend needs wgpu, which vyre installs as an extra. Fix: pip install"
            " 'vyre[gpu]', or run on the reference interpreter (backend=\"interp\")"
        ) from missing

    adapters = [a for a in wgpu.gpu.enumerate_adapters_sync() if _info(a).backend == "Vulkan"]
    adapters.sort(key=lambda a: _TYPE_RANK.get(_info(a).adapter_type, 9))
    return tuple(adapters)


def choose_adapter() -> Any:
    """The adapter vyre runs on: `VYRE_ADAPTER` (a substring of the name) or the best."""
    adapters = vulkan_adapters()
    if not adapters:
        raise RuntimeError(
            "no Vulkan adapter found. Fix: install a GPU driver, or Mesa's lavapipe "
            "(Debian: apt-get install mesa-vulkan-drivers)."
        )
    wanted = os.environ.get("VYRE_ADAPTER")
    if not wanted:
        return adapters[0]
    for adapter in adapters:
        if wanted.lower() in _info(adapter).name.lower():
            return adapter
    names = ", ".join(_info(a).name for a in adapters)
    raise RuntimeError(f"VYRE_ADAPTER={wanted!r} matches no Vulkan adapter (have: {names})")


def adapter_info(adapter: Any) -> AdapterInfo:
    return _info(adapter)


@quiet_on_closed_pipe
def main(argv: list[str]) -> int:
    try:
        adapter = choose_adapter()
    except Exception as error:  # noqa: BLE001 - a probe reports, it does not crash
        print(f"vyre: {error}", file=sys.stderr)
        return 1
    print(f"Vulkan adapter: {_info(adapter)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
