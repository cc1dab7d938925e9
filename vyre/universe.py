"""vyre as an xDSL plugin: the `xdsl.universe` entry point (pyproject.toml).

With vyre installed, plain `xdsl-opt` knows the `vyre` and `vtensor` (tensor
level) dialects, vyre's own passes (`inline-calls`, `float-strict`,
`convert-to-vyre`, `lower-tensors`) and the target `vyre-wgsl`:

    xdsl-opt -p inline-calls -t vyre-wgsl kernel.mlir

Only names xDSL does not use are registered: xDSL 0.74 has its own `wgsl`
target and `canonicalize`/`cse`/`dce` passes, and any clash of names between
universes stops every `xdsl-opt` call. Everything is imported lazily, when
xdsl-opt asks for it.

The passes and the target are the plugin's versions (vyre/tools/plugin.py):
they validate the vyre IR they are given and report its errors, and those of a
conversion or a lowering, as xDSL diagnostics marking the op.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target

from vyre.transforms import get_vyre_passes

__all__ = ["VYRE_UNIVERSE"]


def _get_vyre_dialect() -> Dialect:
    from vyre.dialects.vyre import Vyre

    return Vyre


def _get_vtensor_dialect() -> Dialect:
    from vyre.dialects.tensor import VTensor

    return VTensor


def _get_vyre_wgsl_target() -> type[Target]:
    from vyre.tools.plugin import PluginWGSLTarget

    return PluginWGSLTarget


def _checked(factory: Callable[[], type[ModulePass]]) -> Callable[[], type[ModulePass]]:
    def get() -> type[ModulePass]:
        from vyre.tools.plugin import checked_pass

        return checked_pass(factory)()

    return get


VYRE_UNIVERSE = Universe(
    all_dialects={"vyre": _get_vyre_dialect, "vtensor": _get_vtensor_dialect},
    all_passes={name: _checked(factory) for name, factory in get_vyre_passes().items()},
    all_targets={"vyre-wgsl": _get_vyre_wgsl_target},
)
