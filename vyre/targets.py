"""Targets of `vyre-opt -t`: `wgsl` prints the WGSL of the module's vyre kernel,
through the pipeline (`vyre.pipeline`: validate, inline-calls, canonicalize, lower)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from vyre.lowering.options import LoweringOptions
from vyre.pipeline import lower_to_wgsl, prepare


@dataclass(frozen=True)
class WGSLTarget(Target):
    """Lowers the module (one `vyre.kernel`) to WGSL; invalid programs raise
    `vyre.ValidationError`, which vyre-opt reports as located errors."""

    name: ClassVar[str] = "wgsl"

    vectorize: bool = False
    """`-t wgsl{vectorize=true}`: the vectorised entry of a map kernel
    (vyre/lowering/vector.py), as the wgpu runtime runs it."""
    loop_limit: int = 0
    """`-t wgsl{loop_limit=65535}`: loops unrolled and checked for an adapter that
    stops them (vyre/lowering/loops.py); 0: none."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if not self.vectorize and not self.loop_limit:
            output.write(lower_to_wgsl(module))
            return
        options = LoweringOptions(self.vectorize, self.loop_limit or None)
        output.write(prepare(module).lowered_for(options).wgsl)
