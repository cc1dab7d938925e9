"""Float campaigns (vyre.conform.float_campaign) on the GPU device (lavapipe in
CI): whole input spaces of lowered strict-float kernels against the
interpreter's exact oracle, mismatch detection, checkpoints and shards."""

from __future__ import annotations

import json
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


# ---------------------------------------------------------------------------
# The input space, the fast oracles and the parallel runner
# ---------------------------------------------------------------------------

_MASK64 = (1 << 64) - 1
_SPECIALS = [
    0, 0x8000_0000, 1, 0x8000_0001, 0x007F_FFFF, 0x0080_0000, 0x3F80_0000, 0xBF80_0000,
    0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFC0_0001, 0x7F80_0001, 0x3F00_0000,
]  # fmt: skip


def _splitmix_word(seed: int, index: int, stream: int) -> int:
    z = ((index * 3 + stream) * 0x9E37_79B9_7F4A_7C15 + seed * 0xD1B5_4A32_D192_ED03) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & _MASK64
    return (z ^ (z >> 31)) >> 32


def _reference_operands(seed: int, i: int, fma: bool) -> tuple[int, int, int]:
    """The adversarial space's definition, one input at a time with Python ints
    (what the H100 checkpoints of bench/results were computed over)."""
    x, y, z = (_splitmix_word(seed, i, s) for s in range(3))
    a, b, c = x, y, z
    cls = i % 8
    if cls == 1:
        b = (x & 0xFF80_0000) | (y & 0x007F_FFFF)
    elif cls == 2:
        b = (x ^ (y & 0x3F)) ^ (y & 0x8000_0000)
    elif cls == 3:
        b = (y & 0x807F_FFFF) | (((((x >> 23) & 0xFF) - y % 41) & 0xFF) << 23)
    elif cls == 4:
        a, b = x & 0x80FF_FFFF, (y & 0x807F_FFFF) | 0x3F00_0000
    elif cls == 5:
        a = 0x7E00_0000 | (x & 0x80FF_FFFF)
        b = (0x0100_0000 | (y & 0x80FF_FFFF)) if z & 1 else (y & 0x80FF_FFFF) | 0x3F80_0000
    elif cls == 6:
        a = (x & 0x3FFF_E000) | 0x3F00_0000
        b = (y & 0x3FFF_E000) | 0x3F00_0000
        c = (z & 0x80FF_FFFF) | 0x0C00_0000
    elif cls == 7:
        a = _SPECIALS[x & 15]
        c = _SPECIALS[z & 15] if y & 16 else c
    if fma and cls < 4 and (z >> 8) & 1:
        c = (_oracle_mul(a, b) ^ 0x8000_0000) ^ (z & 0xFF)
    return a, b, c


def _oracle_mul(a: int, b: int) -> int:
    from vyre.runtime.interp import floats

    return int(floats.binary("mul", "f32", np.array([a], dtype=np.uint32), np.array([b], dtype=np.uint32))[0])


@pytest.mark.parametrize(("op", "seed", "start"), [("add", 1, 0), ("fma", 1, 1 << 29), ("lt", 7, 123_456_789)])
def test_the_adversarial_space_is_what_the_checkpoints_recorded(op: str, seed: int, start: int) -> None:
    """The vectorised generator (strided classes, in-place hashing) gives the
    words of the space's one-input-at-a-time definition, from any start."""
    campaign = Campaign(op, "f32", "adversarial", 1 << 31, seed)
    got = fc.adversarial(campaign, start, 203)
    for j in range(203):
        want = _reference_operands(seed, start + j, op == "fma")[: campaign.arity]
        assert tuple(int(w[j]) for w in got) == want, (start + j, [hex(v) for v in want])


@pytest.mark.parametrize("op", ["min", "max", "eq", "ne", "lt", "le", "gt", "ge", "fma"])
def test_the_fast_f32_oracles_agree_with_the_interpreter(op: str) -> None:
    campaign = Campaign(op, "f32", "adversarial", 1 << 30, 11)
    operands = fc.adversarial(campaign, 1 << 20, 1 << 17)
    fast = fc.fast_oracle(campaign, operands)
    assert fast is not None
    bad = np.flatnonzero(fast != fc.interp_oracle(campaign, operands))
    assert [[hex(int(o[i])) for o in operands] for i in bad[:5]] == []


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
@pytest.mark.parametrize("op", ["add", "mul", "div", "le"])
def test_the_fast_16_bit_oracles_agree_with_the_interpreter(fmt: str, op: str) -> None:
    """Every pattern against the specials and a spread of patterns (both orders)."""
    campaign = Campaign(op, fmt)
    every = np.arange(1 << 16, dtype=np.uint32)
    others = np.array([0, 1, 0x3FF, 0x400, 0x3C00, 0x7BFF, 0x7C00, 0x7E00, 0x7F, 0x80, 0x3F80, 0x7F7F, 0x7F80, 0x7FC0, 0x1234, 0x5555], dtype=np.uint32)
    others = np.concatenate([others, others | np.uint32(0x8000), np.arange(7, 1 << 16, 16411, dtype=np.uint32)])
    a = np.concatenate([np.repeat(every, len(others)), np.tile(others, len(every))])
    b = np.concatenate([np.tile(others, len(every)), np.repeat(every, len(others))])
    fast = fc.fast_oracle(campaign, [a, b])
    assert fast is not None
    bad = np.flatnonzero(fast != fc.interp_oracle(campaign, [a, b]))
    assert [(hex(int(a[i])), hex(int(b[i]))) for i in bad[:5]] == []


