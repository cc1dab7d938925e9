"""Each of the twelve law kinds, declared falsely, is caught on the CPU reference
and through the backend's kernel, with the same minimal counterexample."""

from __future__ import annotations

import numpy as np
import pytest

from vyre import conform
from vyre.ir import Expr as E
from vyre.ops import laws as L

from .conftest import MAX, u32, wrapping_add, wrapping_sub

FAST = {"strength": "fast", "witnesses": 1000, "corpus": None, "checks": ["laws"]}

NOT = (1, lambda a: u32(~a.astype(np.uint64)), lambda a: E.bitnot(a))
INC = (1, lambda a: u32(a.astype(np.uint64) + 1), lambda a: E.add(a, E.u32(1)))
ADD = (2, wrapping_add, lambda a, b: E.add(a, b))
XOR = (2, lambda a, b: a ^ b, lambda a, b: E.bitxor(a, b))

CASES = [
    (ADD, L.Commutative(), None),  # true: control
    (ADD, L.Identity(1), (0,)),
    (XOR, L.SelfInverse(1), (0,)),
    (ADD, L.Idempotent(), (1,)),
    (ADD, L.Absorbing(0), (1,)),
    (INC, L.Involution(), (0,)),
    (NOT, L.DeMorgan("primitive.bitwise.xor", "primitive.bitwise.xor"), (0, 0)),
    (NOT, L.Monotone(), (0, 1)),
    (NOT, L.Bounded(0, 0xFFFF), (0,)),
    (NOT, L.Complement("primitive.bitwise.not", MAX), (0,)),
    (ADD, L.DistributiveOver("primitive.math.add"), (1, 0, 0)),
]


@pytest.mark.parametrize(("op", "law", "minimal"), CASES, ids=[str(c[1]) for c in CASES])
def test_false_law_caught_on_both_targets(register, op, law, minimal) -> None:
    arity, reference, composition = op
    op_id = register("op", arity, reference, composition, laws=[law])
    cert = conform.certify(backend="interp", ops=[op_id], **FAST)
    if minimal is None:
        assert cert.passed
        return
    found = {f.target: f.counterexample for f in cert.failures}
    assert found == {"reference": minimal, "backend": minimal}
    assert all(f.check == f"law:{law.name}" for f in cert.failures)


def test_false_associative_counts_on_the_cubes(register) -> None:
    """sub is associative only when c == 0 (mod 2**31): the reference checks all
    256**3 u8 triples, the backend (strength fast) all 16**3 u4 triples."""
    op_id = register("sub", 2, wrapping_sub, lambda a, b: E.sub(a, b), laws=[L.Associative()])
    cert = conform.certify(backend="interp", ops=[op_id], **FAST)
    results = {r["target"]: r["domains"] for r in cert.data["law_results"]}
    assert results["reference"]["u8"] == {"cases": 256**3, "violations": 256**3 - 256**2}
    assert results["backend"]["u4"] == {"cases": 16**3, "violations": 16**3 - 16**2}
    assert {f.counterexample for f in cert.failures} == {(0, 0, 1)}


def test_false_laws_on_wgpu(gpu_adapter, register) -> None:
    (arity, reference, composition), law, minimal = CASES[7]  # Monotone
    monotone = register("not", arity, reference, composition, laws=[law])
    distributive = register("add", 2, wrapping_add, lambda a, b: E.add(a, b),
                            laws=[L.DistributiveOver("primitive.math.add")])
    cert = conform.certify(backend="wgpu", ops=[monotone, distributive], **FAST)
    found = {(f.op_id, f.target): f.counterexample for f in cert.failures}
    assert found == {
        (monotone, "reference"): minimal, (monotone, "backend"): minimal,
        (distributive, "reference"): (1, 0, 0), (distributive, "backend"): (1, 0, 0),
    }
