"""The textual form of vyre IR: the dialect's custom syntax, on modules.

`print_module`/`parse_module` work on `builtin.module` ops; `vyre.print_ir` and
`vyre.parse_ir` (vyre/ir.py) wrap them for `Program` values.
"""

from __future__ import annotations

import io
import re
from typing import cast
from collections.abc import Iterator
from bisect import bisect_right

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue, TypeAttribute
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

from vyre.context import (
    MAX_NESTING,
    NestingError,
    bulk_ir,
    check_nesting,
    run_deep,
    vyre_context,
)
from vyre.dialects import vyre as d
from vyre.dialects.mlir_generic import MLIRGenericPrinter, int_properties_from_mlir


MAX_INT_WIDTH = 1 << 16
_INTEGER_TYPE = re.compile(r"[su]?i(\d+)$")


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


_MISSING = object()


class _ScopedValues(dict[str, tuple[SSAValue, ...]]):
    """The parser's SSA names by scope. xDSL copies the whole dict at every
    region (`old = self.ssa_values.copy()`, restored after it), which makes parsing
    quadratic in regions x values; here `copy()` only marks the undo log, and
    assigning the mark back undoes the region's definitions."""

    def __init__(self, initial: dict[str, tuple[SSAValue, ...]] | None = None):
        super().__init__(initial or {})
        self.undo: list[tuple[str, object]] = []

    def __setitem__(self, key: str, value: tuple[SSAValue, ...]) -> None:
        self.undo.append((key, self.get(key, _MISSING)))
        super().__setitem__(key, value)

    def copy(self) -> _ScopeMark:  # type: ignore[override]  # pyright: ignore[reportIncompatibleMethodOverride]
        return _ScopeMark(self, len(self.undo))

    def rollback(self, mark: int) -> None:
        while len(self.undo) > mark:
            key, old = self.undo.pop()
            if old is _MISSING:
                super().__delitem__(key)
            else:
                super().__setitem__(key, cast("tuple[SSAValue, ...]", old))


class _ScopeMark:
    def __init__(self, values: _ScopedValues, mark: int):
        self.values, self.mark = values, mark


class LocatingParser(Parser):
    """A Parser that records each op's `file:line:col` as its location.

    `line_offset` is added to line numbers (for one chunk of a split file).
    Its lexer is `VyreLexer` (linear on every input)."""

    def __init__(self, ctx: Context, text: str | bytes, name: str, line_offset: int = 0):
        super().__init__(ctx, "", name)
        source = text.decode("utf-8") if isinstance(text, bytes) else text
        self._parser_state = ParserState(VyreLexer(Input(source, name)))
        self.line_offset = line_offset
        self._last_generic: Operation | None = None
        self.generic_ops: list[tuple[Operation, int]] = []
        content = self.lexer.input.content
        self._line_starts = [0]
        position = content.find("\n")
        while position >= 0:
            self._line_starts.append(position + 1)
            position = content.find("\n", position + 1)

    @property
    def ssa_values(self) -> dict[str, tuple[SSAValue, ...]]:  # pyright: ignore[reportIncompatibleVariableOverride]
        return self._scoped_values

    @ssa_values.setter
    def ssa_values(self, value: object) -> None:  # pyright: ignore[reportIncompatibleVariableOverride]
        if isinstance(value, _ScopeMark) and value.values is getattr(self, "_scoped_values", None):
            value.values.rollback(value.mark)  # the end of a region: drop its names
        elif isinstance(value, _ScopedValues):
            self._scoped_values = value
        else:
            self._scoped_values = _ScopedValues(cast("dict[str, tuple[SSAValue, ...]]", value))

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """An input without ops (e.g. an empty `// -----` chunk) is an empty module.
        A value used before its definition (only the generic syntax can write one)
        is an error at its user: vyre's ops run in the order they are written."""
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])
        try:
            module = super().parse_module(allow_implicit_module)
        except (ValueError, IndexError, KeyError, TypeError, AttributeError, OverflowError) as error:
            # xDSL's own checks on malformed input (a block name `^3`, ...): located here
            message = " ".join(str(error).split()) or type(error).__name__
            self.raise_error(f"malformed input: {message}")
        self.check_generic_ops()
        user = _first_use_before_definition(module)
        if user is not None:
            start = 0
            location = user.location
            if isinstance(location, FileLineColLoc):
                line = location.line.data - self.line_offset
                if 1 <= line <= len(self._line_starts):
                    start = self._line_starts[line - 1] + location.column.data - 1
            self.raise_error(
                f"'{user.name}' uses a value before its definition (vyre ops run in the"
                " order they are written)",
                start,
                start + len(user.name),
            )
        return module

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        try:
            op = super().parse_operation()
            int_properties_from_mlir(op)  # MLIR's generic form: `64 : i64` for IntAttr
            if op is self._last_generic:
                self.generic_ops.append((op, start))
        except VerifyException as error:  # an attribute that verifies when built
            message = " ".join(str(error).split())
            self.raise_error(message, start, max(start + 1, self._current_token.span.start))
        problem = _local_problem(op)
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

    def _parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        """xDSL computes the value range of `i<N>` (1 << N): a width of 10**9 takes
        seconds and 10**20 raises OverflowError. vyre text needs none above 64."""
        token = self._current_token
        if token.kind == MLIRTokenKind.BARE_IDENT:
            match = _INTEGER_TYPE.match(token.text)
            if match is not None and (len(match.group(1)) > 6 or int(match.group(1)) > MAX_INT_WIDTH):
                self.raise_error(f"integer type `{token.text[:40]}` is wider than {MAX_INT_WIDTH} bits")
        return super()._parse_optional_integer_or_float_type()

    def _parse_generic_operation(self, op_type: type[Operation]) -> Operation:
        op = super()._parse_generic_operation(op_type)
        self._last_generic = op
        return op

    def check_generic_ops(self) -> None:
        """Hold the ops written in the generic syntax (which builds ops without
        their constructors' checks) to their structure: operand, result and region
        counts, properties present and of their kind, the result type an
        expression defines itself (`vyre.lit_u32` yields `u32`); an empty vyre
        region gets its one empty block, as in the custom form. A ParseError at
        the first one that is not (the printer and every pass rely on it)."""
        for op, start in self.generic_ops:
            if not isinstance(op, IRDLOperation):
                continue
            if op.name.startswith("vyre."):
                for region in op.regions:
                    if not region.blocks:  # `({ })`: the custom form's empty body
                        region.add_block(Block())
            try:
                type(op).get_irdl_definition().verify(op)
                if isinstance(op, d.ExprOp):  # a type only the generic form can spell
                    op.verify_result_type()
            except (VerifyException, ValueError) as error:
                message = " ".join(str(error).split())
                name_end = self.lexer.input.content.find("(", start)
                self.raise_error(f"'{op.name}' op: {message}", start, max(start + 1, name_end))

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


