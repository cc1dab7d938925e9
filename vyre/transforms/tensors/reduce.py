"""The kernels of `vtensor.sum`, `vtensor.max` and `vtensor.min` along one axis.

The exact sum of a float axis has kernels of its own, built to be bound by
memory (vyre.transforms.tensors.exact_sum). The other order-free reductions
(the wrapping integer sum, max and min) are a `Monoid`: an accumulator of a
few u32 words per invocation (a row of workgroup memory), how to add one
element, how to merge two accumulators and how to read the result (`exact_sum`
is the exact float sum as a Monoid, for the row kernels of softmax, layer_norm
and attention). Because any grouping gives the same result, they run in
parallel:

- a short static axis (at most `ROW_LIMIT` elements): one invocation per
  output runs the whole axis and writes the result (one dispatch);
- otherwise two dispatches: every workgroup folds a tile of `TILE` elements
  of one output (256 invocations, then a tree over their rows) into one
  accumulator in a scratch buffer; then one workgroup per output merges that
  output's tiles and writes the result.

Ordered float sums follow their definition element by element, one invocation
per output, `CHUNK` elements per dispatch (the dispatch repeats, the state
stays on the device between repeats; lavapipe stops an invocation after about
65,535 loop iterations):

- `sequential`: `((t0 + t1) + t2) + ...` in the operands' format;
- `tree`: the canonical tree (split at the largest power of two below n) built
  left to right with a stack of partial sums: after element i the stack holds
  the sums of the aligned power-of-two blocks of i + 1 (its binary digits), a
  new element merges with as many as i has trailing one bits, and at the end
  the stack is summed from its top, `s[0] + (s[1] + (... + s[top]))`, which is
  exactly the tree of the definition.
One element gives that element unchanged (its bits), none gives +0.0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vyre.dialects.symbolic import Sym, sym
from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.transforms.tensors import exact as X
from vyre.transforms.tensors.exact_sum import exact_sum_kernels
from vyre.transforms.tensors.kernel import KernelBuilder, Planned, Reduction, emit

__all__ = [
    "CHUNK",
    "NORMALIZE_EVERY",
    "ROW_LIMIT",
    "TILE",
    "Monoid",
    "Planned",
    "Reduction",
    "exact_sum",
    "extreme",
    "reduction_kernels",
    "workgroup_tree",
]

WORKGROUP = 256
PER_THREAD = 64
TILE = WORKGROUP * PER_THREAD
ROW_LIMIT = 4096
"""Static axes up to this length reduce in one dispatch, one invocation per output."""
CHUNK = 8192
"""Elements of an ordered sum per invocation and dispatch."""
NORMALIZE_EVERY = 64


def _ceil(a: Sym, b: int) -> Sym:
    return (a + (b - 1)) // b


# ---------------------------------------------------------------------------
# Order-free accumulators
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Monoid:
    """An order-free accumulator of `words` u32 words (see the module doc);
    each function emits its statements into the builder's current body."""

    words: int
    init: Callable[[KernelBuilder, X.Row], None]
    add: Callable[[KernelBuilder, X.Row, Expr], None]
    combine: Callable[[KernelBuilder, X.Row, X.Row], None]
    finish: Callable[[KernelBuilder, X.Row], Expr]
    normalize: Callable[[KernelBuilder, X.Row], None] | None = None
    additive: bool = False
    """`combine` is word-wise addition with the last word (the flags) OR-ed,
    then `normalize`: normalised rows may be merged with atomics instead."""
    largest: DataType | None = None
    """The maximumNumber of this float type (`extreme`): rows may be merged
    with an atomic max of an order-preserving key instead."""

    def row(self, buffer: str, index: Expr) -> X.Row:
        """Accumulator number `index` of `buffer`."""
        return X.Row(buffer, E.mul(index, E.u32(self.words)), self.words - 1)


