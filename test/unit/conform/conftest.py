"""Planted-bug ops (registered for one test, unregistered after) and helpers.

The CPU references here are written in the test with plain numpy; the buggy
compositions are what a contributor might get wrong."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from vyre import ops
from vyre.ir import DataType
from vyre.ir import Expr as E
from vyre.ops import OpSignature, OpSpec
from vyre.ops import laws as L

U32 = DataType.U32
MAX = 0xFFFF_FFFF
_serial = itertools.count()


def u32(values: np.ndarray) -> np.ndarray:
    return (np.asarray(values).astype(np.uint64) & MAX).astype(np.uint32)


def wrapping_sub(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return u32(a.astype(np.int64) - b.astype(np.int64))


def wrapping_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return u32(a.astype(np.uint64) + b.astype(np.uint64))


def masked_shl(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return u32(a.astype(np.uint64) << (b.astype(np.uint64) & np.uint64(31)))


@pytest.fixture
def register() -> Iterator[Callable[..., str]]:
    """`register(name, arity, reference, composition, **spec fields)` -> op id;
    every op registered through it is unregistered after the test."""
    added: list[str] = []

    def add(name: str, arity: int, reference, composition, **fields) -> str:
        op_id = f"user.test{next(_serial)}.{name}"
        fields.setdefault("boundaries", [0, 1, MAX])
        spec = OpSpec(
            id=op_id,
            version=1,
            signature=OpSignature([U32] * arity, U32),
            category="A",
            reference=reference,
            composition=composition,
            **fields,
        )
        ops.register(spec)
        added.append(op_id)
        return op_id

    yield add
    for op_id in added:
        ops.unregister(op_id)


@pytest.fixture
def false_commutative_sub(register) -> str:
    """sub, correctly composed, falsely declared Commutative."""
    return register("sub", 2, wrapping_sub, lambda a, b: E.sub(a, b), laws=[L.Commutative()])


@pytest.fixture
def boundary_add(register) -> str:
    """add whose composition is wrong only at (MAX, MAX) (gives 0, not MAX - 1)."""
    both_max = lambda a, b: E.and_(E.eq(a, E.u32(MAX)), E.eq(b, E.u32(MAX)))  # noqa: E731
    return register(
        "add",
        2,
        wrapping_add,
        lambda a, b: E.select(both_max(a, b), E.u32(0), E.add(a, b)),
        laws=[L.Commutative(), L.Identity(0)],
    )


@pytest.fixture
def shift_ignoring_bit4(register) -> str:
    """shl whose composition masks the amount with 15 instead of 31."""
    return register(
        "shl",
        2,
        masked_shl,
        lambda a, b: E.shl(a, E.bitand(b, E.u32(15))),
        boundaries=[0, 1, 31, 32, 33],
    )


@pytest.fixture
def good_xor(register) -> str:
    return register("xor", 2, lambda a, b: a ^ b, lambda a, b: E.bitxor(a, b),
                    laws=[L.Commutative(), L.Identity(0), L.SelfInverse(0)])
