"""`BinOp.MUL_HIGH` in the SMT translation: evaluated at points against numpy's
uint64 products, and proved for all 2^64 operand pairs equal to the library's
`primitive.math.mul_high`, a composition from 16-bit halves that shares nothing
with the binop (the bit-vector query is hard for z3; the integer-lifted one
proves it in under a second, so the budget is kept at 10 s)."""

from __future__ import annotations

import numpy as np

from vyre.conform.smt import NumpyBits, prove_obligation, register_model, translate_op, unregister_model
from vyre.conform.smt.terms import NV
from vyre.ir import Expr as E
from vyre.ops import registry

EDGES = [0, 1, 2, 0xFFFF, 0x10000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF]


def _reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    wide = np.asarray(a, np.uint64) * np.asarray(b, np.uint64)
    return (wide >> np.uint64(32)).astype(np.uint32)


def test_translation_matches_numpy_at_points(register) -> None:
    op_id = register("mul_high_points", 2, _reference, lambda a, b: E.mul_high(a, b))
    rng = np.random.default_rng(3)
    a = np.array([x for x in EDGES for _ in EDGES] + rng.integers(0, 2**32, 5000, dtype=np.uint64).tolist(), np.uint32)
    b = np.array([y for _ in EDGES for y in EDGES] + rng.integers(0, 2**32, 5000, dtype=np.uint64).tolist(), np.uint32)
    got = translate_op(registry.get_scalar(op_id), NumpyBits(), [NV(a, 32), NV(b, 32)])
    assert np.array_equal(np.broadcast_to(got.value, a.shape).astype(np.uint32), _reference(a, b))


def test_smt_proves_the_binop_equals_the_library_model(register) -> None:
    """For all operand pairs: the translation of `E.mul_high` equals that of
    `primitive.math.mul_high`'s 16-bit-halves composition."""
    op_id = register("mul_high_proof", 2, _reference, lambda a, b: E.mul_high(a, b))
    model_op = "primitive.math.mul_high"
    register_model(op_id, lambda B, a, b: translate_op(registry.get_scalar(model_op), B, [a, b]))
    try:
        record = prove_obligation(registry.get_scalar(op_id), "composition", 10.0)
    finally:
        unregister_model(op_id)
    assert record.status == "proved", record
