"""Row kernels: one workgroup per row, for the composites whose every output
depends on a whole row of an axis (`vtensor.softmax`, `vtensor.layer_norm`;
`vtensor.attention` in vyre.transforms.tensors.attention).

A row is the axis at one position of the other dims: the workgroup id is the
row's row-major position over the shape without the axis. The workgroup's
`width` invocations take the row's elements `k = local, local + width, ...`.
A reduction over the row is an order-free `Monoid` of
vyre.transforms.tensors.reduce (maximumNumber, the exact sum): one accumulator
per invocation in workgroup memory, merged with workgroup atomics (the exact
sum word by word, the maximum as an order-preserving key) or else in a tree;
the first invocation reads the result (the exact sum is rounded by loops over
the accumulator's words) into a word of workgroup memory that every
invocation then reads, and a barrier comes before the memory is used again.
Because those reductions do not depend on any order, the bits do not depend
on the width either.

So each composite is one kernel, a few passes over its row by the same
invocations. When the row's length is static and an invocation has at most
`HELD_MOST` of its elements, it keeps them in locals between the passes
(`held`): the row is read once and the result written once (on the H200, the
medium transformer block's attention softmax 0.92 -> 0.80 ms). Otherwise
softmax writes the row (or its exponentials) into its output and reads back
only what the same invocation wrote, so no pass waits for another
invocation's elements, and layer norm reads its input in each pass.
"""

from __future__ import annotations

from collections.abc import Callable

from vyre.dialects.symbolic import Sym
from vyre.dialects.tensor_layout import Layout, Shape, numel
from vyre.ir import AtomicOp, DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.transforms.tensors import exact as X
from vyre.transforms.tensors.kernel import KernelBuilder, Rep, emit
from vyre.transforms.tensors.reduce import NORMALIZE_EVERY, Monoid, Planned, exact_sum, extreme, workgroup_tree

__all__ = ["ROW_WIDTH", "RowKernel", "layer_norm_kernel", "row_width", "softmax_kernel"]

ROW_WIDTH = 64
"""Invocations per row (at most); a short static row gets fewer. 64 rather
than 256: when a row's reductions were merged in a tree of workgroup
barriers, fewer invocations per row (and more rows resident per SM) were
faster on the H200 (the attention softmax of the (8, 512, 768, 12) block 4.7
-> 1.8 ms, its layer norms 1.7 -> 0.9 ms; the results are the same bits: the
reductions are order-free)."""
SUM_WORDS = X.SUM_DIGITS + 1
HELD_MOST = 16
"""Elements per invocation a row kernel keeps in locals at most (see `held`);
at most `NORMALIZE_EVERY`, so that `reduce_held` normalises an exact
accumulator once, after all of them."""
if HELD_MOST > NORMALIZE_EVERY:  # pragma: no cover - a constant's invariant
    raise AssertionError("HELD_MOST must not pass NORMALIZE_EVERY: the exact sum's digits would overflow")


def row_width(length: Sym, most: int = ROW_WIDTH) -> int:
    """Invocations for rows of `length`: the next power of two, at least 32 and
    at most `most` (`most` for a dynamic length)."""
    value = length.value
    width = 32
    while width < most and (value is None or width < value):
        width *= 2
    return width


