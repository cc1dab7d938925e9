"""The exact matmul on 8-bit dot products (the Ozaki scheme II): the same
bits as the per-product kernel of vyre.transforms.tensors.matmul, mostly at
the GPU's `dot4I8Packed` rate.

Every finite F32/F16/BF16 value is a significand times a power of two. Scaled
by the power of two of the lowest set bit of its row of `a` (column of `b`),
each element becomes an integer `A'[i, k]` (`B'[k, j]`) below `2**W` in
magnitude, `W` the row's width in bits; the product `C' = A' B'` is an exact
integer with `|C'| < K * 2**(W_a + W_b)`, and `a @ b = C' * 2**(s_i + s_j)`.
`C'` is computed from its residues modulo `n` small coprime moduli
(vyre.transforms.tensors.moduli): per modulus, the residues of `A'` and `B'`
centred in signed bytes, four to a word, and an integer GEMM with exact i32
sums (`|sum| <= K * 128 * 128 <= 2**30` for `K <= 2**16`). Garner's
mixed-radix conversion recovers `C'` and one rounding gives the F32 result:
correctly rounded, so equal to the per-product kernel's bits.

The kernels (no read-back: every decision is data on the device):

1. `stats` (a then b): per row of `a` / column of `b`, one workgroup: the
   shift of the lowest set bit `s` and the width `W` (all-F32-exact integer
   facts), or "bad" for a line holding an infinity or NaN;
   `order` (a then b, unless a causal mask decides the tiles): per batch,
   the lines sorted by width (a counting sort), so that the tiles below
   are cut from lines of like width; the tiles' positions map to lines
   through it;
2. `plan`: per 128 x 128 output tile (a workgroup, an invocation per row
   and column), the moduli it needs, from the widest row and column of the
   tile that are not excluded (bad, or wider than `W_cap` so that `N_MAX`
   moduli would not do);
3. `residues` (a then b): every element's residue per modulus, in a panel
   layout (per 128-line tile and per 64 values of k, `[k/4][line]` words) that
   the GEMM copies to workgroup memory contiguously;
4. `gemm`: per tile and modulus (a workgroup of 256 whose modulus the tile
   does not need does nothing), 128 x 128 outputs, 8 x 8 an invocation, 64 k a
   step, the next step's words prefetched; the step's panels in workgroup
   memory as U128 quads, so an invocation reads the words of its 4 + 4 rows
   and 4 + 4 columns with four 128-bit loads (sixteen 32-bit loads bounded
   the kernel: on the H200 the medium block's linears 11.1 -> 9.6 ms); two
   words of k an inner step, their dot products summed before the
   accumulator (`PAIR`: 9.6 -> 7.2 ms); each i32 sum reduced to its
   residue, four outputs' residues to a word;
5. `reconstruct`: per output, in the order of the tiles (a warp's outputs
   share a tile and read consecutive residues; only the moduli the tile
   needs are read), Garner's digits, `C'` in 24-bit digits and the rounding
   with the output's shift; an output of an excluded row or column, or with
   `C' = 0` (whose sign depends on the signs of zero products), is appended
   to a list instead (an atomic counter, reset by `plan`);
6. the per-product kernel for the listed outputs only, a bounded grid
   walking the list.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Literal

from vyre.dialects.symbolic import Sym, sym
from vyre.dialects.tensor_layout import numel
from vyre.ir import AtomicOp, DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.transforms.tensors import exact as X
from vyre.transforms.tensors import moduli as Mo
from vyre.transforms.tensors.kernel import KernelBuilder, Rep, emit
from vyre.transforms.tensors.reduce import Planned

__all__ = [
    "K_LIMIT",
    "TILE",
    "Dp4aMatmul",
    "chunk_limit_words",
    "SCRATCH_WORDS",
    "scratch_limit",
    "chunk_words",
    "dp4a_kernels",
    "plan_buffers",
    "round_scaled",
]

TILE = 128
"""Output rows and columns of a GEMM workgroup."""
KSTEP = 64
"""Values of k a GEMM step copies to workgroup memory (16 words a line)."""
WORDS = KSTEP // 4
K_LIMIT = 1 << 16
"""The longest inner length (|i32 sum| <= K * 2**14 <= 2**30)."""
STATS_WIDTH = 64
DIGITS = (Mo.PREFIX_BITS[Mo.N_MAX] + 2 + 23) // 24
"""24-bit digits of |C'| (below the product of all the moduli)."""
NONE = 0xFFFF_FFFF
HALVES = tuple((Mo.half(n) >> (24 * k)) & 0xFF_FFFF for n in range(Mo.N_MAX + 1) for k in range(DIGITS))
"""`prod(MODULI[:n]) / 2` in 24-bit digits, `DIGITS` words for each n."""
STAT_WORDS = 3
"""Per line: the lowest set bit's shift, the width, the doubled norm width."""
F = 15
"""Fraction bits of the squared-norm bound (`Q`, module doc of `_stats`)."""


Causal = Literal["outputs", "inner"] | None
"""What a causal attention lets the kernels skip (None: nothing):
`"outputs"`: the outputs above the diagonal (column > row) are not wanted
(the scores, which the softmax masks): tiles wholly above it are not
computed and the reconstruction leaves those outputs as they are;
`"inner"`: `a` is zero above the diagonal (`a[i, k] = 0` for `k > i`: the
probabilities), so a tile of rows stops at the last step of k its rows
reach (those residues are 0: the sums are the same), and the residues of `a`
past that step are not computed (nothing reads them). A row of `a` holding a
NaN or an infinity is excluded as always: its outputs are computed over
every k by the per-product kernel."""


@dataclass(frozen=True)
class Dp4aMatmul:
    """One matmul's operands (broadcast to (batch, M, K) and (batch, K, N)),
    sizes and scratch buffers."""

    a: Rep
    b: Rep
    dtype: DataType
    batch: tuple[Sym, ...]
    rows: Sym
    cols: Sym
    inner: Sym
    stats_a: str
    stats_b: str
    plan: str
    res_a: str
    res_b: str
    res_c: str
    flagged: str
    """The outputs left to the per-product kernel, `count[0]` of them (in no
    particular order: each output is computed alone)."""
    count: str
    first: int = 0
    """The first batch of this chunk (the scratch buffers hold one chunk)."""
    chunk: Sym | None = None
    """Batches in this chunk (None: all of them)."""
    causal: Causal = None
    order_a: str | None = None
    """Rows of `a` in order of width (`_order`): per batch, the line at each
    position; None: the identity (causal)."""
    order_b: str | None = None

    @property
    def tiles_m(self) -> Sym:
        return (self.rows + (TILE - 1)) // TILE

    @property
    def tiles_n(self) -> Sym:
        return (self.cols + (TILE - 1)) // TILE

    @property
    def blocks(self) -> Sym:
        return (self.inner + (KSTEP - 1)) // KSTEP

    @property
    def batches(self) -> Sym:
        return numel(list(self.batch)) if self.chunk is None else self.chunk

    @property
    def outputs(self) -> Sym:
        return self.batches * self.rows * self.cols


