"""`BinOp.DOT4_I8` (WGSL `dot4I8Packed`) in every layer: constant folding, the
reference interpreter, WGSL on the adapter, and the SMT translation (evaluated
at points and proved equal to a byte-by-byte composition for all inputs).

Oracle: numpy's int8 view of the words (products of the bytes, summed in int64)."""

from __future__ import annotations

import numpy as np

from vyre import ops
from vyre.conform.smt import NumpyBits, prove_obligation, register_model, translate_op, unregister_model
from vyre.conform.smt.terms import NV
from vyre.dialects.vyre import dot4_i8
from vyre.ir import Expr as E
from vyre.ops import registry

EDGES = [0, 1, 0x7F, 0x80, 0xFF, 0x7F7F7F7F, 0x80808080, 0x01FF80FF, 0xFFFFFFFF, 0x12345678]


def _oracle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x = a.astype("<u4").view(np.int8).reshape(-1, 4).astype(np.int64)
    y = b.astype("<u4").view(np.int8).reshape(-1, 4).astype(np.int64)
    return ((x * y).sum(axis=1) % 2**32).astype(np.uint32)


def _columns() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    a = np.array([x for x in EDGES for _ in EDGES] + list(rng.integers(0, 2**32, 2000)), dtype=np.uint32)
    b = np.array([y for _ in EDGES for y in EDGES] + list(rng.integers(0, 2**32, 2000)), dtype=np.uint32)
    return a, b


def test_fold_matches_numpy() -> None:
    a, b = _columns()
    assert [dot4_i8(int(x), int(y)) for x, y in zip(a, b)] == _oracle(a, b).tolist()
    assert dot4_i8(0x80808080, 0x80808080) == 4 * 128 * 128  # the largest sum
    assert dot4_i8(0x80808080, 0x7F7F7F7F) == (-4 * 128 * 127) % 2**32


def _byte(x, lane: int):
    shifted = E.bitand(E.shr(x, E.u32(8 * lane)), E.u32(0xFF))
    return E.sub(E.bitxor(shifted, E.u32(0x80)), E.u32(0x80))


def _by_bytes(a, b):
    total = E.mul(_byte(a, 0), _byte(b, 0))
    for lane in range(1, 4):
        total = E.add(total, E.mul(_byte(a, lane), _byte(b, lane)))
    return total


def _reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _oracle(np.asarray(a, np.uint32), np.asarray(b, np.uint32))


def test_interpreter_and_gpu_match_numpy(register) -> None:
    op_id = register("dot4", 2, _reference, lambda a, b: E.dot4_i8(a, b))
    a, b = _columns()
    want = _oracle(a, b)
    assert np.array_equal(ops.evaluate(op_id, [a, b], backend="interp"), want)
    assert np.array_equal(ops.evaluate(op_id, [a, b], backend="wgpu"), want)


def test_smt_translation_matches_numpy_at_points(register) -> None:
    op_id = register("dot4_points", 2, _reference, lambda a, b: E.dot4_i8(a, b))
    a, b = _columns()
    got = translate_op(registry.get_scalar(op_id), NumpyBits(), [NV(a, 32), NV(b, 32)])
    assert np.array_equal(np.broadcast_to(got.value, a.shape).astype(np.uint32), _oracle(a, b))


def test_smt_proves_dot4_equals_its_byte_composition(register) -> None:
    """For all 2^64 operand pairs: the op's translation equals the sum of the
    sign-extended byte products written with shifts, masks and multiplies."""
    op_id = register("dot4_proof", 2, _reference, _by_bytes)
    model_op = register("dot4_model", 2, _reference, lambda a, b: E.dot4_i8(a, b))
    register_model(op_id, lambda B, a, b: translate_op(registry.get_scalar(model_op), B, [a, b]))
    try:
        record = prove_obligation(registry.get_scalar(op_id), "composition", 60.0)
    finally:
        unregister_model(op_id)
    assert record.status == "proved", record
