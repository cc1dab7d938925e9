"""The `Fix:` hint of every failure, by check kind (and target) and track.

One function per check kind in a table keyed by `CheckKind`; the kernel and
tensor tracks have their own tables for the checks whose remedy differs for a
pipeline of steps or a lowered tensor graph.
A unit that could not run (check "execution") takes the general hint on every
track.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vyre.conform.kinds import CheckKind, Target, Track

__all__ = ["Finding", "fix_for"]


@dataclass(frozen=True)
class Finding:
    """What a hint is written for: the op, the check, what was judged, the
    law (for law checks), the backend and the failure's detail."""

    op_id: str
    check: str
    target: Target
    law: str | None
    backend: str
    detail: str


Fix = Callable[[Finding], str]


def fix_for(finding: Finding, track: Track) -> str:
    kind = CheckKind.of(finding.check)
    if track is Track.TENSOR and kind in _TENSOR_FIXES:
        return _TENSOR_FIXES[kind](finding)
    if track is Track.KERNEL and kind in _KERNEL_FIXES:
        return _KERNEL_FIXES[kind](finding)
    if track is Track.KERNEL and kind is not CheckKind.EXECUTION:
        return _kernel_determinism(finding)
    return _FIXES.get(kind, _oracle)(finding)


# -- scalar ops -----------------------------------------------------------------------


def _perf(f: Finding) -> str:
    return (
        f"Fix: the lowered kernel of `{f.op_id}` runs below {0.8} of its hand-written WGSL on"
        f" `{f.backend}`: compare the two shaders (vyre-opt -t wgsl) and remove what the lowering adds."
    )


def _invariant(f: Finding) -> str:
    return (
        f"Fix: backend `{f.backend}` breaks the engine invariant {f.check[10:]} on the program shown"
        " (shrunk, vyre text): find the lowering or runtime step that loses, repeats, reorders"
        " or races on its memory, and compare with the reference interpreter."
    )


def _composition(f: Finding) -> str:
    if f.target is not Target.PROOF:
        return _oracle(f)
    return (
        f"Fix: the composition of `{f.op_id}` differs from its reference for some input (an SMT"
        " counterexample, replayed and shrunk): correct the composition, or the reference."
    )


def _execution(f: Finding) -> str:
    return (
        f"Fix: make backend `{f.backend}` run `{f.op_id}` (or declare it Category C without"
        f" `{f.backend}` in its backends); the error was: {f.detail}"
    )


def _law(f: Finding) -> str:
    if f.target is Target.PROOF:
        return (
            f"Fix: the declared law {f.law} of `{f.op_id}` is false for some input (an SMT counterexample,"
            " replayed through the CPU references and shrunk): remove the law, or correct the reference."
        )
    if f.target is Target.REFERENCE:
        return (
            f"Fix: the CPU reference of `{f.op_id}` violates its declared law {f.law}: remove the"
            " law from the spec if it does not hold, or correct the reference."
        )
    return (
        f"Fix: `{f.op_id}` evaluated on `{f.backend}` violates {f.law} although it is declared:"
        " correct the op's composition (or the backend's lowering of the ops it uses)."
    )


def _reference(f: Finding) -> str:
    return (
        f"Fix: the composition of `{f.op_id}` disagrees with its CPU reference on `{f.backend}`:"
        " correct the composition (or the reference, if it is the one that is wrong)."
    )


def _parity(f: Finding) -> str:
    return (
        f"Fix: `{f.backend}` and the reference interpreter disagree on `{f.op_id}`: check the"
        " lowering of the ops in its composition on this backend."
    )


def _zero_overhead(f: Finding) -> str:
    return (
        f"Fix: build `{f.op_id}` from straight-line vyre expressions: its inlined, lowered"
        " form must cost what hand-written code costs (admission gate 3)."
    )


def _determinism(f: Finding) -> str:
    return (
        f"Fix: `{f.backend}` returned different bytes for the same input of `{f.op_id}`: look"
        " for races, uninitialised memory or unordered reductions in the lowering."
    )


def _oracle(f: Finding) -> str:
    return (
        f"Fix: `{f.op_id}` on `{f.backend}` disagrees with the independent oracle: correct the"
        " composition, or the oracle."
    )


_FIXES: dict[CheckKind, Fix] = {
    CheckKind.PERF: _perf,
    CheckKind.INVARIANT: _invariant,
    CheckKind.COMPOSITION: _composition,
    CheckKind.EXECUTION: _execution,
    CheckKind.LAW: _law,
    CheckKind.REFERENCE: _reference,
    CheckKind.PARITY: _parity,
    CheckKind.ZERO_OVERHEAD: _zero_overhead,
    CheckKind.DETERMINISM: _determinism,
    CheckKind.ORACLE: _oracle,
}


# -- kernel ops ------------------------------------------------------------------------


def _kernel_law(f: Finding) -> str:
    if f.target is Target.REFERENCE:
        return (
            f"Fix: the CPU reference of `{f.op_id}` violates its declared law {f.law}: remove the law"
            " if it does not hold, or correct the reference."
        )
    return (
        f"Fix: the kernel pipeline of `{f.op_id}` on `{f.backend}` violates {f.law}: correct the"
        " step programs or the plan (dispatch sizes, scratch, tile boundaries) for this length."
    )


def _kernel_reference(f: Finding) -> str:
    return (
        f"Fix: the kernel pipeline of `{f.op_id}` disagrees with its CPU reference on `{f.backend}`"
        " at this length: correct the step programs or the plan (or the reference, if it is wrong)."
    )


def _kernel_parity(f: Finding) -> str:
    return (
        f"Fix: `{f.backend}` and the reference interpreter disagree on the pipeline of `{f.op_id}`:"
        " check the lowering of its step programs on this backend."
    )


def _kernel_determinism(f: Finding) -> str:
    return (
        f"Fix: `{f.backend}` returned different bytes for the same input of `{f.op_id}`: look for"
        " races, unzeroed workgroup or scratch memory, or unordered atomics in its steps."
    )


_KERNEL_FIXES: dict[CheckKind, Fix] = {
    CheckKind.LAW: _kernel_law,
    CheckKind.REFERENCE: _kernel_reference,
    CheckKind.PARITY: _kernel_parity,
}


# -- tensor graphs ---------------------------------------------------------------------


def _tensor_reference(f: Finding) -> str:
    return (
        f"Fix: the kernels `lower-tensors` makes for `{f.op_id}` disagree with the independent reference"
        f" on `{f.backend}` for the graph and inputs shown: compare the op's kernels (vt.kernels) with"
        " its definition in docs/tensors.md, operation by operation (or correct the reference)."
    )


def _tensor_parity(f: Finding) -> str:
    return (
        f"Fix: `{f.backend}` and the reference interpreter disagree on the kernels of `{f.op_id}`:"
        " check the lowering of those kernels (float-strict, WGSL) on this backend."
    )


def _tensor_determinism(f: Finding) -> str:
    return (
        f"Fix: `{f.backend}` returned different bytes for the same inputs of `{f.op_id}`: look for"
        " races on workgroup or scratch memory (a missing barrier) in its kernels."
    )


_TENSOR_FIXES: dict[CheckKind, Fix] = {
    CheckKind.REFERENCE: _tensor_reference,
    CheckKind.PARITY: _tensor_parity,
    CheckKind.DETERMINISM: _tensor_determinism,
}
