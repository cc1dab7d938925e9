"""vyre as an xDSL plugin (the `xdsl.universe` entry point): plain `xdsl-opt`
knows the vyre dialect, vyre's passes and `-t vyre-wgsl`, and nothing of
xDSL's own is shadowed or broken (run as subprocesses, as a user would)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

XDSL_OPT = Path(sys.executable).parent / "xdsl-opt"

KERNEL = """builtin.module {
  vyre.kernel @double workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
    %i = vyre.invocation_id x
    %x = vyre.load @a[%i] : u32
    %y = vyre.call "primitive.math.add"(%x, %x) : u32
    vyre.store @out[%i] = %y
  }
}
"""

ARITH = """func.func @f(%a: i32) -> i32 {
  %z = arith.constant 0 : i32
  %b = arith.addi %a, %z : i32
  func.return %b : i32
}
"""

GPU_MODULE = """"gpu.module"() <{sym_name = "m"}> ({
  "gpu.func"() <{function_type = () -> ()}> ({
    %0 = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
    "gpu.return"() : () -> ()
  }) {sym_name = "k", gpu.kernel} : () -> ()
}) : () -> ()
"""


def xdsl_opt(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(XDSL_OPT), *args], input=stdin, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module", autouse=True)
def _installed() -> None:
    if not XDSL_OPT.exists():
        pytest.fail(f"xdsl-opt is not installed next to {sys.executable}")


def test_the_universe_registers_only_names_xdsl_does_not_use() -> None:
    from xdsl.universe import Universe

    from vyre.universe import VYRE_UNIVERSE

    assert set(VYRE_UNIVERSE.all_dialects) == {"vyre", "vtensor"}
    assert set(VYRE_UNIVERSE.all_passes) == {"inline-calls", "float-strict", "convert-to-vyre", "lower-tensors"}
    assert set(VYRE_UNIVERSE.all_targets) == {"vyre-wgsl"}
    target = VYRE_UNIVERSE.all_targets["vyre-wgsl"]()
    assert target.name == "vyre-wgsl"  # the key must equal Target.name
    multiverse = Universe.get_multiverse()  # raises on any clash of names
    assert multiverse.all_passes["inline-calls"] is VYRE_UNIVERSE.all_passes["inline-calls"]
    assert "wgsl" in multiverse.all_targets and "canonicalize" in multiverse.all_passes


def test_xdsl_opt_inlines_and_lowers_a_vyre_kernel() -> None:
    run = xdsl_opt("-p", "inline-calls", "-t", "vyre-wgsl", stdin=KERNEL)
    assert run.returncode == 0, run.stderr
    assert "@compute @workgroup_size(64, 1, 1)" in run.stdout
    assert "vyre_store_out(invocation_id.x, x + x);" in run.stdout


def test_xdsl_opt_round_trips_vyre_and_runs_vyre_passes() -> None:
    inlined = xdsl_opt("-p", "inline-calls", stdin=KERNEL)
    assert inlined.returncode == 0, inlined.stderr
    assert "%y = vyre.binop add %x, %x" in inlined.stdout and "vyre.call" not in inlined.stdout


def test_xdsl_opt_keeps_its_own_passes_and_targets() -> None:
    canonical = xdsl_opt("-p", "canonicalize,cse,dce", stdin=ARITH)
    assert canonical.returncode == 0, canonical.stderr
    assert "func.return %a : i32" in canonical.stdout
    own_wgsl = xdsl_opt("-t", "wgsl", stdin=GPU_MODULE)
    assert own_wgsl.returncode == 0, own_wgsl.stderr
    assert "fn k(@builtin(global_invocation_id)" in own_wgsl.stdout  # xDSL's printer, not vyre's
    version = xdsl_opt("--version", stdin="")
    assert version.returncode == 0 and version.stdout.startswith("xdsl-opt built from xdsl version")


def test_xdsl_opt_converts_standard_dialects_to_vyre() -> None:
    source = """func.func @copy(%src: memref<?xi32>, %dst: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %dst, %c0 : memref<?xi32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = memref.load %src[%i] : memref<?xi32>
    memref.store %v, %dst[%i] : memref<?xi32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
"""
    run = xdsl_opt("-p", "convert-to-vyre", "-t", "vyre-wgsl", stdin=source)
    assert run.returncode == 0, run.stderr
    assert "var<storage, read> src: array<u32>;" in run.stdout
    assert "var<storage, read_write> dst: array<u32>;" in run.stdout


STORE_NOWHERE = """builtin.module {
  vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
    %0 = vyre.lit_u32 1
    vyre.store @nowhere[%0] = %0
  }
}
"""

UNKNOWN_OP = KERNEL.replace("primitive.math.add", "primitive.math.nope")

LOAD_OUTSIDE = """func.func @f(%a: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xi32>
  memref.store %v, %a[%c0] : memref<?xi32>
  func.return
}
"""


def _marked(text: str, op: str, message: str) -> bool:
    """The diagnostic prints the module with `message` right under the op."""
    lines = text.splitlines()
    return any(op in line and message in "".join(lines[i + 1 : i + 3]) for i, line in enumerate(lines))


@pytest.mark.parametrize(
    ("args", "source", "op", "message"),
    [
        (["-t", "vyre-wgsl"], STORE_NOWHERE, '"vyre.store"', "store to unknown buffer `nowhere`"),
        (["-p", "inline-calls"], STORE_NOWHERE, '"vyre.store"', "store to unknown buffer `nowhere`"),
        (["-p", "float-strict"], STORE_NOWHERE, '"vyre.store"', "store to unknown buffer `nowhere`"),
        (["-p", "inline-calls"], UNKNOWN_OP, '"vyre.call"', "unknown op `primitive.math.nope`"),
        (["-p", "convert-to-vyre"], LOAD_OUTSIDE, '"memref.load"', "'memref.load' outside the scf.parallel"),
    ],
)
def test_the_plugin_reports_vyre_errors_as_xdsl_diagnostics(
    args: list[str], source: str, op: str, message: str
) -> None:
    failed = xdsl_opt(*args, stdin=source)
    assert failed.returncode != 0 and failed.stdout == ""
    last = failed.stderr[failed.stderr.index("xdsl.utils.exceptions.DiagnosticException: error: "):]
    assert message in last.splitlines()[0]
    assert "During handling" not in failed.stderr  # one error, not a chain
    assert _marked(last, op, message), last
    listed = xdsl_opt(*args, "--verify-diagnostics", stdin=source)  # xDSL's way to print them plainly
    assert listed.returncode == 0 and "Traceback" not in listed.stderr + listed.stdout
    assert listed.stdout.startswith("error: ") and message in listed.stdout.splitlines()[0]
    assert _marked(listed.stdout, op, message), listed.stdout


def test_a_module_without_a_kernel_is_a_diagnostic() -> None:
    run = xdsl_opt("-t", "vyre-wgsl", "--verify-diagnostics", stdin=ARITH)
    assert run.returncode == 0 and run.stdout.startswith("error: -t vyre-wgsl: the module holds no vyre.kernel")