@pytest.mark.parametrize(("op", "fmt"), [(o, f) for o in ("from_u32", "from_i32") for f in ("f32", "f16", "bf16")] + [("to_f16", "f32")])
def test_the_fast_conversion_oracles_agree_with_the_interpreter(op: str, fmt: str) -> None:
    edges = [0, 1, 2, 3, 0xFFEF, 0xFFF0, 0xFFF7, 0xFFF8, 0x1_0008, 0x00FF_FFFF, 0x0100_0001, 0x0100_0003,
             0x7FFF_FF80, 0x7FFF_FFC0, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FF80, 0xFFFF_FFFF,
             0x3380_0000, 0x3380_0001, 0x387F_E000, 0x387F_F000, 0x477F_F000, 0x477F_EFFF, 0x7F80_0000, 0x7FC0_0001]  # fmt: skip
    x = np.concatenate([np.array(edges, dtype=np.uint32), np.arange(0, 1 << 32, 2039, dtype=np.uint64).astype(np.uint32)])
    campaign = Campaign(op, fmt)
    fast = fc.fast_oracle(campaign, [x])
    assert fast is not None
    bad = np.flatnonzero(fast != fc.interp_oracle(campaign, [x]))
    assert [hex(int(x[i])) for i in bad[:5]] == []


def test_a_pool_of_workers_runs_the_chunks_and_finds_a_wrong_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, gpu_adapter: object
) -> None:
    """Two worker processes write the operands (buffer files) and the oracle's
    sums while the GPU runs the previous chunk; a wrong GPU result (planted in
    the kernel: the result of input 5,000 flipped) is found and named, the
    other chunks pass, and a second run resumes from the checkpoint."""
    campaign = Campaign("mul", "f32", "adversarial", count=3 * 8192, seed=4)
    real = fc.op_expr

    def planted(c: Campaign, words: list[object]) -> object:
        result = real(c, words)  # pyright: ignore[reportArgumentType]
        from vyre.ir import Expr as E

        return E.bitxor(result, E.select(E.eq(E.var("k"), E.u32(5000)), E.u32(1), E.u32(0)))

    monkeypatch.setattr(fc, "op_expr", planted)
    monkeypatch.setattr(fc, "CHUNK", 8192)
    checkpoint = tmp_path / "floats.jsonl"
    with fc.worker_pool(2) as pool:
        results = list(run_campaign(campaign, "wgpu", checkpoint=checkpoint, pool=pool))
        again = list(run_campaign(campaign, "wgpu", checkpoint=checkpoint, pool=pool))
    assert [(r.start, r.mismatches) for r in results] == [(0, 1), (8192, 0), (16384, 0)]
    a, b = (int(w[0]) for w in fc.adversarial(campaign, 5000, 1))
    (row,) = results[0].first
    assert row[:2] == [a, b] and row[2] == row[3] ^ 1
    assert again == []


