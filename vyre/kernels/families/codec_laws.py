"""Laws of the byte kernels (docs/byte-codecs.md):
properties the proof system witnesses on generated inputs with the op evaluated
on the CPU reference and on the backend (`vyre.conform.kernel_track`).

Each law checks the op against itself, the Python standard library and plain
Python, never against the op's reference. A decoder's outputs are
`codec_common.DECODER_OUTPUTS` (out, length, error_offset, error_code).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from vyre.kernels.spec import NO_ERROR, KernelLaw

__all__ = [
    "run",
    "DecodeSplit",
    "DecodesEncoding",
    "EncodeSplit",
    "EncodedLength",
    "EncodingDecodes",
    "ErrorLeavesNothing",
    "LongestValidPrefix",
    "ValidPrefixBeforeError",
]

Op = Callable[..., tuple[np.ndarray, ...]]


_MEMO: dict[int, tuple[Op, dict[tuple[bytes, ...], tuple[np.ndarray, ...]]]] = {}
_MEMO_ENTRIES = 64


def run(op: Op, data: bytes, *rest: Any) -> tuple[np.ndarray, ...]:
    """op(data, *rest), shared between the laws of one op function: the proof
    system hands every law of a unit the same `op`, and the decoder laws all
    look at op(x), so it is evaluated once (the op is deterministic; the
    determinism check proves it). Only the latest op is remembered."""
    entry = _MEMO.get(id(op))
    if entry is None or entry[0] is not op:
        _MEMO.clear()
        fresh: dict[tuple[bytes, ...], tuple[np.ndarray, ...]] = {}
        entry = (op, fresh)
        _MEMO[id(op)] = entry
    key = (data, *(np.asarray(r).tobytes() if not isinstance(r, int) else str(r).encode() for r in rest))
    memo = entry[1]
    if key not in memo:
        if len(memo) >= _MEMO_ENTRIES:
            memo.clear()
        memo[key] = op(_u8(data), *rest)
    return memo[key]


def _bytes(value: Any) -> bytes:
    return np.asarray(value, dtype=np.uint8).tobytes()


def _u8(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8).copy()


def _error(outputs: tuple[np.ndarray, ...]) -> int:
    return int(outputs[2][0])


def _show(data: bytes) -> str:
    return repr(data) if len(data) <= 24 else f"{data[:24]!r}... ({len(data)} bytes)"


class DecodesEncoding(KernelLaw):
    """decode(encode(x)) = x with no error, for the case's bytes x taken as raw
    data and `encode` the standard library's encoder (decode ∘ encode = id)."""

    name = "DecodesEncoding"

    def __init__(self, encode: Callable[[bytes], bytes]):
        self.encode = encode

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data = _bytes(args[0])
        outputs = run(op, self.encode(data), *args[1:])
        if _error(outputs) != NO_ERROR:
            return f"the encoding of {_show(data)} is rejected at offset {_error(outputs)}"
        got = _bytes(outputs[0])
        if got != data:
            return f"decode(encode(x)) = {_show(got)}, x = {_show(data)}"
        return None


class EncodingDecodes(KernelLaw):
    """decode(op(x)) = x with `decode` the standard library's decoder (decode ∘
    encode = id, seen from the encoder)."""

    name = "EncodingDecodes"

    def __init__(self, decode: Callable[[bytes], bytes]):
        self.decode = decode

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data = _bytes(args[0])
        text = _bytes(run(op, _bytes(args[0]), *args[1:])[0])
        try:
            back = self.decode(text)
        except ValueError as error:
            return f"the encoding {_show(text)} of {_show(data)} does not decode: {error}"
        if back != data:
            return f"decode(op(x)) = {_show(back)}, x = {_show(data)}"
        return None


class EncodedLength(KernelLaw):
    """len(op(x)) = length(len(x)) and every output byte is in the alphabet."""

    name = "EncodedLength"

    def __init__(self, length: Callable[[int], int], alphabet: bytes):
        self.length = length
        self.alphabet = re.compile(alphabet)

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        n = len(np.asarray(args[0]))
        text = _bytes(run(op, _bytes(args[0]), *args[1:])[0])
        if len(text) != self.length(n):
            return f"{len(text)} output bytes for {n} input bytes, expected {self.length(n)}"
        if not self.alphabet.fullmatch(text):
            return f"output {_show(text)} leaves the alphabet"
        return None


