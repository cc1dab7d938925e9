"""`VYRE_ADAPTER`: adapters numbered best first, `gpu:N` by index, a name by substring,
and the workers of a local cluster spread over the GPUs (vyre/runtime/adapter_choice.py,
vyre/runtime/adapters.py). A host of four H100s and lavapipe is faked; the real adapter
list (lavapipe alone on a machine without a GPU) is checked too."""

from __future__ import annotations

from typing import Any

import pytest

from vyre.runtime import adapters
from vyre.runtime.adapter_choice import (
    AdapterInfo,
    adapter_lines,
    chosen_index,
    gpu_count,
    ranked,
    worker_adapters,
)

H100 = AdapterInfo("NVIDIA H100 80GB HBM3", "DiscreteGPU", "Vulkan", "NVIDIA 580.159.04")
LAVAPIPE = AdapterInfo("llvmpipe (LLVM 15.0.6, 256 bits)", "CPU", "Vulkan", "Mesa 22.3.6")
IGPU = AdapterInfo("Intel(R) UHD Graphics 770", "IntegratedGPU", "Vulkan", "Mesa")
ODD = AdapterInfo("some adapter", "Unknown", "Vulkan", "")
HOST = [H100, H100, H100, H100, LAVAPIPE]
"""A 4-GPU NVIDIA host with Mesa installed, numbered."""


def test_adapters_are_numbered_by_type_keeping_the_enumeration_order() -> None:
    enumerated = [LAVAPIPE, ODD, H100, IGPU, AdapterInfo("H100 #2", "DiscreteGPU", "Vulkan", "")]
    order = [enumerated[position].name for position in ranked(enumerated)]
    assert order == ["NVIDIA H100 80GB HBM3", "H100 #2", IGPU.name, LAVAPIPE.name, ODD.name]


@pytest.mark.parametrize(
    ("wanted", "index"),
    [(None, 0), ("", 0), ("gpu:0", 0), ("gpu:3", 3), ("gpu:4", 4), (" gpu:2 ", 2), ("GPU:1", 1), ("gpu:01", 1),
     ("llvmpipe", 4), ("h100", 0)],
)  # fmt: skip
def test_vyre_adapter_picks_by_index_or_by_name(wanted: str | None, index: int) -> None:
    assert chosen_index(HOST, wanted) == index


def test_four_identical_gpus_are_told_apart_only_by_index() -> None:
    assert {chosen_index(HOST, f"gpu:{k}") for k in range(4)} == {0, 1, 2, 3}
    assert chosen_index(HOST, "NVIDIA H100") == 0  # a name takes the first that matches


@pytest.mark.parametrize("wanted", ["gpu:5", "gpu:99"])
def test_an_index_past_the_adapters_is_a_value_error_naming_them_and_the_fix(wanted: str) -> None:
    with pytest.raises(ValueError) as raised:
        chosen_index(HOST, wanted)
    message = str(raised.value)
    index = wanted.removeprefix("gpu:")
    assert message.startswith(f"VYRE_ADAPTER={wanted!r}: no adapter has index {index}; this host has 5 adapters.")
    assert "gpu:0 NVIDIA H100 80GB HBM3; backend Vulkan; device type DiscreteGPU" in message
    assert "gpu:4 llvmpipe (LLVM 15.0.6, 256 bits); backend Vulkan; device type CPU" in message
    assert message.endswith(
        "Fix: set VYRE_ADAPTER to one of gpu:0 .. gpu:4 (`python -m vyre` lists the adapters),"
        " or to a part of an adapter's name"
    )


@pytest.mark.parametrize("wanted", ["gpu:", "gpu:x", "gpu:-1", "gpu:1.0", "gpu:one", "gpu:²"])
def test_an_index_that_is_not_a_number_is_a_value_error(wanted: str) -> None:
    with pytest.raises(ValueError, match="expected gpu:N with N a whole number") as raised:
        chosen_index([LAVAPIPE], wanted)
    assert "Adapters present: gpu:0 llvmpipe" in str(raised.value)
    assert str(raised.value).endswith("Fix: set VYRE_ADAPTER to gpu:0 (`python -m vyre` lists the adapters),"
                                      " or to a part of an adapter's name")


