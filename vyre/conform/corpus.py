"""The regression corpus: every counterexample ever found, replayed on every run.

One JSON object per line (JSON Lines), append-only: entries are never edited or
removed (`append` opens the file in append mode and skips entries already
present). Lines starting with `#` are comments. An entry records the op, the
check that failed ("law:Commutative", "reference", "parity", "determinism"),
the law as written (`str(law)`) for law checks, the target ("reference": the
CPU reference, "backend": the backend's evaluation of the composition), the
minimal input tuple, and where it was found (backend, suite version, time).

Where the corpora live:
- `SHIPPED_CORPUS`, `vyre/conform/regressions.jsonl` inside the package: the
  counterexamples the project has found, installed with vyre and replayed by
  every run; never written by a run unless named as the corpus folder;
- the user's corpus, `corpus_file(folder)` in a folder of its own (the corpus
  and its `.lock` file): by default `user_corpus_dir()`, the user's cache
  folder, never inside the installed package; `vyre-conform certify --corpus
  DIR` picks another. New counterexamples are appended there.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

__all__ = [
    "CACHE_ENV_VAR",
    "CORPUS_FILE",
    "DEFAULT_CORPUS",
    "SHIPPED_CORPUS",
    "CorpusError",
    "Entry",
    "append",
    "corpus_file",
    "digest",
    "load",
    "replayed",
    "user_corpus_dir",
]


class CorpusError(ValueError):
    """A malformed corpus line (the message names the file and line), or a
    corpus named by a file instead of its folder."""


CORPUS_FILE = "regressions.jsonl"
"""The corpus's name inside its folder (the lock file is `regressions.jsonl.lock`)."""

SHIPPED_CORPUS = Path(__file__).resolve().with_name(CORPUS_FILE)
"""The project's counterexamples, package data of vyre (replayed, not written)."""


CACHE_ENV_VAR = "VYRE_CACHE_DIR"
"""Names vyre's cache folder (the user's corpus is its `conform` folder)."""


def user_corpus_dir() -> Path:
    """The folder of the user's corpus: `$VYRE_CACHE_DIR/conform` when set, else
    `$XDG_CACHE_HOME/vyre/conform` (an absolute XDG_CACHE_HOME; else
    `~/.cache/vyre/conform`, and on macOS `~/Library/Caches/vyre/conform`).
    Read when called."""
    if override := os.environ.get(CACHE_ENV_VAR, ""):
        return Path(override) / "conform"
    cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):
        home = Path.home()
        cache = str(home / "Library" / "Caches" if sys.platform == "darwin" else home / ".cache")
    return Path(cache) / "vyre" / "conform"


def corpus_file(folder: Path | str) -> Path:
    """The corpus of the folder `folder` (`folder/regressions.jsonl`); a
    `CorpusError` when `folder` is an existing file (the corpus is named by its
    folder, which also holds its lock file)."""
    path = Path(folder)
    if path.is_file():
        hint = f"; name its folder, {path.parent}" if path.name == CORPUS_FILE else ""
        raise CorpusError(
            f"a corpus is named by its folder (which holds {CORPUS_FILE} and its lock file), got the"
            f" file {path}{hint}"
        )
    return path / CORPUS_FILE


DEFAULT_CORPUS = user_corpus_dir() / CORPUS_FILE
"""The user's corpus, where `conform.certify` reads by default (resolved when
this module is imported; `vyre-conform` resolves `user_corpus_dir()` per run)."""

CHECKS = ("reference", "parity", "determinism", "oracle")
TARGETS = ("reference", "backend")


@dataclass(frozen=True)
class Entry:
    op: str
    check: str
    target: str
    inputs: tuple[int, ...]
    law: str | None = None
    op_version: int = 1
    backend: str = ""
    suite_version: str = ""
    found: str = ""

    @property
    def key(self) -> tuple[Any, ...]:
        """What makes an entry distinct (where and when it was found do not)."""
        return (self.op, self.check, self.law, self.target, self.inputs)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["inputs"] = list(self.inputs)
        return data


