"""L4: compositional proofs (laws inherited from the callees' laws) and
performance baselines (the lowered kernel vs hand-written WGSL)."""

from __future__ import annotations

import numpy as np
import pytest

from vyre import conform
from vyre.conform.compose import analyse
from vyre.conform.perf import HAND_WGSL, PERF_THRESHOLD, measure, register_baseline
from vyre.ir import Expr as E
from vyre.ops import registry

MIN, MAX_OP = "primitive.math.min", "primitive.math.max"


def test_a_composition_inherits_commutativity_from_its_callees(register) -> None:
    """min(a,b) + max(a,b) is commutative for any commutative min and max."""
    op_id = register("spread", 2, lambda a, b: (a.astype(np.uint64) + b).astype(np.uint32),
                     lambda a, b: E.add(E.call(MIN, [a, b]), E.call(MAX_OP, [a, b])))
    found = analyse(registry.get_scalar(op_id), 2.0)
    assert "Commutative" in found.inherited
    assert found.callees == (MIN, MAX_OP)


def test_a_law_the_structure_does_not_give_is_not_inherited(register) -> None:
    """min(a,b) - a is not commutative; uninterpreted min/max give a model."""
    op_id = register("skew", 2, lambda a, b: (np.minimum(a, b).astype(np.int64) - a).astype(np.uint32),
                     lambda a, b: E.sub(E.call(MIN, [a, b]), a))
    found = analyse(registry.get_scalar(op_id), 2.0)
    assert "Commutative" in found.not_implied + found.undecided
    assert "Commutative" not in found.inherited


def test_primitive_compositions() -> None:
    """lcm = (a / gcd(a, b)) * b is 0 at a = 0 or b = 0 whatever gcd is (Absorbing(0));
    with more time z3 also derives Idempotent and Identity(1) from gcd's laws."""
    lcm = analyse(registry.get_scalar("primitive.math.lcm"), 1.0)
    assert "Absorbing(0x0)" in lcm.inherited
    assert set(lcm.inherited) | set(lcm.undecided) | set(lcm.not_implied) == {
        "Commutative", "Idempotent", "Identity(0x1)", "Absorbing(0x0)"}


def test_every_integer_primitive_has_a_correct_hand_written_baseline() -> None:
    """Every baseline is checked against the op's reference inside `measure`."""
    from vyre.conform.smt import MODELS

    assert set(MODELS) <= set(HAND_WGSL)
    for op_id in ("primitive.math.gcd", "primitive.math.mul_sat", "primitive.bitwise.insert_bits"):
        found = measure(registry.get_scalar(op_id), n=4096, reps=2, runs=2)
        assert found.ratio > 0 and found.device


def test_a_slow_lowering_fails_its_baseline(register) -> None:
    """popcount(x) * 48 composed as 48 x 32 bit tests summed in a balanced tree
    (which LLVM does not see through) against `countOneBits(x0) * 48u`."""
    k = 48

    def slow(a):
        terms = []
        for r in range(k):
            rot = E.bitor(E.shl(a, E.u32(r)), E.shr(a, E.u32((32 - r) & 31))) if r else a
            terms += [E.bitand(E.shr(rot, E.u32(i)), E.u32(1)) for i in range(32)]
        while len(terms) > 1:
            terms = [E.add(terms[i], terms[i + 1]) if i + 1 < len(terms) else terms[i] for i in range(0, len(terms), 2)]
        return terms[0]

    op_id = register("slow_popcount", 1, lambda a: (np.bitwise_count(a).astype(np.uint32) * k).astype(np.uint32), slow)
    register_baseline(op_id, f"countOneBits(x0) * {k}u")
    found = measure(registry.get_scalar(op_id), n=1 << 16, reps=5, runs=3)
    assert found.ratio < PERF_THRESHOLD, found