def test_a_name_that_matches_nothing_stays_a_runtime_error() -> None:
    with pytest.raises(RuntimeError) as raised:
        chosen_index([H100, LAVAPIPE], "radeon")
    assert str(raised.value) == (
        "VYRE_ADAPTER='radeon' matches no Vulkan adapter (have: NVIDIA H100 80GB HBM3, llvmpipe (LLVM 15.0.6, 256 bits))"
    )


def test_the_listing_gives_each_index_and_marks_the_chosen() -> None:
    assert adapter_lines([H100, LAVAPIPE], chosen=1) == [
        "gpu:0 NVIDIA H100 80GB HBM3; backend Vulkan; device type DiscreteGPU",
        "gpu:1 llvmpipe (LLVM 15.0.6, 256 bits); backend Vulkan; device type CPU (chosen)",
    ]


def test_the_gpus_of_a_host_are_its_adapters_that_are_no_cpu() -> None:
    assert gpu_count(HOST) == 4
    assert gpu_count([IGPU, LAVAPIPE]) == 1
    assert gpu_count([LAVAPIPE]) == 1  # lavapipe alone: gpu:0
    assert gpu_count([LAVAPIPE, ODD]) == 1
    assert gpu_count([]) == 0


def test_a_local_cluster_puts_one_worker_on_each_gpu() -> None:
    assert worker_adapters(HOST) == ["gpu:0", "gpu:1", "gpu:2", "gpu:3"]  # never lavapipe, gpu:4
    assert worker_adapters(HOST, 2) == ["gpu:0", "gpu:1"]
    assert worker_adapters(HOST, 6) == ["gpu:0", "gpu:1", "gpu:2", "gpu:3", "gpu:0", "gpu:1"]
    assert worker_adapters([LAVAPIPE]) == ["gpu:0"]
    assert worker_adapters([LAVAPIPE], 2) == ["gpu:0", "gpu:0"]  # how the tests run two workers


@pytest.mark.parametrize("workers", [0, -1, True])
def test_a_worker_count_below_one_is_a_value_error(workers: Any) -> None:
    with pytest.raises(ValueError, match="the number of GPU workers must be a positive int"):
        worker_adapters(HOST, workers)


def test_no_adapter_no_workers() -> None:
    with pytest.raises(RuntimeError, match="no Vulkan adapter found for the GPU workers"):
        worker_adapters([])


# -- through vyre.runtime.adapters, on a faked host and on this one ----------------------------


class FakeAdapter:
    def __init__(self, info: AdapterInfo, serial: int) -> None:
        self.serial = serial
        self.info = {"device": info.name, "adapter_type": info.adapter_type, "backend_type": info.backend,
                     "description": info.description}  # fmt: skip


def test_choose_adapter_takes_the_indexed_one_of_four_identical_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    fakes = tuple(FakeAdapter(info, serial) for serial, info in enumerate(HOST))
    monkeypatch.setattr(adapters, "vulkan_adapters", lambda: fakes)
    monkeypatch.setenv("VYRE_ADAPTER", "gpu:2")
    assert adapters.choose_adapter().serial == 2
    assert adapters.adapter_listing()[2].endswith("device type DiscreteGPU (chosen)")
    assert adapters.gpu_worker_adapters() == ["gpu:0", "gpu:1", "gpu:2", "gpu:3"]
    monkeypatch.setenv("VYRE_ADAPTER", "gpu:7")
    with pytest.raises(ValueError, match="no adapter has index 7; this host has 5 adapters"):
        adapters.choose_adapter()
    assert not any(line.endswith("(chosen)") for line in adapters.adapter_listing())


def test_gpu_0_is_the_best_adapter_of_this_host(monkeypatch: pytest.MonkeyPatch, gpu_adapter: Any) -> None:
    found = adapters.vulkan_adapters()
    monkeypatch.setenv("VYRE_ADAPTER", "gpu:0")
    assert adapters.choose_adapter() is found[0]
    monkeypatch.setenv("VYRE_ADAPTER", f"gpu:{len(found)}")
    with pytest.raises(ValueError, match=f"no adapter has index {len(found)}"):
        adapters.choose_adapter()


def test_the_adapter_probe_lists_every_adapter_with_its_index(
    capsys: pytest.CaptureFixture[str], gpu_adapter: Any
) -> None:
    found = [adapters.adapter_info(adapter) for adapter in adapters.vulkan_adapters()]
    assert adapters.main(["--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"Vulkan adapter: {found[0]}"
    assert lines[1:] == [f"  {line}" for line in adapter_lines(found, chosen=0)]
