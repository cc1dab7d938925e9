"""Conformance files survive interruption and concurrency, and bad files get
clean errors: schemas on load, atomic certificates, durable
checkpoint lines, locked corpus appends, SIGINT then --resume."""

from __future__ import annotations

import json
import re
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


ARGS = ["--backend", "interp", "--strength", "fast", "--witnesses", "400", "--no-corpus", "--quiet"]


def test_a_certificate_that_cannot_be_written_keeps_its_checkpoint(tmp_path: Path, capsys) -> None:
    """The checkpoint was deleted before the certificate was written: an --out
    that cannot be written (here a folder) lost the whole run. It stays until the
    certificate is on disk, so --resume finishes from it."""
    from vyre.conform.cli import main

    ops = ["--ops", "primitive.bitwise.xor,primitive.math.negate"]
    folder = tmp_path / "out"
    folder.mkdir()
    checkpoint = tmp_path / "out.checkpoint.jsonl"
    assert main(["certify", *ARGS, *ops, "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vyre-conform: error:") and len(err.strip().splitlines()) == 1
    lines = checkpoint.read_text().splitlines()
    assert len(lines) > 2
    out = tmp_path / "cert.json"
    assert main(["certify", *ARGS, *ops, "--out", str(out), "--checkpoint", str(checkpoint), "--resume"]) == 0
    resumed = load_certificate(out)
    assert resumed.data["run"]["units_resumed"] == len(lines) - 1 and resumed.data["run"]["units_run"] == 0
    assert not checkpoint.exists()  # removed once the certificate is on disk
    fresh = tmp_path / "fresh.json"
    assert main(["certify", *ARGS, *ops, "--out", str(fresh)]) == 0
    assert load_certificate(fresh).content_digest == resumed.content_digest
    assert not (tmp_path / "fresh.json.checkpoint.jsonl").exists()


@pytest.mark.parametrize("run", [None, {"duration_s": None}, {"duration_s": "1"}])
def test_merge_of_a_shard_without_its_run_record_is_a_one_line_error(tmp_path: Path, capsys, run: object) -> None:
    """`run` lies outside the digest; a shard without it (or without a number
    for its duration) gave a KeyError/TypeError traceback."""
    from vyre.conform.cli import main

    parts = []
    for index in range(2):
        path = tmp_path / f"shard{index}.json"
        assert main(["certify", *ARGS, "--ops", "primitive.bitwise.xor", "--shard", f"{index}/2", "--out", str(path)]) == 0
        parts.append(path)
    data = json.loads(parts[1].read_text())
    if run is None:
        del data["run"]
    else:
        data["run"] = run
    parts[1].write_text(json.dumps(data))
    assert main(["merge", *map(str, parts), "--out", str(tmp_path / "merged.json"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert re.match(r"vyre-conform: error: shard certificate 2 is malformed: /(run/duration_s)?: (missing `run`|expected number)", err)
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "merged.json").exists()


@pytest.mark.parametrize(
    "line,problem",
    [('{"campaign": "f16.neg.exhaustive"}', "missing `start`"), ("[1, 2]", "expected object, got list"),
     ('{"campaign": "x", "start": 0, "length": 5, "mismatches": -1, "first": [], "seconds": 1}', "below 0"),
     ('{"campaign": "x", "start": 0, "len', "not JSON")],
)  # fmt: skip
def test_float_checkpoint_lines_are_schema_checked(tmp_path: Path, capsys, line: str, problem: str) -> None:
    """A committed line that is not a chunk record gave KeyError/TypeError
    tracebacks in floats-summary; it is a one-line error naming the line now
    (only an uncommitted last line, one without its newline, is skipped)."""
    from vyre.conform.cli import main

    good = {"campaign": "neg.f16.exhaustive", "start": 0, "length": 65536, "mismatches": 0, "first": [], "seconds": 1.5}
    path = tmp_path / "floats.jsonl"
    path.write_text(json.dumps(good) + "\n" + line + "\n")
    assert main(["floats-summary", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"vyre-conform: error: {path}:2: not a float-campaign chunk record") and problem in err
    assert len(err.strip().splitlines()) == 1
    path.write_text(json.dumps(good) + "\n" + line)  # the same text as a torn last line: skipped
    assert main(["floats-summary", str(path)]) == 0
    assert "| neg.f16.exhaustive | 65,536 | 0 | 1 |" in capsys.readouterr().out
