"""L3: engine invariants over generated programs; each check catches a broken engine."""

from __future__ import annotations

import numpy as np
import pytest

from vyre import conform
from vyre.conform import InterpBackend
from vyre.conform.invariants import INVARIANTS, InvariantChecker
from vyre.conform.results import Result
from vyre.ir import Program


def _check(backend, name: str, programs: int = 6) -> Result:
    return InvariantChecker(backend, 11).check_chunk(name, 0, programs)[0]


class LosingInterp(InterpBackend):
    """Drops the last store of every read_write buffer longer than one word."""

    def run(self, program, words, dispatch):
        out = super().run(program, words, dispatch)
        return {k: (np.concatenate([v[:-1], np.zeros(1, v.dtype)]) if len(v) > 1 else v) for k, v in out.items()}


class TwiceInterp(InterpBackend):
    """Runs every dispatch twice (a duplicated submission)."""

    def run(self, program, words, dispatch):
        first = super().run(program, words, dispatch)
        return super().run(program, {**words, **first}, dispatch)


class FlakyInterp(InterpBackend):
    def __init__(self) -> None:
        self.calls = 0

    def run(self, program, words, dispatch):
        self.calls += 1
        out = super().run(program, words, dispatch)
        if self.calls % 2 == 0:
            out = {k: v ^ np.uint32(1) for k, v in out.items()}
        return out


class ScheduleDependentInterp(InterpBackend):
    def run_scheduled(self, program, words, dispatch):
        out = super().run_scheduled(program, words, dispatch)
        return {k: v + np.uint32(1) for k, v in out.items()}


class ClampingInterp(InterpBackend):
    """Out-of-bounds stores land on the last element (as workgroup arrays clamp)."""

    def run(self, program, words, dispatch):
        out = super().run(program, words, dispatch)
        if "guard" in out:
            out["guard"] = out["guard"].copy()
            out["guard"][-1] = 0xDEAD
        return out


class DoubleWinnerInterp(InterpBackend):
    def run(self, program, words, dispatch):
        out = super().run(program, words, dispatch)
        if "pre_cas" in out and len(out["pre_cas"]) > 1:
            out["pre_cas"] = out["pre_cas"].copy()
            out["pre_cas"][:2] = 0
        return out


def _rewritten(program, edit):
    from vyre.pipeline import Prepared

    module = program.module.clone()
    edit(module.body.block.first_op)
    return Prepared(module, None)


class ReorderingInterp(InterpBackend):
    """Moves an invocation's first store after its last one (a reordering bug)."""

    def run(self, program, words, dispatch):
        from vyre.dialects import vyre as d

        def edit(kernel):
            stores = [op for op in kernel.entry.ops if isinstance(op, d.StoreOp)]
            if len(stores) >= 2:
                stores[0].detach()
                kernel.entry.insert_op_after(stores[0], stores[-1])

        return super().run(_rewritten(program, edit), words, dispatch)


class CappedLoopsInterp(InterpBackend):
    """Stops every loop after 64 iterations (as llvmpipe stops long loops silently)."""

    def run(self, program, words, dispatch):
        from vyre.dialects import vyre as d

        def edit(kernel):
            for loop in [op for op in kernel.walk() if isinstance(op, d.LoopOp)]:
                cap = d.LitU32Op(64)
                loop.parent_block().insert_op_before(cap, loop)
                less = d.BinOp("lt", loop.upper, cap.res)
                loop.parent_block().insert_op_before(less, loop)
                pick = d.SelectOp(less.res, loop.upper, cap.res)
                loop.parent_block().insert_op_before(pick, loop)
                loop.operands[1] = pick.res

        return super().run(_rewritten(program, edit), words, dispatch)


def test_every_check_passes_on_the_interpreter() -> None:
    backend = InterpBackend()
    for name in INVARIANTS:
        assert _check(backend, name).violations == 0, name


@pytest.mark.parametrize("backend, name, words", [
    (LosingInterp(), "NoOutputLost", "stores lost"),
    (TwiceInterp(), "NoDuplicate", "not 1"),
    (FlakyInterp(), "Deterministic", "second run differs"),
    (FlakyInterp(), "DataRace", "repeated dispatches differ"),
    (ScheduleDependentInterp(), "WorkgroupInvariant", "schedule differs"),
    (ClampingInterp(), "Bounded", "guard"),
    (DoubleWinnerInterp(), "AtomicLinearizable", "compare-exchange succeeded 2 times"),
    (ReorderingInterp(), "Ordered", "program order"),
    (CappedLoopsInterp(), "Termination", "iterations"),
])
def test_a_broken_engine_is_caught(backend, name: str, words: str) -> None:
    found = _check(backend, name)
    assert found.violations == 1, name
    assert words in found.detail, found.detail[:400]
    assert "vyre.kernel" in found.detail  # the counterexample program, as vyre text


def test_wire_equivalence_catches_a_lossy_decoder(monkeypatch) -> None:
    original = Program.from_wire.__func__

    def lossy(cls, blob):
        program = original(cls, blob)
        from vyre.testing.reduce import _statements

        statements = _statements(program)
        if statements:
            statements[-1].detach()
            statements[-1].erase(safe_erase=False)
        return program

    monkeypatch.setattr(Program, "from_wire", classmethod(lossy))
    found = _check(InterpBackend(), "WireEquivalence", programs=3)
    assert found.violations == 1 and "decoded program" in found.detail


def test_generated_counterexamples_are_shrunk() -> None:
    class DropAll(InterpBackend):
        """Every read_write word comes back zero on the second run."""

        def __init__(self) -> None:
            self.calls = 0

        def run(self, program, words, dispatch):
            self.calls += 1
            out = super().run(program, words, dispatch)
            return {k: v * np.uint32(self.calls % 2) for k, v in out.items()}

    checker = InvariantChecker(DropAll(), 3)
    generated = checker.generated(1)
    found = checker.check_chunk("Deterministic", 0, 2)[0]
    assert found.violations == 1
    shown = found.detail.split("\n", 1)[1]
    from vyre.ir import print_ir

    assert shown.count("\n") < print_ir(generated.program).count("\n")


def test_certify_level_l3_on_both_backends() -> None:
    for backend in ("interp", "wgpu"):
        cert = conform.certify(backend=backend, ops=["primitive.bitwise.not"], strength="fast",
                               witnesses=200, corpus=None, level="L3", checks=["laws", "reference", "parity", "determinism"])
        assert cert.level == "L3", [str(f) for f in cert.failures]
        names = sorted(o.check for o in cert.obligations if o.op_id == "engine")
        assert names == sorted(f"invariant:{n}" for n in INVARIANTS)
        assert all(o.strength == "witnessed" and o.holds for o in cert.obligations if o.op_id == "engine")


def test_certify_level_l3_fails_on_a_broken_engine() -> None:
    cert = conform.certify(backend=TwiceInterp(), ops=["primitive.bitwise.not"], strength="fast",
                           witnesses=200, corpus=None, level="L3", checks=["laws", "reference", "parity", "determinism"])
    assert cert.level == "L2"
    failed = {f.check for f in cert.failures if f.op_id == "engine"}
    assert "invariant:NoDuplicate" in failed
    assert any(not o.holds for o in cert.obligations if o.check == "invariant:NoDuplicate")