class RowKernel:
    """One kernel of one workgroup per row of `shape` along `axis` (see the
    module doc): `grid` workgroups of `width` invocations."""

    def __init__(self, name: str, shape: Shape, axis: int, width: int):
        self.b = KernelBuilder(name, width)
        self.shape = shape
        self.axis = axis
        self.width = width
        self.length = shape[axis]
        outer = shape[:axis] + shape[axis + 1 :]
        self.grid: Sym = numel(outer)
        self._result: str | None = None
        self.local = self.b.let(E.local_id(0), "l")
        self.row = self.b.let(E.workgroup_id(0), "row")
        self.outer = self.b.unflatten(self.row, outer)

    def index(self, k: Expr) -> list[Expr]:
        """The multi-index of element `k` of this row."""
        idx = list(self.outer)
        idx.insert(self.axis, k)
        return idx

    def flat(self, k: Expr) -> Expr:
        """Element `k`'s position in a contiguous buffer of the whole shape."""
        if self.axis == len(self.shape) - 1:
            return self.b.let(E.add(E.mul(self.row, self.b.param(self.length)), k), "at")
        return self.b.let(self.b.index(Layout.contiguous(self.shape), self.index(k)), "at")

    def each(
        self,
        body: Callable[[Expr], None],
        length: Sym | None = None,
        every: int = 0,
        after: Callable[[], None] | None = None,
    ) -> None:
        """`body(k)` for this invocation's elements `k` of a row of `length`
        (the axis's by default), and `after()` after every `every` of them."""
        b = self.b
        size = self.length if length is None else length
        step = self.width * max(every, 1)
        chunk, k = b.fresh("c"), b.fresh("k")
        with b.block() as inner:
            position = E.add(E.var(k), E.mul(E.var(chunk), E.u32(max(every, 1))))
            at = b.let(E.add(E.mul(position, E.u32(self.width)), self.local), "k")
            with b.block() as guarded:
                body(at)
            b.emit(Node.if_(E.lt(at, b.param(size)), guarded))
        with b.block() as tail:
            if after is not None:
                after()
        chunks = b.param((size + (step - 1)) // step)
        b.emit(Node.loop(chunk, E.u32(0), chunks, [Node.loop(k, E.u32(0), E.u32(max(every, 1)), inner), *tail]))

    def held(self) -> int:
        """Elements of a row per invocation when the row's length is static
        and they are at most `HELD_MOST` (kept in locals between the passes:
        `each_held`, `reduce_held`); else 0."""
        value = self.length.value
        if value is None:
            return 0
        per = -(-value // self.width)
        return per if per <= HELD_MOST else 0

    def each_held(self, body: Callable[[int, Expr], None]) -> None:
        """`body(j, k)` for this invocation's `j`-th element `k` of the row,
        unrolled (`held()` of them; the last guarded when the length is not
        a multiple of the width)."""
        b = self.b
        length = self.length.value
        assert length is not None
        for j in range(self.held()):
            k = b.let(E.add(E.u32(j * self.width), self.local), "k")
            if (j + 1) * self.width <= length:
                body(j, k)
                continue
            with b.block() as guarded:
                body(j, k)
            b.emit(Node.if_(E.lt(k, E.u32(length)), guarded))

    def reduce(self, monoid: Monoid, acc: str, value: Callable[[Expr], Expr]) -> Expr:
        """`monoid` (over F32 values) of `value(k)` for the row's elements
        (`value` may emit statements first): a local every invocation holds.
        An additive monoid's accumulators (the exact sum's) are merged with
        workgroup atomics into a row of their own (`_merged_sum`), an F32
        maximumNumber's with an atomic max (`_merged_max`); any other
        monoid's in a tree."""
        b = self.b
        row = monoid.row(acc, self.local)
        monoid.init(b, row)
        normalize = monoid.normalize

        def add(k: Expr) -> None:
            monoid.add(b, row, value(k))

        if normalize is None:
            self.each(add)
        else:
            self.each(add, every=NORMALIZE_EVERY, after=lambda: normalize(b, row))
        return self._merge(monoid, acc, row)

    def reduce_held(self, monoid: Monoid, acc: str, value: Callable[[int, Expr], Expr]) -> Expr:
        """`reduce` over `each_held`'s elements: `value(j, k)`."""
        b = self.b
        row = monoid.row(acc, self.local)
        monoid.init(b, row)
        self.each_held(lambda j, k: monoid.add(b, row, value(j, k)))
        if monoid.normalize is not None:  # HELD_MOST <= NORMALIZE_EVERY additions
            monoid.normalize(b, row)
        return self._merge(monoid, acc, row)

    def _merge(self, monoid: Monoid, acc: str, row: X.Row) -> Expr:
        """Every invocation's `row` merged; the result in a local of each."""
        b = self.b
        if self._result is None:
            self._result = b.workgroup_buffer("result", 1)
        if monoid.additive and monoid.normalize is not None and self.width <= 256:
            merged = self._merged_sum(row, monoid.words)
        elif monoid.largest is DataType.F32:
            merged = self._merged_max(row)
        else:
            workgroup_tree(b, monoid, acc, self.local, self.width)
            merged = monoid.row(acc, E.u32(0))
        with b.block() as first:
            value_bits = E.bitcast(DataType.U32, monoid.finish(b, merged))
            b.emit(Node.store(self._result, E.u32(0), value_bits))
        b.emit(Node.if_(E.eq(self.local, E.u32(0)), first), Node.barrier())
        result = b.let(E.bitcast(DataType.F32, E.load(self._result, E.u32(0))), "red")
        b.emit(Node.barrier())
        return result

    def _merged_sum(self, row: X.Row, words: int) -> X.Row:
        """Every invocation's normalised exact accumulator (`row`: digits in
        [0, 2**24), the top one signed) added into a fresh row of workgroup
        memory with one atomic per word (the flags OR-ed): at most 256 rows,
        so each digit stays below 2**32 and the top one's sum exact in two's
        complement; then a barrier, and the merged row normalised by the
        first invocation, which rounds it. The same sum as a tree of
        `combine`s (exact integer addition in any order), with one barrier
        instead of one per level."""
        b = self.b
        total = X.Row(b.workgroup_buffer(b.fresh("total"), words), E.u32(0), words - 1)
        for k in range(words - 1):
            b.emit(Node.let(b.fresh("old"), E.atomic(AtomicOp.ADD, total.buffer, E.u32(k), row.load(k))))
        b.emit(
            Node.let(b.fresh("old"), E.atomic(AtomicOp.OR, total.buffer, E.u32(total.flags), row.load(row.flags))),
            Node.barrier(),
        )
        with b.block() as first:
            X.normalize(b, total)
        b.emit(Node.if_(E.eq(self.local, E.u32(0)), first))
        return total

    def _merged_max(self, row: X.Row) -> X.Row:
        """The F32 maximumNumber of every invocation's (value, valid) row:
        numbers by a workgroup atomic max of an order-preserving key (`bits
        | 2**31` for a positive sign, `~bits` for a negative one: -0 below
        +0, and every key above 0, the word's "none yet"); NaN values only
        counted, one kept. After a barrier the first invocation writes into
        word 0 what the tree of `fmax`es gives: the largest number if there
        is one; else the one invocation's value (a lone element is kept bit
        for bit); else `fmax` of two NaNs; and +0 for an empty row (the
        tree's untouched word 0)."""
        b = self.b
        words = b.workgroup_buffer(b.fresh("top"), 3)  # key of the largest, invocations with a value, a NaN
        bits = b.let(row.load(0), "mv")
        nan = E.gt(E.bitand(bits, E.u32(0x7FFF_FFFF)), E.u32(0x7F80_0000))
        key = E.select(E.ne(E.shr(bits, E.u32(31)), E.u32(0)), E.bitnot(bits), E.bitor(bits, E.u32(0x8000_0000)))
        with b.block() as held:
            b.emit(
                Node.let(b.fresh("old"), E.atomic(AtomicOp.ADD, words, E.u32(1), E.u32(1))),
                Node.if_(nan, [Node.store(words, E.u32(2), bits)], [Node.let(b.fresh("old"), E.atomic(AtomicOp.MAX, words, E.u32(0), key))]),
            )
        b.emit(Node.if_(E.ne(row.load(1), E.u32(0)), held), Node.barrier())
        with b.block() as first:
            k = b.let(E.load(words, E.u32(0)), "mk")
            number = E.select(E.ne(E.shr(k, E.u32(31)), E.u32(0)), E.bitxor(k, E.u32(0x8000_0000)), E.bitnot(k))
            kept = b.let(E.load(words, E.u32(2)), "mn")
            both = E.bitcast(DataType.U32, E.fmax(E.bitcast(DataType.F32, kept), E.bitcast(DataType.F32, kept)))
            alone = E.select(E.eq(E.load(words, E.u32(1)), E.u32(1)), kept, both)
            b.emit(Node.store(words, E.u32(0), E.select(E.ne(k, E.u32(0)), number, alone)))
        b.emit(Node.if_(E.eq(self.local, E.u32(0)), first))
        return X.Row(words, E.u32(0), 1)

    def planned(self) -> Planned:
        return Planned(self.b, self.grid)


def softmax_kernel(
    name: str,
    source: Rep,
    shape: Shape,
    axis: int,
    out: str,
    prepare: Callable[[KernelBuilder, Expr, list[Expr]], Expr] | None = None,
) -> Planned:
    """`softmax(source, axis)` into buffer `out` (contiguous F32): the row and
    its max, then `e = exp(x - m)` in place and its exact sum `s`, then `e / s`.
    `prepare(builder, x, index)` (when given) replaces each element `x` first
    (attention's scale and causal mask)."""
    rows = RowKernel(name, shape, axis, row_width(shape[axis]))
    b = rows.b
    acc = b.workgroup_buffer("acc", rows.width * SUM_WORDS)
    target = b.buffer(out, DataType.F32, write=True)
    if rows.held():
        return _softmax_held(rows, source, acc, target, prepare)

    def element(k: Expr) -> Expr:
        index = rows.index(k)
        loaded = emit(b, source, index)
        value = b.let(loaded if prepare is None else prepare(b, b.let(loaded, "s"), list(index)), "x")
        b.emit(Node.store(target, rows.flat(k), value))
        return value

    top = rows.reduce(extreme(DataType.F32, maximum=True), acc, element)
    ordinary = _ordinary(b, top)

    def exponential(k: Expr) -> Expr:
        at = rows.flat(k)
        x = b.let(E.load(target, at), "x")
        e = b.fresh("e")
        b.emit(Node.let(e, E.f32(0.0)))
        with b.block() as compute:
            b.emit(Node.assign(e, E.fexp(E.fsub(x, top))), Node.store(target, at, E.var(e)))
        b.emit(Node.if_(_masked(ordinary, x), [Node.store(target, at, E.f32(0.0))], compute))
        return E.var(e)

    total = rows.reduce(exact_sum(DataType.F32, compact=True), acc, exponential)
    positive = _positive(b, total)

    def divide(k: Expr) -> None:
        at = rows.flat(k)
        e = b.let(E.load(target, at), "ev")
        keep = E.and_(positive, E.eq(E.bitcast(DataType.U32, e), E.u32(0)))
        b.emit(Node.if_(E.logical_not(keep), [Node.store(target, at, E.fdiv(e, total))]))

    rows.each(divide)
    return rows.planned()


def _ordinary(b: KernelBuilder, top: Expr) -> Expr:
    """Whether the row's max `top` is neither -inf nor NaN: then an element
    x = -inf gives exp(x - top) = +0 (a masked element skips the
    exponential, and its +0 the division: 0 / s is +0 for a positive finite
    s); the bits are the same."""
    top_bits = b.let(E.bitcast(DataType.U32, top), "tb")
    return b.let(E.and_(E.ne(top_bits, E.u32(0xFF80_0000)), E.le(E.bitand(top_bits, E.u32(0x7FFF_FFFF)), E.u32(0x7F80_0000))), "tok")


def _masked(ordinary: Expr, x: Expr) -> Expr:
    """x = -inf below an ordinary max: exp(x - top) is +0."""
    return E.and_(ordinary, E.eq(E.bitcast(DataType.U32, x), E.u32(0xFF80_0000)))


def _positive(b: KernelBuilder, total: Expr) -> Expr:
    """Whether the exponentials' sum is positive and finite (0 / total = +0)."""
    total_bits = b.let(E.bitcast(DataType.U32, total), "sb")
    return b.let(E.and_(E.ne(total_bits, E.u32(0)), E.lt(total_bits, E.u32(0x7F80_0000))), "spos")


def _softmax_held(
    rows: RowKernel,
    source: Rep,
    acc: str,
    target: str,
    prepare: Callable[[KernelBuilder, Expr, list[Expr]], Expr] | None,
) -> Planned:
    """`softmax_kernel` for rows whose elements an invocation keeps in
    locals (`RowKernel.held`): the row is read once and its result written
    once; the same operations on the same values, so the same bits."""
    b = rows.b
    per = rows.held()
    xs, es = [b.fresh("x") for _ in range(per)], [b.fresh("e") for _ in range(per)]
    b.emit(*(Node.let(v, E.f32(0.0)) for v in (*xs, *es)))

    def element(j: int, k: Expr) -> Expr:
        index = rows.index(k)
        loaded = emit(b, source, index)
        b.emit(Node.assign(xs[j], loaded if prepare is None else prepare(b, b.let(loaded, "s"), list(index))))
        return E.var(xs[j])

    top = rows.reduce_held(extreme(DataType.F32, maximum=True), acc, element)
    ordinary = _ordinary(b, top)

    def exponential(j: int, k: Expr) -> Expr:
        x = E.var(xs[j])
        b.emit(Node.if_(E.logical_not(_masked(ordinary, x)), [Node.assign(es[j], E.fexp(E.fsub(x, top)))]))
        return E.var(es[j])

    total = rows.reduce_held(exact_sum(DataType.F32, compact=True), acc, exponential)
    positive = _positive(b, total)

    def divide(j: int, k: Expr) -> None:
        e = E.var(es[j])
        at = rows.flat(k)
        keep = E.and_(positive, E.eq(E.bitcast(DataType.U32, e), E.u32(0)))
        b.emit(Node.if_(keep, [Node.store(target, at, e)], [Node.store(target, at, E.fdiv(e, total))]))

    rows.each_held(divide)
    return rows.planned()


def layer_norm_kernel(name: str, x: Rep, weight: Rep, bias: Rep, shape: Shape, eps: int, out: str) -> Planned:
    """`layer_norm` over the last axis into buffer `out`: `mu = sum(x) / n`,
    `v = sum(d * d) / n` with `d = x - mu` (exact sums), `r = 1 / sqrt(v + eps)`,
    `(d * r) * weight + bias` (`weight`, `bias` already broadcast to `shape`)."""
    axis = len(shape) - 1
    rows = RowKernel(name, shape, axis, row_width(shape[axis]))
    b = rows.b
    acc = b.workgroup_buffer("acc", rows.width * SUM_WORDS)
    target = b.buffer(out, DataType.F32, write=True)
    n = b.let(E.cast(DataType.F32, b.param(shape[axis])), "n")
    if rows.held():
        return _layer_norm_held(rows, x, weight, bias, eps, acc, target, n)

    def value(k: Expr) -> Expr:
        return emit(b, x, rows.index(k))

    mean = b.let(E.fdiv(rows.reduce(exact_sum(DataType.F32, compact=True), acc, value), n), "mu")

    def square(k: Expr) -> Expr:
        d = b.let(E.fsub(value(k), mean), "d")
        return E.fmul(d, d)

    variance = b.let(E.fdiv(rows.reduce(exact_sum(DataType.F32, compact=True), acc, square), n), "var")
    scale = _inverse_root(b, variance, eps)

    def write(k: Expr) -> None:
        idx = rows.index(k)
        d = E.fsub(value(k), mean)
        y = E.fadd(E.fmul(E.fmul(d, scale), emit(b, weight, idx)), emit(b, bias, idx))
        b.emit(Node.store(target, rows.flat(k), y))

    rows.each(write)
    return rows.planned()


def _inverse_root(b: KernelBuilder, variance: Expr, eps: int) -> Expr:
    """`1 / sqrt(variance + eps)`."""
    root = E.fsqrt(E.fadd(variance, E.float_bits(DataType.F32, eps)))
    return b.let(E.fdiv(E.f32(1.0), root), "r")


def _layer_norm_held(rows: RowKernel, x: Rep, weight: Rep, bias: Rep, eps: int, acc: str, target: str, n: Expr) -> Planned:
    """`layer_norm_kernel` for rows whose elements an invocation keeps in
    locals (`RowKernel.held`): `x` is read (computed) once, `d = x - mu`
    kept for the output; the same operations, so the same bits."""
    b = rows.b
    per = rows.held()
    xs = [b.fresh("x") for _ in range(per)]
    b.emit(*(Node.let(v, E.f32(0.0)) for v in xs))

    def value(j: int, k: Expr) -> Expr:
        b.emit(Node.assign(xs[j], emit(b, x, rows.index(k))))
        return E.var(xs[j])

    mean = b.let(E.fdiv(rows.reduce_held(exact_sum(DataType.F32, compact=True), acc, value), n), "mu")

    def square(j: int, k: Expr) -> Expr:
        b.emit(Node.assign(xs[j], E.fsub(E.var(xs[j]), mean)))
        return E.fmul(E.var(xs[j]), E.var(xs[j]))

    variance = b.let(E.fdiv(rows.reduce_held(exact_sum(DataType.F32, compact=True), acc, square), n), "var")
    scale = _inverse_root(b, variance, eps)

    def write(j: int, k: Expr) -> None:
        idx = rows.index(k)
        y = E.fadd(E.fmul(E.fmul(E.var(xs[j]), scale), emit(b, weight, idx)), emit(b, bias, idx))
        b.emit(Node.store(target, rows.flat(k), y))

    rows.each_held(write)
    return rows.planned()
