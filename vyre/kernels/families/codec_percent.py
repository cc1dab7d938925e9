"""decode.url_percent and encode.url_percent_encode (docs/byte-codecs.md).

- `encode.url_percent_encode(b)`: every byte outside `A-Za-z0-9-._~` becomes
  `%XX` with upper-case hex digits: exactly `urllib.parse.quote_from_bytes(b,
  safe="")`, whose always-safe set (`urllib.parse._ALWAYS_SAFE`, CPython 3.7+)
  is that same set of 66 bytes.
- `decode.url_percent(s)`: `%XY` with two hex digits (either case) becomes the
  byte 0xXY, every other byte is kept (`+` stays `+`). Strict: a `%` not
  followed by two hex digits is malformed, where
  `urllib.parse.unquote_to_bytes` would keep it; on well-formed input the result
  is `unquote_to_bytes(s)`. The error offset is the position of that `%` (the
  start of the first bad escape); code 5 (truncated) when the input ends before
  its two digits and the digits present are hex, else 1 (invalid symbol).

Both change lengths with the data: scan-based (`codec_common.ScanKernel`).
Every invocation owns a chunk (one word) and counts what it emits (encode: 1 or 3
bytes a byte; decode: 0 for the two digits of an escape, else 1: a position p
is a digit when s[p-1] or s[p-2] is `%`, which on well-formed input only an
escape's digits are); the exclusive scan of the counts gives each chunk its
output position, and the chunk writes its bytes from there with a
`ByteWriter` (atomicOr into the first and last word of its run, plain stores
between). The decoder also flags every bad `%` of its chunk and merges the
first with a global atomicMin (deterministic). The outputs are sized for the
worst case (3n for encode, n for decode); the host trims them to `length`.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families import codec_laws as L
from vyre.kernels.families.codec_common import (
    CHUNK,
    DECODER_OUTPUTS,
    SCAN_BOUNDARIES,
    ArrayOutput,
    ByteWriter,
    ScanKernel,
    byte_at,
    byte_of,
    select_first,
    unique,
)
from vyre.kernels.families.codec_host import as_bytes, describe_byte, decoded, malformed
from vyre.kernels.spec import NO_ERROR, Buffer, KernelLaw, KernelSpec, Port

__all__ = ["DECODE", "ENCODE", "KERNELS", "SAFE", "safe_mask"]

SAFE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
PERCENT = ord("%")


def safe_mask() -> np.ndarray:
    """The safe bytes as a 256-bit mask in 8 words."""
    words = np.zeros(8, dtype=np.uint32)
    for b in SAFE:
        words[b >> 5] |= np.uint32(1 << (b & 31))
    return words


def _hex_digit(b: Expr) -> tuple[Expr, Expr]:
    """(is a hex digit of either case, its value)."""
    folded = E.bitor(b, E.u32(0x20))
    digit = E.lt(E.sub(b, E.u32(0x30)), E.u32(10))
    letter = E.lt(E.sub(folded, E.u32(0x61)), E.u32(6))
    return E.or_(digit, letter), E.select(digit, E.sub(b, E.u32(0x30)), E.sub(folded, E.u32(0x57)))


def _upper_hex(v: Expr) -> Expr:
    return E.add(v, E.select(E.lt(v, E.u32(10)), E.u32(0x30), E.u32(0x37)))


def _bytes_around(c: Expr, before: int, after: int) -> list[Node]:
    """`pb{k}` := byte 4c + k for k in [-before, 4 + after) (k >= 0 past n and
    k < 0 before the input read as 0, which is neither `%` nor a hex digit), and
    `here{j}` := byte 4c + j is below n. A chunk is one word (CHUNK_WORDS = 1)."""
    assert CHUNK == 4
    n, in0 = E.var("n"), E.var("in0")
    words: list[Node] = [Node.let("pw0", E.load("data", E.add(in0, c)))]
    if before:
        previous = E.load("data", E.sub(E.add(in0, c), E.u32(1)))
        words.append(Node.let("pwm", E.select(E.eq(c, E.u32(0)), E.u32(0), previous)))
    if after:
        words.append(Node.let("pw1", E.load("data", E.add(E.add(in0, c), E.u32(1)))))
    base = E.shl(c, E.u32(2))
    for k in range(-before, 4 + after):
        source = "pwm" if k < 0 else "pw0" if k < 4 else "pw1"
        byte = byte_of(E.var(source), k % 4)
        if k >= 0:
            here = E.lt(E.add(base, E.u32(k)) if k else base, n)
            if k < 4:
                words.append(Node.let(f"here{k}", here))
                here = E.var(f"here{k}")
            byte = E.select(here, byte, E.u32(0))
        words.append(Node.let(f"pb{k + 2}", byte))
    return words


def _out_base() -> Expr:
    """The byte position of this evaluation's output in `out`."""
    return E.shl(E.var("out0"), E.u32(2))


