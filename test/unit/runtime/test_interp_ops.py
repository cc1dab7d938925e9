"""Reference interpreter: every BinOp, UnOp and cast against plain-Python oracles
(docs/semantics.md)."""

from __future__ import annotations

import numpy as np
import pytest

from vyre.ir import BinOp, BufferDecl, DataType, Expr as E, Node as N, Program, UnOp
from vyre.runtime.interp import InterpError
from vyre.testing.backends import execute_interp as execute
from vyre.testing.backends import execute_interp_unchecked
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS

M = 0xFFFF_FFFF
EDGES = [0, 1, 2, 3, 7, 31, 32, 33, 64, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFE, M]


def _shift(b: int) -> int:
    return b % 32


BINARY_ORACLE = {
    BinOp.ADD: lambda a, b: (a + b) % 2**32,
    BinOp.SUB: lambda a, b: (a - b) % 2**32,
    BinOp.MUL: lambda a, b: (a * b) % 2**32,
    BinOp.MUL_HIGH: lambda a, b: (a * b) >> 32,
    BinOp.DIV: lambda a, b: a // b if b else 0,
    BinOp.MOD: lambda a, b: a % b if b else 0,
    BinOp.BIT_AND: lambda a, b: a & b,
    BinOp.BIT_OR: lambda a, b: a | b,
    BinOp.BIT_XOR: lambda a, b: a ^ b,
    BinOp.SHL: lambda a, b: (a << _shift(b)) % 2**32,
    BinOp.SHR: lambda a, b: a >> _shift(b),
    BinOp.EQ: lambda a, b: int(a == b),
    BinOp.NE: lambda a, b: int(a != b),
    BinOp.LT: lambda a, b: int(a < b),
    BinOp.GT: lambda a, b: int(a > b),
    BinOp.LE: lambda a, b: int(a <= b),
    BinOp.GE: lambda a, b: int(a >= b),
    BinOp.AND: lambda a, b: int(a != 0 and b != 0),
    BinOp.OR: lambda a, b: int(a != 0 or b != 0),
    BinOp.DOT4_I8: lambda a, b: sum(
        int.from_bytes(a.to_bytes(4, "little")[k : k + 1], signed=True)
        * int.from_bytes(b.to_bytes(4, "little")[k : k + 1], signed=True)
        for k in range(4)
    )
    % 2**32,
}


def _clz(a: int) -> int:
    return 32 - a.bit_length()


def _ctz(a: int) -> int:
    if a == 0:
        return 32
    count = 0
    while not a & 1:
        a >>= 1
        count += 1
    return count


UNARY_ORACLE = {
    UnOp.NEGATE: lambda a: (-a) % 2**32,
    UnOp.BIT_NOT: lambda a: M - a,
    UnOp.LOGICAL_NOT: lambda a: int(a == 0),
    UnOp.POPCOUNT: lambda a: bin(a).count("1"),
    UnOp.CLZ: _clz,
    UnOp.CTZ: _ctz,
    UnOp.REVERSE_BITS: lambda a: int(format(a, "032b")[::-1], 2),
}


def _pairs() -> tuple[list[int], list[int]]:
    lhs = [a for a in EDGES for _ in EDGES]
    rhs = [b for _ in EDGES for b in EDGES]
    rng = np.random.default_rng(1234)
    lhs += rng.integers(0, 2**32, 300, dtype=np.uint64).tolist()
    rhs += rng.integers(0, 2**32, 300, dtype=np.uint64).tolist()
    # small random divisors and shift amounts too
    lhs += rng.integers(0, 2**32, 100, dtype=np.uint64).tolist()
    rhs += rng.integers(0, 70, 100, dtype=np.uint64).tolist()
    return lhs, rhs


