"""The backends a certificate can be issued for.

A `ConformBackend` runs a prepared vyre program (`vyre.pipeline.prepare`) on host words and
returns every read_write buffer's final words: the runtime contract shared by
the interpreter and the wgpu backend. Subclasses are the test hook: wrap `run`
to perturb results and the proof engine must notice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from vyre.kernels.run import evaluate_kernel_many
from vyre.kernels.spec import KernelSpec
from vyre.ops.spec import OpSpec
from vyre.pipeline import Prepared
from vyre.tensor.graph import Graph
from vyre.tensor.runner import run as run_graph

__all__ = ["BACKEND_NAMES", "ConformBackend", "InterpBackend", "WgpuBackend", "backend_named"]


class ConformBackend:
    """A backend under certification. `id` names it in certificates."""

    id: str = "abstract"

    def info(self) -> dict[str, str]:
        """What identifies the implementation (adapter, driver, versions)."""
        return {"id": self.id}

    def device(self) -> str:
        """The device results come from: the adapter's name, else the backend's id
        (what float-campaign chunks record and a certificate matches them by)."""
        info = self.info()
        return str(info.get("adapter") or info.get("id") or self.id)

    def run(
        self, program: Prepared, words: Mapping[str, np.ndarray], dispatch: tuple[int, int, int]
    ) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def run_scheduled(
        self, program: Prepared, words: Mapping[str, np.ndarray], dispatch: tuple[int, int, int]
    ) -> dict[str, np.ndarray]:
        """`run` under another schedule of the same workgroups (the
        WorkgroupInvariant check compares the two); the same as `run` here."""
        return self.run(program, words, dispatch)

    def run_kernel(
        self, spec: KernelSpec, many: Sequence[Sequence[Any]]
    ) -> list[tuple[np.ndarray, ...]]:
        """Every output of kernel op `spec` for each argument list (the kernel
        track); the interpreter and wgpu run the op's pipeline."""
        if self.id not in BACKEND_NAMES:
            raise NotImplementedError(f"backend `{self.id}` does not run kernel ops")
        return evaluate_kernel_many(spec, many, self.id, raise_errors=False)

    def run_tensor(self, graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Every output of a `vyre.tensor` graph (the tensor track): `vt.run`
        on the interpreter or wgpu."""
        if self.id not in BACKEND_NAMES:
            raise NotImplementedError(f"backend `{self.id}` does not run tensor graphs")
        return run_graph(graph, inputs, backend=self.id)

    def supports(self, spec: OpSpec) -> bool:
        """False for a Category C op whose intrinsic this backend lacks
        (`UnsupportedByBackend`, a first-class outcome, not a failure)."""
        intrinsic = spec.intrinsic
        return intrinsic is None or intrinsic.available_on(self.id)

    @property
    def is_reference_interpreter(self) -> bool:
        return False


class InterpBackend(ConformBackend):
    """The reference interpreter (`vyre.runtime.interp`)."""

    id = "interp"

    def info(self) -> dict[str, str]:
        from importlib.metadata import PackageNotFoundError, version

        try:
            vyre_version = version("vyre")
        except PackageNotFoundError:
            vyre_version = "unknown"
        return {"id": self.id, "implementation": "vyre reference interpreter", "vyre": vyre_version}

    def run(
        self, program: Prepared, words: Mapping[str, np.ndarray], dispatch: tuple[int, int, int]
    ) -> dict[str, np.ndarray]:
        from vyre.runtime.interp import execute

        return execute(program, words, dispatch)

    def run_scheduled(
        self, program: Prepared, words: Mapping[str, np.ndarray], dispatch: tuple[int, int, int]
    ) -> dict[str, np.ndarray]:
        """Workgroups, lane batches and lanes in reversed order."""
        from vyre.runtime.interp import execute

        return execute(program, words, dispatch, lane_order="reversed")

    @property
    def is_reference_interpreter(self) -> bool:
        return True


class WgpuBackend(ConformBackend):
    """WGSL through wgpu on the adapter `vyre.runtime.adapters` chooses."""

    id = "wgpu"

    @cached_property
    def _info(self) -> dict[str, str]:
        import wgpu  # pyright: ignore[reportMissingTypeStubs]

        from vyre.runtime.adapters import adapter_info
        from vyre.runtime.wgpu_device import gpu_device

        gpu = gpu_device()
        info = adapter_info(gpu.adapter)
        raw = dict(gpu.adapter.info)
        return {
            "id": self.id,
            "adapter": info.name,
            "adapter_type": info.adapter_type,
            "graphics_backend": info.backend,
            "driver": str(raw.get("description", "")),
            "vendor_id": str(raw.get("vendor_id", "")),
            "device_id": str(raw.get("device_id", "")),
            "wgpu": str(getattr(wgpu, "__version__", "unknown")),
        }

    def info(self) -> dict[str, str]:
        return dict(self._info)

    def run(
        self, program: Prepared, words: Mapping[str, np.ndarray], dispatch: tuple[int, int, int]
    ) -> dict[str, np.ndarray]:
        from vyre.runtime.wgpu_backend import execute

        return execute(program, words, dispatch)

    def run_scheduled(
        self, program: Prepared, words: Mapping[str, np.ndarray], dispatch: tuple[int, int, int]
    ) -> dict[str, np.ndarray]:
        """The dispatch split into rows of one workgroup (workgroup ids offset per
        row through the meta uniform), scalar code."""
        from vyre.runtime.wgpu_backend import execute

        return execute(program, words, dispatch, max_workgroups_per_axis=1, vectorize=False)


BACKEND_NAMES = ("interp", "wgpu")


def backend_named(name: str) -> ConformBackend:
    """The backend called `name`; ValueError naming the choices otherwise."""
    if name == "interp":
        return InterpBackend()
    if name == "wgpu":
        return WgpuBackend()
    raise ValueError(f"unknown backend {name!r}; choose one of: {', '.join(BACKEND_NAMES)}")
