"""Generators and the shrinker, against oracles written here (itertools, plain loops)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vyre import ops
from vyre.conform import generate as gen
from vyre.conform.shrink import candidates, shrink

MAX = 0xFFFF_FFFF


@pytest.mark.parametrize(("k", "bits"), [(1, 8), (2, 3), (3, 2)])
def test_exhaustive_rows_are_lexicographic(k: int, bits: int) -> None:
    expected = list(itertools.product(range(1 << bits), repeat=k))
    rows = gen.exhaustive_rows(k, bits, 0, len(expected))
    assert [tuple(int(v) for v in r) for r in rows] == expected
    # any slice is the same rows as the whole (chunks are independent)
    middle = gen.exhaustive_rows(k, bits, 5, 9)
    assert [tuple(int(v) for v in r) for r in middle] == expected[5:9]


def test_random_blocks_are_reproducible_and_distinct() -> None:
    entropy = gen.stream_entropy(7, "laws", "primitive.math.add")
    first = gen.random_rows(entropy, 0, 1000, 3)
    assert first.dtype == np.uint32 and first.shape == (1000, 3)
    assert np.array_equal(first, gen.random_rows(entropy, 0, 1000, 3))
    assert not np.array_equal(first, gen.random_rows(entropy, 1, 1000, 3))
    other = gen.random_rows(gen.stream_entropy(8, "laws", "primitive.math.add"), 0, 1000, 3)
    assert not np.array_equal(first, other)
    # roughly uniform: every high nibble shows up
    assert len(set((first[:, 0] >> 28).tolist())) == 16


def test_special_values_hold_adversarial_boundaries_and_law_constants() -> None:
    spec = ops.get("primitive.math.min")
    values = set(gen.special_values(spec))
    for v in (0, 1, 31, 32, 33, 0x7FFF_FFFF, 0x8000_0000, 0xAAAA_AAAA, 0x5555_5555, MAX - 1, MAX):
        assert v in values
    # Identity(0xffffffff) and Absorbing(0): the constants and their neighbours
    assert {MAX, MAX - 1, 0, 1} <= values


def test_structured_op_rows_cover_u8_classes_and_boundaries() -> None:
    spec = ops.get("primitive.math.div")
    rows = {tuple(int(v) for v in r) for r in gen.structured_op_rows(spec)}
    assert all((a, b) in rows for a in range(256) for b in range(256))
    for cls in spec.equivalence_classes:
        assert all(tuple(r) in rows for r in cls.representatives)
    assert (MAX, MAX) in rows and (5, 0) in rows and (32, 33) in rows


def test_candidates_are_strictly_smaller_and_sorted() -> None:
    for value in (1, 2, 16, 1000, 0x8000_0000, MAX):
        found = candidates(value)
        assert found == sorted(set(found))
        assert all(0 <= v < value for v in found)
        assert 0 in found
    assert candidates(0) == []


def _first(predicate):
    def first_failing(batch):
        for index, tup in enumerate(batch):
            if predicate(*tup):
                return index
        return None

    return first_failing


def test_shrink_finds_a_threshold() -> None:
    assert shrink((0xDEAD_BEEF,), _first(lambda a: a >= 1000)) == (1000,)


def test_shrink_minimises_each_coordinate() -> None:
    # fails when a != 0 and bit 4 of b is set: minimal (1, 16)
    failing = _first(lambda a, b: a != 0 and (b >> 4) & 1)
    assert shrink((0x1234_5678, 0xFFFF_FFF0), failing) == (1, 16)


def test_shrink_keeps_a_point_failure() -> None:
    assert shrink((MAX, MAX), _first(lambda a, b: a == MAX and b == MAX)) == (MAX, MAX)


def test_shrink_reaches_bit_patterns() -> None:
    # fails when both bit 31 and bit 0 are set: minimal 0x80000001
    assert shrink((MAX,), _first(lambda a: a & 0x8000_0001 == 0x8000_0001)) == (0x8000_0001,)
