"""L3: the engine invariants (docs/conform.md), wire equivalence (I4) and the data-race
detector, checked over generated programs on the backend under certification.

Each check is a property of whole programs, judged on the backend's bytes:

| check | what must hold |
|---|---|
| Deterministic | the same program and inputs give the same bytes, run after run |
| NoOutputLost | every store the spec defines lands: a tagged scatter is complete, and generated programs equal the reference interpreter |
| NoDuplicate | an operation runs once per invocation: per-invocation atomic counters end at exactly 1, a shared one at the invocation count |
| Ordered | one invocation's statements take effect in program order (a chain of dependent stores and loads of one slot) |
| Bounded | out-of-bounds loads give 0, out-of-bounds stores and atomics change nothing, in-bounds neighbours stay intact |
| Termination | every generated program and a counted loop finish, with the loop's exact count |
| AtomicLinearizable | the observable properties of linearizable atomics: atomic add pre-values are a permutation of 0..n-1 and the total is n; one compare-exchange winner; exchange pre-values form a chain ending in the final value; min/max reach the extreme |
| WorkgroupInvariant | the bytes do not depend on how workgroups are scheduled (the interpreter in reversed lane order, wgpu with the dispatch split one workgroup per row) |
| WireEquivalence (I4) | `Program.from_wire(p.to_wire())` prints as `p` and gives the same bytes |
| DataRace | generated programs with workgroup memory, barriers and atomics give identical bytes over repeated dispatches, and the interpreter's |

Generated programs come from `vyre.testing.random_programs` (race-free by
construction, so any divergence is the engine's). A failing generated program
is shrunk with `vyre.testing.reduce` and reported as vyre text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vyre.conform.backends import ConformBackend, InterpBackend
from vyre.conform.kinds import CheckKind, Target
from vyre.conform.results import Result
from vyre.conform.results import result as _result
from vyre.ir import AtomicOp, BufferDecl, DataType, Program, print_ir
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.pipeline import prepare

__all__ = ["INVARIANTS", "InvariantChecker", "programs_per_chunk"]

INVARIANTS = (
    "Deterministic",
    "NoOutputLost",
    "NoDuplicate",
    "Ordered",
    "Bounded",
    "Termination",
    "AtomicLinearizable",
    "WorkgroupInvariant",
    "WireEquivalence",
    "DataRace",
)
"""The L3 checks, in report order (`invariant:<Name>` obligations)."""

Words = dict[str, np.ndarray]


def programs_per_chunk(strength_name: str) -> tuple[int, int]:
    """(chunks, programs per chunk) of each check at a strength."""
    return {"fast": (1, 6), "standard": (4, 16), "legendary": (16, 32)}.get(strength_name, (1, 6))


@dataclass(frozen=True)
class Case:
    """A program, its input words and dispatch; `expect` judges the outputs
    (None: fine; else what is wrong)."""

    label: str
    program: Program
    words: Words
    dispatch: tuple[int, int, int]
    expect: Callable[[Words], str | None] | None = None


def _same(a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray]) -> str | None:
    if sorted(a) != sorted(b):
        return f"different buffers: {sorted(a)} vs {sorted(b)}"
    for name in sorted(a):
        x = np.asarray(a[name], dtype=np.uint32).reshape(-1)
        y = np.asarray(b[name], dtype=np.uint32).reshape(-1)
        if x.shape != y.shape:
            return f"`{name}` has {len(x)} words vs {len(y)}"
        bad = np.flatnonzero(x != y)
        if len(bad):
            i = int(bad[0])
            return f"`{name}`[{i}] = {int(x[i]):#x} vs {int(y[i]):#x} ({len(bad)} words differ)"
    return None


def _wg() -> int:
    return 64


# ---------------------------------------------------------------------------
# Targeted programs
# ---------------------------------------------------------------------------


def _scatter(n: int, rng: np.random.Generator) -> Case:
    salt = int(rng.integers(1, 1 << 31))
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(_wg(), 1, 1),
        entry=[N.let("g", E.gid_x()),
               N.store("out", E.var("g"), E.add(E.bitxor(E.var("g"), E.u32(salt)), E.u32(1)))],
        name="inv_scatter",
    )
    want = ((np.arange(n, dtype=np.uint64) ^ salt) + 1).astype(np.uint32)

    def expect(out: Words) -> str | None:
        got = out["out"]
        bad = np.flatnonzero(got != want)
        return None if not len(bad) else f"slot {int(bad[0])} holds {int(got[bad[0]]):#x}, its store wrote {int(want[bad[0]]):#x} ({len(bad)} stores lost)"

    return Case(f"tagged scatter of {n} stores", program, {"out": np.zeros(n, np.uint32)},
                (-(-n // _wg()), 1, 1), expect)


def _counters(n: int, rng: np.random.Generator) -> Case:
    del rng
    program = Program(
        buffers=[BufferDecl.read_write("cnt", 0, DataType.U32), BufferDecl.read_write("total", 1, DataType.U32)],
        workgroup_size=(_wg(), 1, 1),
        entry=[N.let("g", E.gid_x()),
               N.if_(E.lt(E.var("g"), E.u32(n)), [
                   N.let("a", E.atomic(AtomicOp.ADD, "cnt", E.var("g"), E.u32(1))),
                   N.let("b", E.atomic(AtomicOp.ADD, "total", E.u32(0), E.u32(1))),
               ])],
        name="inv_counters",
    )

    def expect(out: Words) -> str | None:
        cnt, total = out["cnt"], int(out["total"][0])
        bad = np.flatnonzero(cnt != 1)
        if len(bad):
            return f"invocation {int(bad[0])}'s counter is {int(cnt[bad[0]])}, not 1"
        return None if total == n else f"the shared counter is {total}, not {n}"

    return Case(f"{n} once-only atomic increments", program,
                {"cnt": np.zeros(n, np.uint32), "total": np.zeros(1, np.uint32)}, (-(-n // _wg()), 1, 1), expect)


def _ordered(n: int, rng: np.random.Generator) -> Case:
    steps = int(rng.integers(3, 9))
    body: list[N] = [N.let("g", E.gid_x()), N.store("out", E.var("g"), E.add(E.var("g"), E.u32(7)))]
    for k in range(steps):
        previous = E.load("out", E.var("g"))
        body.append(N.store("out", E.var("g"), E.add(E.mul(previous, E.u32(3)), E.u32(k))))
    body.append(N.loop("i", E.u32(0), E.u32(4), [
        N.store("out", E.var("g"), E.bitxor(E.load("out", E.var("g")), E.shl(E.var("i"), E.u32(3))))]))
    program = Program(buffers=[BufferDecl.read_write("out", 0, DataType.U32)], workgroup_size=(_wg(), 1, 1),
                      entry=body, name="inv_ordered")
    want = np.arange(n, dtype=np.uint64) + 7
    for k in range(steps):
        want = (want * 3 + k) & 0xFFFF_FFFF
    for i in range(4):
        want ^= i << 3

    def expect(out: Words) -> str | None:
        bad = np.flatnonzero(out["out"] != want.astype(np.uint32))
        return None if not len(bad) else f"slot {int(bad[0])}: {int(out['out'][bad[0]]):#x}, program order gives {int(want[bad[0]]):#x}"

    return Case(f"{steps}-step dependent store chains", program, {"out": np.zeros(n, np.uint32)},
                (-(-n // _wg()), 1, 1), expect)


def _bounded(n: int, rng: np.random.Generator) -> Case:
    src = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    guard = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    program = Program(
        buffers=[BufferDecl.read("src", 0, DataType.U32), BufferDecl.read_write("guard", 1, DataType.U32),
                 BufferDecl.read_write("out", 2, DataType.U32)],
        workgroup_size=(_wg(), 1, 1),
        entry=[N.let("g", E.gid_x()),
               N.let("far", E.add(E.buf_len("guard"), E.var("g"))),
               N.store("guard", E.var("far"), E.u32(0xDEAD)),
               N.let("r", E.atomic(AtomicOp.ADD, "guard", E.add(E.var("far"), E.u32(1)), E.u32(5))),
               N.store("out", E.var("g"), E.add(E.load("src", E.add(E.buf_len("src"), E.var("g"))), E.var("r")))],
        name="inv_bounded",
    )

    def expect(out: Words) -> str | None:
        if not np.array_equal(out["guard"], guard):
            i = int(np.flatnonzero(out["guard"] != guard)[0])
            return f"an out-of-bounds store or atomic changed guard[{i}]"
        got = out["out"][:n]
        bad = np.flatnonzero(got != 0)
        return None if not len(bad) else f"an out-of-bounds load or atomic returned {int(got[bad[0]]):#x}, not 0"

    return Case("out-of-bounds loads, stores and atomics", program,
                {"src": src, "guard": guard.copy(), "out": np.full(n, 0xFFFF_FFFF, np.uint32)},
                (-(-n // _wg()), 1, 1), expect)


def _loop(n: int, rng: np.random.Generator) -> Case:
    trips = int(rng.integers(100, 1500))
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)], workgroup_size=(_wg(), 1, 1),
        entry=[N.let("g", E.gid_x()), N.let("s", E.var("g")),
               N.loop("i", E.u32(0), E.u32(trips), [N.assign("s", E.add(E.var("s"), E.u32(1)))]),
               N.store("out", E.var("g"), E.var("s"))],
        name="inv_loop",
    )
    want = np.arange(n, dtype=np.uint32) + trips

    def expect(out: Words) -> str | None:
        bad = np.flatnonzero(out["out"] != want)
        return None if not len(bad) else f"invocation {int(bad[0])} counted {int(out['out'][bad[0]]) - int(bad[0])} of {trips} iterations"

    return Case(f"a counted loop of {trips} iterations", program, {"out": np.zeros(n, np.uint32)},
                (-(-n // _wg()), 1, 1), expect)


def _atomics(n: int, rng: np.random.Generator) -> Case:
    del rng
    program = Program(
        buffers=[BufferDecl.read_write("acc", 0, DataType.U32), BufferDecl.read_write("pre_add", 1, DataType.U32),
                 BufferDecl.read_write("pre_cas", 2, DataType.U32), BufferDecl.read_write("pre_xchg", 3, DataType.U32)],
        workgroup_size=(_wg(), 1, 1),
        entry=[N.let("g", E.gid_x()),
               N.if_(E.lt(E.var("g"), E.u32(n)), [
                   N.store("pre_add", E.var("g"), E.atomic(AtomicOp.ADD, "acc", E.u32(0), E.u32(1))),
                   N.store("pre_cas", E.var("g"), E.atomic(AtomicOp.COMPARE_EXCHANGE, "acc", E.u32(1),
                                                           E.add(E.var("g"), E.u32(1)), expected=E.u32(0))),
                   N.store("pre_xchg", E.var("g"), E.atomic(AtomicOp.EXCHANGE, "acc", E.u32(2), E.add(E.var("g"), E.u32(1)))),
                   N.let("m", E.atomic(AtomicOp.MAX, "acc", E.u32(3), E.mul(E.var("g"), E.u32(7)))),
                   N.let("k", E.atomic(AtomicOp.MIN, "acc", E.u32(4), E.add(E.var("g"), E.u32(10)))),
               ])],
        name="inv_atomics",
    )

    def expect(out: Words) -> str | None:
        acc = out["acc"]
        pre = np.sort(out["pre_add"][:n])
        if not np.array_equal(pre, np.arange(n, dtype=np.uint32)) or int(acc[0]) != n:
            return f"atomic add pre-values are not a permutation of 0..{n - 1} (final {int(acc[0])})"
        wins = np.flatnonzero(out["pre_cas"][:n] == 0)
        if len(wins) != 1 or int(acc[1]) != int(wins[0]) + 1:
            return f"compare-exchange succeeded {len(wins)} times (final {int(acc[1]):#x})"
        chain = out["pre_xchg"][:n]
        values = sorted([int(v) for v in chain] + [int(acc[2])])
        if values != list(range(n + 1)):
            return "exchange pre-values and the final value are not the chain 0, 1..n"
        if int(acc[3]) != 7 * (n - 1) or int(acc[4]) != 10:
            return f"max/min ended at {int(acc[3])}/{int(acc[4])}, not {7 * (n - 1)}/10"
        return None

    return Case(f"linearizable atomics over {n} invocations", program,
                {"acc": np.array([0, 0, 0, 0, 0xFFFF_FFFF], np.uint32),
                 "pre_add": np.zeros(n, np.uint32), "pre_cas": np.zeros(n, np.uint32),
                 "pre_xchg": np.zeros(n, np.uint32)},
                (-(-n // _wg()), 1, 1), expect)


TARGETED: dict[str, Callable[[int, np.random.Generator], Case]] = {
    "NoOutputLost": _scatter,
    "NoDuplicate": _counters,
    "Ordered": _ordered,
    "Bounded": _bounded,
    "Termination": _loop,
    "AtomicLinearizable": _atomics,
}


# ---------------------------------------------------------------------------
# The checker
# ---------------------------------------------------------------------------


class InvariantChecker:
    """Runs one chunk of one check on `backend` (the interpreter is the oracle)."""

    def __init__(self, backend: ConformBackend, seed: int):
        self.backend = backend
        self.seed = seed
        self.interp: ConformBackend = backend if backend.is_reference_interpreter else InterpBackend()

    def run(self, program: Program, words: Mapping[str, np.ndarray], dispatch: tuple[int, int, int],
            backend: ConformBackend | None = None, variant: int = 0) -> Words:
        target = backend or self.backend
        prepared = prepare(program)
        if variant:
            return {k: np.asarray(v, dtype=np.uint32).copy() for k, v in target.run_scheduled(prepared, dict(words), dispatch).items()}
        return {k: np.asarray(v, dtype=np.uint32).copy() for k, v in target.run(prepared, dict(words), dispatch).items()}

    def generated(self, index: int) -> Any:
        from vyre.testing.random_programs import GeneratorConfig, random_case

        config = GeneratorConfig(floats=False, max_workgroups=3, max_workgroup_invocations=16)
        return random_case((self.seed * 1_000_003 + index) & 0x7FFF_FFFF, config)

    # -- one program ----------------------------------------------------------------

    def problem(self, check: str, program: Program, words: Words, dispatch: tuple[int, int, int],
                expect: Callable[[Words], str | None] | None = None) -> str | None:
        """What is wrong with `program` under `check` on the backend (None: nothing)."""
        try:
            out = self.run(program, words, dispatch)
            if expect is not None:
                found = expect(out)
                if found:
                    return found
            if check == "Deterministic":
                return _prefix("a second run differs: ", _same(out, self.run(program, words, dispatch)))
            if check == "DataRace":
                for _ in range(2):
                    again = _same(out, self.run(program, words, dispatch))
                    if again:
                        return "repeated dispatches differ: " + again
                return _prefix("differs from the reference interpreter: ", _same(out, self.run(program, words, dispatch, self.interp)))
            if check == "WorkgroupInvariant":
                return _prefix("another workgroup schedule differs: ", _same(out, self.run(program, words, dispatch, variant=1)))
            if check == "WireEquivalence":
                decoded = Program.from_wire(program.to_wire())
                if print_ir(decoded) != print_ir(program):
                    return "the decoded program prints differently from the original"
                return _prefix("the decoded program gives other bytes: ", _same(out, self.run(decoded, words, dispatch)))
            if expect is None and not self.backend.is_reference_interpreter:
                return _prefix("differs from the reference interpreter: ", _same(out, self.run(program, words, dispatch, self.interp)))
            return None
        except Exception as error:  # noqa: BLE001 - a run that fails is a finding (Termination)
            return f"the run failed: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"

    # -- one chunk ----------------------------------------------------------------------

    def check_chunk(self, check: str, chunk: int, programs: int) -> list[Result]:
        name = CheckKind.INVARIANT.check(check)
        for i in range(programs):
            index = chunk * programs + i
            if check in TARGETED and i % 2 == 0:
                rng = np.random.default_rng([self.seed & 0xFFFF_FFFF, index, len(check)])
                n = int(rng.integers(1, 4 * _wg()))
                case = TARGETED[check](n, rng)
                found = self.problem(check, case.program, case.words, case.dispatch, case.expect)
                if found:
                    return [self._failure(name, programs, index, case.program, f"{case.label}: {found}")]
                continue
            generated = self.generated(index)
            words = {k: np.asarray(v, dtype=np.uint32) for k, v in generated.words.items()}
            found = self.problem(check, generated.program, words, generated.dispatch)
            if found:
                program = self._shrink(check, generated.program, words, generated.dispatch)
                again = self.problem(check, program, words, generated.dispatch) or found
                return [self._failure(name, programs, index, program,
                                      f"generated program (seed {generated.seed}, dispatch {generated.dispatch}): {again}")]
        return [_result(name, Target.BACKEND, "programs", programs, 0)]

    def _shrink(self, check: str, program: Program, words: Words, dispatch: tuple[int, int, int]) -> Program:
        from vyre.testing.reduce import reduce_program

        try:
            return reduce_program(program, lambda p: self.problem(check, p, words, dispatch) is not None, max_checks=200)
        except Exception:  # noqa: BLE001 - shrinking is best effort; the original still fails
            return program

    def _failure(self, name: str, programs: int, index: int, program: Program, what: str) -> Result:
        text = print_ir(program)
        return _result(name, Target.BACKEND, "programs", programs, 1, first=index, counterexample=(index,),
                       raw=(index,), detail=f"{what}\n{text}")


def _prefix(prefix: str, found: str | None) -> str | None:
    return None if found is None else prefix + found
