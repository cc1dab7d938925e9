"""Constant folding: BinOps and UnOps whose operands are all literals reach WGSL as
one literal, equal to vyre's semantics computed here in plain Python. (The GPU
tests run a sample of these; the full grids are checked on the text, because
lavapipe's JIT is slow on kernels with thousands of stores.)"""

from __future__ import annotations

import struct

import re
from collections.abc import Callable

from vyre.ir import BinOp, BufferDecl, DataType, Expr as E, Node as N, Program, UnOp
from vyre import lower_to_wgsl
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS

M32 = 0xFFFF_FFFF
EDGES = [0, 1, 7, 31, 32, 33, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF]

BINARY: dict[BinOp, Callable[[int, int], int]] = {
    BinOp.ADD: lambda a, b: (a + b) % 2**32,
    BinOp.SUB: lambda a, b: (a - b) % 2**32,
    BinOp.MUL: lambda a, b: (a * b) % 2**32,
    BinOp.MUL_HIGH: lambda a, b: (a * b) >> 32,
    BinOp.DIV: lambda a, b: a // b if b else 0,
    BinOp.MOD: lambda a, b: a % b if b else 0,
    BinOp.BIT_AND: lambda a, b: a & b,
    BinOp.BIT_OR: lambda a, b: a | b,
    BinOp.BIT_XOR: lambda a, b: a ^ b,
    BinOp.SHL: lambda a, b: (a * 2 ** (b % 32)) % 2**32,
    BinOp.SHR: lambda a, b: a // 2 ** (b % 32),
    BinOp.EQ: lambda a, b: int(a == b),
    BinOp.NE: lambda a, b: int(a != b),
    BinOp.LT: lambda a, b: int(a < b),
    BinOp.GT: lambda a, b: int(a > b),
    BinOp.LE: lambda a, b: int(a <= b),
    BinOp.GE: lambda a, b: int(a >= b),
    BinOp.AND: lambda a, b: int(bool(a) and bool(b)),
    BinOp.OR: lambda a, b: int(bool(a) or bool(b)),
    BinOp.DOT4_I8: lambda a, b: int(
        sum(x * y for x, y in zip(struct.unpack("<4b", struct.pack("<I", a)), struct.unpack("<4b", struct.pack("<I", b))))
        % 2**32
    ),
}


def _bits(v: int) -> str:
    return f"{v:032b}"


UNARY: dict[UnOp, Callable[[int], int]] = {
    UnOp.NEGATE: lambda a: (2**32 - a) % 2**32,
    UnOp.BIT_NOT: lambda a: int("".join("1" if c == "0" else "0" for c in _bits(a)), 2),
    UnOp.LOGICAL_NOT: lambda a: int(a == 0),
    UnOp.POPCOUNT: lambda a: _bits(a).count("1"),
    UnOp.CLZ: lambda a: len(_bits(a)) - len(_bits(a).lstrip("0")),
    UnOp.CTZ: lambda a: len(_bits(a)) - len(_bits(a).rstrip("0")),
    UnOp.REVERSE_BITS: lambda a: int(_bits(a)[::-1], 2),
}


def _stored_literals(wgsl: str) -> dict[int, int]:
    """slot -> value of every `vyre_store_out(<slot>u, <literal>);` line."""
    found: dict[int, int] = {}
    for slot, literal in re.findall(r"vyre_store_out\((\w+), ([^;]+)\);", wgsl):
        found[int(slot.rstrip("u"), 0)] = _literal(literal)
    return found


def _literal(text: str) -> int:
    assert re.fullmatch(r"(0x[0-9a-f]+|\d+)u", text), f"not a folded u32 literal: {text}"
    return int(text[:-1], 0)


def test_every_binop_on_literal_pairs_folds_to_its_value() -> None:
    pairs = [(a, b) for a in EDGES for b in EDGES]
    body = []
    for op in INT_BINOPS:
        for a, b in pairs:
            body.append(N.store("out", E.u32(len(body)), E.binop(op, E.u32(a), E.u32(b))))
    program = Program([BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1), body)
    stored = _stored_literals(lower_to_wgsl(program))
    assert len(stored) == len(body)
    slot = 0
    for op in INT_BINOPS:
        for a, b in pairs:
            assert stored[slot] == BINARY[op](a, b), f"{op} {a:#x} {b:#x}"
            slot += 1


def test_every_unop_on_u32_and_i32_literals_folds_to_its_value() -> None:
    body = []
    for op in INT_UNOPS:
        for v in EDGES:
            signed = v - 2**32 if v >= 2**31 else v
            body.append(N.store("out", E.u32(len(body)), E.unop(op, E.u32(v))))
            body.append(N.store("out", E.u32(len(body)), E.cast(DataType.U32, E.unop(op, E.i32(signed)))))
    program = Program([BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1), body)
    stored = _stored_literals(lower_to_wgsl(program))
    slot = 0
    for op in INT_UNOPS:
        for v in EDGES:
            assert stored[slot] == UNARY[op](v) == stored[slot + 1], f"{op} {v:#x}"
            slot += 2
