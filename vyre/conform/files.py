"""Crash-safe conformance files: atomic replacement, durable appends, locks.

- `write_atomic(path, text)`: the text goes to a temporary file in the same
  folder, is fsynced, then renamed over `path` (and the folder fsynced), so a
  reader sees the old file or the new one, never a torn one, whatever kills the
  writer (SIGINT, SIGKILL, power loss after the rename).

Every file is created with mode 0o666 less the process umask, as `open` makes
files (a certificate is `-rw-r--r--` under umask 022).
- `append_lines(path, lines)`: under an exclusive lock of `path` (fcntl.flock
  on a `.lock` file beside it), one `write` of whole lines then fsync; a line
  cut by a kill is the file's last line and readers skip it.
- `locked(path)`: the same lock, held around a read-modify-append (the corpus),
  so two runs appending to one corpus lose nothing.
- `committed_lines(path)`: what a reader of such an appended file takes: its
  whole lines, the part after the last newline (a write cut by a kill) left out.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Generator, Iterable
from pathlib import Path

__all__ = ["append_lines", "committed_lines", "locked", "write_atomic"]


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path | str, text: str) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = _create_temporary(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_dir(target.parent)


def _create_temporary(target: Path) -> tuple[int, str]:
    """A new file beside `target` (a hidden name no other file has), created
    with mode 0o666 less the process umask, as any file the user writes
    (`tempfile.mkstemp` would make it 0o600, and the rename keeps that mode)."""
    while True:
        temp = str(target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp"))
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temp
        except FileExistsError:
            continue


@contextlib.contextmanager
def locked(path: Path | str) -> Generator[None]:
    """An exclusive advisory lock tied to `path` (a `<name>.lock` file beside it)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    lock = target.with_name(target.name + ".lock")
    with open(lock, "a", encoding="utf-8") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def append_lines(path: Path | str, lines: Iterable[str], *, lock: bool = True) -> None:
    """Append whole lines durably (one write, fsync). A torn last line (a write
    cut by a kill: no final newline) was never committed and is cut off first,
    so the file only ever holds whole lines before its end."""
    target = Path(path)
    payload = "".join(line.rstrip("\n") + "\n" for line in lines)
    if not payload:
        return
    context = locked(target) if lock else contextlib.nullcontext()
    with context:
        fd = os.open(target, os.O_RDWR | os.O_CREAT, 0o666)  # less the umask
        try:
            size = os.fstat(fd).st_size
            if size:
                keep = _whole_lines_end(fd, size)
                if keep != size:
                    os.ftruncate(fd, keep)
                    size = keep
            os.lseek(fd, size, os.SEEK_SET)
            os.write(fd, payload.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)


def _whole_lines_end(fd: int, size: int) -> int:
    """The offset just past the file's last newline (0 when it has none)."""
    position = size
    while position > 0:
        start = max(0, position - 65536)
        block = os.pread(fd, position - start, start)
        found = block.rfind(b"\n")
        if found >= 0:
            return start + found + 1
        position = start
    return 0


def committed_lines(path: Path | str) -> list[tuple[int, str]]:
    """The committed lines of a file `append_lines` writes, as (line number, text),
    blank lines left out: the part after the last newline was never committed.
    Raises `OSError` / `UnicodeDecodeError` when the file cannot be read."""
    text = Path(path).read_text(encoding="utf-8")
    lines = text.split("\n")[:-1]
    return [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