class EncodeSplit(KernelLaw):
    """op(a ‖ b) = op(a) ‖ op(b) when len(a) is a multiple of `unit` (a cut
    near a third of the input)."""

    name = "EncodeSplit"

    def __init__(self, unit: int):
        self.unit = unit

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data = _bytes(args[0])
        k = (len(data) // 3) // self.unit * self.unit
        whole = _bytes(run(op, data, *args[1:])[0])
        parts = _bytes(run(op, data[:k], *args[1:])[0]) + _bytes(run(op, data[k:], *args[1:])[0])
        if whole != parts:
            return f"op(a‖b) != op(a)‖op(b) for a cut at {k}"
        return None


class DecodeSplit(KernelLaw):
    """For well-formed x: decode(x) = decode(x[:k]) ‖ decode(x[k:]) for k a
    multiple of `group` before the last group (every group before the last
    decodes on its own)."""

    name = "DecodeSplit"

    def __init__(self, group: int):
        self.group = group

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data = _bytes(args[0])
        whole = run(op, data)
        if _error(whole) != NO_ERROR or len(data) < 2 * self.group:
            return None
        k = max(self.group, (len(data) // 3) // self.group * self.group)
        left, right = run(op, data[:k]), run(op, data[k:])
        if _error(left) != NO_ERROR or _error(right) != NO_ERROR:
            return f"a well-formed input cut at {k} has a malformed part"
        if _bytes(left[0]) + _bytes(right[0]) != _bytes(whole[0]):
            return f"decode(x) != decode(x[:{k}]) ‖ decode(x[{k}:])"
        return None


class ErrorLeavesNothing(KernelLaw):
    """On malformed input the output is empty and its length 0, with a C6 code;
    on well-formed input the length is the output's and the code 0."""

    name = "ErrorLeavesNothing"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        out, length, error, code = run(op, _bytes(args[0]), *args[1:])[:4]
        n = len(np.asarray(args[0]))
        if int(error[0]) == NO_ERROR:
            if int(code[0]) != 0 or int(length[0]) != len(out):
                return f"well-formed, but code {int(code[0])} and length {int(length[0])} for {len(out)} bytes"
            return None
        if len(out) or int(length[0]):
            return f"malformed at {int(error[0])}, yet {len(out)} bytes (length {int(length[0])}) came out"
        if not 1 <= int(code[0]) <= 8 or int(error[0]) > n:
            return f"error offset {int(error[0])} (of {n} bytes) with code {int(code[0])}"
        return None


class LongestValidPrefix(KernelLaw):
    """The error offset e is the length of the longest prefix that can begin a
    well-formed input: op(x[:e]) reports nothing before e, and when e < n,
    op(x[:e+1]) reports e."""

    name = "LongestValidPrefix"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data = _bytes(args[0])
        e = _error(run(op, data))
        if e == NO_ERROR:
            return None
        before = _error(run(op, data[:e]))
        if before not in (NO_ERROR, e):
            return f"error at {e}, but the prefix of {e} bytes already fails at {before}"
        if e < len(data) and _error(run(op, data[: e + 1])) != e:
            return f"error at {e}, but the prefix of {e + 1} bytes fails at {_error(run(op, data[: e + 1]))}"
        return None


class ValidPrefixBeforeError(KernelLaw):
    """The bytes before the error offset are well formed on their own (the
    offset starts the first bad record: a UTF-8 sequence, a percent escape, a
    LEB128 value), and the error stays where it is when bytes are appended."""

    name = "ValidPrefixBeforeError"

    def __init__(self, error_output: int = 2, suffix: bytes | None = b"\x00" * 5):
        self.error_output = error_output
        self.suffix = suffix

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data = _bytes(args[0])
        e = int(run(op, data)[self.error_output][0])
        if e == NO_ERROR:
            return None
        if e >= len(data):
            return f"error offset {e} is past the {len(data)} input bytes"
        before = int(run(op, data[:e])[self.error_output][0])
        if before != NO_ERROR:
            return f"error at {e}, but the {e} bytes before it fail at {before}"
        if self.suffix is None:
            return None
        longer = int(run(op, data + self.suffix)[self.error_output][0])
        if longer != e:
            return f"error at {e}, but {'none' if longer == NO_ERROR else longer} once {self.suffix!r} follows"
        return None
