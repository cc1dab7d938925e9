"""vyre-opt, in process: round trips, passes, targets and every error path."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from vyre.ir import parse_ir, print_ir
from vyre.tools.vyre_opt import VyreOptMain

SMALL = """builtin.module {
  vyre.kernel @k workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
    %i = vyre.invocation_id x
    %x = vyre.load @a[%i] : u32
    %y = vyre.load @a[%i] : u32
    %one = vyre.lit_u32 1
    %one_1 = vyre.lit_u32 1
    %s = vyre.binop add %x, %y
    %t = vyre.binop add %s, %one
    %u = vyre.binop add %t, %one_1
    %unused = vyre.binop mul %x, %x
    vyre.store @out[%i] = %u
  }
}
"""

INVALID = """vyre.kernel @k workgroup_size(1, 1, 1) buffers(@a : read_only u32 binding(0)) {
  %0 = vyre.lit_u32 0
  vyre.store @a[%0] = %0
    %1 = vyre.load @nope[%0] : u32
}
"""


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


def run_opt(*args: str, stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None) -> Outcome:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            VyreOptMain(args=list(args)).run()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    outcome = Outcome(code, out.getvalue(), err.getvalue())
    assert "Traceback" not in outcome.text, outcome.text
    return outcome


@pytest.fixture
def write(tmp_path: Path):
    def write_file(text: str, name: str = "input.mlir") -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write_file


# ---------------------------------------------------------------------------
# Round trips and input sources
# ---------------------------------------------------------------------------


def test_custom_form_round_trips(write) -> None:
    result = run_opt(write(SMALL))
    assert result.code == 0 and result.err == ""
    assert result.out.rstrip("\n") + "\n" == SMALL


def test_generic_form_round_trips(write) -> None:
    generic = run_opt(write(SMALL), "--print-op-generic")
    assert generic.code == 0 and '"vyre.kernel"() ({' in generic.out
    assert 'sym_name = "k", workgroup_size = [64, 1, 1]} : () -> ()' in generic.out
    back = run_opt(write(generic.out, "generic.mlir"))
    assert back.code == 0 and back.out.rstrip("\n") + "\n" == SMALL


@pytest.mark.parametrize("args", [(), ("-",)])
def test_reads_stdin(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_opt(*args, stdin=SMALL, monkeypatch=monkeypatch)
    assert result.code == 0 and result.out.rstrip("\n") + "\n" == SMALL


def test_any_file_extension_is_read_as_vyre_text(write) -> None:
    assert run_opt(write(SMALL, "kernel.vyre")).code == 0
    assert run_opt(write(SMALL, "kernel.txt")).code == 0


def test_output_file(write, tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    result = run_opt(write(SMALL), "-o", str(target))
    assert result.code == 0 and result.out == ""
    assert target.read_text().rstrip("\n") + "\n" == SMALL


def test_version() -> None:
    from importlib.metadata import version

    result = run_opt("--version")
    assert result.code == 0
    assert result.out == f"vyre-opt {version('vyre')} (xdsl {version('xdsl')})\n"


# ---------------------------------------------------------------------------
# Passes
# ---------------------------------------------------------------------------


def test_canonicalize_cse_dce_on_a_small_kernel(write) -> None:
    result = run_opt(write(SMALL), "-p", "canonicalize,cse,dce")
    assert result.code == 0, result.err
    body = [line.strip() for line in result.out.splitlines()[2:-3]]
    # the repeated load and literal are merged (cse); the unused multiply is gone (dce)
    assert body == [
        "%i = vyre.invocation_id x",
        "%x = vyre.load @a[%i] : u32",
        "%one = vyre.lit_u32 1",
        "%s = vyre.binop add %x, %x",
        "%t = vyre.binop add %s, %one",
        "%u = vyre.binop add %t, %one",
        "vyre.store @out[%i] = %u",
    ]


def test_the_pass_registry_lists_vyre_passes() -> None:
    result = run_opt("--help")
    assert result.code == 0
    for name in ("canonicalize", "cse", "dce", "inline-calls"):
        assert name in result.out


@pytest.mark.parametrize(
    ("pipeline", "words"),
    [
        ("bogus", "vyre-opt: error: unknown pass `bogus` (passes: canonicalize, convert-to-vyre, cse, dce,"),
        ("cse,nope", "vyre-opt: error: unknown pass `nope` (passes: "),
        ("cse{fast=true}", "vyre-opt: error: pass `cse` has no option `fast` (options: none)"),
        ("canonicalise", "vyre-opt: error: unknown pass `canonicalise`; did you mean `canonicalize`?"),
        ("cse,float-stric", "vyre-opt: error: unknown pass `float-stric`; did you mean `float-strict`?"),
        (
            "convert-to-vyre{workgroup-size=true}",
            "vyre-opt: error: pass `convert-to-vyre`: option `workgroup-size` takes an integer, got true",
        ),
        (
            "convert-to-vyre{workgroup-size=many}",
            "vyre-opt: error: pass `convert-to-vyre`: option `workgroup-size` takes an integer, got 'many'",
        ),
        (
            "convert-to-vyre{workgroup_sise=8}",
            "vyre-opt: error: pass `convert-to-vyre` has no option `workgroup_sise`; did you mean"
            " `workgroup-size`? (options: workgroup-size)",
        ),
        ("cse{", "vyre-opt: error: Error parsing pass pipeline specification"),
    ],
)
def test_bad_pipelines_are_one_clear_error(write, pipeline: str, words: str) -> None:
    result = run_opt(write(SMALL), "-p", pipeline)
    assert result.code == 1 and result.out == ""
    assert result.err.startswith(words), result.err


# ---------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------


def test_unknown_target_is_a_usage_error(write) -> None:
    result = run_opt(write(SMALL), "-t", "spirv")
    assert result.code == 2
    assert "invalid choice: 'spirv' (choose from mlir, wgsl)" in result.err
    close = run_opt(write(SMALL), "-t", "wsgl")
    assert close.code == 2 and close.err.rstrip().endswith("did you mean `wgsl`?")


def test_unknown_options_get_a_suggestion(write) -> None:
    option = run_opt(write(SMALL), "--print-op-genric")
    assert option.code == 2
    assert option.err.rstrip().endswith("unrecognized arguments: --print-op-genric; did you mean `--print-op-generic`?")
    target = run_opt(write(SMALL), "-t", "wgsl{vectorise=true}")
    assert target.code == 1 and target.err == (
        "vyre-opt: error: target `wgsl` has no option `vectorise`; did you mean `vectorize`?"
        " (options: int64, loop-limit, vectorize)\n"
    )


def test_wgsl_target_prints_a_compute_shader(write) -> None:
    result = run_opt(write(SMALL), "-t", "wgsl")
    assert result.code == 0, result.err
    assert "@compute" in result.out and "@workgroup_size(64" in result.out


# ---------------------------------------------------------------------------
# Error reports: file:line:col, one line per diagnostic, exit 1, no traceback
# ---------------------------------------------------------------------------


def test_validation_errors_are_located_one_per_line(write) -> None:
    path = write(INVALID)
    result = run_opt(path)
    assert result.code == 1 and result.out == ""
    assert result.err.splitlines() == [
        f"{path}:3:3: error: vyre IR validation: store to non-writable buffer `a`."
        " Fix: declare it with BufferAccess::ReadWrite or BufferAccess::Workgroup.",
        f"{path}:4:5: error: vyre IR validation: load from unknown buffer `nope`."
        " Fix: declare it in Program::buffers.",
    ]


def test_verify_diagnostics_prints_and_exits_zero(write) -> None:
    path = write(INVALID)
    result = run_opt(path, "--verify-diagnostics")
    assert result.code == 0 and result.err == ""
    assert f"{path}:3:3: error: vyre IR validation: store to non-writable buffer `a`." in result.out
    assert f"{path}:4:5: error: vyre IR validation: load from unknown buffer `nope`." in result.out


def test_validation_errors_of_the_generic_form_are_located_too(write) -> None:
    generic = print_ir(parse_ir(INVALID), generic=True)
    path = write(generic, "generic.mlir")
    result = run_opt(path)
    assert result.code == 1
    lines = result.err.splitlines()
    assert len(lines) == 2 and all(line.startswith(f"{path}:") for line in lines)
    assert ": error: vyre IR validation: store to non-writable buffer `a`." in lines[0]


def test_parse_error_has_file_line_col_and_a_caret(write) -> None:
    path = write("vyre.kernel @k workgroup_size(1, 1, 1) {\n  %0 = vyre.lit_u32 1\n  vyre.frobnicate %0\n}\n")
    result = run_opt(path)
    assert result.code == 1 and result.out == ""
    assert result.err.splitlines() == [
        f"{path}:3:3: error: unknown operation `vyre.frobnicate` (known dialects: arith, builtin, func, memref, scf, vtensor, vyre)",
        "  vyre.frobnicate %0",
        "  ^^^^^^^^^^^^^^^",
    ]


def test_parse_error_on_stdin_names_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_opt(stdin="vyre.kernel @k workgroup_size(1, 1) {\n}\n", monkeypatch=monkeypatch)
    assert result.code == 1
    assert result.err.startswith("<stdin>:1:")


def test_structural_errors_of_generic_ops_are_located(write) -> None:
    path = write(
        "vyre.kernel @k workgroup_size(1, 1, 1) {\n"
        '  %0 = "vyre.lit_u32"() <{value = #builtin.int<1>}> : () -> !vyre.type<u32>\n'
        '  "vyre.binop"(%0) <{kind = "add"}> : (!vyre.type<u32>) -> !vyre.type<u32>\n'
        "}\n"
    )
    result = run_opt(path)
    assert result.code == 1
    assert result.err.startswith(f"{path}:3:3: error: ") and "operand" in result.err
    # a parse error like any other: the message, the line, a caret under the op's name
    assert result.err.splitlines()[1:] == [
        '  "vyre.binop"(%0) <{kind = "add"}> : (!vyre.type<u32>) -> !vyre.type<u32>',
        "  ^^^^^^^^^^^^",
    ]


def test_statements_outside_a_kernel_are_reported(write) -> None:
    path = write("%0 = vyre.lit_u32 1\nvyre.let \"x\" = %0\n")
    result = run_opt(path)
    assert result.code == 1
    assert result.err.splitlines()[0] == f"{path}:1:1: error: 'vyre.lit_u32' must be inside a vyre.kernel"


def test_split_input_file_reports_each_chunk_at_its_own_line(write) -> None:
    text = SMALL + "// -----\n" + INVALID + "// -----\nvyre.kernel @z workgroup_size(1, 1, 1) {\n  vyre.oops\n}\n"
    path = write(text)
    first_invalid_line = SMALL.count("\n") + 1
    result = run_opt(path, "--split-input-file")
    assert result.code == 1
    assert result.out.count("// -----") == 2 and "vyre.kernel @k workgroup_size(64" in result.out
    errors = [line for line in result.err.splitlines() if ": error: " in line]
    assert [line.split(": error: ")[0] for line in errors] == [
        f"{path}:{first_invalid_line + 3}:3",
        f"{path}:{first_invalid_line + 4}:5",
        f"{path}:{first_invalid_line + 8}:3",
    ]
    diag = run_opt(path, "--split-input-file", "--verify-diagnostics")
    assert diag.code == 0 and diag.out.count(": error: ") == 3


def test_empty_chunks_are_empty_modules(write) -> None:
    result = run_opt(write("// -----\n// only a comment\n"), "--split-input-file")
    assert result.code == 0
    assert result.out == "builtin.module {\n}\n\n// -----\nbuiltin.module {\n}\n\n"


def test_missing_input_file_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.mlir"
    result = run_opt(str(missing))
    assert result.code == 1
    assert result.err == f"vyre-opt: error: cannot read '{missing}': No such file or directory\n"


def test_directory_as_input_is_one_line(tmp_path: Path) -> None:
    result = run_opt(str(tmp_path))
    assert result.code == 1 and result.err.startswith("vyre-opt: error: cannot read")


def test_unknown_option_is_a_usage_error(write) -> None:
    result = run_opt(write(SMALL), "--frobnicate")
    assert result.code == 2 and "unrecognized arguments: --frobnicate" in result.err


CALLS_OPAQUE = """vyre.kernel @k workgroup_size(1, 1, 1) buffers(@o : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.call "user.load_ops.opaque"(%0) : u32
  vyre.store @o[%0] = %1
}
"""

OPAQUE_OP = """
from vyre import ops
from vyre.ir import DataType
from vyre.ops import OpSignature, OpSpec

