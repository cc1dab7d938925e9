"""The generic form and MLIR: what `vyre-opt --print-op-generic` prints,
`mlir-opt-16 --allow-unregistered-dialect` reads and prints back unchanged (the
same text up to SSA names, which MLIR renumbers), and vyre reads back as the
same IR. Needs Debian's mlir-16-tools (skipped without it, except under CI)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from vyre.text import LocatingParser, print_module
from vyre.tools.vyre_opt import get_all_dialects

ROOT = Path(__file__).resolve().parents[3]
INPUTS = sorted(
    [ROOT / "test/lit/dialect/ops.mlir", ROOT / "test/lit/tools/mlir-opt-roundtrip.mlir"]
    + list((ROOT / "test/lit/transforms/float-strict").glob("*.mlir"))
    + list((ROOT / "examples").glob("*.mlir"))
)
MLIR_OPT = shutil.which("mlir-opt-16")


def parse_module(text: str) -> ModuleOp:
    """Parsed as vyre-opt parses: vyre beside func, arith, scf and memref."""
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return LocatingParser(ctx, text, "<test>").parse_module()


def _chunks(path: Path) -> list[str]:
    return [chunk for chunk in path.read_text().split("// -----\n") if "vyre.kernel" in chunk]


def _without_names(text: str) -> str:
    return re.sub(r"%[A-Za-z0-9_.$]+", "%_", text)


def test_the_generic_form_has_no_xdsl_only_syntax() -> None:
    text = print_module(parse_module(_chunks(ROOT / "test/lit/dialect/ops.mlir")[0]), generic=True)
    assert "<{" not in text and "#builtin" not in text
    assert "workgroup_size = [64, 2, 1]" in text and "{axis = 0 : i64}" in text


def test_both_generic_spellings_parse_to_the_same_ir() -> None:
    xdsl_style = (
        '"vyre.kernel"() <{sym_name = "k", workgroup_size = [#builtin.int<4>, #builtin.int<1>,'
        ' #builtin.int<1>], buffers = []}> ({\n'
        '  %0 = "vyre.lit_u32"() <{value = #builtin.int<7>}> : () -> !vyre.type<u32>\n'
        "}) : () -> ()\n"
    )
    mlir_style = (
        '"vyre.kernel"() ({\n'
        '  %0 = "vyre.lit_u32"() {value = 7 : i64} : () -> !vyre.type<u32>\n'
        '}) {buffers = [], sym_name = "k", workgroup_size = [4, 1, 1]} : () -> ()\n'
    )
    assert parse_module(xdsl_style).is_structurally_equivalent(parse_module(mlir_style))
    assert not parse_module(xdsl_style).is_structurally_equivalent(
        parse_module(mlir_style.replace("value = 7", "value = 8"))
    )


@pytest.fixture(scope="module")
def mlir_opt() -> str:
    if MLIR_OPT is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes") and os.environ.get("VYRE_REQUIRE_MLIR"):
            pytest.fail("VYRE_REQUIRE_MLIR is set and mlir-opt-16 is not installed")
        pytest.skip("mlir-opt-16 is not installed (apt-get install mlir-16-tools)")
    return MLIR_OPT


def _through_mlir(mlir_opt: str, text: str) -> str:
    run = subprocess.run(
        [mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


SCF_REDUCE = "xDSL 0.74's scf.parallel ends in scf.reduce (MLIR >= 18); MLIR 16 wants scf.yield"


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(path, marks=pytest.mark.xfail(strict=True, reason=SCF_REDUCE))
        if "scf.parallel" in path.read_text()
        else path
        for path in INPUTS
    ],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_mlir_opt_reads_and_prints_it_unchanged(mlir_opt: str, path: Path) -> None:
    for chunk in _chunks(path):
        module = parse_module(chunk)
        generic = print_module(module, generic=True)
        through = _through_mlir(mlir_opt, generic)
        assert _without_names(through.strip()) == _without_names(generic.strip())
        back: ModuleOp = parse_module(through)
        assert back.is_structurally_equivalent(module)
        assert _through_mlir(mlir_opt, print_module(back, generic=True)) == through  # a fixed point
