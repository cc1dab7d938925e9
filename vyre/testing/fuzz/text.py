"""The text fuzzer: mutated program texts through the text form's pipeline.

Seeds are random valid programs (custom and generic syntax) and a few hostile
snippets; each input applies one to four mutations (character edits, spans
deleted, duplicated or spliced from another seed, numbers replaced by edge
values, keywords swapped, deep nesting, long or unterminated strings, lines
swapped, truncation).

The oracle: `parse_ir` either raises `VyreParseError` or returns a program;
a program's `validate` returns diagnostics (a ValueError names malformed IR);
its printed text parses back to an equal program and prints identically (for
a valid program); its wire form decodes to an equal program (or the wire form
refuses it with a `WireError`); a valid program lowers to WGSL.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cached_property

from vyre.ir import Program
from vyre.testing.fuzz.base import OracleFailure
from vyre.testing.fuzz.shrink import shrink_text

__all__ = ["EDGE_NUMBERS", "MUTATIONS", "TextFuzzer"]

EDGE_NUMBERS = (
    "0", "1", "-1", "2", "31", "32", "64", "65", "255", "4294967295", "4294967296", "2147483648",
    "-2147483649", "18446744073709551616", "99999999999999999999", "0x7FC00000", "1e309", "-0",
    "1.5", "00", "0x", "9" * 400,
)  # fmt: skip
KEYWORDS = (
    "vyre.kernel", "vyre.let", "vyre.var", "vyre.assign", "vyre.store", "vyre.load", "vyre.if",
    "vyre.loop", "vyre.block", "vyre.return", "vyre.barrier", "vyre.binop", "vyre.unop",
    "vyre.call", "vyre.select", "vyre.cast", "vyre.atomic", "vyre.lit_u32", "vyre.lit_i32",
    "vyre.lit_bool", "vyre.lit_float", "vyre.fadd", "vyre.fcmp", "vyre.fma", "vyre.bitcast",
    "vyre.buf_len", "vyre.invocation_id", "vyre.local_id", "vyre.workgroup_id", "builtin.module",
    "u32", "i32", "bool", "f32", "f16", "bf16", "u64", "vec4u32", "bytes", "read_only",
    "read_write", "uniform", "workgroup", "binding", "buffers", "workgroup_size", "add", "shl",
    "div", "to", "x", "y", "z", "else", "true", "false", "compare_exchange", "loc",
)  # fmt: skip
PUNCTUATION = '{}()[]<>%@"=:,.-#!^\\ \n\t'
HOSTILE = (
    'vyre.kernel @k workgroup_size(1, 1, 1) {\n  vyre.let "' + "a" * 2000 + "\n}\n",
    "vyre.kernel @k workgroup_size(99999999999999999999, 1, 1) {\n}\n",
    "vyre.kernel @k workgroup_size(1, 1, 1) {\n" + "vyre.block {\n" * 300 + "}\n" * 300 + "}\n",
    '"builtin.module"() ({\n}) : () -> ()\n',
    "vyre.kernel @k workgroup_size(1, 1, 1) buffers(@a : workgroup u32[0]) {\n  %0 = vyre.lit_u32 0\n}\n",
)


class TextFuzzer:
    name = "text"
    extension = "mlir"

    def __init__(self, seed: int = 0):
        self.seed = seed

    @cached_property
    def seeds(self) -> tuple[str, ...]:
        from vyre.ir import print_ir
        from vyre.testing.random_programs import GeneratorConfig, random_case

        texts: list[str] = list(HOSTILE)
        small = GeneratorConfig(max_statements=4, max_depth=2, max_expr_depth=2)
        for k in range(24):
            program = random_case(self.seed * 1000 + k, GeneratorConfig() if k % 4 == 0 else small).program
            texts.append(print_ir(program, generic=k % 4 == 3))
        return tuple(texts)

    def generate(self, index: int) -> bytes:
        rng = random.Random(f"text:{self.seed}:{index}")
        text = rng.choice(self.seeds)
        for _ in range(rng.randint(1, 4)):
            text = rng.choice(MUTATIONS)(rng, text, self.seeds)
        return text.encode("utf-8", "surrogatepass")

    def check(self, data: bytes) -> None:
        check_text(data.decode("utf-8", "replace"))

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        return shrink_text(data, still_fails)


def check_text(text: str) -> None:
    """The text oracle (module docstring)."""
    from vyre import ir as vyre
    from vyre.pipeline import lower_to_wgsl
    from vyre.validate import validate
    from vyre.text import VyreParseError
    from vyre.wire import WireError

    try:
        program = vyre.parse_ir(text, "<fuzz>")
    except VyreParseError:
        return
    try:
        diagnostics = validate(program)
    except ValueError:
        return  # malformed IR (named): nothing more is defined for it
    printed = vyre.print_ir(program)
    reparsed = vyre.parse_ir(printed, "<printed>") if not diagnostics else _reparse(printed)
    if reparsed is not None and reparsed != program:
        raise OracleFailure("parse_ir(print_ir(p)) != p")
    if reparsed is not None and vyre.print_ir(reparsed) != printed:
        raise OracleFailure("print_ir is not a fixed point of the text round trip")
    try:
        blob = program.to_wire()
    except WireError:
        blob = None
    if blob is not None and Program.from_wire(blob) != program:
        raise OracleFailure("Program.from_wire(p.to_wire()) != p")
    if not diagnostics:
        lower_to_wgsl(program)


def _reparse(printed: str) -> Program | None:
    """An invalid program's text may hold what the parser refuses (a literal out
    of range made by the API): that is allowed, a traceback is not."""
    from vyre import ir as vyre
    from vyre.text import VyreParseError

    try:
        return vyre.parse_ir(printed, "<printed>")
    except VyreParseError:
        return None


# -- mutations ------------------------------------------------------------------


def _span(rng: random.Random, text: str) -> tuple[int, int]:
    if not text:
        return 0, 0
    start = rng.randrange(len(text))
    return start, min(len(text), start + rng.choice((1, 1, 2, 3, 8, 30, 200)))


def _edit_char(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    start, _ = _span(rng, text)
    pool = PUNCTUATION + "0123456789abcdefxyz_\u00e9\u4e2d\x00\x7f"
    return text[:start] + rng.choice(pool) + text[start + rng.randint(0, 1) :]


def _delete(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    start, end = _span(rng, text)
    return text[:start] + text[end:]


def _duplicate(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    start, end = _span(rng, text)
    at = rng.randrange(len(text) + 1)
    return text[:at] + text[start:end] + text[at:]


def _splice(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    other = rng.choice(seeds)
    start, end = _span(rng, other)
    at = rng.randrange(len(text) + 1)
    return text[:at] + other[start:end] + text[at:]


def _number(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    digits = [k for k, ch in enumerate(text) if ch.isdigit()]
    if not digits:
        return text
    start = end = rng.choice(digits)
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[:start] + rng.choice(EDGE_NUMBERS) + text[end:]


def _keyword(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    words = [k for k in KEYWORDS if k in text]
    if not words:
        return text
    word = rng.choice(words)
    return text.replace(word, rng.choice(KEYWORDS), 1)


def _nest(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    depth = rng.choice((3, 10, 70, 70, 200)) if rng.random() < 0.97 else 1100
    at = text.find("{")
    if at < 0:
        return text
    close = "}\n" * depth if rng.random() < 0.8 else ""
    return text[: at + 1] + "\nvyre.block {\n" * depth + close + text[at + 1 :]


def _string(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    at = rng.randrange(len(text) + 1)
    body = rng.choice(("a" * 5000, "\\" * 3001, "\\q", "\\0", '\\"' * 100, "x\ny"))
    closing = '"' if rng.random() < 0.5 else ""
    return text[:at] + '"' + body + closing + text[at:]


def _swap_lines(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return text
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def _truncate(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    return text[: rng.randrange(len(text) + 1)]


MUTATIONS: tuple[Callable[[random.Random, str, tuple[str, ...]], str], ...] = (
    _edit_char, _edit_char, _delete, _duplicate, _splice, _number, _number, _keyword,
    _keyword, _nest, _string, _swap_lines, _truncate,
)  # fmt: skip
