"""decode.uleb128_u32 and encode.uleb128_u32: unsigned LEB128 streams of u32
values (DWARF 5 §7.6; docs/byte-codecs.md).

- `encode.uleb128_u32(values)` (U32[k] -> Bytes): each value as its shortest
  LEB128 form, 7 bits a byte from the lowest, the top bit set on every byte but
  the last: max(1, ceil(bits / 7)) bytes (1 for 0, 5 for values >= 2^28); the
  streams of the values one after the other.
- `decode.uleb128_u32(data)` (Bytes -> U32 values[count], count, error_offset,
  error_code): the values of a stream. A value may take more bytes than it
  needs (DWARF allows padding such as 0x80 0x00), at most 5. Malformed (C6):
  code 6 (overflow) at the 5th byte of a value when it has its continuation bit
  or bits above the 32nd (> 0x0F); code 5 (truncated) at the first byte of a
  last value the stream ends inside (fewer than 5 bytes, the last with its
  continuation bit). The offset is the first error a left-to-right reader meets.

Both are scan-based (`codec_common.ScanKernel`, chunks of one word of input):
- decode: a chunk counts its terminators (bytes without the continuation bit,
  SWAR); the scan gives each chunk its first value index; each terminator
  assembles its value from up to four bytes before it (the word before and its
  own) and writes it. Overflow is local: byte p is flagged when the four bytes
  before it all have the continuation bit and p > 0x0F (if that run is part of a
  longer one, an earlier byte is flagged too, so the minimum is the first
  error; atomicMin, deterministic). The finish step looks at the last five bytes
  for a truncated value.
- encode: a chunk (one value) counts its bytes; the scan gives its position;
  it writes its bytes with a `ByteWriter`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families import codec_laws as L
from vyre.kernels.families.codec_common import (
    SCAN_BOUNDARIES,
    ArrayOutput,
    ByteWriter,
    ScanKernel,
    byte_at,
    byte_of,
    select_first,
    unique,
)
from vyre.kernels.families.codec_host import as_bytes, describe_byte
from vyre.kernels.spec import NO_ERROR, KernelLaw, KernelSpec, Port

__all__ = ["DECODE", "ENCODE", "KERNELS", "leb128_decode", "leb128_encode"]

HIGH = 0x8080_8080


# ---------------------------------------------------------------------------
# Decode
# ---------------------------------------------------------------------------


def _bytes_back(c: Expr) -> list[Node]:
    """`lb{k + 4}` := byte 4c + k for k in -4..3 (0 before the input and past n),
    `lhere{j}` := byte 4c + j is below n."""
    n, in0 = E.var("n"), E.var("in0")
    nodes: list[Node] = [
        Node.let("lw0", E.load("data", E.add(in0, c))),
        Node.let("lwm", E.select(E.eq(c, E.u32(0)), E.u32(0), E.load("data", E.sub(E.add(in0, c), E.u32(1))))),
    ]
    base = E.shl(c, E.u32(2))
    for k in range(-4, 4):
        byte = byte_of(E.var("lwm" if k < 0 else "lw0"), k % 4)
        if k >= 0:
            nodes.append(Node.let(f"lhere{k}", E.lt(E.add(base, E.u32(k)) if k else base, n)))
            byte = E.select(E.var(f"lhere{k}"), byte, E.u32(0))
        nodes.append(Node.let(f"lb{k + 4}", byte))
    return nodes


def _lb(k: int) -> Expr:
    return E.var(f"lb{k + 4}")


def _continues(k: int) -> Expr:
    return E.ge(_lb(k), E.u32(0x80))


def _decode_count(c: Expr) -> tuple[list[Node], Expr]:
    nodes = _bytes_back(c)
    total: Expr = E.u32(0)
    flags: list[tuple[Expr, Expr]] = []
    base = E.shl(c, E.u32(2))
    for j in range(4):
        total = E.add(total, E.select(E.and_(E.var(f"lhere{j}"), E.lt(_lb(j), E.u32(0x80))), E.u32(1), E.u32(0)))
        run = E.and_(E.and_(_continues(j - 1), _continues(j - 2)), E.and_(_continues(j - 3), _continues(j - 4)))
        flags.append((E.and_(run, E.gt(_lb(j), E.u32(0x0F))), E.add(base, E.u32(j)) if j else base))
    bad = unique("bad")
    nodes += [
        Node.let(bad, select_first(flags)),
        Node.if_(
            E.ne(E.var(bad), E.u32(NO_ERROR)),
            [Node.let(unique("_o"), E.atomic(AtomicOp.MIN, "error_offset", E.var("job"), E.var(bad)))],
        ),
    ]
    return nodes, total


def _decode_scatter(c: Expr, r: str) -> list[Node]:
    nodes = _bytes_back(c)
    for j in range(4):
        value = unique("v")
        assemble: list[Node] = [Node.let(value, E.bitand(_lb(j), E.u32(0x7F))), Node.let("chain", E.u32(1))]
        for k in range(1, 5):
            previous = _lb(j - k)
            assemble += [
                Node.assign("chain", E.and_(E.var("chain"), E.ge(previous, E.u32(0x80)))),
                Node.if_(
                    E.var("chain"),
                    [Node.assign(value, E.bitor(E.shl(E.var(value), E.u32(7)), E.bitand(previous, E.u32(0x7F))))],
                ),
            ]
        assemble += [
            Node.store("values", E.add(E.var("out0"), E.var(r)), E.var(value)),
            Node.assign(r, E.add(E.var(r), E.u32(1))),
        ]
        nodes.append(Node.if_(E.and_(E.var(f"lhere{j}"), E.lt(_lb(j), E.u32(0x80))), assemble))
    return nodes


def _decode_finish(total: Expr) -> list[Node]:
    """A truncated last value, the first error, its code and the count."""
    n, job = E.var("n"), E.var("job")
    start = E.shl(E.var("in0"), E.u32(2))
    nodes: list[Node] = [Node.let("tail", E.u32(0)), Node.let("open", E.u32(1))]
    for k in range(1, 6):
        at = E.sub(n, E.u32(k))
        continues = E.and_(E.ge(n, E.u32(k)), E.ge(byte_at("data", E.add(start, at)), E.u32(0x80)))
        nodes += [
            Node.assign("open", E.and_(E.var("open"), continues)),
            Node.if_(E.var("open"), [Node.assign("tail", E.u32(k))]),
        ]
    truncated = E.and_(E.ge(E.var("tail"), E.u32(1)), E.le(E.var("tail"), E.u32(4)))
    nodes += [
        Node.let("over", E.load("error_offset", job)),
        Node.let("cut", E.select(truncated, E.sub(n, E.var("tail")), E.u32(NO_ERROR))),
        Node.let("e", E.select(E.lt(E.var("cut"), E.var("over")), E.var("cut"), E.var("over"))),
        Node.store("error_offset", job, E.var("e")),
        Node.store(
            "error_code",
            job,
            E.select(
                E.eq(E.var("e"), E.u32(NO_ERROR)), E.u32(0), E.select(E.eq(E.var("e"), E.var("cut")), E.u32(5), E.u32(6))
            ),
        ),
        Node.store("count", job, E.select(E.eq(E.var("e"), E.u32(NO_ERROR)), total, E.u32(0))),
    ]
    return nodes


DECODE = ScanKernel(
    "uleb128_decode",
    (
        BufferDecl.read("data", 0, DataType.U32),
        BufferDecl.read_write("values", 1, DataType.U32),
        BufferDecl.read_write("count", 2, DataType.U32),
        BufferDecl.read_write("error_offset", 3, DataType.U32),
        BufferDecl.read_write("error_code", 4, DataType.U32),
    ),
    _decode_count,
    _decode_scatter,
    _decode_finish,
    arrays=(ArrayOutput("values", DataType.U32, lambda n: n),),
    scalars=(("count", 0), ("error_offset", NO_ERROR), ("error_code", 0)),
)
_decode_plan, _decode_plan_many = DECODE.planners()


# ---------------------------------------------------------------------------
# Encode
# ---------------------------------------------------------------------------


def _length(v: Expr) -> Expr:
    total: Expr = E.u32(1)
    for bits in (7, 14, 21, 28):
        total = E.add(total, E.select(E.ge(v, E.u32(1 << bits)), E.u32(1), E.u32(0)))
    return total


def _encode_count(c: Expr) -> tuple[list[Node], Expr]:
    return [Node.let("ev", E.load("values", E.add(E.var("in0"), c)))], _length(E.var("ev"))


def _encode_scatter(c: Expr, r: str) -> list[Node]:
    writer = ByteWriter("out", "uleb")
    base = E.shl(E.var("out0"), E.u32(2))
    nodes: list[Node] = [
        Node.let("ev", E.load("values", E.add(E.var("in0"), c))),
        Node.let("elen", _length(E.var("ev"))),
        *writer.begin(E.add(base, E.var(r))),
    ]
    for k in range(5):
        group = E.bitand(E.shr(E.var("ev"), E.u32(7 * k)), E.u32(0x7F)) if k else E.bitand(E.var("ev"), E.u32(0x7F))
        more = E.lt(E.u32(k + 1), E.var("elen"))
        byte = E.bitor(group, E.select(more, E.u32(0x80), E.u32(0)))
        nodes.append(Node.if_(E.lt(E.u32(k), E.var("elen")), writer.put(byte)))
    return [*nodes, *writer.end(), Node.assign(r, E.sub(E.var(writer.pos), base))]


def _encode_finish(total: Expr) -> list[Node]:
    return [Node.store("length", E.var("job"), total)]


ENCODE = ScanKernel(
    "uleb128_encode",
    (
        BufferDecl.read("values", 0, DataType.U32),
        BufferDecl.read_write("out", 1, DataType.U32),
        BufferDecl.read_write("length", 2, DataType.U32),
    ),
    _encode_count,
    _encode_scatter,
    _encode_finish,
    input="values",
    input_dtype=DataType.U32,
    chunk=1,
    arrays=(ArrayOutput("out", DataType.BYTES, lambda n: 5 * n),),
    scalars=(("length", 0),),
)
_encode_plan, _encode_plan_many = ENCODE.planners()


# ---------------------------------------------------------------------------
# References (plain Python, left to right), laws, samples, specs
# ---------------------------------------------------------------------------


def leb128_encode(values: Any) -> bytes:
    out = bytearray()
    for v in (int(x) for x in np.asarray(values, dtype=np.uint64)):
        while True:
            byte, v = v & 0x7F, v >> 7
            out.append(byte | (0x80 if v else 0))
            if not v:
                break
    return bytes(out)


def leb128_decode(data: bytes) -> tuple[list[int], tuple[int, int] | None]:
    """(values, None) or (values so far, (offset, code)) for a malformed stream."""
    values: list[int] = []
    i = 0
    while i < len(data):
        start, value = i, 0
        for k in range(5):
            if i >= len(data):
                return values, (start, 5)
            byte = data[i]
            if k == 4 and byte > 0x0F:
                return values, (i, 6)
            value |= (byte & 0x7F) << (7 * k)
            i += 1
            if byte < 0x80:
                break
        values.append(value)
    return values, None


def _decode_reference(data: Any) -> tuple[np.ndarray, ...]:
    values, bad = leb128_decode(as_bytes(data))
    if bad is not None:
        return (np.zeros(0, np.uint32), np.array([0], np.uint32), *(np.array([v], np.uint32) for v in bad))
    return (np.array(values, np.uint32), np.array([len(values)], np.uint32), np.array([NO_ERROR], np.uint32), np.array([0], np.uint32))


def _encode_reference(values: Any) -> tuple[np.ndarray, ...]:
    stream = leb128_encode(values)
    return np.frombuffer(stream, dtype=np.uint8).copy(), np.array([len(stream)], np.uint32)


def _values_of(data: bytes) -> np.ndarray:
    """u32 values of every magnitude from raw bytes: byte i shifted by 7 (i % 5)
    bits, so values of 1 to 5 stream bytes appear."""
    raw = np.frombuffer(data, dtype=np.uint8).astype(np.uint64)
    shifts = (np.arange(len(raw), dtype=np.uint64) % np.uint64(5)) * np.uint64(7)
    return ((raw << shifts) | (raw >> np.uint64(3))).astype(np.uint32)


class DecodeLaws(KernelLaw):
    """decode(encode(v)) = v for values v from the case's bytes (encode: plain
    Python); decode(a ‖ b) = decode(a) ‖ decode(b) for a well-formed stream cut
    after a terminator; at a reported error the bytes before the bad value are a
    well-formed stream and the bad value's bytes are continuations."""

    name = "DecodeLaws"

    def check(self, op: Any, args: tuple[Any, ...]) -> str | None:
        data = as_bytes(args[0])
        values = _values_of(data)
        back = L.run(op, leb128_encode(values))
        if int(back[2][0]) != NO_ERROR or back[0].astype(np.uint32).tobytes() != values.tobytes():
            return f"decode(encode(v)) != v for {len(values)} values"
        whole = L.run(op, data)
        error, code = int(whole[2][0]), int(whole[3][0])
        if error == NO_ERROR:
            ends = [i + 1 for i, b in enumerate(data) if b < 0x80]
            if ends:
                k = ends[len(ends) // 2]
                parts = np.concatenate([L.run(op, data[:k])[0], L.run(op, data[k:])[0]])
                if parts.astype(np.uint32).tobytes() != whole[0].astype(np.uint32).tobytes():
                    return f"decode(a‖b) != decode(a)‖decode(b) (cut at {k})"
            return None
        start = error - 4 if code == 6 else error
        if start < 0 or int(L.run(op, data[:start])[2][0]) != NO_ERROR:
            return f"error at {error} (code {code}), but the bytes before its value are malformed"
        value = data[start:error] if code == 6 else data[start:]
        if any(b < 0x80 for b in value) or (code == 5 and not 1 <= len(value) <= 4):
            return f"error at {error} (code {code}) where the value's bytes are {value!r}"
        return None


class EncodeLaws(KernelLaw):
    """Each value takes max(1, ceil(bits / 7)) bytes, the last without the
    continuation bit; encode(a ‖ b) = encode(a) ‖ encode(b); a plain-Python
    reader gets the values back."""

    name = "EncodeLaws"

    def check(self, op: Any, args: tuple[Any, ...]) -> str | None:
        values = np.asarray(args[0], dtype=np.uint32)
        stream = as_bytes(op(values)[0])
        expected = sum(max(1, -(-int(v).bit_length() // 7)) for v in values)
        if len(stream) != expected:
            return f"{len(stream)} bytes for values needing {expected}"
        back, bad = leb128_decode(stream)
        if bad is not None or back != [int(v) for v in values]:
            return "the stream does not read back as the values"
        k = len(values) // 3
        if as_bytes(op(values[:k])[0]) + as_bytes(op(values[k:])[0]) != stream:
            return f"encode(a‖b) != encode(a)‖encode(b) (cut at {k})"
        return None


KERNELS = (
    KernelSpec(
        id="decode.uleb128_u32",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(
            Port("values", DataType.U32, length_from="count"),
            Port("count", DataType.U32, scalar=True),
            Port("error_offset", DataType.U32, scalar=True),
            Port("error_code", DataType.U32, scalar=True),
        ),
        kind="scan-based",
        reference=_decode_reference,
        plan=_decode_plan,
        plan_many=_decode_plan_many,
        summary="the u32 values of an unsigned LEB128 stream (DWARF 5 §7.6); 6 overflow, 5 truncated",
        laws=(DecodeLaws(), L.ErrorLeavesNothing()),
        boundaries=SCAN_BOUNDARIES,
        sample=S.leb128_stream(leb128_encode),
        error_from="error_offset",
        code_from="error_code",
        describe_error=describe_byte,
    ),
    KernelSpec(
        id="encode.uleb128_u32",
        version=1,
        inputs=(Port("values", DataType.U32),),
        outputs=(Port("out", DataType.BYTES, length_from="length"), Port("length", DataType.U32, scalar=True)),
        kind="scan-based",
        reference=_encode_reference,
        plan=_encode_plan,
        plan_many=_encode_plan_many,
        summary="each u32 as its shortest unsigned LEB128 bytes (DWARF 5 §7.6), one after the other",
        laws=(EncodeLaws(),),
        boundaries=SCAN_BOUNDARIES,
        max_length=0xFFFF_FFFF // 5,  # up to 5 bytes a value; `length` is a u32 (C5)
    ),
)
