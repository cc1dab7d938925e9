"""The twelve law statements, checked with numpy functions written here (not the
registry's references), and the tabled evaluation against direct evaluation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vyre.conform.algebra import NumpyAlgebra, law_relations, law_variables, violations_numpy
from vyre.ops import laws as L

MASK = 0xFFFF_FFFF

# plain Python/numpy definitions, independent of vyre.ops
FUNCTIONS = {
    "t.add": lambda a, b: (a.astype(np.uint64) + b) & MASK,
    "t.sub": lambda a, b: (a.astype(np.uint64) - b) & MASK,
    "t.mul": lambda a, b: (a.astype(np.uint64) * b) & MASK,
    "t.and": lambda a, b: a & b,
    "t.or": lambda a, b: a | b,
    "t.xor": lambda a, b: a ^ b,
    "t.min": np.minimum,
    "t.max": np.maximum,
    "t.not": lambda a: ~a & MASK,
    "t.id": lambda a: a,
    "t.neg": lambda a: (-(a.astype(np.int64))) & MASK,
    "t.popcount": lambda a: np.array([bin(int(x)).count("1") for x in a.reshape(-1)]),
    "t.sat_inc": lambda a: np.where(a == MASK, a, a + 1),
}


def _evaluate(op_id, columns):
    out = FUNCTIONS[op_id](*[c.astype(np.uint32) for c in columns])
    return np.asarray(out).astype(np.uint64).astype(np.uint32).reshape(-1)


def _violations(op: str, law: L.Law, bits: int = 8) -> int:
    k = law_variables(law)
    values = np.arange(1 << bits, dtype=np.uint32)
    grids = [values.reshape([-1 if d == j else 1 for d in range(k)]) for j in range(k)]
    shape = np.broadcast_shapes(*(g.shape for g in grids))
    rels = law_relations(law, op, NumpyAlgebra(_evaluate), grids)
    return int(np.count_nonzero(violations_numpy(rels, shape)))


def _brute(op: str, law: L.Law, bits: int) -> int:
    """Independent count with plain Python loops."""
    f = lambda *xs: int(_evaluate(op, [np.array([x], dtype=np.uint32) for x in xs])[0])  # noqa: E731
    g = lambda name, *xs: int(_evaluate(name, [np.array([x], dtype=np.uint32) for x in xs])[0])  # noqa: E731
    count = 0
    for xs in itertools.product(range(1 << bits), repeat=law_variables(law)):
        a = xs[0]
        match law:
            case L.Associative():
                bad = f(f(a, xs[1]), xs[2]) != f(a, f(xs[1], xs[2]))
            case L.DistributiveOver(gid):
                b, c = xs[1], xs[2]
                bad = f(a, g(gid, b, c)) != g(gid, f(a, b), f(a, c))
            case L.Monotone():
                bad = a <= xs[1] and f(a) > f(xs[1])
            case _:
                raise AssertionError(law)
        count += bad
    return count


@pytest.mark.parametrize(
    ("op", "law"),
    [
        ("t.add", L.Commutative()),
        ("t.add", L.Associative()),
        ("t.add", L.Identity(0)),
        ("t.xor", L.SelfInverse(0)),
        ("t.and", L.Idempotent()),
        ("t.and", L.Absorbing(0)),
        ("t.or", L.Absorbing(MASK)),
        ("t.not", L.Involution()),
        ("t.neg", L.Involution()),
        ("t.not", L.DeMorgan("t.and", "t.or")),
        ("t.sat_inc", L.Monotone()),
        ("t.popcount", L.Bounded(0, 32)),
        ("t.not", L.Complement("t.id", MASK)),  # ~a + a = 2**32 - 1
        ("t.mul", L.DistributiveOver("t.add")),
        ("t.min", L.DistributiveOver("t.max")),
        ("t.and", L.DistributiveOver("t.xor")),
    ],
)
def test_true_laws_hold_exhaustively_on_u8(op: str, law: L.Law) -> None:
    assert _violations(op, law) == 0


@pytest.mark.parametrize(
    ("op", "law", "expected"),
    [
        ("t.sub", L.Commutative(), 65536 - 256),  # equal only when a == b
        ("t.sub", L.Identity(0), 255),  # f(0, a) = -a != a for a != 0
        ("t.add", L.SelfInverse(0), 255),  # 2a != 0 except a = 0
        ("t.neg", L.Monotone(), None),
        ("t.popcount", L.Bounded(0, 3), None),
        ("t.not", L.Complement("t.neg", MASK), None),
        ("t.add", L.DistributiveOver("t.mul"), None),
    ],
)
def test_false_laws_are_detected(op: str, law: L.Law, expected: int | None) -> None:
    found = _violations(op, law)
    assert found > 0
    if expected is not None:
        assert found == expected


@pytest.mark.parametrize(
    ("op", "law"),
    [
        ("t.sub", L.Associative()),
        ("t.max", L.DistributiveOver("t.add")),
        ("t.or", L.DistributiveOver("t.xor")),
        ("t.neg", L.Monotone()),
    ],
)
def test_tabled_counts_match_brute_force(op: str, law: L.Law) -> None:
    bits = 4 if law_variables(law) == 3 else 6
    assert _violations(op, law, bits) == _brute(op, law, bits)


def test_tabled_cube_equals_direct_evaluation() -> None:
    """The cube layout used for exhaustive ternary laws (a block x 256 x 256)
    gives exactly the values of evaluating every triple."""
    alg = NumpyAlgebra(_evaluate)
    a = np.arange(32, 48, dtype=np.uint32)[:, None, None]
    b = np.arange(256, dtype=np.uint32)[None, :, None]
    c = np.arange(256, dtype=np.uint32)[None, None, :]
    lhs = alg.call("t.max", alg.call("t.mul", a, b), alg.call("t.mul", a, c))
    full = np.stack(np.meshgrid(a.ravel(), b.ravel(), c.ravel(), indexing="ij"))
    mul = lambda x, y: (x.astype(np.uint64) * y) & MASK  # noqa: E731
    direct = np.maximum(mul(full[0], full[1]), mul(full[0], full[2])).astype(np.uint32)
    assert lhs.shape == direct.shape and np.array_equal(lhs, direct)
