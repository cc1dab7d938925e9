"""Float laws over every input: the law campaign (`float_law_campaign`) on
slices of the input space, and what a float-track certificate makes of float
campaigns (`campaign_evidence`, `certify(campaigns=...)`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vyre import conform
from vyre.conform import float_law_campaign as flc
from vyre.conform.campaign_evidence import campaign_evidence
from vyre.conform.float_campaign import Campaign, oracle_words, run_chunk
from vyre.conform.float_checkpoint import read_chunks
from vyre.conform.kinds import ObligationStrength
from vyre.ops import float_laws as FL

SIZE = 1 << 32
SIGN = 0x8000_0000
SLICES = [0x0000_0000, 0x8000_0000, 0x3F7F_F800, 0xBF7F_F800, 0x7F7F_F800, 0xFF7F_F800, 0x7FFF_F800]
"""Starts of 4,096-input slices: both zeros, the neighbours of ±1, of the largest
finite values and infinities, and the NaNs at the top of the patterns."""


@pytest.mark.parametrize("op", ["exp", "log2", "sin", "cos", "acos", "atan"])
def test_the_laws_hold_on_slices_of_every_function(op: str) -> None:
    for start in SLICES:
        result = flc.law_chunk(op, start, 4096)
        assert (result.campaign, result.mismatches, result.first) == (f"f32.{op}.laws", 0, []), hex(start)


def test_a_broken_result_is_a_violation_of_the_law_it_breaks(monkeypatch: pytest.MonkeyPatch) -> None:
    """exp made to return 2.0 at 1.0 (e = 2.718...): exp of the float below 1
    now exceeds exp(1), so monotonicity breaks between them, once; the law
    campaign names that input and the law's index."""
    broken = 0x3F80_0000

    def oracle(campaign: Campaign, operands: list[np.ndarray]) -> np.ndarray:
        out = oracle_words(campaign, operands)
        return np.where(operands[0] == broken, np.uint32(0x4000_0000), out).astype(np.uint32)

    monkeypatch.setattr(flc, "oracle_words", oracle)
    result = flc.law_chunk("exp", broken - 2048, 4096)
    monotone = next(i for i, law in flc.checked_laws("exp") if isinstance(law, FL.FloatMonotone))
    assert result.mismatches == 1
    assert result.first[0][:2] == [broken - 1, monotone] and len(result.first) == 1


def test_every_violated_law_is_named_in_a_chunk() -> None:
    rows = flc._first_rows([[[1, 0, 9]] * 9, [], [[5, 2, 9]]])  # pyright: ignore[reportPrivateUsage]
    assert len(rows) == 8 and rows[:2] == [[1, 0, 9], [5, 2, 9]]


def test_the_law_campaign_checkpoints_and_resumes(tmp_path: Path) -> None:
    checkpoint = tmp_path / "floats.jsonl"
    chunks = [(0x3F80_0000, 4096), (0xBF80_0000, 4096)]
    first = list(flc.run_law_campaign("atan", checkpoint=checkpoint, jobs=1, chunks=chunks))
    assert [(r.start, r.mismatches) for r in first] == [(0x3F80_0000, 0), (0xBF80_0000, 0)]
    assert list(flc.run_law_campaign("atan", checkpoint=checkpoint, jobs=1, chunks=chunks)) == []
    assert [r["campaign"] for r in read_chunks(checkpoint)] == ["f32.atan.laws"] * 2
    with pytest.raises(ValueError, match="unary primitive.float op"):
        list(flc.run_law_campaign("atan2", chunks=chunks))


def test_campaign_chunks_record_their_device() -> None:
    record = run_chunk(Campaign("neg", "f16"), 0, 4096, "interp").to_json()
    assert record["device"] == "interp" and record["mismatches"] == 0


# ---------------------------------------------------------------------------
# Evidence in a certificate
# ---------------------------------------------------------------------------


def _record(campaign: str, start: int, length: int, mismatches: int = 0, first=(), device: str = "") -> str:  # noqa: ANN001
    row = {"campaign": campaign, "start": start, "length": length, "mismatches": mismatches,
           "first": [list(r) for r in first], "seconds": 1.0}
    if device:
        row["device"] = device
    return json.dumps(row)


