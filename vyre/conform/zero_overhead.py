"""The WGSL half of admission gate 3 (zero overhead), checked by vyre-conform.

`vyre.ops.register` checks the half of gate 3 that needs no compiler: the
composition is a pure expression DAG that is valid where its call stands. This
half needs the pipeline and the lowering, which sit above the op library, so it
runs here, for every Category A op a certificate covers (check
`zero-overhead`): the op called from a one-line kernel, prepared and lowered to
WGSL, must hold no loop, no op id and no helper function beyond those that
hand-written code over the same buffers needs. The soft-float routines of a
float operation (one WGSL function per operation and format, float-strict) are
the operation itself: hand-written code using it calls the same functions, and
the functions they call (the accessors of their constant tables) with them.
"""

from __future__ import annotations

import re

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.ops.spec import OpSignature, OpSpec
from vyre.dialects import vyre as d
from vyre.pipeline import lower_to_wgsl, prepare
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS

__all__ = ["problems", "witness_program"]

_WGSL_LOOP = re.compile(r"\b(loop|for|while)\b")
_WGSL_FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def witness_program(spec: OpSpec) -> Program:
    """`out[i] = <op>(in0[i], in1[i], ...)`: the program that exercises one op."""
    inputs = [BufferDecl.read(f"in{i}", i, t) for i, t in enumerate(spec.signature.inputs)]
    out = BufferDecl.read_write("out", len(inputs), spec.signature.output)
    index = E.gid_x()
    args = [E.load(decl.name, index) for decl in inputs]
    return Program(
        buffers=[*inputs, out],
        workgroup_size=(64, 1, 1),
        entry=[Node.store("out", index, E.call(spec.id, args, spec.signature.output))],
    )


def problems(spec: OpSpec) -> list[str]:
    """What the lowered WGSL of `spec` has that hand-written code would not
    ([] for a Category C op, whose call maps 1:1 to its instruction). A
    composition that does not lower at all is one problem, naming the error."""
    if spec.category != "A":
        return []
    try:
        prepared = prepare(witness_program(spec))
        wgsl = prepared.wgsl.wgsl
    except Exception as error:  # noqa: BLE001 - a user op's failure is reported
        return [f"the composition does not lower to WGSL: {error}"]
    routines = _with_callees(wgsl, set(d.routines_of(d.kernel_of(prepared.strict_module))))
    found: list[str] = []
    if _WGSL_LOOP.search(wgsl):
        found.append("a loop")
    if spec.id in wgsl:
        found.append(f"the op id `{spec.id}`")
    extra = sorted(set(_WGSL_FN.findall(wgsl)) - _baseline_functions(spec.signature) - routines)
    if extra:
        found.append(f"helper function(s) {', '.join(extra)}")
    return found


def _bodies(wgsl: str) -> dict[str, str]:
    """Each WGSL function's body text, by name (braces matched)."""
    bodies: dict[str, str] = {}
    for match in _WGSL_FN.finditer(wgsl):
        start = wgsl.find("{", match.end())
        depth, end = 0, start
        for end in range(start, len(wgsl)):
            depth += {"{": 1, "}": -1}.get(wgsl[end], 0)
            if depth == 0:
                break
        bodies[match.group(1)] = wgsl[start : end + 1]
    return bodies


def _with_callees(wgsl: str, names: set[str]) -> set[str]:
    """`names` and every function of `wgsl` they call, transitively."""
    bodies = _bodies(wgsl)
    found, todo = set(names), list(names)
    while todo:
        body = bodies.get(todo.pop(), "")
        for callee in bodies:
            if callee not in found and re.search(rf"\b{re.escape(callee)}\s*\(", body):
                found.add(callee)
                todo.append(callee)
    return found


_baselines: dict[OpSignature, frozenset[str]] = {}


def _word(value: Expr, dtype: DataType) -> Expr:
    """A loaded value as a u32 word (floats by their bits)."""
    if dtype is DataType.U32:
        return value
    if dtype.is_float:
        return E.bitcast(DataType.U32, value)
    return E.cast(DataType.U32, value)


def _baseline_functions(signature: OpSignature) -> frozenset[str]:
    """The functions the lowering emits for hand-written code over the same
    buffers that uses every BinOp and UnOp, a Select and casts: the helpers a
    composition may legitimately reach."""
    baseline = _baselines.get(signature)
    if baseline is not None:
        return baseline
    inputs = [BufferDecl.read(f"in{i}", i, t) for i, t in enumerate(signature.inputs)]
    out = BufferDecl.read_write("out", len(inputs), signature.output)
    value: Expr = E.u32(1)
    for decl in inputs:
        value = E.add(value, _word(E.load(decl.name, E.gid_x()), decl.dtype))
    for kind in INT_BINOPS:
        value = E.binop(kind, value, E.add(E.u32(3), _word(E.load("out", E.gid_x()), out.dtype)))
    for kind in INT_UNOPS:
        value = E.unop(kind, value)
    value = E.select(value, E.cast(DataType.U32, E.cast(DataType.I32, value)), value)
    if signature.output.is_float:
        value = E.bitcast(signature.output, value)
    elif signature.output is not DataType.U32:
        value = E.cast(signature.output, value)
    hand_written = Program(
        buffers=[*inputs, out],
        workgroup_size=(64, 1, 1),
        entry=[Node.store("out", E.gid_x(), value)],
    )
    baseline = frozenset(_WGSL_FN.findall(lower_to_wgsl(hand_written)))
    _baselines[signature] = baseline
    return baseline
