"""The stored truth of float campaigns: the exact oracle's checksums of their chunks.

A campaign (`float_campaign`) checks a chunk by comparing the kernel's two
position-dependent sums with the sums of the exact oracle's results, and the
oracle is the costly side: the host computes it for every input, while a GPU
checks the same inputs tens of times faster. The oracle's sums depend on the
campaign (op, format, input space), the chunk (start, length) and the checksum
scheme alone, never on the device, so they are computed once and stored: a
truth file. A run against it (`run_campaign(truth=...)`, `vyre-conform floats
--truth FILE`) takes each chunk's expected sums from the file and computes no
oracle; a chunk the file lacks falls back to the oracle, and a chunk whose sums
differ is diffed against the oracle as before, so its record is the one an
oracle run writes.

The file is JSON lines, appended to the crash-safe way (`files.append_lines`:
under the file's lock, one write, fsync; a line a kill cut short is cut off
before the next append). It may hold several campaigns, each a header line
before its chunk lines:

- header (`schema.FLOAT_TRUTH_HEADER`): `{"truth": "vyre-float-truth/1",
  "campaign": "f32.exp2.exhaustive", "scheme": ..., "oracle": ..., "vyre": ...,
  "commit": ..., "digest": ...}`: the campaign, the checksum scheme its sums
  follow, what produced them (the oracle, vyre's version, the git commit of the
  source tree when it is a checkout, else "") and the SHA-256 of those fields;
- chunk (`schema.FLOAT_TRUTH_CHUNK`): `{"campaign": ..., "start": ...,
  "length": ..., "sums": [s1, s2], "digest": ...}`, the digest the first 16 hex
  digits of the SHA-256 of (scheme, campaign, start, length, sums): a record
  edited, garbled into another valid line, or moved under another campaign or
  scheme fails it.

Reading (`load_truth`) takes the committed lines only (`files.committed_lines`:
the last line without its newline was never written whole and is skipped);
any other line that is not a header or a chunk of a campaign headed before it,
or whose digest fails, is a `FloatTruthError` naming the file and the line.
A chunk recorded twice with the same sums counts once; with other sums it is
an error. A truth is refused (`FloatTruthError`, a `ValueError`) when the file
holds no header of the campaign (another campaign, format or input space) or
its header names another checksum scheme.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vyre.conform.files import append_lines, committed_lines
from vyre.conform.schema import FLOAT_TRUTH_CHUNK, FLOAT_TRUTH_HEADER, parse_line

__all__ = ["FORMAT", "FloatTruthError", "Truth", "TruthIdentity", "TruthRecord", "TruthWriter", "load_truth"]

FORMAT = "vyre-float-truth/1"

Sums = tuple[int, int]
Chunk = tuple[int, int]


class FloatTruthError(ValueError):
    """A truth file that cannot serve a campaign: unreadable, corrupt, of another
    campaign or checksum scheme, or contradicted by the oracle."""


@dataclass(frozen=True)
class TruthIdentity:
    """What a truth must match to serve a campaign: its name (op, format, input
    space) and the checksum scheme of its sums."""

    campaign: str
    scheme: str


@dataclass(frozen=True)
class TruthRecord:
    """The oracle's sums of one chunk of a campaign."""

    campaign: str
    start: int
    length: int
    sums: Sums

    def digest(self, scheme: str) -> str:
        text = json.dumps([scheme, self.campaign, self.start, self.length, list(self.sums)])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self, scheme: str) -> dict[str, Any]:
        return {
            "campaign": self.campaign, "start": self.start, "length": self.length,
            "sums": list(self.sums), "digest": self.digest(scheme),
        }  # fmt: skip


@dataclass(frozen=True)
class Truth:
    """The stored sums of one campaign's chunks, by (start, length)."""

    identity: TruthIdentity
    chunks: Mapping[Chunk, Sums] = field(default_factory=lambda: {})
    source: str = ""
    """Where it was read (for messages)."""
    producers: tuple[str, ...] = ()
    """What produced it: one line per distinct header (oracle, vyre, commit)."""

    def expected(self, start: int, length: int) -> Sums | None:
        """The stored sums of the chunk, or None when the truth lacks it."""
        return self.chunks.get((start, length))

    def only(self, chunks: Iterable[Chunk]) -> Truth:
        """The part of the truth these chunks need (what a Dask task carries)."""
        wanted = {chunk: self.chunks[chunk] for chunk in chunks if chunk in self.chunks}
        return Truth(self.identity, wanted, self.source, self.producers)

    @property
    def digest(self) -> str:
        """SHA-256 of the campaign, the scheme and every stored chunk, in input order."""
        rows = [[start, length, *sums] for (start, length), sums in sorted(self.chunks.items())]
        text = json.dumps([self.identity.campaign, self.identity.scheme, rows])
        return hashlib.sha256(text.encode()).hexdigest()

    def check(self, start: int, length: int, oracle: Sums) -> None:
        """Raise `FloatTruthError` when the stored sums of a chunk are not the
        oracle's (a run recomputed them to diff a chunk)."""
        stored = self.expected(start, length)
        if stored is None or stored == oracle:
            return
        raise FloatTruthError(
            f"{self.source or 'truth'}: the stored checksum of {self.identity.campaign} chunk"
            f" [{start:#x}, +{length:#x}) is {list(stored)}, the oracle's is {list(oracle)}: the truth"
            " file is wrong; rebuild it, or run without it"
        )

    def describe(self) -> str:
        """How many chunks it holds, their digest's first 16 digits and what computed them."""
        if not self.producers:
            return f"no chunk of {self.identity.campaign} stored yet"
        return (
            f"{len(self.chunks)} chunks of {self.identity.campaign}, digest {self.digest[:16]}"
            f" (computed by {'; '.join(self.producers)})"
        )


