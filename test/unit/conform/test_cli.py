"""`vyre-conform`: certify, merge, verify-cert; exit status; clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vyre.conform.cli import main

ARGS = ["--backend", "interp", "--strength", "fast", "--witnesses", "800", "--no-corpus"]


def test_certify_writes_a_certificate_that_verifies(tmp_path, capsys) -> None:
    out = tmp_path / "cert.json"
    code = main(["certify", *ARGS, "--ops", "primitive.bitwise.xor,primitive.math.negate", "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "PASS: no violation found." in text and "level     L2" in text
    assert json.loads(out.read_text())["level"] == "L2"
    assert main(["verify-cert", str(out)]) == 0
    assert "OK" in capsys.readouterr().out


def test_verify_cert_rejects_an_edited_certificate(tmp_path, capsys) -> None:
    out = tmp_path / "cert.json"
    assert main(["certify", *ARGS, "--ops", "primitive.bitwise.xor", "--out", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    data["law_results"][0]["verdict"] = "verified-twice"
    out.write_text(json.dumps(data))
    assert main(["verify-cert", str(out)]) == 1
    assert "REJECTED: content digest mismatch" in capsys.readouterr().err


def test_violations_give_exit_status_1(false_commutative_sub: str, tmp_path, capsys) -> None:
    out = tmp_path / "cert.json"
    code = main(["certify", *ARGS, "--ops", false_commutative_sub, "--out", str(out)])
    assert code == 1
    assert "counterexample (0x0, 0x1)" in capsys.readouterr().out


def test_shards_and_merge(tmp_path, capsys) -> None:
    ops = ["--ops", "primitive.bitwise.xor,primitive.compare.eq"]
    parts = []
    for index in range(2):
        path = tmp_path / f"shard{index}.json"
        assert main(["certify", *ARGS, *ops, "--shard", f"{index}/2", "--out", str(path), "--quiet"]) == 0
        parts.append(str(path))
    merged = tmp_path / "merged.json"
    assert main(["merge", *parts, "--out", str(merged), "--quiet"]) == 0
    single = tmp_path / "single.json"
    assert main(["certify", *ARGS, *ops, "--out", str(single), "--quiet"]) == 0
    a, b = json.loads(merged.read_text()), json.loads(single.read_text())
    assert a["content_digest"] == b["content_digest"]
    assert main(["verify-cert", str(merged)]) == 0
    assert main(["verify-cert", parts[0]]) == 1  # a shard is not a certificate
    capsys.readouterr()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["certify", "--ops", "nosuch.*"], "no registered op matches 'nosuch.*'"),
        (["certify", "--ops", "primitive.math.add", "--shard", "3/2"], "shard must be I/N"),
        (["certify", "--ops", "primitive.math.add", "--checks", "laws,speed"], "unknown check"),
        (["certify", "--strength", "heroic"], "invalid choice"),
        (["certify", "--backend", "cuda"], "invalid choice"),
        (["certify", "--resume"], "--resume needs --out or --checkpoint"),
        (["verify-cert", "/nonexistent/cert.json"], "no such certificate"),
        (["merge", "--out", "x.json"], "the following arguments are required"),
    ],
)
def test_bad_arguments_give_clear_errors(argv: list[str], message: str, capsys) -> None:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_console_script_runs_as_a_module(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "vyre.conform.cli", "verify-cert", str(tmp_path / "missing.json")],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 2
    assert "no such certificate" in result.stderr and "Traceback" not in result.stderr
