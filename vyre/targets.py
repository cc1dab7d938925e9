"""Targets of `vyre-opt -t` (and of `xdsl-opt -t vyre-wgsl`): WGSL for each
`vyre.kernel` of a module, through the pipeline (`vyre.pipeline`: validate,
inline-calls, canonicalize, lower).

A module may mix vyre with other dialects (a host program in `func`/`arith`/
`scf`/`memref` beside its kernels): the target lowers every `vyre.kernel` it
holds, each to its own WGSL module, and leaves every other op alone (they
belong to the embedding compiler). One kernel prints its WGSL as it is; several
print one after the other, each under a `// ===== vyre.kernel @name ...` header
line, in the order of the module. A module without any kernel is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from vyre.dialects.vyre import KernelOp
from vyre.lowering.options import LoweringOptions
from vyre.pipeline import prepare

__all__ = ["VyreWGSLTarget", "WGSLTarget", "kernel_header", "module_kernels"]


def module_kernels(module: ModuleOp) -> list[KernelOp]:
    """Every `vyre.kernel` of the module (nested modules included), in order."""
    return [op for op in module.walk() if isinstance(op, KernelOp)]


def kernel_header(kernel: KernelOp, index: int, total: int) -> str:
    """The line that opens the WGSL module of one of several kernels."""
    return f"// ===== vyre.kernel @{kernel.sym_name.data}: WGSL module {index} of {total} ====="


@dataclass(frozen=True)
class WGSLTarget(Target):
    """Lowers every `vyre.kernel` of the module to WGSL; invalid programs raise
    `vyre.ValidationError` (vyre-opt reports it as located errors), a module
    without a kernel raises `ValueError`."""

    name: ClassVar[str] = "wgsl"

    vectorize: bool = False
    """`-t wgsl{vectorize=true}`: the vectorised entry of a map kernel
    (vyre/lowering/vector.py), as the wgpu runtime runs it."""
    loop_limit: int = 0
    """`-t wgsl{loop-limit=65535}`: loops unrolled and checked for an adapter that
    stops them (vyre/lowering/loops.py); 0: none."""
    int64: bool = False
    """`-t wgsl{int64=true}`: for an adapter with wgpu's `shader-int64`: `mul_high`
    as one WGSL `u64` multiply (vyre/lowering/mul_high.py)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        kernels = module_kernels(module)
        if not kernels:
            raise ValueError(
                f"-t {self.name}: the module holds no vyre.kernel (other ops are left to"
                " their own tools). Fix: give the module a vyre.kernel, or convert one"
                " with -p convert-to-vyre"
            )
        options = LoweringOptions(self.vectorize, self.loop_limit or None, int64=self.int64)
        for index, kernel in enumerate(kernels, 1):
            prepared = prepare(kernel)
            lowered = (
                prepared.wgsl if options == LoweringOptions() else prepared.lowered_for(options)
            )
            if len(kernels) > 1:
                output.write(
                    ("\n" if index > 1 else "") + kernel_header(kernel, index, len(kernels)) + "\n"
                )
            output.write(lowered.wgsl)


@dataclass(frozen=True)
class VyreWGSLTarget(WGSLTarget):
    """The same target under the name `vyre-wgsl`, for plain `xdsl-opt` (the
    vyre universe): xDSL has its own `wgsl` target, and a clash of names in a
    universe stops every `xdsl-opt` call."""

    name: ClassVar[str] = "vyre-wgsl"
