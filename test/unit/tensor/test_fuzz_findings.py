"""Defects the tensor and tensor-text fuzzers found, each fixed (their inputs
are in test/fuzz_corpus/tensor*/ too)."""

from __future__ import annotations

import numpy as np
import pytest

from vyre import tensor as vt
from vyre.dialects.symbolic import SymParseError, parse_sym
from vyre.ir import DataType
from tensor_text_fuzz import run_vyre_opt


def test_a_reshape_with_minus_one_beside_a_static_zero_is_a_value_error() -> None:
    """numpy refuses `reshape(0, -1)` (the -1 is undefined); vt.reshape raised
    ZeroDivisionError from the symbolic division."""
    g = vt.Graph("g")
    x = g.input("x", DataType.F32, (0, 3))
    with pytest.raises(ValueError, match=r"vt.reshape: cannot reshape shape \(0, 3\) to a shape holding -1"):
        vt.reshape(x, (0, -1))
    y = g.input("y", DataType.F32, ("n", 0))
    with pytest.raises(ValueError, match="beside a dim of size 0"):
        vt.reshape(y, (2, 0, -1))


def test_a_reshape_with_minus_one_beside_a_dynamic_zero_is_a_value_error_at_run() -> None:
    g = vt.Graph("g")
    x = g.input("x", DataType.F32, ("n", 3))
    g.output("y", vt.neg(vt.reshape(x, ("n", -1))))
    ones = np.ones((2, 3), dtype=np.float32)
    np.testing.assert_array_equal(vt.run(g, {"x": ones}, backend="interp")["y"], -ones)
    with pytest.raises(ValueError, match=r"vt.run: the size .* divides by zero for these arguments \(n = 0\)"):
        vt.run(g, {"x": np.ones((0, 3), dtype=np.float32)}, backend="interp")


@pytest.mark.parametrize("text", ["4 // 0", "4 % 0", "n // 0", "(n - n) // 0", "n % (2 - 2)"])
def test_a_size_divided_by_a_constant_zero_is_a_parse_error(text: str) -> None:
    """`4 // 0` in a tensor type raised ZeroDivisionError out of vyre-opt."""
    with pytest.raises(SymParseError, match="by zero"):
        parse_sym(text)
    source = f'vtensor.graph @g(%a : !vtensor.tensor<f32["{text}"]>) {{\n  vtensor.output "a" = %a\n}}\n'
    code, _, err = run_vyre_opt(source, [])
    assert code == 1 and err.startswith("<stdin>:1:43: error: bad symbolic size")


def test_a_huge_integer_in_a_layout_is_a_located_error() -> None:
    """An integer token of a tensor type (an offset of 400 digits) skipped the
    size parser's limits when read and failed later, unlocated."""
    big = "9" * 400
    source = (
        f"vtensor.graph @g(%a : !vtensor.tensor<f32[3, 4]>) {{\n"
        f"  %i = vtensor.index %a [1] : !vtensor.tensor<f32[4] offset {big}>\n"
        f'  vtensor.output "i" = %i\n}}\n'
    )
    code, _, err = run_vyre_opt(source, [])
    assert code == 1 and err.startswith("<stdin>:2:61: error: bad symbolic size")
