"""Conformance certificates: the document, its records, digest and checks.

A certificate is assembled from a plan and its unit results only
(`vyre.conform.assemble`), so a single run, merged shards and a resumed run
produce the same content. Its `content_digest` is the SHA-256 of the canonical
JSON of every field except `run` (timestamp, duration, host, shard and resume
details) and the digest itself; `registry_hash` covers every spec it certifies
and their dependencies. `verify_certificate` recomputes both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from vyre.conform.findings import Failure, Obligation
from vyre.conform.kinds import Level
from vyre.conform.plan import registry_hash, sha256_json
from vyre.conform.report import human_report

__all__ = [
    "FORMAT",
    "Certificate",
    "CertificateError",
    "content_digest",
    "load_certificate",
    "verify_certificate",
]

FORMAT = "vyre-conform-certificate/1"
PARTIAL_FORMAT = "vyre-conform-shard/1"


class CertificateError(ValueError):
    """A certificate that cannot be read, merged or verified."""


def content_digest(data: Mapping[str, Any]) -> str:
    body = {k: v for k, v in data.items() if k not in ("run", "content_digest")}
    return sha256_json(body)


class Certificate:
    """A certificate: `.level`, `.failures`, `.to_json()`, `.to_human()`."""

    def __init__(self, data: Mapping[str, Any]):
        self.data: dict[str, Any] = dict(data)

    @property
    def level(self) -> Level:
        return Level(self.data["level"])

    @property
    def passed(self) -> bool:
        return not self.data["failures"]

    @property
    def failures(self) -> list[Failure]:
        return [Failure.from_json(f) for f in self.data["failures"]]

    @property
    def obligations(self) -> list[Obligation]:
        return [Obligation.from_json(o) for o in self.data.get("obligations", [])]

    @property
    def partial(self) -> bool:
        return self.data.get("format") == PARTIAL_FORMAT

    @property
    def content_digest(self) -> str:
        return str(self.data["content_digest"])

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.data, indent=indent, sort_keys=True)

    def write(self, path: Path | str) -> None:
        """Atomically (temp file, fsync, rename): never a torn certificate."""
        from vyre.conform.files import write_atomic

        write_atomic(path, self.to_json() + "\n")

    def to_human(self) -> str:
        return human_report(self.data)

    def __repr__(self) -> str:
        return (
            f"Certificate(backend={self.data['backend'].get('id')!r}, level={self.level.value!r},"
            f" ops={len(self.data['ops'])}, failures={len(self.data['failures'])})"
        )


def finish(content: Mapping[str, Any], run: Mapping[str, Any]) -> Certificate:
    """The certificate of assembled `content`: its digest, then the `run` details."""
    data = dict(content)
    data["content_digest"] = content_digest(data)
    data["run"] = dict(run)
    return Certificate(data)


# ---------------------------------------------------------------------------
# Reading and verifying
# ---------------------------------------------------------------------------


def load_certificate(path: Path | str) -> Certificate:
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CertificateError(f"no such certificate: {file}") from None
    except (OSError, json.JSONDecodeError) as error:
        raise CertificateError(f"{file}: not a JSON certificate ({error})") from None
    document = cast("dict[str, Any]", data) if isinstance(data, dict) else None
    if document is None or document.get("format") not in (FORMAT, PARTIAL_FORMAT):
        raise CertificateError(f"{file}: not a vyre-conform certificate (no `format: {FORMAT}`)")
    from vyre.conform.schema import CERTIFICATE, first_problem

    problem = first_problem(document, CERTIFICATE)
    if problem is not None:
        raise CertificateError(f"{file}: malformed certificate: {problem}")
    return Certificate(document)


def verify_certificate(cert: Certificate) -> list[str]:
    """Problems found by recomputing the content digest and the registry hash
    ([] when the certificate is intact and matches the registry)."""
    data = cert.data
    problems: list[str] = []
    try:
        recorded = data["content_digest"]
        actual = content_digest(data)
    except (KeyError, TypeError) as error:
        return [f"malformed certificate: {error}"]
    if recorded != actual:
        problems.append(
            f"content digest mismatch: recorded {recorded}, recomputed {actual}"
            " (the certificate was changed after it was issued)"
        )
    registry = data.get("registry", {})
    from vyre import ops

    from vyre.conform.tensor_cases import TENSOR_OPS

    known = set(ops.known_op_ids()) | set(TENSOR_OPS)
    missing = [op_id for op_id in registry.get("ops", []) if op_id not in known]
    if missing:
        problems.append(
            f"op(s) {', '.join(missing)} are not registered here: register them (ops.register)"
            " before verifying"
        )
    try:
        current = registry_hash(registry.get("ops", []))
    except Exception as error:  # noqa: BLE001 - reported, not raised
        problems.append(f"could not recompute the registry hash: {error}")
        return problems
    if registry.get("hash") != current:
        problems.append(
            f"registry hash mismatch: certificate {registry.get('hash')}, current registry {current}"
            " (an op's id, version, laws, signature or lowered WGSL changed since it was issued)"
        )
    return problems
