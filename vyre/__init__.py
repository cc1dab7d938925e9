"""vyre: a GPU-compute IR, compiler and proof system built on xDSL.

The public surface: `validate`, `lower_to_wgsl`, `run`,
`print_ir`, `parse_ir` and the error types; builders live in `vyre.ir`,
the operation library in `vyre.ops`, the proof system in `vyre.conform`.
`vyre.__version__` is the installed distribution's version; `python -m vyre`
prints it with the adapter vyre would run on and the installed extras.

This module is the top of the layering (ARCHITECTURE.md): it may import every
layer. Its namespace is `__all__`, dunders and vyre's own modules, nothing else
(test/unit/test_public_surface.py).
"""

# `vyre.ops` first: importing the op-library façade imports the kernel ops and the
# runtime below them in layer order (a lower module imported first would reach
# the façade through `vyre.ops.registry` while it is itself half imported).
from vyre import ops as ops
from vyre.installation import VERSION as __version__
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
from vyre.pipeline import lower_to_wgsl
from vyre.runtime.api import run
from vyre.runtime.device_buffer import DeviceBuffer, to_device
from vyre.runtime.isolate import DriverCrashError
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
    "DriverCrashError",
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

