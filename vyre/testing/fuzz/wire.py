"""The wire fuzzer: mutated wire blobs through `Program.from_wire`.

Seeds are the wire forms of random valid programs. Each input applies one to
three mutations (bits flipped, bytes set to edge values, inserted, deleted,
u32 fields overwritten with edge counts, truncation, extension, splices of two
blobs); most inputs then get a repaired header (body length and BLAKE2b digest),
so that the body decoder, not the checksum, meets the damage.

The oracle: `Program.from_wire` raises `WireError` or returns a program; that
program re-encodes to the very same bytes (the encoding is canonical), its
`validate` returns diagnostics (or a ValueError naming malformed IR), it prints,
and a valid one parses back from its text to an equal program.
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Callable
from functools import cached_property

from vyre.testing.fuzz.base import OracleFailure
from vyre.testing.fuzz.shrink import shrink_bytes

__all__ = ["WireFuzzer", "repair_header"]

EDGE_BYTES = (0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF)
EDGE_U32 = (0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF)


def repair_header(blob: bytes) -> bytes:
    """`blob` with the body length and digest recomputed for its body."""
    from vyre import wire

    if len(blob) < wire.HEADER_SIZE:
        return blob
    body = blob[wire.HEADER_SIZE :]
    magic, version, flags, _ = struct.unpack_from("<4sHHI", blob)
    prefix = struct.pack("<4sHHI", magic, version, flags, len(body))
    return prefix + wire._digest(prefix, body) + body  # pyright: ignore[reportPrivateUsage]


class WireFuzzer:
    name = "wire"
    extension = "bin"

    def __init__(self, seed: int = 0):
        self.seed = seed

    @cached_property
    def seeds(self) -> tuple[bytes, ...]:
        from vyre.testing.random_programs import GeneratorConfig, random_case

        small = GeneratorConfig(max_statements=3, max_depth=2, max_body_statements=2, max_expr_depth=2)
        return tuple(
            random_case(self.seed * 1000 + k, GeneratorConfig() if k % 8 == 0 else small).program.to_wire()
            for k in range(32)
        )

    def generate(self, index: int) -> bytes:
        rng = random.Random(f"wire:{self.seed}:{index}")
        blob = bytearray(rng.choice(self.seeds))
        for _ in range(rng.randint(1, 3)):
            rng.choice(_MUTATIONS)(rng, blob, self.seeds)
        data = bytes(blob)
        return repair_header(data) if rng.random() < 0.85 else data

    def check(self, data: bytes) -> None:
        check_blob(data)

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        return shrink_bytes(data, lambda candidate: still_fails(repair_header(candidate)) or still_fails(candidate))


def check_blob(data: bytes, full: bool = False) -> None:
    """The wire oracle (module docstring); `full` prints and round-trips every
    decoded program."""
    from vyre import ir as vyre
    from vyre.validate import validate
    from vyre.ir import Program
    from vyre.wire import WireError

    try:
        program = Program.from_wire(data)
    except WireError:
        return
    if program.to_wire() != data:
        raise OracleFailure("to_wire(from_wire(blob)) != blob: the encoding is not canonical")
    try:
        diagnostics = validate(program)
    except ValueError:
        return
    if not (full or zlib.crc32(data) % 4 == 0):  # printing and parsing are the slow part
        return
    printed = vyre.print_ir(program)
    if not diagnostics and (full or zlib.crc32(data) % 8 == 0):
        if vyre.parse_ir(printed, "<printed>") != program:
            raise OracleFailure("a valid decoded program does not survive its text round trip")


# -- mutations ------------------------------------------------------------------


def _body_position(rng: random.Random, blob: bytearray) -> int:
    from vyre.wire import HEADER_SIZE

    low = HEADER_SIZE if len(blob) > HEADER_SIZE and rng.random() < 0.95 else 0
    return rng.randrange(low, len(blob)) if len(blob) > low else 0


def _flip(rng: random.Random, blob: bytearray, seeds: tuple[bytes, ...]) -> None:
    if blob:
        blob[_body_position(rng, blob)] ^= 1 << rng.randrange(8)


def _edge_byte(rng: random.Random, blob: bytearray, seeds: tuple[bytes, ...]) -> None:
    if blob:
        blob[_body_position(rng, blob)] = rng.choice(EDGE_BYTES)


def _edge_u32(rng: random.Random, blob: bytearray, seeds: tuple[bytes, ...]) -> None:
    if len(blob) >= 4:
        at = min(_body_position(rng, blob), len(blob) - 4)
        blob[at : at + 4] = rng.choice(EDGE_U32).to_bytes(4, "little")


def _insert(rng: random.Random, blob: bytearray, seeds: tuple[bytes, ...]) -> None:
    at = _body_position(rng, blob)
    blob[at:at] = bytes(rng.randrange(256) for _ in range(rng.choice((1, 1, 2, 4, 9))))


def _delete(rng: random.Random, blob: bytearray, seeds: tuple[bytes, ...]) -> None:
    if blob:
        at = _body_position(rng, blob)
        del blob[at : at + rng.choice((1, 1, 2, 4, 16))]


def _truncate(rng: random.Random, blob: bytearray, seeds: tuple[bytes, ...]) -> None:
    del blob[rng.randrange(len(blob) + 1) :]


def _splice(rng: random.Random, blob: bytearray, seeds: tuple[bytes, ...]) -> None:
    from vyre.wire import HEADER_SIZE

    other = rng.choice(seeds)
    start = rng.randrange(HEADER_SIZE, len(other))
    end = min(len(other), start + rng.choice((4, 16, 64, 1000)))
    at = _body_position(rng, blob)
    blob[at:at] = other[start:end]


_MUTATIONS: tuple[Callable[[random.Random, bytearray, tuple[bytes, ...]], None], ...] = (
    _flip, _flip, _edge_byte, _edge_u32, _edge_u32, _insert, _delete, _truncate, _splice,
)  # fmt: skip