def exact_sum(dtype: DataType, compact: bool = False) -> Monoid:
    """The exact accumulator; the flags of the elements an invocation adds are
    gathered in a local (`init` declares it) and flushed into its row by
    `normalize`, which runs before the row is merged or read. `compact`: the
    result is rounded by loops over the row (`exact.round_row`, which leaves
    the row holding the magnitude: one invocation reads it)."""
    fmt = X.FORMATS[dtype]
    digits = X.SUM_DIGITS
    local: list[str] = []

    def init(b: KernelBuilder, row: X.Row) -> None:
        X.clear(b, row)
        local[:] = [b.fresh("fl")]
        b.emit(Node.let(local[0], E.u32(0)))

    def add(b: KernelBuilder, row: X.Row, value: Expr) -> None:
        X.add_value(b, row, X.decode(b, value, fmt), local[0])

    def normalize(b: KernelBuilder, row: X.Row) -> None:
        X.flush_flags(b, row, local[0])
        X.normalize(b, row)

    def finish(b: KernelBuilder, row: X.Row) -> Expr:
        if compact:
            return E.bitcast(dtype, X.round_row(b, row, X.SUM_SCALE, fmt))
        values = [b.let(row.load(k), "w") for k in range(digits)]
        flags = b.let(row.load(row.flags), "fl")
        return E.bitcast(dtype, X.round_to(b, values, flags, X.SUM_SCALE, fmt))

    return Monoid(digits + 1, init, add, X.combine, finish, normalize, additive=True)


def integer_sum() -> Monoid:
    return Monoid(
        1,
        lambda b, row: b.emit(row.store(0, E.u32(0))),
        lambda b, row, value: b.emit(row.add(0, value)),
        lambda b, dst, src: b.emit(dst.add(0, src.load(0))),
        lambda b, row: row.load(0),
    )


def extreme(dtype: DataType, maximum: bool) -> Monoid:
    """max/min: word 0 the value's bits, word 1 whether there is one yet (one
    element is kept as it is, bits and all)."""

    def pick(a_bits: Expr, b_bits: Expr) -> Expr:
        if dtype.is_float:
            a, c = E.bitcast(dtype, a_bits), E.bitcast(dtype, b_bits)
            return E.bitcast(DataType.U32, E.fmax(a, c) if maximum else E.fmin(a, c))
        x, y = a_bits, b_bits
        if dtype is DataType.I32:
            x, y = E.bitxor(x, E.u32(0x8000_0000)), E.bitxor(y, E.u32(0x8000_0000))
        return E.select(E.gt(x, y) if maximum else E.lt(x, y), a_bits, b_bits)

    def merge(b: KernelBuilder, dst: X.Row, bits: Expr, valid: Expr) -> None:
        merged = E.select(E.ne(dst.load(1), E.u32(0)), pick(dst.load(0), bits), bits)
        b.emit(Node.if_(valid, [dst.store(0, merged), dst.store(1, E.u32(1))]))

    def add(b: KernelBuilder, row: X.Row, value: Expr) -> None:
        bits = E.bitcast(DataType.U32, value) if dtype.is_float else value
        merge(b, row, b.let(bits, "v"), E.u32(1))

    def combine(b: KernelBuilder, dst: X.Row, src: X.Row) -> None:
        merge(b, dst, b.let(src.load(0), "v"), src.load(1))

    def finish(b: KernelBuilder, row: X.Row) -> Expr:
        return E.bitcast(dtype, row.load(0)) if dtype.is_float else row.load(0)

    largest = dtype if maximum and dtype.is_float else None
    return Monoid(2, lambda b, row: b.emit(row.store(1, E.u32(0))), add, combine, finish, largest=largest)


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


def _element(b: KernelBuilder, red: Reduction, out_idx: Sequence[Expr], at: Expr) -> Expr:
    idx = list(out_idx)
    idx.insert(red.axis, at)
    return emit(b, red.source, idx)


