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
| F32               | float32, shape (n,)          | 1 (the bit pattern)          |
| F16               | float16, shape (n,)          | ceil(n / 2), two per word    |
| BF16              | uint16 bit patterns, shape (n,) | ceil(n / 2), two per word |
| U128              | uint32, shape (n, 4)         | 4 (least significant first)  |

The element count of a `Bytes` buffer, on the user side, is its number of
bytes: it is rounded up to whole words for the backends and the words read back
are trimmed to that many bytes again. F16 and BF16 buffers pack two elements per
word, element 2k in bits 0-15 and element 2k + 1 in bits 16-31 (the last word of
an odd count has a zero upper half); `from_words` returns exactly the count given.
Their element count is not derivable from the words: the backends take it in
their `lengths` argument (`PACKED_HALF_TYPES`). A BF16 input may also be an
`ml_dtypes.bfloat16` array (recognised by its dtype name; ml_dtypes is not
required); BF16 results are always uint16 bit patterns. Float conversions are
bit-exact: NaN payloads, signalling NaNs and subnormals pass unchanged.

Conversions never change a value: an array of another dtype or shape is a
`TypeError`, a Bool element other than 0/1 a `ValueError`; each message names
the buffer. The words of an input may share memory with the caller's array
(no copy when none is needed); they are marked read-only, and the backends
never write them. Outputs are the backend's fresh words, viewed in the user
dtype.

The zeroed words of an output (`zero_words`) are a read-only view of one zero
word repeated (stride 0), so they cost no memory; a backend that can zero a
buffer itself recognises them with `is_zero_fill` and uploads nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from vyre.ir import DataType

__all__ = [
    "PACKED_HALF_TYPES",
    "HostLayout",
    "from_words",
    "is_zero_fill",
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
_LITTLE_U32 = np.dtype("<u4")
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
    DataType.F32: HostLayout(np.dtype(np.float32), 0, 1, "a 1-D numpy array of dtype float32"),
    DataType.F16: HostLayout(np.dtype(np.float16), 0, 1, "a 1-D numpy array of dtype float16"),
    DataType.BF16: HostLayout(
        np.dtype(np.uint16),
        0,
        1,
        "a 1-D numpy array of dtype uint16 (bfloat16 bit patterns) or ml_dtypes.bfloat16",
    ),
    DataType.U128: HostLayout(
        _U32, 4, 4, "a numpy array of dtype uint32 and shape (n, 4), word 0 the least significant"
    ),
}

PACKED_HALF_TYPES = frozenset({DataType.F16, DataType.BF16})
"""Element types packed two per word: their element count goes to the backends
in `lengths` (n elements take ceil(n / 2) words)."""
_LITTLE_U16 = np.dtype("<u2")


_LITTLE: dict[np.dtype[np.generic], np.dtype[np.generic]] = {
    host.dtype: host.dtype.newbyteorder("<") for host in _LAYOUTS.values()
}
_WORD_DTYPES: dict[DataType, np.dtype[np.generic]] = (
    {DataType.U32: _U32, DataType.I32: np.dtype(np.int32), DataType.F32: np.dtype(np.float32)}
    if _U32 == _LITTLE_U32  # a little-endian host: native words are the host words
    else {}
)
"""Element types whose native 1-D arrays are their words as they are."""


def word_dtype(dtype: DataType) -> np.dtype[np.generic] | None:
    """The numpy dtype whose contiguous 1-D arrays ARE the host words of a
    `dtype` buffer (uint32, int32, float32 on a little-endian host), or None."""
    return _WORD_DTYPES.get(dtype)


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
    if dtype in PACKED_HALF_TYPES:
        return (count + 1) // 2
    return count * layout(dtype).words_per_element


_ZERO_WORD = np.zeros(1, dtype=np.uint32)
_ZERO_WORD.flags.writeable = False


def zero_words(dtype: DataType, count: int) -> np.ndarray:
    """The zeroed words of a buffer of `count` user elements: a read-only,
    stride-0 view of one zero word (see `is_zero_fill`)."""
    return np.ndarray((word_count(dtype, count),), _U32, _ZERO_WORD, 0, (0,))


def is_zero_fill(words: np.ndarray) -> bool:
    """True when `words` (1-D) are all zero because every element is the one zero
    word they all view (as `zero_words` makes them). Exact: a stride-0 array
    has a single element in memory, so element 0 decides."""
    return words.strides == (0,) and (words.shape[0] == 0 or int(words[0]) == 0)


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        array = cast("np.ndarray[Any, np.dtype[Any]]", value)
        return f"a numpy array of dtype {array.dtype} and shape {array.shape}"
    return f"a value of type {type(value).__name__}"


def _same_kind(actual: np.dtype[np.generic], wanted: np.dtype[np.generic]) -> bool:
    """Same kind and width; the byte order may differ (converting it keeps values)."""
    return actual.kind == wanted.kind and actual.itemsize == wanted.itemsize


def _is_bfloat16(dtype: np.dtype[np.generic]) -> bool:
    """An `ml_dtypes.bfloat16` dtype (checked by name: ml_dtypes is optional)."""
    return dtype.name == "bfloat16" and dtype.itemsize == 2


