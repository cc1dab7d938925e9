"""vyre: a GPU-compute IR, compiler and proof system built on xDSL.

The public surface of python-api.md: `validate`, `lower_to_wgsl`, `run`,
`print_ir`, `parse_ir` and the error types; builders live in `vyre.ir`,
the operation library in `vyre.ops`, the proof system in `vyre.conform`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
)
from vyre.ops.admission import AdmissionError
from vyre.text import VyreParseError, parse_ir, print_ir
from vyre.validate import Diagnostic, ValidationError, validate

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "AdmissionError",
    "AtomicOp",
    "BinOp",
    "BufferAccess",
    "BufferDecl",
    "DataType",
    "Diagnostic",
    "Expr",
    "Node",
    "Program",
    "UnOp",
    "ValidationError",
    "VyreParseError",
    "lower_to_wgsl",
    "parse_ir",
    "print_ir",
    "run",
    "validate",
]


def lower_to_wgsl(program: Program) -> str:
    """WGSL source of the program; raises `ValidationError` when it is invalid."""
    from vyre.lowering.wgsl import lower_to_wgsl as lower

    return lower(program)


def run(
    program: Program,
    inputs: dict[str, Any],
    *,
    dispatch: tuple[int, int, int],
    outputs: dict[str, int] | None = None,
    backend: str = "wgpu",
) -> dict[str, np.ndarray]:
    """Run the program and return the final contents of every read_write buffer."""
    from vyre.runtime.api import run as run_program

    return run_program(program, inputs, dispatch=dispatch, outputs=outputs, backend=backend)
