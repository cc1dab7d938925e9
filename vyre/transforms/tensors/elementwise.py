"""The elementwise kernel: a value (views and fused elementwise ops over
buffers, a `Rep` of vyre.transforms.tensors.kernel) written to a new
contiguous buffer by one kernel, in one of two forms.

The value is coalesced first (`coalesce`: dims of size 1 dropped, dims every
leaf steps over as one merged), so contiguous data is one dim.

**Flat** (`flat_kernel`): invocation `f` (the global invocation id) computes
output element `f`. A leaf laid out like the output (row-major, any offset
`o`) is read at `f + o`, with no index arithmetic; any other leaf at its
strided index, from the multi-index of `f` (a division and a remainder per dim;
a static dim is a literal divisor, which the shader compiler turns into a
multiply and a shift). The store is unconditional: the grid is rounded up to
whole workgroups, and an invocation past the last element stores past the end
of the output buffer, which vyre defines as no store (its loads are defined
too: a load past the end of a buffer reads 0). So the kernel is a map
(vyre/lowering/map_shape.py), which the wgpu runtime runs vectorised: 8
elements per invocation, `vec4` loads of the leaves read at `f`, `vec4` stores,
and the output's old content never read.

**Tiled** (`tiled_kernel`): when a leaf is read across the output's rows (stride
±1 on an axis `p` other than the last while its stride on the last is neither
0 nor ±1: a transpose), the flat form would read it strided, one word per
cache line. Then a workgroup of `TILE` x `ROWS` invocations (32 x 8) takes a
`TILE` x `TILE` tile of the output over axes (p, last) at one position of the
other axes (workgroup id -> (other axes..., tile along p, tile along last), a
static tile count innermost, so that its division is by a literal): first
each such (*staged*) leaf's tile is read along `p` (consecutive invocations
at consecutive addresses) into workgroup memory, then, after a barrier, the
invocations compute and write the output tile along its rows, the staged
values read back from workgroup memory crosswise. Both the reads and the
writes of memory are coalesced. Invocation (tx, ty) takes rows `ty + ROWS k`,
k < TILE / ROWS, of the tile (columns, in the read phase): each position is
the previous one plus `ROWS` times a stride (one add), and no index divides.
Word (a, c) of a tile (a along p) sits at `a * TILE + (c ^ a)`: the swizzle
puts the 32 words a warp touches in either phase in 32 different banks,
without padding, and each row's word is the invocation's first word xor a
constant (`ty + ROWS k` is `ty | ROWS k`, their bits apart). An element
outside the output (a partial tile) is neither read nor written, by the same
test in both phases, so an invocation reads only words written before the
barrier. Only leaves of one-word elements (F32, U32, I32) are staged, as
their words, so the values, and the bits of the result, are the flat form's;
a leaf that is not staged is read where it is used, at its strided position.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vyre.dialects.symbolic import Sym
from vyre.dialects.tensor_layout import Layout, contiguous_strides, numel
from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.transforms.tensors.kernel import U32_MASK, KernelBuilder, Leaf, Rep, coalesce, emit, leaves, rep_shape
from vyre.transforms.tensors.reduce import Planned

__all__ = ["ROWS", "TILE", "WORKGROUP", "elementwise_kernel", "flat_kernel", "staged_axis", "tiled_kernel"]

WORKGROUP = 256
"""Invocations of a flat kernel's workgroup."""
TILE = 32
"""A tiled kernel's tile is TILE x TILE elements."""
ROWS = 8
"""A tiled kernel's workgroup is TILE x ROWS invocations, each taking TILE / ROWS rows."""
MIN_TILED = 16
"""A static axis shorter than this is not tiled (a narrow tile would leave most
invocations idle; the flat form reads such a transpose in few cache lines)."""
_STAGED_TYPES = (DataType.F32, DataType.U32, DataType.I32)


def elementwise_kernel(name: str, rep: Rep, target: str) -> Planned:
    """The kernel `name` writing `rep` to buffer `target` (contiguous, its
    elements in row-major order): tiled where a leaf is read across the
    output's rows, flat otherwise (see the module doc)."""
    flat = coalesce(rep)
    staging = staged_axis(flat)
    if staging is None:
        return flat_kernel(name, flat, target)
    return tiled_kernel(name, flat, target, *staging)


def _unit(size: Sym) -> bool:
    return size.value is not None and abs(size.value) == 1