def _store_out(b: KernelBuilder, out: str, red: Reduction, at: Expr, value: Expr) -> Node:
    return b.store(b.buffer(out, red.dtype, write=True), red.dtype, at, value)


def _per_output(b: KernelBuilder, red: Reduction, body: Callable[[Expr, list[Expr]], None]) -> None:
    """One invocation per output o (`gid.x`): `body(o, its multi-index)`."""
    o = b.let(E.gid_x(), "o")
    with b.block() as guarded:
        body(o, b.unflatten(o, red.out_shape))
    b.emit(Node.if_(E.lt(o, b.param(red.outputs)), guarded))


def _row_kernel(name: str, red: Reduction, monoid: Monoid, out: str) -> Planned:
    """One invocation per output runs the whole (short, static) axis."""
    b = KernelBuilder(name)
    acc = b.workgroup_buffer("acc", WORKGROUP * monoid.words)
    length = red.length.value or 0
    period = max(1, NORMALIZE_EVERY if monoid.normalize is not None else length)

    def body(o: Expr, out_idx: list[Expr]) -> None:
        row = monoid.row(acc, E.local_id(0))
        monoid.init(b, row)
        chunk, k = b.fresh("c"), b.fresh("k")
        with b.block() as inner:
            at = b.let(E.add(E.mul(E.var(chunk), E.u32(period)), E.var(k)), "r")
            with b.block() as step:
                monoid.add(b, row, _element(b, red, out_idx, at))
            b.emit(Node.if_(E.lt(at, E.u32(length)), step))
        with b.block() as tail:
            if monoid.normalize is not None:
                monoid.normalize(b, row)
        chunks = -(-length // period)
        b.emit(Node.loop(chunk, E.u32(0), E.u32(chunks), [Node.loop(k, E.u32(0), E.u32(period), inner), *tail]))
        b.emit(_store_out(b, out, red, o, monoid.finish(b, row)))

    _per_output(b, red, body)
    return Planned(b, _ceil(red.outputs, WORKGROUP))


def workgroup_tree(b: KernelBuilder, monoid: Monoid, acc: str, local: Expr, width: int = WORKGROUP) -> None:
    """The workgroup's rows (`width` of them, a power of two) merged into row
    0: log2(width) levels, each after a barrier (the loop's bounds are
    uniform, so every barrier is in uniform control flow)."""
    level = b.fresh("lv")
    with b.block() as body:
        step = b.let(E.shr(E.u32(width // 2), E.var(level)), "st")
        with b.block() as merge:
            monoid.combine(b, monoid.row(acc, local), monoid.row(acc, E.add(local, step)))
        b.emit(Node.barrier(), Node.if_(E.lt(local, step), merge))
    b.emit(Node.loop(level, E.u32(0), E.u32(width.bit_length() - 1), body), Node.barrier())


def _tile_kernel(name: str, red: Reduction, monoid: Monoid, partials: str) -> Planned:
    """Workgroup g folds tile g % tiles of output g // tiles into one accumulator."""
    b = KernelBuilder(name)
    acc = b.workgroup_buffer("acc", WORKGROUP * monoid.words)
    local = b.let(E.local_id(0), "l")
    group = b.let(E.workgroup_id(0), "g")
    tiles = _ceil(red.length, TILE)
    o = b.let(E.div(group, b.param(tiles)), "o")
    tile = b.let(E.mod(group, b.param(tiles)), "tile")
    out_idx = b.unflatten(o, red.out_shape)
    row = monoid.row(acc, local)
    monoid.init(b, row)
    k = b.fresh("k")
    with b.block() as inner:
        at = b.let(E.add(E.add(E.mul(tile, E.u32(TILE)), E.mul(E.var(k), E.u32(WORKGROUP))), local), "r")
        with b.block() as step:
            monoid.add(b, row, _element(b, red, out_idx, at))
        b.emit(Node.if_(E.lt(at, b.param(red.length)), step))
    b.emit(Node.loop(k, E.u32(0), E.u32(PER_THREAD), inner))
    if monoid.normalize is not None:
        monoid.normalize(b, row)
    workgroup_tree(b, monoid, acc, local)
    target = b.buffer(partials, DataType.U32, write=True)
    with b.block() as copy:
        X.copy(b, monoid.row(target, group), monoid.row(acc, E.u32(0)))
    b.emit(Node.if_(E.eq(local, E.u32(0)), copy))
    return Planned(b, red.outputs * tiles)


def _merge_kernel(name: str, red: Reduction, monoid: Monoid, partials: str, out: str) -> Planned:
    """Workgroup o merges output o's tile accumulators and writes the result."""
    b = KernelBuilder(name)
    acc = b.workgroup_buffer("acc", WORKGROUP * monoid.words)
    local = b.let(E.local_id(0), "l")
    o = b.let(E.workgroup_id(0), "o")
    tiles = _ceil(red.length, TILE)
    row = monoid.row(acc, local)
    monoid.init(b, row)
    source = b.buffer(partials, DataType.U32)
    k = b.fresh("k")
    with b.block() as inner:
        j = b.let(E.add(E.mul(E.var(k), E.u32(WORKGROUP)), local), "j")
        with b.block() as step:
            monoid.combine(b, row, monoid.row(source, E.add(E.mul(o, b.param(tiles)), j)))
        b.emit(Node.if_(E.lt(j, b.param(tiles)), step))
    b.emit(Node.loop(k, E.u32(0), b.param(_ceil(tiles, WORKGROUP)), inner))
    workgroup_tree(b, monoid, acc, local)
    with b.block() as write:
        result = monoid.finish(b, monoid.row(acc, E.u32(0)))
        b.emit(_store_out(b, out, red, o, result))
    b.emit(Node.if_(E.eq(local, E.u32(0)), write))
    return Planned(b, red.outputs)


def order_free(
    name: str, red: Reduction, monoid: Monoid, out: str, scratch: Callable[[DataType, Sym], str]
) -> list[Planned]:
    length = red.length.value
    if length is not None and length <= ROW_LIMIT:
        return [_row_kernel(name, red, monoid, out)]
    tiles = _ceil(red.length, TILE)
    partials = scratch(DataType.U32, red.outputs * tiles * monoid.words)
    return [
        _tile_kernel(f"{name}_tiles", red, monoid, partials),
        _merge_kernel(f"{name}_merge", red, monoid, partials, out),
    ]


# ---------------------------------------------------------------------------
# Ordered float sums
# ---------------------------------------------------------------------------


def _zero(dtype: DataType) -> Expr:
    return E.float_bits(dtype, 0)


def _chunk_end(b: KernelBuilder, red: Reduction, start: Expr) -> Expr:
    """min(start + CHUNK, length)."""
    length = b.param(red.length)
    stop = E.add(start, E.u32(CHUNK))
    return b.let(E.select(E.lt(length, stop), length, stop), "end")


def sequential(name: str, red: Reduction, out: str) -> list[Planned]:
    b = KernelBuilder(name)
    rep = b.param(sym("rep"))
    target = b.buffer(out, red.dtype, write=True)

    def body(o: Expr, out_idx: list[Expr]) -> None:
        acc = b.fresh("acc")
        b.emit(Node.let(acc, E.load(target, o)))
        with b.block() as first:
            value = _element(b, red, out_idx, E.u32(0))
            b.emit(Node.assign(acc, value))
        start_nodes = [
            Node.assign(acc, _zero(red.dtype)),
            Node.if_(E.gt(b.param(red.length), E.u32(0)), first),
        ]
        b.emit(Node.if_(E.eq(rep, E.u32(0)), start_nodes))
        start = b.let(E.add(E.mul(rep, E.u32(CHUNK)), E.u32(1)), "start")
        end = _chunk_end(b, red, start)
        i = b.fresh("i")
        with b.block() as step:
            value = _element(b, red, out_idx, E.var(i))
            b.emit(Node.assign(acc, E.fadd(E.var(acc), value)))
        b.emit(Node.if_(E.lt(start, end), [Node.loop(i, start, end, step)]))
        b.emit(Node.store(target, o, E.var(acc)))

    _per_output(b, red, body)
    repeat = ((red.length - 1 + (CHUNK - 1)) // CHUNK).max(1)
    return [Planned(b, _ceil(red.outputs, WORKGROUP), repeat)]


STACK = 32


def tree(name: str, red: Reduction, out: str, scratch: Callable[[DataType, Sym], str]) -> list[Planned]:
    stack = scratch(red.dtype, red.outputs * STACK)
    push = KernelBuilder(f"{name}_push")
    rep = push.param(sym("rep"))
    slots = push.buffer(stack, red.dtype, write=True)

    def push_body(o: Expr, out_idx: list[Expr]) -> None:
        b = push
        base = b.let(E.mul(o, E.u32(STACK)), "base")
        start = b.let(E.mul(rep, E.u32(CHUNK)), "start")
        end = _chunk_end(b, red, start)
        i, k, v = b.fresh("i"), b.fresh("k"), b.fresh("v")
        with b.block() as step:
            value = _element(b, red, out_idx, E.var(i))
            b.emit(Node.let(v, value))
            depth = b.let(E.popcount(E.var(i)), "sp")
            merges = b.let(E.ctz(E.bitnot(E.var(i))), "mg")
            below = E.load(slots, E.sub(E.add(base, depth), E.add(E.var(k), E.u32(1))))
            b.emit(
                Node.loop(k, E.u32(0), merges, [Node.assign(v, E.fadd(below, E.var(v)))]),
                Node.store(slots, E.sub(E.add(base, depth), merges), E.var(v)),
            )
        b.emit(Node.if_(E.lt(start, end), [Node.loop(i, start, end, step)]))

    _per_output(push, red, push_body)

    fin = KernelBuilder(f"{name}_finish")
    stored = fin.buffer(stack, red.dtype)
    target = fin.buffer(out, red.dtype, write=True)

    def finish_body(o: Expr, out_idx: list[Expr]) -> None:
        b = fin
        base = b.let(E.mul(o, E.u32(STACK)), "base")
        count = b.let(E.popcount(b.param(red.length)), "n")
        acc, j = b.fresh("acc"), b.fresh("j")
        b.emit(Node.let(acc, _zero(red.dtype)))
        top = E.load(stored, E.add(base, E.sub(count, E.u32(1))))
        below = E.load(stored, E.add(base, E.sub(E.sub(count, E.u32(2)), E.var(j))))
        b.emit(
            Node.if_(
                E.gt(count, E.u32(0)),
                [
                    Node.assign(acc, top),
                    Node.loop(j, E.u32(0), E.sub(count, E.u32(1)), [Node.assign(acc, E.fadd(below, E.var(acc)))]),
                ],
            ),
            Node.store(target, o, E.var(acc)),
        )

    _per_output(fin, red, finish_body)
    grid = _ceil(red.outputs, WORKGROUP)
    return [Planned(push, grid, _ceil(red.length, CHUNK).max(1)), Planned(fin, grid)]


def reduction_kernels(
    name: str,
    kind: str,
    red: Reduction,
    out: str,
    scratch: Callable[[DataType, Sym], str],
) -> list[Planned]:
    """The kernels of one reduction: `kind` is exact/sequential/tree (sum),
    max or min; `scratch(dtype, count)` names a new zeroed buffer."""
    dtype = red.dtype
    if kind in ("max", "min"):
        return order_free(name, red, extreme(dtype, kind == "max"), out, scratch)
    if not dtype.is_float:
        return order_free(name, red, integer_sum(), out, scratch)
    if kind == "exact":
        return exact_sum_kernels(name, red, out, scratch)
    if kind == "sequential":
        return sequential(name, red, out)
    return tree(name, red, out, scratch)
