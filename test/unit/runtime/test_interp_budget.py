"""The reference interpreter's work budget (docs/reliability.md): work that would run for
hours is refused with a clear ValueError, before it starts where it can be
predicted (literal loop bounds, the dispatch size, a loop's bounds when it
starts) and while running otherwise; the budget is configurable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.pipeline import prepare
from vyre.runtime.interp import ENV_VAR, InterpBudgetError, execute
from vyre.runtime.interp.budget import DEFAULT_BUDGET, resolve_budget
from vyre.tools.vyre_run import main as vyre_run

U32_MAX = 0xFFFF_FFFF
OUT = [BufferDecl.read_write("out", 0, DataType.U32)]


def _sum_loop(upper: E, body_extra: list[N] | None = None) -> Program:
    """acc = sum of i for i in [0, upper); out[0] = acc."""
    body = [*(body_extra or []), N.assign("acc", E.add(E.var("acc"), E.var("i")))]
    return Program(
        OUT,
        (1, 1, 1),
        [
            N.let("acc", E.u32(0)),
            N.loop("i", E.u32(0), upper, body),
            N.store("out", E.u32(0), E.var("acc")),
        ],
    )


def _run(program: Program, out: list[int], budget: int | None = None, dispatch: tuple[int, int, int] = (1, 1, 1)) -> int:
    words = {"out": np.array(out, dtype=np.uint32)}
    return int(execute(prepare(program), words, dispatch, budget=budget)["out"][0])


def test_a_loop_to_u32_max_with_literal_bounds_is_refused_before_running() -> None:
    with pytest.raises(InterpBudgetError, match=r"refuses a dispatch .* at least 1\.\d+e\+14 work units \(about \d+\.\d hours\)"):
        _run(_sum_loop(E.u32(U32_MAX)), [0])


def test_a_loop_to_u32_max_read_from_memory_is_refused_when_it_starts() -> None:
    with pytest.raises(InterpBudgetError, match="refuses a loop of 4294967295 iterations \\(over `i`\\)"):
        _run(_sum_loop(E.load("out", E.u32(0))), [U32_MAX])


def test_a_dispatch_of_2_31_workgroups_is_refused_before_running() -> None:
    program = Program(OUT, (1, 1, 1), [N.store("out", E.u32(0), E.gid_x())])
    with pytest.raises(InterpBudgetError, match=r"refuses a dispatch of \(2147483648, 1, 1\) workgroups"):
        _run(program, [0], dispatch=(2**31, 1, 1))
    with pytest.raises(InterpBudgetError, match="VYRE_INTERP_BUDGET"):
        vyre.run(program, {}, outputs={"out": 1}, dispatch=(2**31, 1, 1), backend="interp")


def test_a_loop_that_may_return_is_stopped_while_running() -> None:
    """A body with a `return` may end early, so nothing is predicted: the
    interpreter counts as it goes and stops at the budget."""
    leave = [N.if_(E.eq(E.var("i"), E.u32(U32_MAX - 1)), [N.return_()])]
    with pytest.raises(InterpBudgetError, match=r"stopped after \d\.\d+e\+0[67] work units, more than its budget of 1e\+06"):
        _run(_sum_loop(E.load("out", E.u32(0)), leave), [U32_MAX], budget=1_000_000)
    assert _run(_sum_loop(E.load("out", E.u32(0)), leave), [10], budget=1_000_000) == sum(range(10))


def test_work_within_the_budget_runs_and_the_budget_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    program = _sum_loop(E.load("out", E.u32(0)))
    assert _run(program, [1000]) == sum(range(1000))
    with pytest.raises(InterpBudgetError, match="refuses a loop of 1000 iterations"):
        _run(program, [1000], budget=1_000_000)
    monkeypatch.setenv(ENV_VAR, "10_000")
    with pytest.raises(InterpBudgetError, match="budget of 1e\\+04"):
        _run(program, [1000])
    assert _run(program, [1000], budget=10**9) == sum(range(1000))  # the argument wins
    monkeypatch.setenv(ENV_VAR, "unlimited")
    assert resolve_budget(None) is None
    assert _run(program, [1000]) == sum(range(1000))
    monkeypatch.delenv(ENV_VAR)
    assert resolve_budget(None) == DEFAULT_BUDGET


@pytest.mark.parametrize("bad", ["lots", "-5", "0", "1e9"])
def test_a_malformed_environment_budget_names_the_variable(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv(ENV_VAR, bad)
    with pytest.raises(ValueError, match=f"{ENV_VAR}={bad!r} is not a budget"):
        _run(_sum_loop(E.u32(3)), [0])


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError), ("9", TypeError)])
def test_a_bad_budget_argument(bad: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="budget must be a positive"):
        _run(_sum_loop(E.u32(3)), [0], budget=bad)  # type: ignore[arg-type]


def test_vyre_run_takes_a_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "unlimited")  # restored (unset) after the test: the CLI sets it
    kernel = tmp_path / "loop.mlir"
    kernel.write_text(vyre.print_ir(_sum_loop(E.u32(U32_MAX))))
    argv = [str(kernel), "--output", "out=1", "--dispatch", "1", "--backend", "interp"]
    assert vyre_run([*argv, "--interp-budget", "1000"]) == 2
    assert "refuses a dispatch" in capsys.readouterr().err
    assert vyre_run([*argv, "--interp-budget", "soon"]) == 2
    assert "--interp-budget: VYRE_INTERP_BUDGET='soon' is not a budget" in capsys.readouterr().err


def test_workgroup_memory_counts_in_the_estimate() -> None:
    """2,000 workgroup buffers of 8,192 words: every batch (one workgroup of 64
    MB) zeroes them, about 20 ms. The budget counted only the lanes: (3000, 1, 1)
    was estimated at 0.66 s and ran 65.6 s; (60000, 1, 1) was accepted (about 22
    minutes). Both are refused before running now; a small dispatch still runs."""
    buffers = [BufferDecl.workgroup(f"t{k}", 8192, DataType.U32) for k in range(2000)]
    program = prepare(Program([*buffers, *OUT], (1, 1, 1), [N.store("out", E.gid_x(), E.u32(1))]))
    for groups in (3000, 60_000):
        with pytest.raises(InterpBudgetError, match=rf"refuses a dispatch of \({groups}, 1, 1\) .* each with 65,536,000 bytes of workgroup memory"):
            execute(program, {"out": np.zeros(groups, dtype=np.uint32)}, (groups, 1, 1))
    out = execute(program, {"out": np.zeros(3, dtype=np.uint32)}, (3, 1, 1))["out"]
    assert out.tolist() == [1, 1, 1]
    many = prepare(Program([*(BufferDecl.workgroup(f"s{k}", 1, DataType.U32) for k in range(20_000)), *OUT],
                           (1, 1, 1), [N.store("out", E.gid_x(), E.u32(1))]))  # fmt: skip
    with pytest.raises(InterpBudgetError, match="80,000 bytes of workgroup memory"):  # ran 35 s
        execute(many, {"out": np.zeros(655_360, dtype=np.uint32)}, (655_360, 1, 1))
