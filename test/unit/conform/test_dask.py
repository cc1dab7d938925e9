"""Campaigns on Dask (a LocalCluster of 2 workers): the same certificate as a
local run, resumable, with progress; float campaign chunks sharded over workers.
On GPU workers (one per GPU, each pinned with VYRE_ADAPTER=gpu:k; here two workers
both on lavapipe, gpu:0): the same float-campaign records as one process, resumed
after an interruption, through the API and `vyre-conform floats --dask`."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("distributed")

from vyre import conform  # noqa: E402
from vyre.conform import InterpBackend  # noqa: E402

OPS = ["primitive.math.add", "primitive.bitwise.rotl", "primitive.compare.lt"]
KW = dict(backend="interp", ops=OPS, strength="fast", witnesses=2000, corpus=None)


class InterruptingInterp(InterpBackend):
    """Raises KeyboardInterrupt at its 8th program run (an interrupted local run)."""

    def __init__(self) -> None:
        self.runs = 0

    def run(self, program, words, dispatch):
        self.runs += 1
        if self.runs == 8:
            raise KeyboardInterrupt
        return super().run(program, words, dispatch)


def test_dask_certificate_equals_the_local_one_and_resumes(tmp_path, capsys) -> None:
    local = conform.certify(**KW, prove=True)
    checkpoint = tmp_path / "ck.jsonl"
    with pytest.raises(KeyboardInterrupt):
        conform.certify(**{**KW, "backend": InterruptingInterp()}, prove=True, checkpoint=checkpoint)
    finished = len(checkpoint.read_text().splitlines()) - 1
    assert finished > 0
    resumed = conform.certify(**KW, prove=True, checkpoint=checkpoint, resume=True,
                              dask="local", jobs=2, progress=True)
    assert resumed.content_digest == local.content_digest
    assert resumed.data["obligations"] == local.data["obligations"]
    assert resumed.data["run"]["units_resumed"] == finished and resumed.data["run"]["dask"] == "local"
    assert "units" in capsys.readouterr().err  # the progress bar drew
    assert not checkpoint.exists()  # removed once the certificate is issued


def test_dask_jobs_and_local_pool_agree() -> None:
    pooled = conform.certify(**KW, jobs=2)
    distributed = conform.certify(**KW, dask="local", jobs=2)
    assert pooled.content_digest == distributed.content_digest


def test_float_campaign_chunks_on_dask(tmp_path) -> None:
    from vyre.conform.float_dask import run_campaign_dask
    from vyre.conform.float_campaign import Campaign, run_campaign

    campaign = Campaign("neg", "f16", "exhaustive", 0, 1)
    checkpoint = tmp_path / "floats.jsonl"
    records = run_campaign_dask(campaign, "interp", "local", checkpoint=checkpoint, jobs=2)
    assert sum(r["length"] for r in records) == campaign.size and all(r["mismatches"] == 0 for r in records)
    local = list(run_campaign(campaign, "interp", jobs=1))
    assert [(r.start, r.length, r.mismatches) for r in local] == [(r["start"], r["length"], r["mismatches"]) for r in records]
    # resumable: a second run finds every chunk done
    assert run_campaign_dask(campaign, "interp", "local", checkpoint=checkpoint, jobs=2) == []
    assert len([json.loads(x) for x in checkpoint.read_text().splitlines()]) == len(records)


# -- GPU workers (lavapipe: two workers on gpu:0) --------------------------------------------

F32_NEG = ("neg", "f32")
SPAN = (0x0100_0000, 2 << 24)  # two chunks of 2**24


def _normal(records):
    return sorted((r["campaign"], r["start"], r["length"], r["mismatches"], r["first"]) for r in records)


def test_a_float_campaign_on_gpu_workers_equals_one_process_and_resumes(tmp_path, gpu_adapter) -> None:
    from vyre.conform.float_campaign import Campaign, run_campaign, summary
    from vyre.conform.float_dask import run_campaign_dask

    campaign = Campaign(*F32_NEG)
    serial_checkpoint = tmp_path / "one.jsonl"
    serial = [r.to_json() for r in run_campaign(campaign, "wgpu", checkpoint=serial_checkpoint, span=SPAN, jobs=1)]
    assert [r["start"] for r in serial] == [1 << 24, 2 << 24]

    checkpoint = tmp_path / "dask.jsonl"
    seen = []

    def interrupt(record) -> None:
        seen.append(record)
        raise KeyboardInterrupt  # after the first chunk is in the checkpoint

    with pytest.raises(KeyboardInterrupt):
        run_campaign_dask(campaign, "wgpu", checkpoint=checkpoint, gpus=2, span=SPAN, progress=interrupt)
    first = [json.loads(line) for line in checkpoint.read_text().splitlines()]
    assert len(seen) == 1 and _normal(first) == _normal(seen)
    rest = run_campaign_dask(campaign, "wgpu", checkpoint=checkpoint, gpus=2, span=SPAN)
    assert len(rest) == 1 and _normal(first + rest) == _normal(serial)
    assert run_campaign_dask(campaign, "wgpu", checkpoint=checkpoint, gpus=2, span=SPAN) == []  # all done

    def content(path):
        return {name: {k: v for k, v in row.items() if k != "seconds"} for name, row in summary(path).items()}

    assert content(checkpoint) == content(serial_checkpoint)


def test_vyre_conform_floats_dask_without_an_address_runs_on_gpu_workers(tmp_path, capsys, gpu_adapter) -> None:
    from vyre.conform.cli import main

    span = f"{SPAN[0]:#x}:{SPAN[1]:#x}"
    here, there = tmp_path / "here.jsonl", tmp_path / "there.jsonl"
    common = ["floats", "--ops", F32_NEG[0], "--formats", F32_NEG[1], "--range", span]
    assert main([*common, "--checkpoint", str(here), "--jobs", "1"]) == 0
    assert main([*common, "--checkpoint", str(there), "--dask", "--gpus", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("VYRE_ADAPTER=gpu:0: ") == 2  # each worker pinned, listed before the chunks
    assert out.count("f32.neg.exhaustive [0x1000000, +0x1000000): 0 mismatches") == 2
    assert out.count("f32.neg.exhaustive [0x2000000, +0x1000000): 0 mismatches") == 2

    def table(path):
        assert main(["floats-summary", str(path)]) == 0
        rows = capsys.readouterr().out.splitlines()
        return [row.rsplit("|", 2)[0] for row in rows]  # less the seconds column

    assert table(there) == table(here)
    assert main([*common, "--checkpoint", str(there), "--dask", "--gpus", "0"]) == 2
    assert "the number of GPU workers must be a positive int, got 0" in capsys.readouterr().err


@pytest.mark.slow
def test_certify_on_gpu_workers_equals_the_local_certificate(gpu_adapter) -> None:
    kw = dict(backend="wgpu", ops=["primitive.bitwise.rotl"], strength="fast", witnesses=500, corpus=None)
    local = conform.certify(**kw)
    distributed = conform.certify(**kw, dask="local", gpus=2)
    assert distributed.content_digest == local.content_digest
    assert distributed.data["obligations"] == local.data["obligations"]
    with pytest.raises(conform.PlanError, match="gpus must be a positive int"):
        conform.certify(**kw, dask="local", gpus=0)
