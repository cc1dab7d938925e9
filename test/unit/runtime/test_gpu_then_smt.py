"""A GPU run, then an SMT proof, in one process.

Enumerating Vulkan adapters loads every installed driver; Mesa's lavapipe
links LLVM, which on Debian links the system's (older) libz3 into the
process's global symbol scope. A z3 module imported after that bound part of
its library's C API to the older one: its models failed with "invalid
argument", or the process aborted. vyre now imports z3 before it enumerates
adapters (`vyre.runtime.adapters`). A fresh interpreter is needed: in this
one z3 may already be imported."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.usefixtures("gpu_adapter")

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from vyre import ops

    x = np.arange(10, dtype=np.uint32)
    assert int(ops.evaluate("reductions.reduce_sum_u32", [x], backend="wgpu")[0]) == 45

    import z3  # imported after the GPU's drivers
    from vyre.conform.smt import MODELS
    from vyre.conform.smt.lift import IntBits

    bits = IntBits()
    a, b = bits.variable("a"), bits.variable("b")
    term = MODELS["primitive.math.mul_sat"](bits, a, b)
    for x, y in [(3, 7), (0x10000, 0x10000), (0xFFFFFFFF, 2)]:
        solver = z3.Solver()
        solver.add(*bits.constraints, a.term == x, b.term == y)
        assert solver.check() == z3.sat
        assert solver.model().eval(term.term).as_long() == min(x * y, 0xFFFFFFFF)
    print("ok")
    """
)


def test_z3_works_after_the_gpu_drivers_loaded() -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-2000:]
