"""The one path (vyre.pipeline): validate -> inline-calls -> canonicalize -> target,
computed once per program fingerprint; folding agrees with the interpreter."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import vyre
from vyre import pipeline
from vyre.dialects import vyre as d
from vyre.ir import INTEGER_BINOPS as INT_BINOP_KINDS, INTEGER_UNOPS as INT_UNOP_KINDS
from vyre.ir import BufferDecl, DataType, Expr, Node as N, Program
from vyre.ir import Expr as E
from vyre.runtime.interp import execute
from vyre.testing.backends import execute_interp_unchecked


def _program(value: Expr, n: int = 1) -> Program:
    return Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(0), value)] if n == 1 else [],
    )


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"validate": 0, "passes": 0, "lower": 0}

    def count(name: str, function: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return counted

    monkeypatch.setattr(pipeline, "validate", count("validate", pipeline.validate))
    monkeypatch.setattr(pipeline, "run_passes", count("passes", pipeline.run_passes))
    monkeypatch.setattr(pipeline, "lower", count("lower", pipeline.lower))
    return calls


def test_a_program_is_validated_transformed_and_lowered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    program = _program(E.call("primitive.math.add", [E.load("a", E.u32(0)), E.u32(7)]))
    words = {"a": np.array([5], np.uint32), "out": np.zeros(1, np.uint32)}
    for _ in range(3):
        assert vyre.run(program, {"a": words["a"]}, dispatch=(1, 1, 1), outputs={"out": 1},
                        backend="interp")["out"].tolist() == [12]
        pipeline.lower_to_wgsl(program)
        execute(pipeline.prepare(program), words, (1, 1, 1))
    # the same program built again is the same IR: no new work either
    twin = _program(E.call("primitive.math.add", [E.load("a", E.u32(0)), E.u32(7)]))
    assert pipeline.prepare(twin) is pipeline.prepare(program)
    assert calls == {"validate": 1, "passes": 1, "lower": 1}


def test_a_changed_program_is_prepared_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    program = _program(E.add(E.load("a", E.u32(0)), E.u32(1)))
    first = pipeline.prepare(program)
    literal = next(op for op in program.kernel.walk() if isinstance(op, d.LitU32Op) and op.value.data == 1)
    literal.properties["value"] = d.IntAttr(2)
    second = pipeline.prepare(program)
    assert second is not first and calls["validate"] == 2


def test_preparing_leaves_the_program_as_it_was() -> None:
    program = _program(E.call("primitive.math.max", [E.u32(2), E.load("a", E.u32(0))]))
    before = vyre.print_ir(program)
    prepared = pipeline.prepare(program)
    assert vyre.print_ir(program) == before
    assert prepared.module is not program.module
    assert not any(isinstance(op, d.CallOp) for op in prepared.kernel.walk())


def test_an_invalid_program_stops_before_any_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    program = _program(E.load("nope", E.u32(0)))
    with pytest.raises(vyre.ValidationError, match="unknown buffer `nope`"):
        pipeline.prepare(program)
    assert calls == {"validate": 1, "passes": 0, "lower": 0}


def test_targets_take_prepared_kernels_only() -> None:
    program = _program(E.call("primitive.math.add", [E.u32(1), E.load("a", E.u32(0))]))
    with pytest.raises(TypeError, match="prepared"):
        execute(program, {}, (1, 1, 1))  # type: ignore[arg-type]
    from vyre.lowering import LoweringError, lower

    with pytest.raises(LoweringError, match="prepare the kernel first"):
        lower(program.kernel)


def test_canonicalize_folds_literals_in_the_prepared_ir() -> None:
    value = E.add(E.mul(E.u32(6), E.u32(7)), E.div(E.u32(1), E.u32(0)))
    prepared = pipeline.prepare(_program(value))
    ops = list(prepared.kernel.walk())
    assert not any(isinstance(op, d.BinOp) for op in ops)
    assert [op.value.data for op in ops if isinstance(op, d.LitU32Op)] == [0, 42]


EDGES = (0, 1, 2, 31, 32, 33, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF)
I32_EDGES = (0, 1, -1, 31, 32, -(2**31), 2**31 - 1)


def _literal(value: int, kind: DataType) -> Expr:
    if kind is DataType.I32:
        return E.i32(value)
    if kind is DataType.BOOL:
        return E.bool_(bool(value))
    return E.u32(value)


def _folding_cases() -> list[Expr]:
    cases: list[Expr] = []
    for op, a, b in itertools.product(INT_BINOP_KINDS, EDGES, EDGES[::3]):
        cases.append(E.binop(op, E.u32(a), E.u32(b)))
    for op, a in itertools.product(INT_UNOP_KINDS, EDGES):
        cases.append(E.unop(op, E.u32(a)))
    for op, a in itertools.product(INT_UNOP_KINDS, I32_EDGES):
        cases.append(E.cast(DataType.U32, E.unop(op, E.i32(a))))
    scalars = (DataType.U32, DataType.I32, DataType.BOOL)
    for source, target in itertools.product(scalars, scalars):
        for a in I32_EDGES if source is DataType.I32 else EDGES[:4] if source is DataType.BOOL else EDGES:
            cases.append(E.cast(DataType.U32, E.cast(target, _literal(a, source))))
    cases.append(E.select(E.bool_(True), E.u32(3), E.u32(4)))
    cases.append(E.select(E.u32(0), E.u32(3), E.u32(4)))
    return cases


def test_the_folders_agree_with_the_interpreter() -> None:
    """Every fold of canonicalize gives the value the interpreter computes on the
    unfolded IR (the interpreter shares no code with the folders)."""
    cases = _folding_cases()
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(k), value) for k, value in enumerate(cases)],
    )
    words = {"out": np.zeros(len(cases), np.uint32)}
    folded = pipeline.prepare(program)
    assert not any(isinstance(op, d.BinOp | d.UnOp | d.SelectOp) for op in folded.kernel.walk())
    want = execute_interp_unchecked(program, words, (1, 1, 1))["out"]
    got = execute(folded, words, (1, 1, 1))["out"]
    bad = [(vyre.print_ir(_program(cases[k])), int(got[k]), int(want[k])) for k in np.flatnonzero(got != want)]
    assert bad == []
