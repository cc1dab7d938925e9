"""Validation of vyre programs: the rules V001-V025 of docs/validation.md, plus the
type rules lowering needs (see `vyre.validation.messages`).

`validate` returns every independent finding, in program order. It is an explicit
step (the pipeline, `vyre-opt` and `vyre.run` call it); the dialect's verifiers
check only the local invariants of each op. `raise_if_invalid` turns the findings
into one xDSL `VerifyException`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException

from vyre.dialects.vyre import KernelOp
from vyre.ops.registry import resolve, resolve_kernel
from vyre.validation.checker import KernelChecker, walk_ops
from vyre.validation.diagnostic import Diagnostic, ValidationError
from vyre.validation.registry import OpLookup

__all__ = ["Diagnostic", "ValidationError", "raise_if_invalid", "validate"]


def _kernel_of(program: object) -> KernelOp:
    module = getattr(program, "module", None)  # a vyre.ir.Program (the builder sits above)
    if isinstance(module, ModuleOp) and not isinstance(program, Operation):
        program = module
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


def _registry_lookup(op_id: str) -> object | None:
    """Scalar ops, and kernel ops (not inlinable: a call to one is V020)."""
    return resolve(op_id) or resolve_kernel(op_id)


def validate(program: object, *, lookup: OpLookup | None = None) -> list[Diagnostic]:
    """Every independent diagnostic of the program, in program order; [] when valid.

    Calls are checked against the op registry (or `lookup`, op id -> spec). The
    ops must be well formed (as `parse_ir` and the builders make them); an op
    that is not raises a ValueError naming it and its structural problem."""
    kernel = _kernel_of(program)
    try:
        return KernelChecker.check(kernel, _registry_lookup if lookup is None else lookup)
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
