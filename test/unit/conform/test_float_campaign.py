"""Float campaigns (vyre.conform.float_campaign) on the GPU device (lavapipe in
CI): whole input spaces of lowered strict-float kernels against the
interpreter's exact oracle, mismatch detection, checkpoints and shards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vyre.conform import float_campaign as fc
from vyre.conform.float_campaign import Campaign, run_campaign, summary


@pytest.mark.parametrize(
    ("op", "fmt"),
    [("sqrt", "f16"), ("round", "bf16"), ("to_f32", "f16"), ("to_i32", "bf16"), ("is_nan", "f16")],
)
def test_exhaustive_16_bit_unary_campaigns_find_no_mismatch(op: str, fmt: str, gpu_adapter: object) -> None:
    (result,) = run_campaign(Campaign(op, fmt), "wgpu", jobs=1)
    assert (result.length, result.mismatches) == (65_536, 0), result.first


@pytest.mark.parametrize("op", ["add", "mul", "div", "fma", "lt", "max"])
def test_adversarial_f32_campaigns_find_no_mismatch(op: str, gpu_adapter: object) -> None:
    campaign = Campaign(op, "f32", "adversarial", count=40_000, seed=3)
    results = list(run_campaign(campaign, "wgpu", jobs=1))
    assert sum(r.length for r in results) == 40_000
    assert [r.first for r in results if r.mismatches] == []


def test_a_wrong_result_is_found_and_named(monkeypatch: pytest.MonkeyPatch, gpu_adapter: object) -> None:
    """Planted: the 'oracle' disagrees with the GPU on two inputs; the sums differ,
    the chunk is read back and exactly those inputs are reported."""
    real = fc.oracle_words

    def planted(campaign: Campaign, operands: list[np.ndarray]) -> np.ndarray:
        words = real(campaign, operands).copy()
        words[(operands[0] == 0x3C00) | (operands[0] == 0x0001)] ^= np.uint32(1)
        return words

    monkeypatch.setattr(fc, "oracle_words", planted)
    (result,) = run_campaign(Campaign("sqrt", "f16"), "wgpu", jobs=1)
    assert result.mismatches == 2
    assert sorted(row[0] for row in result.first) == [0x0001, 0x3C00]
    assert all(row[1] == row[2] ^ 1 for row in result.first)  # got, want


def test_checkpoints_resume_and_shards_partition(tmp_path: Path, gpu_adapter: object) -> None:
    campaign = Campaign("add", "f32", "adversarial", count=3 * fc.CHUNK // 4096, seed=5)
    checkpoint = tmp_path / "floats.jsonl"
    monkey_chunk = fc.CHUNK
    try:
        fc.CHUNK = 4096  # three chunks
        first = list(run_campaign(campaign, "wgpu", checkpoint=checkpoint, shard=(0, 2), jobs=1))
        second = list(run_campaign(campaign, "wgpu", checkpoint=checkpoint, shard=(1, 2), jobs=1))
        again = list(run_campaign(campaign, "wgpu", checkpoint=checkpoint, jobs=1))
    finally:
        fc.CHUNK = monkey_chunk
    assert [r.start for r in first] == [0, 8192] and [r.start for r in second] == [4096]
    assert again == []  # everything is in the checkpoint
    checkpoint.write_text(checkpoint.read_text() + '{"campaign": "cut')  # an interrupted write
    totals = summary(checkpoint)[campaign.name]
    assert (totals["inputs"], totals["mismatches"], totals["chunks"]) == (campaign.size, 0, 3)


def test_campaign_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown campaign op"):
        Campaign("cbrt", "f32")
    with pytest.raises(ValueError, match="not exhaustible"):
        Campaign("add", "f32")
    with pytest.raises(ValueError, match="adversarial space is for f32"):
        Campaign("add", "f16", "adversarial", count=10)


def test_the_float_track_certifies_l2f_and_never_mixes_tracks(gpu_adapter: object) -> None:
    from vyre import conform

    cert = conform.certify(
        backend="wgpu", ops=["primitive.float.add", "primitive.float.neg", "primitive.math.add"],
        strength="fast", track="float", corpus=None,
    )
    assert cert.level == "L2f" and cert.failures == []
    assert [op["id"] for op in cert.data["ops"]] == ["primitive.float.add", "primitive.float.neg"]
    integer = conform.certify(
        backend="interp", ops=["primitive.float.add", "primitive.math.add"], strength="fast", corpus=None,
    )
    assert integer.level == "L2" and [op["id"] for op in integer.data["ops"]] == ["primitive.math.add"]
    with pytest.raises(conform.PlanError, match="no op of the float track"):
        conform.certify(backend="interp", ops=["primitive.math.add"], track="float", corpus=None)
