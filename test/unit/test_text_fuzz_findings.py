"""What the text fuzzer found at 10^5 inputs on the H100 host: each
defect as its own small case (the shrunk inputs are in test/fuzz_corpus/text/).

- an op of another dialect inside a kernel passed validation and failed in the
  lowering (now V134);
- a generic-form op of another dialect was not held to its structure (a
  `builtin.module` without a region crashed the printer);
- a generic-form vyre region without blocks printed as `{}`, which parses back
  as one empty block (now normalised at parse time);
- a generic-form literal could carry another result type than its own, which
  the custom form cannot spell (now a parse error, like an out-of-range value);
- a negative axis passed V007 and printed as an axis name;
- a buffer at binding 4294967295 left no number for the meta uniform.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.lowering.options import LoweringOptions
from vyre.lowering.wgsl import lower
from vyre.pipeline import lower_to_wgsl, prepare
from vyre.text import VyreParseError

KERNEL = (
    "vyre.kernel @k workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {{\n"
    "{body}\n}}\n"
)


def test_an_op_of_another_dialect_inside_a_kernel_is_v134() -> None:
    program = vyre.parse_ir(KERNEL.format(body="  builtin.module {\n  }"), "k.mlir")
    diagnostics = vyre.validate(program)
    assert [d.rule for d in diagnostics] == ["V134"]
    assert diagnostics[0].message == (
        "vyre IR validation: `builtin.module` inside kernel `k` is not a vyre operation. "
        "Fix: convert it to vyre ops (vyre-opt -p convert-to-vyre converts func/scf/arith/memref "
        "kernels) or move it out of the kernel."
    )


def test_vyre_opt_reports_an_arith_op_inside_a_kernel_at_its_line(tmp_path: Path) -> None:
    source = tmp_path / "mixed.mlir"
    source.write_text(KERNEL.format(body="  %0 = arith.constant 1 : i32"))
    done = subprocess.run(
        [sys.executable, "-m", "vyre.tools.vyre_opt", str(source), "-t", "wgsl"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert f"{source}:2:3: error: vyre IR validation: `arith.constant` inside kernel `k`" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "text",
    [
        '"builtin.module"():()->()',
        '"builtin.module"() ({\n  "builtin.module"() : () -> ()\n}) : () -> ()',
        '"builtin.module"() ({\n  %0 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>\n'
        '  "builtin.module"(%0) ({\n  }) : (!vyre.type<u32>) -> ()\n}) : () -> ()',
    ],
)
def test_generic_ops_of_other_dialects_are_held_to_their_structure(text: str) -> None:
    with pytest.raises(VyreParseError, match="builtin.module"):
        vyre.parse_ir(text, "g.mlir")


def test_a_literal_of_another_type_in_the_generic_form_is_a_parse_error() -> None:
    text = (
        '"builtin.module"() ({\n  "vyre.kernel"() ({\n'
        '    %0 = "vyre.lit_u32"() {value = 0 : i64} : () -> !vyre.type<bool>\n'
        '  }) {buffers = [], sym_name = "k", workgroup_size = [1, 1, 1]} : () -> ()\n}) : () -> ()'
    )
    with pytest.raises(VyreParseError, match="yields"):
        vyre.parse_ir(text, "g.mlir")


def test_empty_generic_regions_parse_as_the_custom_forms_empty_block() -> None:
    text = (
        '"builtin.module"() ({\n  "vyre.kernel"() ({\n'
        '    %0 = "vyre.lit_u32"() {value = 1 : i64} : () -> !vyre.type<u32>\n'
        '    "vyre.if"(%0) ({\n    }, {\n    }) : (!vyre.type<u32>) -> ()\n'
        '  }) {buffers = [], sym_name = "k", workgroup_size = [1, 1, 1]} : () -> ()\n}) : () -> ()'
    )
    program = vyre.parse_ir(text, "g.mlir")
    assert vyre.parse_ir(vyre.print_ir(program), "p.mlir") == program


def test_a_negative_axis_is_v007_and_prints_as_a_number() -> None:
    text = (
        '"builtin.module"() ({\n  "vyre.kernel"() ({\n'
        '    %0 = "vyre.local_id"() {axis = -1 : i64} : () -> !vyre.type<u32>\n'
        '  }) {buffers = [], sym_name = "k", workgroup_size = [1, 1, 1]} : () -> ()\n}) : () -> ()'
    )
    program = vyre.parse_ir(text, "g.mlir")
    assert [d.rule for d in vyre.validate(program)] == ["V007"]
    assert "vyre.local_id -1" in vyre.print_ir(program)


@pytest.mark.parametrize("top", [4294967294, 4294967295])
def test_buffers_at_the_last_binding_numbers_leave_the_internal_bindings_a_free_number(top: int) -> None:
    program = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", top, DataType.U32)],
        (1, 1, 1),
        [N.loop("i", E.u32(0), E.buf_len("a"), [N.store("out", E.var("i"), E.load("a", E.var("i")))])],
    )
    wgsl = lower_to_wgsl(program)
    meta = wgsl.split("var<uniform>")[0].rsplit("@binding(", 1)[1].split(")")[0]
    assert int(meta) not in (0, top)
    kernel = prepare(program).kernel
    checked = lower(kernel, LoweringOptions(loop_limit=65_535))
    assert checked.meta.binding == int(meta)
    assert checked.status_binding is not None
    assert checked.status_binding not in (0, top, int(meta))
    assert f"@binding({checked.status_binding}) var<storage, read_write> _vyre_status" in checked.wgsl