def _across(leaf: Leaf, axis: int) -> bool:
    """`leaf` (of one-word elements) steps by ±1 along `axis` and by more (or
    by a dynamic stride) along the last axis."""
    strides = leaf.layout.strides
    last = strides[-1].value
    return leaf.dtype in _STAGED_TYPES and _unit(strides[axis]) and (last is None or abs(last) > 1)


def _tileable(size: Sym) -> bool:
    return size.value is None or size.value >= MIN_TILED


def staged_axis(rep: Rep) -> tuple[int, tuple[Leaf, ...]] | None:
    """(axis p, the leaves to stage) for the tiled form of coalesced `rep`: the
    axis most leaves step along by ±1 while not along the last axis; None when
    no leaf does, or an axis to tile is statically short."""
    shape = rep_shape(rep)
    if len(shape) < 2 or not _tileable(shape[-1]):
        return None
    distinct = tuple(dict.fromkeys(leaves(rep)))
    best: tuple[int, tuple[Leaf, ...]] | None = None
    for axis in range(len(shape) - 1):
        staged = tuple(leaf for leaf in distinct if _across(leaf, axis))
        if staged and _tileable(shape[axis]) and (best is None or len(staged) > len(best[1])):
            best = (axis, staged)
    return best


# ---------------------------------------------------------------------------
# Flat
# ---------------------------------------------------------------------------


