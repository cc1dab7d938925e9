"""What is wrong with a module of vyre IR, located: the check vyre-opt runs
before and after every pass, vyre-run before a run and the xdsl-opt plugin
before a vyre pass or `-t vyre-wgsl` (vyre/tools/plugin.py).

`module_findings` lists (op, message) pairs; `check_module` raises them as
`DiagnosticsError` lines `file:line:col: error: message`, the location of the
op or of its nearest located ancestor (the input's name when none has one).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from vyre.dialects.vyre import KernelOp, RoutineOp
from vyre.validate import validate

__all__ = ["DiagnosticsError", "check_module", "located", "module_findings", "one_line"]


class DiagnosticsError(DiagnosticException):
    """Located findings of verification or validation, one line each."""

    def __init__(self, lines: Sequence[str]):
        super().__init__("\n".join(lines))
        self.lines = tuple(lines)


def module_findings(module: ModuleOp) -> list[tuple[Operation, str]]:
    """What is wrong with `module`: (op, message) pairs, [] when nothing.

    Structural (IRDL) errors of single ops come first and stop the check, since
    the spec validator expects well-formed ops (a vyre op outside any kernel is
    one); then every finding of `vyre.validate` on each kernel."""
    for op in module.walk(region_first=True):
        if isinstance(op, ModuleOp | KernelOp):
            continue
        if op.name.startswith("vyre.") and not isinstance(op, RoutineOp) and _outside_kernels(op):
            return [(op, f"'{op.name}' must be inside a vyre.kernel")]
        if (message := _verify_one(op)) is not None:
            return [(op, message)]
    findings: list[tuple[Operation, str]] = []
    for kernel in module.walk():
        if not isinstance(kernel, KernelOp):
            continue
        try:
            diagnostics = validate(kernel)
        except ValueError as malformed:  # structure the validator cannot read
            return [(kernel, str(malformed))]
        findings += [(d.op if d.op is not None else kernel, d.message) for d in diagnostics]
        if not diagnostics and (message := _verify_one(kernel)) is not None:
            findings.append((kernel, message))
    if not findings and (message := _verify_one(module)) is not None:
        findings.append((module, message))
    return findings


def check_module(module: ModuleOp, input_name: str) -> None:
    """Raise `DiagnosticsError` listing what is wrong with `module` (one
    `file:line:col: error: message` line per finding), if anything."""
    findings = module_findings(module)
    if findings:
        raise DiagnosticsError(tuple(located(op, input_name, message) for op, message in findings))


def _outside_kernels(op: Operation) -> bool:
    """A vyre op held by no vyre op (a vyre op inside a vyre statement is
    checked through that statement; the body of a `vtensor.map` is vyre
    expression code)."""
    parent = op.parent_op()
    return parent is None or not (parent.name.startswith("vyre.") or parent.name == "vtensor.map")


def _verify_one(op: Operation) -> str | None:
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as error:
        return one_line(str(error))
    return None


def located(op: Operation | None, input_name: str, message: str) -> str:
    """`file:line:col: error: message`, using the nearest located ancestor."""
    node = op
    while node is not None:
        loc = node.location
        if isinstance(loc, FileLineColLoc):
            where = f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
            return f"{where}: error: {message}"
        node = node.parent_op()
    return f"{input_name}: error: {message}"


def one_line(message: str) -> str:
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
