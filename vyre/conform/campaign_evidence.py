"""What float campaigns establish for a float-track certificate.

A certificate samples a float law (witnessed); the campaigns can settle it for
every input. For a unary `primitive.float` op, a float-campaign checkpoint
(`vyre-conform floats --laws`) may hold

- `f32.<op>.exhaustive`: the backend's result of every one of the 2**32 inputs
  equal to the exact oracle's (`float_campaign`), on a device each chunk names;
- `f32.<op>.laws`: the op's float laws on the same oracle's result of every
  input (`float_law_campaign`).

Both complete, without a mismatch or a violation, on the device the
certificate's backend is, they establish the op's float laws on that backend
for every input: `campaign_evidence` summarises them per op (this summary goes
into the plan, so the certificate's digest covers it), and the obligations of
those laws get the strength `exhaustive`. A law the law campaign found
violated fails the op at L2f.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from vyre.conform.float_checkpoint import read_chunks
from vyre.conform.float_law_campaign import checked_laws, law_campaign_name

__all__ = ["FLOAT_PREFIX", "campaign_evidence", "law_violated"]

FLOAT_PREFIX = "primitive.float."
_SIZE = 1 << 32


def _covers_everything(records: Sequence[Mapping[str, Any]]) -> bool:
    end = 0
    for record in sorted(records, key=lambda r: int(r["start"])):
        if int(record["start"]) > end:
            return False
        end = max(end, int(record["start"]) + int(record["length"]))
    return end >= _SIZE


def _summary(name: str, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    first: list[list[int]] = []
    for record in records:
        first += [list(row) for row in record["first"]][: 8 - len(first)]
    return {
        "campaign": name,
        "chunks": len(records),
        "inputs": sum(int(r["length"]) for r in records),
        "complete": _covers_everything(records),
        "mismatches": sum(int(r["mismatches"]) for r in records),
        "devices": sorted({str(r.get("device", "")) for r in records}),
        "first": first,
    }


def _violated_laws(records: Iterable[Mapping[str, Any]]) -> list[int]:
    return sorted({int(row[1]) for record in records for row in record["first"]})


def campaign_evidence(path: Path | str, op_ids: Iterable[str], device: str) -> dict[str, dict[str, Any]]:
    """Per unary float op of `op_ids` that `path` has campaigns of: its
    exhaustive campaign and law campaign summarised, the indices of the laws
    a law campaign checks (`covered`) and of those it found violated, and `exhaustive` (both complete and clean, every
    exhaustive chunk on `device`, `ConformBackend.device()`) with the
    `reason` when not."""
    records = read_chunks(path)
    out: dict[str, dict[str, Any]] = {}
    for op_id in op_ids:
        if not op_id.startswith(FLOAT_PREFIX):
            continue
        short = op_id.removeprefix(FLOAT_PREFIX)
        parity_name, laws_name = f"f32.{short}.exhaustive", law_campaign_name(short)
        parity = [r for r in records if r["campaign"] == parity_name]
        laws = [r for r in records if r["campaign"] == laws_name]
        if not parity and not laws:
            continue
        try:
            covered = [index for index, _ in checked_laws(short)]
        except ValueError:  # not a unary function with float laws: nothing to establish
            continue
        found = {"parity": _summary(parity_name, parity), "laws": _summary(laws_name, laws)}
        reason = _reason(found["parity"], found["laws"], device)
        out[op_id] = {
            **found, "covered": covered, "violated": _violated_laws(laws), "exhaustive": not reason, "reason": reason,
        }
    return out


def _reason(parity: Mapping[str, Any], laws: Mapping[str, Any], device: str) -> str:
    """Why the campaigns do not establish the laws for every input ("" when they do)."""
    if not parity["complete"]:
        return f"{parity['campaign']} covers {parity['inputs']:,} of {_SIZE:,} inputs"
    if parity["mismatches"]:
        return f"{parity['campaign']} found {parity['mismatches']:,} mismatches"
    if parity["devices"] != [device]:
        return f"{parity['campaign']} ran on {', '.join(repr(d) for d in parity['devices'])}, not on {device!r}"
    if not laws["complete"]:
        return f"{laws['campaign']} covers {laws['inputs']:,} of {_SIZE:,} inputs"
    if laws["mismatches"]:
        return f"{laws['campaign']} found {laws['mismatches']:,} violations"
    return ""


def law_violated(evidence: Mapping[str, Any] | None, index: int) -> bool:
    """Whether an op's law campaign found its declared law `index` violated."""
    return evidence is not None and index in evidence.get("violated", [])