SCRATCH_WORDS = 1 << 29
"""A 2 GiB storage binding in words: the scratch limit unless the lowering is
for an adapter with less (`scratch_limit`)."""
SCRATCH_LIMIT: ContextVar[int] = ContextVar("SCRATCH_LIMIT", default=SCRATCH_WORDS)


def chunk_limit_words() -> int:
    """The most words a scratch buffer of one chunk may hold."""
    return SCRATCH_LIMIT.get()


@contextmanager
def scratch_limit(words: int) -> Generator[None]:
    """Lower for an adapter whose storage bindings hold at most `words` words
    (lavapipe: 2**25): batches are split into more chunks, and a weight is
    stacked only when the stacked matmul fits. The bits do not change."""
    token = SCRATCH_LIMIT.set(min(words, SCRATCH_WORDS))
    try:
        yield
    finally:
        SCRATCH_LIMIT.reset(token)


def chunk_words(rows: Sym, cols: Sym, inner: Sym) -> Sym:
    """Words of the largest scratch buffer per batch (residues of a, b or c)."""
    tm, tn = (rows + (TILE - 1)) // TILE, (cols + (TILE - 1)) // TILE
    blocks = (inner + (KSTEP - 1)) // KSTEP
    n = Mo.N_MAX
    return (tm * blocks * (n * WORDS * TILE)).max(tn * blocks * (n * WORDS * TILE)).max(tm * tn * (n * TILE * TILE // 4))


def plan_buffers(
    a: Rep,
    b: Rep,
    dtype: DataType,
    out_shape: tuple[Sym, ...],
    inner: Sym,
    scratch: Callable[[DataType, Sym], str],
    chunks: list[tuple[int, Sym]] | None = None,
    causal: Causal = None,
) -> list[Dp4aMatmul]:
    """`a @ b`'s dp4a kernels' inputs, one per chunk of batches `(first,
    count)` (None: one chunk of all), sharing scratch buffers sized for the
    largest chunk (`scratch(dtype, count)` names a new zeroed buffer)."""
    batch = tuple(out_shape[:-2])
    rows, cols = out_shape[-2], out_shape[-1]
    total = numel(list(batch))
    bt = total if chunks is None else chunks[0][1]
    tm, tn = (rows + (TILE - 1)) // TILE, (cols + (TILE - 1)) // TILE
    blocks = (inner + (KSTEP - 1)) // KSTEP
    n = sym(Mo.N_MAX)
    shared = Dp4aMatmul(
        a,
        b,
        dtype,
        batch,
        rows,
        cols,
        inner,
        scratch(DataType.U32, bt * rows * STAT_WORDS),
        scratch(DataType.U32, bt * cols * STAT_WORDS),
        scratch(DataType.U32, bt * tm * tn),
        scratch(DataType.U32, bt * n * tm * blocks * (WORDS * TILE)),
        scratch(DataType.U32, bt * n * tn * blocks * (WORDS * TILE)),
        scratch(DataType.U32, bt * n * tm * tn * (TILE * TILE // 4)),
        scratch(DataType.U32, total * rows * cols),
        scratch(DataType.U32, sym(1)),
        causal=causal,
        order_a=None if causal is not None else scratch(DataType.U32, bt * rows),
        order_b=None if causal is not None else scratch(DataType.U32, bt * cols),
    )
    if chunks is None:
        return [shared]
    return [replace(shared, first=first, chunk=count) for first, count in chunks]


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def _min(a: Expr, b: Expr) -> Expr:
    return E.select(E.lt(a, b), a, b)


def _max(a: Expr, b: Expr) -> Expr:
    return E.select(E.gt(a, b), a, b)


def _table(index: Expr, values: list[int]) -> Expr:
    """`values[index]` as a chain of selects (0 past the end)."""
    picked: Expr = E.u32(0)
    for k, value in enumerate(values):
        picked = E.select(E.eq(index, E.u32(k)), E.u32(value), picked)
    return picked


def _k_bits(b: KernelBuilder, d: Dp4aMatmul) -> Expr:
    """ceil(log2(K)): K <= 2**k_bits."""
    return b.let(E.sub(E.u32(32), E.clz(E.sub(b.param(d.inner), E.u32(1)))), "kbits")


def _w_cap(b: KernelBuilder, d: Dp4aMatmul) -> tuple[Expr, Expr]:
    """(the widest line a tile may use, whether K is within `K_LIMIT`): two
    lines of that width and K products fit `N_MAX` moduli."""
    kbits = _k_bits(b, d)
    cap = b.let(E.div(E.sub(E.u32(Mo.PREFIX_BITS[Mo.N_MAX] - 1), kbits), E.u32(2)), "cap")
    return cap, b.let(E.le(b.param(d.inner), E.u32(K_LIMIT)), "kok")


def _line_value(b: KernelBuilder, d: Dp4aMatmul, side: str, bt: Expr, line: Expr, k: Expr) -> Expr:
    """Element k of line `line` (a row of a, a column of b) of batch `bt`."""
    whole = bt if d.first == 0 else E.add(bt, E.u32(d.first))
    idx = b.unflatten(whole, d.batch) if d.batch else []
    if side == "a":
        return emit(b, d.a, [*idx, line, k])
    return emit(b, d.b, [*idx, k, line])


@dataclass(frozen=True)
class _Bits:
    """A decoded value as an odd significand times a power of two: `odd *
    2**(low - 149)`, `top` the shift of its highest bit."""

    sign: Expr
    odd: Expr
    low: Expr
    top: Expr
    zero: Expr
    special: Expr


def _decode(b: KernelBuilder, value: Expr, dtype: DataType) -> _Bits:
    term = X.decode(b, value, X.FORMATS[dtype])
    tz = b.let(E.ctz(term.significand), "tz")
    odd = b.let(E.shr(term.significand, tz), "odd")
    low = b.let(E.add(term.shift, tz), "low")
    top = b.let(E.sub(E.add(term.shift, E.u32(31)), E.clz(term.significand)), "top")
    special = b.let(E.or_(term.nan, term.inf), "sp")
    return _Bits(term.sign, odd, low, top, term.zero, special)


# ---------------------------------------------------------------------------
# 1. Line statistics
# ---------------------------------------------------------------------------


def _stats(name: str, d: Dp4aMatmul, side: str) -> Planned:
    """Per line, three words: the lowest set bit's shift `s`; the width `W`
    (`|x| * 2**-s < 2**W` for every element; 0 for a line of zeros, `NONE`
    for a line holding an infinity or NaN); and `D = 2 W + bitlen(Q)` with
    `Q = sum over non-zero elements of ceil(2**(F - 2 (T - top)))`, `T` the
    line's highest bit and `top` the element's: `sum x**2 * 4**-s < 4**W * Q
    * 2**-F`, so the line's 2-norm (scaled) is below `2**((D - F) / 2)`
    (Cauchy-Schwarz then bounds a dot product by both lines' norms)."""
    b = KernelBuilder(name, STATS_WIDTH)
    lines = d.rows if side == "a" else d.cols
    out = b.buffer(d.stats_a if side == "a" else d.stats_b, DataType.U32, write=True)
    # the line's facts, merged with workgroup atomics (the words start at 0):
    # [0] the complement of the lowest shift (a max), [1] the highest bit,
    # [2] "bad", [3] Q
    facts = b.workgroup_buffer("facts", 4)
    g = b.let(E.workgroup_id(0), "g")
    li = b.let(E.local_id(0), "li")
    count = b.param(lines)
    bt = b.let(E.div(g, count), "bt")
    line = b.let(E.mod(g, count), "ln")
    lo, hi, bad, q = b.fresh("lo"), b.fresh("hi"), b.fresh("bad"), b.fresh("q")
    b.emit(Node.let(lo, E.u32(NONE)), Node.let(hi, E.u32(0)), Node.let(bad, E.u32(0)), Node.let(q, E.u32(0)))

    def over_line(visit: Callable[[_Bits], list[Node]]) -> None:
        c = b.fresh("c")
        k_len = b.param(d.inner)
        with b.block() as step:
            k = b.let(E.add(E.mul(E.var(c), E.u32(STATS_WIDTH)), li), "k")
            with b.block() as inside:
                bits = _decode(b, _line_value(b, d, side, bt, line, k), d.dtype)
                b.emit(*visit(bits))
            b.emit(Node.if_(E.lt(k, k_len), inside))
        steps = E.div(E.add(k_len, E.u32(STATS_WIDTH - 1)), E.u32(STATS_WIDTH))
        b.emit(Node.loop(c, E.u32(0), steps, step))

    def nonzero(bits: _Bits) -> Expr:
        return E.and_(E.logical_not(bits.zero), E.logical_not(bits.special))

    over_line(lambda bits: [
        Node.if_(nonzero(bits), [
            Node.assign(lo, _min(E.var(lo), bits.low)),
            Node.assign(hi, _max(E.var(hi), bits.top)),
        ]),
        Node.if_(bits.special, [Node.assign(bad, E.u32(1))]),
    ])
    b.emit(
        Node.let(b.fresh("old"), E.atomic(AtomicOp.MAX, facts, E.u32(0), E.bitnot(E.var(lo)))),
        Node.let(b.fresh("old"), E.atomic(AtomicOp.MAX, facts, E.u32(1), E.var(hi))),
        Node.let(b.fresh("old"), E.atomic(AtomicOp.OR, facts, E.u32(2), E.var(bad))),
        Node.barrier(),
        Node.assign(lo, E.bitnot(E.load(facts, E.u32(0)))),
        Node.assign(hi, E.load(facts, E.u32(1))),
        Node.assign(bad, E.load(facts, E.u32(2))),
    )

    def square_bound(bits: _Bits) -> list[Node]:
        gap = b.let(E.shl(E.sub(E.var(hi), bits.top), E.u32(1)), "gap")
        term = E.select(E.ge(gap, E.u32(F)), E.u32(1), E.shl(E.u32(1), E.sub(E.u32(F), gap)))
        return [Node.if_(nonzero(bits), [Node.assign(q, E.add(E.var(q), term))])]

    over_line(square_bound)
    b.emit(Node.let(b.fresh("old"), E.atomic(AtomicOp.ADD, facts, E.u32(3), E.var(q))), Node.barrier())
    with b.block() as first:
        total = b.let(E.load(facts, E.u32(3)), "Q")
        at = b.let(E.mul(E.add(E.mul(bt, count), line), E.u32(STAT_WORDS)), "at")
        empty = b.let(E.eq(E.var(lo), E.u32(NONE)), "empty")
        width = b.let(E.select(empty, E.u32(0), E.add(E.sub(E.var(hi), E.var(lo)), E.u32(1))), "W")
        doubled = E.add(E.shl(width, E.u32(1)), E.sub(E.u32(32), E.clz(total)))
        b.emit(
            Node.store(out, at, E.select(empty, E.u32(0), E.var(lo))),
            Node.store(out, E.add(at, E.u32(1)), E.select(E.ne(E.var(bad), E.u32(0)), E.u32(NONE), width)),
            Node.store(out, E.add(at, E.u32(2)), doubled),
        )
    b.emit(Node.if_(E.eq(li, E.u32(0)), first))
    return Planned(b, d.batches * lines)


# ---------------------------------------------------------------------------
# 1b. Lines in order of width
# ---------------------------------------------------------------------------

ORDER_WIDTH = 256
KEYS = 257
"""Widths 0 .. 255 (wider lines: 255), then the excluded lines."""


def _order(name: str, d: Dp4aMatmul, side: str) -> Planned:
    """Per batch (one workgroup), the lines of a side sorted by width: a
    counting sort on `min(W, 255)` (excluded lines last) writes the line at
    each position (`order[bt * lines + p]`). A tile of 128 positions then
    holds lines of like width, so its moduli follow its own lines rather
    than the widest of 128 arbitrary ones (N(0, 1) data: 12.2 -> 11.2 moduli
    a tile for rows sorted, 10.5 for both sides). Lines of equal width take
    positions in any order: which lines share a tile changes the work, never
    the bits (every output is exact)."""
    b = KernelBuilder(name, ORDER_WIDTH)
    lines, order = _side(d, side)
    assert order is not None
    stats = b.buffer(d.stats_a if side == "a" else d.stats_b, DataType.U32)
    out = b.buffer(order, DataType.U32, write=True)
    hist = b.workgroup_buffer("hist", KEYS)
    bt = b.let(E.workgroup_id(0), "bt")
    li = b.let(E.local_id(0), "li")
    count = b.param(lines)
    base = b.let(E.mul(bt, count), "base")
    steps = E.div(E.add(count, E.u32(ORDER_WIDTH - 1)), E.u32(ORDER_WIDTH))

    def each_line(visit: Callable[[Expr, Expr], list[Node]]) -> Node:
        c = b.fresh("c")
        with b.block() as step:
            line = b.let(E.add(E.mul(E.var(c), E.u32(ORDER_WIDTH)), li), "ln")
            with b.block() as inside:
                w = b.let(E.load(stats, E.add(E.mul(E.add(base, line), E.u32(STAT_WORDS)), E.u32(1))), "w")
                key = b.let(E.select(E.eq(w, E.u32(NONE)), E.u32(KEYS - 1), _min(w, E.u32(KEYS - 2))), "key")
                b.emit(*visit(line, key))
            b.emit(Node.if_(E.lt(line, count), inside))
        return Node.loop(c, E.u32(0), steps, step)

    b.emit(each_line(lambda line, key: [Node.let(b.fresh("old"), E.atomic(AtomicOp.ADD, hist, key, E.u32(1)))]), Node.barrier())
    with b.block() as scan:
        running, k = b.fresh("run"), b.fresh("k")
        with b.block() as body:
            here = b.let(E.load(hist, E.var(k)), "h")
            b.emit(Node.store(hist, E.var(k), E.var(running)), Node.assign(running, E.add(E.var(running), here)))
        b.emit(Node.let(running, E.u32(0)), Node.loop(k, E.u32(0), E.u32(KEYS), body))
    b.emit(Node.if_(E.eq(li, E.u32(0)), scan), Node.barrier())

    def place(line: Expr, key: Expr) -> list[Node]:
        slot = b.let(E.atomic(AtomicOp.ADD, hist, key, E.u32(1)), "slot")
        return [Node.store(out, E.add(base, slot), line)]

    b.emit(each_line(place))
    return Planned(b, d.batches)


def _side(d: Dp4aMatmul, side: str) -> tuple[Sym, str | None]:
    """(its lines, its order buffer) of side "a" (rows) or "b" (columns)."""
    return (d.rows, d.order_a) if side == "a" else (d.cols, d.order_b)


def _line_at(b: KernelBuilder, d: Dp4aMatmul, side: str, bt: Expr, position: Expr) -> Expr:
    """The line at `position` of batch `bt` (< lines) in the side's order."""
    lines, order = _side(d, side)
    if order is None:
        return position
    return b.let(E.load(b.buffer(order, DataType.U32), E.add(E.mul(bt, b.param(lines)), position)), "ol")


# ---------------------------------------------------------------------------
# 2. Moduli per tile
# ---------------------------------------------------------------------------


def _tile_width(b: KernelBuilder, d: Dp4aMatmul, side: str, bt: Expr, tile: Expr, cap: Expr, shared: str, slot: int) -> None:
    """Invocation `r` of a tile's workgroup: the line at position `r` of
    `tile`, if there is one and it is not excluded, raises `shared[slot]` to
    its width and `shared[slot + 1]` to its doubled norm width (workgroup
    atomics; the words start at 0)."""
    stats, lines = (d.stats_a, d.rows) if side == "a" else (d.stats_b, d.cols)
    src = b.buffer(stats, DataType.U32)
    count = b.param(lines)
    position = b.let(E.add(E.mul(tile, E.u32(TILE)), E.local_id(0)), "l")
    with b.block() as inside:
        line = _line_at(b, d, side, bt, position)
        at = b.let(E.mul(E.add(E.mul(bt, count), line), E.u32(STAT_WORDS)), "at")
        w = b.let(E.load(src, E.add(at, E.u32(1))), "wl")
        with b.block() as usable:
            b.emit(
                Node.let(b.fresh("old"), E.atomic(AtomicOp.MAX, shared, E.u32(slot), w)),
                Node.let(b.fresh("old"), E.atomic(AtomicOp.MAX, shared, E.u32(slot + 1), E.load(src, E.add(at, E.u32(2))))),
            )
        b.emit(Node.if_(E.le(w, cap), usable))
    b.emit(Node.if_(E.lt(position, count), inside))


def _plan(name: str, d: Dp4aMatmul) -> Planned:
    """Per output tile (one workgroup of `TILE`, an invocation per line of
    each side): the moduli its products need. A bound on `|C'|` over the
    tile: the smaller of `K * 2**(W_a + W_b)` and the product of the norms
    `2**((D_a + D_b) / 2 - F)` (each line's width and norm bound from
    `_stats`, maxima over the tile's lines that are not excluded); the fewest
    moduli whose product exceeds twice the bound (0 when a side has no
    non-zero line or K is too long: then every output is flagged)."""
    b = KernelBuilder(name, TILE)
    out = b.buffer(d.plan, DataType.U32, write=True)
    counter = b.buffer(d.count, DataType.U32, write=True)
    shared = b.workgroup_buffer("tile", 4)
    o = b.let(E.workgroup_id(0), "o")
    first = b.let(E.eq(E.local_id(0), E.u32(0)), "first")
    if d.first == 0:  # the list is shared by the chunks: reset before the first
        b.emit(Node.if_(E.and_(first, E.eq(o, E.u32(0))), [Node.store(counter, E.u32(0), E.u32(0))]))
    tm, tn = b.param(d.tiles_m), b.param(d.tiles_n)
    jt = b.let(E.mod(o, tn), "J")
    it = b.let(E.mod(E.div(o, tn), tm), "I")
    bt = b.let(E.div(E.div(o, tn), tm), "bt")
    cap, k_ok = _w_cap(b, d)
    _tile_width(b, d, "a", bt, it, cap, shared, 0)
    _tile_width(b, d, "b", bt, jt, cap, shared, 2)
    b.emit(Node.barrier())
    with b.block() as decide:
        wa, da, wb, db = (b.let(E.load(shared, E.u32(k)), name) for k, name in enumerate(("wa", "da", "wb", "db")))
        by_width = b.let(E.add(E.add(wa, wb), _k_bits(b, d)), "bw")
        half = b.let(E.div(E.add(E.add(da, db), E.u32(2)), E.u32(2)), "hn")  # ceil((da + db + 1) / 2)
        by_norm = b.let(E.select(E.gt(half, E.u32(F)), E.sub(half, E.u32(F)), E.u32(0)), "bn")
        bits = b.let(E.add(_min(by_width, by_norm), E.u32(1)), "bits")
        need: Expr = E.u32(Mo.N_MAX)
        for n in range(Mo.N_MAX - 1, 0, -1):
            need = E.select(E.ge(E.u32(Mo.PREFIX_BITS[n]), bits), E.u32(n), need)
        used = E.and_(k_ok, E.and_(E.ne(wa, E.u32(0)), E.ne(wb, E.u32(0))))
        wanted = E.select(used, need, E.u32(0))
        if d.causal == "outputs":  # a tile wholly above the diagonal: not computed
            wanted = E.select(E.gt(jt, it), E.u32(0), wanted)
        b.emit(Node.store(out, o, wanted))
    b.emit(Node.if_(first, decide))
    return Planned(b, d.batches * d.tiles_m * d.tiles_n)


# ---------------------------------------------------------------------------
# 3. Residues in the panel layout
# ---------------------------------------------------------------------------


SHIFTS = 96
"""Shifts a residue may need (an element's place in its line: below the widest
line width a tile may use, `W_cap` < 70)."""
POWER_WORDS = (Mo.N_MAX + 3) // 4
"""Words of `POWERS` per shift (a byte per modulus)."""
POWERS = tuple(
    sum(pow(2, shift, Mo.MODULI[t]) << (8 * (t % 4)) for t in range(4 * w, min(4 * w + 4, Mo.N_MAX)))
    for shift in range(SHIFTS)
    for w in range(POWER_WORDS)
)
"""`2**shift mod MODULI[t]` as byte `t % 4` of word `shift * POWER_WORDS + t // 4`."""


def _powers(b: KernelBuilder, shift: Expr) -> list[Expr]:
    """The words of `POWERS` for `shift` (< `SHIFTS`)."""
    return [b.let(E.lookup(POWERS, E.add(E.mul(shift, E.u32(POWER_WORDS)), E.u32(w))), "pw") for w in range(POWER_WORDS)]


def _residue_byte(b: KernelBuilder, t: int, bits: _Bits, powers: list[Expr]) -> Expr:
    """The centred residue, as a byte, of `(-1)**sign * odd * 2**shift`
    modulo `MODULI[t]`, `powers` the words of `POWERS` for `shift`."""
    m = Mo.MODULI[t]
    power = E.bitand(E.shr(powers[t // 4], E.u32(8 * (t % 4))), E.u32(0xFF))
    r = b.let(E.mod(E.mul(bits.odd, power), E.u32(m)), "r")  # odd < 2**24, power < 2**8: one remainder
    u = b.let(E.select(E.and_(E.ne(bits.sign, E.u32(0)), E.ne(r, E.u32(0))), E.sub(E.u32(m), r), r), "u")
    return E.select(E.ge(u, E.u32((m + 1) // 2)), E.add(u, E.u32(256 - m)), u)


def _residues(name: str, d: Dp4aMatmul, side: str) -> Planned:
    """One invocation per panel word: 4 values of k of one line, its word in
    every modulus's panel. (Computing only the moduli some tile of the line
    tile needs, from the plan, measured slower on the H200: 0.39 -> 0.49 ms
    for the medium block's linears.)"""
    b = KernelBuilder(name)
    lines, tiles = (d.rows, d.tiles_m) if side == "a" else (d.cols, d.tiles_n)
    stats = b.buffer(d.stats_a if side == "a" else d.stats_b, DataType.U32)
    out = b.buffer(d.res_a if side == "a" else d.res_b, DataType.U32, write=True)
    layer = tiles * d.blocks * (WORDS * TILE)
    o = b.let(E.gid_x(), "o")
    with b.block() as body:
        r = b.let(E.bitand(o, E.u32(TILE - 1)), "r")
        k4 = b.let(E.bitand(E.shr(o, E.u32(7)), E.u32(WORDS - 1)), "k4")
        rest = b.let(E.shr(o, E.u32(11)), "rest")
        kb = b.let(E.mod(rest, b.param(d.blocks)), "kb")
        rest2 = b.let(E.div(rest, b.param(d.blocks)), "rest")
        tile = b.let(E.mod(rest2, b.param(tiles)), "tl")
        bt = b.let(E.div(rest2, b.param(tiles)), "bt")
        position = b.let(E.add(E.mul(tile, E.u32(TILE)), r), "ln")
        count = b.param(lines)
        inside = b.let(E.lt(position, count), "in")
        safe_line = _line_at(b, d, side, bt, b.let(E.select(inside, position, E.u32(0)), "sp"))
        at = b.let(E.mul(E.add(E.mul(bt, count), safe_line), E.u32(STAT_WORDS)), "at")
        low = b.let(E.load(stats, at), "lw")
        width = b.let(E.load(stats, E.add(at, E.u32(1))), "wd")
        cap, _ = _w_cap(b, d)
        usable = b.let(E.and_(inside, E.le(width, cap)), "ok")
        k_len = b.param(d.inner)
        words = [b.fresh("wd") for _ in range(Mo.N_MAX)]
        b.emit(*(Node.let(w, E.u32(0)) for w in words))
        for q in range(4):
            k = b.let(E.add(E.mul(E.add(E.mul(kb, E.u32(WORDS)), k4), E.u32(4)), E.u32(q)), "k")
            live = b.let(E.and_(usable, E.lt(k, k_len)), "lv")
            with b.block() as element:
                bits = _decode(b, _line_value(b, d, side, bt, safe_line, k), d.dtype)
                shift = b.let(E.sub(bits.low, low), "sh")
                with b.block() as nonzero:
                    powers = _powers(b, shift)
                    for t, w in enumerate(words):
                        byte = _residue_byte(b, t, bits, powers)
                        b.emit(Node.assign(w, E.bitor(E.var(w), E.shl(byte, E.u32(8 * q)))))
                b.emit(Node.if_(E.logical_not(E.or_(bits.zero, bits.special)), nonzero))
            b.emit(Node.if_(live, element))
        base = b.let(E.sub(o, E.mul(bt, b.param(layer))), "pos")
        for t, w in enumerate(words):
            index = E.add(E.mul(E.add(E.mul(bt, E.u32(Mo.N_MAX)), E.u32(t)), b.param(layer)), base)
            b.emit(Node.store(out, index, E.var(w)))
    wanted = E.lt(o, b.param(d.batches * layer))
    if side == "a" and d.causal == "inner":  # steps of k past the tile's reach: the GEMM never reads them
        step = E.mod(E.shr(o, E.u32(11)), b.param(d.blocks))
        tile_of = E.mod(E.div(E.shr(o, E.u32(11)), b.param(d.blocks)), b.param(tiles))
        wanted = E.and_(wanted, E.lt(step, E.mul(E.add(tile_of, E.u32(1)), E.u32(TILE // KSTEP))))
    b.emit(Node.if_(wanted, body))
    return Planned(b, (d.batches * layer + 255) // 256)


# ---------------------------------------------------------------------------
# 4. The integer GEMM, one modulus a workgroup
# ---------------------------------------------------------------------------

PAIR = 2
"""Words of k an inner step of the GEMM takes: each output adds the sum of
their two dot products, `acc + (d1 + d2)`, one three-input add after two
DP4As. The GPU adds a `dot4I8Packed` to an accumulator with a second
instruction (on the H200 the GEMM ran at half the DP4A rate: 8.3 T dot
products/s, the bound of two instructions each); pairing takes 1.5 (the
medium block's linears 9.6 -> 7.2 ms, 11 T/s; four a step measured slower,
8.1 ms)."""

TM = 8
PANEL = WORDS * TILE
"""Words of one step's panel of one operand (2,048)."""
QUADS = PANEL // 4
"""The panel in U128 quads (four consecutive words, lines `4 l .. 4 l + 3` of
one word of k), as the GEMM holds it in workgroup memory: an invocation
reads its four lines' words with one 128-bit load instead of four."""


def _quad(words: list[Expr]) -> Expr:
    """Four u32 words as one U128, `words[0]` the low one."""
    quad = E.cast(DataType.U128, words[0])
    for w in range(1, 4):
        quad = E.bitor(quad, E.shl(E.cast(DataType.U128, words[w]), E.u128(32 * w)))
    return quad


def _word(quad: Expr, w: int) -> Expr:
    """Word `w` of a U128."""
    return E.cast(DataType.U32, quad if w == 0 else E.shr(quad, E.u128(32 * w)))


def _gemm(name: str, d: Dp4aMatmul) -> Planned:
    b = KernelBuilder(name, 256)
    plan = b.buffer(d.plan, DataType.U32)
    res_a = b.buffer(d.res_a, DataType.U32)
    res_b = b.buffer(d.res_b, DataType.U32)
    out = b.buffer(d.res_c, DataType.U32, write=True)
    sa = b.workgroup_buffer("sa", QUADS, DataType.U128)
    sb = b.workgroup_buffer("sb", QUADS, DataType.U128)
    tm, tn, blocks = b.param(d.tiles_m), b.param(d.tiles_n), b.param(d.blocks)
    g = b.let(E.workgroup_id(0), "g")
    jt = b.let(E.mod(g, tn), "J")
    g1 = b.let(E.div(g, tn), "g")
    it = b.let(E.mod(g1, tm), "I")
    g2 = b.let(E.div(g1, tm), "g")
    t = b.let(E.mod(g2, E.u32(Mo.N_MAX)), "t")
    bt = b.let(E.div(g2, E.u32(Mo.N_MAX)), "bt")
    need = b.let(E.load(plan, E.add(E.mul(E.add(E.mul(bt, tm), it), tn), jt)), "need")
    with b.block() as body:
        _gemm_body(b, d, (res_a, res_b, out, sa, sb), (tm, tn, blocks), (it, jt, t, bt))
    b.emit(Node.if_(E.lt(t, need), body))
    return Planned(b, d.batches * sym(Mo.N_MAX) * d.tiles_m * d.tiles_n)


def _gemm_body(
    b: KernelBuilder,
    d: Dp4aMatmul,
    names: tuple[str, str, str, str, str],
    sizes: tuple[Expr, Expr, Expr],
    where: tuple[Expr, Expr, Expr, Expr],
) -> None:
    res_a, res_b, out, sa, sb = names
    tm, tn, blocks = sizes
    it, jt, t, bt = where
    li = b.let(E.local_id(0), "li")
    tx = b.let(E.bitand(li, E.u32(15)), "tx")
    ty = b.let(E.shr(li, E.u32(4)), "ty")
    layer = b.let(E.add(E.mul(bt, E.u32(Mo.N_MAX)), t), "ly")
    a_base = b.let(E.mul(E.add(E.mul(layer, tm), it), E.mul(blocks, E.u32(PANEL))), "ab")
    b_base = b.let(E.mul(E.add(E.mul(layer, tn), jt), E.mul(blocks, E.u32(PANEL))), "bb")
    acc = [[b.fresh(f"c{r}_{c}_") for c in range(TM)] for r in range(TM)]
    b.emit(*(Node.let(name, E.u32(0)) for row in acc for name in row))
    # each invocation copies QUADS // 256 quads (4 consecutive panel words,
    # one U128) of each side a step; the next step's are prefetched
    per = QUADS // 256
    pa = [[b.fresh("pa") for _ in range(4)] for _ in range(per)]
    pb = [[b.fresh("pb") for _ in range(4)] for _ in range(per)]

    def fetch_words(offset: Expr | None, first: bool) -> list[Node]:
        nodes: list[Node] = []
        for q in range(per):
            for w in range(4):
                word = E.add(E.mul(E.add(E.u32(q * 256), li), E.u32(4)), E.u32(w))
                at = word if offset is None else E.add(offset, word)
                for buf, base, held in ((res_a, a_base, pa), (res_b, b_base, pb)):
                    value = E.load(buf, E.add(base, at))
                    nodes.append(Node.let(held[q][w], value) if first else Node.assign(held[q][w], value))
        return nodes

    b.emit(*fetch_words(None, True))
    kb, k4 = b.fresh("kb"), b.fresh("k4")
    if d.causal == "inner":  # the tile's rows reach k <= (it + 1) * TILE - 1
        reach = E.mul(E.add(it, E.u32(1)), E.u32(TILE // KSTEP))
        blocks = b.let(E.select(E.lt(reach, blocks), reach, blocks), "kbs")
    with b.block() as step:
        b.emit(Node.barrier())
        for q in range(per):
            b.emit(
                Node.store(sa, E.add(E.u32(q * 256), li), _quad([E.var(w) for w in pa[q]])),
                Node.store(sb, E.add(E.u32(q * 256), li), _quad([E.var(w) for w in pb[q]])),
            )
        b.emit(Node.barrier())
        with b.block() as fetch:
            nxt = b.let(E.mul(E.add(E.var(kb), E.u32(1)), E.u32(PANEL)), "nx")
            b.emit(*fetch_words(nxt, False))
        b.emit(Node.if_(E.lt(E.add(E.var(kb), E.u32(1)), blocks), fetch))
        with b.block() as inner:
            # words kw = PAIR k4 + kk of k; lines 4 ty .. 4 ty + 3 and 64 + 4 ty ..
            # (rows), 4 tx .. (columns): quad kw * TILE / 4 + ty (+ 16) of the panel
            avs: list[list[Expr]] = []
            bvs: list[list[Expr]] = []
            for kk in range(PAIR):
                kw = b.let(E.add(E.mul(E.var(k4), E.u32(PAIR)), E.u32(kk)), "kw")
                quads_a = [b.let(E.load(sa, E.bitand(E.add(E.mul(kw, E.u32(TILE // 4)), E.add(ty, E.u32(16 * h))), E.u32(QUADS - 1))), "qa") for h in range(2)]
                quads_b = [b.let(E.load(sb, E.bitand(E.add(E.mul(kw, E.u32(TILE // 4)), E.add(tx, E.u32(16 * h))), E.u32(QUADS - 1))), "qb") for h in range(2)]
                avs.append([b.let(_word(quads_a[r // 4], r % 4), "a") for r in range(TM)])
                bvs.append([b.let(_word(quads_b[c // 4], c % 4), "b") for c in range(TM)])
            for r in range(TM):
                for c in range(TM):
                    pair = E.add(E.dot4_i8(avs[0][r], bvs[0][c]), E.dot4_i8(avs[1][r], bvs[1][c]))
                    b.emit(Node.assign(acc[r][c], E.add(E.var(acc[r][c]), pair)))
        b.emit(Node.loop(k4, E.u32(0), E.u32(WORDS // PAIR), inner))
    b.emit(Node.loop(kb, E.u32(0), blocks, step))
    modulus = b.let(_table(t, list(Mo.MODULI)), "m")
    # the residues of C' + M/2: M/2 is 128 modulo 256 and 0 modulo the others (moduli.py)
    shift = b.let(_table(t, [Mo.offset(k) + (128 if k == 0 else 0) for k in range(Mo.N_MAX)]), "off")
    width = b.let(E.mul(tn, E.u32(TILE // 4)), "nw")
    for r in range(TM):
        row = E.add(E.mul(it, E.u32(TILE)), E.add(E.u32((r // 4) * 64 + r % 4), E.shl(ty, E.u32(2))))
        base = b.let(E.mul(E.add(E.mul(layer, E.mul(tm, E.u32(TILE))), row), width), "cb")
        for h in range(2):
            word: Expr = E.u32(0)
            for q in range(4):
                residue = E.mod(E.add(E.var(acc[r][h * 4 + q]), shift), modulus)
                word = E.bitor(word, E.shl(residue, E.u32(8 * q)))
            col = E.add(E.mul(jt, E.u32(TILE // 4)), E.add(E.u32(h * 16), tx))
            b.emit(Node.store(out, E.add(base, col), word))


# ---------------------------------------------------------------------------
# 5. Reconstruction and the one rounding
# ---------------------------------------------------------------------------


def round_scaled(b: KernelBuilder, mag: list[Expr], negative: Expr, shift: Expr) -> Expr:
    """The F32 bits of `(-1)**negative * |C| * 2**(shift - 298)`, `|C| > 0`
    given in 24-bit digits `mag`, rounded once to nearest-even (subnormals
    exact, overflow to infinity)."""
    position: Expr = E.u32(0)
    for k, digit in enumerate(mag):
        here = E.sub(E.u32(24 * k + 31), E.clz(digit))
        position = b.let(E.select(E.ne(digit, E.u32(0)), here, position), "pos")
    top = b.let(E.add(position, shift), "P")  # the leading bit, units of 2**-298
    normal = b.let(E.ge(top, E.u32(298 - 126)), "nrm")
    lsb = b.let(E.select(normal, E.sub(top, E.u32(23)), E.u32(298 - 149)), "L")
    # |C| < 2**24 when lsb < shift: nothing is rounded off
    exact = b.let(E.lt(lsb, shift), "ex")
    local = b.let(E.select(exact, E.u32(0), E.sub(lsb, shift)), "l")
    at = b.let(E.div(local, E.u32(24)), "a")
    sh = b.let(E.mod(local, E.u32(24)), "s")
    first, second = X.pick(b, mag, at, "pk"), X.pick(b, mag, E.add(at, E.u32(1)), "pk")
    kept = E.bitand(E.bitor(E.shr(first, sh), E.shl(second, E.sub(E.u32(24), sh))), E.u32(0xFF_FFFF))
    round_at = b.let(E.sub(local, E.u32(1)), "R")
    ra = b.let(E.div(round_at, E.u32(24)), "ra")
    rb = b.let(E.mod(round_at, E.u32(24)), "rb")
    word = X.pick(b, mag, ra, "pk")
    round_bit = E.bitand(E.shr(word, rb), E.u32(1))
    sticky: Expr = E.ne(E.bitand(word, E.sub(E.shl(E.u32(1), rb), E.u32(1))), E.u32(0))
    for k, digit in enumerate(mag):
        sticky = E.or_(sticky, E.and_(E.lt(E.u32(k), ra), E.ne(digit, E.u32(0))))
    sticky = b.let(sticky, "st")
    significand = b.let(E.select(exact, E.shl(mag[0], E.sub(shift, lsb)), kept), "m")
    has_round = E.and_(E.logical_not(exact), E.ne(local, E.u32(0)))
    up = E.and_(E.and_(has_round, E.ne(round_bit, E.u32(0))), E.or_(sticky, E.ne(E.bitand(significand, E.u32(1)), E.u32(0))))
    rounded = b.let(E.add(significand, E.select(up, E.u32(1), E.u32(0))), "mr")
    exponent_part = E.shl(E.sub(top, E.u32(298 - 126)), E.u32(23))
    bits = b.let(E.select(normal, E.add(exponent_part, rounded), rounded), "bits")
    overflow = E.or_(E.gt(top, E.u32(298 + 127)), E.ge(bits, E.u32(0x7F80_0000)))
    finite = E.select(overflow, E.u32(0x7F80_0000), bits)
    return b.let(E.bitor(finite, E.select(negative, E.u32(0x8000_0000), E.u32(0))), "res")


def _garner(b: KernelBuilder, residue: Callable[[int], Expr], need: Expr) -> tuple[list[Expr], Expr]:
    """(|C| in 24-bit digits, whether C < 0) from the residues of `C + M/2`
    modulo the first `need` moduli (vyre.transforms.tensors.moduli.reconstruct;
    `residue(t)` emits the load of residue `t`, only for `t < need`).
    Horner's rule runs over every modulus, the digits past `need` being 0
    (skipping them behind branches on `need` measured slower on the H200,
    even with the outputs in tile order so that `need` is the same across a
    warp: 0.98 -> 1.19 ms for the medium block's linears)."""
    digits = [b.fresh("v") for _ in range(Mo.N_MAX)]
    b.emit(*(Node.let(v, E.u32(0)) for v in digits))
    for t in range(Mo.N_MAX):
        m = Mo.MODULI[t]
        with b.block() as column:
            x = residue(t)
            below: Expr = E.u32(0)  # at most garner_lift(t) < 2**21
            for s in range(t):
                below = b.let(E.add(below, E.mul(E.var(digits[s]), E.u32(Mo.prefix_mod(s, t)))), "w")
            lifted = E.sub(E.add(x, E.u32(Mo.garner_lift(t))), below)  # < 2**21, times < 2**8: one remainder
            b.emit(Node.assign(digits[t], E.mod(E.mul(lifted, E.u32(Mo.prefix_inverse(t))), E.u32(m))))
        b.emit(Node.if_(E.lt(E.u32(t), need), column))
    # X = C + M/2 in binary (Horner's rule; the digits past `need` are 0),
    # then C = X - M/2: its sign the borrow, |C| the other difference
    mag: list[Expr] = [E.u32(0)] * DIGITS
    for t in range(Mo.N_MAX - 1, -1, -1):
        m = Mo.MODULI[t]
        carry: Expr = E.var(digits[t])
        for k in range(Mo.horner_digits(t)):  # the digits a value below prod(MODULI[t:]) has
            p = b.let(E.add(E.mul(mag[k], E.u32(m)), carry), "p")
            mag[k] = b.let(E.bitand(p, E.u32(0xFF_FFFF)), "y")
            carry = E.shr(p, E.u32(24))
    half = [b.let(E.lookup(HALVES, E.add(E.mul(need, E.u32(DIGITS)), E.u32(k))), "h") for k in range(DIGITS)]

    def minus(x: list[Expr], y: list[Expr]) -> tuple[list[Expr], Expr]:
        out: list[Expr] = []
        borrow: Expr = E.u32(0)
        for xk, yk in zip(x, y):
            d = b.let(E.sub(E.sub(E.add(xk, E.u32(1 << 24)), yk), borrow), "d")
            out.append(E.bitand(d, E.u32(0xFF_FFFF)))
            borrow = b.let(E.sub(E.u32(1), E.shr(d, E.u32(24))), "br")
        return out, borrow

    over, under = minus(mag, half)
    short, _ = minus(half, mag)
    negative = b.let(E.ne(under, E.u32(0)), "neg")
    return [b.let(E.select(negative, lo, hi), "c") for hi, lo in zip(over, short)], negative


def _reconstruct(name: str, d: Dp4aMatmul, out: str) -> Planned:
    """One invocation per output, in the order of the tiles' positions (the
    sides' orders): a warp's outputs share a tile, so its `need`, and read
    consecutive residues; each writes its output at its lines' place."""
    b = KernelBuilder(name)
    stats_a, stats_b = b.buffer(d.stats_a, DataType.U32), b.buffer(d.stats_b, DataType.U32)
    plan, res_c = b.buffer(d.plan, DataType.U32), b.buffer(d.res_c, DataType.U32)
    target = b.buffer(out, DataType.F32, write=True)
    flagged = b.buffer(d.flagged, DataType.U32, write=True)
    counter = b.buffer(d.count, DataType.U32, write=True)
    o = b.let(E.gid_x(), "o")
    with b.block() as body:
        rows, cols = b.param(d.rows), b.param(d.cols)
        pj = b.let(E.mod(o, cols), "pj")
        pi = b.let(E.mod(E.div(o, cols), rows), "pi")
        bt = b.let(E.div(E.div(o, cols), rows), "bt")
        i, j = _line_at(b, d, "a", bt, pi), _line_at(b, d, "b", bt, pj)
        at_a = b.let(E.mul(E.add(E.mul(bt, rows), i), E.u32(STAT_WORDS)), "sa")
        at_b = b.let(E.mul(E.add(E.mul(bt, cols), j), E.u32(STAT_WORDS)), "sb")
        cap, k_ok = _w_cap(b, d)
        wa, wb = E.load(stats_a, E.add(at_a, E.u32(1))), E.load(stats_b, E.add(at_b, E.u32(1)))
        usable = b.let(E.and_(k_ok, E.and_(E.le(wa, cap), E.le(wb, cap))), "ok")
        tm, tn = b.param(d.tiles_m), b.param(d.tiles_n)
        tile = E.add(E.mul(E.add(E.mul(bt, tm), E.div(pi, E.u32(TILE))), tn), E.div(pj, E.u32(TILE)))
        need = b.let(E.select(usable, E.load(plan, tile), E.u32(0)), "need")
        width = b.let(E.mul(tn, E.u32(TILE // 4)), "nw")
        rows_pad = b.let(E.mul(tm, E.u32(TILE)), "mp")
        lane = b.let(E.mul(E.bitand(pj, E.u32(3)), E.u32(8)), "q")
        col = b.let(E.shr(pj, E.u32(2)), "c4")

        def residue(t: int) -> Expr:
            layer = E.add(E.mul(bt, E.u32(Mo.N_MAX)), E.u32(t))
            word = E.load(res_c, E.add(E.mul(E.add(E.mul(layer, rows_pad), pi), width), col))
            return b.let(E.bitand(E.shr(word, lane), E.u32(0xFF)), "x")

        mag, negative = _garner(b, residue, need)
        nonzero: Expr = E.u32(0)
        for digit in mag:
            nonzero = E.bitor(nonzero, digit)
        shift = b.let(E.add(E.load(stats_a, at_a), E.load(stats_b, at_b)), "S")
        whole = b.let(E.add(E.mul(E.add(E.mul(E.add(bt, E.u32(d.first)), rows), i), cols), j), "ow")
        with b.block() as done:
            bits = round_scaled(b, mag, negative, shift)
            b.emit(Node.store(target, whole, E.bitcast(DataType.F32, bits)))
        with b.block() as left:
            slot = b.let(E.atomic(AtomicOp.ADD, counter, E.u32(0), E.u32(1)), "slot")
            b.emit(Node.store(flagged, slot, whole))
        b.emit(Node.if_(E.ne(nonzero, E.u32(0)), done, left))
    wanted = E.lt(o, b.param(d.outputs))
    if d.causal == "outputs":  # see `Causal` (no order: positions are the lines)
        j_of, i_of = E.mod(o, b.param(d.cols)), E.mod(E.div(o, b.param(d.cols)), b.param(d.rows))
        wanted = E.and_(wanted, E.le(j_of, i_of))
    b.emit(Node.if_(wanted, body))
    return Planned(b, (d.outputs + 255) // 256)


def dp4a_kernels(name: str, d: Dp4aMatmul, out: str) -> list[Planned]:
    """Kernels 1-5 of one chunk (the caller adds the per-product kernel for
    the listed outputs); a chunk after the first has its own kernels, named
    `_c<first batch>`."""
    tag = "" if d.first == 0 else f"_c{d.first}"
    order = [] if d.order_a is None or d.order_b is None else [_order(f"{name}_order_a{tag}", d, "a"), _order(f"{name}_order_b{tag}", d, "b")]
    return [
        _stats(f"{name}_stats_a{tag}", d, "a"),
        _stats(f"{name}_stats_b{tag}", d, "b"),
        *order,
        _plan(f"{name}_plan{tag}", d),
        _residues(f"{name}_res_a{tag}", d, "a"),
        _residues(f"{name}_res_b{tag}", d, "b"),
        _gemm(f"{name}_gemm{tag}", d),
        _reconstruct(f"{name}_crt{tag}", d, out),
    ]
