"""Reference interpreter: the Category C calls that stay calls after inline-calls
(extractBits / insertBits, u32 forms) against plain-Python oracles written from
WGSL's definitions, and clear errors for any other call left in a program."""

from __future__ import annotations

import importlib.machinery
import itertools
import sys
import types

import numpy as np
import pytest

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.interp import InterpError
from vyre.testing.backends import execute_interp as execute
from vyre.testing.backends import execute_interp_unchecked

M = 0xFFFF_FFFF
EXTRACT = "primitive.bitwise.extract_bits"
INSERT = "primitive.bitwise.insert_bits"
WORDS = [0, 1, M, 0x8000_0001, 0xDEAD_BEEF, 0x1234_5678]
FIELD_RANGE = range(41)  # offsets and counts 0..40: past the 32-bit word on both sides


def _clamped_field(offset: int, count: int) -> tuple[int, int]:
    start = offset if offset < 32 else 32
    width = count if count < 32 - start else 32 - start
    return start, width


def extract_oracle(e: int, offset: int, count: int) -> int:
    """WGSL extractBits(u32): bits o..o+c-1 of e, moved to bit 0; 0 when c == 0."""
    start, width = _clamped_field(offset, count)
    return sum(((e >> (start + k)) & 1) << k for k in range(width))


def insert_oracle(e: int, newbits: int, offset: int, count: int) -> int:
    """WGSL insertBits(u32): e with bits o..o+c-1 taken from bits 0..c-1 of newbits."""
    start, width = _clamped_field(offset, count)
    bits = [(e >> k) & 1 for k in range(32)]
    for k in range(width):
        bits[start + k] = (newbits >> k) & 1
    return sum(bit << k for k, bit in enumerate(bits))


def _program(columns: int, value: E) -> Program:
    """out[i] = value, with the i-th row of columns c0..c{columns-1} loadable."""
    buffers = [BufferDecl.read(f"c{k}", k, DataType.U32) for k in range(columns)]
    buffers.append(BufferDecl.read_write("out", columns, DataType.U32))
    i = E.var("i")
    return Program(
        buffers=buffers,
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(E.lt(i, E.buf_len("out")), [N.store("out", i, value)]),
        ],
    )


def _column(k: int) -> E:
    return E.load(f"c{k}", E.var("i"))