def _checkpoint(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "campaigns.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


HALVES = [(0, SIZE // 2), (SIZE // 2, SIZE // 2)]
FAST = {"backend": "interp", "strength": "fast", "witnesses": 500, "corpus": None, "track": "float"}


def test_complete_clean_campaigns_make_the_laws_exhaustive(tmp_path: Path) -> None:
    path = _checkpoint(
        tmp_path,
        *(_record("f32.exp.exhaustive", s, n, device="interp") for s, n in HALVES),
        *(_record("f32.exp.laws", s, n) for s, n in HALVES),
    )
    cert = conform.certify(ops=["primitive.float.exp", "primitive.float.sin"], campaigns=path, **FAST)
    assert cert.level == "L2f" and cert.failures == []
    strengths = {(ob.op_id, ob.check.split("(")[0]): ob.strength for ob in cert.obligations if "law:" in ob.check}
    assert strengths == {
        ("primitive.float.exp", "law:FloatMonotone"): ObligationStrength.EXHAUSTIVE,
        ("primitive.float.exp", "law:FloatRange"): ObligationStrength.EXHAUSTIVE,
        ("primitive.float.exp", "law:FloatExactCases"): ObligationStrength.EXHAUSTIVE,
        ("primitive.float.sin", "law:FloatOdd"): ObligationStrength.WITNESSED,  # no campaigns of sin
        ("primitive.float.sin", "law:FloatRange"): ObligationStrength.WITNESSED,
        ("primitive.float.sin", "law:FloatExactCases"): ObligationStrength.EXHAUSTIVE,
    }
    monotone = next(ob for ob in cert.obligations if ob.check == "law:FloatMonotone")
    assert monotone.detail.startswith("every F32 input (4,294,967,296): f32.exp.exhaustive on interp")
    assert cert.data["campaigns"]["primitive.float.exp"]["exhaustive"] is True
    assert "campaigns" not in conform.certify(ops=["primitive.float.exp"], **FAST).data


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        ([_record("f32.exp.exhaustive", *HALVES[0], device="interp"), _record("f32.exp.laws", 0, SIZE)],
         "f32.exp.exhaustive covers 2,147,483,648 of 4,294,967,296 inputs"),
        ([_record("f32.exp.exhaustive", 0, SIZE, device="NVIDIA H100"), _record("f32.exp.laws", 0, SIZE)],
         "f32.exp.exhaustive ran on 'NVIDIA H100', not on 'interp'"),
        ([_record("f32.exp.exhaustive", 0, SIZE), _record("f32.exp.laws", 0, SIZE)],
         "f32.exp.exhaustive ran on '', not on 'interp'"),
        ([_record("f32.exp.exhaustive", 0, SIZE, 3, [[1, 2, 3]], device="interp"), _record("f32.exp.laws", 0, SIZE)],
         "f32.exp.exhaustive found 3 mismatches"),
        ([_record("f32.exp.exhaustive", 0, SIZE, device="interp")],
         "f32.exp.laws covers 0 of 4,294,967,296 inputs"),
    ],
)
def test_incomplete_campaigns_leave_the_laws_witnessed(tmp_path: Path, lines: list[str], reason: str) -> None:
    path = _checkpoint(tmp_path, *lines)
    assert campaign_evidence(path, ["primitive.float.exp"], "interp")["primitive.float.exp"]["reason"] == reason
    cert = conform.certify(ops=["primitive.float.exp"], campaigns=path, **FAST)
    monotone = next(ob for ob in cert.obligations if ob.check == "law:FloatMonotone")
    assert monotone.strength == ObligationStrength.WITNESSED and monotone.holds
    assert monotone.detail.startswith(f"not exhaustive ({reason}); cases:")
    assert cert.level == "L2f"


def test_a_law_violated_over_every_input_fails_the_op(tmp_path: Path) -> None:
    range_law = next(i for i, law in flc.checked_laws("exp") if isinstance(law, FL.FloatRange))
    path = _checkpoint(
        tmp_path,
        _record("f32.exp.exhaustive", 0, SIZE, device="interp"),
        _record("f32.exp.laws", 0, SIZE, 1, [[0xC2FF_0000, range_law, SIGN]]),
    )
    cert = conform.certify(ops=["primitive.float.exp"], campaigns=path, **FAST)
    assert cert.level == "L1f"
    ob = next(ob for ob in cert.obligations if ob.check.startswith("law:FloatRange"))
    assert not ob.holds and "violated over every input: f32.exp.laws at input 0xc2ff0000" in ob.detail
    assert [o.check for o in cert.obligations if not o.holds] == [ob.check]


def test_campaigns_are_float_track_evidence(tmp_path: Path) -> None:
    path = _checkpoint(tmp_path, _record("f32.exp.laws", 0, SIZE))
    with pytest.raises(conform.PlanError, match="for the float track"):
        conform.certify(backend="interp", ops=["primitive.math.add"], campaigns=path, corpus=None)
    with pytest.raises(conform.PlanError, match="no float-campaign checkpoint"):
        conform.certify(ops=["primitive.float.exp"], campaigns=tmp_path / "missing.jsonl", **FAST)
