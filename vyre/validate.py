"""Validation of vyre programs: the rules V001-V025 of validation.md, plus the
type rules lowering needs (see `vyre.validation.messages`).

`validate` returns every independent finding, in program order; the kernel op's
verifier (`raise_if_invalid`) turns them into one xDSL `VerifyException`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException

from vyre.dialects.vyre import KernelOp
from vyre.validation.checker import KernelChecker, walk_ops
from vyre.validation.diagnostic import Diagnostic, ValidationError

__all__ = ["Diagnostic", "ValidationError", "raise_if_invalid", "validate"]


def _kernel_of(program: object) -> KernelOp:
    from vyre.ir import Program

    if isinstance(program, Program):
        return program.kernel
    if isinstance(program, KernelOp):
        return program
    if isinstance(program, ModuleOp):
        kernels = [op for op in program.ops if isinstance(op, KernelOp)]
        if len(kernels) != 1:
            raise ValueError(
                f"validate expects a module holding exactly one vyre.kernel, found {len(kernels)}"
            )
        return kernels[0]
    raise TypeError(
        "validate expects a vyre.ir.Program, a vyre.kernel op or a builtin.module holding"
        f" one, got {type(program).__name__}"
    )


# What reading a structurally malformed op (wrong operand count, missing or
# mistyped property: text that was parsed but never verified) can raise.
_MALFORMED = (AttributeError, IndexError, KeyError, TypeError, ValueError)


def validate(program: object) -> list[Diagnostic]:
    """Every independent diagnostic of the program, in program order; [] when valid.

    The ops must be well formed (as `parse_ir` and the builders make them); an op
    that is not raises a ValueError naming it and its structural problem."""
    kernel = _kernel_of(program)
    try:
        return KernelChecker.check(kernel)
    except _MALFORMED:
        problem = _structural_problem(kernel)
        if problem is None:
            raise
        raise ValueError(problem) from None


def _structural_problem(kernel: KernelOp) -> str | None:
    """The first op whose IRDL definition it violates, described; None if none."""
    for op in walk_ops(kernel):
        if not isinstance(op, IRDLOperation):
            continue
        try:
            type(op).get_irdl_definition().verify(op)
        except VerifyException as error:
            return f"malformed vyre IR: '{op.name}' op: {error}"
    return None


def raise_if_invalid(kernel: Operation) -> None:
    """Raise one VerifyException listing every diagnostic, one per line."""
    diagnostics = validate(kernel)
    if diagnostics:
        raise VerifyException("\n".join(d.message for d in diagnostics))
