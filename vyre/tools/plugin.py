"""vyre's passes and target as the xdsl-opt plugin runs them: they validate
the vyre IR they are given, and report what is wrong as xDSL diagnostics.

Plain `xdsl-opt` verifies only the structure of each op (xDSL's verifiers); the
vyre validation rules (V001...) run in vyre-opt's own driver. So that
`xdsl-opt -p inline-calls` or `-t vyre-wgsl` never works on invalid IR, and
never ends in a bare Python error, the plugin's version of each vyre pass
first validates every `vyre.kernel` of the module (vyre/tools/findings.py),
and the `vyre-wgsl` target validates what it lowers. A finding, a failed
conversion or a lowering error is raised as an xDSL `DiagnosticException`
whose message lists the errors (`file:line:col: error: ...` where the op has a
location) and whose note prints the module with each error under its op, as
xDSL reports its own verifier's errors (`xdsl-opt --verify-diagnostics` prints
them without a traceback).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, ClassVar, NoReturn, cast

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import DiagnosticException

from vyre.targets import VyreWGSLTarget
from vyre.tools.findings import module_findings, one_line
from vyre.transforms.convert_to_vyre import ConversionError
from vyre.validate import ValidationError

__all__ = ["PluginWGSLTarget", "checked_pass", "raise_findings"]


def raise_findings(module: ModuleOp, findings: Sequence[tuple[Operation, str]]) -> NoReturn:
    """Raise the findings as one xDSL diagnostic over `module`."""
    diagnostic = Diagnostic()
    for op, message in findings:
        diagnostic.add_message(op, message)
    lines = "\n".join(f"{_where(op)}error: {message}" for op, message in findings)
    error = DiagnosticException(lines)
    error.__suppress_context__ = True  # the error replaces the one it was made from
    diagnostic.raise_exception(module, error)


def _where(op: Operation) -> str:
    node: Operation | None = op
    while node is not None:
        loc = node.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
        node = node.parent_op()
    return ""


def _check(module: ModuleOp) -> None:
    findings = module_findings(module)
    if findings:
        raise_findings(module, findings)


def checked_pass(factory: Callable[[], type[ModulePass]]) -> Callable[[], type[ModulePass]]:
    """A factory of the pass `factory` gives, as the plugin runs it: its input
    validated first, its errors as xDSL diagnostics."""

    def get() -> type[ModulePass]:
        base = factory()

        def apply(self: ModulePass, ctx: Context, op: ModuleOp) -> None:
            _check(op)
            try:
                base.apply(self, ctx, op)
            except ConversionError as error:
                raise_findings(op, [(error.op, error.reason)])
            except ValidationError as error:  # inline-calls: calls it cannot expand
                raise_findings(op, [(d.op or op, d.message) for d in error.diagnostics])

        namespace = {"apply": apply, "__doc__": base.__doc__, "__module__": __name__}
        return cast("type[ModulePass]", type(base.__name__, (base,), namespace))

    return get


class PluginWGSLTarget(VyreWGSLTarget):
    """`-t vyre-wgsl` as the plugin runs it: every kernel validated first, its
    errors (and a module without a kernel) as xDSL diagnostics."""

    name: ClassVar[str] = "vyre-wgsl"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        _check(module)
        try:
            super().emit(ctx, module, output)
        except ValidationError as error:
            raise_findings(module, [(d.op or module, d.message) for d in error.diagnostics])
        except (ValueError, NotImplementedError) as error:
            raise DiagnosticException(f"error: {one_line(str(error))}") from None
