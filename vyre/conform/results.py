"""The result record of one check in one unit (what `certificate.assemble` groups)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["Result", "result"]

Result = dict[str, Any]


def result(
    check: str,
    target: str,
    domain: str,
    cases: int,
    violations: int,
    *,
    law: str | None = None,
    first: int | None = None,
    counterexample: Sequence[int] | None = None,
    raw: Sequence[int] | None = None,
    detail: str | None = None,
    error: str | None = None,
) -> Result:
    """`check` ("law:Name", "reference", "parity", ...) on `target` ("reference":
    the CPU reference, "backend": the backend under test) over `cases` inputs of
    `domain`, `violations` of which failed; the minimal `counterexample` and the
    `raw` one it was shrunk from."""
    return {
        "check": check,
        "law": law,
        "target": target,
        "domain": domain,
        "cases": int(cases),
        "violations": int(violations),
        "first": None if first is None else int(first),
        "counterexample": None if counterexample is None else [int(v) for v in counterexample],
        "raw": None if raw is None else [int(v) for v in raw],
        "detail": detail,
        "error": error,
    }
