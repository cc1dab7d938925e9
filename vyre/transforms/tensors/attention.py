"""The kernel of `vtensor.attention`: one workgroup per query row, the whole
composite in one kernel.

For the row of query `i` (at batch position `b`), the workgroup's invocations
take the keys `j = local, local + width, ...` and then the output columns:

1. scores: `s_j = round(q_i . k_j) * c` with `c = 1 / sqrt(f32(d))`, the dot
   product exact (every product exact, the sum in an exact accumulator in
   workgroup memory, rounded once, vyre.transforms.tensors.exact); causal: a
   key `j > i` is not computed, its score is -inf. Each score is written to a
   scratch row `P[b, i, :]` and the row's maximumNumber `m` is reduced in the
   workgroup;
2. `P[b, i, j] = exp(s_j - m)` in place and its exact sum `t`;
3. `P[b, i, j] = P[b, i, j] / t`, then a barrier (the row of P is complete and
   visible to the workgroup);
4. every output column `o[b, i, col] = sum_j P[b, i, j] * v[b, j, col]`, an exact
   dot product rounded once.

Each step is the definition (docs/tensors.md) operation by operation (the matmuls
are exact, so their order does not matter), so the bits are those of the
composition of the separate ops.
"""

from __future__ import annotations

from collections.abc import Callable

from vyre.dialects.symbolic import Sym
from vyre.dialects.tensor_layout import Shape, numel
from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.transforms.tensors import exact as X
from vyre.transforms.tensors.kernel import KernelBuilder, Rep, emit
from vyre.transforms.tensors.reduce import Planned, exact_sum, extreme
from vyre.transforms.tensors.rows import RowKernel, row_width

__all__ = ["ATTENTION_WIDTH", "Attention", "attention_kernel", "exact_dot"]

ATTENTION_WIDTH = 64
"""Invocations per query row at most (each holds a 27-word product accumulator
in workgroup memory)."""
PRODUCT_WORDS = X.PRODUCT_DIGITS + 1
NORMALIZE_EVERY = 32
"""Products between two normalisations of an accumulator."""
F32 = X.FORMATS[DataType.F32]
NEGATIVE_INFINITY = 0xFF80_0000


def exact_dot(b: KernelBuilder, row: X.Row, length: Sym, pair: Callable[[Expr], tuple[Expr, Expr]]) -> Expr:
    """The exact sum of `x * y` over `(x, y) = pair(k)`, k = 0 .. length-1,
    rounded once to F32 (accumulated in `row`, which is cleared first)."""
    X.clear(b, row)
    flags, chunk, kk = b.fresh("fl"), b.fresh("c"), b.fresh("kk")
    b.emit(Node.let(flags, E.u32(0)))
    with b.block() as step:
        k = b.let(E.add(E.mul(E.var(chunk), E.u32(NORMALIZE_EVERY)), E.var(kk)), "kd")
        with b.block() as add:
            x, y = pair(k)
            X.product(b, row, X.decode(b, x, F32), X.decode(b, y, F32), flags)
        b.emit(Node.if_(E.lt(k, b.param(length)), add))
    with b.block() as tail:
        X.normalize(b, row)
    chunks = b.param((length + (NORMALIZE_EVERY - 1)) // NORMALIZE_EVERY)
    b.emit(Node.loop(chunk, E.u32(0), chunks, [Node.loop(kk, E.u32(0), E.u32(NORMALIZE_EVERY), step), *tail]))
    X.flush_flags(b, row, flags)
    return b.let(E.bitcast(DataType.F32, X.round_row(b, row, X.PRODUCT_SCALE, F32)), "dot")


class Attention:
    """One attention to lower: q `(*batch, T, d)`, k `(*batch, S, d)`,
    v `(*batch, S, e)` (already broadcast to the batch dims)."""

    def __init__(self, q: Rep, k: Rep, v: Rep, batch: Shape, dims: tuple[Sym, Sym, Sym, Sym], causal: bool):
        self.q, self.k, self.v = q, k, v
        self.batch = batch
        self.queries, self.keys, self.depth, self.columns = dims
        self.causal = causal


def _scores(rows: RowKernel, att: Attention, acc: str, probs: str) -> Callable[[Expr], Expr]:
    """Step 1 for key `j`: the score, written to the scratch row."""
    b = rows.b
    batch, i = rows.outer[:-1], rows.outer[-1]
    product_row = X.Row(acc, E.mul(rows.local, E.u32(PRODUCT_WORDS)), X.PRODUCT_DIGITS)
    scale = b.let(E.fdiv(E.f32(1.0), E.fsqrt(E.cast(DataType.F32, b.param(att.depth)))), "scale")

    def score(j: Expr) -> Expr:
        value = b.fresh("s")
        b.emit(Node.let(value, E.float_bits(DataType.F32, NEGATIVE_INFINITY)))
        with b.block() as compute:

            def pair(kd: Expr) -> tuple[Expr, Expr]:
                return emit(b, att.q, [*batch, i, kd]), emit(b, att.k, [*batch, j, kd])

            dot = exact_dot(b, product_row, att.depth, pair)
            b.emit(Node.assign(value, E.fmul(dot, scale)))
        b.emit(Node.if_(E.le(j, i), compute) if att.causal else Node.block(compute))
        b.emit(Node.store(probs, rows.flat(j), E.var(value)))
        return E.var(value)

    return score


def attention_kernel(name: str, att: Attention, out: str, scratch: Callable[[DataType, Sym], str]) -> Planned:
    """The one kernel of an attention (see the module doc), its result in
    buffer `out` (contiguous `(*batch, T, e)`); `scratch` names a new buffer."""
    shape = (*att.batch, att.queries, att.keys)
    probs_buffer = scratch(DataType.F32, numel(shape))
    rows = RowKernel(name, shape, len(shape) - 1, row_width(att.keys, ATTENTION_WIDTH))
    b = rows.b
    acc = b.workgroup_buffer("acc", rows.width * PRODUCT_WORDS)
    top_acc = b.workgroup_buffer("top", rows.width * 2)
    probs = b.buffer(probs_buffer, DataType.F32, write=True)
    top = rows.reduce(extreme(DataType.F32, maximum=True), top_acc, _scores(rows, att, acc, probs))

    def exponential(j: Expr) -> Expr:
        at = rows.flat(j)
        e = b.let(E.fexp(E.fsub(E.load(probs, at), top)), "e")
        b.emit(Node.store(probs, at, e))
        return e

    total = rows.reduce(exact_sum(DataType.F32, compact=True), acc, exponential)

    def divide(j: Expr) -> None:
        at = rows.flat(j)
        b.emit(Node.store(probs, at, E.fdiv(E.load(probs, at), total)))

    rows.each(divide)
    b.emit(Node.barrier())
    target = b.buffer(out, DataType.F32, write=True)
    batch = rows.outer[:-1]
    product_row = X.Row(acc, E.mul(rows.local, E.u32(PRODUCT_WORDS)), X.PRODUCT_DIGITS)
    base = b.let(E.mul(rows.row, b.param(att.keys)), "pb")

    def column(col: Expr) -> None:
        def pair(j: Expr) -> tuple[Expr, Expr]:
            return E.load(probs, E.add(base, j)), emit(b, att.v, [*batch, j, col])

        dot = exact_dot(b, product_row, att.keys, pair)
        b.emit(Node.store(target, E.add(E.mul(rows.row, b.param(att.columns)), col), dot))

    rows.each(column, length=att.columns)
    return rows.planned()
