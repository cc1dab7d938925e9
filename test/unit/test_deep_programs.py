"""Deep programs: no RecursionError anywhere.

A 2,000-deep expression chain is an ordinary program: it builds, compares,
hashes, prints, validates, round-trips through the text and wire forms and runs
on both backends. A program nested past V018 still builds and is reported as
V018; one nested past `MAX_NESTING` is refused with a clear ValueError by the
forms that recurse (text, wire, clone), never with a RecursionError."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import vyre
from vyre.context import MAX_NESTING, NestingError
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.wire import WireError

CHAIN = 2_000
LANES = 8


def _chain(depth: int) -> E:
    """a[gid] + 0 + 1 + ... + (depth - 1), left-leaning: depth levels deep."""
    expr = E.load("a", E.gid_x())
    for k in range(depth):
        expr = E.add(expr, E.u32(k))
    return expr


def _chain_program() -> Program:
    return Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (LANES, 1, 1),
        [N.store("out", E.gid_x(), _chain(CHAIN))],
    )


def _nested(depth: int, make: str = "block", stored: int = 1) -> Program:
    body = [N.store("out", E.u32(0), E.u32(stored))]
    for k in range(depth - 1):
        if make == "block":
            body = [N.block(body)]
        elif make == "if":
            body = [N.if_(E.bool_(True), body)]
        else:
            body = [N.loop(f"i{k}", E.u32(0), E.u32(1), body)]
    return Program([BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1), body)


def test_a_deep_chain_compares_hashes_prints_and_pickles_without_recursion() -> None:
    first, second, other = _chain(CHAIN), _chain(CHAIN), E.add(_chain(CHAIN - 1), E.u32(7))
    assert first == second and hash(first) == hash(second)
    assert first != other
    text = repr(first)
    assert text.startswith("BinaryExpr(op=<BinOp.ADD: 'add'>, left=BinaryExpr(")
    assert text.count("LitU32(value=") == CHAIN
    assert pickle.loads(pickle.dumps(first)) == first
    statement = N.store("out", E.u32(0), first)
    assert statement == N.store("out", E.u32(0), second)
    assert {statement: 1}[N.store("out", E.u32(0), second)] == 1


def test_a_shared_dag_compares_and_hashes_in_linear_time() -> None:
    """x = x + x sixty times: 2**60 paths, 61 distinct nodes."""
    left, right = E.u32(1), E.u32(1)
    for _ in range(60):
        left, right = E.add(left, left), E.add(right, right)
    assert left == right and hash(left) == hash(right)


def test_a_2000_deep_chain_builds_validates_and_round_trips() -> None:
    program = _chain_program()
    assert vyre.validate(program) == []
    text = vyre.print_ir(program)
    parsed = vyre.parse_ir(text)
    assert parsed == program and hash(parsed) == hash(program)
    assert vyre.print_ir(parsed) == text
    decoded = Program.from_wire(program.to_wire())
    assert decoded == program
    assert decoded.to_wire() == program.to_wire()


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_a_2000_deep_chain_runs(backend: str, request: pytest.FixtureRequest) -> None:
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    a = np.array([0, 1, 2, 3, 0xFFFF_FFFF, 1 << 31, 12345, 99], dtype=np.uint32)
    out = vyre.run(_chain_program(), {"a": a}, outputs={"out": LANES}, dispatch=(1, 1, 1), backend=backend)
    total = sum(range(CHAIN))
    expected = np.array([(int(x) + total) & 0xFFFF_FFFF for x in a], dtype=np.uint32)
    assert np.array_equal(out["out"], expected)


def _paren_depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth -= 1
    return deepest


def _mixed_chain(depth: int) -> Program:
    """x * 3, ^ 1, * 3, ^ 3, ...: mixed ops, so that no folding shortens the chain."""
    expr = E.load("a", E.gid_x())
    for k in range(depth):
        expr = E.bitxor(expr, E.u32(k)) if k % 2 else E.mul(expr, E.u32(3))
    return Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (LANES, 1, 1),
        [N.store("out", E.gid_x(), expr)],
    )


@pytest.mark.parametrize("depth", [12_000, pytest.param(40_000, marks=pytest.mark.slow)])
def test_a_deep_chain_lowers_to_bounded_nesting(depth: int) -> None:
    """naga parses WGSL expressions recursively and segfaulted on a 5,000-deep
    chain (a valid program, far under V019): the lowering cuts expressions longer
    than `MAX_INLINE_TEXT` into `let`s. 12,000 levels, and 40,000 in make
    test-all (7 s of CPU)."""
    from vyre.pipeline import lower_to_wgsl

    assert _paren_depth(lower_to_wgsl(_mixed_chain(depth))) < 1_100


def test_a_6000_deep_chain_runs_on_wgpu(gpu_adapter: object) -> None:
    """Deeper than the chain that crashed naga; equal to plain Python. (Deeper
    chains run too, but lavapipe's LLVM takes seconds per thousand levels.)"""
    depth = 6_000
    a = np.array([0, 1, 2, 3, 0xFFFF_FFFF, 1 << 31, 12345, 99], dtype=np.uint32)
    out = vyre.run(_mixed_chain(depth), {"a": a}, outputs={"out": LANES}, dispatch=(1, 1, 1))
    expected: list[int] = []
    for x in a.tolist():
        for k in range(depth):
            x = x ^ k if k % 2 else (x * 3) & 0xFFFF_FFFF
        expected.append(x)
    assert out["out"].tolist() == expected


def test_ten_thousand_nested_blocks_build_and_are_v018() -> None:
    program = _nested(10_000)
    diagnostics = vyre.validate(program)
    assert [d.rule for d in diagnostics] == ["V018"]
    assert diagnostics[0].message == (
        "vyre IR validation: V018: program nesting depth 9999 exceeds max 64. Fix: flatten"
        " nested If/Loop/Block structures or split the program before lowering."
    )
    with pytest.raises(vyre.ValidationError, match="V018"):
        vyre.run(program, {}, outputs={"out": 1}, dispatch=(1, 1, 1), backend="interp")


@pytest.mark.parametrize("make", ["block", "if", "loop"])
def test_a_200_deep_program_prints_parses_and_round_trips(make: str) -> None:
    program = _nested(200, make)
    assert [d.rule for d in vyre.validate(program)] == ["V018"]
    text = vyre.print_ir(program)
    generic = vyre.print_ir(program, generic=True)
    assert vyre.parse_ir(text) == program == vyre.parse_ir(generic)
    assert Program.from_wire(program.to_wire()) == program
    assert program.clone() == program and hash(program.clone()) == hash(program)


def test_nesting_past_the_cap_is_a_clear_error_in_every_recursive_form() -> None:
    program = _nested(MAX_NESTING + 1)
    assert [d.rule for d in vyre.validate(program)] == ["V018"]
    # equality and hashing are iterative: no cap. A second build is a distinct,
    # equal program, so the comparison walks every level; one whose innermost
    # store differs is unequal.
    twin, other = _nested(MAX_NESTING + 1), _nested(MAX_NESTING + 1, stored=2)
    assert twin is not program and twin.module is not program.module
    assert program == twin and hash(program) == hash(twin)
    assert program != other and hash(program) != hash(other)
    with pytest.raises(NestingError, match=f"1025 levels deep; vyre holds at most {MAX_NESTING}"):
        vyre.print_ir(program)
    with pytest.raises(NestingError):
        program.clone()
    with pytest.raises(WireError, match="nested deeper than"):
        program.to_wire()
