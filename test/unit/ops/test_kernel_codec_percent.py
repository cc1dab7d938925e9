"""encode.url_percent_encode and decode.url_percent against
`urllib.parse.quote_from_bytes(b, safe="")` and `urllib.parse.unquote_to_bytes`
(plus the strictness rule: a `%` without two hex digits is malformed) on the
interpreter and on wgpu: every byte value, every length 0-300, inputs past the
one-workgroup form, malformed escapes at every position class, the certificate.
Expected values come from `urllib.parse` and a regular expression written here."""

from __future__ import annotations

import re
import urllib.parse

import numpy as np
import pytest

import vyre
from vyre import conform, ops
from vyre.kernels.families.codec_common import CHUNK, SMALL_CHUNKS
from vyre.kernels.run import evaluate_kernel_many
from vyre.kernels.spec import NO_ERROR
from vyre.ops import registry

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
BAD = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def quote(data: bytes) -> bytes:
    return urllib.parse.quote_from_bytes(data, safe="").encode("ascii")


def expected_decode(text: bytes) -> tuple[bytes, int, int]:
    """(decoded, error offset, code): unquote_to_bytes when every % starts an
    escape, else the first bad % (code 5 when the text ends inside it)."""
    bad = BAD.search(text)
    if bad is None:
        return urllib.parse.unquote_to_bytes(text), NO_ERROR, 0
    digits = text[bad.start() + 1 : bad.start() + 3]
    truncated = len(digits) < 2 and all(chr(d) in "0123456789abcdefABCDEF" for d in digits)
    return b"", bad.start(), 5 if truncated else 1


def decode_raw(texts: list[bytes], backend: str) -> list[tuple[bytes, int, int]]:
    got = evaluate_kernel_many(registry.get_kernel("decode.url_percent"), [[t] for t in texts], backend, raise_errors=False)
    return [(out.tobytes(), int(error[0]), int(code[0])) for out, _, error, code in got]


def test_the_safe_set_is_cpythons() -> None:
    safe = bytes(b for b in range(256) if quote(bytes([b])) == bytes([b]))
    assert safe == b"-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~"
    assert set(safe) == set(urllib.parse._ALWAYS_SAFE)  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize("backend", BACKENDS)
def test_encode_every_byte_and_every_length_to_300(backend: str) -> None:
    rng = np.random.default_rng(1)
    datas = [bytes(range(256)), b"Hello, World! ~-._ %+/?&="]
    datas += [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in range(0, 301, 1 if backend == "wgpu" else 3)]
    datas += [rng.choice(np.frombuffer(b"ab-~ %", np.uint8), n).tobytes() for n in range(1, 300, 7)]
    got = ops.evaluate_many("encode.url_percent_encode", [[d] for d in datas], backend=backend)
    for d, g in zip(datas, got):
        assert g.tobytes() == quote(d), d


@pytest.mark.parametrize("backend", BACKENDS)
def test_decode_every_length_to_300(backend: str) -> None:
    rng = np.random.default_rng(2)
    texts: list[bytes] = [b"", b"%41%4a%4A+b", b"%e2%82%ac%E2%82%AC", b"%%", b"100%", b"%zz", b"%4", b"a%4g"]
    step = 1 if backend == "wgpu" else 3
    for n in range(0, 301, step):
        text = quote(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
        texts.append(text)
        texts.append(text.lower())
        texts.append(text[: len(text) - n % 3])  # may cut an escape
    for text, got in zip(texts, decode_raw(texts, backend)):
        assert got == expected_decode(text), text


BAD_BYTES = b"%g\xff"


@pytest.mark.parametrize("backend", BACKENDS)
def test_malformed_escapes_at_every_position_class(backend: str) -> None:
    texts: list[bytes] = []
    for n in range(1, 40, 1 if backend == "wgpu" else 4):
        text = quote(np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes())
        for position in sorted({0, 2, len(text) // 2, len(text) - 2, len(text) - 1} & set(range(len(text)))):
            for bad in BAD_BYTES:
                damaged = bytearray(text)
                damaged[position] = bad
                texts.append(bytes(damaged))
        texts += [text + b"%", text + b"%4", text[:-1]]
    results = decode_raw(texts, backend)
    rejected = 0
    for text, got in zip(texts, results):
        assert got == expected_decode(text), text
        rejected += got[1] != NO_ERROR
    assert rejected > len(texts) // 3


def test_op_input_error() -> None:
    for backend in BACKENDS:
        for text, offset, code in ((b"100%", 3, 5), (b"a%4", 1, 5), (b"%zz%41", 0, 1), (b"%41%4g", 3, 1)):
            with pytest.raises(vyre.OpInputError) as info:
                ops.evaluate("decode.url_percent", [text], backend=backend)
            assert (info.value.offset, info.value.code) == (offset, code), text


@pytest.mark.parametrize("backend", BACKENDS)
def test_past_one_workgroup(backend: str) -> None:
    # past SMALL_CHUNKS chunks: count, scan and scatter passes
    n = SMALL_CHUNKS * CHUNK + 9
    data = np.random.default_rng(3).integers(0, 256, n, dtype=np.uint8).tobytes()
    text = ops.evaluate("encode.url_percent_encode", [data], backend=backend).tobytes()
    assert text == quote(data)
    assert ops.evaluate("decode.url_percent", [text], backend=backend).tobytes() == data
    damaged = bytearray(text)
    damaged[len(text) - 2] = ord("%")
    assert decode_raw([bytes(damaged)], backend) == [expected_decode(bytes(damaged))]


def test_one_mebibyte_on_wgpu() -> None:
    rng = np.random.default_rng(4)
    data = rng.choice(np.frombuffer(b"abcdefghij /?&=%\xc3\xa9", np.uint8), 1 << 20).tobytes()
    text = ops.evaluate("encode.url_percent_encode", [data], backend="wgpu").tobytes()
    assert text == quote(data)
    assert ops.evaluate("decode.url_percent", [text], backend="wgpu").tobytes() == data


def test_certified_on_wgpu_with_parity() -> None:
    wanted = ["encode.url_percent_encode", "decode.url_percent"]
    cert = conform.certify(backend="wgpu", ops=wanted, strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
