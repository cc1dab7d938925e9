"""Differential testing: the wgpu backend against the reference interpreter.

Random valid, race-free programs (`vyre.testing.random_programs`) run on both
backends; every read_write buffer must come back byte for byte the same. The
interpreter also runs each program with its lanes in reverse order: a
difference there means the generator produced a racy program.

`make test` runs the first `len(COVERAGE_SEEDS)` (100) seeds, which draw every
construct of the IR (`test_generator_covers_the_ir`); `make test-all` and CI run
the first `DEFAULT_N` (200), the rest marked slow. For a long run:

    VYRE_DIFF_N=5000 [VYRE_DIFF_SEED=10000] pytest -q test/unit/test_differential.py

A mismatch reports the seed, the differing words, the program text and the
inputs, and a reduced program (statements dropped while the mismatch stays).
"""

from __future__ import annotations

import os
from collections import Counter
from functools import cache

import numpy as np
import pytest

from vyre.dialects import vyre as d
from vyre.ir import AtomicOp, BinOp, BufferDecl, DataType, Expr as E, Node as N, Program, UnOp
from vyre.testing.backends import execute_interp as interp_execute
from vyre.testing import GeneratorConfig, RandomCase, random_case
from vyre.testing.random_programs import CASTS_TO
from vyre.testing.reduce import reduce_program
from vyre.ir import print_ir
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS

DEFAULT_N = 200
N_CASES = int(os.environ.get("VYRE_DIFF_N", DEFAULT_N))
FIRST_SEED = int(os.environ.get("VYRE_DIFF_SEED", 0))
COVERAGE_SEEDS = range(100)

case_of = cache(random_case)
"""Generated once per process: the coverage test reuses the differential cases."""


def differences(expected: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> list[str]:
    lines: list[str] = []
    for name in expected:
        want, have = expected[name], got.get(name)
        if have is None or have.shape != want.shape:
            lines.append(f"`{name}`: expected {want.shape[0]} words, got {None if have is None else have.shape}")
            continue
        where = np.flatnonzero(want != have)
        for index in where[:8]:
            lines.append(f"`{name}`[{index}]: interp {int(want[index]):#010x}, wgpu {int(have[index]):#010x}")
        if len(where) > 8:
            lines.append(f"`{name}`: {len(where)} words differ in all")
    return lines


def wgpu_execute(program: Program, case: RandomCase) -> dict[str, np.ndarray]:
    from vyre.testing.backends import execute_wgpu as execute

    return execute(program, case.words, case.dispatch, lengths=case.lengths)


def reduced(case: RandomCase) -> str:
    """The smallest program (by dropping statements) that still mismatches."""

    def still_fails(program: Program) -> bool:
        try:
            expected = interp_execute(program, case.words, case.dispatch, lengths=case.lengths)
            mirrored = interp_execute(
                program, case.words, case.dispatch, lane_order="reversed", lengths=case.lengths
            )
            if differences(expected, mirrored):
                return False
            return bool(differences(expected, wgpu_execute(program, case)))
        except Exception:  # noqa: BLE001 - a candidate that crashes is not the same failure
            return False

    return print_ir(reduce_program(case.program, still_fails, max_checks=300))


SEEDS = [
    seed if seed - FIRST_SEED < len(COVERAGE_SEEDS) else pytest.param(seed, marks=pytest.mark.slow)
    for seed in range(FIRST_SEED, FIRST_SEED + N_CASES)
]


@pytest.mark.parametrize("seed", SEEDS)
def test_wgpu_matches_interpreter(seed: int, gpu_adapter: object) -> None:
    case = case_of(seed)
    expected = interp_execute(case.program, case.words, case.dispatch, lengths=case.lengths)
    mirrored = interp_execute(
        case.program, case.words, case.dispatch, lane_order="reversed", lengths=case.lengths
    )
    racy = differences(expected, mirrored)
    assert not racy, "the generator made a racy program (lane order changes the result):\n" + "\n".join(
        racy + [case.describe()]
    )
    got = wgpu_execute(case.program, case)
    mismatches = differences(expected, got)
    if mismatches:
        pytest.fail(
            f"wgpu differs from the interpreter on random program seed={seed} "
            f"(rerun: VYRE_DIFF_SEED={seed} VYRE_DIFF_N=1 pytest {__file__}):\n"
            + "\n".join(mismatches)
            + "\n\n"
            + case.describe()
            + "\nreduced program:\n"
            + reduced(case)
        )


def test_return_inside_a_loop_ends_the_invocation(gpu_adapter: object) -> None:
    """Found by the generator (seed 88): `return` in a loop body must end the
    invocation, not only the iteration. numpy oracle: out = [0, 0]."""
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(2, 1, 1),
        entry=[N.loop("i", E.u32(0), E.u32(3), [N.store("out", E.gid_x(), E.add(E.var("i"), E.u32(7))), N.return_()])],
    )
    words = {"out": np.full(2, 0xAAAA_AAAA, dtype=np.uint32)}
    oracle = np.array([7, 7], dtype=np.uint32)
    assert wgpu_execute(program, RandomCase(0, program, words, (1, 1, 1)))["out"].tolist() == oracle.tolist()
    assert interp_execute(program, words, (1, 1, 1))["out"].tolist() == oracle.tolist()


