"""Host-side pieces of the byte kernels: the shape of a decoder's reference
result, the error descriptions of `OpInputError`, and the input samplers the
proof system draws cases from (valid encodings, encodings with one damaged
byte, raw bytes), so that the laws of a decoder see well-formed input and every
position class of malformed input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vyre.kernels.spec import NO_ERROR

__all__ = [
    "DAMAGE",
    "as_bytes",
    "damaged",
    "decoded",
    "describe_byte",
    "malformed",
    "raw_bytes",
]

DAMAGE = (0x21, 0x3D, 0x00, 0xFF, 0x80, 0x25, 0x20, 0x0A, 0x7F, 0xC0)
"""Bytes a damaged sample puts somewhere: punctuation, '=', NUL, 0xFF, a lone
continuation byte, '%', space, newline, DEL, an overlong lead."""


def as_bytes(data: Any) -> bytes:
    return np.asarray(data, dtype=np.uint8).tobytes()


def decoded(out: bytes) -> tuple[np.ndarray, ...]:
    """A well-formed decoder result (DECODER_OUTPUTS order)."""
    return (
        np.frombuffer(out, dtype=np.uint8).copy(),
        np.array([len(out)], dtype=np.uint32),
        np.array([NO_ERROR], dtype=np.uint32),
        np.array([0], dtype=np.uint32),
    )


def malformed(offset: int, code: int) -> tuple[np.ndarray, ...]:
    """A malformed-input decoder result: nothing decoded, the offset and code."""
    return (
        np.zeros(0, dtype=np.uint8),
        np.array([0], dtype=np.uint32),
        np.array([offset], dtype=np.uint32),
        np.array([code], dtype=np.uint32),
    )


def describe_byte(args: tuple[Any, ...], offset: int) -> str:
    """What is at `offset` of the first input: a byte, or the end."""
    data = as_bytes(args[0])
    if offset >= len(data):
        return f"the input ends there ({len(data)} bytes)"
    byte = data[offset]
    shown = repr(chr(byte)) if 0x20 <= byte < 0x7F else "non-printable"
    return f"byte {byte:#04x} ({shown})"


def raw_bytes(rng: np.random.Generator, n: int, pattern: str) -> np.ndarray:
    """Bytes of length n in the proof system's byte patterns."""
    if pattern == "zeros":
        return np.zeros(n, dtype=np.uint8)
    if pattern == "ones":
        return np.full(n, 0xFF, dtype=np.uint8)
    if pattern == "text":
        return rng.integers(0x20, 0x7F, n, dtype=np.uint8)
    return rng.integers(0, 256, n, dtype=np.uint8)


def damaged(rng: np.random.Generator, text: bytes) -> bytes:
    """`text` with one byte replaced (first byte, last byte, or anywhere) by a
    byte from DAMAGE."""
    if not text:
        return text
    where = int(rng.choice(np.array([0, len(text) - 1, int(rng.integers(0, len(text)))])))
    out = bytearray(text)
    out[where] = int(rng.choice(np.array(DAMAGE, dtype=np.uint8)))
    return bytes(out)


def encoded_sampler(
    encode: Callable[[bytes], bytes], filler: bytes
) -> Callable[[np.random.Generator, int, str], tuple[np.ndarray]]:
    """Inputs of length n for a decoder: the encoding of random (zero, 0xFF)
    data cut or filled to n bytes with `filler` symbols ("random", "zeros",
    "ones"), the same with one damaged byte ("few"), or printable bytes
    ("text")."""

    def sample(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
        if pattern == "text":
            return (raw_bytes(rng, n, "text"),)
        source = "random" if pattern == "few" else pattern
        length = n
        text = encode(raw_bytes(rng, length, source).tobytes())
        while len(text) > n and length > 0:
            length = max(0, min(length - 1, (length * n) // max(1, len(text))))
            text = encode(raw_bytes(rng, length, source).tobytes())
        if len(text) < n:
            text += bytes(rng.choice(np.frombuffer(filler, dtype=np.uint8), n - len(text)))
        if pattern == "few":
            text = damaged(rng, text)
        return (np.frombuffer(text, dtype=np.uint8).copy(),)

    return sample
