"""The textual form of vyre IR: the dialect's custom syntax, on modules.

`print_module`/`parse_module` work on `builtin.module` ops; `vyre.print_ir` and
`vyre.parse_ir` (vyre/ir.py) wrap them for `Program` values.
"""

from __future__ import annotations

import io
import re
from bisect import bisect_right

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

from vyre.context import MAX_NESTING, NestingError, check_nesting, run_deep, vyre_context
from vyre.dialects import vyre as d


class VyreParseError(ValueError):
    """Text that is not a vyre program; the message starts with `file:line:col`."""


_STRING_BODY = re.compile(r'(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+')
_STRING_LITERAL = re.compile(f'"{_STRING_BODY.pattern}"')
"""xDSL's string-literal grammar (escapes \\n \\t \\\\ \\" and two hex digits; no raw
newline, vertical tab or form feed), with one alternative per character and a
possessive loop: linear time on every input. xDSL 0.74's own pattern nests `+`
inside `*`, which backtracks exponentially on a long unterminated string."""


class VyreLexer(MLIRLexer):
    """xDSL's MLIR lexer with a string-literal rule that cannot backtrack."""

    _unescaped_characters_regex = _STRING_LITERAL

    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        content = self.input.content
        if _STRING_LITERAL.match(content, start_pos) is None:
            body = _STRING_BODY.match(content, start_pos + 1)
            end = start_pos + 1 if body is None else body.end()
            if end >= len(content):
                problem = "the file ends before its closing `\"`"
            elif content[end] == "\\":
                problem = "unknown escape (use \\n, \\t, \\\\, \\\" or two hex digits)"
            else:
                problem = "a string must end on the line it starts (write a newline as \\n)"
            raise ParseError(
                Span(start_pos, max(end, start_pos + 1), self.input),
                f"unterminated string literal: {problem}",
            )
        return super()._lex_string_literal(start_pos)


class LocatingParser(Parser):
    """A Parser that records each op's `file:line:col` as its location.

    `line_offset` is added to line numbers (for one chunk of a split file).
    Its lexer is `VyreLexer` (linear on every input)."""

    def __init__(self, ctx: Context, text: str | bytes, name: str, line_offset: int = 0):
        super().__init__(ctx, "", name)
        source = text.decode("utf-8") if isinstance(text, bytes) else text
        self._parser_state = ParserState(VyreLexer(Input(source, name)))
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
        try:
            op = super().parse_operation()
        except VerifyException as error:  # an attribute that verifies on construction
            self.raise_error(str(error), start, max(start + 1, self._current_token.span.start))
        problem = _number_problem(op)
        if problem is not None:
            end = max(start + 1, self._current_token.span.start)
            if isinstance(op, d.KernelOp):  # point at the sizes, not the kernel
                found = self.lexer.input.content.find("workgroup_size", start, end)
                start, end = (found, found + len("workgroup_size")) if found >= 0 else (start, end)
            self.raise_error(problem, start, end)
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


_CONTEXT_WIDTH = 100
"""Characters of the offending line shown around the error (lines can be huge)."""
_MESSAGE_LIMIT = 400


def _number_problem(op: Operation) -> str | None:
    """What the text may not hold although the ops' constructors take it: a
    workgroup dimension or a literal outside its 32-bit type (the builder and
    the wire form refuse them too; `vyre.validate` reports IR made otherwise,
    as V003 and V133)."""
    if isinstance(op, d.KernelOp):
        for axis, size in enumerate(op.workgroup):
            if size > d.U32_MAX:
                return (
                    f"workgroup_size[{axis}] is {size}, more than a u32 holds"
                    f" (workgroup dimensions are in [1, {d.U32_MAX}])"
                )
        return None
    if isinstance(op, d.LitFloatOp):
        ty = op.results[0].type
        if isinstance(ty, d.DataTypeAttr) and ty.data_kind in d.FLOAT_BITS:
            width = d.FLOAT_BITS[ty.data_kind]
            if not 0 <= op.bits.data < 1 << width:
                return f"bits {op.bits.data:#x} do not fit the {width} bits of {ty.kind.data}"
        return None
    if isinstance(op, d.LitU32Op | d.LitI32Op | d.LitBoolOp) and not op.in_range(op.value.data):
        return f"{op.LITERAL_TYPE.kind.data} literal {op.value.data} is out of range"
    return None


def format_parse_error(error: ParseError) -> str:
    """`file:line:col: error: message`, then (a window of) the source line and
    carets under the offending text."""
    message = " ".join(line.strip() for line in error.msg.splitlines() if line.strip())
    if len(message) > _MESSAGE_LIMIT:
        message = message[:_MESSAGE_LIMIT] + " ..."
    span = error.span
    content = span.input.content
    if isinstance(content, bytes):
        content = content.decode("utf-8", "replace")
    start = min(span.start, len(content))
    line_start = content.rfind("\n", 0, start) + 1
    line_end = content.find("\n", start)
    line = content[line_start : len(content) if line_end < 0 else line_end].removesuffix("\r")
    column = start - line_start
    first = max(0, min(column - _CONTEXT_WIDTH // 4, len(line) - _CONTEXT_WIDTH))
    window = line[first : first + _CONTEXT_WIDTH]
    carets = max(1, min(span.end - span.start, len(window) - (column - first)))
    prefix, suffix = ("..." if first else ""), ("..." if first + _CONTEXT_WIDTH < len(line) else "")
    pointer = " " * (len(prefix) + column - first) + "^" * carets
    return "\n".join([f"{span.get_location()}: error: {message}", prefix + window + suffix, pointer])


def print_module(module: ModuleOp, *, generic: bool = False) -> str:
    """The module in the dialect's custom (or generic) textual form. A module
    nested deeper than `MAX_NESTING` levels raises `NestingError` (a ValueError)."""
    if not isinstance(module, ModuleOp):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"expected a vyre Program or a builtin.module, got {type(module).__name__}")
    depth = check_nesting(module, "print_ir")

    def print_all() -> str:
        stream = io.StringIO()
        Printer(stream=stream, print_generic_format=generic).print_op(module)
        stream.write("\n")
        return stream.getvalue()

    return run_deep(print_all, depth)


def parse_module(text: str, name: str = "<vyre>") -> ModuleOp:
    """Parse the textual form (custom or generic) into a module whose ops carry
    their `name:line:col` locations. The text is parsed only: `vyre.validate`
    checks the V-rules. Malformed text raises `VyreParseError`."""
    if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"parse_ir expects str, got {type(text).__name__}")
    if not isinstance(name, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"parse_ir's name must be a str, got {type(name).__name__}")

    def parse() -> ModuleOp:
        return LocatingParser(vyre_context(), text, name).parse_module()

    try:
        try:
            module = parse()
        except RecursionError:  # deeper than the caller's stack allows: once more, deep
            module = run_deep(parse, MAX_NESTING)
        check_nesting(module, name)
        return module
    except ParseError as error:
        raise VyreParseError(format_parse_error(error)) from None
    except (RecursionError, NestingError):
        raise VyreParseError(
            f"{name}: error: the program nests regions more than {MAX_NESTING} levels deep"
            " (V018 allows 64). Fix: flatten nested If/Loop/Block statements"
        ) from None