ops.register(OpSpec(
    id="user.load_ops.opaque", version=1,
    signature=OpSignature(inputs=[DataType.U32], output=DataType.U32), category="A",
    reference=lambda a: a, composition=lambda a: a, boundaries=[0, 1], inlinable=False,
))
"""


def test_load_ops_registers_user_ops_before_parsing(tmp_path: Path) -> None:
    from vyre import ops

    kernel, registration = tmp_path / "k.mlir", tmp_path / "opaque.py"
    kernel.write_text(CALLS_OPAQUE)
    registration.write_text(OPAQUE_OP)
    without = run_opt(str(kernel))
    assert "V016: unknown op `user.load_ops.opaque`" in without.err
    try:
        loaded = run_opt(str(kernel), "--load-ops", str(registration))
    finally:
        ops.unregister("user.load_ops.opaque")
    assert loaded.code == 1
    assert loaded.err == (
        f"{kernel}:3:3: error: vyre IR validation: V020: call to non-inlinable op"
        " `user.load_ops.opaque` is rejected by validation. Fix: lower this operation through"
        " its dedicated backend path or rewrite the caller with explicit IR.\n"
    )


@pytest.mark.parametrize(
    ("source", "words"),
    [
        (None, "cannot read --load-ops file"),
        ("raise RuntimeError('boom')", "failed: RuntimeError: boom"),
        ("from vyre import ops\nops.register(ops.get('primitive.math.add'))", "admission gate"),
    ],
)
def test_load_ops_failures_are_one_clean_line(tmp_path: Path, source: str | None, words: str) -> None:
    kernel, registration = tmp_path / "k.mlir", tmp_path / "user_ops.py"
    kernel.write_text(SMALL)
    if source is not None:
        registration.write_text(source)
    outcome = run_opt(str(kernel), "--load-ops", str(registration))
    assert outcome.code == 1
    assert words in outcome.err and "Traceback" not in outcome.text
    assert outcome.err.startswith("vyre-opt: error:") and outcome.err.count("\n") == 1


# ---------------------------------------------------------------------------
# Modules that mix vyre with other dialects (docs/mlir.md)
# ---------------------------------------------------------------------------

HOST = """func.func @host(%n: i32) -> i32 {
  %one = arith.constant 1 : i32
  %m = arith.addi %n, %one : i32
  func.return %m : i32
}
"""


def test_a_module_without_a_kernel_has_no_wgsl(write) -> None:
    path = write(HOST)
    assert run_opt(path).code == 0
    result = run_opt(path, "-t", "wgsl")
    assert result.code == 1
    assert result.err.startswith(f"{path}: error: -t wgsl: the module holds no vyre.kernel")


def test_vyre_ops_outside_a_kernel_are_located_errors(write) -> None:
    path = write(HOST.replace("  func.return %m : i32", "  %v = vyre.lit_u32 1\n  func.return %m : i32"))
    result = run_opt(path)
    assert result.code == 1
    assert result.err.splitlines() == [f"{path}:4:3: error: 'vyre.lit_u32' must be inside a vyre.kernel"]


def test_one_kernel_prints_its_wgsl_without_a_header(write) -> None:
    result = run_opt(write(HOST + SMALL.replace("builtin.module {\n", "").rsplit("}", 1)[0]), "-t", "wgsl")
    assert result.code == 0, result.err
    assert "=====" not in result.out and result.out.count("@compute") == 1


def test_conversion_errors_are_located(write) -> None:
    path = write("func.func @f(%a: memref<?xi8>) {\n  func.return\n}\n")
    result = run_opt(path, "-p", "convert-to-vyre")
    assert result.code == 1 and result.out == ""
    assert result.err.startswith(f"{path}:1:1: error: convert-to-vyre: argument %a of @f has type memref<?xi8>")