def _entry(data: object, where: str) -> Entry:
    from vyre.conform.schema import CORPUS_ENTRY, first_problem

    if not isinstance(data, dict):
        raise CorpusError(f"{where}: expected a JSON object")
    data = cast("dict[str, Any]", data)
    try:
        op, check, target, inputs = data["op"], data["check"], data["target"], data["inputs"]
    except KeyError as missing:
        raise CorpusError(f"{where}: missing field {missing}") from None
    if not isinstance(op, str) or not op:
        raise CorpusError(f"{where}: `op` must be an op id")
    if not isinstance(check, str) or not (check in CHECKS or check.startswith("law:")):
        raise CorpusError(f"{where}: unknown check {check!r}")
    if target not in TARGETS:
        raise CorpusError(f"{where}: `target` must be one of {TARGETS}, got {target!r}")
    if (
        not isinstance(inputs, list)
        or not inputs
        or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**32
            for v in cast("list[object]", inputs)
        )
    ):
        raise CorpusError(f"{where}: `inputs` must be a non-empty list of u32 values")
    law = data.get("law")
    if check.startswith("law:") and not isinstance(law, str):
        raise CorpusError(f"{where}: a law entry needs `law` (the law as written, e.g. Identity(0x0))")
    problem = first_problem(cast("object", data), CORPUS_ENTRY)  # the schema, after the named checks
    if problem is not None:
        raise CorpusError(f"{where}: malformed corpus entry: {problem}")
    return Entry(
        op=op,
        check=check,
        target=target,
        inputs=tuple(cast("list[int]", inputs)),
        law=law if isinstance(law, str) else None,
        op_version=int(data.get("op_version", 1)),
        backend=str(data.get("backend", "")),
        suite_version=str(data.get("suite_version", "")),
        found=str(data.get("found", "")),
    )


def load(path: Path | str | None) -> list[Entry]:
    """The entries of the corpus at `path` ([] when it does not exist)."""
    if path is None:
        return []
    file = Path(path)
    if not file.exists():
        return []
    entries: list[Entry] = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        where = f"{file}:{number}"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CorpusError(f"{where}: not JSON ({error.msg})") from None
        entries.append(_entry(data, where))
    return entries


def replayed(path: Path | str | None) -> list[Entry]:
    """What a run replays: the shipped corpus, then the entries of the corpus
    at `path` not already among them (None: no corpus at all)."""
    if path is None:
        return []
    entries = load(SHIPPED_CORPUS)
    if Path(path).resolve() != SHIPPED_CORPUS:
        known = {entry.key for entry in entries}
        entries += [entry for entry in load(path) if entry.key not in known]
    return entries


def append(path: Path | str, entries: Iterable[Entry]) -> int:
    """Append the entries not yet in the corpus; returns how many were added.
    The read of the known entries and the append happen under one file lock,
    each append is one fsynced write, so concurrent runs lose nothing and a
    kill leaves at most a cut last line (completed by the next append)."""
    from vyre.conform.files import append_lines, locked

    file = Path(path)
    with locked(file):
        known = {e.key for e in _load_tolerant(file)}
        fresh: list[Entry] = []
        for entry in entries:
            if entry.key not in known:
                known.add(entry.key)
                fresh.append(entry)
        if fresh:
            append_lines(file, [json.dumps(e.to_json(), sort_keys=True) for e in fresh], lock=False)
    return len(fresh)


def _load_tolerant(file: Path) -> list[Entry]:
    """`load`, except that a last line cut by a kill is ignored."""
    if not file.exists():
        return []
    lines = file.read_text(encoding="utf-8").splitlines()
    if lines:
        try:
            json.loads(lines[-1])
        except json.JSONDecodeError:
            lines = lines[:-1]
    entries: list[Entry] = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CorpusError(f"{file}:{number}: not JSON ({error.msg})") from None
        entries.append(_entry(data, f"{file}:{number}"))
    return entries


def digest(entries: Sequence[Entry]) -> str:
    """SHA-256 of the replayed content (keys only, in corpus order)."""
    h = hashlib.sha256()
    for entry in entries:
        h.update(json.dumps([entry.op, entry.check, entry.law, entry.target, list(entry.inputs)]).encode())
    return h.hexdigest()