@dataclass
class _Campaign:
    """What a truth file holds of one campaign."""

    scheme: str
    producers: list[str]
    chunks: dict[Chunk, Sums]


def _producer(header: Mapping[str, Any]) -> str:
    commit = f" commit {header['commit']}" if header["commit"] else ""
    return f"{header['oracle']}, vyre {header['vyre']}{commit}"


def _header_digest(header: Mapping[str, Any]) -> str:
    fields = {key: value for key, value in header.items() if key != "digest"}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _read(path: Path) -> dict[str, _Campaign]:
    """Every campaign a truth file holds, checked line by line (the module doc)."""
    try:
        lines = committed_lines(path)
    except (OSError, UnicodeDecodeError) as error:
        raise FloatTruthError(f"{path}: unreadable truth file ({error})") from None
    found: dict[str, _Campaign] = {}
    for number, line in lines:
        problem = _take(found, line)
        if problem is not None:
            raise FloatTruthError(f"{path}:{number}: {problem}")
    return found


def _take(found: dict[str, _Campaign], line: str) -> str | None:
    """Add a line's header or chunk to `found`; what is wrong with it, if anything."""
    header = _is_header(line)
    record = parse_line(line, FLOAT_TRUTH_HEADER if header else FLOAT_TRUTH_CHUNK)
    if isinstance(record, str):
        return f"not a float-campaign truth {'header' if header else 'record'}: {record}"
    name = record["campaign"]
    held = found.get(name)
    if header:
        if record["digest"] != _header_digest(record):
            return f"the header of {name} fails its digest"
        if held is None:
            found[name] = _Campaign(record["scheme"], [_producer(record)], {})
        elif held.scheme != record["scheme"]:
            return f"a second header of {name} with another checksum scheme ({record['scheme']})"
        elif _producer(record) not in held.producers:
            held.producers.append(_producer(record))
        return None
    if held is None:
        return f"a chunk of {name} before its header"
    chunk = TruthRecord(name, record["start"], record["length"], (record["sums"][0], record["sums"][1]))
    if record["digest"] != chunk.digest(held.scheme):
        return f"the record of {name} chunk {chunk.start:#x} fails its digest"
    known = held.chunks.setdefault((chunk.start, chunk.length), chunk.sums)
    if known != chunk.sums:
        return f"{name} chunk {chunk.start:#x} recorded again with other sums"
    return None


def _is_header(line: str) -> bool:
    try:
        value: object = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(value, dict) and "truth" in value


def load_truth(path: Path | str, identity: TruthIdentity, *, building: bool = False) -> Truth:
    """The truth of the campaign `identity` names in the file at `path`.
    `FloatTruthError` when the file is corrupt, its header of the campaign names
    another checksum scheme, or (unless `building`: a run that adds to it) the
    file does not exist or holds no truth of the campaign."""
    target = Path(path)
    if not target.exists():
        if building:
            return Truth(identity, {}, str(target))
        raise FloatTruthError(f"{target}: no such truth file")
    held = _read(target).get(identity.campaign)
    if held is None:
        if building:
            return Truth(identity, {}, str(target))
        others = ", ".join(sorted(_read(target))) or "nothing"
        raise FloatTruthError(f"{target}: holds no truth of {identity.campaign} (it holds {others})")
    if held.scheme != identity.scheme:
        raise FloatTruthError(
            f"{target}: the truth of {identity.campaign} follows checksum scheme {held.scheme},"
            f" this run checks with {identity.scheme}"
        )
    return Truth(identity, held.chunks, str(target), tuple(held.producers))


class TruthWriter:
    """Appends one campaign's oracle sums to a truth file: its header before its
    first chunk, each chunk once (a chunk the file holds already is left alone;
    one it holds with other sums is a `FloatTruthError`)."""

    def __init__(self, path: Path | str, identity: TruthIdentity, oracle: str) -> None:
        self.path, self.identity = Path(path), identity
        held = _read(self.path).get(identity.campaign) if self.path.exists() else None
        if held is not None and held.scheme != identity.scheme:
            raise FloatTruthError(
                f"{self.path}: the truth of {identity.campaign} follows checksum scheme {held.scheme},"
                f" this run computes {identity.scheme}"
            )
        self._known: dict[Chunk, Sums] = dict(held.chunks) if held is not None else {}
        self._headed = held is not None
        version, commit = _made_by()
        header: dict[str, Any] = {
            "truth": FORMAT, "campaign": identity.campaign, "scheme": identity.scheme,
            "oracle": oracle, "vyre": version, "commit": commit,
        }  # fmt: skip
        self._header = {**header, "digest": _header_digest(header)}

    def add(self, record: TruthRecord) -> None:
        if record.campaign != self.identity.campaign:
            raise ValueError(f"a chunk of {record.campaign} for the truth of {self.identity.campaign}")
        known = self._known.get((record.start, record.length))
        if known == record.sums:
            return
        if known is not None:
            raise FloatTruthError(
                f"{self.path}: {record.campaign} chunk {record.start:#x} is stored with sums {list(known)},"
                f" the oracle now gives {list(record.sums)}"
            )
        lines = [] if self._headed else [json.dumps(self._header)]
        append_lines(self.path, [*lines, json.dumps(record.to_json(self.identity.scheme))])
        self._known[(record.start, record.length)] = record.sums
        self._headed = True


def _made_by() -> tuple[str, str]:
    """vyre's installed version ("unknown" when not installed) and the git commit of
    the source tree vyre runs from ("" when it is no checkout, or git is missing)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("vyre")
    except PackageNotFoundError:
        installed = "unknown"
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return installed, ""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return installed, ""
    commit = done.stdout.strip()
    return installed, commit if done.returncode == 0 and len(commit) == 40 else ""