# ---------------------------------------------------------------------------
# The generator itself
# ---------------------------------------------------------------------------


def test_generator_is_deterministic() -> None:
    for seed in (0, 1, 12345):
        first, second = random_case(seed), random_case(seed)
        assert print_ir(first.program) == print_ir(second.program)
        assert first.dispatch == second.dispatch
        assert first.words.keys() == second.words.keys()
        assert all(np.array_equal(first.words[k], second.words[k]) for k in first.words)
    assert print_ir(random_case(0).program) != print_ir(random_case(1).program)


def test_generator_covers_the_ir() -> None:
    """Over 100 seeds every BinOp, UnOp, AtomicOp, cast pair, statement kind,
    buffer kind and element type is drawn, and the edge values appear."""
    ops: Counter[str] = Counter()
    literals: set[int] = set()
    for seed in COVERAGE_SEEDS:
        case = case_of(seed)
        for op in case.program.kernel.walk():
            if isinstance(op, d.BinOp | d.UnOp | d.AtomicOp):
                ops[f"{op.name}.{op.kind.data}"] += 1
                if isinstance(op, d.BinOp | d.UnOp) and op.operands[0].type == d.U128:
                    ops[f"u128.{op.kind.data}"] += 1
            elif isinstance(op, d.CastOp):
                source, target = op.value.type, op.res.type
                assert isinstance(source, d.DataTypeAttr) and isinstance(target, d.DataTypeAttr)
                ops[f"cast.{source.kind.data}.{target.kind.data}"] += 1
            elif isinstance(op, d.LitU32Op):
                literals.add(op.value.data)
            else:
                ops[op.name] += 1
        for decl in case.program.buffers:
            ops[f"buffer.{decl.access.value}.{decl.dtype.value}"] += 1
    wanted = {f"vyre.binop.{k.value}" for k in INT_BINOPS} | {f"vyre.unop.{k.value}" for k in INT_UNOPS}
    wanted |= {f"vyre.atomic.{k.value}" for k in AtomicOp}
    wanted |= {f"cast.{s.value}.{t.value}" for s, targets in CASTS_TO.items() for t in targets}
    wanted |= {f"vyre.{name}" for name in ("let", "assign", "store", "if", "loop", "return", "block", "barrier",
                                          "select", "buf_len", "invocation_id", "workgroup_id", "local_id",
                                          "lit_i32", "lit_bool", "var", "load")}
    wanted |= {f"vyre.{name}" for name in (
        "lit_float", "fadd", "fsub", "fmul", "fdiv", "fmin", "fmax", "fcmp", "fma", "fneg", "fabs",
        "fsqrt", "ffloor", "fceil", "fround", "ftrunc", "fis_nan", "fis_inf", "bitcast",
    )}  # fmt: skip
    wanted |= {f"buffer.workgroup.{t.value}" for t in DataType if t is not DataType.BYTES}
    wanted |= {f"buffer.{access}.{t}" for access in ("read_only", "read_write") for t in ("f32", "f16", "bf16")}
    wanted |= {"buffer.uniform.u32", "buffer.read_only.bytes", "buffer.read_write.bytes"}
    wanted |= {f"u128.{k.value}" for k in (*d.U128_BINOP_KINDS, *d.U128_UNOP_KINDS)}
    wanted |= {"vyre.lit_u128", "buffer.read_only.u128", "buffer.read_write.u128"}
    # the cast table: 49 pairs less 2 (u128's rows included); the float casts: u32/i32 <-> 3
    # floats and the 9 float pairs
    assert len([c for c in wanted if c.startswith("cast.")]) == 47 + 12 + 9
    missing = sorted(wanted - set(ops))
    assert not missing, f"never generated: {missing}"
    assert {0, 1, 31, 32, 33, 0xFFFF_FFFF, 0x8000_0000} <= literals


def test_generator_config_switches_features_off() -> None:
    config = GeneratorConfig(
        vectors=False, atomics=False, workgroup=False, uniform=False, bytes_buffers=False, floats=False,
        u128=False,
    )
    for seed in range(30):
        program = random_case(seed, config).program
        assert not any(isinstance(op, d.AtomicOp | d.BarrierOp) for op in program.kernel.walk())
        assert not any(isinstance(op, d.LitFloatOp | d.BitcastOp | d.LitU128Op) for op in program.kernel.walk())
        for decl in program.buffers:
            assert decl.dtype in (DataType.U32, DataType.I32, DataType.BOOL)
            assert decl.access.value in ("read_only", "read_write")


def test_reducer_keeps_the_property_and_shrinks() -> None:
    def stores_to_out(program: Program) -> bool:
        return any(isinstance(op, d.StoreOp) and op.buffer.data == "out" for op in program.kernel.walk())

    # the first case from seed 10 whose program stores to `out` (the generator's draws change as ops land)
    case = next(c for c in map(random_case, range(10, 60)) if stores_to_out(c.program))
    small = reduce_program(case.program, stores_to_out)
    statements = [op for op in small.kernel.walk() if isinstance(op, d.StmtOp) and not isinstance(op, d.BarrierOp)]
    assert stores_to_out(small)
    assert len(statements) <= 4  # the store, and what its operands need (gl, maybe an enclosing statement)
    assert len(list(small.kernel.walk())) < len(list(case.program.kernel.walk()))