def test_an_append_cut_by_a_kill_loses_no_chunk_and_counts_none_twice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, gpu_adapter: object
) -> None:
    """A kill in the middle of an append leaves a torn last line. The next
    append glued its record onto it, the glued line failed to parse, and that
    chunk vanished from floats-summary (a chunk with mismatches would too).
    Appends are fsynced and cut a torn last line first now: the resumed run
    reruns the torn chunk and every chunk is counted once."""
    import os

    campaign = Campaign("add", "f32", "adversarial", count=3 * 4096, seed=5)
    checkpoint = tmp_path / "floats.jsonl"
    monkeypatch.setattr(fc, "CHUNK", 4096)  # three chunks
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    (first,) = run_campaign(campaign, "wgpu", checkpoint=checkpoint, shard=(0, 3), jobs=1)
    assert synced  # the record is on disk before the run goes on
    torn = json.dumps({**first.to_json(), "start": 4096})
    with checkpoint.open("a") as stream:  # what a kill half way through the next append leaves
        stream.write(torn[: len(torn) // 2])
    resumed = list(run_campaign(campaign, "wgpu", checkpoint=checkpoint, jobs=1))
    assert [r.start for r in resumed] == [4096, 8192]
    lines = checkpoint.read_text().splitlines()
    assert [json.loads(line)["start"] for line in lines] == [0, 4096, 8192]
    totals = summary(checkpoint)[campaign.name]
    assert (totals["inputs"], totals["chunks"]) == (campaign.size, 3)
    assert list(run_campaign(campaign, "wgpu", checkpoint=checkpoint, jobs=1)) == []


@pytest.mark.parametrize("shards", [32, pytest.param(8, marks=pytest.mark.slow)])  # 8 or 32 chunks of 2^24
def test_sigint_then_a_rerun_checks_every_chunk_once(shards: int, tmp_path: Path, gpu_adapter: object) -> None:
    """`vyre-conform floats` interrupted (SIGINT) in the middle of an exhaustive
    campaign exits 130 with a whole checkpoint; the same command again runs the
    chunks it lacks, and the summary counts every chunk of the shard once.
    (Shard 0/32, 8 chunks; make test-all also runs shard 0/8, 32 chunks.)"""
    import signal
    import subprocess
    import sys
    import time

    chunks = 256 // shards
    checkpoint = tmp_path / "floats.jsonl"
    command = [sys.executable, "-m", "vyre.conform.cli", "floats", "--ops", "neg", "--formats", "f32",
               "--shard", f"0/{shards}", "--checkpoint", str(checkpoint), "--jobs", "1", "--quiet"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if checkpoint.exists() and len(checkpoint.read_text().splitlines()) >= 2:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "rerun the same command" in stderr
    interrupted = [json.loads(line)["start"] for line in checkpoint.read_text().splitlines()]
    assert 2 <= len(interrupted) < chunks and checkpoint.read_text().endswith("\n")
    again = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0, again.stderr
    starts = [json.loads(line)["start"] for line in checkpoint.read_text().splitlines()]
    assert starts[: len(interrupted)] == interrupted
    assert sorted(starts) == [n << 24 for n in range(0, 256, shards)]  # shard 0 of N: every Nth chunk, once
    totals = summary(checkpoint)["f32.neg.exhaustive"]
    assert (totals["inputs"], totals["chunks"], totals["mismatches"]) == (chunks << 24, chunks, 0)


def test_a_range_runs_the_whole_chunks_it_meets() -> None:
    campaign = Campaign("exp2", "f32")
    chunk = fc.CHUNK
    assert fc.chunks_of(campaign, span=(0x3F80_0000, 1)) == [(0x3F00_0000, chunk)]
    assert fc.chunks_of(campaign, span=(chunk - 1, 2)) == [(0, chunk), (chunk, chunk)]
    assert fc.chunks_of(campaign, span=(chunk, 2 * chunk)) == [(chunk, chunk), (2 * chunk, chunk)]
    assert len(fc.chunks_of(campaign)) == 256
    assert fc.chunks_of(campaign, span=(0, 4 * chunk), shard=(1, 2)) == [(chunk, chunk), (3 * chunk, chunk)]
    assert fc.chunks_of(campaign, span=(0, 4 * chunk), done={0, 2 * chunk}) == [(chunk, chunk), (3 * chunk, chunk)]
    for bad in [(0, 0), (-1, 5), (1 << 32, 1), ((1 << 32) - 1, 2)]:
        with pytest.raises(ValueError, match="must hold at least one input of f32.exp2.exhaustive"):
            fc.chunks_of(campaign, span=bad)


def test_the_summary_does_not_depend_on_the_order_chunks_were_recorded(tmp_path: Path) -> None:
    records = [
        {"campaign": "f32.sqrt.exhaustive", "start": start, "length": 16, "mismatches": len(first),
         "first": first, "seconds": 0.5}
        for start, first in [(0, [[1, 2, 3]]), (16, []), (32, [[4, 5, 6], [7, 8, 9]])]
    ]  # fmt: skip
    in_order, shuffled = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    in_order.write_text("".join(json.dumps(r) + "\n" for r in records))
    shuffled.write_text("".join(json.dumps(r) + "\n" for r in records[::-1]))
    assert summary(shuffled) == summary(in_order)
    assert summary(in_order)["f32.sqrt.exhaustive"]["first"] == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_dask_tasks_are_consecutive_chunks_a_few_per_worker() -> None:
    from vyre.conform.float_dask import MAX_BATCH, _batches  # pyright: ignore[reportPrivateUsage]

    chunks = [(n << 24, 1 << 24) for n in range(256)]
    tasks = _batches(chunks, 4)
    assert [c for task in tasks for c in task] == chunks and {len(task) for task in tasks} == {MAX_BATCH}
    assert [len(task) for task in _batches(chunks[:10], 2)] == [2, 2, 2, 2, 2]
    assert _batches(chunks[:3], 4) == [[chunks[0]], [chunks[1]], [chunks[2]]]
    assert _batches([], 2) == []
