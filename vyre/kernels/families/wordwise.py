"""Word-at-a-time kernel pieces shared by the buffer, bitset, match and
collection families: grid-stride maps and reductions over u32 words, and the
SWAR (SIMD within a register) byte tricks on packed `Bytes` words (C1: four
bytes per word, little-endian, the padding bytes of the last word unspecified).

- `map_program`: `out[i] = value(i)` for i < n, a grid-stride pass (`common.grid`:
  at most MAX_GROUPS workgroups, each invocation UNROLL strided elements per
  round, every load of a round issued before the first use).
- `each_program`: statements for every i < n, the same grid-stride walk
  (scatter's atomicMax pass, searches with their own loops).
- `reduce_program`: one u32 per element (a word of bytes, a bitset word) folded
  with an associative and commutative op (add, min, or), the workgroup tree of
  `common.tree_reduce`, then one atomic per workgroup into `out[0]` (C4: the
  final value of a commutative atomic does not depend on the schedule).
- `byte_mask`, `valid_lanes`, `zero_bytes`, `unaligned`: the byte-level helpers.

Every builder takes a `key` that names the program shape; the callers cache the
programs (`functools.cache`), so one program serves every input size (the sizes
arrive in the uniform parameter block).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vyre.ir import AtomicOp, BufferAccess, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels.families.common import WORKGROUP, Grid, grid, param, params_buffer, tree_reduce
from vyre.kernels.spec import Buffer

__all__ = [
    "UNROLL",
    "Element",
    "byte_mask",
    "each_params",
    "each_program",
    "grid_params",
    "grid_walk",
    "map_program",
    "reduce_program",
    "round_index",
    "unaligned",
    "valid_lanes",
    "zero_bytes",
]

UNROLL = 4
"""Elements per invocation and round of a grid-stride pass (four loads in flight)."""

ONES_HIGH = 0x8080_8080
LOWS = 0x7F7F_7F7F
REPEAT = 0x0101_0101


def grid_params(name: str, n: int, *extra: int) -> tuple[Grid, Buffer]:
    """The grid of a pass over n elements and its parameter block
    [n, stride, rounds, *extra] (rounds of UNROLL strided elements)."""
    g = grid(n)
    return g, params_buffer(name, [n, g.stride, -(-g.iterations // UNROLL), *extra])


def round_index(u: int) -> Expr:
    """Element u of round k of this invocation: base + (k * UNROLL + u) * stride."""
    round_ = E.add(E.mul(E.var("_k"), E.u32(UNROLL)), E.u32(u))
    return E.add(E.var("_base"), E.mul(round_, param(1)))


def grid_walk(body: list[Node]) -> list[Node]:
    """`_base` (this invocation's first element), then `body` for rounds
    `_k` < params[2] (`grid_params`: round k reads `round_index(u)`)."""
    return [
        Node.let("_base", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), E.local_id(0))),
        Node.loop("_k", E.u32(0), param(2), body),
    ]


Element = Callable[[Expr, str], tuple[list[Node], Expr]]
"""(index, unique suffix) -> (statements, value): the value of element `index`;
the statements (lets named with the suffix) come before it."""


def map_program(name: str, inputs: Sequence[str], value: Element) -> Program:
    """`out[i] = value(i)` for every i < params[0] (`grid_params`); `inputs` are
    read-only u32 buffers (bindings 0..), then `out` and `params`."""
    loads: list[Node] = []
    stores: list[Node] = []
    for u in range(UNROLL):
        loads.append(Node.let(f"_i{u}", round_index(u)))
        prelude, result = value(E.var(f"_i{u}"), f"_{u}")
        loads += prelude
        loads.append(Node.let(f"_v{u}", result))
        stores.append(Node.if_(E.lt(E.var(f"_i{u}"), param(0)), [Node.store("out", E.var(f"_i{u}"), E.var(f"_v{u}"))]))
    buffers = [BufferDecl.read(b, k, DataType.U32) for k, b in enumerate(inputs)]
    buffers += [
        BufferDecl.read_write("out", len(inputs), DataType.U32),
        BufferDecl.uniform("params", len(inputs) + 1, DataType.U32),
    ]
    return Program(
        buffers=buffers, workgroup_size=(WORKGROUP, 1, 1), entry=grid_walk(loads + stores), name=name
    )


def each_program(name: str, buffers: Sequence[BufferDecl], body: Callable[[Expr], list[Node]]) -> Program:
    """`body(i)` for every i < params[0], one element per invocation and round
    (`buffers` are the program's own, bound 0..; `params` after them, built by
    `each_params`)."""
    step = [
        Node.let("_i", E.add(E.var("_base"), E.mul(E.var("_k"), param(1)))),
        Node.if_(E.lt(E.var("_i"), param(0)), body(E.var("_i"))),
    ]
    decls = [_rebind(decl, k) for k, decl in enumerate(buffers)]
    decls.append(BufferDecl.uniform("params", len(buffers), DataType.U32))
    return Program(buffers=decls, workgroup_size=(WORKGROUP, 1, 1), entry=grid_walk(step), name=name)


def each_params(name: str, n: int, *extra: int) -> tuple[Grid, Buffer]:
    """The grid and parameter block [n, stride, rounds, *extra] of `each_program`."""
    g = grid(n)
    return g, params_buffer(name, [n, g.stride, g.iterations, *extra])


def _rebind(decl: BufferDecl, binding: int) -> BufferDecl:
    if decl.access is BufferAccess.WORKGROUP:
        return decl
    return BufferDecl(decl.name, binding, decl.access, decl.dtype, decl.count)


Combine = Callable[[Expr, Expr], Expr]

_ATOMICS: dict[str, tuple[AtomicOp, Combine, int]] = {
    "add": (AtomicOp.ADD, E.add, 0),
    "min": (AtomicOp.MIN, lambda a, b: E.select(E.lt(b, a), b, a), 0xFFFF_FFFF),
    "or": (AtomicOp.OR, E.bitor, 0),
}


def reduce_program(name: str, inputs: Sequence[str], element: Element, fold: str) -> Program:
    """`out[0] = out[0] fold (fold of element(i) for i < params[0])`: each
    invocation folds its strided elements in UNROLL accumulators, the workgroup
    folds its 256 values in a tree, invocation 0 merges the result with one
    atomic. `element` must give the fold's identity where it has nothing to add
    (indices at or past n included: their loads read 0)."""
    atomic, combine, identity = _ATOMICS[fold]
    body: list[Node] = []
    for u in range(UNROLL):
        body.append(Node.let(f"_i{u}", round_index(u)))
        prelude, value = element(E.var(f"_i{u}"), f"_{u}")
        body += prelude
        body.append(Node.let(f"_e{u}", value))
    for u in range(UNROLL):
        body.append(Node.assign(f"_acc{u}", combine(E.var(f"_acc{u}"), E.var(f"_e{u}"))))
    total = E.var("_acc0")
    for u in range(1, UNROLL):
        total = combine(total, E.var(f"_acc{u}"))
    local = E.local_id(0)
    entry = [
        *[Node.let(f"_acc{u}", E.u32(identity)) for u in range(UNROLL)],
        *grid_walk(body),
        Node.store("_sh", local, total),
        *tree_reduce(["_sh"], lambda a, b: [combine(a[0], b[0])]),
        Node.if_(
            E.and_(E.eq(local, E.u32(0)), E.ne(E.load("_sh", E.u32(0)), E.u32(identity))),
            [Node.let("_old", E.atomic(atomic, "out", E.u32(0), E.load("_sh", E.u32(0))))],
        ),
    ]
    buffers = [BufferDecl.read(b, k, DataType.U32) for k, b in enumerate(inputs)]
    buffers += [
        BufferDecl.read_write("out", len(inputs), DataType.U32),
        BufferDecl.uniform("params", len(inputs) + 1, DataType.U32),
        BufferDecl.workgroup("_sh", WORKGROUP, DataType.U32),
    ]
    return Program(buffers=buffers, workgroup_size=(WORKGROUP, 1, 1), entry=entry, name=name)


# ---------------------------------------------------------------------------
# Bytes in words
# ---------------------------------------------------------------------------


def valid_lanes(word: Expr, n_bytes: Expr, lanes: int) -> Expr:
    """The mask of the bytes of word `word` that lie below `n_bytes`, as `lanes`
    repeated per byte (0xFF: whole bytes, 0x80: their high bits). Words before
    the last hold four valid bytes, the last n % 4 (its padding is unspecified,
    C1), words past it none. Computed on word indices (no 4 * word overflow)."""
    full = E.u32(lanes * REPEAT)
    whole = E.shr(n_bytes, E.u32(2))
    tail_bits = E.shl(E.bitand(n_bytes, E.u32(3)), E.u32(3))  # 8 * (n % 4) <= 24
    tail = E.bitand(full, E.sub(E.shl(E.u32(1), tail_bits), E.u32(1)))
    return E.select(E.lt(word, whole), full, E.select(E.eq(word, whole), tail, E.u32(0)))


def byte_mask(count: Expr) -> Expr:
    """The low `count` bytes of a word (count >= 4: the whole word)."""
    partial = E.sub(E.shl(E.u32(1), E.shl(E.bitand(count, E.u32(3)), E.u32(3))), E.u32(1))
    return E.select(E.ge(count, E.u32(4)), E.u32(0xFFFF_FFFF), partial)


def zero_bytes(x: Expr) -> Expr:
    """0x80 in every byte of `x` that is zero, 0 elsewhere, exactly (the
    carry-free form: `(x & 0x7F) + 0x7F` cannot carry into the next byte)."""
    t = E.bitor(E.add(E.bitand(x, E.u32(LOWS)), E.u32(LOWS)), x)
    return E.bitand(E.bitnot(t), E.u32(ONES_HIGH))


def unaligned(buffer: str, byte: Expr, suffix: str) -> tuple[list[Node], Expr]:
    """The four bytes of `buffer` (packed bytes) starting at byte offset `byte`,
    as one little-endian word (bytes past the buffer read 0: the load guard)."""
    w, r = f"_uw{suffix}", f"_ur{suffix}"
    nodes = [Node.let(w, E.shr(byte, E.u32(2))), Node.let(r, E.shl(E.bitand(byte, E.u32(3)), E.u32(3)))]
    low = E.load(buffer, E.var(w))
    high = E.load(buffer, E.add(E.var(w), E.u32(1)))
    # r = 0 must not shift `high` by 32 (shifts are taken mod 32)
    merged = E.bitor(E.shr(low, E.var(r)), E.shl(high, E.sub(E.u32(32), E.var(r))))
    return nodes, E.select(E.eq(E.var(r), E.u32(0)), low, merged)