def _b(k: int) -> Expr:
    return E.var(f"pb{k + 2}")


# ---------------------------------------------------------------------------
# Encode
# ---------------------------------------------------------------------------


def _is_safe(b: Expr) -> Expr:
    word = E.load("safe", E.shr(b, E.u32(5)))
    return E.ne(E.bitand(E.shr(word, E.bitand(b, E.u32(31))), E.u32(1)), E.u32(0))


def _encode_count(c: Expr) -> tuple[list[Node], Expr]:
    total: Expr = E.u32(0)
    for j in range(4):
        emits = E.select(_is_safe(_b(j)), E.u32(1), E.u32(3))
        total = E.add(total, E.select(E.var(f"here{j}"), emits, E.u32(0)))
    return _bytes_around(c, 0, 0), total


def _encode_scatter(c: Expr, r: str) -> list[Node]:
    writer = ByteWriter("out", "enc")
    nodes = [*_bytes_around(c, 0, 0), *writer.begin(E.add(_out_base(), E.var(r)))]
    for j in range(4):
        b = _b(j)
        escape = [
            *writer.put(E.u32(PERCENT)),
            *writer.put(_upper_hex(E.shr(b, E.u32(4)))),
            *writer.put(_upper_hex(E.bitand(b, E.u32(15)))),
        ]
        nodes.append(Node.if_(E.var(f"here{j}"), [Node.if_(_is_safe(b), writer.put(b), escape)]))
    return [*nodes, *writer.end(), Node.assign(r, E.sub(E.var(writer.pos), _out_base()))]


def _encode_finish(total: Expr) -> list[Node]:
    return [Node.store("length", E.var("job"), total)]


ENCODE = ScanKernel(
    "url_percent_encode",
    (
        BufferDecl.read("data", 0, DataType.U32),
        BufferDecl.read("safe", 1, DataType.U32),
        BufferDecl.read_write("out", 2, DataType.U32),
        BufferDecl.read_write("length", 3, DataType.U32),
    ),
    _encode_count,
    _encode_scatter,
    _encode_finish,
    arrays=(ArrayOutput("out", DataType.BYTES, lambda n: 3 * n),),
    scalars=(("length", 0),),
    constants=(Buffer("safe", DataType.U32, 8, words=safe_mask()),),
)
_encode_plan, _encode_plan_many = ENCODE.planners()


# ---------------------------------------------------------------------------
# Decode
# ---------------------------------------------------------------------------


def _emits(j: int) -> Expr:
    """Whether byte j of the chunk (below n) emits: not one of an escape's digits."""
    return E.and_(
        E.var(f"here{j}"),
        E.and_(E.ne(_b(j - 1), E.u32(PERCENT)), E.ne(_b(j - 2), E.u32(PERCENT))),
    )


def _decode_count(c: Expr) -> tuple[list[Node], Expr]:
    nodes = _bytes_around(c, 2, 2)
    total: Expr = E.u32(0)
    flags: list[tuple[Expr, Expr]] = []
    base = E.shl(c, E.u32(2))
    for j in range(4):
        total = E.add(total, E.select(_emits(j), E.u32(1), E.u32(0)))
        hi_ok, _ = _hex_digit(_b(j + 1))
        lo_ok, _ = _hex_digit(_b(j + 2))
        bad = E.and_(E.eq(_b(j), E.u32(PERCENT)), E.logical_not(E.and_(hi_ok, lo_ok)))
        flags.append((bad, E.add(base, E.u32(j)) if j else base))
    bad_name = unique("bad")
    nodes += [
        Node.let(bad_name, select_first(flags)),
        Node.if_(
            E.ne(E.var(bad_name), E.u32(NO_ERROR)),
            [Node.let(unique("_o"), E.atomic(AtomicOp.MIN, "error_offset", E.var("job"), E.var(bad_name)))],
        ),
    ]
    return nodes, total


def _decode_scatter(c: Expr, r: str) -> list[Node]:
    writer = ByteWriter("out", "dec")
    nodes = [*_bytes_around(c, 2, 2), *writer.begin(E.add(_out_base(), E.var(r)))]
    for j in range(4):
        _, hi = _hex_digit(_b(j + 1))
        _, lo = _hex_digit(_b(j + 2))
        value = E.select(E.eq(_b(j), E.u32(PERCENT)), E.bitor(E.shl(hi, E.u32(4)), lo), _b(j))
        nodes.append(Node.if_(_emits(j), writer.put(value)))
    return [*nodes, *writer.end(), Node.assign(r, E.sub(E.var(writer.pos), _out_base()))]


