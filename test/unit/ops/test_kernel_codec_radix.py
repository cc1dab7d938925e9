"""decode.base64 / base64url / base32 / hex and encode.base64_encode /
base64url_encode / base32_encode / hex_encode_lower against CPython's `base64`,
`binascii` and `bytes.fromhex` on the interpreter and on wgpu: RFC 4648 §10
vectors, every length 0-300, random lengths up to 1 MiB (wgpu), malformed input
at every position class (first byte, middle, padding, last byte) with the
offset of the first bad byte, batches (`plan_many`), split dispatches, padding
bytes of the last word, the certificate.

Expected values come from the standard library and from the longest-valid-
prefix oracle below (which asks the standard library whether a completion of
each prefix decodes), never from vyre's references."""

from __future__ import annotations

import base64
import binascii
import itertools
import re
import sys
from collections.abc import Callable

import numpy as np
import pytest

import vyre
from vyre import conform, ops
from vyre.kernels.run import evaluate_kernel_many
from vyre.kernels.spec import NO_ERROR
from vyre.ops import registry

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "encode.base64_encode": base64.b64encode,
    "encode.base64url_encode": base64.urlsafe_b64encode,
    "encode.base32_encode": base64.b32encode,
    "encode.hex_encode_lower": lambda b: b.hex().encode(),
}
def _url_decode(s: bytes) -> bytes:
    if b"+" in s or b"/" in s:
        raise binascii.Error("not the base64url alphabet")
    return base64.b64decode(s, altchars=b"-_", validate=True)


STDLIB_DECODERS: dict[str, Callable[[bytes], bytes]] = {
    "decode.base64": lambda s: base64.b64decode(s, validate=True),
    "decode.base64url": _url_decode,
    "decode.base32": base64.b32decode,
    "decode.hex": binascii.unhexlify,
}
ENCODER_OF = {
    "decode.base64": base64.b64encode,
    "decode.base64url": base64.urlsafe_b64encode,
    "decode.base32": base64.b32encode,
    "decode.hex": lambda b: b.hex().encode(),
}
GROUP = {"decode.base64": 4, "decode.base64url": 4, "decode.base32": 8, "decode.hex": 2}
SYMBOL = {"decode.base64": b"A", "decode.base64url": b"A", "decode.base32": b"A", "decode.hex": b"0"}
QUIRK = re.compile(rb"(?:[A-Za-z0-9+/_-]{4})+=+")
"""CPython < 3.13 accepts redundant '=' after a complete last group (gh-118314)."""


def stdlib_accepts(op: str, s: bytes) -> bool:
    try:
        STDLIB_DECODERS[op](s)
    except (binascii.Error, ValueError):
        return False
    if op in ("decode.base64", "decode.base64url") and QUIRK.fullmatch(s):
        return False  # CPython 3.13's strict mode and RFC 4648 reject these
    return True


def is_prefix(op: str, s: bytes) -> bool:
    """Whether some completion of `s` decodes (a group is symbols, then pads:
    those are the only completions to try)."""
    missing = -len(s) % GROUP[op]
    pads = range(missing + 1) if op != "decode.hex" else (0,)
    return any(stdlib_accepts(op, s + SYMBOL[op] * (missing - p) + b"=" * p) for p in pads)


def expected_error(op: str, s: bytes) -> tuple[int, int] | None:
    """(offset, code) by the longest-valid-prefix definition, by bisection over
    the prefixes with the standard library as the judge."""
    if stdlib_accepts(op, s):
        return None
    lo, hi = 0, len(s)  # is_prefix(s[:lo]) holds; find the largest such
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if is_prefix(op, s[:mid]):
            lo = mid
        else:
            hi = mid - 1
    if lo == len(s):
        return lo, 2
    in_alphabet = stdlib_accepts(op, (s[lo : lo + 1] * GROUP[op]))
    return lo, 3 if in_alphabet or s[lo] == ord("=") and op != "decode.hex" else 1


def raw(many: list[bytes], op: str, backend: str) -> list[tuple[np.ndarray, ...]]:
    return evaluate_kernel_many(registry.get_kernel(op), [[m] for m in many], backend, raise_errors=False)


# ---------------------------------------------------------------------------
# Published vectors
# ---------------------------------------------------------------------------

