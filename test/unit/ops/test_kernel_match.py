"""match.find_all against CPython's `re` (a lookahead finds every overlapping
start), on the interpreter and on wgpu: boundary haystack lengths, needles
around the filter's 4 + 4 bytes and the verification chunk (512 bytes),
periodic and all-equal haystacks (every start a candidate), the empty needle,
needles longer than the haystack, padding bytes that are not zero, many tiles
of matches on wgpu, the laws, errors. Never the op's reference nor vyre code
as the oracle; cases batched with `ops.evaluate_many`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from vyre import ops
from vyre.ir import DataType
from vyre.kernels.families.match import CHUNK
from vyre.kernels.spec import BOUNDARY_LENGTHS, KernelSpec

from split_dispatch import run_split

pytestmark = pytest.mark.usefixtures("gpu_adapter")

OP = "match.find_all"
BACKENDS = ("interp", "wgpu")


def oracle(hay: bytes, needle: bytes) -> list[int]:
    return [m.start() for m in re.finditer(b"(?=" + re.escape(needle) + b")", hay)]


def run(cases: Sequence[tuple[Any, Any]], backend: str) -> list[np.ndarray]:
    return ops.evaluate_many(OP, [[h, n] for h, n in cases], backend=backend)


def check(cases: Sequence[tuple[bytes, bytes]], backend: str) -> None:
    for (hay, needle), got in zip(cases, run(cases, backend)):
        assert got.dtype == np.uint32
        assert got.tolist() == oracle(hay, needle), (len(hay), len(needle))


def haystacks(n: int, seed: int) -> dict[str, bytes]:
    rng = np.random.default_rng(seed)
    return {
        "two letters": rng.choice(np.frombuffer(b"ab", np.uint8), n).tobytes(),
        "periodic": (b"abaab" * (n // 5 + 1))[:n],
        "all equal": b"a" * n,
        "all 0xFF": b"\xff" * n,
        "random": rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
    }


NEEDLE_LENGTHS = (0, 1, 3, 4, 5, 8, 9, 17)


def needles(hay: bytes, rng: np.random.Generator, lengths: Sequence[int]) -> list[bytes]:
    out: list[bytes] = []
    for m in lengths:
        if m <= len(hay):
            at = int(rng.integers(0, len(hay) - m + 1))
            cut = hay[at : at + m]
            out.append(cut)
            if m:
                out.append(cut[:-1] + bytes([cut[-1] ^ 1]))  # the last byte differs
                out.append(bytes([cut[0] ^ 1]) + cut[1:])  # the first byte differs
        else:
            out.append(b"a" * m)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_find_all_matches_re(backend: str) -> None:
    cases: list[tuple[bytes, bytes]] = []
    sizes = BOUNDARY_LENGTHS if backend == "wgpu" else (0, 1, 4, 5, 65, 4097)
    for n in sizes:
        rng = np.random.default_rng(n)
        for i, (label, hay) in enumerate(haystacks(n, n).items()):
            if backend == "interp" and label not in ("two letters", "all equal"):
                continue
            # every needle length meets every haystack kind across the lengths n
            lengths = NEEDLE_LENGTHS[(i + n) % 4 :: 4] if backend == "wgpu" else (0, 3, 9)
            cases += [(hay, needle) for needle in needles(hay, rng, lengths)]
            cases.append((hay, hay + b"a"))  # longer than the haystack
            cases.append((hay, hay))
    check(cases, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_long_needles_across_verification_chunks(backend: str) -> None:
    """Needles of 1..3 chunks on haystacks where every start is a candidate
    (the filter cannot help): a difference in any chunk, at its first or last byte."""
    cases: list[tuple[bytes, bytes]] = []
    lengths = (CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 1, 3 * CHUNK) if backend == "wgpu" else (CHUNK + 1,)
    for m in lengths:
        hay = b"a" * (m + (700 if backend == "wgpu" else 40))
        spots = {0, 4, m // 2, CHUNK - 1, CHUNK, m - 5, m - 1} if backend == "wgpu" else {CHUNK - 1, CHUNK}
        for at in sorted(spots):
            if at < m:
                needle = bytearray(b"a" * m)
                needle[at] = ord("b")
                cases.append((hay, bytes(needle)))
                planted = bytearray(hay)
                planted[25 + at] = ord("b")  # found exactly at 25
                cases.append((bytes(planted), bytes(needle)))
        cases.append((hay, b"a" * m))
        periodic = (b"abaab" * (m // 2))[: 3 * m]
        cases.append((periodic, periodic[10 : 10 + m]))
    check(cases, backend)


def test_empty_and_oversized_needles() -> None:
    for backend in BACKENDS:
        got = run([(b"", b""), (b"abc", b""), (b"", b"a"), (b"ab", b"abc"), (b"aaaa", b"aa")], backend)
        assert [g.tolist() for g in got] == [[0], [0, 1, 2, 3], [], [], [0, 1, 2]]
    raw = ops.evaluate_raw(OP, [b"xaxax", b"ax"])
    assert raw["out"].tolist() == [1, 3] and raw["count"].tolist() == [2]


def poisoned(data: bytes) -> Any:
    from vyre.runtime.device_buffer import DeviceBuffer
    from vyre.runtime.wgpu_device import Resident, gpu_device

    padded = data + b"\xff" * (-len(data) % 4)
    words = np.frombuffer(padded, dtype="<u4").astype(np.uint32)
    return DeviceBuffer(Resident.upload(gpu_device(), words), DataType.BYTES, len(data))


@pytest.mark.parametrize("backend", BACKENDS)
def test_padding_bytes_are_never_compared(backend: str) -> None:
    # needles that would match if the haystack's padding bytes (0xFF) counted
    for hay, needle in ((b"ab", b"b\xff"), (b"abcde", b"e\xff\xff"), (b"a" * 13, b"a" * 13 + b"\xff"), (b"xyz", b"z")):
        for h, nd in ((poisoned(hay), needle), (hay, poisoned(needle)), (poisoned(hay), poisoned(needle))):
            assert ops.evaluate(OP, [h, nd], backend=backend).tolist() == oracle(hay, needle)


def test_many_tiles_of_matches_on_wgpu() -> None:
    rng = np.random.default_rng(6)
    text = bytearray(rng.integers(0x61, 0x7B, 2_000_003, dtype=np.uint8).tobytes())
    needle = b"needle!"
    for at in (0, 8191, 8192, 123_457, 1_999_000, len(text) - len(needle)):
        text[at : at + len(needle)] = needle
    long_needle = bytes(text[500_000:501_300])
    cases = [
        (bytes(text), needle),
        (bytes(text), long_needle),
        (b"a" * 300_001, b"a" * 9),  # 299,993 overlapping matches: dense output over 37 tiles
        (b"a" * 40_000, b"a" * 1200),  # every start verified across 3 chunks
    ]
    check(cases, "wgpu")


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="input `hay` of `match.find_all`"):
        ops.evaluate(OP, ["text", b"t"])
    with pytest.raises(TypeError, match="input `needle` of `match.find_all`"):
        ops.evaluate(OP, [b"text", np.zeros(2, np.uint32)])
    with pytest.raises(ValueError, match="takes 2 input"):
        ops.evaluate(OP, [b"text"])


def test_laws_hold_and_catch_planted_bugs() -> None:
    spec = ops.get(OP)
    assert isinstance(spec, KernelSpec) and spec.sample is not None

    def right(hay: Any, needle: Any) -> tuple[np.ndarray, np.ndarray]:
        found = oracle(np.asarray(hay, np.uint8).tobytes(), np.asarray(needle, np.uint8).tobytes())
        return np.array(found, dtype=np.uint32), np.array([len(found)], dtype=np.uint32)

    def non_overlapping(hay: Any, needle: Any) -> tuple[np.ndarray, np.ndarray]:
        h, nd = np.asarray(hay, np.uint8).tobytes(), np.asarray(needle, np.uint8).tobytes()
        found = [m.start() for m in re.finditer(re.escape(nd), h)] if nd else oracle(h, nd)
        return np.array(found, dtype=np.uint32), np.array([len(found)], dtype=np.uint32)

    def drops_the_last_start(hay: Any, needle: Any) -> tuple[np.ndarray, np.ndarray]:
        found = right(hay, needle)[0][:-1]
        return found, np.array([len(found)], dtype=np.uint32)

    rng = np.random.default_rng(2)
    caught = {"non_overlapping": False, "drops_the_last_start": False}
    for n in (0, 1, 9, 100, 700):
        for pattern in ("random", "ones", "few", "text", "zeros"):
            args = spec.sample(rng, n, pattern)
            for law in spec.laws:
                assert law.check(right, args) is None, (law.name, n, pattern)
                caught["non_overlapping"] |= law.check(non_overlapping, args) is not None
                caught["drops_the_last_start"] |= law.check(drops_the_last_start, args) is not None
    assert all(caught.values()), caught


def test_split_dispatches_give_the_same_starts() -> None:
    """4 compaction tiles and 3 needle chunks: both axes of the verification
    and every compaction step run as slices of 2 workgroups."""
    hay = bytearray(b"a" * 30_000)
    hay[20_000] = ord("b")
    needle = b"a" * 1_500
    state = run_split(OP, [bytes(hay), needle], limit=2)
    count = int(state["count"][0])
    assert state["out"][:count].tolist() == oracle(bytes(hay), needle)
    compact = run_split("buffer.compact", [np.arange(20_000, dtype=np.uint32), np.arange(20_000) % 3], limit=2)
    assert compact["out"][: int(compact["count"][0])].tolist() == [i for i in range(20_000) if i % 3]
