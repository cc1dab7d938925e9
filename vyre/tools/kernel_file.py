"""The kernel vyre-run runs: read from a file or stdin, parsed, validated and
picked out of its module.

vyre-run reads what vyre-opt writes: one kernel (with the routines beside it),
a module of several kernels (`--kernel NAME` picks one), or a mixed module whose
`func`/`arith`/`scf`/`memref` ops belong to a host program (they are left
alone). A module of MLIR functions and no kernel is the input of
`convert-to-vyre`, and the error says so. Every kernel of the module is
validated, with located messages (`file:line:col: error: ...`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from vyre.cli.suggest import did_you_mean
from vyre.dialects.vyre import KernelOp, RoutineOp, routines_of
from vyre.ir import Program
from vyre.targets import module_kernels
from vyre.text import VyreParseError, parse_module
from vyre.tools.findings import DiagnosticsError, check_module
from vyre.tools.vyre_opt import get_all_dialects

__all__ = ["KernelFileError", "UnreadableKernelFile", "load_kernel", "read_kernel_text"]

STDIN = "-"


class KernelFileError(Exception):
    """The kernel does not parse, is invalid, or is not one kernel: its
    located messages, one per line."""

    def __init__(self, lines: Sequence[str]):
        super().__init__("\n".join(lines))
        self.lines = tuple(lines)


class UnreadableKernelFile(Exception):
    """The kernel file cannot be read (a usage error)."""


def read_kernel_text(path: str) -> tuple[str, str]:
    """(text, name for messages) of `path`, standard input for `-`."""
    if path == STDIN:
        try:
            return sys.stdin.read(), "<stdin>"
        except (OSError, UnicodeDecodeError) as error:
            raise UnreadableKernelFile(f"cannot read the kernel from standard input: {error}") from None
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read(), path
    except (OSError, UnicodeDecodeError) as error:
        raise UnreadableKernelFile(f"cannot read kernel file {path}: {error}") from None


def load_kernel(path: str, kernel: str | None = None) -> Program:
    """The program of kernel `kernel` (None: the module's only kernel) of the
    file `path` (`-`: standard input). Raises `UnreadableKernelFile`, or
    `KernelFileError` when the text does not parse, is invalid, or does not
    name one kernel."""
    text, name = read_kernel_text(path)
    try:
        module = parse_module(text, name, _context())
        check_module(module, name)
    except VyreParseError as error:
        raise KernelFileError((str(error),)) from None
    except DiagnosticsError as error:
        raise KernelFileError(error.lines) from None
    chosen = _pick(module, name, path, kernel)
    return Program.from_module(_alone(module, chosen))


def _context() -> Context:
    ctx = Context()
    for dialect, factory in get_all_dialects().items():
        ctx.register_dialect(dialect, factory)
    return ctx


def _pick(module: ModuleOp, name: str, path: str, wanted: str | None) -> KernelOp:
    kernels = {kernel.sym_name.data: kernel for kernel in module_kernels(module)}
    listed = ", ".join(f"@{k}" for k in kernels)
    if wanted is not None:
        bare = wanted.removeprefix("@")
        if bare in kernels:
            return kernels[bare]
        hint = did_you_mean(bare, kernels)
        raise KernelFileError((f"{name}: error: no kernel @{bare}{hint} (kernels: {listed or 'none'})",))
    if len(kernels) == 1:
        return next(iter(kernels.values()))
    if kernels:
        raise KernelFileError((
            f"{name}: error: the module holds {len(kernels)} kernels ({listed}). Fix: pick one with"
            " --kernel NAME",
        ))
    if any(op.name == "func.func" for op in module.walk()):
        source = "-" if path == STDIN else path
        raise KernelFileError((
            f"{name}: error: the module holds MLIR functions and no vyre.kernel. Fix: convert them"
            f" first: vyre-opt {source} -p convert-to-vyre | vyre-run - ...",
        ))
    raise KernelFileError((f"{name}: error: the module holds no vyre.kernel",))


def _alone(module: ModuleOp, kernel: KernelOp) -> ModuleOp:
    """`module` itself when it is the kernel and its routines; else a module of
    copies of the kernel and the routines beside it."""
    ops = list(module.ops)
    if all(op is kernel or isinstance(op, RoutineOp) for op in ops):
        return module
    return ModuleOp([kernel.clone(), *(routine.clone() for routine in routines_of(kernel).values())])
