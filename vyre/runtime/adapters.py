"""Which Vulkan adapters wgpu sees, and which one vyre uses.

The adapters are numbered best first and `VYRE_ADAPTER` picks one by index
(`gpu:N`) or by name; the rules are in `vyre.runtime.adapter_choice`.

`python -m vyre.runtime.adapters --check` exits 0 and names the chosen adapter,
then lists every adapter with its index, when a Vulkan adapter exists, 1
otherwise (the Makefile uses it to decide whether to install lavapipe).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from functools import cache
from typing import Any

from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.runtime.adapter_choice import AdapterInfo, adapter_lines, chosen_index, ranked, worker_adapters

__all__ = [
    "AdapterInfo",
    "adapter_info",
    "adapter_listing",
    "choose_adapter",
    "gpu_worker_adapters",
    "vulkan_adapters",
]


def _info(adapter: Any) -> AdapterInfo:
    info = adapter.info
    return AdapterInfo(
        name=str(info.get("device", "")),
        adapter_type=str(info.get("adapter_type", "")),
        backend=str(info.get("backend_type", "")),
        description=str(info.get("description", "")),
    )


def _load_z3_first() -> None:
    """Import z3 (the SMT prover of vyre-conform) before any Vulkan driver loads.

    Enumerating adapters loads every installed driver; Mesa's lavapipe links
    LLVM, which on Debian links the system's libz3 (an older z3), and that lands
    in the process's global symbol scope. A z3 module imported afterwards binds
    part of its own library's C API to the older one, and its models then fail
    ("invalid argument") or abort. Imported first, its library is bound to
    itself (ctypes loads it with every symbol resolved at once). Costs ~40 ms
    once per process; nothing when z3 is not installed."""
    if importlib.util.find_spec("z3") is not None:
        importlib.import_module("z3")


@cache
def vulkan_adapters() -> tuple[Any, ...]:
    """Every Vulkan adapter, numbered best first (`adapter_choice.ranked`): discrete
    GPUs, then integrated, virtual, then CPU, in wgpu's order within a type."""
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    try:
        import wgpu  # pyright: ignore[reportMissingTypeStubs]
    except ModuleNotFoundError as missing:  # `pip install vyre` has no GPU stack
        raise RuntimeError(
            "the wgpu backend needs wgpu, which vyre installs as an extra. Fix: pip install"
            " 'vyre[gpu]', or run on the reference interpreter (backend=\"interp\")"
        ) from missing

    _load_z3_first()
    adapters = [a for a in wgpu.gpu.enumerate_adapters_sync() if _info(a).backend == "Vulkan"]
    return tuple(adapters[position] for position in ranked([_info(a) for a in adapters]))


def _infos() -> list[AdapterInfo]:
    return [_info(adapter) for adapter in vulkan_adapters()]


def choose_adapter() -> Any:
    """The adapter vyre runs on: the one `VYRE_ADAPTER` names (`gpu:N`, its index, or a
    part of its name), else the best (`gpu:0`)."""
    adapters = vulkan_adapters()
    if not adapters:
        raise RuntimeError(
            "no Vulkan adapter found. Fix: install a GPU driver, or Mesa's lavapipe "
            "(Debian: apt-get install mesa-vulkan-drivers)."
        )
    return adapters[chosen_index(_infos(), os.environ.get("VYRE_ADAPTER"))]


def adapter_info(adapter: Any) -> AdapterInfo:
    return _info(adapter)


def adapter_listing() -> list[str]:
    """Every adapter with its index (`gpu:N name; backend B; device type T`), the one
    vyre runs on marked `(chosen)`; [] when there is none (or no wgpu)."""
    try:
        infos = _infos()
    except RuntimeError:
        return []
    try:
        chosen: int | None = chosen_index(infos, os.environ.get("VYRE_ADAPTER")) if infos else None
    except (RuntimeError, ValueError):
        chosen = None
    return adapter_lines(infos, chosen)


def gpu_worker_adapters(workers: int | None = None) -> list[str]:
    """The `VYRE_ADAPTER` of each worker of a local cluster of GPU workers on this host
    (`adapter_choice.worker_adapters`): `gpu:0`..`gpu:G-1`, one per GPU by default."""
    return worker_adapters(_infos(), workers)


@quiet_on_closed_pipe
def main(argv: list[str]) -> int:
    try:
        adapter = choose_adapter()
    except Exception as error:  # noqa: BLE001 - a probe reports, it does not crash
        print(f"vyre: {error}", file=sys.stderr)
        return 1
    print(f"Vulkan adapter: {_info(adapter)}")
    for line in adapter_listing():
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