def _run(rows: list[tuple[int, ...]], value: E, lane_order: str = "forward") -> list[int]:
    columns = {
        f"c{k}": np.array(column, dtype=np.uint32)
        for k, column in enumerate(zip(*rows, strict=True))
    }
    n = len(rows)
    words = columns | {"out": np.full(n, 0xA5A5_A5A5, dtype=np.uint32)}
    out = execute(_program(len(columns), value), words, (-(-n // 64), 1, 1), lane_order=lane_order)
    return out["out"].tolist()


def _random_rows(arity: int, seed: int, n: int = 500) -> list[tuple[int, ...]]:
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 1 << 32, (n, arity - 2), dtype=np.uint64)
    # field bounds: mostly near the word, some anywhere in u32
    small = rng.integers(0, 48, (n, 2), dtype=np.uint64)
    large = rng.integers(0, 1 << 32, (n, 2), dtype=np.uint64)
    bounds = np.where(rng.random((n, 2)) < 0.8, small, large)
    return [tuple(int(v) for v in row) for row in np.hstack([words, bounds])]


# -- extractBits ----------------------------------------------------------------


def test_extract_bits_exhaustive_over_offset_and_count() -> None:
    rows = [(e, o, c) for e in WORDS for o, c in itertools.product(FIELD_RANGE, FIELD_RANGE)]
    got = _run(rows, E.call(EXTRACT, [_column(0), _column(1), _column(2)]))
    assert got == [extract_oracle(*row) for row in rows]


def test_extract_bits_random_and_huge_bounds() -> None:
    rows = _random_rows(3, seed=7)
    rows += [(M, M, M), (M, 0, M), (M, M, 0), (0xF0F0_F0F0, 4, M), (M, 31, 0x8000_0000)]
    got = _run(rows, E.call(EXTRACT, [_column(0), _column(1), _column(2)]), "reversed")
    assert got == [extract_oracle(*row) for row in rows]


def test_extract_bits_edges_by_hand() -> None:
    rows = [(M, 0, 32), (M, 0, 0), (M, 32, 5), (0xDEAD_BEEF, 16, 16), (0xDEAD_BEEF, 28, 8)]
    got = _run(rows, E.call(EXTRACT, [_column(0), _column(1), _column(2)]))
    assert got == [M, 0, 0, 0xDEAD, 0xD]


# -- insertBits -----------------------------------------------------------------


def test_insert_bits_exhaustive_over_offset_and_count() -> None:
    pairs = [(0, M), (M, 0), (0xDEAD_BEEF, 0x1234_5678), (0x8000_0001, 0x7FFF_FFFE)]
    rows = [
        (e, newbits, o, c)
        for e, newbits in pairs
        for o, c in itertools.product(FIELD_RANGE, FIELD_RANGE)
    ]
    got = _run(rows, E.call(INSERT, [_column(k) for k in range(4)]))
    assert got == [insert_oracle(*row) for row in rows]


def test_insert_bits_random_and_huge_bounds() -> None:
    rows = _random_rows(4, seed=11)
    rows += [(0, M, M, M), (0, M, 0, M), (M, 0, 5, M), (0, M, 31, 0x8000_0000)]
    got = _run(rows, E.call(INSERT, [_column(k) for k in range(4)]), "reversed")
    assert got == [insert_oracle(*row) for row in rows]


def test_insert_bits_edges_by_hand() -> None:
    rows = [(0, M, 0, 32), (M, 0, 0, 32), (0, M, 4, 8), (0xFFFF_0000, 0xAB, 28, 8), (7, M, 40, 3)]
    got = _run(rows, E.call(INSERT, [_column(k) for k in range(4)]))
    assert got == [M, 0, 0xFF0, 0xBFFF_0000, 7]


# -- calls in context -----------------------------------------------------------


def test_intrinsics_with_literal_arguments_and_nested_calls() -> None:
    """Literal (shared constant) operands, and one intrinsic feeding another."""
    rows = [(e, newbits) for e in WORDS for newbits in WORDS]
    byte = E.call(EXTRACT, [_column(0), E.u32(8), E.u32(8)])
    value = E.call(INSERT, [_column(1), byte, E.u32(24), E.u32(8)])
    got = _run(rows, value)
    assert got == [insert_oracle(n, extract_oracle(e, 8, 8), 24, 8) for e, n in rows]


def test_intrinsic_result_under_divergent_control_flow() -> None:
    """Only lanes whose condition holds store; the others keep the old word."""
    rows = [(e, o, c) for e in WORDS for o in (0, 3, 33) for c in (1, 9, 40)]
    i = E.var("i")
    columns = {f"c{k}": np.array(col, dtype=np.uint32) for k, col in enumerate(zip(*rows))}
    program = Program(
        buffers=[
            *(BufferDecl.read(f"c{k}", k, DataType.U32) for k in range(3)),
            BufferDecl.read_write("out", 3, DataType.U32),
        ],
        workgroup_size=(8, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(
                E.and_(E.lt(i, E.buf_len("out")), E.eq(E.mod(i, E.u32(2)), E.u32(0))),
                [N.store("out", i, E.call(EXTRACT, [_column(0), _column(1), _column(2)]))],
            ),
        ],
    )
    n = len(rows)
    words = columns | {"out": np.full(n, 0x5A5A_5A5A, dtype=np.uint32)}
    out = execute(program, words, (-(-n // 8), 1, 1))["out"].tolist()
    expected = [extract_oracle(*row) if k % 2 == 0 else 0x5A5A_5A5A for k, row in enumerate(rows)]
    assert out == expected


# -- calls the interpreter does not execute --------------------------------------


def _one_store(value: E, extra: list[BufferDecl] | None = None) -> Program:
    return Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32), *(extra or [])],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(0), value)],
    )


def _out() -> dict[str, np.ndarray]:
    return {"out": np.zeros(1, dtype=np.uint32)}


def test_other_remaining_call_is_a_clear_error() -> None:
    program = _one_store(E.call("primitive.math.add", [E.u32(2), E.u32(3)]))
    with pytest.raises(InterpError, match=r"call to `primitive\.math\.add` was not inlined: "):
        execute_interp_unchecked(program, _out(), (1, 1, 1))


def test_intrinsic_with_wrong_arity_is_a_clear_error() -> None:
    program = _one_store(E.call(EXTRACT, [E.u32(2), E.u32(3)]))
    with pytest.raises(InterpError, match=r"`primitive\.bitwise\.extract_bits`.*2 argument"):
        execute_interp_unchecked(program, _out(), (1, 1, 1))


def test_intrinsic_with_non_u32_argument_is_a_clear_error() -> None:
    program = _one_store(E.call(INSERT, [E.u32(0), E.i32(-1), E.u32(0), E.u32(4)]))
    with pytest.raises(InterpError, match=r"argument 1 must be `u32`, got `i32`"):
        execute_interp_unchecked(program, _out(), (1, 1, 1))


def test_intrinsics_survive_the_real_inline_calls_pass() -> None:
    """The real pass leaves these calls in place; the interpreter executes them."""
    from vyre.transforms.inline_calls import inline_calls

    program = _one_store(E.call(EXTRACT, [E.u32(0xABCD), E.u32(4), E.u32(8)]))
    assert any(op.name == "vyre.call" for op in inline_calls(program).kernel.walk())
    assert execute(program, _out(), (1, 1, 1))["out"].tolist() == [0xBC]
