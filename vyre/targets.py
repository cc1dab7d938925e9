"""Targets of `vyre-opt -t`: `wgsl` prints the WGSL of the module's vyre kernel,
through the pipeline (`vyre.pipeline`: validate, inline-calls, canonicalize, lower)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from vyre.pipeline import lower_to_wgsl


@dataclass(frozen=True)
class WGSLTarget(Target):
    """Lowers the module (one `vyre.kernel`) to WGSL; invalid programs raise
    `vyre.ValidationError`, which vyre-opt reports as located errors."""

    name: ClassVar[str] = "wgsl"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(lower_to_wgsl(module))
