"""vyre: a GPU-compute IR, compiler and proof system built on xDSL.

The public surface of python-api.md: `validate`, `lower_to_wgsl`, `run`,
`print_ir`, `parse_ir` and the error types; builders live in `vyre.ir`,
the operation library in `vyre.ops`, the proof system in `vyre.conform`.

This module is the top of the layering (ARCHITECTURE.md): it may import every
layer.
"""

from __future__ import annotations

from typing import Any

# `vyre.ops` first: importing the op-library façade imports the kernel ops and the
# runtime below them in layer order (a lower module imported first would reach
# the façade through `vyre.ops.registry` while it is itself half imported).
from vyre import ops as ops
from vyre import pipeline
from vyre.ir import (
    AtomicOp,
    BinOp,
    BufferAccess,
    BufferDecl,
    DataType,
    Expr,
    Node,
    Program,
    UnOp,
    parse_ir,
    print_ir,
)
from vyre.kernels.spec import OpInputError
from vyre.ops.admission import AdmissionError
from vyre.runtime import api
from vyre.runtime.device_buffer import DeviceBuffer, to_device
from vyre.runtime.wgpu_device import DeviceLimitError
from vyre.text import VyreParseError
from vyre.validate import Diagnostic, ValidationError, validate

__all__ = [
    "AdmissionError",
    "AtomicOp",
    "BinOp",
    "BufferAccess",
    "BufferDecl",
    "DataType",
    "DeviceBuffer",
    "DeviceLimitError",
    "Diagnostic",
    "Expr",
    "Node",
    "OpInputError",
    "Program",
    "UnOp",
    "ValidationError",
    "VyreParseError",
    "lower_to_wgsl",
    "parse_ir",
    "print_ir",
    "run",
    "to_device",
    "validate",
]


def lower_to_wgsl(program: Program) -> str:
    """WGSL source of the program; raises `ValidationError` when it is invalid."""
    return pipeline.lower_to_wgsl(program)


def run(
    program: Program,
    inputs: dict[str, Any],
    *,
    dispatch: tuple[int, int, int],
    outputs: dict[str, int] | None = None,
    backend: str = "wgpu",
    on_device: bool = False,
) -> dict[str, Any]:
    """Run the program and return the final contents of every read_write buffer
    (numpy arrays; `vyre.DeviceBuffer`s with `on_device=True`)."""
    return api.run(
        program, inputs, dispatch=dispatch, outputs=outputs, backend=backend, on_device=on_device
    )