def flat_kernel(name: str, rep: Rep, target: str) -> Planned:
    """The flat form (module doc) of coalesced `rep`."""
    shape = rep_shape(rep)
    b = KernelBuilder(name, WORKGROUP)
    f = b.let(E.gid_x(), "f")
    row_major = contiguous_strides(shape)
    given: dict[Leaf, Expr] = {}
    distinct = tuple(dict.fromkeys(leaves(rep)))
    for leaf in distinct:
        if leaf.layout.strides == row_major:
            offset = leaf.layout.offset
            given[leaf] = b.load_at(leaf, f if offset.value == 0 else E.add(f, b.param(offset)))
    idx = [E.u32(0)] * len(shape) if len(given) == len(distinct) else b.unflatten(f, shape)
    value = emit(b, rep, idx, given)
    b.emit(b.store(b.buffer(target, rep.dtype, write=True), rep.dtype, f, value))
    return Planned(b, (numel(shape) + (WORKGROUP - 1)) // WORKGROUP)


# ---------------------------------------------------------------------------
# Tiled
# ---------------------------------------------------------------------------


def _ceil(size: Sym, by: int) -> Sym:
    return (size + (by - 1)) // by


def _both(a: Expr | None, c: Expr | None) -> Expr | None:
    if a is None or c is None:
        return a if c is None else c
    return E.and_(a, c)


def _guarded(b: KernelBuilder, cond: Expr | None, body: list[Node]) -> None:
    if cond is None:
        b.emit(*body)
    else:
        b.emit(Node.if_(cond, body))


class _Tile:
    """What one invocation of a tiled kernel computes once: its tile's origin,
    its place (tx, ty) in the workgroup, the grid."""

    def __init__(self, b: KernelBuilder, shape: tuple[Sym, ...], axis: int):
        self.b, self.shape, self.axis = b, shape, axis
        last = len(shape) - 1
        others = [d for d in range(len(shape)) if d not in (axis, last)]
        tiles = {axis: _ceil(shape[axis], TILE), last: _ceil(shape[last], TILE)}
        inner = [last, axis] if tiles[axis].value is not None and tiles[last].value is None else [axis, last]
        grid_shape = [*(shape[d] for d in others), *(tiles[d] for d in inner)]
        self.grid = numel(grid_shape)
        position = b.unflatten(b.let(E.workgroup_id(0), "w"), grid_shape)
        self.origin: list[Expr] = [E.u32(0)] * len(shape)
        for d, at in zip(others, position):
            self.origin[d] = at
        for d, at in zip(inner, position[len(others) :]):
            self.origin[d] = b.let(E.mul(at, E.u32(TILE)), "o")
        local = b.let(E.local_id(0), "l")
        self.tx = b.let(E.bitand(local, E.u32(TILE - 1)), "tx")
        self.ty = b.let(E.shr(local, E.u32(TILE.bit_length() - 1)), "ty")

    def start(self, layout: Layout, along_axis: Expr, along_last: Expr) -> Expr:
        """The buffer position in `layout` of the tile's element (`along_axis`,
        `along_last`), bound to a local."""
        idx = list(self.origin)
        idx[self.axis] = E.add(idx[self.axis], along_axis)
        idx[-1] = E.add(idx[-1], along_last)
        return self.b.let(self.b.index(layout, idx), "s")

    def step(self, stride: Sym) -> Expr | None:
        """`ROWS * stride` in u32: a literal, a local, or None for 0."""
        if stride.value is not None:
            return E.u32((ROWS * stride.value) & U32_MASK) if stride.value else None
        return self.b.let(E.mul(E.u32(ROWS), self.b.param(stride)), "d")

    def within(self, dim: int, along: Expr) -> Callable[[int], Expr | None]:
        """k -> "element `along + ROWS * k` of the tile along `dim` is in the
        output": None when every tile is whole along `dim` (a static size, a
        multiple of TILE)."""
        size = self.shape[dim]
        if size.value is not None and size.value % TILE == 0:
            return lambda k: None
        first = self.b.let(E.add(self.origin[dim], along), "e")
        bound = self.b.param(size)
        return lambda k: E.lt(first if k == 0 else E.add(first, E.u32(ROWS * k)), bound)


def _advance(b: KernelBuilder, at: Expr, step: Expr | None, k: int) -> Expr:
    """Row k's position from row k - 1's (`at`), `step` apart."""
    if k == 0 or step is None:
        return at
    return b.let(E.add(at, step), "s")


def tiled_kernel(name: str, rep: Rep, target: str, axis: int, staged: Sequence[Leaf]) -> Planned:
    """The tiled form (module doc) of coalesced `rep`, tiled over `axis` and the
    last axis, the leaves `staged` read through workgroup memory."""
    shape = rep_shape(rep)
    b = KernelBuilder(name, TILE * ROWS)
    tile = _Tile(b, shape, axis)
    tx, ty = tile.tx, tile.ty
    last = len(shape) - 1
    distinct = tuple(dict.fromkeys(leaves(rep)))
    for leaf in distinct:  # bound in the flat form's order: the leaves', then the output
        b.buffer(leaf.buffer, leaf.dtype)
    target_local = b.buffer(target, rep.dtype, write=True)
    memory = {leaf: b.workgroup_buffer(f"tile{k}", TILE * TILE) for k, leaf in enumerate(staged)}
    # the read phase: invocation (tx, ty) at the tile's element (tx, ty + ROWS k);
    # its word tx * TILE + ((ty + ROWS k) ^ tx) is `word ^ ROWS k` (ty < ROWS)
    fixed, rows = tile.within(axis, tx)(0), tile.within(last, ty)
    word = b.let(E.add(E.mul(tx, E.u32(TILE)), E.bitxor(tx, ty)), "wr")
    for leaf, words in memory.items():
        at, step = tile.start(leaf.layout, tx, ty), tile.step(leaf.layout.strides[-1])
        for k in range(TILE // ROWS):
            at = _advance(b, at, step, k)
            value = b.load_at(leaf, at)
            bits = E.bitcast(DataType.U32, value) if leaf.dtype is DataType.F32 else value
            store = Node.store(words, word if k == 0 else E.bitxor(word, E.u32(ROWS * k)), bits)
            _guarded(b, _both(fixed, rows(k)), [store])
    b.emit(Node.barrier())
    # the write phase: invocation (tx, ty) at the tile's element (ty + ROWS k, tx);
    # its word (ty + ROWS k) * TILE + (tx ^ (ty + ROWS k)) is `word ^ (ROWS k (TILE + 1))`
    fixed, rows = tile.within(last, tx)(0), tile.within(axis, ty)
    word = b.let(E.add(E.mul(ty, E.u32(TILE)), E.bitxor(tx, ty)), "ww")
    out = Layout.contiguous(shape)
    read = [leaf for leaf in distinct if leaf not in memory]
    layouts = [leaf.layout for leaf in read] + [out]
    ats = [tile.start(layout, ty, tx) for layout in layouts]
    steps = [tile.step(layout.strides[axis]) for layout in layouts]
    for k in range(TILE // ROWS):
        ats = [_advance(b, at, step, k) for at, step in zip(ats, steps)]
        with b.block() as body:
            given = {leaf: b.load_at(leaf, at) for leaf, at in zip(read, ats)}
            for leaf, words in memory.items():
                bits = E.load(words, word if k == 0 else E.bitxor(word, E.u32(ROWS * k * (TILE + 1))))
                given[leaf] = E.bitcast(DataType.F32, bits) if leaf.dtype is DataType.F32 else bits
            b.emit(b.store(target_local, rep.dtype, ats[-1], emit(b, rep, tile.origin, given)))
        _guarded(b, _both(fixed, rows(k)), body)
    return Planned(b, tile.grid)
