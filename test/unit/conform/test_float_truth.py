"""A stored truth of float campaigns (vyre.conform.float_truth): a run against it
computes no oracle and writes the records an oracle run writes, finds a broken
function's exact inputs, refuses a truth of another campaign or scheme or one the
oracle contradicts, and reads torn and garbled files the way checkpoints are read.
Small campaigns (f16 neg in chunks of 8,192), mostly on the interpreter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vyre.conform import float_campaign as fc
from vyre.conform.float_campaign import Campaign, oracle_description, run_campaign, truth_identity
from vyre.conform.float_truth import (
    FloatTruthError,
    Truth,
    TruthIdentity,
    TruthRecord,
    TruthWriter,
    load_truth,
)

NEG = Campaign("neg", "f16")


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fc, "CHUNK", 8192)  # f16: 8 chunks


def _build(path: Path, campaign: Campaign = NEG, backend: str = "interp") -> list[dict[str, Any]]:
    """An oracle run that saves the truth; its records less the seconds."""
    writer = TruthWriter(path, truth_identity(campaign), oracle_description(campaign))
    return _content(run_campaign(campaign, backend, jobs=1, save_truth=writer.add))


def _content(results: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in results]


def _flip_input(k: int) -> Any:
    """op_expr with the result of input `k` flipped in its last bit (a broken function)."""
    real = fc.op_expr

    def planted(c: Campaign, words: Any) -> Any:
        from vyre.ir import Expr as E

        return E.bitxor(real(c, words), E.select(E.eq(E.var("k"), E.u32(k)), E.u32(1), E.u32(0)))

    return planted


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_a_run_against_the_truth_writes_the_oracle_runs_records_and_computes_no_oracle(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    path = tmp_path / "truth.jsonl"
    oracle_run = _build(path, backend=backend)
    truth = load_truth(path, truth_identity(NEG))
    assert len(truth.chunks) == 8 and len(oracle_run) == 8

    def no_oracle(*_: object) -> None:
        raise AssertionError("the oracle ran")

    monkeypatch.setattr(fc, "oracle_words", no_oracle)
    assert _content(run_campaign(NEG, backend, jobs=1, truth=truth)) == oracle_run


def test_a_chunk_the_truth_lacks_is_computed_by_the_oracle_and_added(tmp_path: Path) -> None:
    path = tmp_path / "truth.jsonl"
    writer = TruthWriter(path, truth_identity(NEG), oracle_description(NEG))
    first = _content(run_campaign(NEG, "interp", jobs=1, span=(0, 3 * 8192), save_truth=writer.add))
    truth = load_truth(path, truth_identity(NEG))
    assert len(truth.chunks) == 3
    rest = _content(run_campaign(NEG, "interp", jobs=1, truth=truth, save_truth=writer.add))
    assert len(load_truth(path, truth_identity(NEG)).chunks) == 8  # the five it lacked were added, no duplicate
    assert len(path.read_text().splitlines()) == 1 + 8
    assert first + rest[3:] == _content(run_campaign(NEG, "interp", jobs=1))


def test_a_broken_function_is_reported_with_its_exact_inputs_against_the_truth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "truth.jsonl"
    _build(path)
    truth = load_truth(path, truth_identity(NEG))
    monkeypatch.setattr(fc, "op_expr", _flip_input(0x3C01))
    with_truth = _content(run_campaign(NEG, "interp", jobs=1, truth=truth))
    with_oracle = _content(run_campaign(NEG, "interp", jobs=1))
    assert with_truth == with_oracle
    (bad,) = [r for r in with_truth if r["mismatches"]]
    assert bad["start"] == 0x3C01 & ~8191 and bad["first"] == [[0x3C01, 0xBC01 ^ 1, 0xBC01]]


def test_a_stored_checksum_the_oracle_contradicts_stops_the_run(tmp_path: Path) -> None:
    path = tmp_path / "truth.jsonl"
    writer = TruthWriter(path, truth_identity(NEG), oracle_description(NEG))
    writer.add(TruthRecord(NEG.name, 8192, 8192, (1, 2)))  # planted: a wrong checksum, a valid record
    truth = load_truth(path, truth_identity(NEG))
    with pytest.raises(FloatTruthError, match=r"stored checksum of f16.neg.exhaustive chunk \[0x2000, \+0x2000\)"):
        list(run_campaign(NEG, "interp", jobs=1, truth=truth))


def test_a_truth_of_another_campaign_or_scheme_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vyre.conform.cli import main

    path = tmp_path / "truth.jsonl"
    TruthWriter(path, truth_identity(NEG), "o").add(TruthRecord(NEG.name, 0, 8192, (1, 2)))
    for other in (Campaign("neg", "bf16"), Campaign("abs", "f16")):
        with pytest.raises(FloatTruthError, match=f"holds no truth of {other.name}"):
            load_truth(path, truth_identity(other))
    with pytest.raises(FloatTruthError, match="follows checksum scheme"):
        load_truth(path, TruthIdentity(NEG.name, "another-scheme/1"))
    with pytest.raises(FloatTruthError, match="follows checksum scheme"):
        TruthWriter(path, TruthIdentity(NEG.name, "another-scheme/1"), "o")
    with pytest.raises(FloatTruthError, match="no such truth file"):
        load_truth(tmp_path / "none.jsonl", truth_identity(NEG))
    assert len(load_truth(tmp_path / "none.jsonl", truth_identity(NEG), building=True).chunks) == 0
    common = ["floats", "--backend", "interp", "--formats", "bf16", "--ops", "neg", "--quiet"]
    assert main([*common, "--truth", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"vyre-conform: error: {path}: holds no truth of bf16.neg.exhaustive")


def test_torn_and_garbled_truth_lines(tmp_path: Path) -> None:
    path = tmp_path / "truth.jsonl"
    writer = TruthWriter(path, truth_identity(NEG), "o")
    writer.add(TruthRecord(NEG.name, 0, 8192, (1, 2)))
    whole = path.read_text()
    torn = json.dumps(TruthRecord(NEG.name, 8192, 8192, (3, 4)).to_json(fc.CHECKSUM_SCHEME))
    path.write_text(whole + torn[:20])  # a kill in the middle of an append
    assert dict(load_truth(path, truth_identity(NEG)).chunks) == {(0, 8192): (1, 2)}
    writer.add(TruthRecord(NEG.name, 16384, 8192, (5, 6)))  # cuts the torn line first
    assert path.read_text().count("\n") == 3 and len(load_truth(path, truth_identity(NEG)).chunks) == 2
    header, record = whole.splitlines()
    tampered = record.replace("[1, 2]", "[1, 3]")
    cases = {
        '{"campaign": "f16.neg.exh': "not JSON",
        '{"campaign": "f16.neg.exhaustive", "start": 0}': "missing `length`",
        tampered: "fails its digest",
        header.replace('"o"', '"p"'): "the header of f16.neg.exhaustive fails its digest",
    }
    for line, problem in cases.items():
        path.write_text(f"{header}\n{line}\n{record}\n")
        with pytest.raises(FloatTruthError, match=f"{path}:2: .*{problem}"):
            load_truth(path, truth_identity(NEG))
    path.write_text(f"{record}\n{header}\n")
    with pytest.raises(FloatTruthError, match=f"{path}:1: a chunk of f16.neg.exhaustive before its header"):
        load_truth(path, truth_identity(NEG))
    again = json.dumps(TruthRecord(NEG.name, 0, 8192, (7, 8)).to_json(fc.CHECKSUM_SCHEME))
    path.write_text(f"{header}\n{record}\n{record}\n{again}\n")  # the same chunk twice counts once
    with pytest.raises(FloatTruthError, match=f"{path}:4: .*recorded again with other sums"):
        load_truth(path, truth_identity(NEG))


def test_the_cli_saves_a_truth_and_runs_against_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vyre.conform.cli import main

    truth, here, there = tmp_path / "truth.jsonl", tmp_path / "oracle.jsonl", tmp_path / "truth-run.jsonl"
    common = ["floats", "--backend", "interp", "--formats", "f16", "--ops", "neg", "--jobs", "1"]
    assert main([*common, "--checkpoint", str(here), "--save-truth", str(truth)]) == 0
    plain = capsys.readouterr().out
    assert main([*common, "--checkpoint", str(there), "--truth", str(truth)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"truth {truth}: 8 chunks of f16.neg.exhaustive, digest ")

    def lines(text: str) -> list[str]:  # less the seconds
        return [line.rsplit(",", 1)[0] for line in text.splitlines() if not line.startswith("truth ")]

    assert lines(out) == lines(plain) and len(lines(plain)) == 8
    assert [json.loads(line) | {"seconds": 0} for line in here.read_text().splitlines()] == [
        json.loads(line) | {"seconds": 0} for line in there.read_text().splitlines()
    ]
    assert main([*common, "--laws-only", "--truth", str(truth)]) == 2


def test_a_dask_task_carries_its_part_of_the_truth_and_returns_the_oracle_sums_it_computed(tmp_path: Path) -> None:
    import pickle

    from vyre.conform.float_dask import _batches, _run_batch  # pyright: ignore[reportPrivateUsage]

    path = tmp_path / "truth.jsonl"
    oracle_run = _build(path)
    truth = load_truth(path, truth_identity(NEG))
    chunks = NEG.chunks()
    part = truth.only(chunks[:2])
    assert pickle.loads(pickle.dumps(part)) == part and len(part.chunks) == 2
    assert part.identity == truth.identity and part.source == str(path)
    records: list[dict[str, Any]] = []
    for batch in _batches(chunks, 2):
        for record, sums in _run_batch(NEG, batch, "interp", 1, {}, part.only(batch)):
            start = int(record["start"])
            stored = truth.expected(start, int(record["length"]))
            assert sums == (None if start < 2 * 8192 else stored)  # computed where the part lacks it
            records.append({k: v for k, v in record.items() if k != "seconds"})
    assert records == oracle_run


def test_a_truth_digest_covers_its_chunks() -> None:
    identity = truth_identity(NEG)
    a = Truth(identity, {(0, 8192): (1, 2)})
    assert a.digest == Truth(identity, {(0, 8192): (1, 2)}).digest
    assert a.digest != Truth(identity, {(0, 8192): (1, 3)}).digest
    assert a.digest != Truth(truth_identity(Campaign("abs", "f16")), {(0, 8192): (1, 2)}).digest


def test_a_campaign_on_dask_against_the_truth_equals_one_process(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from vyre.conform.float_dask import campaign_client, run_on_cluster

    path = tmp_path / "truth.jsonl"
    writer = TruthWriter(path, truth_identity(NEG), oracle_description(NEG))
    with campaign_client("interp", "local", 2) as client:
        run_on_cluster(client, NEG, "interp", jobs=2, span=(0, 3 * 8192), save_truth=writer.add)
        truth = load_truth(path, truth_identity(NEG))
        assert len(truth.chunks) == 3
        records = run_on_cluster(client, NEG, "interp", jobs=2, truth=truth, save_truth=writer.add)
    assert len(load_truth(path, truth_identity(NEG)).chunks) == 8  # the chunks the truth lacked, added
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in records] == _content(
        run_campaign(NEG, "interp", jobs=1)
    )


def test_several_campaigns_on_dask_are_submitted_together_and_equal_one_process(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from vyre.conform.float_dask import campaign_client, run_all_on_cluster

    absolute = Campaign("abs", "f16")
    path = tmp_path / "truth.jsonl"
    _build(path)
    truth = load_truth(path, truth_identity(NEG))
    saved = tmp_path / "abs-truth.jsonl"
    writer = TruthWriter(saved, truth_identity(absolute), oracle_description(absolute))
    checkpoint = tmp_path / "run.jsonl"
    truths = {NEG.name: (truth, None), absolute.name: (None, writer.add)}

    class Counting:  # the client, counting the tasks submitted
        def __init__(self, client: Any) -> None:
            self.client, self.submitted = client, 0

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            self.submitted += 1
            return self.client.submit(*args, **kwargs)

        def nthreads(self) -> Any:
            return self.client.nthreads()

    seen: list[int] = []
    with campaign_client("interp", "local", 2) as client:
        counting = Counting(client)
        runs = run_all_on_cluster(
            counting, [NEG, absolute], "interp", jobs=2, checkpoint=checkpoint, truths=truths,
            progress=lambda _: seen.append(counting.submitted),
        )  # fmt: skip
        assert run_all_on_cluster(client, [NEG, absolute], "interp", checkpoint=checkpoint, truths=truths) == {
            NEG.name: [], absolute.name: []
        }  # resumed: nothing owed
    assert set(seen) == {counting.submitted} and counting.submitted >= 2  # every task out before the first record
    for campaign in (NEG, absolute):
        records = [{k: v for k, v in r.items() if k != "seconds"} for r in runs[campaign.name]]
        assert records == _content(run_campaign(campaign, "interp", jobs=1))
    assert len(checkpoint.read_text().splitlines()) == 16
    assert len(load_truth(saved, truth_identity(absolute)).chunks) == 8  # abs had no truth: its oracle's sums saved


def test_a_run_against_a_whole_truth_takes_one_task_a_worker(tmp_path: Path) -> None:
    """Every chunk in the truth: the run is cut as `stored_tasks_per_worker`
    says (2 tasks of 4 chunks on 2 workers here, not 8 of 1), same records."""
    pytest.importorskip("distributed")
    from vyre.conform.float_dask import campaign_client, run_all_on_cluster

    path = tmp_path / "truth.jsonl"
    _build(path)
    truth = load_truth(path, truth_identity(NEG))
    submitted: list[int] = []

    class Counting:
        def __init__(self, client: Any) -> None:
            self.client = client

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            submitted.append(len(args[2]))  # the task's chunks (after the function and the campaign)
            return self.client.submit(*args, **kwargs)

        def nthreads(self) -> Any:
            return self.client.nthreads()

    with campaign_client("interp", "local", 2) as client:
        runs = run_all_on_cluster(Counting(client), [NEG], "interp", jobs=1, truths={NEG.name: (truth, None)})
    assert len(truth.chunks) == 8 and submitted == [4, 4]
    records = [{k: v for k, v in r.items() if k != "seconds"} for r in runs[NEG.name]]
    assert records == _content(run_campaign(NEG, "interp", jobs=1))
