"""The checkpoint of float campaigns: one JSON line per finished chunk.

`append_chunk` adds a chunk's record the crash-safe way (`files.append_lines`:
under the file's lock, one write, fsync; a line a kill cut short is cut off
before the next append, so no record is ever glued onto a torn one).
`read_chunks` gives the committed records (`files.committed_lines`), each
checked against `schema.FLOAT_CHUNK` (`schema.parse_line`): the last line
without its newline was never committed
and is skipped (its chunk runs again on resume, and is counted once); any other
line that is not a chunk record is corruption, a `FloatCheckpointError`
naming the file, the line and the problem. A chunk recorded twice (two runs of
one shard) is the same result and counts once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vyre.conform.files import append_lines, committed_lines
from vyre.conform.schema import FLOAT_CHUNK, parse_line

__all__ = ["FloatCheckpointError", "append_chunk", "finished_starts", "read_chunks"]


class FloatCheckpointError(ValueError):
    """A float-campaign checkpoint line that is not a chunk record."""


def append_chunk(path: Path | str, record: Mapping[str, Any]) -> None:
    """Append one chunk record durably (see the module doc)."""
    append_lines(path, [json.dumps(record)])


def read_chunks(path: Path | str) -> list[dict[str, Any]]:
    """The committed chunk records of a checkpoint, in file order, each one
    recorded chunk once ([] when the file does not exist)."""
    target = Path(path)
    if not target.exists():
        return []
    try:
        lines = committed_lines(target)
    except (OSError, UnicodeDecodeError) as error:
        raise FloatCheckpointError(f"{target}: unreadable float-campaign checkpoint ({error})") from None
    records: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    for number, line in lines:
        record = parse_line(line, FLOAT_CHUNK)
        if isinstance(record, str):
            raise FloatCheckpointError(f"{target}:{number}: not a float-campaign chunk record: {record}")
        key = (record["campaign"], record["start"])
        if key not in seen:
            seen.add(key)
            records.append(record)
    return records


def finished_starts(path: Path | str | None, campaign: str) -> set[int]:
    """The starts of the chunks of `campaign` that `path` records."""
    if path is None:
        return set()
    return {record["start"] for record in read_chunks(path) if record["campaign"] == campaign}

