"""V010: barriers under divergent control flow, found by the uniformity analysis.

Each case states by hand (the oracle) whether every invocation of a workgroup
reaches the barrier; `divergent` lists which barriers (by position in program
order) the validator must report."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest

import vyre
from vyre.dialects import vyre as d
from vyre.ir import AtomicOp, BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N

if TYPE_CHECKING:
    from conftest import FakeRegistry

BUFFERS = (
    BufferDecl.read("inp", 0, DataType.U32),
    BufferDecl.read_write("out", 1, DataType.U32),
    BufferDecl.uniform("params", 2, DataType.U32),
    BufferDecl.workgroup("tile", 64, DataType.U32),
)
V010 = "vyre IR validation: barrier may be reached by only part of a workgroup. Fix: move the barrier to uniform control flow."

LID = E.local_id(0)
GID = E.gid_x()
WID = E.workgroup_id(0)
B = N.barrier()


def divergent(entry: Sequence[N]) -> list[int]:
    """Positions (in program order) of the barriers reported by V010."""
    prog = Program(BUFFERS, (64, 1, 1), entry)
    barriers = [op for op in prog.kernel.walk() if isinstance(op, d.BarrierOp)]
    diagnostics = vyre.validate(prog)
    assert all(diag.rule == "V010" and diag.message == V010 for diag in diagnostics), diagnostics
    return [barriers.index(diag.op) for diag in diagnostics]


# -- barriers every invocation reaches -----------------------------------------

UNIFORM_CASES = {
    "top level": [B, B],
    "if on workgroup id": [N.if_(E.eq(WID, E.u32(0)), [B], [B])],
    "if on literal and buf_len": [N.if_(E.lt(E.u32(3), E.buf_len("out")), [B])],
    "loop with uniform bounds": [N.loop("i", E.u32(0), E.buf_len("inp"), [B])],
    "read-only load at uniform index": [N.if_(E.load("inp", E.u32(0)), [B])],
    "uniform buffer load at uniform index": [N.if_(E.load("params", WID), [B])],
    "loop variable of uniform loop": [N.loop("i", E.u32(0), E.u32(4), [N.if_(E.eq(E.var("i"), E.u32(2)), [B])])],
    "reassigned uniformly before use": [
        N.let("x", LID),
        N.assign("x", E.u32(0)),
        N.if_(E.var("x"), [B]),
    ],
    "uniform accumulation in uniform loop": [
        N.let("x", E.u32(0)),
        N.loop("i", E.u32(0), E.u32(4), [N.assign("x", E.add(E.var("x"), E.var("i")))]),
        N.if_(E.var("x"), [B]),
    ],
    "assignment under uniform if": [
        N.let("x", E.u32(0)),
        N.if_(WID, [N.assign("x", E.u32(1))]),
        N.if_(E.var("x"), [B]),
    ],
    "uniform return before barrier": [N.if_(E.eq(WID, E.u32(3)), [N.return_()]), B],
    "return under uniform loop and if": [
        N.loop("i", E.u32(0), E.u32(4), [B, N.if_(E.eq(E.var("i"), E.u32(2)), [N.return_()])]),
        B,
    ],
    "divergent local confined to its branch": [
        N.if_(LID, [N.let("t", LID), N.store("out", E.var("t"), E.u32(1))]),
        N.if_(WID, [B]),
    ],
    "divergent store does not taint control": [
        N.if_(LID, [N.store("out", LID, E.u32(1))]),
        B,
    ],
    "non-uniform value overwritten on every path": [
        N.let("x", LID),
        N.if_(WID, [N.assign("x", E.u32(1))], [N.assign("x", E.u32(2))]),
        N.if_(E.var("x"), [B]),
    ],
    "non-uniform value only in the loop body": [
        N.loop("i", E.u32(0), E.u32(4), [N.let("t", LID), N.store("out", E.var("t"), E.u32(0)), B]),
    ],
    "select on uniform values": [N.if_(E.select(WID, E.u32(1), E.buf_len("inp")), [B])],
}


@pytest.mark.parametrize("entry", UNIFORM_CASES.values(), ids=UNIFORM_CASES.keys())
def test_uniform_barriers_are_accepted(entry: list[N]) -> None:
    assert divergent(entry) == []


# -- barriers only part of a workgroup may reach --------------------------------

DIVERGENT_CASES = {
    "if on local id": ([N.if_(E.lt(LID, E.u32(32)), [B], [B]), B], [0, 1]),
    "if on invocation id": ([N.if_(GID, [B])], [0]),
    "if on local id axis 2": ([N.if_(E.local_id(2), [B])], [0]),
    "loop with non-uniform upper bound": ([N.loop("i", E.u32(0), LID, [B]), B], [0]),
    "loop with non-uniform lower bound": ([N.loop("i", GID, E.u32(64), [B])], [0]),
    "loop bound loaded from read_write buffer": ([N.loop("i", E.u32(0), E.load("out", E.u32(0)), [B])], [0]),
    "if on workgroup buffer": ([N.if_(E.load("tile", E.u32(0)), [B])], [0]),
    "read-only load at non-uniform index": ([N.if_(E.load("inp", LID), [B])], [0]),
    "if on atomic": ([N.if_(E.atomic(AtomicOp.ADD, "out", E.u32(0), E.u32(1)), [B])], [0]),
    "let of local id": ([N.let("x", E.mul(LID, E.u32(2))), N.if_(E.var("x"), [B])], [0]),
    "value through a chain of lets": (
        [N.let("a", GID), N.let("b", E.add(E.var("a"), E.u32(1))), N.let("c", E.var("b")), N.if_(E.var("c"), [B])],
        [0],
    ),
    "assignment of non-uniform value": ([N.let("x", E.u32(0)), N.assign("x", LID), N.if_(E.var("x"), [B])], [0]),
    "uniform assignment under divergent if": (
        [N.let("x", E.u32(0)), N.if_(LID, [N.assign("x", E.u32(1))]), N.if_(E.var("x"), [B])],
        [0],
    ),
    "uniform assignment in divergent loop": (
        [N.let("x", E.u32(0)), N.loop("i", E.u32(0), LID, [N.assign("x", E.u32(1))]), N.if_(E.var("x"), [B])],
        [0],
    ),
    "assignment in else branch only": (
        [N.let("x", E.u32(0)), N.if_(WID, [], [N.assign("x", LID)]), N.if_(E.var("x"), [B])],
        [0],
    ),
    "nested if under divergent if": ([N.if_(LID, [N.if_(WID, [N.block([B])])])], [0]),
    "loop variable of divergent loop": (
        [N.loop("i", E.u32(0), E.u32(4), [N.loop("j", E.u32(0), E.add(E.var("i"), LID), [B])])],
        [0],
    ),
    "select on local id": ([N.if_(E.select(LID, E.u32(1), E.u32(0)), [B])], [0]),
    "cast of local id": ([N.if_(E.cast(DataType.BOOL, LID), [B])], [0]),
    "after divergent return": ([N.if_(E.eq(LID, E.u32(0)), [N.return_()]), B, N.block([B])], [0, 1]),
    "after divergent return in a nested list": ([N.block([N.if_(LID, [N.return_()])]), N.if_(WID, [B])], [0]),
    "after divergent return nested in uniform if": (
        [N.if_(WID, [N.if_(LID, [N.block([N.return_()])])]), B],
        [0],
    ),
    "divergent return inside a loop": (
        [N.loop("i", E.u32(0), E.u32(4), [B, N.if_(LID, [N.return_()]), B]), B],
        [0, 1, 2],
    ),
    "barrier before divergent return only on later iterations": (
        [N.loop("i", E.u32(0), E.u32(4), [B, N.if_(E.eq(LID, E.var("i")), [N.return_()])])],
        [0],
    ),
    "return inside divergent loop": ([N.loop("i", E.u32(0), LID, [N.return_()]), B], [0]),
}


@pytest.mark.parametrize(
    ("entry", "expected"), DIVERGENT_CASES.values(), ids=DIVERGENT_CASES.keys()
)
def test_divergent_barriers_are_reported(entry: list[N], expected: list[int]) -> None:
    assert divergent(entry) == expected


def test_call_results_are_non_uniform(registry: FakeRegistry) -> None:
    registry.add("test.id")
    assert divergent([N.if_(E.call("test.id", []), [B])]) == [0]


def test_loop_carried_assignment_reaches_earlier_read() -> None:
    # iteration 1 reads x = 0 (uniform); iteration 2 reads the LocalId assigned below
    entry = [
        N.let("x", E.u32(0)),
        N.loop("i", E.u32(0), E.u32(4), [N.if_(E.var("x"), [B]), N.assign("x", LID)]),
    ]
    assert divergent(entry) == [0]


def test_loop_carried_chain_needs_several_iterations() -> None:
    # a <- b <- c <- LocalId: the taint needs three back edges to reach `a`
    entry = [
        N.let("a", E.u32(0)),
        N.let("b", E.u32(0)),
        N.let("c", E.u32(0)),
        N.loop(
            "i",
            E.u32(0),
            E.u32(4),
            [
                N.if_(E.var("a"), [B]),
                N.assign("a", E.var("b")),
                N.assign("b", E.var("c")),
                N.assign("c", LID),
            ],
        ),
        N.if_(E.var("a"), [B]),
    ]
    assert divergent(entry) == [0, 1]


def test_loop_carried_uniform_assignment_stays_uniform() -> None:
    entry = [
        N.let("a", E.u32(0)),
        N.let("b", E.u32(1)),
        N.loop("i", E.u32(0), E.u32(4), [N.if_(E.var("a"), [B]), N.assign("a", E.var("b")), N.assign("b", E.var("i"))]),
    ]
    assert divergent(entry) == []


def test_taint_from_inner_loop_reaches_outer_loop_header() -> None:
    entry = [
        N.let("x", E.u32(0)),
        N.loop(
            "i",
            E.u32(0),
            E.u32(4),
            [
                N.if_(E.var("x"), [B]),
                N.loop("j", E.u32(0), E.u32(4), [N.loop("k", E.u32(0), E.u32(4), [N.assign("x", GID)])]),
            ],
        ),
    ]
    assert divergent(entry) == [0]


def test_deep_loop_nest_with_a_long_taint_chain_is_fast_and_sound() -> None:
    # v1 <- v2 <- ... <- v40 <- LocalId, one assignment per loop level, so the
    # taint climbs one level per outer iteration: a naive fixpoint would revisit
    # the inner loops exponentially often. v0 <- v1 runs once, before any loop.
    depth = 40
    entry: list[N] = [N.let(f"v{k}", E.u32(0)) for k in range(depth + 1)]
    body: list[N] = [N.assign(f"v{depth}", LID)]
    for level in reversed(range(depth)):
        body = [N.assign(f"v{level}", E.var(f"v{level + 1}")), N.loop(f"i{level}", E.u32(0), E.u32(2), body)]
    entry += body
    entry += [N.if_(E.var("v0"), [B]), N.if_(E.var("v1"), [B]), N.if_(E.var(f"v{depth}"), [B])]
    prog = Program(BUFFERS, (64, 1, 1), entry)
    start = time.perf_counter()
    diagnostics = vyre.validate(prog)
    assert time.perf_counter() - start < 5.0
    barriers = [op for op in prog.kernel.walk() if isinstance(op, d.BarrierOp)]
    assert [barriers.index(diag.op) for diag in diagnostics] == [1, 2]


def adversarial_nest(depth: int) -> list[N]:
    """Each loop resets `a{k}` before its inner loop and taints it at the end of
    the body, so every entry of every loop needs a second pass."""
    entry: list[N] = [N.let(f"a{k}", E.u32(0)) for k in range(depth)]
    body: list[N] = [B]
    for level in reversed(range(depth)):
        inner = [N.if_(E.var(f"a{level}"), [B]), *body, N.assign(f"a{level}", LID)]
        body = [N.assign(f"a{level}", E.u32(0)), N.loop(f"i{level}", E.u32(0), E.u32(2), inner)]
    return entry + body


def test_adversarial_loop_nest_stays_fast() -> None:
    # the `if a{k}` barriers see LocalId from the second iteration on; the
    # innermost unconditional barrier is reached by everyone
    entry = adversarial_nest(30)
    start = time.perf_counter()
    assert divergent(entry) == list(range(30))
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize(
    ("entry", "expected"), DIVERGENT_CASES.values(), ids=DIVERGENT_CASES.keys()
)
def test_widening_fallback_is_sound(
    entry: list[N], expected: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vyre.validation import uniformity

    monkeypatch.setattr(uniformity, "WORK_PER_NODE", 0)
    monkeypatch.setattr(uniformity, "BASE_WORK", 0)
    assert set(expected) <= set(divergent(entry))