def test_a_perf_obligation_below_the_threshold_fails_the_certificate(monkeypatch) -> None:
    from vyre.conform import perf as perf_mod

    op_id = "primitive.bitwise.xor"
    monkeypatch.setattr(perf_mod, "measure", lambda spec, **kw: perf_mod.Measurement(
        ratio=0.5, vyre_s=2e-3, hand_s=1e-3, n=kw["n"], device="planted"))
    cert = conform.certify(backend="wgpu", ops=[op_id], strength="fast", witnesses=100, corpus=None,
                           level="L4", checks=["reference", "determinism"])
    perf = [o for o in cert.obligations if o.check == f"perf:{op_id}"]
    assert len(perf) == 1 and not perf[0].holds and "ratio" in perf[0].detail
    ratio = float(perf[0].detail.split()[1])
    assert ratio < PERF_THRESHOLD
    assert any(f.check == f"perf:{op_id}" and f.fix.startswith("Fix: ") for f in cert.failures)
    assert cert.level != "L4"


def test_level_l4_on_interp_records_compose_and_names_the_missing_baselines() -> None:
    cert = conform.certify(backend="interp", ops=["primitive.math.clamp"], strength="fast", witnesses=100,
                           corpus=None, level="L4", checks=["reference", "determinism"])
    compose = [o for o in cert.obligations if o.check == "compose:primitive.math.clamp"]
    assert len(compose) == 1 and compose[0].strength == "proved" and "primitive.math.min" in compose[0].detail
    assert any(e["check"] == "perf" and "runs no WGSL" in e["reason"] for e in cert.data["independence"])


@pytest.fixture(autouse=True)
def _forget_baselines():
    from vyre.conform import perf

    yield
    perf._USER.clear()


def test_a_perf_obligation_fails_only_when_every_repetition_is_under_the_bound() -> None:
    from vyre.conform.perf import Measurement
    from vyre.conform.results import PerfSummary

    def found(*ratios: float) -> Measurement:
        return Measurement(sorted(ratios)[len(ratios) // 2], 1e-3, 1e-3, 64, "planted", ratios)

    assert found(0.5, 0.6, 0.7).below(PERF_THRESHOLD)
    assert not found(0.3, 0.5, 0.81).below(PERF_THRESHOLD)  # noise can slow a repetition, not speed one up
    assert (found(0.3, 0.5, 0.81).low, found(0.3, 0.5, 0.81).high) == (0.3, 0.81)
    summary = PerfSummary(0.5, "planted", 64, "detail", 0.3, 0.81)
    assert PerfSummary.from_json(summary.to_json()) == summary
    old = {"ratio": 0.5, "device": "planted", "n": 64, "detail": "detail"}  # a record made before the spread
    assert PerfSummary.from_json(old).to_json() == old


@pytest.mark.parametrize("busy_loops", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_the_level_does_not_flip_with_load(busy_loops: int, gpu_adapter) -> None:
    """The same certify gave L4 on an idle machine and L3 with three busy-loop
    processes on two cores (perf ratios 0.26-0.67 from the medians of three
    submissions). Interleaved repetitions, each the fastest of several
    submissions, and failing only when every repetition is under 0.8: L4 under
    that load too, within 280 s; each perf obligation records its spread and
    the adapter. (One busy loop beside the test run's other work; make
    test-all also runs the three, which burn about 12 s of CPU.)"""
    import subprocess
    import sys
    import time

    from vyre.runtime.wgpu_device import gpu_device

    ops = ["primitive.math.clamp", "primitive.math.min", "primitive.math.max"]
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy_loops)]
    try:
        began = time.monotonic()
        cert = conform.certify(backend="wgpu", ops=ops, strength="fast", level="L4")
        seconds = time.monotonic() - began
    finally:
        for process in busy:
            process.kill()
            process.wait()
    perf = [o for o in cert.obligations if o.check.startswith("perf:")]
    assert cert.level == "L4", [o.detail for o in perf]
    assert seconds < 280
    assert sorted(o.check for o in perf) == sorted(f"perf:{op}" for op in ops)
    for obligation in perf:
        assert obligation.holds and " interleaved repetitions, spread " in obligation.detail
        assert f"on {gpu_device().adapter_name}" in obligation.detail  # the adapter, its type and driver
