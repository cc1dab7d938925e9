"""wgpu backend: every BinOp and UnOp against numpy oracles, on edge and random
values, with runtime operands, constant operands (folded by the lowering) and
one constant operand (partially folded: constant divisors, shift amounts)."""

from __future__ import annotations

from typing import Any

import numpy as np

from vyre.ir import BinOp, BufferDecl, DataType, Expr as E, Node as N, Program, UnOp
from vyre.testing.backends import execute_wgpu as execute
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS

M32 = 0xFFFF_FFFF
EDGES = [0, 1, 2, 3, 5, 7, 31, 32, 33, 63, 64, 0xFFFF, 0x10000, 0x7FFF_FFFF,
         0x8000_0000, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF]  # fmt: skip
FEW_EDGES = [0, 1, 32, 0x8000_0000, 0xFFFF_FFFF]
BINOPS = list(INT_BINOPS)
UNOPS = list(INT_UNOPS)


def _dot4(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy's int8 view of the words: the products of their bytes, summed."""
    x = a.astype("<u4").view(np.int8).reshape(-1, 4).astype(np.int64)
    y = b.astype("<u4").view(np.int8).reshape(-1, 4).astype(np.int64)
    return ((x * y).sum(axis=1) % 2**32).astype(np.uint64).reshape(a.shape)


def binop_oracle(op: BinOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """vyre's BinOp semantics (docs/semantics.md) in numpy, on uint64 to see the carries."""
    x, y = a.astype(np.uint64), b.astype(np.uint64)
    mask = np.uint64(M32)
    safe = np.where(y == 0, np.uint64(1), y)
    table = {
        BinOp.ADD: (x + y) & mask,
        BinOp.SUB: (x - y) & mask,
        BinOp.MUL: (x * y) & mask,
        BinOp.DIV: np.where(y == 0, np.uint64(0), x // safe),
        BinOp.MOD: np.where(y == 0, np.uint64(0), x % safe),
        BinOp.BIT_AND: x & y,
        BinOp.BIT_OR: x | y,
        BinOp.BIT_XOR: x ^ y,
        BinOp.SHL: (x << (y & np.uint64(31))) & mask,
        BinOp.SHR: x >> (y & np.uint64(31)),
        BinOp.EQ: x == y,
        BinOp.NE: x != y,
        BinOp.LT: x < y,
        BinOp.GT: x > y,
        BinOp.LE: x <= y,
        BinOp.GE: x >= y,
        BinOp.AND: (x != 0) & (y != 0),
        BinOp.OR: (x != 0) | (y != 0),
        BinOp.DOT4_I8: _dot4(a, b),
        BinOp.MUL_HIGH: (x * y) >> np.uint64(32),
    }
    return table[op].astype(np.uint32)


def unop_oracle(op: UnOp, values: np.ndarray) -> np.ndarray:
    """vyre's UnOp semantics on the 32-bit pattern, one Python int at a time."""

    def one(v: int) -> int:
        match op:
            case UnOp.NEGATE:
                return (2**32 - v) % 2**32
            case UnOp.BIT_NOT:
                return M32 - v
            case UnOp.LOGICAL_NOT:
                return int(v == 0)
            case UnOp.POPCOUNT:
                return sum((v >> bit) & 1 for bit in range(32))
            case UnOp.CLZ:
                return next((31 - bit for bit in range(31, -1, -1) if v >> bit & 1), 32)
            case UnOp.CTZ:
                return next((bit for bit in range(32) if v >> bit & 1), 32)
            case UnOp.REVERSE_BITS:
                return sum(((v >> bit) & 1) << (31 - bit) for bit in range(32))

    return np.array([one(int(v)) for v in values], dtype=np.uint32)


def _pairs(seed: int, random_count: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    grid = np.array([(x, y) for x in EDGES for y in EDGES], dtype=np.uint32)
    random = rng.integers(0, 2**32, size=(random_count, 2), dtype=np.uint32)
    small = rng.integers(0, 40, size=(random_count // 4, 2), dtype=np.uint32)
    pairs = np.concatenate([grid, random, small])
    return pairs[:, 0].copy(), pairs[:, 1].copy()


def _u32(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.uint32)


def test_binops_on_runtime_operands(gpu_adapter: Any) -> None:
    a, b = _pairs(seed=1, random_count=676)
    n = len(a)
    x, y = E.var("x"), E.var("y")
    body = [
        N.let("i", E.gid_x()),
        N.if_(E.ge(E.var("i"), E.u32(n)), [N.return_()]),  # the tail of the last workgroup
        N.let("x", E.load("a", E.var("i"))),
        N.let("y", E.load("b", E.var("i"))),
    ]
    for k, op in enumerate(BINOPS):
        body.append(N.store("out", E.add(E.var("i"), E.u32(k * n)), E.binop(op, x, y)))
    program = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read("b", 1, DataType.U32),
         BufferDecl.read_write("out", 2, DataType.U32)],
        (64, 1, 1),
        body,
    )  # fmt: skip
    out = execute(program, {"a": a, "b": b, "out": _u32(np.zeros(len(BINOPS) * n))}, (-(-n // 64), 1, 1))["out"]
    for k, op in enumerate(BINOPS):
        got = out[k * n : (k + 1) * n]
        want = binop_oracle(op, a, b)
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, f"{op}: a={a[bad[0]]:#x} b={b[bad[0]]:#x} got {got[bad[0]]:#x} want {want[bad[0]]:#x}"


def test_constant_operands_are_folded_exactly(gpu_adapter: Any) -> None:
    """A sample on the GPU; test_folding.py checks the full grids on the WGSL text."""
    pairs = [(x, y) for x in (0, 7, 0xFFFF_FFFF) for y in (0, 33, 0x8000_0001)]
    singles = [0, 0x8000_0000, 0xFFFF_FFFF, 6]
    body = []
    for op in BINOPS:
        for x, y in pairs:
            body.append(N.store("out", E.u32(len(body)), E.binop(op, E.u32(x), E.u32(y))))
    for op in UNOPS:
        for v in singles:
            signed = v - 2**32 if v >= 2**31 else v
            body.append(N.store("out", E.u32(len(body)), E.unop(op, E.u32(v))))
            body.append(N.store("out", E.u32(len(body)), E.cast(DataType.U32, E.unop(op, E.i32(signed)))))
    program = Program([BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1), body)
    out = execute(program, {"out": _u32(np.zeros(len(body)))}, (1, 1, 1))["out"].tolist()
    a, b = _u32([p[0] for p in pairs]), _u32([p[1] for p in pairs])
    want: list[int] = []
    for op in BINOPS:
        want += binop_oracle(op, a, b).tolist()
    for op in UNOPS:
        for v in unop_oracle(op, _u32(singles)).tolist():
            want += [v, v]
    assert out == want


def test_binops_with_one_constant_operand(gpu_adapter: Any) -> None:
    values = _u32(EDGES)
    n = len(values)
    x = E.var("x")
    cases = [(op, c, side) for op in BINOPS for c in FEW_EDGES for side in ("right", "left")]
    body = [N.let("x", E.load("a", E.gid_x()))]
    for slot, (op, c, side) in enumerate(cases):
        operands = (x, E.u32(c)) if side == "right" else (E.u32(c), x)  # fmt: skip
        body.append(N.store("out", E.add(E.gid_x(), E.u32(slot * n)), E.binop(op, *operands)))
    program = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)], (n, 1, 1), body
    )
    out = execute(program, {"a": values, "out": _u32(np.zeros(len(cases) * n))}, (1, 1, 1))["out"]
    for slot, (op, c, side) in enumerate(cases):
        const = _u32([c] * n)
        want = binop_oracle(op, values, const) if side == "right" else binop_oracle(op, const, values)
        np.testing.assert_array_equal(out[slot * n : (slot + 1) * n], want, err_msg=f"{op} {side} {c:#x}")


def test_unops_on_u32_and_i32_operands(gpu_adapter: Any) -> None:
    rng = np.random.default_rng(2)
    values = np.concatenate([_u32(EDGES), rng.integers(0, 2**32, 110, dtype=np.uint32)])
    n = len(values)
    body = [N.let("i", E.gid_x())]
    for k, op in enumerate(UNOPS):
        unsigned = E.unop(op, E.load("a", E.var("i")))
        signed = E.cast(DataType.U32, E.unop(op, E.load("s", E.var("i"))))
        body.append(N.store("out", E.add(E.var("i"), E.u32(2 * k * n)), unsigned))
        body.append(N.store("out", E.add(E.var("i"), E.u32((2 * k + 1) * n)), signed))
    program = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read("s", 1, DataType.I32),
         BufferDecl.read_write("out", 2, DataType.U32)],
        (n, 1, 1),
        body,
    )  # fmt: skip
    out = execute(program, {"a": values, "s": values, "out": _u32(np.zeros(2 * len(UNOPS) * n))}, (1, 1, 1))["out"]
    for k, op in enumerate(UNOPS):
        want = unop_oracle(op, values)
        np.testing.assert_array_equal(out[2 * k * n : (2 * k + 1) * n], want, err_msg=f"{op} on u32")
        np.testing.assert_array_equal(out[(2 * k + 1) * n : (2 * k + 2) * n], want, err_msg=f"{op} on i32")
