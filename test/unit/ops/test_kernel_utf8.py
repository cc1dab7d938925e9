"""decode.utf8_validate against CPython's UTF-8 codec on the interpreter and on
wgpu: typical malformed sequences, Unicode Table 3-7 at every range boundary, every
length 0-300 (valid text, text cut inside a sequence, damaged text, random
bytes), 1 MiB texts (wgpu) with an error at the first, a middle and the last
byte, batches, the padding bytes of the last word, the certificate.

Expected values come from `bytes.decode("utf-8")` and `UnicodeDecodeError`
(`start`, `reason`), never from vyre's reference."""

from __future__ import annotations

import numpy as np
import pytest

from vyre import conform, ops
from vyre.kernels.run import evaluate_kernel_many
from vyre.kernels.spec import NO_ERROR
from vyre.ops import registry

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
OP = "decode.utf8_validate"


def cpython(data: bytes) -> tuple[int, int, int]:
    """(valid, first_bad, code) from CPython's codec."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return 0, error.start, 5 if error.reason == "unexpected end of data" else 1
    return 1, NO_ERROR, 0


def run(texts: list[bytes], backend: str) -> list[tuple[int, int, int]]:
    got = evaluate_kernel_many(registry.get_kernel(OP), [[t] for t in texts], backend, raise_errors=False)
    return [(int(v[0]), int(f[0]), int(c[0])) for v, f, c in got]


def text(rng: np.random.Generator, chars: int) -> bytes:
    ranges = ((0x20, 0x7F), (0x80, 0x800), (0x800, 0xD800), (0xE000, 0x10000), (0x10000, 0x110000))
    picks = rng.integers(0, len(ranges), chars)
    return "".join(chr(int(rng.integers(*ranges[int(k)]))) for k in picks).encode()


EXAMPLES = [
    (b"\xe2\x82", 0, 5),
    (b"a\x80b", 1, 1),
    (b"\xc0\xaf", 0, 1),
    (b"\xed\xa0\x80", 0, 1),
    (b"\xf4\x90\x80\x80", 0, 1),
    (b"\xf0\x90\x80", 0, 5),
    (b"\xe0\x80\x80", 0, 1),
    (b"abc\xf5", 3, 1),
    (b"\xef\xbf\xbd\xff", 3, 1),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_published_examples(backend: str) -> None:
    texts = [t for t, _, _ in EXAMPLES] + [b"", "héllo wörld € 𝄞".encode(), "\U0010ffff\ud7ff\ue000".encode()]
    expected = [(0, start, code) for _, start, code in EXAMPLES] + [(1, NO_ERROR, 0)] * 3
    assert run(texts, backend) == expected == [cpython(t) for t in texts]
    assert int(ops.evaluate(OP, ["€".encode()], backend=backend)[0]) == 1
    raw = ops.evaluate_raw(OP, [b"ok\xc3("], backend=backend)
    assert [int(raw[k][0]) for k in ("valid", "first_bad", "code")] == [0, 2, 1]


def _table_3_7_cases() -> list[bytes]:
    """Every lead byte followed by second bytes at the edges of every range of
    Table 3-7, complete, truncated, and with a bad last byte."""
    edges = (0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF)
    out: list[bytes] = []
    for lead in range(256):
        out.append(bytes([lead]))
        for second in edges:
            out.append(bytes([lead, second]))
            out.append(bytes([lead, second, 0x80]))
            out.append(bytes([lead, second, 0xBF, 0xBF]))
            out.append(bytes([lead, second, 0xBF, 0x7F]))
            out.append(bytes([lead, second, 0xC0, 0x80]))
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_table_3_7_at_every_range_boundary(backend: str) -> None:
    cases = _table_3_7_cases()
    if backend == "interp":
        cases = cases[::7] + [c for c in cases if c[0] in (0xE0, 0xED, 0xF0, 0xF4, 0xC2)]
    # behind a word of ASCII, the sequence also straddles words
    shifted = [b"xyz" + c for c in cases[::3]]
    for case, got in zip(cases + shifted, run(cases + shifted, backend)):
        assert got == cpython(case), case


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_length_to_300(backend: str) -> None:
    rng = np.random.default_rng(8)
    texts: list[bytes] = []
    for n in range(301):
        whole = text(rng, n)
        texts.append(whole[:n])  # may end inside a sequence
        damaged = bytearray(whole[:n])
        if n:
            damaged[int(rng.integers(0, n))] = int(rng.choice(np.array([0x80, 0xC0, 0xFF, 0xED, 0xF4])))
        texts.append(bytes(damaged))
        if n % 3 == 0:
            texts.append(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
            texts.append(b"a" * n)
    got = run(texts, backend)
    for case, result in zip(texts, got):
        assert result == cpython(case), case
    assert sum(r[0] for r in got) > len(texts) // 4


@pytest.mark.parametrize("position", [0, 1, 524_287, (1 << 20) - 1])
def test_large_text_on_wgpu(position: int) -> None:
    rng = np.random.default_rng(position)
    body = bytearray(b"a" * (1 << 20))
    mixed = text(rng, 40_000)
    body[300_000 : 300_000 + len(mixed)] = mixed
    valid = bytes(body)
    assert run([valid], "wgpu") == [cpython(valid)] == [(1, NO_ERROR, 0)]
    for bad in (0x80, 0xF8, 0xE2):
        damaged = bytearray(valid)
        damaged[position] = bad
        assert run([bytes(damaged)], "wgpu") == [cpython(bytes(damaged))]


def test_random_bytes_error_in_every_workgroup() -> None:
    data = np.random.default_rng(1).integers(0, 256, 1 << 20, dtype=np.uint8).tobytes()
    assert run([data], "wgpu") == [cpython(data)]
    assert run([data[:70_000]], "interp") == [cpython(data[:70_000])]


def test_padding_bytes_of_the_last_word_are_ignored() -> None:
    import vyre
    from vyre.runtime.device_buffer import DeviceBuffer
    from vyre.runtime.wgpu_device import Resident, gpu_device

    for data in (b"ab\xe2", b"abcde\xc3", b"\xe2\x82", b"abcdefg"):
        n = len(data)
        packed = np.frombuffer(data + b"\xbf\xbf\xbf"[: -n % 4], dtype=np.uint8).copy().view(np.uint32)
        garbage = DeviceBuffer(Resident.upload(gpu_device(), packed), vyre.DataType.BYTES, n)
        for backend in BACKENDS:
            got = evaluate_kernel_many(registry.get_kernel(OP), [[garbage]], backend, raise_errors=False)[0]
            assert tuple(int(x[0]) for x in got) == cpython(data), (data, backend)


def test_certified_on_wgpu_with_parity() -> None:
    cert = conform.certify(backend="wgpu", ops=[OP], strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    assert set(cert.data["checks"][OP]) == {"reference", "parity", "determinism"}
