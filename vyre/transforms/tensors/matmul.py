"""The kernels of `vtensor.matmul`: one invocation per output element.

`exact`: every product `a[..., i, k] * b[..., k, j]` exactly (the significands'
48-bit product from 12-bit limbs, its shift the sum of the operands') added to
a 26-digit fixed-point accumulator in workgroup memory (vyre.transforms.tensors.exact),
`CHUNK` products per dispatch, the accumulator kept on the device between
repeats; a last kernel rounds each accumulator once to F32 (when the inner
length is a constant of at most `CHUNK`, one kernel adds and rounds, and the
accumulator never leaves workgroup memory). The result does not depend on the
order of the products, so any split gives the same bits.

`sequential`: `acc = a0 * b0`, then `acc = fma(a_k, b_k, acc)` for k = 1 .. K-1
in that order (the running F32 value kept in the output between repeats).
F16/BF16 operands are converted to F32 exactly first; K = 0 gives +0.0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from vyre.dialects.symbolic import Sym, sym
from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.transforms.tensors import exact as X
from vyre.transforms.tensors.kernel import KernelBuilder, Leaf, Rep, emit
from vyre.dialects.tensor_layout import Layout, numel
from vyre.transforms.tensors.matmul_dp4a import K_LIMIT, Causal, chunk_limit_words, chunk_words, dp4a_kernels, plan_buffers
from vyre.transforms.tensors.reduce import Planned

__all__ = ["CHUNK", "Matmul", "matmul_kernels", "stacked"]

WORKGROUP = 64
"""Invocations of an exact-accumulation workgroup (each holds 27 words of
workgroup memory)."""
CHUNK = 8192
NORMALIZE_EVERY = 32
WORDS = X.PRODUCT_DIGITS + 1


@dataclass(frozen=True)
class Matmul:
    """`a @ b` over `out_shape` (batch dims, M, N), inner length `inner`;
    `a` and `b` already broadcast to (batch, M, K) and (batch, K, N)."""

    a: Rep
    b: Rep
    dtype: DataType
    out_shape: tuple[Sym, ...]
    inner: Sym
    causal: Causal = None
    """What a causal attention lets the 8-bit path skip (matmul_dp4a.Causal)."""

    @property
    def outputs(self) -> Sym:
        total = sym(1)
        for d in self.out_shape:
            total = total * d
        return total


def _ceil(a: Sym, b: int) -> Sym:
    return (a + (b - 1)) // b


def _operands(b: KernelBuilder, mm: Matmul, idx: list[Expr], k: Expr) -> tuple[Expr, Expr]:
    batch, i, j = idx[:-2], idx[-2], idx[-1]
    return emit(b, mm.a, [*batch, i, k]), emit(b, mm.b, [*batch, k, j])


def _count(b: KernelBuilder, mm: Matmul, rep: Expr) -> Expr:
    """Products this dispatch adds: min(K - rep * CHUNK, CHUNK)."""
    remaining = b.let(E.sub(b.param(mm.inner), E.mul(rep, E.u32(CHUNK))), "rem")
    return b.let(E.select(E.lt(remaining, E.u32(CHUNK)), remaining, E.u32(CHUNK)), "cnt")


Only = tuple[str, str] | None
"""(list, count): the outputs to compute, `count[0]` of them; None: all."""
LIST_GROUPS = 1024
"""Workgroups that walk a list of outputs."""


def _groups(mm: Matmul, width: int, only: Only) -> Sym:
    """Workgroups of a kernel of one invocation per output (a list: at most `LIST_GROUPS`)."""
    groups = _ceil(mm.outputs, width)
    return groups if only is None else groups.min(LIST_GROUPS)


def _per_output(b: KernelBuilder, mm: Matmul, body: Callable[[Expr], None], only: Only = None) -> None:
    """`body(o)` for every output `o` (one invocation each), or, with `only`,
    for each listed output (the invocations stride over the list)."""
    o = b.let(E.gid_x(), "o")
    if only is None:
        with b.block() as guarded:
            body(o)
        b.emit(Node.if_(E.lt(o, b.param(mm.outputs)), guarded))
        return
    listed, counter = b.buffer(only[0], DataType.U32), b.buffer(only[1], DataType.U32)
    count = b.let(E.load(counter, E.u32(0)), "n")
    stride = b.param(_groups(mm, b.workgroup, only) * b.workgroup)
    c = b.fresh("c")
    with b.block() as step:
        at = b.let(E.add(E.mul(E.var(c), stride), o), "at")
        with b.block() as guarded:
            body(b.let(E.load(listed, at), "o"))
        b.emit(Node.if_(E.lt(at, count), guarded))
    b.emit(Node.loop(c, E.u32(0), E.div(E.add(count, E.sub(stride, E.u32(1))), stride), step))


def _add_products(b: KernelBuilder, mm: Matmul, row: X.Row, o: Expr, rep: Expr) -> None:
    """Add this dispatch's products of output `o` (at most `CHUNK`, from
    `k = rep * CHUNK`) to `row`, normalised after every `NORMALIZE_EVERY`."""
    fmt = X.FORMATS[mm.dtype]
    idx = b.unflatten(o, mm.out_shape)
    count = _count(b, mm, rep)
    c, kk, flags = b.fresh("c"), b.fresh("kk"), b.fresh("fl")
    b.emit(Node.let(flags, E.u32(0)))
    with b.block() as step:
        within = b.let(E.add(E.mul(E.var(c), E.u32(NORMALIZE_EVERY)), E.var(kk)), "kc")
        with b.block() as add:
            k = b.let(E.add(E.mul(rep, E.u32(CHUNK)), within), "k")
            x, y = _operands(b, mm, idx, k)
            X.product(b, row, X.decode(b, x, fmt), X.decode(b, y, fmt), flags)
        b.emit(Node.if_(E.lt(within, count), add))
    with b.block() as tail:
        X.normalize(b, row)
    chunks = E.div(E.add(count, E.u32(NORMALIZE_EVERY - 1)), E.u32(NORMALIZE_EVERY))
    b.emit(Node.loop(c, E.u32(0), chunks, [Node.loop(kk, E.u32(0), E.u32(NORMALIZE_EVERY), step), *tail]))
    X.flush_flags(b, row, flags)


def _exact_accumulate(name: str, mm: Matmul, state: str, only: Only) -> Planned:
    b = KernelBuilder(name, WORKGROUP)
    acc = b.workgroup_buffer("acc", WORKGROUP * WORDS)
    rep = b.param(sym("rep"))
    saved = b.buffer(state, DataType.U32, write=True)

    def body(o: Expr) -> None:
        row = X.Row(acc, E.mul(E.local_id(0), E.u32(WORDS)), X.PRODUCT_DIGITS)
        stored = X.Row(saved, E.mul(o, E.u32(WORDS)), X.PRODUCT_DIGITS)
        with b.block() as fresh:
            X.clear(b, row)
        with b.block() as restore:
            X.copy(b, row, stored)
        b.emit(Node.if_(E.eq(rep, E.u32(0)), fresh, restore))
        _add_products(b, mm, row, o, rep)
        X.copy(b, stored, row)

    _per_output(b, mm, body, only)
    return Planned(b, _groups(mm, WORKGROUP, only), _ceil(mm.inner, CHUNK).max(1))


def _exact_single(name: str, mm: Matmul, out: str, only: Only) -> Planned:
    """The exact matmul in one dispatch when the inner length is a constant of
    at most `CHUNK`: the accumulator never leaves workgroup memory and is
    rounded where it was summed (the same bits as accumulate + round)."""
    b = KernelBuilder(name, WORKGROUP)
    acc = b.workgroup_buffer("acc", WORKGROUP * WORDS)
    target = b.buffer(out, DataType.F32, write=True)

    def body(o: Expr) -> None:
        row = X.Row(acc, E.mul(E.local_id(0), E.u32(WORDS)), X.PRODUCT_DIGITS)
        X.clear(b, row)
        _add_products(b, mm, row, o, E.u32(0))
        bits = X.round_row(b, row, X.PRODUCT_SCALE, X.FORMATS[DataType.F32])
        b.emit(Node.store(target, o, E.bitcast(DataType.F32, bits)))

    _per_output(b, mm, body, only)
    return Planned(b, _groups(mm, WORKGROUP, only))


def _exact_round(name: str, mm: Matmul, state: str, out: str, only: Only) -> Planned:
    b = KernelBuilder(name)
    saved = b.buffer(state, DataType.U32)
    target = b.buffer(out, DataType.F32, write=True)

    def body(o: Expr) -> None:
        row = X.Row(saved, E.mul(o, E.u32(WORDS)), X.PRODUCT_DIGITS)
        digits = [b.let(row.load(w), "w") for w in range(X.PRODUCT_DIGITS)]
        flags = b.let(row.load(row.flags), "fl")
        bits = X.round_to(b, digits, flags, X.PRODUCT_SCALE, X.FORMATS[DataType.F32])
        b.emit(Node.store(target, o, E.bitcast(DataType.F32, bits)))

    _per_output(b, mm, body, only)
    return Planned(b, _groups(mm, 256, only))


def _to_f32(value: Expr, dtype: DataType) -> Expr:
    return value if dtype is DataType.F32 else E.cast(DataType.F32, value)


def _sequential(name: str, mm: Matmul, out: str) -> Planned:
    b = KernelBuilder(name)
    rep = b.param(sym("rep"))
    target = b.buffer(out, DataType.F32, write=True)

    def body(o: Expr) -> None:
        acc, kk = b.fresh("acc"), b.fresh("kk")
        b.emit(Node.let(acc, E.select(E.eq(rep, E.u32(0)), E.f32(0.0), E.load(target, o))))
        idx = b.unflatten(o, mm.out_shape)
        count = _count(b, mm, rep)
        with b.block() as step:
            k = b.let(E.add(E.mul(rep, E.u32(CHUNK)), E.var(kk)), "k")
            x, y = _operands(b, mm, idx, k)
            xf, yf = b.let(_to_f32(x, mm.dtype), "x"), b.let(_to_f32(y, mm.dtype), "y")
            b.emit(
                Node.if_(
                    E.eq(k, E.u32(0)),
                    [Node.assign(acc, E.fmul(xf, yf))],
                    [Node.assign(acc, E.fma(xf, yf, E.var(acc)))],
                )
            )
        b.emit(Node.loop(kk, E.u32(0), count, step), Node.store(target, o, E.var(acc)))

    _per_output(b, mm, body)
    return Planned(b, _ceil(mm.outputs, 256), _ceil(mm.inner, CHUNK).max(1))


def stacked(mm: Matmul) -> Matmul:
    """`mm` as one matmul of the stacked rows when `b` is the same matrix for
    every batch (a weight: batch strides 0) and `a`'s batch and row dims step
    as one: (batch, M, K) @ (K, N) is (batch * M, K) @ (K, N), the output's
    memory unchanged (it is contiguous). Otherwise `mm` itself.

    Each product and each sum is the same, so are the bits; what changes is
    the work that depends on `b` alone (its line statistics and residues in
    the 8-bit path), done once instead of once per batch."""
    a, b = mm.a, mm.b
    batch = len(mm.out_shape) - 2
    if batch == 0 or mm.causal is not None or not isinstance(a, Leaf) or not isinstance(b, Leaf):
        return mm
    if any(stride.value != 0 for stride in b.layout.strides[:batch]):
        return mm
    shape, strides = a.layout.shape, a.layout.strides
    kept = [k for k in range(batch + 1) if shape[k].value != 1]
    if not kept or any(strides[k] != strides[k2] * shape[k2] for k, k2 in zip(kept, kept[1:])):
        return mm
    rows = numel(shape[: batch + 1])
    a2 = Leaf(a.buffer, a.dtype, Layout((rows, shape[-1]), (strides[kept[-1]], strides[-1]), a.layout.offset))
    b2 = Leaf(b.buffer, b.dtype, Layout(b.layout.shape[batch:], b.layout.strides[batch:], b.layout.offset))
    return Matmul(a2, b2, mm.dtype, (rows, mm.out_shape[-1]), mm.inner, mm.causal)


def matmul_kernels(name: str, mode: str, mm: Matmul, out: str, scratch: Callable[[DataType, Sym], str]) -> list[Planned]:
    """The kernels of one matmul; `scratch(dtype, count)` names a new zeroed buffer."""
    if mode == "sequential":
        return [_sequential(name, mm, out)]
    flat = stacked(mm)
    if flat is not mm and dp4a_applies(flat.out_shape, flat.inner):
        mm = flat
    fast: list[Planned] = []
    only: Only = None
    chunks = dp4a_chunks(mm.out_shape, mm.inner)
    if chunks is not False:
        parts = plan_buffers(mm.a, mm.b, mm.dtype, mm.out_shape, mm.inner, scratch, chunks, mm.causal)
        fast = [k for d in parts for k in dp4a_kernels(name, d, out)]
        only = (parts[0].flagged, parts[0].count)
    inner = mm.inner.value
    if inner is not None and inner <= CHUNK:
        return [*fast, _exact_single(f"{name}_rest" if fast else name, mm, out, only)]
    state = scratch(DataType.U32, mm.outputs * WORDS)
    return [
        *fast,
        _exact_accumulate(f"{name}_acc", mm, state, only),
        _exact_round(f"{name}_round", mm, state, out, only),
    ]


DP4A_MIN_PRODUCTS = 1 << 20
"""Below this many products (sizes known), the per-product kernel alone: the
dp4a path's nine dispatches cost more than it saves (a 1 Mi-product matmul is
~10^8 integer operations on the per-product kernel, microseconds on a GPU)."""


def dp4a_chunks(out_shape: tuple[Sym, ...], inner: Sym) -> list[tuple[int, Sym]] | None | Literal[False]:
    """Whether the 8-bit dot-product kernels serve an exact matmul (False:
    no), and over which chunks of batches `(first, count)` (None: all at
    once). They need an inner length that may be within `K_LIMIT` and
    residue buffers that fit a 2 GiB storage binding: with constant sizes,
    the batches are split into chunks that do; a single batch too big is
    False, and so is a matmul of fewer than `DP4A_MIN_PRODUCTS` products.
    With sizes known only at run time: all at once."""
    k = inner.value
    if k is not None and k > K_LIMIT:
        return False
    products = (numel(list(out_shape)) * inner).value
    if products is not None and products < DP4A_MIN_PRODUCTS:
        return False
    per = chunk_words(out_shape[-2], out_shape[-1], inner).value
    batches = numel(list(out_shape[:-2])).value
    if per is None or batches is None:
        return None
    if per > chunk_limit_words():
        return False
    step = max(1, chunk_limit_words() // max(per, 1))
    if batches <= step:
        return None
    return [(first, sym(min(step, batches - first))) for first in range(0, batches, step)]


def dp4a_applies(out_shape: tuple[Sym, ...], inner: Sym) -> bool:
    """Whether the 8-bit dot-product kernels serve `a @ b` of this shape."""
    return dp4a_chunks(out_shape, inner) is not False
