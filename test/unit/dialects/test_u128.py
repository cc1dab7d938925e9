"""`DataType.U128` in the dialect, the builder, validation, the text and wire forms.

Oracles are Python's integers (modulo 2**128, x / 0 == x % 0 == 0, shift amounts
modulo 128), written here, never vyre's folders."""

from __future__ import annotations

import random

import pytest
from xdsl.utils.exceptions import VerifyException

import vyre
from vyre.dialects import vyre as d
from vyre.ir import BinOp, BufferDecl, DataType, Expr as E, Node as N, Program, UnOp
from vyre.transforms.fold import canonicalize

MOD = 1 << 128
MAX = MOD - 1
VALUES = (0, 1, 2, 3, 2**32 - 1, 2**32, 2**64 - 1, 2**64 + 5, 2**96, 2**127, MAX - 1, MAX)

ORACLES = {
    BinOp.ADD: lambda a, b: (a + b) % MOD,
    BinOp.SUB: lambda a, b: (a - b) % MOD,
    BinOp.MUL: lambda a, b: (a * b) % MOD,
    BinOp.DIV: lambda a, b: 0 if b == 0 else a // b,
    BinOp.MOD: lambda a, b: 0 if b == 0 else a % b,
    BinOp.BIT_AND: lambda a, b: a & b,
    BinOp.BIT_OR: lambda a, b: a | b,
    BinOp.BIT_XOR: lambda a, b: a ^ b,
    BinOp.SHL: lambda a, b: (a << (b % 128)) % MOD,
    BinOp.SHR: lambda a, b: a >> (b % 128),
    BinOp.EQ: lambda a, b: int(a == b),
    BinOp.NE: lambda a, b: int(a != b),
    BinOp.LT: lambda a, b: int(a < b),
    BinOp.GT: lambda a, b: int(a > b),
    BinOp.LE: lambda a, b: int(a <= b),
    BinOp.GE: lambda a, b: int(a >= b),
}
COMPARISONS = {BinOp.EQ, BinOp.NE, BinOp.LT, BinOp.GT, BinOp.LE, BinOp.GE}
UNARY = {
    UnOp.BIT_NOT: lambda a: MAX ^ a,
    UnOp.POPCOUNT: lambda a: bin(a).count("1"),
    UnOp.CLZ: lambda a: 128 - a.bit_length(),
    UnOp.CTZ: lambda a: 128 if a == 0 else (a & -a).bit_length() - 1,
}


def test_the_type_and_its_facts() -> None:
    assert DataType.U128.value == "u128"
    assert DataType.U128.min_bytes() == 16
    facts = DataType.U128.facts
    assert (facts.lanes, facts.words, facts.wgsl, facts.numpy) == (4, 4, "vec4<u32>", "uint32")
    assert not DataType.U128.is_scalar and not DataType.U128.is_float
    assert str(d.DataTypeAttr("u128")) == "!vyre.type<u128>"


@pytest.mark.parametrize("value", [0, 1, 2**64, MAX])
def test_the_literal_takes_every_128_bit_value(value: int) -> None:
    literal = E.u128(value)
    op = d.LitU128Op(value)
    op.verify()
    assert op.res.type == DataType.U128.attr
    assert literal == E.u128(value) and literal != E.u128((value + 1) % MOD)


@pytest.mark.parametrize(("value", "error"), [(-1, ValueError), (MOD, ValueError), (True, TypeError), (1.0, TypeError)])
def test_the_literal_refuses_what_128_bits_do_not_hold(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="u128 literal"):
        E.u128(value)  # type: ignore[arg-type]
    if error is ValueError:
        with pytest.raises(VerifyException, match=f"u128 literal {value} is out of range"):
            d.LitU128Op(value).verify()  # type: ignore[arg-type]


