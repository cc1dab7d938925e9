"""The kernel-op fuzzer: every registered kernel op, random and adversarial
inputs, every entry point, both backends, against independent oracles.

Inputs (`generate`): for each op a generator of valid arguments of a given
length and data pattern (the patterns of `vyre.kernels.samplers`: random, all
zero, all 0xFF, all equal, sorted either way, high bits set, letters, sparse,
specials for floats; graphs with hubs, chains, self loops and repeated edges;
decoder texts from the standard library's encoders) and, for decoders, malformed texts with one defect at every
position class (first byte, last byte, middle, the final group, the padding,
after the padding, truncated, odd length, bad escapes, LEB128 overflow and
truncation). Lengths (`lengths`) are 0, 1, tile edges +- 1 (64, 256, 1024, 4096,
8192, 16384, 65536), primes, and up to a few MB in the long mode.

Entry points (`check_op`): `ops.evaluate_many` (the batched plan where an op
has one, mixed sizes: empty inputs and one large among tiny ones), every
outputs of single evaluations (`vyre.kernels.run.evaluate_kernel`, the single
plan, raw outputs including a decoder's error offset and code), `ops.evaluate`
and `ops.evaluate_raw`, the op's CPU reference, and on wgpu: outputs kept on
the device (`on_device=True`) read back, chained into another kernel op and
into `vyre.run`, and inputs given as `vyre.DeviceBuffer`s whose Bytes padding
holds 0xFF; the interpreter also runs with its lanes in reversed order (races
show as differences), and wgpu runs twice. Every result is compared with the
oracle of `kernel_oracles.py` (beside this module; CPython, numpy, no vyre code).
Decoders: malformed input must raise `vyre.OpInputError` with the oracle's
offset and code from `ops.evaluate`, and from `ops.evaluate_many`, never a
partial result.

`KernelFuzzer` plugs the same checks into `python -m vyre.testing.fuzz`
(`--only kernel`): an input is one case as JSON (op id and arguments), checked
on the interpreter and on wgpu; failures are shrunk (arguments cut) and saved
to `test/fuzz_corpus/kernel/`, which CI replays.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import random
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from kernel_oracles import ANY_OFFSET, DECODERS, NONE, ORACLES, Refused, Value

from vyre.ir import DataType
from vyre.kernels.samplers import values

__all__ = [
    "BYTE_PATTERNS",
    "Case",
    "KernelFuzzer",
    "U32_PATTERNS",
    "check_cases",
    "check_op",
    "decoder_error_cases",
    "generate",
    "kernel_op_ids",
    "lengths",
    "malformed",
]

U32_PATTERNS = ("random", "zeros", "ones", "equal", "sorted", "reverse_sorted", "high", "small", "sparse")
BYTE_PATTERNS = ("random", "zeros", "ones", "equal", "letters", "high", "sorted", "reverse_sorted")
F32_PATTERNS = ("wide", "specials", "random", "cancel", "subnormal", "integers", "equal", "sorted")
"""The data patterns of plain U32, Bytes and F32 inputs (`vyre.kernels.samplers`)."""

EDGES = (0, 1, 2, 3, 4, 5, 7, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097)
PRIMES = (11, 97, 509, 2053, 8191, 16411)
LARGE = (8191, 8192, 8193, 16383, 16384, 16385, 65535, 65536, 65537)
HUGE = ((1 << 20) + 3, 3 * (1 << 20) + 1)


def lengths(backend: str, long: bool = False) -> tuple[int, ...]:
    """Lengths to try: tile edges +- 1 and primes; wgpu adds larger tiles, the
    long mode adds a few MB."""
    out = EDGES + PRIMES[:3]
    if backend == "wgpu":
        out += PRIMES[3:] + LARGE
    if long and backend == "wgpu":
        out += HUGE
    return out


@dataclass(frozen=True)
class Case:
    """One evaluation: the op, its arguments in canonical form (bytes, uint32 or
    float32 arrays, ints) and how they were made."""

    op: str
    args: tuple[Any, ...]
    label: str

    def __str__(self) -> str:
        return f"{self.op} [{self.label}; {describe_args(self.args)}]"


def _array_of(value: object) -> np.ndarray[Any, Any] | None:
    """`value` as a 1-D array, or None."""
    if isinstance(value, np.ndarray):
        array = cast("np.ndarray[Any, Any]", value)
        return array if array.ndim == 1 else None
    return None


def _length_of(value: object) -> int | None:
    """Elements of a bytes or 1-D array argument, else None."""
    if isinstance(value, bytes):
        return len(value)
    array = _array_of(value)
    return None if array is None else int(array.shape[0])


def describe_args(args: Sequence[Any]) -> str:
    parts: list[str] = []
    for value in args:
        array = _array_of(value)
        if isinstance(value, bytes):
            parts.append(f"{len(value)} bytes {value[:24]!r}{'...' if len(value) > 24 else ''}")
        elif array is not None:
            parts.append(f"{array.dtype}[{len(array)}] {array[:8].tolist()}{'...' if len(array) > 8 else ''}")
        else:
            parts.append(repr(cast(object, value)))
    return ", ".join(parts)


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def u32_data(rng: np.random.Generator, n: int, pattern: str) -> np.ndarray:
    """n words in a data pattern of `vyre.kernels.samplers`."""
    return values(rng, DataType.U32, n, pattern)


def byte_data(rng: np.random.Generator, n: int, pattern: str) -> bytes:
    """n bytes in a data pattern of `vyre.kernels.samplers`."""
    return values(rng, DataType.BYTES, n, pattern).tobytes()


def f32_data(rng: np.random.Generator, n: int, pattern: str) -> np.ndarray:
    """n floats in a data pattern of `vyre.kernels.samplers`."""
    return values(rng, DataType.F32, n, pattern)


# ---------------------------------------------------------------------------
# Generators of valid arguments, per op
# ---------------------------------------------------------------------------

Gen = Callable[[np.random.Generator, int, str], tuple[Any, ...]]


def _pick(rng: np.random.Generator, options: Sequence[Any]) -> Any:
    return options[int(rng.integers(0, len(options)))]


def _u32_pattern(pattern: str) -> str:
    return pattern if pattern in U32_PATTERNS else "random"


def _byte_pattern(pattern: str) -> str:
    return pattern if pattern in BYTE_PATTERNS else "random"


def _gen_u32(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (u32_data(rng, n, _u32_pattern(pattern)),)


def _gen_bytes(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (byte_data(rng, n, _byte_pattern(pattern)),)


def _gen_f32(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (f32_data(rng, n, pattern if pattern in F32_PATTERNS else "wide"),)


def _gen_two_u32(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (u32_data(rng, n, _u32_pattern(pattern)), u32_data(rng, n, _pick(rng, U32_PATTERNS)))


def _gen_byte_scalar(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    data = byte_data(rng, n, _byte_pattern(pattern))
    choices = [0, 255, 0x41, int(rng.integers(0, 256))]
    if n:
        choices += [data[int(rng.integers(0, n))], data[-1], data[0]]
    return data, int(_pick(rng, choices))


def _gen_memcmp(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    a = byte_data(rng, n, _byte_pattern(pattern))
    how = int(rng.integers(0, 5))
    if how == 0 or n == 0:
        return a, bytes(a)
    if how == 1:
        return a, a[:-1]
    at = _pick(rng, [0, n - 1, int(rng.integers(0, n))])
    b = bytearray(a)
    b[at] ^= int(rng.integers(1, 256))
    return a, bytes(b)


def _gen_byte_swap(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (byte_data(rng, n - n % 4, _byte_pattern(pattern)),)


def _gen_mask(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = _pick(rng, ("random", "zeros", "ones", "sparse", "dense"))
    if kind == "zeros":
        return np.zeros(n, np.uint32)
    if kind == "ones":
        return np.full(n, int(rng.integers(1, 1 << 32)), np.uint32)
    if kind == "sparse":
        return (rng.random(n) < 0.02).astype(np.uint32) * np.uint32(0x8000_0000)
    if kind == "dense":
        return (rng.random(n) < 0.97).astype(np.uint32)
    return rng.integers(0, 3, n, dtype=np.uint32)


def _gen_compact(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return u32_data(rng, n, _u32_pattern(pattern)), _gen_mask(rng, n)


def _indices(rng: np.random.Generator, count: int, n: int) -> np.ndarray:
    kind = _pick(rng, ("inside", "edges", "equal", "wild"))
    if kind == "inside" and n:
        return rng.integers(0, n, count, dtype=np.uint32)
    if kind == "edges":
        return np.array(rng.choice(np.array([0, max(n - 1, 0), n, n + 1, 0xFFFF_FFFF], np.uint32), count), np.uint32)
    if kind == "equal":
        return np.full(count, int(rng.integers(0, n + 2)), np.uint32)
    return rng.integers(0, 1 << 32, count, dtype=np.uint32) % np.uint32(max(2 * n, 1) if rng.random() < 0.8 else 0xFFFF_FFFF)


def _gen_gather(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    src = u32_data(rng, int(rng.integers(0, n + 1)) if n else 0, _u32_pattern(pattern))
    return src, _indices(rng, n, len(src))


def _gen_scatter(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    dst = u32_data(rng, n, _u32_pattern(pattern))
    count = int(rng.integers(0, 2 * n + 2))
    return dst, _indices(rng, count, n), u32_data(rng, count, "random")


def _gen_contains(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    members = u32_data(rng, n, _u32_pattern(pattern))
    count = int(rng.integers(0, n + 3))
    queries = u32_data(rng, count, _pick(rng, U32_PATTERNS))
    if n and count:
        take = rng.random(count) < 0.5
        queries[take] = members[rng.integers(0, n, int(take.sum()))]
    return members, queries


def _gen_find_all(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    kind = _pick(rng, ("sub", "periodic", "random", "long", "empty", "absent"))
    if kind == "periodic":
        unit = byte_data(rng, int(rng.integers(1, 4)), "random")
        hay = (unit * (n // len(unit) + 1))[:n]
        return hay, unit * int(rng.integers(1, 4)) + unit[: int(rng.integers(0, len(unit) + 1))]
    hay = byte_data(rng, n, _byte_pattern(pattern))
    if kind == "empty":
        return hay, b""
    if kind == "long":
        return hay, hay + b"x"
    if kind == "absent":
        return hay, byte_data(rng, int(_pick(rng, (1, 3, 4, 5, 8, 9, 17))), "random")
    m = int(_pick(rng, (1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 513, 600, 1100)))
    if kind == "random" or n == 0:
        return hay, byte_data(rng, min(m, n + 1), _byte_pattern(pattern))
    m = min(m, n)
    start = int(rng.integers(0, n - m + 1))
    return hay, hay[start : start + m]


def _gen_byte_class(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    kind = _pick(rng, ("random", "identity", "constant", "reverse"))
    table = {
        "random": rng.integers(0, 256, 256, dtype=np.uint8).tobytes(),
        "identity": bytes(range(256)),
        "constant": bytes([int(rng.integers(0, 256))]) * 256,
        "reverse": bytes(range(255, -1, -1)),
    }[kind]
    return byte_data(rng, n, _byte_pattern(pattern)), table


def _gen_split(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    data = byte_data(rng, n, _byte_pattern(pattern))
    choices = [0, 255, 0x2C, 0x0A, int(rng.integers(0, 256))]
    if n:
        choices += [data[0], data[-1], data[int(rng.integers(0, n))]]
    return data, int(_pick(rng, choices))


def _gen_flags(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return u32_data(rng, n, _u32_pattern(pattern)), _gen_mask(rng, n)


def _gen_key_value(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    keys = u32_data(rng, n, _u32_pattern(pattern))
    values = np.arange(n, dtype=np.uint32) if rng.random() < 0.5 else u32_data(rng, n, "random")
    return keys, values


def _gen_histogram(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    nbins = int(_pick(rng, (1, 2, 7, 255, 256, 257, 4096, 4097, 65536)))
    values = u32_data(rng, n, _u32_pattern(pattern))
    if pattern not in ("ones", "high") and rng.random() < 0.7:
        values = values % np.uint32(nbins + 2)
    return values, nbins


def _csr(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """A valid CSR graph of about n nodes: random, hubs, chains, stars, self loops
    and repeated edges, isolated nodes."""
    nodes = max(n // 2, 0)
    if nodes == 0:
        return np.zeros(1, np.uint32), np.zeros(0, np.uint32)
    kind = pattern if pattern in ("chain", "star", "hub", "loops", "empty", "cycle") else "random"
    edges: list[tuple[int, int]] = []
    if kind == "chain":
        edges = [(u, u + 1) for u in range(min(nodes, 300) - 1)]
    elif kind == "cycle":
        k = min(nodes, 200)
        edges = [(u, (u + 1) % k) for u in range(k)]
    elif kind == "star":
        edges = [(0, v) for v in range(nodes)] + [(v, 0) for v in range(1, nodes, 3)]
    elif kind == "hub":
        hub = int(rng.integers(0, nodes))
        edges = [(hub, int(v)) for v in rng.integers(0, nodes, min(3 * nodes, 3000))]
        edges += [(int(u), int(v)) for u, v in rng.integers(0, nodes, (nodes, 2))]
    elif kind == "loops":
        edges = [(u, u) for u in range(nodes)] + [(0, nodes - 1)] * 5
    elif kind == "random":
        count = int(rng.integers(0, 2 * nodes + 1))
        edges = [(int(u), int(v)) for u, v in rng.integers(0, nodes, (count, 2))]
    edges.sort(key=lambda e: e[0])
    degree = np.bincount(np.array([u for u, _ in edges], np.int64), minlength=nodes) if edges else np.zeros(nodes, np.int64)
    offsets = np.concatenate([[0], np.cumsum(degree)]).astype(np.uint32)
    return offsets, np.array([v for _, v in edges], np.uint32)


GRAPH_PATTERNS = ("random", "chain", "cycle", "star", "hub", "loops", "empty")


def _gen_bfs(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    offsets, targets = _csr(rng, n, pattern)
    nodes = len(offsets) - 1
    return offsets, targets, int(rng.integers(0, nodes)) if nodes else int(_pick(rng, (0, 5)))


def _gen_components(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return _csr(rng, n, pattern)


def _gen_in_degree(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    nodes = int(rng.integers(1, n + 2))
    targets = u32_data(rng, n, _u32_pattern(pattern)) % np.uint32(nodes)
    return targets, nodes


def _gen_out_degree(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    offsets, _ = _csr(rng, n, pattern)
    if pattern == "big" and len(offsets) > 1:
        offsets = offsets.astype(np.uint64) * 4096
        return (np.minimum(offsets, 0xFFFF_FFFF).astype(np.uint32),)
    return (offsets,)


def _gen_hash_batch(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    data = byte_data(rng, n, _byte_pattern(pattern))
    count = int(rng.integers(0, 12))
    cuts = sorted(int(c) for c in rng.integers(0, n + 1, count)) if n else [0] * count
    start = int(rng.integers(0, min(n, 8) + 1))
    offsets = [start, *[max(c, start) for c in cuts]]
    if rng.random() < 0.5:
        offsets.append(n)
    return data, np.array(offsets, np.uint32)


def _encoded(rng: np.random.Generator, n: int, pattern: str, encode: Callable[[bytes], bytes], per: float) -> bytes:
    return encode(byte_data(rng, int(n * per), _byte_pattern(pattern)))


def _gen_b64(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (_encoded(rng, n, pattern, base64.b64encode, 0.75),)


def _gen_b64url(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (_encoded(rng, n, pattern, base64.urlsafe_b64encode, 0.75),)


def _gen_b32(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    return (_encoded(rng, n, pattern, base64.b32encode, 0.625),)


def _gen_hex(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    text = byte_data(rng, n // 2, _byte_pattern(pattern)).hex().encode()
    return (text.upper() if rng.random() < 0.3 else text,)


def _gen_percent(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    raw = byte_data(rng, n, _byte_pattern(pattern))
    out = bytearray()
    for byte in raw:
        if byte == 0x25 or rng.random() < 0.2:
            out += f"%{byte:02{'X' if rng.random() < 0.5 else 'x'}}".encode()
        else:
            out.append(byte)
        if len(out) >= n:
            break
    return (bytes(out),)


def _uleb(value: int, pad: int = 0) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value or pad:
            out.append(low | 0x80)
            if not value:
                pad -= 1
                if pad == 0:
                    out.append(0)
                    break
        else:
            out.append(low)
            break
    return bytes(out)


def _gen_uleb_decode(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    values = u32_data(rng, max(n // 3, 0), _u32_pattern(pattern))
    pieces: list[bytes] = []
    for value in values.tolist():
        room = 5 - max(1, -(-int(value).bit_length() // 7))
        pad = int(rng.integers(0, room + 1)) if room and rng.random() < 0.2 else 0
        pieces.append(_uleb(int(value), pad))
    return (b"".join(pieces),)


_UTF8_POINTS = (0x00, 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF)


def _gen_utf8(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    if pattern in ("random", "high", "ones"):
        return (byte_data(rng, n, _byte_pattern(pattern)),)
    chars: list[str] = []
    size = 0
    while size < n:
        kind = int(rng.integers(0, 4))
        if kind == 0:
            point = int(_pick(rng, _UTF8_POINTS))
        else:
            point = int(rng.integers((0, 0x80, 0x800, 0x10000)[kind], (0x80, 0x800, 0x10000, 0x110000)[kind]))
        if 0xD800 <= point < 0xE000:
            point = 0xFFFD
        chars.append(chr(point))
        size += len(chars[-1].encode("utf-8"))
    text = "".join(chars).encode("utf-8")
    if pattern == "damaged" and text:
        at = int(rng.integers(0, len(text)))
        damaged = bytearray(text)
        damaged[at] = int(_pick(rng, (0x80, 0xBF, 0xC0, 0xC1, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF)))
        text = bytes(damaged)
    elif pattern == "truncated" and text:
        text = text[: -int(rng.integers(1, 4))]
    return (text,)


def _compressed(fmt: str, rng: np.random.Generator, n: int, pattern: str) -> bytes:
    """A stream of about n input bytes (level, strategy and window drawn; gzip
    with extra members and zero padding; raw and zlib with bytes after the end)."""
    import gzip
    import zlib

    data = byte_data(rng, n, _byte_pattern(pattern))
    if fmt == "stored":
        co = zlib.compressobj(0, zlib.DEFLATED, -15)
        cut = int(rng.integers(0, n + 1))
        return co.compress(data[:cut]) + co.flush(zlib.Z_SYNC_FLUSH) + co.compress(data[cut:]) + co.flush()
    if fmt == "gzip":
        out = gzip.compress(data, compresslevel=int(rng.integers(0, 10)), mtime=0)
        if rng.random() < 0.3:
            out += gzip.compress(data[: n // 3], mtime=0)
        if rng.random() < 0.2:
            out += bytes(int(rng.integers(1, 9)))
        return out
    level = int(_pick(rng, (0, 1, 6, 9)))
    strategy = int(_pick(rng, (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED)))
    window = int(rng.integers(9, 16))
    co = zlib.compressobj(level, zlib.DEFLATED, window if fmt == "zlib" else -window, 9, strategy)
    out = co.compress(data) + co.flush()
    if rng.random() < 0.2:
        out += byte_data(rng, int(rng.integers(1, 9)), "random")
    return out


def _gen_compressed(fmt: str) -> Gen:
    return lambda rng, n, pattern: (_compressed(fmt, rng, n, pattern),)


_DENSE = {
    "decode.base64": b"AQgw/+9=" + b"=-_!\n",
    "decode.base64url": b"AQgw-_9=" + b"=+/!\n",
    "decode.base32": b"AQ27Z=" + b"=01a8",
    "decode.hex": b"09afAF" + b"gG:/",
    "decode.url_percent": b"%%%4aAfFgG0 ",
    "decode.uleb128_u32": bytes([0x00, 0x01, 0x0F, 0x10, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0xFF]),
    "decode.utf8_validate": bytes([0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5]),
}
"""Small alphabets of each decoder's meaningful bytes (symbols, pads, escape and
continuation bits, lead bytes) and a few bad ones: random texts over them hit
every position class of malformed input, and of valid input (non-zero bits
under a pad, padded LEB128, every UTF-8 sequence length)."""


def _dense(op_id: str, base: Gen) -> Gen:
    def run(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
        if pattern != "dense":
            return base(rng, n, pattern)
        alphabet = np.frombuffer(_DENSE[op_id], np.uint8)
        group = _GROUP.get(op_id, 1)
        size = n - n % group if rng.random() < 0.7 else n
        text = bytearray(rng.choice(alphabet, size).tobytes())
        if op_id in ("decode.base64", "decode.base64url", "decode.base32") and size and rng.random() < 0.7:
            # mostly valid symbols, a padded tail of a random length
            symbols = np.frombuffer(_DENSE[op_id][: _DENSE[op_id].index(b"=")], np.uint8)
            text = bytearray(rng.choice(symbols, size).tobytes())
            pads = int(rng.integers(0, group))
            text[size - pads :] = b"=" * pads
        return (bytes(text),)

    return run


def _gen_find_small_alphabet(rng: np.random.Generator, n: int, pattern: str) -> tuple[Any, ...]:
    if pattern != "dense":
        return _gen_find_all(rng, n, pattern)
    hay = rng.choice(np.frombuffer(b"ab", np.uint8), n).tobytes()
    m = int(_pick(rng, (1, 2, 3, 4, 5, 8, 9, 12, 33, 511, 512, 513, 1025)))
    if n >= m and rng.random() < 0.7:
        start = int(rng.integers(0, n - m + 1))
        return hay, hay[start : start + m]
    return hay, rng.choice(np.frombuffer(b"ab", np.uint8), m).tobytes()


GENERATORS: dict[str, Gen] = {
    "match.find_all": _gen_find_small_alphabet,
    "compression.deflate_decompress": _gen_compressed("deflate"),
    "compression.zlib_decompress": _gen_compressed("zlib"),
    "compression.gzip_decompress": _gen_compressed("gzip"),
    "decode.inflate_stored": _gen_compressed("stored"),
    "bitset.and": _gen_two_u32,
    "bitset.or": _gen_two_u32,
    "bitset.xor": _gen_two_u32,
    "bitset.and_not": _gen_two_u32,
    "bitset.not": _gen_u32,
    "bitset.popcount": _gen_u32,
    "buffer.memchr": _gen_byte_scalar,
    "buffer.byte_count": _gen_byte_scalar,
    "buffer.memcmp": _gen_memcmp,
    "buffer.byte_swap_u32": _gen_byte_swap,
    "buffer.compact": _gen_compact,
    "buffer.gather": _gen_gather,
    "buffer.scatter": _gen_scatter,
    "collection.unique_u32": _gen_u32,
    "collection.contains_u32": _gen_contains,
    "match.byte_class": _gen_byte_class,
    "string.ascii_lower": _gen_bytes,
    "string.ascii_upper": _gen_bytes,
    "string.split_offsets": _gen_split,
    "reductions.f32_sum_strict": _gen_f32,
    "reductions.f32_sum_tree": _gen_f32,
    "scan.segmented_inclusive_u32": _gen_flags,
    "sort.key_value_u32": _gen_key_value,
    "stats.byte_histogram": _gen_bytes,
    "stats.histogram_u32": _gen_histogram,
    "graph.bfs": _gen_bfs,
    "graph.connected_components": _gen_components,
    "graph.csr_in_degree": _gen_in_degree,
    "graph.csr_out_degree": _gen_out_degree,
    "decode.base64": _dense("decode.base64", _gen_b64),
    "decode.base64url": _dense("decode.base64url", _gen_b64url),
    "decode.base32": _dense("decode.base32", _gen_b32),
    "decode.hex": _dense("decode.hex", _gen_hex),
    "decode.url_percent": _dense("decode.url_percent", _gen_percent),
    "decode.uleb128_u32": _dense("decode.uleb128_u32", _gen_uleb_decode),
    "decode.utf8_validate": _dense("decode.utf8_validate", _gen_utf8),
    "encode.uleb128_u32": _gen_u32,
}
PATTERNS: dict[str, tuple[str, ...]] = {
    "graph.bfs": GRAPH_PATTERNS,
    "graph.connected_components": GRAPH_PATTERNS,
    "graph.csr_out_degree": (*GRAPH_PATTERNS, "big"),
    "reductions.f32_sum_strict": F32_PATTERNS,
    "reductions.f32_sum_tree": F32_PATTERNS,
    "decode.utf8_validate": ("valid", "dense", "damaged", "truncated", "random", "high", "ones"),
    "match.find_all": (*BYTE_PATTERNS, "dense"),
    **{op: ("random", "dense", "zeros", "dense", "ones", "dense", "letters", "dense") for op in _DENSE if op != "decode.utf8_validate"},
}
"""Data patterns of ops whose inputs are not plain U32 arrays or bytes."""


def kernel_op_ids() -> list[str]:
    """Every registered kernel op (sorted)."""
    from vyre import ops
    from vyre.kernels.spec import KernelSpec

    return sorted(i for i in ops.known_op_ids() if isinstance(ops.get(i), KernelSpec))


def _spec(op_id: str) -> Any:
    from vyre import ops

    return ops.get(op_id)


def patterns_of(op_id: str) -> tuple[str, ...]:
    if op_id in PATTERNS:
        return PATTERNS[op_id]
    spec = _spec(op_id)
    from vyre.ir import DataType

    first = next((p for p in spec.inputs if not p.scalar), None)
    if first is not None and first.dtype is DataType.BYTES:
        return BYTE_PATTERNS
    return U32_PATTERNS


def generator(op_id: str) -> Gen:
    if op_id in GENERATORS:
        return GENERATORS[op_id]
    spec = _spec(op_id)
    from vyre.ir import DataType

    if op_id.startswith("hash.") and op_id.endswith("_batch"):
        return _gen_hash_batch
    if [p.dtype for p in spec.inputs] == [DataType.BYTES]:
        return _gen_bytes
    if [p.dtype for p in spec.inputs] == [DataType.U32] and not spec.inputs[0].scalar:
        return _gen_u32
    raise KeyError(f"no input generator for kernel op `{op_id}`; add one to GENERATORS in test/support/kernel_fuzz.py")


def generate(op_id: str, rng: np.random.Generator, n: int, pattern: str) -> Case:
    """A valid case of `op_id` of length about n in data pattern `pattern`."""
    return Case(op_id, tuple(generator(op_id)(rng, n, pattern)), f"n={n} {pattern}")


# ---------------------------------------------------------------------------
# Malformed decoder input (every position class)
# ---------------------------------------------------------------------------

_BAD_BYTES = {
    "decode.base64": (0x21, 0x3D, 0x00, 0xFF, 0x80, 0x0A, 0x20, 0x2D, 0x5F, 0x2E),
    "decode.base64url": (0x21, 0x3D, 0x00, 0xFF, 0x80, 0x0A, 0x20, 0x2B, 0x2F, 0x2E),
    "decode.base32": (0x21, 0x3D, 0x00, 0xFF, 0x61, 0x30, 0x31, 0x38, 0x39, 0x0A),
    "decode.hex": (0x47, 0x67, 0x20, 0x00, 0xFF, 0x2F, 0x3A, 0x40, 0x60, 0x3D),
}
_GROUP = {"decode.base64": 4, "decode.base64url": 4, "decode.base32": 8, "decode.hex": 2}


def malformed(op_id: str, rng: np.random.Generator, n: int) -> list[Case]:
    """Malformed inputs of decoder `op_id` around length n: one defect at each
    position class."""
    cases: list[Case] = []

    def add(data: bytes, label: str) -> None:
        cases.append(Case(op_id, (data,), f"malformed n~{n} {label}"))

    if op_id in _GROUP:
        valid = generator(op_id)(rng, max(n, 1), "random")[0] or generator(op_id)(rng, 8, "random")[0]
        group = _GROUP[op_id]
        bad = _BAD_BYTES[op_id]
        last_group = len(valid) - group
        pad_at = valid.find(b"=")
        positions = {"first": 0, "last": len(valid) - 1, "middle": len(valid) // 2, "last group": last_group,
                     "random": int(rng.integers(0, len(valid)))}  # fmt: skip
        if pad_at >= 0:
            positions["pad"] = pad_at
            positions["before pad"] = max(pad_at - 1, 0)
        for label, at in positions.items():
            damaged = bytearray(valid)
            damaged[at] = int(_pick(rng, bad))
            add(bytes(damaged), f"{label}@{at}")
        add(valid[:-1], "truncated by 1")
        add(valid[: -int(rng.integers(1, group + 1))] if len(valid) > group else valid[:1], "truncated")
        if op_id != "decode.hex":
            add(valid + b"=", "pad after the end")
            add(valid + valid[:group], "group after the end")
            add(b"=" * group + valid, "pads first")
            add(valid[: len(valid) - len(valid) % group][:group] + b"=" * group, "whole pad group")
            if group == 4:
                add(b"Zm9v=", "excess padding (gh-118314)")
                add(b"Zg=a", "symbol after a pad")
                add(b"Zg=!", "garbage after a pad")
                add(b"Z===", "pad after one symbol")
            else:
                add(b"MZXW6===" + b"MY======", "symbols after a padded group")
                add(b"M=======", "pad after one symbol")
                add(b"MZX=====", "pad after three symbols")
                add(b"MZXW6Y==", "pad after six symbols")
                add(b"MZXW6YT=" + b"A", "symbol after a complete group")
        else:
            add(valid + b"0", "odd length")
            add(b"0", "one digit")
    elif op_id.startswith("compression.") or op_id == "decode.inflate_stored":
        valid = generator(op_id)(rng, n, "letters")[0]
        size = len(valid)
        for cut in sorted({0, 1, 2, size // 2, size - 1, int(rng.integers(0, max(size, 1)))}):
            if 0 <= cut < size:
                add(valid[:cut], f"truncated to {cut} of {size}")
        for label, at in (("first", 0), ("middle", size // 2), ("last", size - 1), ("random", int(rng.integers(0, max(size, 1))))):
            if 0 <= at < size:
                damaged = bytearray(valid)
                damaged[at] ^= int(rng.integers(1, 256))
                add(bytes(damaged), f"byte {label}@{at} flipped")
        if op_id == "decode.inflate_stored":
            add(b"\x07\x00", "reserved block type")
            add(b"\x03\x00", "a fixed-Huffman block")
            add(b"\x01\x05\x00\xfa\xff" + b"abcde", "NLEN not the complement")
            add(b"\x00\x00\x00\xff\xff", "no final block")
    elif op_id == "decode.url_percent":
        valid = generator(op_id)(rng, n, "random")[0]
        for tail, label in ((b"%", "% at the end"), (b"%4", "%4 at the end"), (b"%G", "%G at the end"),
                            (b"%4G", "%4G"), (b"%G4", "%G4"), (b"%%41", "%%41"), (b"% 41", "% 41"), (b"%\xff1", "%\\xff1")):  # fmt: skip
            add(valid + tail, f"valid + {label}")
            add(tail + valid, f"{label} + valid")
            mid = len(valid) // 2
            add(valid[:mid] + tail + b"00", f"{label} in the middle")
    elif op_id == "decode.uleb128_u32":
        valid = generator(op_id)(rng, n, "random")[0]
        for tail, label in ((b"\x80", "truncated 1"), (b"\xff\xff\xff", "truncated 3"), (b"\x80\x80\x80\x80", "truncated 4"),
                            (b"\x80\x80\x80\x80\x10", "5th byte > 0x0f"), (b"\xff\xff\xff\xff\x8f\x00", "5th byte continues"),
                            (b"\xff\xff\xff\xff\x0f", "max (valid)"), (b"\x80\x80\x80\x80\x00", "padded zero (valid)"),
                            (b"\x80\x80\x80\x80\x80\x00", "6 bytes")):  # fmt: skip
            add(valid + tail, f"valid + {label}")
            add(tail + valid, f"{label} + valid")
    return cases


def decoder_error_cases(op_id: str, seed: int, n_values: Sequence[int]) -> list[Case]:
    """Malformed cases of a decoder over several lengths (deterministic)."""
    out: list[Case] = []
    for n in n_values:
        out.extend(malformed(op_id, np.random.default_rng([seed, n, _stable(op_id)]), n))
    return out


def _stable(text: str) -> int:
    return int.from_bytes(text.encode()[:8].ljust(8, b"\0"), "little") ^ len(text)


# ---------------------------------------------------------------------------
# Outputs in canonical form, comparisons
# ---------------------------------------------------------------------------


def canonical(port: Any, value: Any) -> Value:
    """An op's output as the oracle states it: bytes, uint32 arrays, ints (F32
    scalars as bits)."""
    from vyre.ir import DataType
    from vyre.runtime.device_buffer import DeviceBuffer

    if isinstance(value, DeviceBuffer):
        value = value.numpy()
    array = np.asarray(value)
    if port.dtype is DataType.BYTES:
        return np.ascontiguousarray(array, dtype=np.uint8).tobytes()
    if port.dtype is DataType.F32:
        array = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
    if port.scalar:
        if array.shape != (1,):
            return np.asarray(array, dtype=np.uint64)  # wrong shape: compared as an array, so it fails
        return int(array[0])
    return np.asarray(array, dtype=np.uint64)


def _differ(want: Value, got: Value) -> str | None:
    if isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        a = np.asarray(want, dtype=np.uint64).ravel()
        b = np.asarray(got, dtype=np.uint64).ravel()
        if a.shape != b.shape:
            return f"length {b.shape[0]}, expected {a.shape[0]} (got {b[:8].tolist()}..., want {a[:8].tolist()}...)"
        bad = np.flatnonzero(a != b)
        if bad.size:
            i = int(bad[0])
            return f"element {i}: {int(b[i]):#x}, expected {int(a[i]):#x} ({bad.size} differ)"
        return None
    if isinstance(want, bytes) and isinstance(got, bytes):
        if want == got:
            return None
        if len(want) != len(got):
            return f"{len(got)} bytes, expected {len(want)} (got {got[:16]!r}..., want {want[:16]!r}...)"
        i = next(k for k in range(len(want)) if want[k] != got[k])
        return f"byte {i}: {got[i]:#04x}, expected {want[i]:#04x}"
    if want != got:
        if isinstance(want, int) and isinstance(got, int):
            return f"{got:#x}, expected {want:#x}"
        return f"{got!r}, expected {want!r}"
    return None


def compare(spec: Any, want: dict[str, Value], got: Sequence[Any], ports: Sequence[str] | None = None) -> str | None:
    """The first output (of `ports`, default: all the oracle gives) that differs."""
    by_name = {p.name: (p, v) for p, v in zip(spec.outputs, got)}
    for name in ports if ports is not None else want:
        if name not in want:
            continue
        if name not in by_name:
            return f"output `{name}` missing"
        port, value = by_name[name]
        if name == "error_offset" and want[name] == ANY_OFFSET:
            if canonical(port, value) == NONE:
                return "output `error_offset`: NONE, expected an error offset"
            continue
        problem = _differ(want[name], canonical(port, value))
        if problem is not None:
            return f"output `{name}`: {problem}"
    return None


def expected(case: Case) -> dict[str, Value] | Refused:
    try:
        return ORACLES[case.op](*case.args)
    except Refused as refused:
        return refused


def is_error(want: dict[str, Value]) -> bool:
    return want.get("error_offset", NONE) != NONE


# ---------------------------------------------------------------------------
# Running the entry points
# ---------------------------------------------------------------------------


@contextlib.contextmanager
def lanes_reversed() -> Generator[None, None, None]:
    """The interpreter's lanes, lane batches and workgroups in reversed order
    for every kernel step (`lane_order="reversed"`): an op whose result depends
    on the schedule shows a difference."""
    from vyre.kernels import run as kernel_run
    from vyre.runtime.interp import execute

    saved = kernel_run.interp_execute
    kernel_run.interp_execute = functools.partial(execute, lane_order="reversed")
    try:
        yield
    finally:
        kernel_run.interp_execute = saved


def poisoned(value: Any, dtype: Any) -> Any:
    """`value` as a `vyre.DeviceBuffer`; a Bytes one with 0xFF in the padding
    bytes of its last word (C1: padding is unspecified)."""
    from vyre.ir import DataType
    from vyre.runtime.device_buffer import DeviceBuffer, to_device
    from vyre.runtime.wgpu_device import Resident, gpu_device

    if dtype is not DataType.BYTES:
        return to_device(np.asarray(value), dtype=dtype)
    data = bytes(value)
    words = np.frombuffer(data + b"\xff" * (-len(data) % 4), dtype="<u4").astype(np.uint32)
    return DeviceBuffer(Resident.upload(gpu_device(), words), DataType.BYTES, len(data))


def _device_args(spec: Any, args: Sequence[Any]) -> list[Any]:
    return [value if port.scalar else poisoned(value, port.dtype) for port, value in zip(spec.inputs, args)]


_COPY_PROGRAMS: dict[Any, Any] = {}


def _copy_program(dtype: Any) -> Any:
    """out[i] = u32(in[i]) for U32/Bool/F32 (bits): a `vyre.run` consumer of a
    kernel op's output kept on the device."""
    from vyre.ir import BufferDecl, DataType, Node, Program
    from vyre.ir import Expr as E

    program = _COPY_PROGRAMS.get(dtype)
    if program is None:
        value = E.load("src", E.gid_x())
        if dtype is DataType.F32:
            value = E.bitcast(DataType.U32, value)
        elif dtype is DataType.BOOL:
            value = E.select(value, E.u32(1), E.u32(0))
        program = Program(
            [BufferDecl.read("src", 0, dtype), BufferDecl.read_write("dst", 1, DataType.U32)],
            (64, 1, 1),
            [Node.store("dst", E.gid_x(), value)],
        )
        _COPY_PROGRAMS[dtype] = program
    return program


