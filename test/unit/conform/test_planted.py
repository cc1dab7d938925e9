"""Planted bugs are caught, and reported with minimal counterexamples."""

from __future__ import annotations

import numpy as np
import pytest

from vyre import conform
from vyre.conform import InterpBackend

MAX = 0xFFFF_FFFF
FAST = {"strength": "fast", "witnesses": 2000, "corpus": None}


def _only(cert: conform.Certificate, op_id: str, check: str, target: str = "backend") -> conform.Failure:
    found = [f for f in cert.failures if f.op_id == op_id and f.check == check and f.target == target]
    assert len(found) == 1, [str(f) for f in cert.failures]
    return found[0]


def test_false_commutative_law_on_sub(false_commutative_sub: str) -> None:
    cert = conform.certify(backend="interp", ops=[false_commutative_sub], **FAST)
    assert cert.level == "L1" and not cert.passed  # parity-level checks pass, a law fails
    for target in ("reference", "backend"):
        failure = _only(cert, false_commutative_sub, "law:Commutative", target)
        assert failure.counterexample == (0, 1)
        assert failure.fix.startswith("Fix: ")
        assert "0xffffffff" in failure.detail and "0x1" in failure.detail
    # sub itself agrees with its reference and is deterministic
    assert not [f for f in cert.failures if f.check in ("reference", "determinism")]
    verdicts = {(r["law"], r["target"]): r["verdict"] for r in cert.data["law_results"]}
    assert verdicts == {("Commutative", "reference"): "violated", ("Commutative", "backend"): "violated"}


def test_composition_wrong_only_at_max_max(boundary_add: str) -> None:
    cert = conform.certify(backend="interp", ops=[boundary_add], **FAST)
    failure = _only(cert, boundary_add, "reference")
    assert failure.counterexample == (MAX, MAX)
    assert failure.violations == 1  # nowhere else among the structured and random inputs
    assert "0x0" in failure.detail and "0xfffffffe" in failure.detail
    # its laws hold (the bug is symmetric and away from the identity)
    assert all(r["verdict"] == "verified" for r in cert.data["law_results"])


def test_composition_ignoring_bit_4_of_the_shift_amount(shift_ignoring_bit4: str) -> None:
    cert = conform.certify(backend="interp", ops=[shift_ignoring_bit4], **FAST)
    failure = _only(cert, shift_ignoring_bit4, "reference")
    assert failure.counterexample == (1, 16)
    assert failure.raw_counterexample[1] & 16


class FlakyInterp(InterpBackend):
    """Every second evaluation flips bit 0 of the results of inputs with bit 4 set."""

    def __init__(self) -> None:
        self.evaluations = 0

    def run(self, program, words, dispatch):
        out = super().run(program, words, dispatch)
        if "out" in out:
            self.evaluations += 1
            if self.evaluations % 2 == 0:
                flip = ((words["x0"] >> 4) & 1).astype(np.uint32)
                out = {**out, "out": out["out"] ^ flip}
        return out


def test_nondeterministic_backend(good_xor: str) -> None:
    cert = conform.certify(backend=FlakyInterp(), ops=[good_xor], checks=["determinism", "reference"], **FAST)
    failure = _only(cert, good_xor, "determinism")
    assert failure.counterexample == (16, 0)
    assert "different results" in failure.detail
    assert cert.level == "none"
    # the same op on the honest interpreter passes
    honest = conform.certify(backend="interp", ops=[good_xor], checks=["determinism", "reference"], **FAST)
    assert honest.passed and honest.level == "L1"


def test_correct_op_reaches_l2(good_xor: str) -> None:
    cert = conform.certify(backend="interp", ops=[good_xor], **FAST)
    assert cert.passed and cert.level == "L2"
    results = cert.data["law_results"]
    assert len(results) == 6 and all(r["verdict"] == "verified" for r in results)
    commutative = next(r for r in results if r["law"] == "Commutative" and r["target"] == "backend")
    assert commutative["domains"]["u8"] == {"cases": 65536, "violations": 0}
    assert commutative["domains"]["witnessed"]["cases"] >= 2000


def test_planted_bugs_on_wgpu(gpu_adapter, false_commutative_sub: str, boundary_add: str) -> None:
    cert = conform.certify(
        backend="wgpu", ops=[false_commutative_sub, boundary_add], **FAST
    )
    assert _only(cert, false_commutative_sub, "law:Commutative").counterexample == (0, 1)
    assert _only(cert, boundary_add, "reference").counterexample == (MAX, MAX)
    # wgpu agrees with the reference interpreter on both (the bug is in the composition)
    assert not [f for f in cert.failures if f.check == "parity"]
    assert cert.data["checks"][boundary_add]["parity"]["verdict"] == "passed"
    assert cert.data["backend"]["id"] == "wgpu" and cert.data["backend"]["adapter"]


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_backend_law_kernel_counts_match_numpy(request, backend: str, false_commutative_sub: str) -> None:
    """The on-device violation count of Commutative on sub equals a plain numpy count."""
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    cert = conform.certify(
        backend=backend, ops=[false_commutative_sub], checks=["laws"], **FAST
    )
    result = next(r for r in cert.data["law_results"] if r["target"] == "backend")
    a, b = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    expected = int(np.count_nonzero(((a - b) & MAX) != ((b - a) & MAX)))
    assert result["domains"]["u8"] == {"cases": 65536, "violations": expected}
