"""Approximate float ops (L1a): native builtins held to declared error bounds,
never rewritten by float-strict, never in a strict certificate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vyre
from vyre.conform import approximate as ap
from vyre.conform.approximate import APPROXIMATE, check_approximate, ulp_distance
from vyre.conform.cli import main
from vyre.ir import BufferDecl, DataType, Node as N, Program
from vyre.ir import Expr as E
from vyre.pipeline import prepare

RANGES = ((0x3F00_0000, 1 << 16), (0xC040_0000, 1 << 15), (0x4200_0000, 1 << 15))


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
@pytest.mark.parametrize("op", sorted(APPROXIMATE))
def test_each_approximate_op_is_within_its_bound(op: str, backend: str, gpu_adapter: object) -> None:
    report = check_approximate(op, backend, ranges=RANGES)
    assert report.passed, report.first
    assert report.checked > 0


def test_a_violation_is_found_and_named(monkeypatch: pytest.MonkeyPatch, gpu_adapter: object) -> None:
    real = ap.oracle.approximate

    def off_by_many_ulps(op: str, x: np.ndarray) -> np.ndarray:
        exact = real(op, x)
        return np.where(x == np.uint32(0x3F00_0040), exact + np.uint32(64), exact).astype(np.uint32)

    monkeypatch.setattr(ap.oracle, "approximate", off_by_many_ulps)
    report = check_approximate("fsqrt_approx", "wgpu", ranges=((0x3F00_0000, 256),))
    assert report.violations == 1 and report.first[0][0] == 0x3F00_0040


def test_ulp_distance_orders_signed_values() -> None:
    one, below = np.uint32(0x3F80_0000), np.uint32(0x3F7F_FFFF)
    assert ulp_distance(np.array([one]), np.array([below])).tolist() == [1]
    assert ulp_distance(np.array([0x8000_0001], np.uint32), np.array([1], np.uint32)).tolist() == [2]


def _program(value: E) -> Program:
    return Program(
        [BufferDecl.read("a", 0, DataType.F32), BufferDecl.read_write("o", 1, DataType.F32)],
        (64, 1, 1),
        [N.store("o", E.gid_x(), value)],
    )


def test_float_strict_keeps_approximate_ops_and_rewrites_the_rest() -> None:
    program = _program(E.fadd(E.fsin_approx(E.load("a", E.gid_x())), E.f32(1.0)))
    strict = prepare(program).strict_module
    names = {op.name for op in strict.walk()}
    assert "vyre.fsin_approx" in names and "vyre.fadd" not in names
    wgsl = vyre.lower_to_wgsl(program)
    assert "sin(bitcast<f32>(" in wgsl and wgsl.count("f32") == 1  # only the builtin's operand


def test_approximate_ops_take_f32_only() -> None:
    program = Program(
        [BufferDecl.read("a", 0, DataType.F16), BufferDecl.read_write("o", 1, DataType.F16)],
        (64, 1, 1),
        [N.store("o", E.gid_x(), E.fcos_approx(E.load("a", E.gid_x())))],
    )
    assert [d.rule for d in vyre.validate(program)] == ["V143"]


def test_cli_reports_l1a(capsys: pytest.CaptureFixture[str], gpu_adapter: object) -> None:
    assert main(["approximate", "--ops", "fexp2_approx", "--range", "0x40000000:0x4000"]) == 0
    out = capsys.readouterr().out
    assert "| fexp2_approx | 3 + 2·|x| ulp | 16,384 |" in out and "level L1a" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--range", "abc"], "expected FIRST:COUNT"),
        (["--range", "0:x"], "expected integers"),
        (["--range", "0:-4"], "must hold at least one pattern"),
        (["--range", "0xffffffff:2"], "must hold at least one pattern"),
        (["--ops", "nope", "--range", "0:4"], "unknown approximate op 'nope'"),
    ],
)
def test_cli_rejects_bad_arguments(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(["approximate", "--backend", "interp", *argv]))
    assert exit_info.value.code == 2
    assert needle in capsys.readouterr().err


def test_cli_fails_when_no_input_is_judged(capsys: pytest.CaptureFixture[str]) -> None:
    # NaN patterns lie outside every domain: nothing judged is not a pass.
    assert main(["approximate", "--backend", "interp", "--ops", "fsqrt_approx", "--range", "0xff800001:64"]) == 1
    captured = capsys.readouterr()
    assert "nothing was judged" in captured.err
    assert "L1a" not in captured.out


def test_check_approximate_rejects_bad_ranges_and_backends() -> None:
    with pytest.raises(ValueError, match="range"):
        check_approximate("fsin_approx", "interp", ranges=((0, 0),))
    with pytest.raises(ValueError, match="backend"):
        check_approximate("fsin_approx", "cuda", ranges=((0, 4),))


def test_one_name_per_approximate_op() -> None:
    """The IR's mnemonic is the op's one name: the IR, docs/floats.md, the
    campaign table and vyre-conform use it; `vyre.` in front is accepted, the
    bare short name gets a suggestion."""
    assert sorted(APPROXIMATE) == sorted(op.mnemonic() for op in APPROXIMATE.values())
    assert sorted(APPROXIMATE) == ["fcos_approx", "fexp2_approx", "flog2_approx", "fsin_approx", "fsqrt_approx"]
    assert ap.approximate_op("vyre.fsqrt_approx") == ap.approximate_op("fsqrt_approx") == "fsqrt_approx"
    with pytest.raises(ValueError, match="did you mean `fsqrt_approx`"):
        ap.approximate_op("sqrt_approx")
    floats_md = (Path(__file__).resolve().parents[3] / "docs" / "floats.md").read_text().replace("\\|", "|")
    for name, op in APPROXIMATE.items():
        assert f"`{name}`" in floats_md
        assert f"| {ap.describe(op.TOLERANCE)} |" in floats_md, name  # the bound as the page writes it


def test_tolerances_read_as_the_docs_write_them() -> None:
    assert [ap.describe(APPROXIMATE[n].TOLERANCE) for n in ("fsqrt_approx", "fexp2_approx", "flog2_approx", "fsin_approx")] == [
        "3 ulp", "3 + 2·|x| ulp", "3 ulp, or 2⁻²¹ absolute", "2⁻¹¹ absolute"
    ]


def test_cli_takes_the_ir_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["approximate", "--backend", "interp", "--ops", "vyre.fsin_approx,fcos_approx", "--range", "0x3f000000:64"]) == 0
    out = capsys.readouterr().out
    assert "| fsin_approx | 2⁻¹¹ absolute | 64 |" in out and "| fcos_approx | 2⁻¹¹ absolute | 64 |" in out
    assert "0 ulp" not in out
    with pytest.raises(SystemExit):
        raise SystemExit(main(["approximate", "--backend", "interp", "--ops", "sin_approx", "--range", "0:4"]))
    assert "unknown approximate op 'sin_approx'; did you mean `fsin_approx`?" in capsys.readouterr().err
