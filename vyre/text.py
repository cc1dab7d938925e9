"""The textual form of vyre IR: the dialect's custom syntax, on modules.

`print_module`/`parse_module` work on `builtin.module` ops; `vyre.print_ir` and
`vyre.parse_ir` (vyre/ir.py) wrap them for `Program` values.
"""

from __future__ import annotations

import io
from bisect import bisect_right

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from vyre.context import vyre_context


class VyreParseError(ValueError):
    """Text that is not a vyre program; the message starts with `file:line:col`."""


class LocatingParser(Parser):
    """A Parser that records each op's `file:line:col` as its location.

    `line_offset` is added to line numbers (for one chunk of a split file)."""

    def __init__(self, ctx: Context, text: str | bytes, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self.line_offset = line_offset
        content = self.lexer.input.content
        self._line_starts = [0]
        position = content.find("\n")
        while position >= 0:
            self._line_starts.append(position + 1)
            position = content.find("\n", position + 1)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """An input without ops (e.g. an empty `// -----` chunk) is an empty module."""
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])
        return super().parse_module(allow_implicit_module)

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if not isinstance(op.location, FileLineColLoc):
            line = bisect_right(self._line_starts, start)
            column = start - self._line_starts[line - 1] + 1
            op.location = FileLineColLoc(
                StringAttr(self.lexer.input.name),
                IntAttr(line + self.line_offset),
                IntAttr(column),
            )
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """Report an unknown op at its name, not at the token after it."""
        stack = self._parser_state.dialect_stack
        if self.ctx.get_optional_op(name, dialect_stack=stack) is None:
            start = self.lexer.input.content.rfind(name, 0, self._current_token.span.start)
            if start >= 0:
                known = ", ".join(sorted(self.ctx.registered_dialect_names))
                self.raise_error(
                    f"unknown operation `{name}` (known dialects: {known})",
                    start,
                    start + len(name),
                )
        return super()._get_op_by_name(name)


def format_parse_error(error: ParseError) -> str:
    """`file:line:col: error: message`, then the source line and a caret."""
    message = " ".join(line.strip() for line in error.msg.splitlines() if line.strip())
    context = error.span.print_with_context().splitlines()[1:]
    return "\n".join([f"{error.span.get_location()}: error: {message}", *context])


def print_module(module: ModuleOp, *, generic: bool = False) -> str:
    """The module in the dialect's custom (or generic) textual form."""
    if not isinstance(module, ModuleOp):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"expected a vyre Program or a builtin.module, got {type(module).__name__}")
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    stream.write("\n")
    return stream.getvalue()


def parse_module(text: str, name: str = "<vyre>") -> ModuleOp:
    """Parse the textual form (custom or generic) into a module whose ops carry
    their `name:line:col` locations. The text is parsed only: `vyre.validate`
    checks the V-rules. Malformed text raises `VyreParseError`."""
    if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"parse_ir expects str, got {type(text).__name__}")
    try:
        return LocatingParser(vyre_context(), text, name).parse_module()
    except ParseError as error:
        raise VyreParseError(format_parse_error(error)) from None
    except RecursionError:
        raise VyreParseError(f"{name}: error: the program is nested too deeply") from None
