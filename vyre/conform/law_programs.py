"""The law-checking programs: vyre programs that exercise an expression op on a backend.

All three are ordinary vyre IR that call the op with `E.call`, so the op goes
through inline-calls and the lowering like in any user program. Invocation `i`
(`i = id.y * ROW + id.x`) handles lane `i`; lanes at or past the lane count do
nothing.

- `law_program`: evaluates every given law of an op at lane `i` and, where one
  is violated, atomically counts it and keeps the smallest violating index: the
  comparison happens on the device and only two words per law come back
  (readback, not the kernel, is the bottleneck of GPU proof work). The
  variables come from buffers `x0..` (witnessed) or from the index itself
  (exhaustive: `params = [base, n]`, variable j = ((base+i) >> bits*(k-1-j)) & mask).
- `match_program`: counts lanes where `op(x0[i], ...) != expected[i]`.
- `eval_program`: stores `op(x0[i], ...)` in `out[i]`.
"""

from __future__ import annotations

from collections.abc import Sequence

from vyre.conform.algebra import IRAlgebra, violation_ir, word_call
from vyre.conform.float_relations import law_relations_of
from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.ops import laws as L

__all__ = [
    "ROW",
    "WORKGROUP",
    "dispatch_for",
    "eval_program",
    "law_program",
    "match_program",
]

WORKGROUP = 64
ROW_GROUPS = 16_384
ROW = ROW_GROUPS * WORKGROUP
"""Lanes per row of the dispatch grid (one chunk of 2**20 witnesses is one row)."""

NO_INDEX = 0xFFFF_FFFF


def dispatch_for(lanes: int) -> tuple[int, int, int]:
    groups = max(1, -(-lanes // WORKGROUP))
    x = min(groups, ROW_GROUPS)
    return (x, -(-groups // x), 1)


def _lane() -> Expr:
    return E.add(E.mul(E.invocation_id(1), E.u32(ROW)), E.invocation_id(0))


def _inputs(count: int) -> list[BufferDecl]:
    return [BufferDecl.read(f"x{j}", j, DataType.U32) for j in range(count)]


def _record(slot: int, index: Expr) -> list[Node]:
    return [
        Node.let(f"_n{slot}", E.atomic(AtomicOp.ADD, "res", E.u32(2 * slot), E.u32(1))),
        Node.let(f"_i{slot}", E.atomic(AtomicOp.MIN, "res", E.u32(2 * slot + 1), index)),
    ]


def law_program(
    op_id: str, laws: Sequence[L.Law], k: int, *, exhaustive_bits: int | None = None
) -> Program:
    """Fused check of `laws` (each using the first variables of a, b, c) of op
    `op_id`; `res[2j]` counts violations of law j, `res[2j+1]` keeps the smallest
    violating index (global for exhaustive domains, lane for witnessed ones)."""
    names = ["a", "b", "c"][:k]
    alg = IRAlgebra()
    body: list[Node] = []
    if exhaustive_bits is None:
        buffers = _inputs(k)
        count = E.buf_len("x0")
        index = E.var("i")
        for j, name in enumerate(names):
            body.append(Node.let(name, E.load(f"x{j}", E.var("i"))))
    else:
        buffers = [BufferDecl.read("params", 0, DataType.U32)]
        count = E.load("params", E.u32(1))
        body.append(Node.let("g", E.add(E.load("params", E.u32(0)), E.var("i"))))
        index = E.var("g")
        mask = E.u32((1 << exhaustive_bits) - 1)
        for j, name in enumerate(names):
            shift = exhaustive_bits * (k - 1 - j)
            body.append(Node.let(name, E.bitand(E.shr(E.var("g"), E.u32(shift)), mask)))
    variables = [E.var(n) for n in names]
    checks: list[Node] = []
    for slot, law in enumerate(laws):
        relations = law_relations_of(law, op_id, alg, variables)
        checks.append(Node.if_(violation_ir(relations), _record(slot, index)))
    body.extend(alg.statements)
    body.extend(checks)
    buffers.append(BufferDecl.read_write("res", len(buffers), DataType.U32))
    return Program(
        buffers=buffers,
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[Node.let("i", _lane()), Node.if_(E.lt(E.var("i"), count), body)],
        name="conform_laws",
    )


def match_program(op_id: str, arity: int) -> Program:
    """`res = [count, first]` of lanes where `op(x..[i]) != expected[i]`."""
    buffers = _inputs(arity)
    buffers.append(BufferDecl.read("expected", arity, DataType.U32))
    buffers.append(BufferDecl.read_write("res", arity + 1, DataType.U32))
    i = E.var("i")
    value = word_call(op_id, [E.load(f"x{j}", i) for j in range(arity)])
    body = [
        Node.let("v", value),
        Node.if_(E.ne(E.var("v"), E.load("expected", i)), _record(0, i)),
    ]
    return Program(
        buffers=buffers,
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[Node.let("i", _lane()), Node.if_(E.lt(i, E.buf_len("expected")), body)],
        name="conform_match",
    )


def eval_program(op_id: str, arity: int) -> Program:
    """`out[i] = op(x0[i], ...)`."""
    buffers = _inputs(arity)
    buffers.append(BufferDecl.read_write("out", arity, DataType.U32))
    i = E.var("i")
    value = word_call(op_id, [E.load(f"x{j}", i) for j in range(arity)])
    return Program(
        buffers=buffers,
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[
            Node.let("i", _lane()),
            Node.if_(E.lt(i, E.buf_len("out")), [Node.store("out", i, value)]),
        ],
        name="conform_eval",
    )
