"""The kernel track of vyre-conform: certificates for kernel ops, planted bugs
found and shrunk, bad arguments rejected."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vyre import conform, ops
from vyre.conform import InterpBackend
from vyre.conform.certificate import verify_certificate
from vyre.conform.cli import main
from vyre.conform.kernel_track import boundary_cases, random_case, shrink_case
from vyre.conform.plan import PlanError, spec_fingerprint
from vyre.kernels import laws as K
from vyre.ops import registry

FAST: dict[str, Any] = {"strength": "fast", "corpus": None, "track": "kernel"}


SLOW_ON_THE_INTERPRETER = (
    "sort.",
    "hash.fnv1a32", "hash.murmur3_32", "hash.xxhash32", "hash.md5", "hash.sha1", "hash.sha256",
    "collection.",  # contains_u32, and unique_u32 on values past its bitset, run the sort's 20 dispatches
    "compression.", "decode.inflate_stored",  # one invocation decodes a 20 KB stream (~0.3 ms a byte there)
)
"""Kernel ops whose pipelines take the interpreter about a second per
evaluation (a sort: 20 dispatches; a sequential hash: one invocation walking a
20 KB case): certified on the GPU machine, and in CI on lavapipe without the
interpreter (their test files; the lavapipe certificate's parity check runs
every case on the interpreter too, batched)."""


def _interp_ops() -> list[str]:
    return [op for op in registry.kernel_op_ids() if not op.startswith(SLOW_ON_THE_INTERPRETER)]


SHARDS = 4
"""The campaign below in this many certificates (every op in one of them), so
that parallel test workers share it."""


@pytest.mark.slow  # a certification campaign: make test-all
@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_kernel_op_is_L2k_on_the_interpreter(shard: int) -> None:
    ops = _interp_ops()[shard::SHARDS]
    cert = conform.certify(backend="interp", ops=ops, **FAST)
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    assert {o["id"] for o in cert.data["ops"]} == set(ops)
    assert all(o["level"] == "L2k" and o["category"] == "kernel" for o in cert.data["ops"])
    # every declared law was witnessed on both targets
    declared = sum(len(registry.get_kernel(op).laws) for op in ops)
    assert len(cert.data["law_results"]) == 2 * declared
    assert verify_certificate(cert) == []


def test_kernel_ops_on_wgpu_with_parity() -> None:
    wanted = ["reductions.reduce_sum_u32", "reductions.f32_sum_tree", "scan.prefix_sum_exclusive_u32"]
    cert = conform.certify(backend="wgpu", ops=wanted, **FAST)
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    for op_id in wanted:
        checks = cert.data["checks"][op_id]
        assert set(checks) == {"reference", "parity", "determinism"}
        assert all(c["verdict"] == "passed" for c in checks.values())


def test_cases_cover_the_boundaries_and_are_reproducible() -> None:
    spec = registry.get_kernel("reductions.reduce_sum_u32")
    cases = boundary_cases(spec, 7)
    lengths = {len(c[0]) for c in cases}
    assert {0, 1, 255, 256, 257, 4095, 4096, 4097} <= lengths
    patterns = [c[0] for c in cases if len(c[0]) == 257]
    assert any((p == 0xFFFF_FFFF).all() for p in patterns) and any((p == 0).all() for p in patterns)
    again = boundary_cases(spec, 7)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(cases, again))
    assert np.array_equal(random_case(spec, 7, 3)[0], random_case(spec, 7, 3)[0])
    assert not np.array_equal(random_case(spec, 7, 3)[0], random_case(spec, 8, 3)[0])


def test_shrink_cuts_a_case_to_the_failing_elements() -> None:
    spec = registry.get_kernel("reductions.reduce_max_u32")
    x = np.zeros(5000, dtype=np.uint32)
    x[3217] = 99
    small = shrink_case(spec, (x,), lambda case: bool((case[0] == 99).any()))
    assert small[0].tolist() == [99]


class TileBug(InterpBackend):
    """Loses the elements past the first 4,096 of reduce_sum (one tile only)."""

    def run_kernel(self, spec: Any, many: Sequence[Sequence[Any]]) -> list[tuple[np.ndarray, ...]]:
        out = super().run_kernel(spec, many)
        if spec.id != "reductions.reduce_sum_u32":
            return out
        fixed: list[tuple[np.ndarray, ...]] = []
        for args, outputs in zip(many, out):
            x = np.asarray(args[0], dtype=np.uint64)
            fixed.append((np.array([int(x[:4096].sum()) & 0xFFFF_FFFF], dtype=np.uint32),) if len(x) > 4096 else outputs)
        return fixed


def test_a_planted_tile_bug_is_found_on_the_boundary_and_shrunk() -> None:
    cert = conform.certify(backend=TileBug(), ops=["reductions.reduce_sum_u32"], checks=["reference", "laws"], **FAST)
    assert not cert.passed and cert.level == "none"
    reference = [f for f in cert.failures if f.check == "reference"]
    assert reference and reference[0].domain == "boundary"
    # 4,097 elements is the shortest failing length; the values shrink to a
    # single non-zero element past the first tile
    assert reference[0].detail.startswith("x: 4097 elements, all 0 but [4096] = "), reference[0].detail
    assert reference[0].fix.startswith("Fix: the kernel pipeline of `reductions.reduce_sum_u32`")
    # SplitCombine on the backend sees it too; on the CPU reference it holds
    laws = {(f.law, f.target) for f in cert.failures if f.check.startswith("law:")}
    assert ("SplitCombine", "backend") in laws
    assert not any(target == "reference" for _, target in laws)


@pytest.fixture
def argmin_with_a_false_law() -> Iterator[str]:
    """argmin declared PermutationInvariant (the index of the minimum moves with
    the minimum). The interpreter certifies it in about a third of the time of
    a prefix scan (a two-step plan against three, over the scan's whole
    array), with the same findings."""
    base = registry.get_kernel("reductions.argmin_u32")
    spec = dataclasses.replace(base, id="test.argmin_claims_permutation_invariance", laws=(K.PermutationInvariant(),))
    ops.register(spec)
    try:
        yield spec.id
    finally:
        ops.unregister(spec.id)


def test_a_false_kernel_law_is_violated_with_a_tiny_counterexample(argmin_with_a_false_law: str) -> None:
    cert = conform.certify(backend="interp", ops=[argmin_with_a_false_law], **FAST)
    assert cert.level == "L1k"  # the pipeline agrees with its reference; the law is false
    failures = {(f.check, f.target): f for f in cert.failures}
    assert set(failures) == {("law:PermutationInvariant", "reference"), ("law:PermutationInvariant", "backend")}
    for failure in failures.values():
        assert len(failure.counterexample) == 2, failure  # two distinct elements suffice
        assert failure.counterexample[0] != failure.counterexample[1]
        assert "op(reversed x)" in failure.detail


class Flaky(InterpBackend):
    """Every second evaluation of argmin returns a wrong index."""

    def __init__(self) -> None:
        self.calls = 0

    def run_kernel(self, spec: Any, many: Sequence[Sequence[Any]]) -> list[tuple[np.ndarray, ...]]:
        self.calls += 1
        out = super().run_kernel(spec, many)
        if self.calls % 2:
            return out
        return [(o[0] + np.uint32(1),) if len(a[0]) > 300 else o for a, o in zip(many, out)]


def test_nondeterminism_is_reported() -> None:
    cert = conform.certify(backend=Flaky(), ops=["reductions.argmin_u32"], checks=["determinism"], **FAST)
    [failure] = cert.failures
    assert failure.check == "determinism" and failure.violations > 0
    assert "different bytes" in failure.detail


def test_kernel_track_arguments_are_checked() -> None:
    with pytest.raises(PlanError, match="kernel track"):
        conform.certify(backend="interp", ops=["scan.*"], checks=["oracle"], **FAST)
    with pytest.raises(PlanError, match="no oracles"):
        conform.certify(backend="interp", ops=["scan.*"], oracles={"scan.prefix_sum_inclusive_u32": np.cumsum}, **FAST)
    with pytest.raises(PlanError, match="no op of the kernel track"):
        conform.certify(backend="interp", ops=["primitive.math.add"], **FAST)
    with pytest.raises(PlanError, match="no op of the integer track"):
        conform.certify(backend="interp", ops=["scan.*"], strength="fast", corpus=None)
    with pytest.raises(PlanError, match="unknown track"):
        conform.certify(backend="interp", ops=["scan.*"], strength="fast", corpus=None, track="kernels")


def test_the_registry_hash_covers_the_kernel_pipeline() -> None:
    base = registry.get_kernel("reductions.reduce_min_u32")
    before = spec_fingerprint(base.id)
    assert before["kind"] == "reduce" and before["pipelines"]
    other = registry.get_kernel("reductions.reduce_max_u32")
    swapped = dataclasses.replace(base, id="test.min_with_max_kernels", plan=other.plan)
    ops.register(swapped)
    try:
        after = spec_fingerprint(swapped.id)
    finally:
        ops.unregister(swapped.id)
    assert after["pipelines"] != before["pipelines"]


def test_cli_certifies_the_kernel_track(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "kernels.json"
    code = main(
        ["certify", "--track", "kernel", "--backend", "interp", "--strength", "fast", "--no-corpus",
         "--ops", "reductions.reduce_any,reductions.reduce_all", "--out", str(out)]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "level     L2k" in printed and "kernel track" in printed
    data = json.loads(out.read_text())
    assert data["level"] == "L2k" and [o["id"] for o in data["ops"]] == ["reductions.reduce_all", "reductions.reduce_any"]
    assert main(["verify-cert", str(out)]) == 0
