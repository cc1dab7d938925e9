"""Host word conversion: user numpy arrays <-> packed little-endian u32 words.

The expected words are built here with `struct`, independently of numpy views."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from vyre.ir import DataType
from vyre.runtime.host import from_words, to_words, word_count, zero_words


def packed(fmt: str, values: list[int]) -> list[int]:
    """Little-endian words of `values` packed with struct format `fmt`."""
    raw = struct.pack("<" + fmt * len(values), *values)
    raw += b"\0" * (-len(raw) % 4)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


CASES = [
    (DataType.U32, np.array([0, 1, 0xFFFF_FFFF, 0x1234_5678], dtype=np.uint32),
     packed("I", [0, 1, 0xFFFF_FFFF, 0x1234_5678]), 4),
    (DataType.BOOL, np.array([0, 1, 1, 0], dtype=np.uint32), [0, 1, 1, 0], 4),
    (DataType.I32, np.array([-1, 0, -(2**31), 2**31 - 1], dtype=np.int32),
     packed("i", [-1, 0, -(2**31), 2**31 - 1]), 4),
    (DataType.U64, np.array([0x0123_4567_89AB_CDEF, 2**64 - 1, 5], dtype=np.uint64),
     packed("Q", [0x0123_4567_89AB_CDEF, 2**64 - 1, 5]), 3),
    (DataType.VEC2U32, np.array([[1, 2], [3, 0xFFFF_FFFF]], dtype=np.uint32), [1, 2, 3, 0xFFFF_FFFF], 2),
    (DataType.VEC4U32, np.arange(8, dtype=np.uint32).reshape(2, 4), list(range(8)), 2),
    (DataType.BYTES, np.array([1, 2, 3, 4, 5], dtype=np.uint8), packed("B", [1, 2, 3, 4, 5]), 5),
]


@pytest.mark.parametrize(("dtype", "user", "words", "count"), CASES, ids=[c[0].value for c in CASES])
def test_round_trip(dtype: DataType, user: np.ndarray, words: list[int], count: int) -> None:
    got, got_count = to_words("buf", dtype, user)
    assert got.dtype == np.uint32 and got.ndim == 1
    assert got.tolist() == words
    assert got_count == count
    back = from_words("buf", dtype, got, count)
    assert back.dtype == user.dtype and back.shape == user.shape
    assert np.array_equal(back, user)


def test_u64_low_word_first() -> None:
    words, _ = to_words("x", DataType.U64, np.array([(7 << 32) | 9], dtype=np.uint64))
    assert words.tolist() == [9, 7]


def test_bytes_objects_and_padding() -> None:
    words, count = to_words("b", DataType.BYTES, b"\x01\x02\x03\x04\x05\x06")
    assert count == 6
    assert words.tolist() == [0x0403_0201, 0x0000_0605]
    assert from_words("b", DataType.BYTES, words, 6).tobytes() == b"\x01\x02\x03\x04\x05\x06"
    assert to_words("b", DataType.BYTES, bytearray(b"\xff"))[0].tolist() == [0xFF]
    assert to_words("b", DataType.BYTES, b"")[0].tolist() == []


def test_big_endian_input_keeps_its_values() -> None:
    words, _ = to_words("a", DataType.U32, np.array([1, 0x0102_0304], dtype=">u4"))
    assert words.tolist() == [1, 0x0102_0304]


def test_non_contiguous_input() -> None:
    base = np.arange(10, dtype=np.uint32)
    words, count = to_words("a", DataType.U32, base[::2])
    assert words.tolist() == [0, 2, 4, 6, 8] and count == 5


def test_input_words_cannot_change_the_callers_array() -> None:
    user = np.array([1, 2, 3], dtype=np.uint32)
    words, _ = to_words("a", DataType.U32, user)
    with pytest.raises(ValueError, match="read-only"):
        words[0] = 99
    assert user.tolist() == [1, 2, 3] and user.flags.writeable


def test_outputs_are_writable_even_from_read_only_words() -> None:
    frozen = np.array([5, 6], dtype=np.uint32)
    frozen.flags.writeable = False
    out = from_words("o", DataType.U32, frozen, 2)
    out[0] = 1
    assert out.tolist() == [1, 6] and frozen.tolist() == [5, 6]


def test_word_counts() -> None:
    assert word_count(DataType.U32, 5) == 5
    assert word_count(DataType.U64, 5) == 10
    assert word_count(DataType.VEC4U32, 3) == 12
    assert word_count(DataType.BYTES, 0) == 0
    assert word_count(DataType.BYTES, 5) == 2
    assert zero_words(DataType.VEC2U32, 3).tolist() == [0] * 6


@pytest.mark.parametrize(
    ("dtype", "value", "fragment"),
    [
        (DataType.U32, np.array([1, 2], dtype=np.int64), "dtype int64"),
        (DataType.U32, np.array([1, 2], dtype=np.int32), "dtype int32"),
        (DataType.U32, [1, 2, 3], "type list"),
        (DataType.U32, np.zeros((2, 2), dtype=np.uint32), "shape (2, 2)"),
        (DataType.U32, np.uint32(3), "type uint32"),
        (DataType.I32, np.array([1], dtype=np.uint32), "dtype uint32"),
        (DataType.U64, np.array([1], dtype=np.uint32), "dtype uint32"),
        (DataType.VEC2U32, np.zeros(4, dtype=np.uint32), "shape (4,)"),
        (DataType.VEC2U32, np.zeros((2, 4), dtype=np.uint32), "shape (2, 4)"),
        (DataType.VEC4U32, np.zeros((2, 2), dtype=np.uint32), "shape (2, 2)"),
        (DataType.BYTES, np.zeros(4, dtype=np.uint32), "dtype uint32"),
        (DataType.BYTES, "abc", "type str"),
        (DataType.BOOL, np.array([True, False]), "dtype bool"),
    ],
)
def test_wrong_type_or_shape(dtype: DataType, value: object, fragment: str) -> None:
    with pytest.raises(TypeError, match=r"input `buf`") as info:
        to_words("buf", dtype, value)
    assert fragment in str(info.value)


def test_bool_values_must_be_zero_or_one() -> None:
    with pytest.raises(ValueError, match=r"input `flags` \(bool\) holds 2 at index 1; Bool elements must be 0 or 1"):
        to_words("flags", DataType.BOOL, np.array([1, 2, 0], dtype=np.uint32))


def test_from_words_checks_backend_length() -> None:
    with pytest.raises(RuntimeError, match=r"buffer `o`.*expected 4 uint32 words"):
        from_words("o", DataType.U64, np.zeros(3, dtype=np.uint32), 2)