def test_result_types() -> None:
    a, b = d.LitU128Op(1), d.LitU128Op(2)
    for op in BinOp:
        if op.is_float or op in (BinOp.AND, BinOp.OR, BinOp.DOT4_I8, BinOp.MUL_HIGH):  # not on u128 (V145)
            continue
        expected = d.U32 if op in COMPARISONS else d.U128
        assert d.BinOp(op.value, a, b).res.type == expected, op
    assert d.UnOp("bit_not", a).res.type == d.U128
    for kind in ("popcount", "clz", "ctz"):
        assert d.UnOp(kind, a).res.type == d.U32


def test_the_folds_agree_with_python_integers() -> None:
    rng = random.Random(1)
    values = [*VALUES, *(rng.getrandbits(128) for _ in range(20)), 127, 128, 129, 300]
    for op, oracle in ORACLES.items():
        kind = d.BinOpKind(op.value)
        for a in values:
            for b in values:
                assert d.fold_u128_binop(kind, a, b) == oracle(a, b), (op, a, b)
    for op, oracle in UNARY.items():
        for a in values:
            assert d.fold_u128_unop(d.UnOpKind(op.value), a) == oracle(a), (op, a)


def _folded(expr: E, result: DataType) -> d.ExprOp:
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, result)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("o", E.u32(0), expr)],
    )
    canonicalize(program.module)
    (store,) = [op for op in program.kernel.walk() if isinstance(op, d.StoreOp)]
    owner = store.value.owner
    assert isinstance(owner, d.ExprOp)
    return owner


def test_canonicalize_folds_operations_of_literals() -> None:
    folded = _folded(E.mul(E.u128(MAX), E.u128(2**64 + 1)), DataType.U128)
    assert isinstance(folded, d.LitU128Op) and folded.value.data == (MAX * (2**64 + 1)) % MOD
    compared = _folded(E.lt(E.u128(2**127), E.u128(2**64)), DataType.U32)
    assert isinstance(compared, d.LitU32Op) and compared.value.data == 0
    counted = _folded(E.clz(E.u128(2**100)), DataType.U32)
    assert isinstance(counted, d.LitU32Op) and counted.value.data == 27
    inverted = _folded(E.bitnot(E.u128(5)), DataType.U128)
    assert isinstance(inverted, d.LitU128Op) and inverted.value.data == MAX ^ 5


def _lanes(value: int, count: int) -> tuple[int, ...]:
    return tuple((value >> (32 * k)) & 0xFFFF_FFFF for k in range(count))


def test_constant_casts_follow_the_table() -> None:
    word = 0x8000_0001
    u128 = DataType.U128
    assert d.fold_cast(DataType.U32, (word,), u128) == _lanes(word, 4)
    assert d.fold_cast(DataType.I32, (word,), u128) == _lanes((word - 2**32) % MOD, 4)
    assert d.fold_cast(DataType.BOOL, (1,), u128) == (1, 0, 0, 0)
    assert d.fold_cast(DataType.U64, (5, 6), u128) == (5, 6, 0, 0)
    assert d.fold_cast(DataType.VEC2U32, (5, 6), u128) == (5, 6, 0, 0)
    assert d.fold_cast(DataType.VEC4U32, (5, 6, 7, 8), u128) == (5, 6, 7, 8)
    value = _lanes(2**100 + 2**40 + 3, 4)
    assert d.fold_cast(u128, value, DataType.U32) == value[:1]
    assert d.fold_cast(u128, value, DataType.I32) == value[:1]
    assert d.fold_cast(u128, value, DataType.U64) == value[:2]
    assert d.fold_cast(u128, value, DataType.VEC2U32) == value[:2]
    assert d.fold_cast(u128, value, DataType.VEC4U32) == value
    assert d.fold_cast(u128, (0, 0, 0, 1), DataType.BOOL) == (1,)
    assert d.fold_cast(u128, (0, 0, 0, 0), DataType.BOOL) == (0,)


def _sample() -> Program:
    i = E.var("i")
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U128),
            BufferDecl.read_write("o", 1, DataType.U128),
            BufferDecl.read_write("n", 2, DataType.U32),
        ],
        workgroup_size=(8, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.store("o", i, E.div(E.load("a", i), E.u128(MAX))),
            N.store("n", i, E.ge(E.load("a", i), E.u128(2**127))),
        ],
    )