def _half_words(name: str, dtype: DataType, array: np.ndarray) -> tuple[np.ndarray, int]:
    """F16/BF16 elements packed two per little-endian word, element 2k low."""
    host = _LAYOUTS[dtype]
    if array.ndim != 1 or not (
        _same_kind(array.dtype, host.dtype)
        or (dtype is DataType.BF16 and _is_bfloat16(array.dtype))
    ):
        raise TypeError(
            f"input `{name}` ({dtype}) must be {host.description}, got {_describe(array)}"
        )
    count = int(array.shape[0])
    if _is_bfloat16(array.dtype):
        array = array.view(np.uint16)  # ml_dtypes' bfloat16 is native-endian
    # byte order converted, bits kept; then the 16-bit patterns themselves
    bits = np.ascontiguousarray(array, dtype=_LITTLE[host.dtype]).view(_LITTLE_U16)
    halves = np.zeros(2 * word_count(dtype, count), dtype=_LITTLE_U16)
    halves[:count] = bits
    words = halves.view(_LITTLE_U32)
    words.flags.writeable = False
    return words, count


def to_words(name: str, dtype: DataType, value: object) -> tuple[np.ndarray, int]:
    """The (read-only) words of one input buffer and its user element count
    (bytes for `Bytes`).

    Raises `TypeError` for a value of the wrong type, dtype or shape and
    `ValueError` for a Bool element other than 0 or 1, naming the buffer."""
    if (  # fast path: a contiguous 1-D native little-endian u32/i32 array
        type(value) is np.ndarray
        and value.dtype is _WORD_DTYPES.get(dtype)
        and value.ndim == 1
        and value.flags.c_contiguous
    ):
        words = value.view(_LITTLE_U32)  # a new view: the caller's flags stay
        words.flags.writeable = False
        return words, value.shape[0]
    host = layout(dtype)
    if dtype is DataType.BYTES and isinstance(value, bytes | bytearray | memoryview):
        value = np.frombuffer(bytes(cast("bytes", value)), dtype=np.uint8)
    if not isinstance(value, np.ndarray):
        raise TypeError(
            f"input `{name}` ({dtype}) must be {host.description}, got {_describe(value)}"
        )
    array = cast("np.ndarray[Any, np.dtype[Any]]", value)
    if dtype in PACKED_HALF_TYPES:
        return _half_words(name, dtype, array)
    wanted_ndim = 2 if host.lanes else 1
    if (
        not _same_kind(array.dtype, host.dtype)
        or array.ndim != wanted_ndim
        or (host.lanes and array.shape[1] != host.lanes)
    ):
        raise TypeError(
            f"input `{name}` ({dtype}) must be {host.description}, got {_describe(array)}"
        )
    native: np.ndarray[Any, np.dtype[Any]] = np.ascontiguousarray(array, dtype=_LITTLE[host.dtype])
    if dtype is DataType.BOOL and native.size and int(native.max()) > 1:
        bad = int(np.flatnonzero(native > 1)[0])
        raise ValueError(
            f"input `{name}` (bool) holds {int(native[bad])} at index {bad}; "
            "Bool elements must be 0 or 1"
        )
    count = int(array.shape[0])
    if dtype is DataType.BYTES and count % 4:
        padded = np.zeros(word_count(dtype, count) * 4, dtype=np.uint8)
        padded[:count] = native
        native = padded
    flat = native if native.ndim == 1 else native.reshape(-1)
    words = flat.view(_LITTLE_U32)  # a new view even when `flat` is the caller's array
    words.flags.writeable = False  # may share memory with the caller's array
    return words, count


def from_words(name: str, dtype: DataType, words: np.ndarray, count: int) -> np.ndarray:
    """The user form of a buffer's final words; `count` user elements (bytes for
    `Bytes`). Raises `RuntimeError` when a backend returned the wrong word count."""
    if (  # fast path: fresh native words of a u32 or bool buffer are the user array
        (dtype is DataType.U32 or dtype is DataType.BOOL)
        and type(words) is np.ndarray
        and words.dtype is _U32
        and _U32 is _WORD_DTYPES.get(DataType.U32)
        and words.ndim == 1
        and words.shape[0] == count
        and words.flags.c_contiguous
        and words.flags.writeable
    ):
        return words
    host = layout(dtype)
    expected = word_count(dtype, count)
    if words.dtype != _U32 or words.ndim != 1 or words.shape[0] != expected:
        raise RuntimeError(
            f"backend returned {_describe(words)} for buffer `{name}`, "
            f"expected {expected} uint32 words"
        )
    little = np.ascontiguousarray(words, dtype=_LITTLE_U32)
    if not little.flags.writeable:
        little = little.copy()
    if dtype is DataType.BYTES:
        return little.view(np.uint8)[:count]
    if dtype in PACKED_HALF_TYPES:
        halves = little.view(_LITTLE_U16)[:count]
        return halves.view(_LITTLE[host.dtype]).astype(host.dtype, copy=False)
    user = little.view(_LITTLE[host.dtype]).astype(host.dtype, copy=False)
    if host.lanes:
        return user.reshape(count, host.lanes)
    return user