def _decode_finish(total: Expr) -> list[Node]:
    """The code of the first bad escape and the output length."""
    e, n, job = E.var("e"), E.var("n"), E.var("job")
    hi_ok, _ = _hex_digit(byte_at("data", E.add(E.shl(E.var("in0"), E.u32(2)), E.add(e, E.u32(1)))))
    truncated = E.or_(E.ge(E.add(e, E.u32(1)), n), E.and_(hi_ok, E.ge(E.add(e, E.u32(2)), n)))
    none = E.eq(e, E.u32(NO_ERROR))
    return [
        Node.let("e", E.load("error_offset", job)),
        Node.store("error_code", job, E.select(none, E.u32(0), E.select(truncated, E.u32(5), E.u32(1)))),
        Node.store("length", job, E.select(none, total, E.u32(0))),
    ]


DECODE = ScanKernel(
    "url_percent_decode",
    (
        BufferDecl.read("data", 0, DataType.U32),
        BufferDecl.read_write("out", 1, DataType.U32),
        BufferDecl.read_write("length", 2, DataType.U32),
        BufferDecl.read_write("error_offset", 3, DataType.U32),
        BufferDecl.read_write("error_code", 4, DataType.U32),
    ),
    _decode_count,
    _decode_scatter,
    _decode_finish,
    arrays=(ArrayOutput("out", DataType.BYTES, lambda n: n),),
    scalars=(("length", 0), ("error_offset", NO_ERROR), ("error_code", 0)),
)
_decode_plan, _decode_plan_many = DECODE.planners()


# ---------------------------------------------------------------------------
# References, laws, samples, specs
# ---------------------------------------------------------------------------

_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")
_HEX = frozenset(b"0123456789abcdefABCDEF")


def _encode_reference(data: Any) -> tuple[np.ndarray, ...]:
    text = urllib.parse.quote_from_bytes(as_bytes(data), safe="").encode("ascii")
    return np.frombuffer(text, dtype=np.uint8).copy(), np.array([len(text)], dtype=np.uint32)


def _decode_reference(data: Any) -> tuple[np.ndarray, ...]:
    text = as_bytes(data)
    bad = _BAD_ESCAPE.search(text)
    if bad is None:
        return decoded(urllib.parse.unquote_to_bytes(text))
    e = bad.start()
    rest = text[e + 1 : e + 3]
    return malformed(e, 5 if len(rest) < 2 and all(b in _HEX for b in rest) else 1)


class EncodedForm(KernelLaw):
    """len(op(x)) = len(x) + 2 * (bytes of x outside the safe set); the output
    is safe bytes and `%XX` escapes with upper-case digits only; the
    encoding of a ‖ b is the encoding of a then of b."""

    name = "EncodedForm"
    _FORM = re.compile(rb"(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})*")

    def check(self, op: Any, args: tuple[Any, ...]) -> str | None:
        data = as_bytes(args[0])
        out = as_bytes(L.run(op, data)[0])
        unsafe = sum(1 for b in data if b not in SAFE)
        if len(out) != len(data) + 2 * unsafe:
            return f"{len(out)} output bytes for {len(data)} input bytes with {unsafe} unsafe"
        if not self._FORM.fullmatch(out):
            return "the output is not safe bytes and upper-case escapes"
        k = len(data) // 3
        if as_bytes(L.run(op, data[:k])[0]) + as_bytes(L.run(op, data[k:])[0]) != out:
            return f"op(a‖b) != op(a)‖op(b) (cut at {k})"
        return None


KERNELS = (
    KernelSpec(
        id="encode.url_percent_encode",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.BYTES, length_from="length"), Port("length", DataType.U32, scalar=True)),
        kind="scan-based",
        reference=_encode_reference,
        plan=_encode_plan,
        plan_many=_encode_plan_many,
        summary="every byte outside A-Za-z0-9-._~ as %XX, upper case (urllib.parse.quote_from_bytes(b, safe=''))",
        laws=(L.EncodingDecodes(urllib.parse.unquote_to_bytes), EncodedForm()),
        boundaries=SCAN_BOUNDARIES,
        max_length=0xFFFF_FFFF // 3,  # up to 3 output bytes a byte; `length` is a u32 (C5)
    ),
    KernelSpec(
        id="decode.url_percent",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=DECODER_OUTPUTS,
        kind="scan-based",
        reference=_decode_reference,
        plan=_decode_plan,
        plan_many=_decode_plan_many,
        summary="%XY escapes decoded, other bytes kept; a % without two hex digits is malformed",
        laws=(
            L.DecodesEncoding(lambda b: urllib.parse.quote_from_bytes(b, safe="").encode("ascii")),
            L.ErrorLeavesNothing(),
            L.ValidPrefixBeforeError(),
        ),
        sample=S.percent_encoded,
        boundaries=SCAN_BOUNDARIES,
        error_from="error_offset",
        code_from="error_code",
        describe_error=describe_byte,
    ),
)
