"""The textual form (vyre.text): print_ir / parse_ir round trips and parse errors."""

from __future__ import annotations

import time

import pytest
from xdsl.dialects.builtin import FileLineColLoc

import vyre
from vyre.context import MAX_NESTING
from vyre.dialects import vyre as d
from vyre.ir import AtomicOp, BinOp, BufferDecl, DataType, Expr as E, Node as N, Program, UnOp
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS


def programs() -> dict[str, Program]:
    i = E.var("i")
    every_kind = [N.let("i", E.gid_x())]
    every_kind += [N.let(f"b{k}", E.binop(op, i, E.u32(k))) for k, op in enumerate(INT_BINOPS)]
    every_kind += [N.let(f"u{k}", E.unop(op, E.i32(-k))) for k, op in enumerate(INT_UNOPS)]
    for k, op in enumerate(AtomicOp):
        expected = i if op is AtomicOp.COMPARE_EXCHANGE else None
        every_kind.append(N.let(f"a{k}", E.atomic(op, "out", i, E.u32(k), expected)))
    every_kind += [N.let(f"c{k}", E.cast(t, E.bool_(k % 2 == 0))) for k, t in enumerate(DataType)]
    return {
        "empty": Program([], (1, 1, 1), []),
        "every_kind": Program(
            [BufferDecl.read_write("out", 0, DataType.U32)], (32, 1, 1), every_kind
        ),
        "control_flow": Program(
            [
                BufferDecl.read("a", 0, DataType.VEC4U32),
                BufferDecl.read_write("out", 1, DataType.U32),
                BufferDecl.workgroup("tile", 128, DataType.I32),
                BufferDecl.uniform("n", 2, DataType.U64),
            ],
            (8, 8, 1),
            [
                N.let("x", E.local_id(1)),
                N.loop(
                    "k",
                    E.u32(0),
                    E.buf_len("out"),
                    [
                        N.if_(
                            E.eq(E.var("k"), E.workgroup_id(2)),
                            [N.assign("x", E.var("k")), N.return_()],
                            [N.block([N.barrier()])],
                        ),
                        N.store("out", E.var("k"), E.cast(DataType.U32, E.load("a", E.var("x")))),
                    ],
                ),
                N.let("s", E.select(E.bool_(True), E.call("primitive.math.add", [E.u32(1), E.u32(2)]), E.u32(0))),
                N.if_(E.u32(0), []),
            ],
            name="flow",
        ),
    }


@pytest.mark.parametrize("name", sorted(programs()))
def test_printed_text_parses_back_to_the_same_text(name: str) -> None:
    program = programs()[name]
    text = vyre.print_ir(program)
    parsed = vyre.parse_ir(text)
    assert vyre.print_ir(parsed) == text
    assert parsed == program


@pytest.mark.parametrize("name", sorted(programs()))
def test_the_generic_form_parses_too(name: str) -> None:
    program = programs()[name]
    generic = vyre.print_ir(program, generic=True)
    assert '"vyre.kernel"()' in generic
    parsed = vyre.parse_ir(generic)
    assert vyre.print_ir(parsed) == vyre.print_ir(program)
    assert vyre.print_ir(parsed, generic=True) == generic


def test_hand_written_text_round_trips_exactly() -> None:
    text = """builtin.module {
  vyre.kernel @k workgroup_size(4, 1, 1) buffers(@o : read_write u32 binding(3), @w : workgroup u32[4]) {
    %id = vyre.local_id x
    %seven = vyre.lit_u32 7
    vyre.store @w[%id] = %seven
    vyre.barrier
    %v = vyre.load @w[%id] : u32
    vyre.if %v {
      vyre.store @o[%id] = %v
    } else {
      vyre.return
    }
  }
}
"""
    assert vyre.print_ir(vyre.parse_ir(text)) == text