def _chain(port: Any, device_value: Any, want: Value) -> str | None:
    """Feed an output kept on the device into another kernel op (Bytes ->
    hash.crc32, U32 -> bitset.popcount) and into `vyre.run` (a copy), with no
    readback in between; compare with the oracle's value."""
    import zlib

    from vyre import ops
    from vyre.ir import DataType
    from vyre.runtime.api import run

    if port.dtype is DataType.BYTES:
        assert isinstance(want, bytes)
        got = int(np.asarray(ops.evaluate("hash.crc32", [device_value], backend="wgpu"))[0])
        return None if got == zlib.crc32(want) else f"chained into hash.crc32: {got:#x}, expected {zlib.crc32(want):#x}"
    count = 1 if port.scalar else len(np.asarray(want))
    if port.dtype is DataType.U32 and not port.scalar:
        bits = int(np.unpackbits(np.asarray(want, dtype="<u4").view(np.uint8)).sum())
        got = int(np.asarray(ops.evaluate("bitset.popcount", [device_value], backend="wgpu"))[0])
        if got != bits:
            return f"chained into bitset.popcount: {got}, expected {bits}"
    if count == 0:
        return None
    groups = -(-count // 64)
    result = run(_copy_program(port.dtype), {"src": device_value}, dispatch=(groups, 1, 1),
                 outputs={"dst": count}, backend="wgpu")  # fmt: skip
    got_words = np.asarray(result["dst"], dtype=np.uint64)[:count]
    want_words = np.asarray([want] if port.scalar else want, dtype=np.uint64)
    problem = _differ(want_words, got_words)
    return None if problem is None else f"chained into vyre.run: {problem}"


@dataclass
class Report:
    """Failures found and cases checked, per entry point."""

    failures: list[str]
    checked: dict[str, int]

    def fail(self, entry: str, case: Case, problem: str) -> None:
        self.failures.append(f"{entry}: {case}: {problem}")

    def count(self, entry: str, k: int = 1) -> None:
        self.checked[entry] = self.checked.get(entry, 0) + k


def _guard(report: Report, entry: str, case: Case | str, run: Callable[[], None]) -> None:
    """Run one check; an unexpected exception is a failure of that entry point."""
    from vyre.kernels.spec import OpInputError

    try:
        run()
    except OpInputError as error:
        report.failures.append(f"{entry}: {case}: unexpected OpInputError: {error}")
    except Exception as error:  # noqa: BLE001 - every exception is a finding
        report.failures.append(f"{entry}: {case}: {type(error).__name__}: {str(error)[:400]}")


def _mixed_order(cases: Sequence[Case]) -> list[Case]:
    """The cases with the largest moved to the middle of the tiny ones (one
    huge evaluation among small ones)."""
    if len(cases) < 3:
        return list(cases)
    order = sorted(range(len(cases)), key=lambda k: _size(cases[k].args))
    largest = order[-1]
    rest = [cases[k] for k in order[:-1]]
    return [*rest[: len(rest) // 2], cases[largest], *rest[len(rest) // 2 :]]


def _size(args: Sequence[Any]) -> int:
    return sum(_length_of(value) or 0 for value in args)


def check_cases(
    op_id: str,
    cases: Sequence[Case],
    backend: str,
    *,
    report: Report | None = None,
    single: bool = True,
    device: bool = True,
    reversed_lanes: bool = False,
    twice: bool = False,
) -> Report:
    """Run `cases` (valid or malformed) of `op_id` through the entry points on
    `backend` and compare with the oracle; returns the failures."""
    from vyre import ops
    from vyre.kernels.spec import OpInputError
    from vyre.kernels import run as kernel_run

    report = report if report is not None else Report([], {})
    spec = _spec(op_id)
    wants = [expected(c) for c in cases]
    for case, want in zip(cases, wants):
        if isinstance(want, Refused):
            report.fail("oracle", case, f"the generator made arguments the op must refuse ({want})")
    good = [(c, w) for c, w in zip(cases, wants) if not isinstance(w, Refused)]
    clean = [(c, w) for c, w in good if not is_error(w)]
    bad = [(c, w) for c, w in good if is_error(w)]
    primary = spec.outputs[0].name

    def reference() -> None:
        for case, want in good:
            args = [np.frombuffer(a, np.uint8) if isinstance(a, bytes) else a for a in case.args]
            problem = compare(spec, want, spec.reference(*args))
            if problem is not None:
                report.fail("reference", case, problem)
        report.count("reference", len(good))

    def many() -> None:
        ordered = _mixed_order([c for c, _ in clean])
        if not ordered:
            return
        got = ops.evaluate_many(op_id, [list(c.args) for c in ordered], backend=backend)
        if len(got) != len(ordered):
            report.fail("evaluate_many", ordered[0], f"{len(got)} results for {len(ordered)} inputs")
            return
        for case, value in zip(ordered, got):
            problem = compare(spec, cast(dict[str, Value], expected(case)), [value], [primary])
            if problem is not None:
                report.fail(f"evaluate_many[{backend}]", case, problem)
        report.count(f"evaluate_many[{backend}]", len(ordered))

    def raw_many() -> None:
        if not good:
            return
        got = kernel_run.evaluate_kernel_many(spec, [list(c.args) for c, _ in good], backend, raise_errors=False)
        for (case, want), value in zip(good, got):
            problem = compare(spec, want, value)
            if problem is not None:
                report.fail(f"raw evaluate_many[{backend}]", case, problem)
        report.count(f"raw evaluate_many[{backend}]", len(good))

    def singles() -> None:
        for case, want in good:
            got = kernel_run.evaluate_kernel(spec, list(case.args), backend, raise_errors=False)
            problem = compare(spec, want, got)
            if problem is not None:
                report.fail(f"raw evaluate[{backend}]", case, problem)
        report.count(f"raw evaluate[{backend}]", len(good))

    def public_single() -> None:
        for case, want in good[:: max(1, len(good) // 6)]:
            if is_error(want):
                continue
            value = ops.evaluate(op_id, list(case.args), backend=backend)
            problem = compare(spec, want, [value], [primary])
            raw = ops.evaluate_raw(op_id, list(case.args), backend=backend)
            problem = problem or compare(spec, want, [raw.get(p.name) for p in spec.outputs])
            if problem is not None:
                report.fail(f"evaluate/evaluate_raw[{backend}]", case, problem)
            report.count(f"evaluate/evaluate_raw[{backend}]")

    def errors() -> None:
        for case, want in bad:
            try:
                ops.evaluate(op_id, list(case.args), backend=backend)
            except OpInputError as error:
                offset = error.offset if want["error_offset"] != ANY_OFFSET else ANY_OFFSET
                if (offset, error.code) != (want["error_offset"], want["error_code"]) or error.op_id != op_id:
                    report.fail(f"OpInputError[{backend}]", case,
                                f"offset {error.offset} code {error.code}, expected {want['error_offset']} {want['error_code']}")  # fmt: skip
            else:
                report.fail(f"OpInputError[{backend}]", case, "no OpInputError: a result was returned")
            report.count(f"OpInputError[{backend}]")
        if bad and clean:
            # one malformed evaluation among valid ones: the batch raises with its offset and code
            for case, want in bad[:: max(1, len(bad) // 4)]:
                batch = [list(c.args) for c, _ in clean[:3]] + [list(case.args)] + [list(c.args) for c, _ in clean[3:5]]
                try:
                    ops.evaluate_many(op_id, batch, backend=backend)
                except OpInputError as error:
                    offset = error.offset if want["error_offset"] != ANY_OFFSET else ANY_OFFSET
                    if (offset, error.code) != (want["error_offset"], want["error_code"]):
                        report.fail(f"evaluate_many OpInputError[{backend}]", case,
                                    f"offset {error.offset} code {error.code}, expected {want['error_offset']} {want['error_code']}")  # fmt: skip
                else:
                    report.fail(f"evaluate_many OpInputError[{backend}]", case, "no OpInputError: results were returned")
                report.count(f"evaluate_many OpInputError[{backend}]")

    def on_device() -> None:
        if not clean:
            return
        ordered = _mixed_order([c for c, _ in clean])
        got = kernel_run.evaluate_kernel_many(spec, [list(c.args) for c in ordered], "wgpu", on_device=True)
        for k, (case, values) in enumerate(zip(ordered, got)):
            want = cast(dict[str, Value], expected(case))
            problem = compare(spec, want, values)
            if problem is None and k % 3 == 0:
                for port, value in zip(spec.outputs, values):
                    if port.name in want:
                        problem = problem or _chain(port, value, want[port.name])
            if problem is not None:
                report.fail("on_device", case, problem)
        report.count("on_device", len(ordered))

    def device_inputs() -> None:
        if not good:
            return
        chosen = good[:: max(1, len(good) // 8)]
        many_args = [_device_args(spec, c.args) for c, _ in chosen]
        got = kernel_run.evaluate_kernel_many(spec, many_args, "wgpu", raise_errors=False)
        for (case, want), value in zip(chosen, got):
            problem = compare(spec, want, value)
            if problem is not None:
                report.fail("DeviceBuffer inputs (0xFF padding)", case, problem)
        report.count("DeviceBuffer inputs (0xFF padding)", len(chosen))

    def again() -> None:
        if not good:
            return
        first = kernel_run.evaluate_kernel_many(spec, [list(c.args) for c, _ in good], backend, raise_errors=False)
        second = kernel_run.evaluate_kernel_many(spec, [list(c.args) for c, _ in good], backend, raise_errors=False)
        for (case, _), a, b in zip(good, first, second):
            for port, x, y in zip(spec.outputs, a, b):
                problem = _differ(canonical(port, x), canonical(port, y))
                if problem is not None:
                    report.fail(f"determinism[{backend}]", case, f"two runs differ in `{port.name}`: {problem}")
                    break
        report.count(f"determinism[{backend}]", len(good))

    _guard(report, "reference", op_id, reference)
    if reversed_lanes:
        with lanes_reversed():
            _guard(report, "raw evaluate_many[interp, reversed lanes]", op_id, raw_many)
        return report
    _guard(report, f"evaluate_many[{backend}]", op_id, many)
    _guard(report, f"raw evaluate_many[{backend}]", op_id, raw_many)
    if single:
        _guard(report, f"raw evaluate[{backend}]", op_id, singles)
        _guard(report, f"evaluate/evaluate_raw[{backend}]", op_id, public_single)
    _guard(report, f"OpInputError[{backend}]", op_id, errors)
    if backend == "wgpu" and device:
        _guard(report, "on_device", op_id, on_device)
        _guard(report, "DeviceBuffer inputs", op_id, device_inputs)
    if twice:
        _guard(report, f"determinism[{backend}]", op_id, again)
    return report


def op_cases(op_id: str, seed: int, backend: str, *, budget: int, long: bool = False, max_length: int | None = None) -> list[Case]:
    """`budget` valid cases of `op_id` (lengths from `lengths`, patterns cycled),
    deterministic in (seed, op, backend), plus malformed ones for decoders."""
    rng = np.random.default_rng([seed, _stable(op_id), 1 if backend == "wgpu" else 0])
    menu = [n for n in lengths(backend, long) if max_length is None or n <= max_length]
    pats = patterns_of(op_id)
    cases: list[Case] = []
    # always the boundary ends, then random picks
    picks = [0, 1, menu[-1]] + [int(rng.integers(0, len(menu))) for _ in range(max(budget - 3, 0))]
    for k, index in enumerate(picks[:budget]):
        n = menu[index] if index < len(menu) else index
        cases.append(generate(op_id, rng, n, pats[k % len(pats)]))
    if op_id in DECODERS:
        errors = malformed(op_id, rng, int(_pick(rng, [n for n in menu if n <= 4097])))
        cases.extend(errors[:: max(1, len(errors) // max(budget // 2, 1))])
    return cases


def check_op(op_id: str, seed: int, backend: str, *, budget: int = 12, long: bool = False,
             max_length: int | None = None, single: bool = True, device: bool = True,
             reversed_lanes: bool = False, twice: bool = False) -> Report:  # fmt: skip
    """Generate `budget` cases of `op_id` and check them on `backend`."""
    cases = op_cases(op_id, seed, backend, budget=budget, long=long, max_length=max_length)
    return check_cases(op_id, cases, backend, single=single, device=device, reversed_lanes=reversed_lanes, twice=twice)


# ---------------------------------------------------------------------------
# The harness's fuzzer (python -m vyre.testing.fuzz --only kernel)
# ---------------------------------------------------------------------------


def case_json(case: Case) -> bytes:
    args: list[dict[str, Any]] = []
    for value in case.args:
        if isinstance(value, bytes):
            args.append({"bytes": value.hex()})
        elif isinstance(value, np.ndarray):
            array = cast("np.ndarray[Any, Any]", value)
            if array.dtype == np.float32:
                args.append({"f32": array.view(np.uint32).tolist()})
            else:
                args.append({"u32": np.asarray(array, np.uint32).tolist()})
        else:
            args.append({"int": int(value)})
    return json.dumps({"op": case.op, "label": case.label, "args": args}, sort_keys=True).encode()


def case_from_json(data: bytes) -> Case:
    raw = json.loads(data)
    args: list[Any] = []
    for item in raw["args"]:
        if "bytes" in item:
            args.append(bytes.fromhex(item["bytes"]))
        elif "f32" in item:
            args.append(np.array(item["f32"], np.uint32).view(np.float32))
        elif "u32" in item:
            args.append(np.array(item["u32"], np.uint32))
        else:
            args.append(int(item["int"]))
    return Case(str(raw["op"]), tuple(args), str(raw.get("label", "")))


def _have_gpu() -> bool:
    try:
        from vyre.runtime.adapters import choose_adapter

        choose_adapter()
    except Exception:  # noqa: BLE001 - no wgpu, no adapter: interpreter only
        return False
    return True


HEAVY_OPS = frozenset(
    {
        "collection.contains_u32", "collection.unique_u32", "sort.u32", "sort.key_value_u32",
        "compression.deflate_decompress", "compression.gzip_decompress", "compression.zlib_decompress",
        "decode.inflate_stored", "graph.connected_components", "graph.bfs",
    }
)  # fmt: skip
"""Ops with long plans (radix sorts, inflate and graph rounds): smaller cases."""
FUZZER_LENGTH, FUZZER_HEAVY_LENGTH = 70_000, 17_000
"""The harness's largest generated lengths (a case must finish well within its
hang limit of CPU time, compilation of a new op included)."""
INTERP_LENGTH, INTERP_HEAVY_LENGTH = 4_200, 300
"""Cases larger than this run on wgpu only."""


class KernelFuzzer:
    """Kernel ops with random arguments through every entry point on the
    interpreter and on wgpu (when an adapter exists), against the oracles."""

    name = "kernel"
    extension = "json"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def generate(self, index: int) -> bytes:
        ids = kernel_op_ids()
        rnd = random.Random(f"kernel:{self.seed}:{index}")
        op_id = ids[index % len(ids)]
        rng = np.random.default_rng(rnd.randrange(2**62))
        if op_id in DECODERS and rnd.random() < 0.4:
            cases = malformed(op_id, rng, rnd.choice(EDGES[:18]))
            return case_json(rnd.choice(cases))
        cap = FUZZER_HEAVY_LENGTH if op_id in HEAVY_OPS else FUZZER_LENGTH
        menu = [n for n in lengths("wgpu") if n <= cap]
        n = rnd.choice(menu) if rnd.random() < 0.8 else rnd.randrange(0, cap)
        return case_json(generate(op_id, rng, n, rnd.choice(patterns_of(op_id))))

    def check(self, data: bytes) -> None:
        from vyre.testing.fuzz.base import OracleFailure

        case = case_from_json(data)
        if case.op not in ORACLES:
            raise OracleFailure(f"no oracle for kernel op `{case.op}`")
        failures: list[str] = []
        backends = ["interp", "wgpu"] if _have_gpu() else ["interp"]
        small = _size(case.args) <= (INTERP_HEAVY_LENGTH if case.op in HEAVY_OPS else INTERP_LENGTH)
        for backend in backends:
            if backend == "interp" and not small:
                continue
            # every entry point on wgpu; on the (slow) interpreter the batched and raw paths
            report = check_cases(case.op, [case], backend, single=backend == "wgpu", device=True)
            failures.extend(report.failures)
        if small:
            failures.extend(check_cases(case.op, [case], "interp", reversed_lanes=True).failures)
        if failures:
            raise OracleFailure("; ".join(failures)[:2000])

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        """Cut the arguments (halves, then quarters...) while the case still fails."""
        case = case_from_json(data)
        best = case
        for k in range(len(best.args)):
            step = _size([best.args[k]]) // 2
            while step >= 1:
                value: Any = best.args[k]
                length = _length_of(value)
                if length is None or length <= step:
                    step //= 2
                    continue
                improved = False
                cuts: tuple[Any, Any] = (value[step:], value[:-step])
                for cut in cuts:
                    trial = Case(best.op, (*best.args[:k], cut, *best.args[k + 1 :]), best.label + " (shrunk)")
                    if still_fails(case_json(trial)):
                        best, improved = trial, True
                        break
                if not improved:
                    step //= 2
        return case_json(best)


# ---------------------------------------------------------------------------
# Hostile arguments
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Hostile:
    """One call with one argument replaced: `error` is the exception type the
    call must raise (None: the form is accepted and must give `canonical`'s
    result), and its message must name input `name`."""

    label: str
    args: tuple[Any, ...]
    error: type[Exception] | None
    name: str
    canonical: tuple[Any, ...] | None = None


def _hostile_values(dtype: Any, scalar: bool, base: Any) -> list[tuple[str, Any, type[Exception] | None, Any]]:
    """(label, value, error type or None, canonical value when accepted)."""
    import array as pyarray

    from vyre.ir import DataType

    if scalar:
        return [
            ("None", None, TypeError, None), ("str", "3", TypeError, None), ("float", 1.5, TypeError, None),
            ("list", [1], TypeError, None), ("1-element array", np.array([1], np.uint32), TypeError, None),
            ("bytes", b"\x01", TypeError, None), ("negative", -1, ValueError, None),
            ("2**32", 2**32, ValueError, None), ("2**70", 2**70, ValueError, None),
            ("np.int64(-1)", np.int64(-1), ValueError, None), ("np.float64", np.float64(1.0), TypeError, None),
            ("np.uint32", np.uint32(base), None, base), ("np.int64", np.int64(base), None, base),
            ("0-d array", np.array(base, np.uint32), None, base),
        ]  # fmt: skip
    common: list[tuple[str, Any, type[Exception] | None, Any]] = [
        ("None", None, TypeError, None), ("str", "abcd", TypeError, None), ("int", 5, TypeError, None),
        ("float", 1.5, TypeError, None), ("dict", {}, TypeError, None), ("object", object(), TypeError, None),
        ("object array", np.array([None, 1], dtype=object), TypeError, None),
        ("complex array", np.ones(2, np.complex64), TypeError, None),
    ]  # fmt: skip
    if dtype is DataType.BYTES:
        data = bytes(base)
        spread = np.zeros(2 * len(data), np.uint8)
        spread[::2] = np.frombuffer(data, np.uint8)
        shifted = np.frombuffer(b"\0" + data, np.uint8)[1:]
        words = pyarray.array("I")
        words.frombytes(data[: len(data) - len(data) % 4])
        return [
            *common,
            ("list of ints", list(data) or [1], TypeError, None), ("2-D uint8", np.zeros((2, 2), np.uint8), TypeError, None),
            ("float array", np.ones(4), TypeError, None), ("uint32 array", np.arange(4, dtype=np.uint32), TypeError, None),
            ("bytearray", bytearray(data), None, data), ("memoryview", memoryview(data), None, data),
            ("memoryview of u32", memoryview(words), None, bytes(words.tobytes())),
            ("strided uint8", spread[::2], None, data), ("unaligned uint8", shifted, None, data),
        ]  # fmt: skip
    if dtype is DataType.F32:
        values = np.asarray(base, np.float32)
        with np.errstate(all="ignore"):
            halves = values.astype(np.float16)
            doubles = values.astype(np.float64)
        return [
            *common,
            ("bytes", b"abcd", TypeError, None), ("int array", np.arange(4, dtype=np.uint32), TypeError, None),
            ("2-D", np.zeros((2, 2), np.float32), TypeError, None), ("str list", ["a"], TypeError, None),
            # F32 inputs are float32 arrays, as in vyre.run: nothing is rounded silently
            ("float64", doubles, TypeError, None), ("float16", halves, TypeError, None),
            ("list of floats", [float(v) for v in values], TypeError, None),
        ]  # fmt: skip
    values = np.asarray(base, np.uint32)
    wide = np.zeros(2 * len(values), np.uint32)
    wide[::2] = values
    return [
        *common,
        ("bytes", b"abcd", TypeError, None), ("bytearray", bytearray(b"abcd"), TypeError, None),
        ("memoryview", memoryview(b"abcd"), TypeError, None), ("0-d array", np.array(3, np.uint32), TypeError, None),
        ("2-D", np.zeros((2, 2), np.uint32), TypeError, None), ("float64 array", np.ones(4), TypeError, None),
        ("list of floats", [1.5], TypeError, None), ("list of None", [None], TypeError, None),
        ("list of str", ["a"], TypeError, None), ("negative list", [1, -1], ValueError, None),
        ("2**32 list", [2**32], ValueError, None), ("int64 -1", np.array([-1], np.int64), ValueError, None),
        ("uint64 2**40", np.array([2**40], np.uint64), ValueError, None),
        ("list of ints", [int(v) for v in values], None, values), ("tuple", tuple(int(v) for v in values), None, values),
        ("int64", values.astype(np.int64), None, values), ("big-endian", values.astype(">u4"), None, values),
        ("strided", wide[::2], None, values),
    ]  # fmt: skip


def hostile_cases(op_id: str, seed: int = 0) -> list[Hostile]:
    """Every hostile value in every argument position of `op_id` (the other
    arguments a small valid case), and the op's own refusals (the oracle's
    `Refused`: bytes out of range, bad CSR, unequal lengths...)."""
    spec = _spec(op_id)
    rng = np.random.default_rng([seed, _stable(op_id), 7])
    base = generate(op_id, rng, 9, patterns_of(op_id)[0]).args
    out: list[Hostile] = []
    for k, port in enumerate(spec.inputs):
        for label, value, error, canonical_value in _hostile_values(port.dtype, port.scalar, base[k]):
            args = (*base[:k], value, *base[k + 1 :])
            if error is None:
                accepted = (*base[:k], canonical_value, *base[k + 1 :])
                refused = expected(Case(op_id, accepted, label))
                if isinstance(refused, Refused) or is_error(refused):
                    continue  # the form changes the value (a length the op checks, a decoder's text)
                out.append(Hostile(f"`{port.name}` {label}", args, None, port.name, accepted))
            else:
                out.append(Hostile(f"`{port.name}` {label}", args, error, port.name))
    for label, args in _semantic_refusals(op_id, base):
        want = expected(Case(op_id, args, label))
        if isinstance(want, Refused):
            out.append(Hostile(label, args, want.error, want.names))
    return out


def _semantic_refusals(op_id: str, base: tuple[Any, ...]) -> list[tuple[str, tuple[Any, ...]]]:
    """Well-typed arguments whose values the op must refuse (the oracle says
    which input is at fault)."""
    u = np.uint32
    spec = _spec(op_id)
    names = [p.name for p in spec.inputs]
    out: list[tuple[str, tuple[Any, ...]]] = []

    def replace(name: str, value: Any) -> tuple[Any, ...]:
        k = names.index(name)
        return (*base[:k], value, *base[k + 1 :])

    for name in ("byte", "delim"):
        if name in names:
            out += [(f"{name} 256", replace(name, 256)), (f"{name} 0xFFFFFFFF", replace(name, 0xFFFF_FFFF))]
    if "nbins" in names:
        out += [("nbins 0", replace("nbins", 0)), ("nbins 2**24 + 1", replace("nbins", (1 << 24) + 1)),
                ("nbins 2**32 - 1", replace("nbins", 0xFFFF_FFFF))]  # fmt: skip
    if "table" in names:
        out += [("table of 255", replace("table", bytes(255))), ("table of 257", replace("table", bytes(257))),
                ("empty table", replace("table", b""))]  # fmt: skip
    if op_id == "buffer.byte_swap_u32":
        out += [("5 bytes", (b"abcde",)), ("1 byte", (b"a",))]
    array_ports = [p.name for p in spec.inputs if not p.scalar]
    if len(array_ports) >= 2 and op_id.split(".")[0] in ("bitset", "buffer", "scan", "sort"):
        last = array_ports[-1]
        value = _array_of(base[names.index(last)])
        if value is not None:
            longer = np.concatenate([value.astype(u), np.zeros(1, u)])
            out.append((f"`{last}` one element longer", replace(last, longer)))
    if op_id.startswith("graph.") and "offsets" in names:
        offsets = base[names.index("offsets")]
        out += [("offsets empty", replace("offsets", np.zeros(0, u))),
                ("offsets[0] = 1", replace("offsets", np.concatenate([[u(1)], offsets[1:]]).astype(u))),
                ("offsets decreasing", replace("offsets", np.concatenate([offsets, [u(0)]]).astype(u)) if len(offsets) > 1 and offsets[-1] else replace("offsets", np.array([0, 2, 1], u)))]  # fmt: skip
        if "targets" in names:
            targets = base[names.index("targets")]
            out.append(("offsets[n] != m", replace("targets", np.concatenate([targets, [u(0)]]).astype(u))))
            if len(targets):
                bad = targets.copy()
                bad[-1] = len(offsets) - 1
                out.append(("a target = n", replace("targets", bad)))
    if "source" in names:
        n = len(base[names.index("offsets")]) - 1
        if n:
            out += [("source = n", replace("source", n)), ("source 0xFFFFFFFF", replace("source", 0xFFFF_FFFF))]
    if op_id == "graph.csr_in_degree":
        targets, n = base
        out += [("n 2**28 + 1", (targets, (1 << 28) + 1)), ("a target = n", (np.array([n], u), n))]
    if op_id.startswith("hash.") and op_id.endswith("_batch"):
        data = base[0]
        out += [("offsets empty", (data, np.zeros(0, u))), ("offsets decreasing", (data, np.array([2, 1], u))),
                ("offsets past the data", (data, np.array([0, len(data) + 1], u)))]  # fmt: skip
    return out


def check_hostile(
    op_id: str,
    backend: str = "interp",
    seed: int = 0,
    *,
    beside_valid: bool = True,
    entries: tuple[str, ...] = ("evaluate", "evaluate_many"),
    accepted: bool = True,
    accepted_entries: tuple[str, ...] | None = None,
) -> Report:
    """Every `hostile_cases` call through `ops.evaluate` and `ops.evaluate_many`
    (the hostile argument list alone, or after a valid one with
    `beside_valid`): the right exception naming the input, or (accepted forms,
    through `accepted_entries`, default all; none without `accepted`) the
    oracle's result; never another exception."""
    from vyre import ops

    report = Report([], {})
    spec = _spec(op_id)
    cases = hostile_cases(op_id, seed)
    valid = next((list(h.canonical) for h in cases if h.canonical is not None), None)
    for hostile in cases:
        case = Case(op_id, hostile.args, hostile.label)
        if hostile.error is None and not accepted:
            continue
        for entry in entries:
            if hostile.error is None and accepted_entries is not None and entry not in accepted_entries:
                continue
            try:
                if entry == "evaluate":
                    got: Any = [ops.evaluate(op_id, list(hostile.args), backend=backend)]
                else:
                    batch = [list(hostile.args)] if valid is None or not beside_valid else [valid, list(hostile.args)]
                    got = [ops.evaluate_many(op_id, batch, backend=backend)[-1]]
            except (TypeError, ValueError) as error:
                if hostile.error is None:
                    report.fail(f"hostile {entry}", case, f"an accepted form was refused: {type(error).__name__}: {error}")
                elif not isinstance(error, hostile.error) or f"`{hostile.name}`" not in str(error):
                    report.fail(f"hostile {entry}", case, f"{type(error).__name__} not naming `{hostile.name}` as a {hostile.error.__name__}: {error}")
                elif type(error).__name__ == "OpInputError":
                    report.fail(f"hostile {entry}", case, f"an argument error reported as malformed input: {error}")
            except Exception as error:  # noqa: BLE001 - every other exception is a finding
                report.fail(f"hostile {entry}", case, f"{type(error).__name__} (must be TypeError/ValueError): {str(error)[:300]}")
            else:
                if hostile.error is not None:
                    report.fail(f"hostile {entry}", case, f"accepted; must raise {hostile.error.__name__} naming `{hostile.name}`")
                else:
                    assert hostile.canonical is not None
                    want = expected(Case(op_id, hostile.canonical, hostile.label))
                    if not isinstance(want, Refused) and not is_error(want):
                        problem = compare(spec, want, got, [spec.outputs[0].name])
                        if problem is not None:
                            report.fail(f"hostile {entry}", case, f"accepted form, wrong result: {problem}")
            report.count(f"hostile {entry}")
    return report
