"""Sharded + merged and interrupted + resumed runs give the certificate of one run."""

from __future__ import annotations

import json

import pytest

from vyre import conform
from vyre.conform import CertificateError, InterpBackend

SETUP = {
    "backend": "interp",
    "ops": ["primitive.math.add", "primitive.bitwise.not", "primitive.compare.eq"],
    "strength": "fast",
    "witnesses": 1500,
    "corpus": None,
}


@pytest.fixture(scope="module")
def single() -> conform.Certificate:
    return conform.certify(**SETUP)


def _content(cert: conform.Certificate) -> dict:
    return {k: v for k, v in cert.data.items() if k not in ("run", "content_digest")}


def test_single_run_passes(single: conform.Certificate) -> None:
    assert single.passed and single.level == "L2"
    # the exhaustive u8 cube of Associative(add) is split into 16 chunks
    assert single.data["plan"]["units"] > 40


def test_shards_merge_to_the_single_certificate(single: conform.Certificate) -> None:
    shards = [conform.certify(shard=f"{i}/3", **SETUP) for i in range(3)]
    assert all(s.partial for s in shards)
    keys = [set(s.data["units"]) for s in shards]
    assert not (keys[0] & keys[1]) and not (keys[1] & keys[2]) and all(keys)
    merged = conform.merge([shards[2], shards[0], shards[1]])
    assert merged.content_digest == single.content_digest
    assert _content(merged) == _content(single)
    assert merged.data["run"]["merged_from"][0] == {"index": 0, "count": 3}


def test_merge_rejects_incomplete_or_foreign_shards() -> None:
    shards = [conform.certify(shard=f"{i}/2", **SETUP) for i in range(2)]
    with pytest.raises(CertificateError, match="missing"):
        conform.merge([shards[0]])
    with pytest.raises(CertificateError, match="twice"):
        conform.merge([shards[0], shards[0]])
    other = conform.certify(shard="1/2", **{**SETUP, "witnesses": 1000})
    with pytest.raises(CertificateError, match="different plans"):
        conform.merge([shards[0], other])
    tampered = conform.Certificate(json.loads(shards[1].to_json()))
    tampered.data["units"][next(iter(tampered.data["units"]))][0]["violations"] = 0
    tampered.data["failures"] = []
    tampered.data["level"] = "L2"
    tampered.data["strength"]["witnesses"] = 1
    with pytest.raises(CertificateError, match="changed"):
        conform.merge([shards[0], tampered])


class InterruptedInterp(InterpBackend):
    """Raises KeyboardInterrupt at the `after`-th program run."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.runs = 0

    def run(self, program, words, dispatch):
        self.runs += 1
        if self.runs == self.after:
            raise KeyboardInterrupt
        return super().run(program, words, dispatch)


def test_resume_after_interruption(tmp_path, single: conform.Certificate) -> None:
    checkpoint = tmp_path / "run.checkpoint.jsonl"
    with pytest.raises(KeyboardInterrupt):
        conform.certify(**{**SETUP, "backend": InterruptedInterp(after=12)}, checkpoint=checkpoint)
    lines = checkpoint.read_text().splitlines()
    finished = len(lines) - 1
    assert 0 < finished < single.data["plan"]["units"]
    resumed = conform.certify(**SETUP, checkpoint=checkpoint, resume=True)
    assert resumed.data["run"]["units_resumed"] == finished
    assert resumed.data["run"]["units_run"] == single.data["plan"]["units"] - finished
    assert resumed.content_digest == single.content_digest
    assert not checkpoint.exists()  # removed once the run completed


def test_resume_refuses_a_checkpoint_of_another_plan(tmp_path) -> None:
    checkpoint = tmp_path / "c.jsonl"
    with pytest.raises(KeyboardInterrupt):
        conform.certify(**{**SETUP, "backend": InterruptedInterp(after=8)}, checkpoint=checkpoint)
    assert len(checkpoint.read_text().splitlines()) > 1
    with pytest.raises(CertificateError, match="different plan"):
        conform.certify(**{**SETUP, "witnesses": 999}, checkpoint=checkpoint, resume=True)


def _peak_bytes(witnesses: int) -> tuple[int, conform.Certificate]:
    import tracemalloc

    tracemalloc.start()
    try:
        cert = conform.certify(
            backend="interp", ops=["primitive.bitwise.xor"], strength="fast", witnesses=witnesses,
            checks=["laws"], laws=["SelfInverse"], corpus=None,
        )
        return tracemalloc.get_traced_memory()[1], cert
    finally:
        tracemalloc.stop()


def test_witnesses_stream_with_bounded_memory() -> None:
    """Three chunks of witnesses need no more memory than one: units stream."""
    from vyre.conform import generate as gen

    one, _ = _peak_bytes(gen.CHUNK)
    three, cert = _peak_bytes(3 * gen.CHUNK)
    result = next(r for r in cert.data["law_results"] if r["target"] == "backend")
    assert result["verdict"] == "verified"
    assert result["domains"]["witnessed"]["cases"] > 3 * gen.CHUNK
    assert three < 1.25 * one, (one, three)


def test_worker_processes_give_the_same_certificate(single: conform.Certificate) -> None:
    parallel = conform.certify(**SETUP, jobs=2)
    assert parallel.data["run"]["jobs"] == 2
    assert parallel.content_digest == single.content_digest


def test_progress_bar_writes_one_line() -> None:
    import io

    from vyre.conform.plan import Unit
    from vyre.conform.progress import Progress

    stream = io.StringIO()
    bar = Progress(total=10.0, done=0.0, units=2, enabled=True, stream=stream)
    bar.advance(Unit("laws-backend", "primitive.math.add", "w", 0, 4, 4.0))
    bar.advance(Unit("reference", "primitive.math.add", "inputs", 0, 4, 4.0))
    bar.close()
    text = stream.getvalue()
    assert "100.0%" in text and "2/2 units" in text and text.endswith("\n")
    assert text.count("\n") == 1
    quiet = io.StringIO()
    Progress(total=1.0, done=0.0, units=1, enabled=False, stream=quiet).close()
    assert quiet.getvalue() == ""