def test_text_and_wire_round_trips() -> None:
    program = _sample()
    text = vyre.print_ir(program)
    assert "vyre.lit_u128 340282366920938463463374607431768211455" in text
    assert vyre.parse_ir(text) == program
    assert vyre.parse_ir(vyre.print_ir(program, generic=True)) == program
    blob = program.to_wire()
    assert Program.from_wire(blob) == program and Program.from_wire(blob).to_wire() == blob


def test_the_wire_holds_the_literal_as_four_words() -> None:
    blob = _sample().to_wire()
    assert (MAX).to_bytes(16, "little") in blob


def test_validation_accepts_the_operators_and_casts_u128_has() -> None:
    x = E.load("a", E.u32(0))
    stores = [N.store("o", E.u32(0), E.binop(op, x, E.u128(3))) for op in ORACLES if op not in COMPARISONS]
    stores += [N.store("n", E.u32(0), E.binop(op, x, E.u128(3))) for op in COMPARISONS]
    stores += [N.store("o", E.u32(0), E.bitnot(x))]
    stores += [N.store("n", E.u32(0), E.unop(op, x)) for op in (UnOp.POPCOUNT, UnOp.CLZ, UnOp.CTZ)]
    for source in (DataType.U32, DataType.I32, DataType.BOOL, DataType.U64, DataType.VEC2U32, DataType.VEC4U32):
        stores.append(N.let(f"to_{source.value}", E.cast(source, x)))
        stores.append(N.store("o", E.u32(0), E.cast(DataType.U128, E.var(f"to_{source.value}"))))
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U128),
            BufferDecl.read_write("o", 1, DataType.U128),
            BufferDecl.read_write("n", 2, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=stores,
    )
    assert vyre.validate(program) == []


def _rules(*statements: N) -> list[str]:
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U128), BufferDecl.read_write("o", 1, DataType.U128)],
        workgroup_size=(1, 1, 1),
        entry=list(statements),
    )
    return [finding.rule for finding in vyre.validate(program)]


def test_mixing_u128_with_another_type_is_v144() -> None:
    x = E.load("a", E.u32(0))
    assert _rules(N.store("o", E.u32(0), E.add(x, E.u32(1)))) == ["V144"]
    assert _rules(N.store("o", E.u32(0), E.shl(x, E.u32(1)))) == ["V144"]
    assert _rules(N.let("t", E.lt(E.i32(1), x))) == ["V144"]
    assert _rules(N.let("t", E.eq(E.cast(DataType.VEC4U32, x), x))) == ["V144"]


def test_operators_u128_lacks_are_v145() -> None:
    x = E.load("a", E.u32(0))
    assert _rules(N.let("t", E.binop(BinOp.AND, x, x))) == ["V145"]
    assert _rules(N.let("t", E.binop(BinOp.OR, x, x))) == ["V145"]
    assert _rules(N.let("t", E.binop(BinOp.DOT4_I8, x, x))) == ["V145"]
    for op in (UnOp.NEGATE, UnOp.LOGICAL_NOT, UnOp.REVERSE_BITS):
        assert _rules(N.let("t", E.unop(op, x))) == ["V145"], op
    message = vyre.validate(
        Program(
            buffers=[BufferDecl.read("a", 0, DataType.U128)],
            workgroup_size=(1, 1, 1),
            entry=[N.let("t", E.negate(x))],
        )
    )[0].message
    assert message.startswith("vyre IR validation: operation `negate` is not defined on `u128`. Fix: ")


def test_u128_is_no_index_condition_or_float() -> None:
    x = E.load("a", E.u32(0))
    assert _rules(N.let("t", E.load("a", x))) == ["V122"]
    assert _rules(N.if_(x, [])) == ["V022"]
    assert _rules(N.let("t", E.cast(DataType.F32, x))) == ["V012"]
    assert _rules(N.let("t", E.cast(DataType.BYTES, x))) == ["V023"]