def _first_use_before_definition(module: ModuleOp) -> Operation | None:
    """The first op (in program order) with an operand not defined before it in
    its block or an enclosing one, found without recursion."""
    defined: set[SSAValue] = set()
    top = (op for block in module.body.blocks for op in block.ops)
    stack: list[tuple[Iterator[Operation], list[SSAValue]]] = [(top, [])]
    while stack:
        ops, local = stack[-1]
        op = next(ops, None)
        if op is None:
            stack.pop()
            defined.difference_update(local)
            continue
        if any(operand not in defined for operand in op.operands):
            return op
        for region in op.regions:
            for block in region.blocks:
                args: list[SSAValue] = list(block.args)
                defined.update(args)
                stack.append((iter(block.ops), args))
        defined.update(op.results)
        local.extend(op.results)
    return None


_KINDS: dict[type[Operation], tuple[str, frozenset[str]]] = {
    d.BinOp: ("kind", frozenset(kind.value for kind in d.BinOpKind)),
    d.UnOp: ("kind", frozenset(kind.value for kind in d.UnOpKind)),
    d.FCmpOp: ("predicate", frozenset(d.FLOAT_PREDICATES)),
    d.AtomicOp: ("kind", frozenset(kind.value for kind in d.AtomicOpKind)),
}


def _local_problem(op: Operation) -> str | None:
    """What the text may not hold although xDSL's generic syntax builds it: a
    workgroup dimension or a literal outside its 32-bit type (the builder and
    the wire form refuse them too; `vyre.validate` reports IR made otherwise,
    as V003 and V133), or a kind the op does not have (the custom syntax cannot
    spell one; `vyre.validate` names such IR malformed)."""
    kinds = _KINDS.get(type(op))
    if kinds is not None:
        name, known = kinds
        kind = op.properties.get(name)
        if not isinstance(kind, StringAttr) or kind.data not in known:
            shown = kind.data if isinstance(kind, StringAttr) else kind
            return f"'{op.name}' has no {name} `{shown}` (one of: {', '.join(sorted(known))})"
        return None
    if isinstance(op, d.KernelOp):
        sizes = op.properties.get("workgroup_size")
        values = cast("ArrayAttr[Attribute]", sizes).data if isinstance(sizes, ArrayAttr) else ()
        numbers = [cast("IntAttr[int]", v).data for v in values if isinstance(v, IntAttr)]
        for axis, size in enumerate(numbers):
            if size > d.U32_MAX:
                return (
                    f"workgroup_size[{axis}] is {size}, more than a u32 holds"
                    f" (workgroup dimensions are in [1, {d.U32_MAX}])"
                )
        return None
    if isinstance(op, d.LitFloatOp):
        ty = op.results[0].type if len(op.results) == 1 else None
        bits = op.properties.get("bits")
        if isinstance(ty, d.DataTypeAttr) and ty.data_kind in d.FLOAT_BITS and isinstance(bits, IntAttr):
            width, pattern = d.FLOAT_BITS[ty.data_kind], cast("IntAttr[int]", bits).data
            if not 0 <= pattern < 1 << width:
                return f"bits {pattern:#x} do not fit the {width} bits of {ty.kind.data}"
        return None
    if isinstance(op, d.LitU32Op | d.LitI32Op | d.LitBoolOp):
        value = op.properties.get("value")
        number = cast("IntAttr[int]", value).data if isinstance(value, IntAttr) else 0
        if not op.in_range(number):
            return f"{op.LITERAL_TYPE.kind.data} literal {number} is out of range"
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
        MLIRGenericPrinter(stream=stream, print_generic_format=generic).print_op(module)
        stream.write("\n")
        return stream.getvalue()

    return run_deep(print_all, depth)


def parse_module(text: str, name: str = "<vyre>", context: Context | None = None) -> ModuleOp:
    """Parse the textual form (custom or generic) into a module whose ops carry
    their `name:line:col` locations. The text is parsed only: `vyre.validate`
    checks the V-rules. Malformed text raises `VyreParseError`. `context`: the
    dialects known (default: `builtin` and `vyre`; vyre-run also reads the
    `func`/`arith`/`scf`/`memref` ops of a mixed module)."""
    if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"parse_ir: `source` must be a str, got {type(text).__name__}")
    if not isinstance(name, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"parse_ir's name must be a str, got {type(name).__name__}")

    def parse() -> ModuleOp:
        with bulk_ir():
            parser = LocatingParser(context or vyre_context(), text, name)
            return parser.parse_module()

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
