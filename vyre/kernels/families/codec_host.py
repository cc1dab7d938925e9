"""Host-side pieces of the byte kernels: the shape of a decoder's reference
result and the error descriptions of `OpInputError` (the decoders' input
samplers are `vyre.kernels.samplers.encoded`, `percent_encoded`,
`leb128_stream` and `utf8_text`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vyre.kernels.spec import NO_ERROR

__all__ = ["as_bytes", "decoded", "describe_byte", "malformed"]


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
