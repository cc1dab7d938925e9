"""Chunks with no host work (an exhaustive space whose sums a stored truth gives)
are checked `GANG` at a time by one dispatch (`float_campaign._gang`), each still
recorded as a chunk of its own: the records equal an oracle run's, a broken
function is found inside a gang with its exact inputs, a chunk the truth lacks
ends a gang, and Dask tasks against a whole truth hold whole gangs.
Small campaigns: f16 neg in chunks of 16,384 (one workgroup's inputs; 4 chunks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vyre.conform import float_campaign as fc
from vyre.conform.float_campaign import Campaign, oracle_description, run_campaign, truth_identity
from vyre.conform.float_truth import Truth, TruthRecord, TruthWriter, load_truth

NEG = Campaign("neg", "f16")
PER_GROUP = fc.WORKGROUP * fc.PER_INVOCATION


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fc, "CHUNK", PER_GROUP)  # f16: 4 chunks of one workgroup each


def _content(results: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in results]


def _truth(path: Path, backend: str = "interp") -> tuple[Truth, list[dict[str, Any]]]:
    """The campaign's truth (built by an oracle run) and that run's records."""
    writer = TruthWriter(path, truth_identity(NEG), oracle_description(NEG))
    records = _content(run_campaign(NEG, backend, jobs=1, save_truth=writer.add))
    return load_truth(path, truth_identity(NEG)), records


def _dispatches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """(first input, inputs, workgroups) of every campaign kernel run from now on:
    a gang's (`_submit_sums`) and a chunk's alone (`_run`)."""
    seen: list[tuple[int, int, int]] = []
    real_run = fc._run  # pyright: ignore[reportPrivateUsage]
    real_submit = fc._submit_sums  # pyright: ignore[reportPrivateUsage]
    inside = [False]

    def run(backend: str, prepared: Any, words: dict[str, np.ndarray], groups: int, out: int) -> Any:
        if not inside[0]:
            seen.append((int(words["params"][0]), int(words["params"][1]), groups))
        return real_run(backend, prepared, words, groups, out)

    def submit(backend: str, prepared: Any, params: np.ndarray, groups: int) -> Any:
        seen.append((int(params[0]), int(params[1]), groups))
        inside[0] = True
        try:
            return real_submit(backend, prepared, params, groups)
        finally:
            inside[0] = False

    monkeypatch.setattr(fc, "_run", run)
    monkeypatch.setattr(fc, "_submit_sums", submit)
    return seen


def _no_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_oracle(*_: object) -> None:
        raise AssertionError("the oracle ran")

    monkeypatch.setattr(fc, "oracle_words", no_oracle)


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_a_truth_run_checks_its_chunks_in_one_dispatch_and_writes_the_oracle_runs_records(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    truth, oracle_run = _truth(tmp_path / "truth.jsonl", backend)
    assert len(oracle_run) == 4
    _no_oracle(monkeypatch)
    dispatches = _dispatches(monkeypatch)
    checkpoint = tmp_path / "run.jsonl"
    assert _content(run_campaign(NEG, backend, jobs=1, truth=truth, checkpoint=checkpoint)) == oracle_run
    assert dispatches == [(0, 1 << 16, 4)]
    assert len(checkpoint.read_text().splitlines()) == 4  # a record a chunk, as a run chunk by chunk writes


def test_a_broken_function_inside_a_gang_is_reported_with_its_exact_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vyre.ir import Expr as E

    truth, _ = _truth(tmp_path / "truth.jsonl")
    real = fc.op_expr

    def planted(c: Campaign, words: Any) -> Any:  # input 0x5001's result flipped in its last bit
        return E.bitxor(real(c, words), E.select(E.eq(E.var("k"), E.u32(0x5001)), E.u32(1), E.u32(0)))

    monkeypatch.setattr(fc, "op_expr", planted)
    dispatches = _dispatches(monkeypatch)
    with_truth = _content(run_campaign(NEG, "interp", jobs=1, truth=truth))
    assert dispatches[0] == (0, 1 << 16, 4)  # the gang, then chunk 1 alone: its sums, its results read back
    assert dispatches[1:] == [(PER_GROUP, PER_GROUP, 1)] * 2
    assert with_truth == _content(run_campaign(NEG, "interp", jobs=1))
    (bad,) = [r for r in with_truth if r["mismatches"]]
    assert bad["start"] == PER_GROUP and bad["first"] == [[0x5001, 0xD001 ^ 1, 0xD001]]


def test_a_chunk_the_truth_lacks_ends_a_gang_and_is_computed_by_the_oracle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole, oracle_run = _truth(tmp_path / "truth.jsonl")
    chunks = NEG.chunks()
    part = whole.only([chunks[0], chunks[1], chunks[3]])
    dispatches = _dispatches(monkeypatch)
    saved: list[TruthRecord] = []
    assert _content(run_campaign(NEG, "interp", jobs=1, truth=part, save_truth=saved.append)) == oracle_run
    assert [(start, length) for start, length, _ in dispatches] == [(0, 2 * PER_GROUP), chunks[2], chunks[3]]
    assert [(r.start, r.length, r.sums) for r in saved] == [(*chunks[2], whole.expected(*chunks[2]))]


def test_what_makes_a_gang() -> None:
    gang = fc._gang  # pyright: ignore[reportPrivateUsage]
    whole = [(n * PER_GROUP, PER_GROUP) for n in range(4)]
    sums = [(1, 2)] * 4
    assert [gang(NEG, whole, sums, n) for n in range(4)] == [4, 3, 2, 1]
    assert gang(NEG, whole, [(1, 2), None, (1, 2), (1, 2)], 0) == 1  # a chunk with host work ends it
    assert gang(NEG, whole, [None] * 4, 0) == 1
    apart = [(0, PER_GROUP), (2 * PER_GROUP, PER_GROUP)]  # not consecutive
    assert gang(NEG, apart, sums[:2], 0) == 1
    short = [(0, PER_GROUP), (PER_GROUP, 100), (PER_GROUP + 100, PER_GROUP)]  # a partial workgroup: last of a gang
    assert [gang(NEG, short, sums[:3], n) for n in range(3)] == [2, 1, 1]
    uploaded = Campaign("add", "f32", "adversarial", 4 * PER_GROUP)  # operands from the host: never a gang
    assert gang(uploaded, whole, sums, 0) == 1


def test_gangs_of_a_whole_f32_space_fit_one_dispatch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fc, "CHUNK", 1 << 24)
    exp2 = Campaign("exp2", "f32")
    chunks = exp2.chunks()
    sums = [(1, 2)] * len(chunks)
    sizes: list[int] = []
    n = 0
    while n < len(chunks):
        sizes.append(fc._gang(exp2, chunks, sums, n))  # pyright: ignore[reportPrivateUsage]
        n += sizes[-1]
    assert sizes == [fc.GANG] * (256 // fc.GANG)
    assert fc.GANG * (1 << 24) // PER_GROUP <= 65_535  # workgroups of one dispatch: within every adapter's limit


def test_dask_tasks_against_a_whole_truth_hold_whole_gangs() -> None:
    from vyre.conform.float_dask import MAX_BATCH, MAX_STORED_BATCH, _batches  # pyright: ignore[reportPrivateUsage]

    chunks = [(n << 24, 1 << 24) for n in range(256)]
    # one task a worker: a whole F32 space on 1, 2 or 3 workers
    assert [len(task) for task in _batches(chunks, 1, MAX_STORED_BATCH, per_worker=1)] == [256]
    assert [len(task) for task in _batches(chunks, 2, MAX_STORED_BATCH, per_worker=1)] == [128] * 2
    assert [len(task) for task in _batches(chunks, 3, MAX_STORED_BATCH, per_worker=1)] == [80] * 3 + [16]
    # six campaigns of a run: tasks of at most MAX_STORED_BATCH, none across campaigns
    assert [len(task) for task in _batches(chunks, 2, MAX_STORED_BATCH, 6 * 256, per_worker=1)] == [256]
    assert [len(task) for task in _batches(chunks, 2, MAX_STORED_BATCH)] == [32] * 8
    assert [len(task) for task in _batches(chunks, 1, MAX_STORED_BATCH)] == [64] * 4
    assert [len(task) for task in _batches(chunks, 3, MAX_STORED_BATCH)] == [16] * 16  # 22 a task, cut to a gang
    assert [len(task) for task in _batches(chunks, 2)] == [MAX_BATCH] * 32  # host work: small tasks
    assert [len(task) for task in _batches(chunks[:40], 2, MAX_STORED_BATCH)] == [5] * 8


def _finish(lengths: list[int], workers: int, per_worker: int) -> int:
    """When the last worker is done, tasks handed in order to the worker free
    first (every chunk one unit of work): written here, not imported."""
    from vyre.conform.float_dask import MAX_STORED_BATCH, _batches  # pyright: ignore[reportPrivateUsage]

    total = sum(lengths)
    loads = [0] * workers
    for n in lengths:
        chunks = [(k, 1) for k in range(n)]
        for task in _batches(chunks, workers, MAX_STORED_BATCH, total, per_worker):
            loads[loads.index(min(loads))] += len(task)
    return max(loads)


@pytest.mark.parametrize("workers", range(1, 9))
@pytest.mark.parametrize("lengths", [[256], [256] * 6, [256, 40, 256], [8], [3]])
def test_tasks_a_worker_against_a_whole_truth(workers: int, lengths: list[int]) -> None:
    """The fewest tasks a worker whose shares finish within 5 % of an even
    split, else the split that finishes first; never later than four a worker."""
    from vyre.conform.float_dask import stored_tasks_per_worker

    chosen = stored_tasks_per_worker(lengths, workers)
    assert chosen in (1, 2, 4)
    even = -(-sum(lengths) // workers)
    finishes = {k: _finish(lengths, workers, k) for k in (1, 2, 4)}
    good = [k for k in (1, 2, 4) if finishes[k] * 20 <= even * 21]
    assert chosen == (good[0] if good else min((1, 2, 4), key=lambda k: (finishes[k], k)))
    assert finishes[chosen] <= finishes[4]


def test_six_functions_on_two_workers_take_three_tasks_each_and_on_four_balance() -> None:
    from vyre.conform.float_dask import stored_tasks_per_worker

    assert stored_tasks_per_worker([256] * 6, 2) == 1  # 6 tasks of 256: 768 chunks a worker, even
    assert stored_tasks_per_worker([256] * 6, 4) == 4  # 6 tasks of 256 would give 512 against 384
    assert _finish([256] * 6, 4, 4) <= 416 < _finish([256] * 6, 4, 1) == 512
    assert stored_tasks_per_worker([256], 2) == 1  # f32 exp2 alone: 2 tasks of 128


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_the_next_gang_is_submitted_before_a_gangs_sums_are_read_back(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    truth, oracle_run = _truth(tmp_path / "truth.jsonl", backend)
    monkeypatch.setattr(fc, "GANG", 2)  # 4 chunks: two gangs
    events: list[str] = []
    real = fc._submit_sums  # pyright: ignore[reportPrivateUsage]

    def submit(backend: str, prepared: Any, params: np.ndarray, groups: int) -> Any:
        events.append(f"submit {int(params[0]):#x}")
        read = real(backend, prepared, params, groups)

        def wait() -> Any:
            events.append(f"read {int(params[0]):#x}")
            return read()

        return wait

    monkeypatch.setattr(fc, "_submit_sums", submit)
    seen: list[int] = []
    records = _content(run_campaign(NEG, backend, jobs=1, truth=truth, progress=lambda r: seen.append(r.start)))
    assert records == oracle_run and seen == [0, PER_GROUP, 2 * PER_GROUP, 3 * PER_GROUP]
    assert events == ["submit 0x0", "submit 0x8000", "read 0x0", "read 0x8000"]