RFC4648 = [b"", b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar"]
VECTORS = {
    "encode.base64_encode": [b"", b"Zg==", b"Zm8=", b"Zm9v", b"Zm9vYg==", b"Zm9vYmE=", b"Zm9vYmFy"],
    "encode.base32_encode": [b"", b"MY======", b"MZXQ====", b"MZXW6===", b"MZXW6YQ=", b"MZXW6YTB", b"MZXW6YTBOI======"],
    "encode.hex_encode_lower": [b"", b"66", b"666f", b"666f6f", b"666f6f62", b"666f6f6261", b"666f6f626172"],
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_rfc4648_section_10_vectors(backend: str) -> None:
    for op, texts in VECTORS.items():
        assert [g.tobytes() for g in ops.evaluate_many(op, [[d] for d in RFC4648], backend=backend)] == texts
        decoder = op.replace("encode.", "decode.").replace("_encode_lower", "").replace("_encode", "")
        decoded = ops.evaluate_many(decoder, [[t] for t in texts], backend=backend)
        assert [g.tobytes() for g in decoded] == RFC4648
    hex_upper = [t.upper() for t in VECTORS["encode.hex_encode_lower"]]  # RFC 4648 §10 BASE16 is upper case
    assert [g.tobytes() for g in ops.evaluate_many("decode.hex", [[t] for t in hex_upper], backend=backend)] == RFC4648
    url = ops.evaluate_many("encode.base64url_encode", [[b"\xfb\xff"], [b"\xff\xfe"]], backend=backend)
    assert [g.tobytes() for g in url] == [b"-_8=", b"__4="]


# ---------------------------------------------------------------------------
# Every length 0-300 and large inputs
# ---------------------------------------------------------------------------


def _data(n: int, seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", sorted(ENCODERS))
def test_encoders_equal_the_stdlib_for_every_length_to_300(op: str, backend: str) -> None:
    datas = [_data(n, n) for n in range(301)] + [b"\x00" * 37, b"\xff" * 301]
    got = ops.evaluate_many(op, [[d] for d in datas], backend=backend)
    for d, g in zip(datas, got):
        assert g.dtype == np.uint8 and g.tobytes() == ENCODERS[op](d), len(d)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", sorted(STDLIB_DECODERS))
def test_decoders_equal_the_stdlib_for_every_length_to_300(op: str, backend: str) -> None:
    datas = [_data(n, n + 1000) for n in range(301)]
    texts = [ENCODER_OF[op](d) for d in datas]
    if op == "decode.hex":
        texts += [t.upper() for t in texts[::7]] + [bytes.hex(d).encode().swapcase() for d in datas[::11]]
        datas += [binascii.unhexlify(t) for t in texts[301:]]
    for d, t, out in zip(datas, texts, ops.evaluate_many(op, [[t] for t in texts], backend=backend)):
        assert out.tobytes() == d == STDLIB_DECODERS[op](t), t


@pytest.mark.parametrize("op", sorted(STDLIB_DECODERS))
def test_every_text_of_up_to_5_symbols_agrees_with_the_stdlib(op: str) -> None:
    # an exhaustive neighbourhood of the padding rules: symbols, pads, a
    # bad byte, the other alphabet's symbols, lower case
    pool = {"decode.base64": b"Aw=!-", "decode.base64url": b"Aw=+_", "decode.base32": b"A7=a1", "decode.hex": b"0fF=g"}[op]
    texts = [bytes(t) for n in range(6) for t in itertools.product(pool, repeat=n)]
    if op == "decode.base32":
        texts = [t for t in texts if len(t) < 2] + [b"AAA" + t for t in texts if len(t) == 5] + [b"AAAAA" + t for t in texts if len(t) == 4]
    got = raw(texts, op, "interp")
    for t, out in zip(texts, got):
        error = int(out[2][0])
        expected = expected_error(op, t)
        if expected is None:
            assert error == NO_ERROR and out[0].tobytes() == STDLIB_DECODERS[op](t), t
        else:
            assert (error, int(out[3][0])) == expected and len(out[0]) == 0, t


@pytest.mark.parametrize("n", [65_536, 1 << 20, 999_999])
def test_large_inputs_on_wgpu(n: int) -> None:
    data = _data(n, n)
    for op, encode in ENCODERS.items():
        assert ops.evaluate(op, [data], backend="wgpu").tobytes() == encode(data), op
    for op in STDLIB_DECODERS:
        text = ENCODER_OF[op](data)
        assert ops.evaluate(op, [text], backend="wgpu").tobytes() == data, op


def test_a_large_input_on_the_interpreter() -> None:
    data = _data(70_001, 3)
    for op in STDLIB_DECODERS:
        text = ENCODER_OF[op](data)
        assert ops.evaluate(op, [text], backend="interp").tobytes() == data, op
    assert ops.evaluate("encode.base32_encode", [data], backend="interp").tobytes() == base64.b32encode(data)


# ---------------------------------------------------------------------------
# Malformed input
# ---------------------------------------------------------------------------

BAD_BYTES = b"!=\xff \nA-+a"


def _damaged(op: str) -> list[bytes]:
    """Encodings of 1..40 bytes with one byte replaced at the first byte,
    the middle, each of the last two bytes (the padding), truncated by one, and
    with a byte appended."""
    out: list[bytes] = []
    for n in range(1, 41):
        text = ENCODER_OF[op](_data(n, 7 * n))
        for position in sorted(p for p in {0, len(text) // 2, len(text) - 2, len(text) - 1} if 0 <= p < len(text)):
            for bad in BAD_BYTES:
                damaged = bytearray(text)
                damaged[position] = bad
                out.append(bytes(damaged))
        out += [text[:-1], text + b"=", text + b"A", text + b"==", text[: len(text) // 2]]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", sorted(STDLIB_DECODERS))
def test_malformed_input_at_every_position_class(op: str, backend: str) -> None:
    texts = _damaged(op)
    got = raw(texts, op, backend)
    rejected = 0
    for text, (out, length, error, code) in zip(texts, got):
        expected = expected_error(op, text)
        if expected is None:
            assert int(error[0]) == NO_ERROR and out.tobytes() == STDLIB_DECODERS[op](text), text
            continue
        rejected += 1
        assert (int(error[0]), int(code[0])) == expected, text
        assert len(out) == 0 and int(length[0]) == 0, text
        if op == "decode.hex" and not re.search(rb"\s", text):
            with pytest.raises(ValueError, match=f"at position {expected[0]}$"):
                bytes.fromhex(text.decode("latin-1"))
    assert rejected > len(texts) // 2


def test_op_input_error_names_the_op_offset_and_code() -> None:
    cases = [
        ("decode.base64", b"Zm9vYmE", 7, 2),
        ("decode.base64", b"Zm!v", 2, 1),
        ("decode.base64", b"=Zg=", 0, 3),
        ("decode.base64", b"Zg==Zg==", 4, 3),
        ("decode.base64", b"Zg=a", 3, 3),
        ("decode.base64url", b"Zm+v", 2, 1),
        ("decode.base32", b"MZXW6YQ", 7, 2),
        ("decode.base32", b"MZXW=YQ=", 5, 3),
        ("decode.base32", b"MZX=====", 3, 3),
        ("decode.base32", b"mzxw6yq=", 0, 1),
        ("decode.hex", b"abc", 3, 2),
        ("decode.hex", b"ab c", 2, 1),
    ]
    for backend in BACKENDS:
        for op, text, offset, code in cases:
            with pytest.raises(vyre.OpInputError) as info:
                ops.evaluate(op, [text], backend=backend)
            error = info.value
            assert isinstance(error, ValueError)
            assert (error.op_id, error.offset, error.code) == (op, offset, code), (op, text)
            assert f"`{op}`" in str(error) and f"offset {offset}" in str(error)
    with pytest.raises(vyre.OpInputError):  # one bad evaluation fails the batch: nothing half-decoded
        ops.evaluate_many("decode.base64", [[b"Zg=="], [b"Z!=="]], backend="wgpu")


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="CPython 3.13 rejects them too (gh-118314)")
def test_redundant_padding_that_old_cpython_accepts_is_rejected() -> None:
    for text in (b"Zm9v=", b"Zm9v==", b"Zm9vYmFy==="):
        assert base64.b64decode(text, validate=True) == base64.b64decode(text.rstrip(b"="), validate=True)
        with pytest.raises(vyre.OpInputError) as info:
            ops.evaluate("decode.base64", [text], backend="interp")
        assert (info.value.offset, info.value.code) == (len(text.rstrip(b"=")), 3)


def test_nonzero_bits_under_the_padding_are_accepted_like_cpython() -> None:
    for text, value in ((b"Zh==", b"f"), (b"Zm9=", b"fo"), (b"MZ======", b"f"), (b"MZXR====", b"fo")):
        decoder = "decode.base32" if text.startswith(b"M") else "decode.base64"
        assert STDLIB_DECODERS[decoder](text) == value
        assert ops.evaluate(decoder, [text], backend="wgpu").tobytes() == value


def test_a_large_malformed_input_reports_the_first_bad_byte() -> None:
    text = bytearray(base64.b64encode(_data(3 << 18, 1)))
    for position in (len(text) - 1, 700_001, 5):
        text[position] = ord("*")
        with pytest.raises(vyre.OpInputError) as info:
            ops.evaluate("decode.base64", [bytes(text)], backend="wgpu")
        assert info.value.offset == position
    garbage = np.random.default_rng(2).integers(0, 256, 1 << 20, dtype=np.uint8)
    with pytest.raises(vyre.OpInputError) as info:  # an error in every workgroup
        ops.evaluate("decode.hex", [garbage], backend="wgpu")
    assert info.value.offset == int(np.flatnonzero(~np.isin(garbage, np.frombuffer(b"0123456789abcdefABCDEF", np.uint8)))[0])


# ---------------------------------------------------------------------------
# Runtime shapes: padding bytes, split dispatches, batches
# ---------------------------------------------------------------------------


def test_padding_bytes_of_the_last_word_are_ignored() -> None:
    from vyre.runtime.device_buffer import DeviceBuffer
    from vyre.runtime.wgpu_device import Resident, gpu_device

    for text, op in ((b"Zm9vYg==", "decode.base64"), (b"Zm9vYmE=", "decode.base64"), (b"66f", "decode.hex")):
        for n in range(len(text) - 2, len(text) + 1):
            words = np.frombuffer(text[:n] + b"\xff=!A"[: -n % 4], dtype=np.uint8).copy()
            packed = np.zeros(-(-n // 4) * 4, dtype=np.uint8)
            packed[: len(words)] = words
            garbage = DeviceBuffer(Resident.upload(gpu_device(), packed.view(np.uint32)), vyre.DataType.BYTES, n)
            expected = raw([text[:n]], op, "interp")[0]
            for backend in BACKENDS:
                got = evaluate_kernel_many(registry.get_kernel(op), [[garbage]], backend, raise_errors=False)[0]
                assert [g.tobytes() for g in got] == [e.tobytes() for e in expected], (text[:n], backend)
    data = DeviceBuffer(Resident.upload(gpu_device(), np.frombuffer(b"f\xff\xff\xff", np.uint32).copy()), vyre.DataType.BYTES, 1)
    assert ops.evaluate("encode.base64_encode", [data], backend="wgpu").tobytes() == b"Zg=="
    assert ops.evaluate("encode.base32_encode", [data], backend="interp").tobytes() == b"MY======"


def test_dispatches_split_past_the_per_axis_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from vyre.runtime.wgpu_device import gpu_device

    monkeypatch.setitem(gpu_device().limits, "max-compute-workgroups-per-dimension", 3)
    data = _data(200_003, 5)  # 66 workgroups of decode and of encode
    text = ops.evaluate("encode.base64_encode", [data], backend="wgpu").tobytes()
    assert text == base64.b64encode(data)
    assert ops.evaluate("decode.base64", [text], backend="wgpu").tobytes() == data
    bad = bytearray(text)
    bad[150_001] = ord("?")
    with pytest.raises(vyre.OpInputError) as info:
        ops.evaluate("decode.base64", [bytes(bad)], backend="wgpu")
    assert info.value.offset == 150_001


@pytest.mark.parametrize("backend", BACKENDS)
def test_batches_mix_sizes_errors_and_empty_inputs(backend: str) -> None:
    texts = [b"", b"Zg==", b"", b"Zm9v!mFy", base64.b64encode(_data(5000, 9)), b"Zm9vYg", b"", b"QQ=="]
    got = raw(texts, "decode.base64", backend)
    alone = [raw([t], "decode.base64", backend)[0] for t in texts]
    for text, batched, single in zip(texts, got, alone):
        assert [x.tobytes() for x in batched] == [x.tobytes() for x in single], text
    assert [int(g[2][0]) for g in got] == [NO_ERROR, NO_ERROR, NO_ERROR, 4, NO_ERROR, 6, NO_ERROR, NO_ERROR]


@pytest.mark.slow  # a certification campaign: make test-all
def test_certified_on_wgpu_with_parity() -> None:
    wanted = sorted(ENCODERS) + sorted(STDLIB_DECODERS)
    cert = conform.certify(backend="wgpu", ops=wanted, strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    for op in wanted:
        assert set(cert.data["checks"][op]) == {"reference", "parity", "determinism"}


def test_outputs_stay_on_the_device() -> None:
    data = _data(1000, 4)
    out = ops.evaluate("decode.base64", [base64.b64encode(data)], backend="wgpu", on_device=True)
    assert isinstance(out, vyre.DeviceBuffer) and len(out) == 1000
    assert out.numpy().tobytes() == data
    text = ops.evaluate("encode.hex_encode_lower", [out], backend="wgpu", on_device=True)  # chained on the device
    assert text.numpy().tobytes() == data.hex().encode()
    with pytest.raises(vyre.OpInputError):
        ops.evaluate("decode.base64", [b"Zg="], backend="wgpu", on_device=True)
