"""Campaigns on Dask (a LocalCluster of 2 workers): the same certificate as a
local run, resumable, with progress; float campaign chunks sharded over workers."""

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
    from vyre.conform.executors import run_campaign_dask
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
