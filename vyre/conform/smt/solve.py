"""The solver portfolio: z3 on bit-vectors, then z3 on the integer lifting, then cvc5.

`decide(goal, arity, timeout)` asks whether `goal(B, xs)` (a condition over
`arity` 32-bit inputs, written against `Bits`) holds for every input. Each
attempt has its own time limit (measured: z3 proves almost everything in
well under a second; integer lifting wins on products, quotients and
saturation; cvc5 beats z3 on the gcd and multiplier-monotonicity family).
The first attempt that decides wins; when none does the outcome is
"timeout" (never "proved"), with every attempt listed.
"""

# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false, reportMissingTypeStubs=false, reportUnknownParameterType=false, reportAttributeAccessIssue=false

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import z3

from vyre.conform.smt.lift import IntBits
from vyre.conform.smt.terms import Bits, Unliftable, Z3Bits
from vyre.conform.smt.translate import Untranslatable

__all__ = ["Goal", "Outcome", "decide", "solver_versions"]

Goal = Callable[[Bits, Sequence[Any]], Any]
"""`(B, inputs) -> condition` that must hold for all 32-bit inputs."""

SOLVERS = ("z3", "z3-int", "cvc5")


@dataclass(frozen=True)
class Outcome:
    """`status`: "proved", "counterexample", "timeout" or "error"."""

    status: str
    solver: str
    seconds: float
    values: tuple[int, ...] | None
    attempts: tuple[str, ...]

    @property
    def detail(self) -> str:
        return "; ".join(self.attempts)


@cache
def solver_versions() -> dict[str, str]:
    versions = {"z3": f"z3 {z3.get_version_string()}"}
    try:
        import cvc5  # pyright: ignore[reportMissingImports]

        versions["cvc5"] = f"cvc5 {cvc5.__version__}"
    except ImportError:
        pass
    return versions


def _z3_bv(goal: Goal, arity: int, timeout: float) -> tuple[str, tuple[int, ...] | None, str]:
    B = Z3Bits()
    xs = [z3.BitVec(f"x{j}", 32) for j in range(arity)]
    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout * 1000)))
    solver.add(z3.Not(goal(B, xs)))
    answer = solver.check()
    if answer == z3.unsat:
        return "proved", None, ""
    if answer == z3.sat:
        model = solver.model()
        return "counterexample", tuple(model.eval(x, model_completion=True).as_long() for x in xs), ""
    return "timeout", None, solver.reason_unknown()


def _z3_int(goal: Goal, arity: int, timeout: float) -> tuple[str, tuple[int, ...] | None, str]:
    B = IntBits()
    xs = [B.variable(f"x{j}") for j in range(arity)]
    condition = goal(B, xs)
    solver = z3.SolverFor("QF_NIA")
    solver.set("timeout", max(1, int(timeout * 1000)))
    solver.add(*B.constraints)
    solver.add(z3.Not(condition))
    answer = solver.check()
    if answer == z3.unsat:
        return "proved", None, ""
    if answer == z3.sat:
        model = solver.model()
        return "counterexample", tuple(model.eval(x.term, model_completion=True).as_long() for x in xs), ""
    return "timeout", None, solver.reason_unknown()


_VALUE = re.compile(r"\(x(\d+) #b([01]+)\)")


def _cvc5(goal: Goal, arity: int, timeout: float) -> tuple[str, tuple[int, ...] | None, str]:
    import cvc5  # pyright: ignore[reportMissingImports]

    B = Z3Bits()
    xs = [z3.BitVec(f"x{j}", 32) for j in range(arity)]
    query = z3.Solver()
    query.add(z3.Not(goal(B, xs)))
    text = "(set-logic QF_BV)\n" + query.to_smt2()
    if arity:
        text += "\n(get-value (" + " ".join(f"x{j}" for j in range(arity)) + "))\n"
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("produce-models", "true")
    solver.setOption("tlimit-per", str(max(1, int(timeout * 1000))))
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "vyre")
    symbols = parser.getSymbolManager()
    answer = ""
    values: dict[int, int] = {}
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        out = str(command.invoke(solver, symbols)).strip()
        if out in ("sat", "unsat", "unknown"):
            answer = out
            if out != "sat":
                break
        for index, bits in _VALUE.findall(out):
            values[int(index)] = int(bits, 2)
    if answer == "unsat":
        return "proved", None, ""
    if answer == "sat" and len(values) == arity:
        return "counterexample", tuple(values[j] for j in range(arity)), ""
    return "timeout", None, answer or "no answer"


def _guarded(
    attempt: Callable[[Goal, int, float], tuple[str, tuple[int, ...] | None, str]],
    goal: Goal,
    arity: int,
    timeout: float,
) -> tuple[str, tuple[int, ...] | None, str]:
    """Run an attempt in a forked child, killed when it overruns its limit (z3's
    nonlinear solver and cvc5 do not always honour their own limits)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)

    def child() -> None:
        try:
            writer.send(attempt(goal, arity, timeout))
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            writer.send(("error", None, f"{type(error).__name__}: {error}"))

    process = context.Process(target=child, daemon=True)
    process.start()
    writer.close()
    try:
        if reader.poll(timeout * 1.5 + 2.0):
            status, values, why = reader.recv()
            if status == "error":
                raise _ChildError(why)
            return status, values, why
        return "timeout", None, "killed at the limit"
    except EOFError:
        return "timeout", None, "the solver process died"
    finally:
        if process.is_alive():
            process.kill()
        process.join(5)
        reader.close()


class _ChildError(RuntimeError):
    pass


_ATTEMPTS: dict[str, Callable[[Goal, int, float], tuple[str, tuple[int, ...] | None, str]]] = {
    "z3": _z3_bv,
    "z3-int": _z3_int,
    "cvc5": _cvc5,
}


def _probe_liftable(name: str, goal: Goal, arity: int) -> None:
    """Build the lifted goal in this process so that an unliftable goal is
    reported as such (and an untranslatable one as an error) without a fork."""
    if name == "z3-int":
        B = IntBits()
        goal(B, [B.variable(f"x{j}") for j in range(arity)])


def decide(goal: Goal, arity: int, timeout: float, solvers: Sequence[str] = SOLVERS) -> Outcome:
    """Prove `goal` for all inputs, or find a counterexample, within `timeout`
    seconds per attempt."""
    versions = solver_versions()
    attempts: list[str] = []
    started = time.perf_counter()
    for name in solvers:
        base = name.split("-")[0]
        if base not in versions:
            attempts.append(f"{name}: not installed")
            continue
        label = versions[base] + (" (integer lifting, QF_NIA)" if name == "z3-int" else " (QF_BV)")
        t0 = time.perf_counter()
        try:
            if name == "z3":
                status, values, why = _z3_bv(goal, arity, timeout)
            else:
                _probe_liftable(name, goal, arity)
                status, values, why = _guarded(_ATTEMPTS[name], goal, arity, timeout)
        except Unliftable as error:
            attempts.append(f"{label}: not liftable ({error})")
            continue
        except _ChildError as error:
            attempts.append(f"{label}: failed ({error})")
            continue
        except Untranslatable as error:
            return Outcome("error", label, time.perf_counter() - started, None, (f"not translatable: {error}",))
        spent = time.perf_counter() - t0
        del why, spent  # timings vary run to run: the certificate's content must not
        if status == "timeout":
            attempts.append(f"{label}: no answer within the {timeout:g} s limit")
            continue
        attempts.append(f"{label}: {status}")
        return Outcome(status, label, time.perf_counter() - started, values, tuple(attempts))
    return Outcome("timeout", "", time.perf_counter() - started, None, tuple(attempts))
