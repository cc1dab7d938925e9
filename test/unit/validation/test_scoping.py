"""Scopes of locals: V006 (undeclared), V008 (shadowing), V011 (loop variables)."""

from __future__ import annotations

from collections.abc import Sequence

import vyre
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N

OUT = BufferDecl.read_write("out", 0, DataType.U32)


def rules(entry: Sequence[N]) -> list[str]:
    return [d.rule for d in vyre.validate(Program([OUT], (64, 1, 1), entry))]


def messages(entry: Sequence[N]) -> list[str]:
    return [d.message for d in vyre.validate(Program([OUT], (64, 1, 1), entry))]


def use(name: str) -> N:
    return N.store("out", E.u32(0), E.var(name))


UNDECLARED_T = "vyre IR validation: reference to undeclared variable `t`. Fix: add `let t = ...;` before this use."


def test_let_is_visible_until_the_end_of_its_list_including_nested_scopes() -> None:
    entry = [
        N.let("x", E.u32(1)),
        use("x"),
        N.if_(E.var("x"), [use("x"), N.block([use("x"), N.assign("x", E.u32(2))])], [use("x")]),
        N.loop("i", E.u32(0), E.var("x"), [use("x"), use("i")]),
    ]
    assert rules(entry) == []


def test_branch_locals_end_with_their_branch() -> None:
    entry = [
        N.if_(E.u32(1), [N.let("t", E.u32(1))], [use("t")]),  # not visible in the sibling
        use("t"),  # nor after the If
    ]
    assert messages(entry) == [UNDECLARED_T, UNDECLARED_T]


def test_block_and_loop_locals_end_with_their_body() -> None:
    entry = [
        N.block([N.let("t", E.u32(1))]),
        use("t"),
        N.loop("i", E.u32(0), E.u32(2), [N.let("t", E.u32(1))]),
        use("t"),
        use("i"),
    ]
    assert rules(entry) == ["V006", "V006", "V006"]


def test_sibling_scopes_may_reuse_a_name_after_the_earlier_one_closed() -> None:
    entry = [
        N.if_(E.u32(1), [N.let("t", E.u32(1))], [N.let("t", E.u32(2))]),
        N.block([N.let("t", E.u32(3))]),
        N.block([N.let("t", E.i32(4))]),
        N.loop("i", E.u32(0), E.u32(2), [N.let("t", E.u32(5))]),
        N.loop("i", E.u32(0), E.u32(2), []),
        N.let("t", E.u32(6)),  # the enclosing list, after every inner scope closed
        N.let("i", E.u32(7)),
    ]
    assert rules(entry) == []


def test_a_later_outer_let_does_not_make_an_earlier_inner_one_shadow() -> None:
    entry = [N.block([N.let("t", E.u32(1)), use("t")]), N.let("t", E.u32(2)), use("t")]
    assert rules(entry) == []


def test_use_before_let_in_block_order_is_undeclared() -> None:
    entry = [use("t"), N.let("t", E.u32(1)), use("t")]
    assert messages(entry) == [UNDECLARED_T]


def test_let_reading_its_own_name_is_undeclared() -> None:
    assert messages([N.let("t", E.add(E.var("t"), E.u32(1)))]) == [UNDECLARED_T]


def test_shadowing_across_every_kind_of_scope() -> None:
    entry = [
        N.let("x", E.u32(0)),
        N.if_(E.u32(1), [N.let("x", E.u32(1))], [N.loop("x", E.u32(0), E.u32(1), [])]),
        N.loop("i", E.u32(0), E.u32(2), [N.block([N.if_(E.u32(1), [N.let("i", E.u32(0))])])]),
        N.loop("j", E.u32(0), E.u32(2), [N.loop("j", E.u32(0), E.u32(2), [])]),
    ]
    assert rules(entry) == ["V008"] * 4


def test_a_rejected_let_keeps_the_first_binding() -> None:
    entry = [
        N.let("x", E.u32(0)),
        N.let("x", E.i32(1)),  # V008; `x` stays the u32 local
        N.assign("x", E.u32(2)),
        N.let("y", E.add(E.var("x"), E.u32(1))),
    ]
    assert rules(entry) == ["V008"]


def test_loop_variable_is_immutable_but_other_locals_are_not() -> None:
    entry = [
        N.let("acc", E.u32(0)),
        N.loop(
            "i",
            E.u32(0),
            E.u32(4),
            [
                N.assign("acc", E.add(E.var("acc"), E.var("i"))),
                N.loop("j", E.u32(0), E.u32(4), [N.if_(E.var("j"), [N.assign("i", E.var("j"))])]),
            ],
        ),
        N.loop("i", E.u32(0), E.u32(1), []),
    ]
    assert messages(entry) == [
        "vyre IR validation: assignment to loop variable `i`. Fix: loop variables are immutable."
    ]


def test_assignment_out_of_scope_is_undeclared() -> None:
    entry = [N.block([N.let("t", E.u32(1))]), N.assign("t", E.u32(2))]
    assert messages(entry) == [
        "vyre IR validation: assignment to undeclared variable `t`. Fix: add `let t = ...;` before this assignment."
    ]
