"""The textual form of vyre programs: the dialect's custom syntax."""

from __future__ import annotations

import io

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from vyre.context import vyre_context
from vyre.ir import Program


class VyreParseError(ValueError):
    """Text that is not a vyre program; the message carries `file:line:col`."""


def print_ir(program: Program, *, generic: bool = False) -> str:
    """The program in the dialect's custom (or generic) textual form."""
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(program.module)
    stream.write("\n")
    return stream.getvalue()


def parse_ir(text: str, name: str = "<vyre>") -> Program:
    """Parse the textual form (custom or generic) back into a Program.

    The text is parsed only; call `vyre.validate` to check the V-rules."""
    if not isinstance(text, str):
        raise TypeError(f"parse_ir expects str, got {type(text).__name__}")
    try:
        module = Parser(vyre_context(), text, name).parse_module()
    except ParseError as error:
        raise VyreParseError(str(error)) from None
    if not isinstance(module, ModuleOp):
        raise VyreParseError(f"{name}: expected a builtin.module")
    return Program.from_module(module)