def _elementwise(n: int, value: E, out_type: DataType = DataType.U32, in_type=DataType.U32):
    return Program(
        buffers=[
            BufferDecl.read("a", 0, in_type),
            BufferDecl.read("b", 1, in_type),
            BufferDecl.read_write("out", 2, out_type),
        ],
        workgroup_size=(32, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(E.lt(E.var("i"), E.u32(n)), [N.store("out", E.var("i"), value)]),
        ],
    )


A = E.load("a", E.var("i"))
B = E.load("b", E.var("i"))


@pytest.mark.parametrize("op", list(INT_BINOPS), ids=lambda op: op.name)
def test_binop_edges_and_random(op: BinOp) -> None:
    lhs, rhs = _pairs()
    n = len(lhs)
    words = {
        "a": np.array(lhs, dtype=np.uint32),
        "b": np.array(rhs, dtype=np.uint32),
        "out": np.zeros(n, dtype=np.uint32),
    }
    out = execute(_elementwise(n, E.binop(op, A, B)), words, ((n + 31) // 32, 1, 1))["out"]
    expected = [BINARY_ORACLE[op](a, b) for a, b in zip(lhs, rhs)]
    assert out.tolist() == expected


def test_binop_spec_examples() -> None:
    cases = [
        (BinOp.SHL, 1, 32, 1),
        (BinOp.SHL, 1, 33, 2),
        (BinOp.SHL, 1, 31, 0x8000_0000),
        (BinOp.SHR, 0x8000_0000, 31, 1),
        (BinOp.SHR, 0x8000_0000, 32, 0x8000_0000),
        (BinOp.DIV, 7, 0, 0),
        (BinOp.MOD, 7, 0, 0),
        (BinOp.ADD, M, 1, 0),
        (BinOp.SUB, 0, 1, M),
        (BinOp.MUL, 0x10000, 0x10000, 0),
        (BinOp.LT, 0x8000_0000, 1, 0),  # unsigned comparison
        (BinOp.AND, 2, 4, 1),
        (BinOp.OR, 0, 0, 0),
    ]
    for op, a, b, want in cases:
        program = Program(
            buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
            workgroup_size=(1, 1, 1),
            entry=[N.store("out", E.u32(0), E.binop(op, E.u32(a), E.u32(b)))],
        )
        out = execute(program, {"out": np.zeros(1, np.uint32)}, (1, 1, 1))["out"]
        assert out.tolist() == [want], (op, a, b)


@pytest.mark.parametrize("op", list(INT_UNOPS), ids=lambda op: op.name)
def test_unop_edges_and_random(op: UnOp) -> None:
    values = EDGES + [1 << k for k in range(32)] + [(1 << k) - 1 for k in range(33)]
    values += np.random.default_rng(99).integers(0, 2**32, 400, dtype=np.uint64).tolist()
    n = len(values)
    words = {
        "a": np.array(values, dtype=np.uint32),
        "b": np.zeros(n, dtype=np.uint32),
        "out": np.zeros(n, dtype=np.uint32),
    }
    out = execute(_elementwise(n, E.unop(op, A)), words, ((n + 31) // 32, 1, 1))["out"]
    assert out.tolist() == [UNARY_ORACLE[op](v) for v in values]


def test_unop_spec_examples() -> None:
    assert UNARY_ORACLE[UnOp.REVERSE_BITS](1) == 0x8000_0000  # the oracle itself
    cases = [
        (UnOp.CLZ, 0, 32),
        (UnOp.CTZ, 0, 32),
        (UnOp.REVERSE_BITS, 1, 0x8000_0000),
        (UnOp.NEGATE, 1, M),
        (UnOp.POPCOUNT, M, 32),
        (UnOp.LOGICAL_NOT, 5, 0),
    ]
    for op, a, want in cases:
        program = Program(
            buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
            workgroup_size=(1, 1, 1),
            entry=[N.store("out", E.u32(0), E.unop(op, E.u32(a)))],
        )
        out = execute(program, {"out": np.zeros(1, np.uint32)}, (1, 1, 1))["out"]
        assert out.tolist() == [want], (op, a)


@pytest.mark.parametrize("op", [UnOp.NEGATE, UnOp.BIT_NOT, UnOp.REVERSE_BITS])
def test_i32_unops_keep_the_bit_pattern(op: UnOp) -> None:
    values = [0, 1, 5, 0x7FFF_FFFF, 0x8000_0000, M]
    n = len(values)
    words = {
        "a": np.array(values, dtype=np.uint32),
        "b": np.zeros(n, dtype=np.uint32),
        "out": np.zeros(n, dtype=np.uint32),
    }
    program = _elementwise(n, E.unop(op, A), out_type=DataType.I32, in_type=DataType.I32)
    out = execute(program, words, (1, 1, 1))["out"]
    assert out.tolist() == [UNARY_ORACLE[op](v) for v in values]


# ---------------------------------------------------------------------------
# Casts: the complete table of docs/semantics.md
# ---------------------------------------------------------------------------

U32, I32, BOOL = DataType.U32, DataType.I32, DataType.BOOL
U64, V2, V4 = DataType.U64, DataType.VEC2U32, DataType.VEC4U32
WIDTH = {U32: 1, I32: 1, BOOL: 1, U64: 2, V2: 2, V4: 4}

SOURCE_VALUES: dict[DataType, list[tuple[int, ...]]] = {
    U32: [(0,), (1,), (7,), (42,), (0x7FFF_FFFF,), (0x8000_0000,), (M,)],
    I32: [(0,), (1,), (42,), (0x7FFF_FFFF,), (0x8000_0000,), (M,)],
    BOOL: [(0,), (1,)],
    U64: [(0, 0), (1, 0), (0, 1), (0xDEAD, 0xBEEF), (M, 0), (M, M)],
    V2: [(0, 0), (3, 7), (0, 9), (M, 0), (M, M)],
    V4: [(0, 0, 0, 0), (1, 2, 3, 4), (0, 0, 0, 5), (0, 6, 0, 0), (M, M, M, M)],
}

SUPPORTED = {
    U32: [U32, I32, BOOL, U64, V2, V4],
    I32: [I32, U32, BOOL, U64, V2, V4],
    BOOL: [U32, I32, BOOL, U64, V2, V4],
    U64: [U32, I32, BOOL, U64, V2],
    V2: [U32, I32, U64, V2, BOOL],
    V4: [U32, I32, V2, V4, BOOL, U64],
}


def cast_oracle(source: DataType, target: DataType, v: tuple[int, ...]) -> tuple[int, ...]:
    """The cast table, written out per row."""
    nonzero = int(any(v))
    if source in (U32, I32):
        x = v[0]
        if target in (U32, I32):
            return (x,)
        if target == BOOL:
            return (nonzero,)
        if target == U64:
            high = M if (source == I32 and x >= 0x8000_0000) else 0
            return (x, high)
        return (x,) * WIDTH[target]
    if source == BOOL:
        b = nonzero
        if target == U64:
            return (b, 0)
        return (b,) * WIDTH[target]
    if target in (U32, I32):
        return (v[0],)
    if target == BOOL:
        return (nonzero,)
    return v[:2] if target in (U64, V2) else v


def _cast_program(source: DataType, target: DataType) -> Program:
    return Program(
        buffers=[BufferDecl.read("src", 0, source), BufferDecl.read_write("dst", 1, target)],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.store("dst", E.var("i"), E.cast(target, E.load("src", E.var("i")))),
        ],
    )


CAST_PAIRS = [(s, t) for s, targets in SUPPORTED.items() for t in targets]


def test_cast_table_is_complete() -> None:
    assert len(CAST_PAIRS) == 34  # every pair of the cast table except those with Bytes


@pytest.mark.parametrize("source,target", CAST_PAIRS, ids=lambda t: t.value)
def test_cast_pair(source: DataType, target: DataType) -> None:
    values = SOURCE_VALUES[source]
    n = len(values)
    words = {
        "src": np.array([w for v in values for w in v], dtype=np.uint32),
        "dst": np.zeros(n * WIDTH[target], dtype=np.uint32),
    }
    out = execute(_cast_program(source, target), words, ((n + 3) // 4, 1, 1))["dst"]
    expected = [w for v in values for w in cast_oracle(source, target, v)]
    assert out.tolist() == expected


SPEC_EXAMPLES = [
    (U32, U32, (42,), (42,)),
    (U32, I32, (M,), (M,)),  # 0xFFFFFFFF -> -1
    (U32, BOOL, (0,), (0,)),
    (U32, BOOL, (7,), (1,)),
    (U32, U64, (42,), (42, 0)),
    (U32, V2, (5,), (5, 5)),
    (U32, V4, (5,), (5, 5, 5, 5)),
    (I32, I32, (M,), (M,)),
    (I32, U32, (M,), (M,)),
    (I32, BOOL, (M,), (1,)),
    (I32, U64, (M,), (M, M)),
    (I32, V2, (M,), (M, M)),
    (I32, V4, (M,), (M, M, M, M)),
    (BOOL, U32, (1,), (1,)),
    (BOOL, I32, (1,), (1,)),
    (BOOL, BOOL, (1,), (1,)),
    (BOOL, U64, (1,), (1, 0)),
    (BOOL, U64, (0,), (0, 0)),
    (BOOL, V2, (1,), (1, 1)),
    (BOOL, V4, (1,), (1, 1, 1, 1)),
    (U64, U32, (0xDEAD, 0xBEEF), (0xDEAD,)),
    (U64, I32, (M, 0), (M,)),
    (U64, BOOL, (1, 0), (1,)),
    (U64, BOOL, (0, 0), (0,)),
    (V2, U32, (3, 7), (3,)),
    (V2, I32, (M, 0), (M,)),
    (V4, U32, (1, 2, 3, 4), (1,)),
    (V4, V2, (1, 2, 3, 4), (1, 2)),
    (V4, U64, (1, 2, 3, 4), (1, 2)),
    (V4, BOOL, (0, 0, 0, 0), (0,)),
]


@pytest.mark.parametrize("source,target,value,want", SPEC_EXAMPLES)
def test_cast_spec_examples(source, target, value, want) -> None:
    words = {
        "src": np.array(value, dtype=np.uint32),
        "dst": np.zeros(len(want), dtype=np.uint32),
    }
    program = Program(
        buffers=[BufferDecl.read("src", 0, source), BufferDecl.read_write("dst", 1, target)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("dst", E.u32(0), E.cast(target, E.load("src", E.u32(0))))],
    )
    assert tuple(execute(program, words, (1, 1, 1))["dst"].tolist()) == want


def test_casts_of_literals() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, U64)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(0), E.cast(U64, E.i32(-2))),
            N.store("out", E.u32(1), E.cast(U64, E.bool_(True))),
            N.store("out", E.u32(2), E.cast(U64, E.cast(V4, E.u32(9)))),
        ],
    )
    out = execute(program, {"out": np.zeros(6, np.uint32)}, (1, 1, 1))["out"]
    assert out.tolist() == [M - 1, M, 1, 0, 9, 9]


@pytest.mark.parametrize(
    "source,target",
    [(U64, V4), (V2, V4), (U32, DataType.BYTES), (V4, DataType.BYTES), (BOOL, DataType.BYTES)],
)
def test_unsupported_casts_are_rejected_before_execution(source, target) -> None:
    program = Program(
        buffers=[BufferDecl.read("src", 0, source), BufferDecl.read_write("out", 1, U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(0), E.u32(1)),
            N.let("x", E.cast(target, E.load("src", E.u32(0)))),
        ],
    )
    words = {"src": np.zeros(WIDTH[source], np.uint32), "out": np.zeros(1, np.uint32)}
    with pytest.raises(InterpError, match=f"unsupported cast from `{source.value}`"):
        execute_interp_unchecked(program, words, (1, 1, 1))
