"""Which adapter `VYRE_ADAPTER` names, decided over a list of adapters (no GPU stack here).

The adapters are numbered in one stable order (`ranked`): wgpu's enumeration order (the
Vulkan loader's; NVIDIA's driver lists its GPUs in PCI bus order), stably sorted by type:
discrete GPUs, integrated GPUs, virtual GPUs, then CPU adapters (Mesa's lavapipe) and any
other type last. `python -m vyre` prints the list with each adapter's index.

`VYRE_ADAPTER` takes two forms:

- `gpu:N` (N a whole number): the N-th adapter of that list, counting from 0. A CPU
  adapter is numbered after every GPU, so on a host of four GPUs `gpu:0`..`gpu:3` are the
  GPUs, and on a host with only lavapipe `gpu:0` is lavapipe. An index past the list, or
  no number after `gpu:`, is a `ValueError` naming the adapters present and the fix.
- anything else: a case-insensitive substring of an adapter's name; the first adapter of
  the list whose name holds it (a `RuntimeError` when none does).

Unset or empty, vyre takes `gpu:0`, the best adapter.

A local cluster of GPU workers (`worker_adapters`) puts one worker on each GPU: worker k
runs with `VYRE_ADAPTER=gpu:k`, over the GPUs of the list (discrete, integrated and
virtual), or over `gpu:0` alone on a host whose adapters are all CPU adapters; asked
for more workers than GPUs, worker k takes `gpu:(k mod GPUs)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "INDEX_PREFIX",
    "AdapterInfo",
    "adapter_lines",
    "chosen_index",
    "gpu_count",
    "ranked",
    "worker_adapters",
]

INDEX_PREFIX = "gpu:"
"""`VYRE_ADAPTER=gpu:N` picks an adapter by its index."""

_TYPE_RANK = {"DiscreteGPU": 0, "IntegratedGPU": 1, "VirtualGPU": 2, "CPU": 3}
_GPU_TYPES = frozenset(("DiscreteGPU", "IntegratedGPU", "VirtualGPU"))


@dataclass(frozen=True)
class AdapterInfo:
    name: str
    adapter_type: str
    backend: str
    description: str

    def __str__(self) -> str:
        return f"{self.name} ({self.backend} {self.adapter_type})"


def ranked(infos: Sequence[AdapterInfo]) -> list[int]:
    """The positions of `infos` (in enumeration order) in the numbered order: by type,
    discrete first, the enumeration order kept within a type."""
    return sorted(range(len(infos)), key=lambda position: _TYPE_RANK.get(infos[position].adapter_type, 9))


def adapter_lines(infos: Sequence[AdapterInfo], chosen: int | None = None) -> list[str]:
    """One line per adapter of the numbered list: `gpu:N name; backend B; device type T`,
    `(chosen)` after the one vyre runs on."""
    return [
        f"{INDEX_PREFIX}{index} {info.name}; backend {info.backend}; device type {info.adapter_type}"
        + (" (chosen)" if index == chosen else "")
        for index, info in enumerate(infos)
    ]


def chosen_index(infos: Sequence[AdapterInfo], wanted: str | None) -> int:
    """The index in `infos` (the numbered list, not empty) that `VYRE_ADAPTER=wanted` names."""
    if not wanted:
        return 0
    if wanted.strip().lower().startswith(INDEX_PREFIX):
        return _index(infos, wanted)
    for index, info in enumerate(infos):
        if wanted.lower() in info.name.lower():
            return index
    names = ", ".join(info.name for info in infos)
    raise RuntimeError(f"VYRE_ADAPTER={wanted!r} matches no Vulkan adapter (have: {names})")


def _index(infos: Sequence[AdapterInfo], wanted: str) -> int:
    digits = wanted.strip()[len(INDEX_PREFIX) :]
    last = len(infos) - 1
    present = "; ".join(adapter_lines(infos))
    indices = "gpu:0" if last == 0 else f"one of gpu:0 .. gpu:{last}"
    fix = (
        f"Fix: set VYRE_ADAPTER to {indices} (`python -m vyre` lists the adapters),"
        " or to a part of an adapter's name"
    )
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(
            f"VYRE_ADAPTER={wanted!r}: expected gpu:N with N a whole number, the adapter's index."
            f" Adapters present: {present}. {fix}"
        )
    index = int(digits)
    if index > last:
        count = f"{len(infos)} adapter" + ("" if len(infos) == 1 else "s")
        raise ValueError(
            f"VYRE_ADAPTER={wanted!r}: no adapter has index {index}; this host has {count}."
            f" Adapters present: {present}. {fix}"
        )
    return index


def gpu_count(infos: Sequence[AdapterInfo]) -> int:
    """How many adapters a local cluster spreads its workers over: the GPUs (discrete,
    integrated and virtual; they come first in the numbered list), or 1 (`gpu:0`, a CPU
    adapter) on a host without one; 0 without any adapter."""
    gpus = sum(1 for info in infos if info.adapter_type in _GPU_TYPES)
    return gpus or min(1, len(infos))


def worker_adapters(infos: Sequence[AdapterInfo], workers: int | None = None) -> list[str]:
    """The `VYRE_ADAPTER` of each worker of a local cluster: one worker per GPU by
    default (`gpu_count`), or `workers` of them, worker k on `gpu:(k mod gpu_count)`."""
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ValueError(f"the number of GPU workers must be a positive int, got {workers!r}")
    gpus = gpu_count(infos)
    if gpus == 0:
        raise RuntimeError(
            "no Vulkan adapter found for the GPU workers. Fix: install a GPU driver, or Mesa's"
            " lavapipe (Debian: apt-get install mesa-vulkan-drivers), or use the interp backend"
        )
    return [f"{INDEX_PREFIX}{k % gpus}" for k in range(gpus if workers is None else workers)]
