"""Host buffers: user numpy arrays <-> the packed 32-bit words the backends move.

Every non-workgroup buffer travels between `vyre.run` and a backend as a 1-D
`np.uint32` array of words (the brief's runtime contract):

| DataType          | user form (numpy)            | words per element            |
|-------------------|------------------------------|------------------------------|
| U32               | uint32, shape (n,)           | 1                            |
| BOOL              | uint32, shape (n,), 0 or 1   | 1                            |
| I32               | int32, shape (n,)            | 1 (two's complement bits)    |
| U64               | uint64, shape (n,)           | 2 (low word, then high word) |
| VEC2U32           | uint32, shape (n, 2)         | 2 (x, then y)                |
| VEC4U32           | uint32, shape (n, 4)         | 4                            |
| BYTES             | uint8 shape (n,), or bytes   | ceil(n / 4), little-endian   |

The element count of a `Bytes` buffer, on the user side, is its number of
bytes: it is rounded up to whole words for the backends and the words read back
are trimmed to that many bytes again.

Conversions never change a value: an array of another dtype or shape is a
`TypeError`, a Bool element other than 0/1 a `ValueError`; each message names
the buffer. The words of an input may share memory with the caller's array
(no copy when none is needed); they are marked read-only, and the backends
never write them. Outputs are the backend's fresh words, viewed in the user
dtype.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vyre.ir import DataType

__all__ = [
    "HostLayout",
    "from_words",
    "layout",
    "to_words",
    "word_count",
    "zero_words",
]


@dataclass(frozen=True)
class HostLayout:
    """How one element type looks on the host: user dtype, trailing shape, words."""

    dtype: np.dtype[np.generic]
    lanes: int
    """Trailing dimension of the user array (0: the array is 1-D)."""
    words_per_element: int
    description: str


_U32 = np.dtype(np.uint32)
_LAYOUTS: dict[DataType, HostLayout] = {
    DataType.U32: HostLayout(_U32, 0, 1, "a 1-D numpy array of dtype uint32"),
    DataType.BOOL: HostLayout(_U32, 0, 1, "a 1-D numpy array of dtype uint32 holding 0 or 1"),
    DataType.I32: HostLayout(np.dtype(np.int32), 0, 1, "a 1-D numpy array of dtype int32"),
    DataType.U64: HostLayout(np.dtype(np.uint64), 0, 2, "a 1-D numpy array of dtype uint64"),
    DataType.VEC2U32: HostLayout(
        _U32, 2, 2, "a numpy array of dtype uint32 and shape (n, 2)"
    ),
    DataType.VEC4U32: HostLayout(
        _U32, 4, 4, "a numpy array of dtype uint32 and shape (n, 4)"
    ),
    DataType.BYTES: HostLayout(
        np.dtype(np.uint8), 0, 1, "bytes, or a 1-D numpy array of dtype uint8"
    ),
}


def layout(dtype: DataType) -> HostLayout:
    """The host layout of an element type."""
    found = _LAYOUTS.get(dtype)
    if found is None:
        raise TypeError(f"vyre.run does not support buffers of element type `{dtype}` yet")
    return found


def word_count(dtype: DataType, count: int) -> int:
    """Words holding `count` user elements (bytes for `Bytes`)."""
    if dtype is DataType.BYTES:
        return (count + 3) // 4
    return count * layout(dtype).words_per_element


def zero_words(dtype: DataType, count: int) -> np.ndarray:
    """The zeroed words of a buffer of `count` user elements."""
    return np.zeros(word_count(dtype, count), dtype=np.uint32)


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"a numpy array of dtype {value.dtype} and shape {value.shape}"
    return f"a value of type {type(value).__name__}"


def _same_kind(actual: np.dtype[np.generic], wanted: np.dtype[np.generic]) -> bool:
    """Same kind and width; the byte order may differ (converting it keeps values)."""
    return actual.kind == wanted.kind and actual.itemsize == wanted.itemsize


def to_words(name: str, dtype: DataType, value: object) -> tuple[np.ndarray, int]:
    """The (read-only) words of one input buffer and its user element count
    (bytes for `Bytes`).

    Raises `TypeError` for a value of the wrong type, dtype or shape and
    `ValueError` for a Bool element other than 0 or 1, naming the buffer."""
    host = layout(dtype)
    if dtype is DataType.BYTES and isinstance(value, bytes | bytearray | memoryview):
        value = np.frombuffer(bytes(value), dtype=np.uint8)
    if not isinstance(value, np.ndarray) or not _same_kind(value.dtype, host.dtype):
        raise TypeError(
            f"input `{name}` ({dtype}) must be {host.description}, got {_describe(value)}"
        )
    wanted_ndim = 2 if host.lanes else 1
    if value.ndim != wanted_ndim or (host.lanes and value.shape[1] != host.lanes):
        raise TypeError(
            f"input `{name}` ({dtype}) must be {host.description}, got {_describe(value)}"
        )
    native = np.ascontiguousarray(value, dtype=host.dtype.newbyteorder("<"))
    if dtype is DataType.BOOL and native.size and int(native.max()) > 1:
        bad = int(np.flatnonzero(native > 1)[0])
        raise ValueError(
            f"input `{name}` (bool) holds {int(native[bad])} at index {bad}; "
            "Bool elements must be 0 or 1"
        )
    count = int(value.shape[0])
    if dtype is DataType.BYTES and count % 4:
        padded = np.zeros(word_count(dtype, count) * 4, dtype=np.uint8)
        padded[:count] = native
        native = padded
    words = native.reshape(-1).view("<u4")
    words.flags.writeable = False  # may share memory with the caller's array
    return words, count


def from_words(name: str, dtype: DataType, words: np.ndarray, count: int) -> np.ndarray:
    """The user form of a buffer's final words; `count` user elements (bytes for
    `Bytes`). Raises `RuntimeError` when a backend returned the wrong word count."""
    host = layout(dtype)
    expected = word_count(dtype, count)
    if words.dtype != _U32 or words.ndim != 1 or words.shape[0] != expected:
        raise RuntimeError(
            f"backend returned {_describe(words)} for buffer `{name}`, "
            f"expected {expected} uint32 words"
        )
    little = np.ascontiguousarray(words, dtype="<u4")
    if not little.flags.writeable:
        little = little.copy()
    if dtype is DataType.BYTES:
        return little.view(np.uint8)[:count]
    user = little.view(host.dtype.newbyteorder("<")).astype(host.dtype, copy=False)
    if host.lanes:
        return user.reshape(count, host.lanes)
    return user
