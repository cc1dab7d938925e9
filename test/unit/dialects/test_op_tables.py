"""Op knowledge in one place: every table of per-op knowledge covers every op of
its scope, and a new op that a table misses fails here, naming both.

The op class is the one home of an op's own facts (name, short name, arity,
result rule); every other layer registers its entry in an `OpTable`
(`vyre.dialects.tables`) or derives it from the dialect's op list."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import ClassVar

import pytest
from xdsl.irdl import irdl_op_definition

import vyre
from vyre.dialects import vyre as d
from vyre.dialects.tables import OpTable, all_tables
from vyre.ir import BinOp, UnOp, float_op_expr, public_member
from vyre.ir import Expr as E


def _import_everything() -> None:
    for module in pkgutil.walk_packages(vyre.__path__, "vyre."):
        if module.name.endswith("__main__"):
            continue
        importlib.import_module(module.name)


@pytest.fixture(scope="module")
def tables() -> tuple[OpTable[object, object], ...]:
    _import_everything()
    return all_tables()


def test_the_layers_register_their_tables(tables: tuple[OpTable[object, object], ...]) -> None:
    names = {table.name for table in tables}
    for expected in (
        "soft-float algorithms",
        "interpreter float oracles",
        "interpreter binary operators",
        "interpreter unary operators",
        "interpreter expression steps",
        "interpreter statement steps",
        "validation visitors",
        "WGSL statement emission",
        "WGSL expression emission",
        "WGSL binary operators",
        "WGSL unary operators",
        "SMT binary operators",
        "SMT unary operators",
        "constant folds of vyre.binop",
        "constant folds of vyre.unop",
        "float library ops (primitive.float)",
    ):
        assert expected in names


def test_every_table_covers_every_op_of_its_scope(
    tables: tuple[OpTable[object, object], ...],
) -> None:
    gaps = {table.name: table.missing() for table in tables if table.missing()}
    assert gaps == {}, "ops without an entry, by table: " + repr(gaps)


@irdl_op_definition
class _NewUnaryOp(d.FloatUnaryOp):
    """A strict float unary op that no consumer knows yet."""

    name = "vyre.fnew_unary_for_test"
    SHORT_NAME: ClassVar[str] = "new_unary_for_test"


@pytest.fixture
def a_new_op(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[d.FloatOp]]:
    _import_everything()
    monkeypatch.setattr(d, "OPERATIONS", (*d.OPERATIONS, _NewUnaryOp))
    yield _NewUnaryOp


def test_a_new_float_op_that_a_table_misses_is_named_with_the_table(
    a_new_op: type[d.FloatOp],
) -> None:
    gaps = {table.name: table.missing() for table in all_tables() if table.missing()}
    # the op's own algorithm, oracle and library op are written per op: each
    # table names the op it lacks
    for table in (
        "soft-float algorithms",
        "interpreter float oracles",
        "float library ops (primitive.float)",
    ):
        assert gaps.get(table) == ("vyre.fnew_unary_for_test",), (table, gaps)
    # walkers cover it through its base class (one handler for every unary float op)
    assert "validation visitors" not in gaps
    assert "interpreter expression steps" not in gaps


def test_a_new_operator_kind_is_missed_by_name() -> None:
    table: OpTable[d.BinOpKind, int] = OpTable("a table for this test", lambda: d.BinOpKind)
    for kind in d.BinOpKind:
        if kind is not d.BinOpKind.SHR:
            table.add(kind, 1)
    assert table.missing() == ("BinOpKind.SHR",)
    with pytest.raises(KeyError, match="BinOpKind.SHR has no entry in the a table for this test"):
        table[d.BinOpKind.SHR]


def test_every_public_member_is_a_dialect_op_and_back() -> None:
    integer_binops = {kind.value for kind in d.BinOpKind}
    integer_unops = {kind.value for kind in d.UnOpKind}
    float_spellings = d.float_op_spellings()
    for member in BinOp:
        assert member.value in integer_binops or float_spellings[member.value][0].ARITY == 2
    for member in UnOp:
        assert member.value in integer_unops or float_spellings[member.value][0].ARITY == 1
    assert integer_binops <= {m.value for m in BinOp}
    assert integer_unops <= {m.value for m in UnOp}
    for op in d.FLOAT_OPS:
        for variant in d.float_op_variants(op):
            if op.ARITY == 3:
                continue
            member = public_member(op, variant)
            assert member.is_float
            assert float_spellings[member.value] == (op, variant)


@pytest.mark.parametrize("op", d.FLOAT_OPS, ids=lambda op: op.name)
def test_every_float_op_has_its_builder_and_it_builds_the_op(op: type[d.FloatOp]) -> None:
    from vyre.ir import BufferDecl, DataType, Node, Program

    for variant in d.float_op_variants(op):
        spelling = "f" + variant if variant else op.mnemonic()
        builder = getattr(E, spelling)
        operands = [E.load("a", E.u32(0))] * op.ARITY
        assert builder(*operands) == float_op_expr(op, operands, variant)
        out = DataType.BOOL if op.RESULT is not None else DataType.F32
        program = Program(
            [BufferDecl.read("a", 0, DataType.F32), BufferDecl.read_write("out", 1, out)],
            (1, 1, 1),
            [Node.store("out", E.u32(0), builder(*operands))],
        )
        built = [o for o in program.module.walk() if isinstance(o, d.FloatOp)]
        assert [type(o) for o in built] == [op]
        if variant:
            assert isinstance(built[0], d.FCmpOp) and built[0].predicate.data == variant


def test_the_op_class_holds_its_facts() -> None:
    for op in d.FLOAT_OPS:
        assert op.name == "vyre." + op.mnemonic()
        assert op.SHORT_NAME and op.ARITY in (1, 2, 3)
    assert d.FSqrtOp.SHORT_NAME == "sqrt" and d.FSqrtOp.ARITY == 1
    assert d.FIsNanOp.RESULT == d.BOOL and d.FAddOp.RESULT is None
    assert set(d.STRICT_FLOAT_OPS).isdisjoint(d.APPROXIMATE_OPS)
    assert not any(kind.value.startswith("f") for kind in d.BinOpKind)
