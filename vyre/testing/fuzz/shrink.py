"""Delta debugging (ddmin) over the pieces of an input: lines, then characters
for text, bytes for blobs. Keeps a removal while the failure persists."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["ddmin", "shrink_bytes", "shrink_text"]

T = TypeVar("T")


def ddmin(
    items: Sequence[T], still_fails: Callable[[Sequence[T]], bool], *, max_checks: int = 2_000
) -> list[T]:
    """A 1-minimal-ish subsequence of `items` for which `still_fails` holds
    (Zeller's ddmin: remove chunks of halving size)."""
    current = list(items)
    chunks = 2
    checks = 0
    while len(current) >= 2 and checks < max_checks:
        size = max(1, len(current) // chunks)
        removed = False
        for start in range(0, len(current), size):
            candidate = current[:start] + current[start + size :]
            checks += 1
            if candidate and still_fails(candidate):
                current = candidate
                chunks = max(chunks - 1, 2)
                removed = True
                break
            if checks >= max_checks:
                break
        if not removed:
            if size == 1:
                break
            chunks = min(len(current), chunks * 2)
    return current


def shrink_text(data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
    """Lines first, then characters (UTF-8 text)."""
    text = data.decode("utf-8", "replace")
    lines = ddmin(text.splitlines(keepends=True), lambda c: still_fails("".join(c).encode()))
    chars = ddmin(list("".join(lines)), lambda c: still_fails("".join(c).encode()), max_checks=1_000)
    return "".join(chars).encode()


def shrink_bytes(data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
    return bytes(ddmin(list(data), lambda c: still_fails(bytes(c))))
