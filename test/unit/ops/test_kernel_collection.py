"""collection.unique_u32 and collection.contains_u32 against Python sets and
numpy (`sorted(set(x))`, `q in set(s)`; never the op's reference nor vyre
code), on wgpu at every boundary length and on adversarial data (all equal,
all 0xFFFFFFFF, sorted, reversed, few distinct values, queries next to the
members), on the interpreter on a few cases (each runs the 20 dispatches of
the radix sort), large inputs on wgpu, the laws, errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from vyre import ops
from vyre.conform.plan import kernel_fingerprint
from vyre.kernels.admission import admit_kernel
from vyre.kernels.families.collection import NOT_DENSE
from vyre.kernels.run import evaluate_kernel
from vyre.kernels.spec import BOUNDARY_LENGTHS, KernelSpec
from vyre.ops import registry
from vyre.ops.admission import AdmissionError

pytestmark = pytest.mark.usefixtures("gpu_adapter")

MAX = 0xFFFF_FFFF


def values(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "random words": rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),
        "duplicates": rng.integers(0, max(1, n // 4), n).astype(np.uint32),
        "all equal": np.full(n, 0xDEAD_BEEF, dtype=np.uint32),
        "all 0xFFFFFFFF": np.full(n, MAX, dtype=np.uint32),
        "sorted": np.sort(rng.integers(0, 50, n).astype(np.uint32)),
        "reversed": np.arange(n, 0, -1, dtype=np.uint32),
        "few": rng.choice(np.array([0, 1, 0x8000_0000, MAX], dtype=np.uint32), n),
    }


def queries(keys: np.ndarray, seed: int) -> np.ndarray:
    """Members, their neighbours (+-1, wrapping), the extremes and random words."""
    rng = np.random.default_rng(seed)
    q = [0, 1, MAX - 1, MAX, *rng.integers(0, 2**32, 8, dtype=np.uint64).tolist()]
    for k in keys[:: max(1, len(keys) // 40)].tolist():
        q += [k, (k + 1) % 2**32, (k - 1) % 2**32]
    return np.array(q, dtype=np.uint32)


def test_unique_on_wgpu() -> None:
    # both plans at every length: "duplicates" (values < n / 4) takes the dense
    # plan, the same values with one 0x80000000 the sorted one (the sort's 20
    # dispatches, the head flags and the compaction); the other patterns at two
    # lengths
    cases: list[np.ndarray] = []
    for n in BOUNDARY_LENGTHS:
        data = values(n, n)
        labels = list(data) if n in (5, 4097) else ["duplicates"]
        cases += [data[label] for label in labels]
        if n:
            past = data["duplicates"].copy()
            past[n // 2] = 0x8000_0000
            cases.append(past)
    got = ops.evaluate_many("collection.unique_u32", [[x] for x in cases])
    for x, out in zip(cases, got):
        assert out.dtype == np.uint32 and out.tolist() == sorted(set(x.tolist())), len(x)


@pytest.mark.parametrize("n", [2047, 2048, 2049, 4097, 16385])
def test_unique_at_radix_tile_boundaries(n: int) -> None:
    # the sort's tiles are 2,048 keys, its hist-scan blocks 8 tiles; np.unique is the oracle here
    rng = np.random.default_rng(n)
    byte = rng.integers(0, 256, n).astype(np.uint32)
    cases = [
        rng.integers(0, max(1, n // 3), n).astype(np.uint32),  # duplicates across tiles
        (byte << np.uint32(24)) | np.uint32(7),  # only the top byte differs
        byte | np.uint32(0xFFFF_FF00),  # only the bottom byte differs, next to 0xFFFFFFFF
        rng.choice(np.array([0, MAX], dtype=np.uint32), n),
        np.full(n, 0x8000_0000, dtype=np.uint32),
    ]
    got = ops.evaluate_many("collection.unique_u32", [[x] for x in cases])
    for x, out in zip(cases, got):
        assert np.array_equal(out, np.unique(x)), n


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_dense_plan_and_its_fallback_at_the_capacity(backend: str) -> None:
    # values below P (n rounded up to whole compaction tiles: 8,192 here) take the
    # bitset plan, with no sort step; one value at P or above makes that plan report
    # NOT_DENSE in `count`, and the re-plan runs the radix sort instead
    spec = registry.get_kernel("collection.unique_u32")
    n, capacity = 300, 8192
    first = spec.plan({"x": n}, {})
    names = [step.program.name for step in first.steps]
    assert "unique_mark" in names and not any(name.startswith("radix") for name in names), names
    assert spec.replan is not None and spec.replan({"x": n}, {}, {"count": 7}) is None
    fallback = spec.replan({"x": n}, {}, {"count": NOT_DENSE})
    assert fallback is not None and "unique_mark" not in [step.program.name for step in fallback.steps]
    calls: list[int] = []

    def counting(sizes: Any, scalars: Any, outputs: Any) -> Any:
        calls.append(int(outputs["count"]))
        return spec.replan(sizes, scalars, outputs) if spec.replan else None

    counted = dataclasses.replace(spec, replan=counting)
    rng = np.random.default_rng(8)
    base = rng.integers(0, capacity, n).astype(np.uint32)
    for top in (capacity - 1, capacity, capacity + 1, MAX):
        x = base.copy()
        x[rng.integers(0, n, 3)] = top
        calls.clear()
        out, count = evaluate_kernel(counted, [x], backend)
        want = sorted(set(x.tolist()))
        assert out.tolist() == want and count.tolist() == [len(want)], top
        # the dense run answers alone below the capacity; at or past it, it
        # reports NOT_DENSE and the sorted run answers
        assert calls == ([len(want)] if top < capacity else [NOT_DENSE, len(want)]), (top, calls)
    out, count = evaluate_kernel(counted, [np.zeros(n, np.uint32)], backend)
    assert out.tolist() == [0] and count.tolist() == [1]


def test_dense_plan_on_large_inputs() -> None:
    # several tiles of the bitset, values up to its last bit, a gap of empty tiles
    rng = np.random.default_rng(12)
    n = 70_000  # P = 9 tiles = 73,728
    x = np.concatenate([rng.integers(0, 20_000, n - 2), [73_727, 50_000]]).astype(np.uint32)
    assert np.array_equal(ops.evaluate("collection.unique_u32", [x]), np.unique(x))
    x[5] = 73_728  # one past the bitset: the sorted plan
    assert np.array_equal(ops.evaluate("collection.unique_u32", [x]), np.unique(x))


def test_contains_on_wgpu() -> None:
    cases: list[tuple[np.ndarray, np.ndarray]] = []
    for n in BOUNDARY_LENGTHS:
        data = values(n, 7 + n)
        for label in ("random words", "duplicates", "few") if n % 2 else ("all 0xFFFFFFFF", "sorted"):
            cases.append((data[label], queries(data[label], n)))
    cases.append((np.zeros(0, np.uint32), np.array([0, 5, MAX], np.uint32)))  # empty set: all false
    cases.append((np.arange(9, dtype=np.uint32), np.zeros(0, np.uint32)))  # no queries
    got = ops.evaluate_many("collection.contains_u32", [[s, q] for s, q in cases])
    for (keys, q), out in zip(cases, got):
        members = set(keys.tolist())
        assert out.dtype == np.uint32 and out.tolist() == [int(v in members) for v in q.tolist()], len(keys)


def test_both_on_the_interpreter_and_raw_outputs() -> None:
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.integers(0, 40, 300), [MAX, 0, MAX]]).astype(np.uint32)
    assert ops.evaluate("collection.unique_u32", [x], backend="interp").tolist() == sorted(set(x.tolist()))
    q = queries(x, 2)
    got = ops.evaluate("collection.contains_u32", [x, q], backend="interp")
    assert got.tolist() == [int(v in set(x.tolist())) for v in q.tolist()]
    raw = ops.evaluate_raw("collection.unique_u32", [np.array([3, 1, 3, 2, 1], np.uint32)])
    assert raw["out"].tolist() == [1, 2, 3] and raw["count"].tolist() == [3]


def test_large_inputs_on_wgpu() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 100_000, 400_001).astype(np.uint32)  # 49 compaction tiles of sorted keys
    assert ops.evaluate("collection.unique_u32", [x]).tolist() == sorted(set(x.tolist()))
    keys = rng.integers(0, 2**32, 100_003, dtype=np.uint64).astype(np.uint32)
    q = np.concatenate([keys[::3], keys[::5] + np.uint32(1), rng.integers(0, 2**32, 50_000, dtype=np.uint64)]).astype(np.uint32)
    members = set(keys.tolist())
    assert ops.evaluate("collection.contains_u32", [keys, q]).tolist() == [int(v in members) for v in q.tolist()]


def test_empty_inputs() -> None:
    empty = np.zeros(0, dtype=np.uint32)
    for backend in ("interp", "wgpu"):
        assert ops.evaluate("collection.unique_u32", [empty], backend=backend).tolist() == []
        assert ops.evaluate("collection.contains_u32", [empty, empty], backend=backend).tolist() == []
        assert ops.evaluate("collection.contains_u32", [empty, np.array([0], np.uint32)], backend=backend).tolist() == [0]


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="input `x` of `collection.unique_u32`"):
        ops.evaluate("collection.unique_u32", [np.zeros(3, np.float32)])
    with pytest.raises(ValueError, match="input `queries` of `collection.contains_u32`"):
        ops.evaluate("collection.contains_u32", [np.zeros(3, np.uint32), [2**32]])
    with pytest.raises(ValueError, match="takes 2 input"):
        ops.evaluate("collection.contains_u32", [np.zeros(3, np.uint32)])


def test_laws_hold_and_catch_planted_bugs() -> None:
    def unique(x: Any) -> tuple[np.ndarray, np.ndarray]:
        out = np.array(sorted(set(np.asarray(x).tolist())), dtype=np.uint32)
        return out, np.array([len(out)], dtype=np.uint32)

    def unique_keeps_a_duplicate(x: Any) -> tuple[np.ndarray, np.ndarray]:
        out, _ = unique(x)
        out = np.concatenate([out[:1], out]).astype(np.uint32)
        return out, np.array([len(out)], dtype=np.uint32)

    def contains(keys: Any, q: Any) -> tuple[np.ndarray]:
        members = set(np.asarray(keys).tolist())
        return (np.array([int(v in members) for v in np.asarray(q).tolist()], dtype=np.uint32),)

    def contains_misses_the_largest(keys: Any, q: Any) -> tuple[np.ndarray]:
        out = contains(keys, q)[0]
        if len(keys):
            out[np.asarray(q) == np.asarray(keys).max()] = 0  # an off-by-one upper bound
        return (out,)

    rng = np.random.default_rng(5)
    for op_id, right, wrong in (
        ("collection.unique_u32", unique, unique_keeps_a_duplicate),
        ("collection.contains_u32", contains, contains_misses_the_largest),
    ):
        spec = ops.get(op_id)
        assert isinstance(spec, KernelSpec) and spec.sample is not None
        caught = False
        for n in (0, 1, 5, 64, 300):
            for pattern in ("random", "few", "ones", "ascending", "descending", "wrap"):
                args = spec.sample(rng, n, pattern)
                for law in spec.laws:
                    assert law.check(right, args) is None, (op_id, law.name, n, pattern)
                    caught = caught or law.check(wrong, args) is not None
        assert caught, op_id


def test_chained_on_the_device() -> None:
    """compact -> unique -> contains -> gather with the data on the device: each
    length_from output is a DeviceBuffer of its logical length."""
    rng = np.random.default_rng(9)
    values = rng.integers(0, 500, 20_000).astype(np.uint32)
    mask = (rng.random(20_000) < 0.3).astype(np.uint32)
    kept = ops.evaluate("buffer.compact", [values, mask], on_device=True)
    distinct = ops.evaluate("collection.unique_u32", [kept], on_device=True)
    expected = sorted(set(values[mask != 0].tolist()))
    assert distinct.count == len(expected) and distinct.numpy().tolist() == expected
    probe = np.arange(0, 520, 7, dtype=np.uint32)
    assert ops.evaluate("collection.contains_u32", [distinct, probe]).tolist() == [int(p in set(expected)) for p in probe.tolist()]
    picked = ops.evaluate("buffer.gather", [distinct, np.array([0, 3, len(expected) - 1, len(expected)], np.uint32)])
    assert picked.tolist() == [expected[0], expected[3], expected[-1], 0]


def test_the_sorted_plan_is_hashed_and_admitted() -> None:
    # the first run never uses the sorted plan, so the registry hash and the
    # admission gates must see it as `alternative`
    spec = registry.get_kernel("collection.unique_u32")
    assert spec.alternative is not None
    assert kernel_fingerprint(spec) != kernel_fingerprint(dataclasses.replace(spec, alternative=None))
    sorted_plan = spec.alternative

    def broken(sizes: Any, scalars: Any) -> Any:
        plan = sorted_plan(sizes, scalars)
        return dataclasses.replace(plan, buffers=tuple(b for b in plan.buffers if b.name != "count"))

    admit_kernel(spec, registered=[])
    with pytest.raises(AdmissionError, match="gate 11|count"):
        admit_kernel(dataclasses.replace(spec, alternative=broken), registered=[])


def test_a_replanned_run_binds_the_input_it_uploaded(monkeypatch: pytest.MonkeyPatch) -> None:
    # a host input is uploaded once per evaluation call, however many runs re-plan
    from vyre.runtime.wgpu_device import Resident

    n = 5000
    x = np.arange(n, dtype=np.uint32) * np.uint32(1_000_003)  # past the bitset: dense attempt, then sorted
    sizes: list[int] = []
    original = Resident.upload

    def counting(cls: type[Resident], gpu: Any, words: np.ndarray) -> Resident:
        sizes.append(int(words.nbytes))
        return original(gpu, words)

    monkeypatch.setattr(Resident, "upload", classmethod(counting))
    assert np.array_equal(ops.evaluate("collection.unique_u32", [x]), np.unique(x))
    assert sizes.count(x.nbytes) == 1, sizes
    sizes.clear()
    assert np.array_equal(ops.evaluate("collection.unique_u32", [x]), np.unique(x))
    assert sizes.count(x.nbytes) == 1, sizes  # a new call uploads again (the caller may change x)
