"""Strict float laws in z3's floating-point theory (vyre.conform.smt.floats)."""

from __future__ import annotations

import numpy as np
import pytest

from vyre.conform.smt.floats import FLOAT_LAWS, prove_float_law

TRUE_LAWS = [n for n in FLOAT_LAWS if n != "fadd Associative"]


@pytest.mark.parametrize("fmt", ["f16", "bf16", "f32"])
def test_true_float_laws_are_proved(fmt: str) -> None:
    for name in TRUE_LAWS:
        assert prove_float_law(name, fmt, 60).status == "proved", (fmt, name)


@pytest.mark.parametrize("fmt, dtype", [("f16", np.float16)])  # f32: 2-25 s here
def test_false_associativity_has_a_counterexample_numpy_confirms(fmt: str, dtype) -> None:
    found = prove_float_law("fadd Associative", fmt, 60)
    assert found.status == "counterexample"
    bits = np.uint16 if fmt == "f16" else np.uint32
    a, b = (np.array([v], dtype=bits).view(dtype) for v in found.values)
    with np.errstate(all="ignore"):
        left, right = (a + b) + b, a + (b + b)
    assert not (np.isnan(left) and np.isnan(right))
    assert left.view(bits)[0] != right.view(bits)[0]
