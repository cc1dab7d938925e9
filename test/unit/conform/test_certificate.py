"""Certificates: required fields, digest, registry hash, human report."""

from __future__ import annotations

import json

import pytest

from vyre import conform, ops
from vyre.conform import verify_certificate
from vyre.ir import Expr as E
from vyre.ops import laws as L

from .conftest import wrapping_sub

FAST = {"strength": "fast", "witnesses": 1000, "corpus": None}


@pytest.fixture(scope="module")
def cert() -> conform.Certificate:
    return conform.certify(backend="interp", ops=["primitive.math.sub", "primitive.bitwise.not"], **FAST)


def test_required_fields(cert: conform.Certificate) -> None:
    data = json.loads(cert.to_json())
    for field in (
        "backend", "suite_version", "level", "strength", "seeds", "ops", "coverage", "law_results",
        "checks", "failures", "regression_count", "registry", "content_digest", "run",
    ):
        assert field in data, field
    assert data["backend"]["id"] == "interp"
    assert data["strength"]["name"] == "fast" and data["strength"]["witnesses"] == 1000
    assert {o["id"]: o["version"] for o in data["ops"]} == {
        "primitive.math.sub": 1, "primitive.bitwise.not": 1
    }
    # the certified ops and, transitively, every op their compositions call or laws name
    assert data["registry"]["ops"] == sorted(
        {"primitive.math.sub", "primitive.bitwise.not", "primitive.bitwise.and",
         "primitive.bitwise.or", "primitive.bitwise.xor"}
    )
    assert "timestamp" in data["run"] and "duration_s" in data["run"]
    sub = next(c for c in data["coverage"] if c["op"] == "primitive.math.sub")
    assert sub["classes"] == 2 and sub["boundaries"] > 0 and sub["laws"] == ["SelfInverse(0x0)"]
    laws = {(r["op"], r["law"], r["target"]) for r in data["law_results"]}
    assert ("primitive.bitwise.not", "DeMorgan(primitive.bitwise.and, primitive.bitwise.or)", "backend") in laws


def test_verify_accepts_an_intact_certificate(cert: conform.Certificate, tmp_path) -> None:
    path = tmp_path / "cert.json"
    cert.write(path)
    assert verify_certificate(conform.load_certificate(path)) == []


def test_timestamp_and_duration_are_not_content(cert: conform.Certificate) -> None:
    data = json.loads(cert.to_json())
    data["run"]["timestamp"] = "1999-01-01T00:00:00+00:00"
    data["run"]["duration_s"] = 12345.0
    assert verify_certificate(conform.Certificate(data)) == []


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.__setitem__("level", "L4"),
        lambda d: d["failures"].append({"op_id": "x"}),
        lambda d: d["law_results"][0]["domains"]["u8"].__setitem__("violations", 1),
        lambda d: d["strength"].__setitem__("witnesses", 10**8),
        lambda d: d["registry"].__setitem__("hash", "0" * 64),
    ],
)
def test_verify_rejects_any_change(cert: conform.Certificate, edit) -> None:
    data = json.loads(cert.to_json())
    edit(data)
    problems = verify_certificate(conform.Certificate(data))
    assert problems and "content digest mismatch" in problems[0]


def test_verify_rejects_a_changed_registry(register) -> None:
    op_id = register("sub", 2, wrapping_sub, lambda a, b: E.sub(a, b), laws=[L.SelfInverse(0)])
    issued = conform.certify(backend="interp", ops=[op_id], **FAST)
    assert verify_certificate(issued) == []
    spec = ops.get(op_id)
    ops.unregister(op_id)
    # same id, new composition (the lowered WGSL changes)
    ops.register(
        type(spec)(
            id=op_id, version=1, signature=spec.signature, category="A", reference=wrapping_sub,
            composition=lambda a, b: E.add(a, E.negate(b)), laws=[L.SelfInverse(0)], boundaries=[0, 1],
        )
    )
    problems = verify_certificate(issued)
    assert len(problems) == 1 and "registry hash mismatch" in problems[0]


def test_human_report(false_commutative_sub: str) -> None:
    failing = conform.certify(backend="interp", ops=[false_commutative_sub], **FAST)
    text = failing.to_human()
    assert "level     L1" in text and "FAILURES (2)" in text
    assert "counterexample (0x0, 0x1)" in text and "Fix: " in text
    assert failing.content_digest in text
