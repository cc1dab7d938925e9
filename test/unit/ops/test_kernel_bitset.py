"""bitset.* kernel ops against Python integers, on the interpreter and on wgpu:
a bitset of w words is read as one Python int (bit i = bit i % 32 of word
i // 32, `int.from_bytes(words, "little")`), so and/or/xor/and_not/not are
Python's `&`, `|`, `^`, `& ~`, `^ (2**(32 w) - 1)` and popcount is
`int.bit_count` (never the op's reference, never vyre code). Boundary word
counts, adversarial words (all ones, alternating bits, single bits), the
Boolean-algebra laws through the ops themselves, a large input on wgpu,
errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from vyre import ops
from vyre.kernels.families.bitset import MAX_POPCOUNT_WORDS
from vyre.kernels.spec import BOUNDARY_LENGTHS, KernelSpec

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
INTERP_LENGTHS = (0, 1, 3, 4, 5, 64, 257, 4097)
BINARY: dict[str, Callable[[int, int, int], int]] = {
    "bitset.and": lambda a, b, full: a & b,
    "bitset.or": lambda a, b, full: a | b,
    "bitset.xor": lambda a, b, full: a ^ b,
    "bitset.and_not": lambda a, b, full: a & (full ^ b),
}


def as_int(words: np.ndarray) -> int:
    return int.from_bytes(np.asarray(words, dtype="<u4").tobytes(), "little")


def as_words(value: int, w: int) -> list[int]:
    return np.frombuffer(value.to_bytes(4 * w, "little"), dtype="<u4").astype(np.uint32).tolist()


def words(w: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    single = np.zeros(w, dtype=np.uint32)
    if w:
        single[-1] = 0x8000_0000  # the highest bit of the set
    return {
        "random": rng.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32),
        "all ones": np.full(w, 0xFFFF_FFFF, dtype=np.uint32),
        "zeros": np.zeros(w, dtype=np.uint32),
        "alternating": np.full(w, 0xAAAA_AAAA, dtype=np.uint32),
        "highest bit": single,
    }


def lengths(backend: str) -> Sequence[int]:
    return BOUNDARY_LENGTHS if backend == "wgpu" else INTERP_LENGTHS


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", sorted(BINARY))
def test_binary_ops_are_python_int_ops(backend: str, op_id: str) -> None:
    cases: list[tuple[np.ndarray, np.ndarray]] = []
    for w in lengths(backend):
        data = words(w, w)
        pairs = [(a, b) for a in data for b in data] if backend == "wgpu" else [("random", b) for b in data]
        cases += [(data[a], data[b]) for a, b in pairs]
    got = ops.evaluate_many(op_id, [[a, b] for a, b in cases], backend=backend)
    for (a, b), out in zip(cases, got):
        full = (1 << (32 * len(a))) - 1
        assert out.dtype == np.uint32
        assert out.tolist() == as_words(BINARY[op_id](as_int(a), as_int(b), full), len(a)), len(a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_not_and_popcount(backend: str) -> None:
    cases = [v for w in lengths(backend) for v in words(w, 50 + w).values()]
    flipped = ops.evaluate_many("bitset.not", [[a] for a in cases], backend=backend)
    counts = ops.evaluate_many("bitset.popcount", [[a] for a in cases], backend=backend)
    for a, out, count in zip(cases, flipped, counts):
        value, full = as_int(a), (1 << (32 * len(a))) - 1
        assert out.tolist() == as_words(value ^ full, len(a))
        assert count.shape == (1,) and int(count[0]) == value.bit_count()


def test_bit_numbering_convention() -> None:
    # bit i of the set is bit i % 32 of word i // 32 (np.unpackbits little-endian)
    positions = [0, 1, 31, 32, 33, 63, 64, 100, 127]
    a = np.zeros(4, dtype=np.uint32)
    for i in positions:
        a[i // 32] |= np.uint32(1 << (i % 32))
    bits = np.unpackbits(a.view(np.uint8), bitorder="little")
    assert np.flatnonzero(bits).tolist() == positions
    assert int(ops.evaluate("bitset.popcount", [a])[0]) == len(positions)
    b = np.zeros(4, dtype=np.uint32)
    b[1] = 1  # bit 32
    assert np.flatnonzero(np.unpackbits(ops.evaluate("bitset.and_not", [a, b]).view(np.uint8), bitorder="little")).tolist() == [
        p for p in positions if p != 32
    ]


def test_large_bitsets_on_wgpu() -> None:
    rng = np.random.default_rng(8)
    w = 1_000_003  # several grid-stride rounds
    a = rng.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)
    assert (ops.evaluate("bitset.xor", [a, b]) == (a ^ b)).all()
    assert (ops.evaluate("bitset.and_not", [a, b]) == (a & ~b)).all()
    assert int(ops.evaluate("bitset.popcount", [a])[0]) == as_int(a).bit_count()
    ones = np.full(w, 0xFFFF_FFFF, dtype=np.uint32)
    assert int(ops.evaluate("bitset.popcount", [ones])[0]) == 32 * w


def test_cross_op_laws_through_the_ops() -> None:
    """De Morgan and and_not = and(a, not b) with every side computed by the ops
    on wgpu; inclusion-exclusion of popcount."""
    rng = np.random.default_rng(4)
    for w in (1, 65, 4097):
        a = rng.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)
        b = rng.integers(0, 2**32, w, dtype=np.uint64).astype(np.uint32)

        def run(op_id: str, *args: np.ndarray) -> np.ndarray:
            return ops.evaluate(f"bitset.{op_id}", list(args))

        assert (run("not", run("and", a, b)) == run("or", run("not", a), run("not", b))).all()
        assert (run("not", run("or", a, b)) == run("and", run("not", a), run("not", b))).all()
        assert (run("and_not", a, b) == run("and", a, run("not", b))).all()
        count = [int(run("popcount", x)[0]) for x in (run("or", a, b), run("and", a, b), a, b)]
        assert count[0] + count[1] == count[2] + count[3]


@pytest.mark.parametrize("op_id", [*sorted(BINARY), "bitset.not", "bitset.popcount"])
def test_laws_hold_and_catch_a_planted_bug(op_id: str) -> None:
    spec = ops.get(op_id)
    assert isinstance(spec, KernelSpec) and spec.laws
    rng = np.random.default_rng(1)

    def right(*args: np.ndarray) -> tuple[np.ndarray, ...]:
        values = [as_int(np.asarray(x)) for x in args]
        w = len(args[0])
        full = (1 << (32 * w)) - 1
        if op_id == "bitset.popcount":
            return (np.array([values[0].bit_count()], dtype=np.uint32),)
        if op_id == "bitset.not":
            return (np.array(as_words(values[0] ^ full, w), dtype=np.uint32),)
        return (np.array(as_words(BINARY[op_id](values[0], values[1], full), w), dtype=np.uint32),)

    def wrong(*args: np.ndarray) -> tuple[np.ndarray, ...]:
        out = right(*args)[0].copy()
        if op_id == "bitset.popcount":
            return (out + np.uint32(int(args[0][-1] & 1) if len(args[0]) else 0),)
        if len(out):
            out[-1] ^= np.uint32(0x8000_0000)  # the highest bit wrong
        return (out,)

    caught = False
    for n in (0, 1, 2, 9, 300):
        a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        args: tuple[Any, ...] = (a,) if len(spec.inputs) == 1 else (a, rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32))
        for law in spec.laws:
            assert law.check(right, args) is None, (law.name, n)
            caught = caught or law.check(wrong, args) is not None
    assert caught, f"no law of {op_id} caught the planted bug"


def test_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="input `b` of `bitset.and` has 3 words, input `a` 2"):
        ops.evaluate("bitset.and", [np.zeros(2, np.uint32), np.zeros(3, np.uint32)])
    with pytest.raises(TypeError, match="input `a` of `bitset.popcount`"):
        ops.evaluate("bitset.popcount", [np.zeros(2, np.float32)])
    with pytest.raises(ValueError, match="input `a` of `bitset.not`"):
        ops.evaluate("bitset.not", [np.array([-1, 2])])
    spec = ops.get("bitset.popcount")
    assert isinstance(spec, KernelSpec)
    assert spec.max_length == MAX_POPCOUNT_WORDS and 32 * MAX_POPCOUNT_WORDS < 2**32


def test_certificate_on_wgpu() -> None:
    """The kernel track on lavapipe with parity for one op (all bitset ops are
    certified on the interpreter by test/unit/conform/test_kernel_track.py)."""
    from vyre import conform

    cert = conform.certify(backend="wgpu", ops=["bitset.and_not"], strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
