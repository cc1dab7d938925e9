"""Which loads and stores of a kernel travel as one `vec4` (the access combining
of the scalar lowering).

A kernel that reads four consecutive words `x[b]`, `x[b + 1]`, `x[b + 2]`,
`x[b + 3]` of a storage buffer, `b` a multiple of 4, may read them with one
16-byte load: fewer memory instructions and more bytes in flight per
invocation (bench/wgsl_variants.py: the register form of a scan tile, each
invocation's 8 consecutive words as two vec4 loads and stores, ran the tile step
of a 64 Mi prefix sum in 238 us against 485 us through workgroup memory on the
H100). The IR has no component access for Vec4U32 values, so a kernel says
"four consecutive words" the plain way and the lowering finds it:

- a *base* is a local declared by exactly one `let` and never assigned, whose
  value is provably a multiple of 4 (`multiple_of_four`: literals, products with
  such a factor, sums and differences of such terms, shifts left by 2 or more,
  `&` with such a mask, reads of other such locals);
- a *member* is a load or store whose index is `var base` or `var base + c`
  (`c` a literal, either operand order), directly or through a constant local
  bound to such an expression: it is lane `c % 4` of the group
  `(buffer, base, c - c % 4)`;
- a load group: four lanes of a `read_only` storage buffer of one-word elements
  (U32, I32, F32; not atomic), all in one block. The buffer never changes
  during the run, so the first member in block order (the *leader*) loads the
  whole vec4 and every member takes its lane: exactly what the four scalar
  loads read;
- a store group: four lanes, each stored once, of a `read_write` storage buffer
  of one-word elements that no atomic touches, all in one block, with nothing
  between the first and the last member that could observe or reorder the
  buffer (another access to it, a barrier, a return, or a statement with a
  body). The members' values are kept (as `let`s) at their own positions and
  the last member stores the vec4: the same words end up in memory, and no
  load of this invocation sees the difference in between.

Every combined access keeps vyre's guards (guards.py `load4_helper`,
`store4_helper`): the vec4 is used only when all four elements are below the
buffer's logical length; otherwise each lane is the guarded scalar access (0
past the end, no write past the end). A buffer with a combined group is
declared `array<vec4<u32>>` (`vec4<i32>` for I32; layout.py `BufferBinding.vector`,
whose other accesses read and write one component); the runtime binds whole
16-byte units (`storage_size`). `LoweringOptions.combine=False` turns the
combining off (the differential tests' reference).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation, SSAValue

from vyre.dialects import vyre as d
from vyre.dialects.vyre import AccessKind, BinOpKind, DataTypeKind
from vyre.lowering.walk import operations

__all__ = ["COMBINABLE_KINDS", "Combined", "Group", "combine_accesses", "multiple_of_four"]

COMBINABLE_KINDS = frozenset({DataTypeKind.U32, DataTypeKind.I32, DataTypeKind.F32})
"""Element types with one word per element: four of them are one vec4."""

LANES = 4


@dataclass(frozen=True)
class Group:
    """Four consecutive elements `base + offset + 0..3` of one buffer."""

    buffer: str
    base: str
    """The local holding a multiple of 4."""
    offset: int
    """A multiple of 4 (the members' literal, rounded down)."""
    members: tuple[Operation, ...]
    """The loads or stores, in block order (first: the leader of a load group;
    last: the one that stores a store group)."""
    lanes: tuple[int, ...]
    """The lane of each member."""


@dataclass(frozen=True)
class Combined:
    """The load and store groups of a kernel."""

    loads: dict[Operation, tuple[Group, int]] = field(default_factory=lambda: {})
    """Every member load: its group and lane."""
    stores: dict[Operation, tuple[Group, int]] = field(default_factory=lambda: {})
    """Every member store: its group and lane."""

    @property
    def buffers(self) -> frozenset[str]:
        """The buffers declared as vec4 arrays."""
        return frozenset(group.buffer for group, _ in (*self.loads.values(), *self.stores.values()))


NOTHING = Combined()


def combine_accesses(kernel: d.KernelOp) -> Combined:
    """The access groups of a prepared kernel (none in a kernel without them)."""
    ops = operations(kernel)
    decls = {decl.buffer_name.data: decl for decl in kernel.buffer_decls}
    declared: Counter[str] = Counter()
    lets: dict[str, d.LetOp] = {}
    assigned: set[str] = set()
    atomic: set[str] = set()
    accesses: list[d.LoadOp | d.StoreOp] = []
    for op in ops:
        if isinstance(op, d.LetOp):
            declared[op.var_name.data] += 1
            lets[op.var_name.data] = op
        elif isinstance(op, d.LoopOp):
            declared[op.var_name.data] += 1
        elif isinstance(op, d.AssignOp):
            assigned.add(op.var_name.data)
        elif isinstance(op, d.AtomicOp):
            atomic.add(op.buffer.data)
        elif isinstance(op, (d.LoadOp, d.StoreOp)):
            accesses.append(op)
    if not accesses:
        return NOTHING
    constant = {name: let for name, let in lets.items() if declared[name] == 1 and name not in assigned}
    bases = _bases(constant)
    if not bases:
        return NOTHING
    candidates: dict[tuple[str, str, int, bool, Block | None], list[tuple[Operation, int]]] = {}
    for op in accesses:
        name = op.buffer.data
        decl = decls.get(name)
        if decl is None or name in atomic or decl.element.data_kind not in COMBINABLE_KINDS:
            continue
        is_store = isinstance(op, d.StoreOp)
        wanted = AccessKind.READ_WRITE if is_store else AccessKind.READ_ONLY
        if decl.access_kind != wanted:
            continue
        member = _member(op.index, bases, constant)
        if member is None:
            continue
        base, c = member
        key = (name, base, c - c % LANES, is_store, op.parent_block())
        candidates.setdefault(key, []).append((op, c % LANES))
    loads: dict[Operation, tuple[Group, int]] = {}
    stores: dict[Operation, tuple[Group, int]] = {}
    for (name, base, offset, is_store, block), members in candidates.items():
        if block is None or {lane for _, lane in members} != set(range(LANES)):
            continue
        order = {op: k for k, op in enumerate(block.ops)}
        members.sort(key=lambda m: order[m[0]])
        if is_store and not _clean_store_run(block, [op for op, _ in members], name):
            continue
        group = Group(name, base, offset, tuple(op for op, _ in members), tuple(lane for _, lane in members))
        target = stores if is_store else loads
        for op, lane in members:
            target[op] = (group, lane)
    if not loads and not stores:
        return NOTHING
    return Combined(loads, stores)


def _bases(constant: dict[str, d.LetOp]) -> frozenset[str]:
    """The constant locals whose value is a multiple of 4 (to a fixed point:
    a local may be built from others)."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, let in constant.items():
            if name not in found and multiple_of_four(let.value, found):
                found.add(name)
                changed = True
    return frozenset(found)


def multiple_of_four(value: SSAValue, locals_: set[str] | frozenset[str]) -> bool:
    """Whether `value` is a multiple of 4 on every execution (mod 2^32, which
    keeps the property), given the locals known to be."""
    owner = value.owner
    word = d.literal_word(value)
    if word is not None:
        return word % LANES == 0
    if isinstance(owner, d.VarOp):
        return cast(StringAttr, owner.properties["name"]).data in locals_
    if not isinstance(owner, d.BinOp):
        return False
    kind = owner.op_kind
    lhs, rhs = owner.lhs, owner.rhs
    if kind in (BinOpKind.MUL, BinOpKind.BIT_AND):
        return multiple_of_four(lhs, locals_) or multiple_of_four(rhs, locals_)
    if kind in (BinOpKind.ADD, BinOpKind.SUB):
        return multiple_of_four(lhs, locals_) and multiple_of_four(rhs, locals_)
    if kind == BinOpKind.SHL:
        amount = d.literal_word(rhs)
        return (amount is not None and amount & 31 >= 2) or multiple_of_four(lhs, locals_)
    return False


def _member(
    index: SSAValue, bases: frozenset[str], constant: dict[str, d.LetOp], depth: int = 0
) -> tuple[str, int] | None:
    """(base, c) when `index` is `var base` or `var base + c`, directly or
    through constant locals bound to such an expression (`let i1 = q + 1`;
    `let i0 = q` resolves to q as well, so aliases of one base share groups)."""
    if depth > 4:
        return None
    owner = index.owner
    if isinstance(owner, d.VarOp):
        name = cast(StringAttr, owner.properties["name"]).data
        alias = constant.get(name)
        if alias is not None:
            inner = _member(alias.value, bases, constant, depth + 1)
            if inner is not None:
                return inner
        return (name, 0) if name in bases else None
    if not isinstance(owner, d.BinOp) or owner.op_kind != BinOpKind.ADD:
        return None
    for var, literal in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
        c = d.literal_word(literal)
        if c is None or not isinstance(var.owner, d.VarOp):
            continue
        inner = _member(var, bases, constant, depth + 1)
        if inner is not None and inner[1] + c <= 0xFFFF_FFFF - LANES:
            return (inner[0], inner[1] + c)
    return None


def _clean_store_run(block: Block, members: list[Operation], buffer: str) -> bool:
    """Each lane stored once, and nothing between the first and the last member
    that touches `buffer`, synchronises, returns or has a body."""
    if len(members) != LANES:
        return False
    inside = False
    last = members[-1]
    for op in block.ops:
        if op is members[0]:
            inside = True
            continue
        if not inside:
            continue
        if op is last:
            return True
        if op in members:
            continue
        if op.regions or isinstance(op, (d.BarrierOp, d.ReturnOp)):
            return False
        if isinstance(op, (d.LoadOp, d.StoreOp, d.AtomicOp)) and op.buffer.data == buffer:
            return False
    return False