def test_parsed_ops_carry_their_file_line_and_column() -> None:
    program = vyre.parse_ir(
        "vyre.kernel @k workgroup_size(1, 1, 1) {\n  %0 = vyre.lit_u32 1\n    vyre.return\n}\n",
        name="prog.vyre",
    )
    lit, ret = program.kernel.entry.ops
    for op, line, column in ((program.kernel, 1, 1), (lit, 2, 3), (ret, 3, 5)):
        assert isinstance(op.location, FileLineColLoc)
        assert (op.location.filename.data, op.location.line.data, op.location.column.data) == (
            "prog.vyre",
            line,
            column,
        )


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("vyre.kernel @k workgroup_size(1, 1, 1) {\n  vyre.bogus\n}", "f.vyre:2:3", "unknown operation `vyre.bogus`"),
        ("vyre.kernel @k workgroup_size(1, 1, 1) {\n  %0 = vyre.binop nand %0, %0\n}", "f.vyre:2:19", "expected a binary operator"),
        ("vyre.kernel @k workgroup_size(1, 1, 1) {\n\n  vyre.let \"x\" = %9\n}", "f.vyre:3:18", "used before it is defined"),
        ("vyre.kernel @k workgroup_size(1, 1, 1) buffers(@a : read_only f64) {\n}", "f.vyre:1:63", "expected a vyre data type"),
        ("vyre.kernel @k workgroup_size(1, 1, 1) {", "f.vyre:1:41", "block"),
    ],
)
def test_parse_errors_name_file_line_and_column(text: str, where: str, words: str) -> None:
    with pytest.raises(vyre.VyreParseError) as caught:
        vyre.parse_ir(text, name="f.vyre")
    first_line = str(caught.value).splitlines()[0]
    assert first_line.startswith(f"{where}: error: "), first_line
    assert words in first_line


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "exactly one vyre.kernel, found 0"),
        (
            "vyre.kernel @a workgroup_size(1, 1, 1) {\n}\nvyre.kernel @b workgroup_size(1, 1, 1) {\n}",
            "exactly one vyre.kernel, found 2",
        ),
        ("builtin.module {\n  builtin.module {\n  }\n}", "exactly one vyre.kernel, found 0"),
    ],
)
def test_text_that_is_not_one_kernel_is_refused(text: str, words: str) -> None:
    with pytest.raises(vyre.VyreParseError, match=words):
        vyre.parse_ir(text)


def _nested_text(depth: int) -> str:
    return (
        "vyre.kernel @k workgroup_size(1, 1, 1) {\n"
        + "vyre.block {\n" * (depth - 1)
        + "vyre.return\n"
        + "}\n" * (depth - 1)
        + "}\n"
    )


def test_deep_nesting_prints_and_parses_up_to_the_cap() -> None:
    """A program nested past V018 (here 400 levels) is still a program:
    it parses, prints and round-trips; validation reports V018."""
    text = vyre.print_ir(vyre.parse_ir(_nested_text(400)))
    program = vyre.parse_ir(text)
    assert vyre.print_ir(program) == text
    assert [diag.rule for diag in vyre.validate(program)] == ["V018"]
    assert program == program.clone()


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 5_000])
def test_nesting_beyond_the_cap_is_a_parse_error_not_a_crash(depth: int) -> None:
    with pytest.raises(vyre.VyreParseError, match=f"more than {MAX_NESTING} levels deep"):
        vyre.parse_ir(_nested_text(depth))


_KERNEL_HEAD = "vyre.kernel @k workgroup_size(1, 1, 1) {\n  vyre.let "


@pytest.mark.parametrize(
    ("tail", "problem"),
    [
        ("a" * 10_000, "the file ends before its closing"),
        ("ab " * 4_000 + "\n}\n", "a string must end on the line it starts"),
        ("x" * 5_000 + "\\q" + "y" * 5_000 + '"', "unknown escape"),
        ("\\" * 5_000, "the file ends before its closing"),
    ],
)
def test_unterminated_string_fails_fast_with_a_located_error(tail: str, problem: str) -> None:
    """xDSL 0.74's string regex backtracks exponentially on an
    unterminated 10 kB literal (hours); vyre's lexer is linear. The budget is
    generous for a loaded CI machine: the old lexer needed minutes at 30 chars."""
    start = time.perf_counter()
    with pytest.raises(vyre.VyreParseError, match=f"<vyre>:2:12: error: unterminated string literal: {problem}"):
        vyre.parse_ir(_KERNEL_HEAD + '"' + tail)
    assert time.perf_counter() - start < 5.0


def test_strings_with_every_escape_still_parse() -> None:
    name = 'a"b\\c\nd\te\x01'
    program = Program([], (1, 1, 1), [N.let(name, E.u32(1))])
    text = vyre.print_ir(program)
    assert vyre.parse_ir(text) == program
    assert vyre.print_ir(vyre.parse_ir(text)) == text


def test_parse_ir_only_parses() -> None:
    """Invalid programs (V004 here) parse; validation is a separate step."""
    program = vyre.parse_ir(
        "vyre.kernel @k workgroup_size(1, 1, 1) {\n  %0 = vyre.buf_len @missing\n}\n"
    )
    assert isinstance(program.kernel.entry.first_op, d.BufLenOp)


def test_parse_ir_wants_text() -> None:
    with pytest.raises(TypeError, match="`source` must be a str"):
        vyre.parse_ir(b"vyre.kernel")  # type: ignore[arg-type]
