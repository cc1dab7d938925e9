"""Conformance files survive interruption and concurrency, and bad files get
clean errors (issue 16): schemas on load, atomic certificates, durable
checkpoint lines, locked corpus appends, SIGINT then --resume."""

from __future__ import annotations

import json
import multiprocessing
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vyre import conform
from vyre.conform import corpus as corpus_mod
from vyre.conform.certificate import CertificateError, load_certificate
from vyre.conform.files import append_lines, write_atomic
from vyre.conform.schema import CERTIFICATE, problems

REPO = Path(__file__).resolve().parents[3]
CLI = [sys.executable, "-m", "vyre.conform.cli"]


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=REPO, capture_output=True, text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def good_cert(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cert") / "cert.json"
    conform.certify(backend="interp", ops=["primitive.math.add"], strength="fast", witnesses=100,
                    corpus=None).write(path)
    return path


def _mutations(data: dict) -> list[object]:
    bad: list[object] = ["not json at all {", [1, 2, 3], {"format": "vyre-conform-certificate/1"}]
    for key, value in [("registry", []), ("registry", {"ops": "x", "hash": "y"}), ("failures", {}),
                       ("ops", [{"id": 3}]), ("level", "L9"), ("content_digest", 12), ("backend", "wgpu"),
                       ("failures", [{"op_id": "a", "check": "b", "target": "c", "counterexample": ["x"], "fix": "y"}])]:
        bad.append({**data, key: value})
    return bad


def test_verify_cert_on_malformed_certificates_is_one_clean_line(good_cert: Path, tmp_path: Path, capsys) -> None:
    from vyre.conform.cli import main

    data = json.loads(good_cert.read_text())
    assert problems(data, CERTIFICATE) == []
    assert main(["verify-cert", str(good_cert)]) == 0
    capsys.readouterr()
    for n, bad in enumerate(_mutations(data)):
        path = tmp_path / f"bad{n}.json"
        path.write_text(bad if isinstance(bad, str) else json.dumps(bad))
        assert main(["verify-cert", str(path)]) == 2, bad
        stderr = capsys.readouterr().err
        assert stderr.startswith("vyre-conform: error: ") and stderr.count("\n") == 1, stderr
    done = _cli("verify-cert", str(tmp_path / "bad3.json"))  # the real process: no traceback either
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_malformed_corpus_lines_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"op": "x", "check": "law:Comm", "target": "backend", "inputs": [2**40]}) + "\n")
    with pytest.raises(corpus_mod.CorpusError, match=r"c.jsonl:1: .*u32"):
        corpus_mod.load(path)


def _append_worker(args: tuple[str, int]) -> None:
    path, who = args
    for batch in range(15):
        entries = [corpus_mod.Entry(op=f"user.w{who}", check="reference", target="backend", inputs=(batch, k))
                   for k in range(10)]
        corpus_mod.append(path, entries)


def test_concurrent_corpus_appends_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "regressions.jsonl"
    path.write_text('{"op": "user.cut", "check": "reference", "target": "back')  # a line cut by a kill
    with multiprocessing.get_context("fork").Pool(3) as pool:
        pool.map(_append_worker, [(str(path), w) for w in range(3)])
    good = corpus_mod.load(path)  # strict: every line whole and valid
    assert len(good) == 3 * 15 * 10 and len({(e.op, e.inputs) for e in good}) == 450


def test_write_atomic_never_leaves_a_torn_file(tmp_path: Path) -> None:
    path = tmp_path / "cert.json"
    write_atomic(path, "old\n")

    class Boom(str):
        pass

    with pytest.raises(TypeError):
        write_atomic(path, None)  # type: ignore[arg-type]  # fails mid-write
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["cert.json"]
    append_lines(tmp_path / "log", ["a", "b"])
    with open(tmp_path / "log", "a") as f:
        f.write('{"cut')
    append_lines(tmp_path / "log", ["c"])
    assert (tmp_path / "log").read_text().splitlines() == ["a", "b", "c"]  # the cut line was never committed


def test_checkpoint_tolerates_a_cut_line_and_rejects_corruption(tmp_path: Path) -> None:
    kw = dict(backend="interp", ops=["primitive.math.add"], strength="fast", witnesses=200, corpus=None)
    full = conform.certify(**kw)
    checkpoint = tmp_path / "ck.jsonl"
    conform.certify(**kw, checkpoint=checkpoint, shard="0/1")  # deleted once done: rebuild one by hand
    from vyre.conform.suite import CHECKPOINT_FORMAT

    plan_digest = full.data["plan"]["digest"]
    checkpoint.write_text(json.dumps({"format": CHECKPOINT_FORMAT, "plan": plan_digest}) + "\n" + '{"key": "laws-ref')
    resumed = conform.certify(**kw, checkpoint=checkpoint, resume=True)
    assert resumed.content_digest == full.content_digest
    checkpoint.write_text(json.dumps({"format": CHECKPOINT_FORMAT, "plan": plan_digest}) + "\n"
                          + json.dumps({"key": "x", "results": "not a list"}) + "\n")
    with pytest.raises(CertificateError, match="corrupt checkpoint record"):
        conform.certify(**kw, checkpoint=checkpoint, resume=True)


def test_sigint_mid_run_then_resume_gives_the_same_certificate(tmp_path: Path, good_cert: Path) -> None:
    args = ["certify", "--backend", "interp", "--ops", "primitive.math.*", "--strength", "fast",
            "--witnesses", "20000", "--no-corpus", "--quiet", "--checks", "reference"]
    out = tmp_path / "cert.json"
    out.write_text(good_cert.read_text())  # an earlier certificate at the same path stays intact
    checkpoint = Path(str(out) + ".checkpoint.jsonl")
    process = subprocess.Popen([*CLI, *args, "--out", str(out)], cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if checkpoint.exists() and len(checkpoint.read_text().splitlines()) >= 4:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "--resume" in stderr
    load_certificate(out)  # the old certificate is still whole
    lines = checkpoint.read_text().splitlines()
    finished = [json.loads(x) for x in lines[1:] if x.endswith("}")]
    assert len(finished) >= 3
    done = _cli(*args, "--out", str(out), "--resume")
    assert done.returncode == 0, done.stderr
    resumed = load_certificate(out)
    assert resumed.data["run"]["units_resumed"] >= 3 and not checkpoint.exists()
    fresh = tmp_path / "fresh.json"
    assert _cli(*args, "--out", str(fresh)).returncode == 0
    assert load_certificate(fresh).content_digest == resumed.content_digest
