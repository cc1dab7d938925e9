"""Is a prepared kernel an elementwise map? (the vectorised lowering's precondition)

A kernel is a *map* when every invocation touches only "its" element of every
buffer it writes: there is one element index `idx`, computed from the
invocation id in one of the two forms the builder and `vyre.ops.evaluate` use,

- `idx = invocation_id.x`                                    (`row is None`)
- `idx = invocation_id.y * row + invocation_id.x`, `row` a literal (either
  operand order of `+` and `*`),

and

- every load and store of a read_write buffer is at `idx` (the index operand is
  the `idx` expression itself, or a `vyre.var` of a local that a single `let`
  binds to `idx` and nothing assigns);
- loads of read_only and uniform buffers may be at any index (nothing writes
  them during the run, so a gather reads the same words in any order); a
  read-only buffer of one-word elements loaded only at `idx mod C` (C a literal
  multiple of 4, or `idx & (C - 1)` for a power of two; through a `let` or not)
  is *periodic* (`MapShape.periodic`): a broadcast operand, which the
  vectorised lowering reads as chunks too;
- no atomic, barrier, workgroup buffer, `workgroup_id` or `local_id`, and the
  invocation ids appear only inside the `idx` expressions;
- every buffer accessed at `idx` has an element type the vectorised code can
  move as whole `vec4<u32>` words: U32, I32, Bool, F32 (one element per word),
  F16, BF16 (two per word), and is a storage buffer (not uniform).

Which invocations exist is decided at run time: the virtual invocations of a
dispatch (gx, gy, gz) of a (wx, wy, wz) workgroup must give every `idx` in
`[0, n)` exactly once, i.e. for `row is None`: gy*wy*gz*wz == 1, n = gx*wx; else
gz*wz == 1 and row == gx*wx, n = row*gy*wy (`MapShape.virtual_count`). Then
virtual invocation `idx` may be run by any real invocation, in any grouping:
it reads and writes only element `idx` of the read_write buffers, so its
accesses to them behave like a private variable per buffer (loaded once,
stored once at the end), and the result is byte-identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, cast

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from vyre.dialects import vyre as d
from vyre.dialects.tables import Dispatch
from vyre.dialects.vyre import AccessKind, BinOpKind, DataTypeKind
from vyre.lowering.walk import operations

__all__ = ["VECTOR_KINDS", "MapShape", "map_shape"]

_Op = TypeVar("_Op", bound=Operation)

VECTOR_KINDS = frozenset(
    {
        DataTypeKind.U32,
        DataTypeKind.I32,
        DataTypeKind.BOOL,
        DataTypeKind.F32,
        DataTypeKind.F16,
        DataTypeKind.BF16,
    }
)
"""Element types whose buffers the vectorised lowering moves as `vec4` words."""

_PERIODIC_KINDS = frozenset({DataTypeKind.U32, DataTypeKind.I32, DataTypeKind.F32, DataTypeKind.BOOL})
"""Element types of periodic buffers (one element a word)."""


@dataclass(frozen=True)
class MapShape:
    """What the vectorised lowering needs to know about a map kernel."""

    row: int | None
    """None: `idx = invocation_id.x`; else `idx = invocation_id.y * row + invocation_id.x`."""
    roots: frozenset[Operation]
    """Ops whose result is `idx` (an `invocation_id x`, or the `+` of the 2-D form)."""
    hidden: frozenset[Operation]
    """Ops used only to compute `idx` (the ids and the `*` of the 2-D form)."""
    indices: frozenset[SSAValue]
    """Every SSA value equal to `idx` (roots and `vyre.var`s of locals bound to it)."""
    vector_buffers: tuple[str, ...]
    """Storage buffers loaded or stored at `idx`, in declaration order."""
    written: frozenset[str]
    """The vector buffers the kernel stores to (all read_write)."""
    loaded: frozenset[str]
    """The vector buffers the kernel loads at `idx`."""
    overwritten: frozenset[str]
    """Written buffers whose content before the run is never observed: an
    unconditional top-level store comes before any load of them and before any
    `return`, so their old words need not be read."""
    has_loops: bool
    periodic: dict[str, int] = field(default_factory=lambda: {})
    """Read-only storage buffers of one-word elements loaded only at `idx mod C`
    (a literal C, a multiple of 4; also written `idx & (C - 1)` for a power of
    two): buffer -> C. The vectorised lowering reads them as vec4 chunks too
    (a broadcast operand: `x + b` with `b` along the rows)."""
    periodic_indices: frozenset[SSAValue] = frozenset()
    """Every SSA value equal to `idx mod C` for some periodic C."""

    def virtual_count(
        self, workgroup: tuple[int, int, int], dispatch: tuple[int, int, int]
    ) -> int | None:
        """The number of virtual invocations (one per `idx` in `[0, n)`), or None
        when the dispatch does not give every `idx` exactly once."""
        wx, wy, wz = workgroup
        gx, gy, gz = dispatch
        if self.row is None:
            return gx * wx if gy * wy * gz * wz == 1 else None
        if gz * wz != 1 or self.row != gx * wx:
            return None
        return self.row * gy * wy


def map_shape(kernel: d.KernelOp) -> MapShape | str:
    """The map shape of a prepared kernel, or why it is not a map."""
    return _Analysis(kernel).run()


_ADD = BinOpKind.ADD.value


@dataclass
class _Found:
    """What the one walk over a kernel collects for the analysis."""

    lets: dict[str, list[d.LetOp]] = field(default_factory=lambda: {})
    reads: dict[str, list[SSAValue]] = field(default_factory=lambda: {})
    assigned: set[str] = field(default_factory=lambda: set[str]())
    loop_vars: set[str] = field(default_factory=lambda: set[str]())
    ids: list[d.InvocationIdOp] = field(default_factory=lambda: list[d.InvocationIdOp]())
    adds: list[d.BinOp] = field(default_factory=lambda: list[d.BinOp]())
    accesses: list[d.LoadOp | d.StoreOp] = field(default_factory=lambda: list["d.LoadOp | d.StoreOp"]())
    remainders: list[d.BinOp] = field(default_factory=lambda: list[d.BinOp]())
    """`mod` and `bitand` ops: candidates for `idx mod C`."""
    has_loops: bool = False


NOTES: Dispatch[_Found, [], str | None] = Dispatch("map-shape notes", lambda: ())
"""What the analysis notes of each op class; a string refuses the kernel as a
map (why). Ops without an entry tell it nothing."""


@NOTES.on(d.AtomicOp, d.BarrierOp, d.WorkgroupIdOp, d.LocalIdOp)
def _refuse(found: _Found, op: Operation) -> str | None:
    return f"it uses `{op.name}`"


@NOTES.on(d.LetOp)
def _let(found: _Found, op: d.LetOp) -> str | None:
    found.lets.setdefault(op.var_name.data, []).append(op)
    return None


@NOTES.on(d.AssignOp)
def _assign(found: _Found, op: d.AssignOp) -> str | None:
    found.assigned.add(op.var_name.data)
    return None


@NOTES.on(d.LoopOp)
def _loop(found: _Found, op: d.LoopOp) -> str | None:
    found.loop_vars.add(op.var_name.data)
    found.has_loops = True
    return None


@NOTES.on(d.VarOp)
def _var(found: _Found, op: d.VarOp) -> str | None:
    name = cast(StringAttr, op.properties["name"]).data  # `op.var_name`, without the descriptor
    found.reads.setdefault(name, []).append(op.results[0])
    return None


@NOTES.on(d.InvocationIdOp)
def _id(found: _Found, op: d.InvocationIdOp) -> str | None:
    found.ids.append(op)
    return None


@NOTES.on(d.BinOp)
def _binop(found: _Found, op: d.BinOp) -> str | None:
    kind = cast(StringAttr, op.properties["kind"]).data
    if kind == _ADD:
        found.adds.append(op)
    elif kind in _REMAINDERS:
        found.remainders.append(op)
    return None


_REMAINDERS = frozenset({BinOpKind.MOD.value, BinOpKind.BIT_AND.value})


def _period(op: d.BinOp, indices: set[SSAValue]) -> int | None:
    """C when `op` is `idx mod C` (C a literal multiple of 4) or `idx & (C - 1)`
    (C a power of two, at least 4); else None."""
    if op.lhs not in indices:
        return None
    literal = d.literal_word(op.rhs)
    if literal is None:
        return None
    if op.op_kind == BinOpKind.MOD:
        return literal if literal > 0 and literal % 4 == 0 else None
    period = literal + 1
    return period if period >= 4 and period & literal == 0 else None


@NOTES.on(d.LoadOp, d.StoreOp)
def _access(found: _Found, op: d.LoadOp | d.StoreOp) -> str | None:
    found.accesses.append(op)
    return None


class _Analysis:
    def __init__(self, kernel: d.KernelOp):
        self.kernel = kernel
        self.decls = {decl.buffer_name.data: decl for decl in kernel.buffer_decls}

    def run(self) -> MapShape | str:
        kernel = self.kernel
        if any(decl.access_kind == AccessKind.WORKGROUP for decl in kernel.buffer_decls):
            return "it declares workgroup memory"
        found = _Found()
        for op in operations(kernel):
            note = NOTES.get(type(op))
            if note is not None and (refusal := note(found, op)) is not None:
                return refusal
        lets, reads, assigned, loop_vars = found.lets, found.reads, found.assigned, found.loop_vars
        ids, adds, accesses, has_loops = found.ids, found.adds, found.accesses, found.has_loops
        roots_found = self._index_roots(ids, adds)
        if isinstance(roots_found, str):
            return roots_found
        row, roots, hidden = roots_found
        indices: set[SSAValue] = {op.results[0] for op in roots}
        candidates = [
            decls[0]
            for name, decls in lets.items()
            if len(decls) == 1 and name not in assigned and name not in loop_vars
        ]
        changed = True
        while changed:  # locals bound to idx, and locals bound to those
            changed = False
            for let in list(candidates):
                if let.value in indices:
                    indices.update(reads.get(let.var_name.data, ()))
                    candidates.remove(let)
                    changed = True
        periods: dict[SSAValue, int] = {}
        for op in found.remainders:
            period = _period(op, indices)
            if period is not None:
                periods[op.results[0]] = period
        changed = True
        while changed:  # locals bound to idx mod C
            changed = False
            for let in list(candidates):
                period = periods.get(let.value)
                if period is not None:
                    periods.update((read, period) for read in reads.get(let.var_name.data, ()))
                    candidates.remove(let)
                    changed = True
        return self._accesses(accesses, row, roots, hidden, frozenset(indices), has_loops, periods)

    def _index_roots(
        self, ids: list[d.InvocationIdOp], adds: list[d.BinOp]
    ) -> tuple[int | None, frozenset[Operation], frozenset[Operation]] | str:
        """The ops computing `idx`, with the form; every invocation id must be in one."""
        two_d: list[tuple[Operation, int, Operation, Operation, Operation]] = []
        for op in adds:
            match = _two_d_index(op)
            if match is not None:
                two_d.append((op, *match))
        rows = {row for _, row, _, _, _ in two_d}
        if len(rows) > 1:
            return "its index expressions use different row widths"
        if not two_d:
            for op in ids:
                if op.axis.data != 0:
                    return "it uses invocation_id y or z other than in `y * row + x`"
            if not ids:
                return "it never reads invocation_id"
            return (None, frozenset(ids), frozenset())
        roots = frozenset(op for op, _, _, _, _ in two_d)
        hidden = frozenset(
            part for _, _, mul, y, x in two_d for part in (mul, y, x)
        )
        for op in ids:
            if op not in hidden:
                return "it uses an invocation id outside its index expression"
        return (rows.pop(), roots, hidden)

    def _accesses(
        self,
        accesses: list[d.LoadOp | d.StoreOp],
        row: int | None,
        roots: frozenset[Operation],
        hidden: frozenset[Operation],
        indices: frozenset[SSAValue],
        has_loops: bool,
        periods: dict[SSAValue, int] | None = None,
    ) -> MapShape | str:
        at_index: set[str] = set()
        written: set[str] = set()
        loaded: set[str] = set()
        periodic: dict[str, set[int | None]] = {}
        for op in accesses:
            name = op.buffer.data
            decl = self.decls.get(name)
            if decl is None:
                return f"it accesses an undeclared buffer `{name}`"
            read_write = decl.access_kind == AccessKind.READ_WRITE
            on_index = op.index in indices
            if read_write and not on_index:
                return f"it accesses read_write buffer `{name}` at another index"
            if not on_index:
                periodic.setdefault(name, set()).add((periods or {}).get(op.index))
                continue  # a gather from a buffer nothing writes
            if decl.access_kind == AccessKind.UNIFORM:
                continue  # read through its uniform layout, like a gather
            if decl.element.data_kind not in VECTOR_KINDS:
                if read_write:
                    return f"buffer `{name}` holds {decl.element.data_kind.value} elements"
                continue
            at_index.add(name)
            if isinstance(op, d.StoreOp):
                written.add(name)
            else:
                loaded.add(name)
        if not at_index:
            return "it accesses no buffer at its index"
        vector = tuple(
            decl.buffer_name.data
            for decl in self.kernel.buffer_decls
            if decl.buffer_name.data in at_index
        )
        cycles = {
            decl.buffer_name.data: next(iter(periodic[decl.buffer_name.data]))
            for decl in self.kernel.buffer_decls
            if decl.buffer_name.data in periodic
            and decl.buffer_name.data not in at_index
            and decl.access_kind == AccessKind.READ_ONLY
            and decl.element.data_kind in _PERIODIC_KINDS
            and len(periodic[decl.buffer_name.data]) == 1
            and None not in periodic[decl.buffer_name.data]
        }
        return MapShape(
            row=row,
            roots=roots,
            hidden=hidden,
            indices=indices,
            vector_buffers=vector,
            written=frozenset(written),
            loaded=frozenset(loaded),
            overwritten=self._overwritten(written),
            has_loops=has_loops,
            periodic=cast(dict[str, int], cycles),
            periodic_indices=frozenset(periods or {}),
        )

    def _overwritten(self, written: set[str]) -> frozenset[str]:
        """Written buffers stored unconditionally at top level before any load of
        them and before any statement that may return."""
        result: set[str] = set()
        touched: set[str] = set()
        may_return = False
        for op in self.kernel.entry.ops:
            if may_return:
                break
            if isinstance(op, d.StoreOp):
                name = op.buffer.data
                if name in written and name not in touched:
                    result.add(name)
                touched.add(name)
                continue
            for inner in operations(op):
                if isinstance(inner, d.ReturnOp):
                    may_return = True
                elif isinstance(inner, (d.LoadOp, d.StoreOp)):
                    touched.add(inner.buffer.data)
        return frozenset(result)


def _two_d_index(add: d.BinOp) -> tuple[int, Operation, Operation, Operation] | None:
    """(row, the `*`, id y, id x) when `add` is `id.y * row + id.x` (any order),
    each part used only there."""
    for mul_value, x_value in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
        x = _sole_use_owner(x_value, d.InvocationIdOp)
        mul = _sole_use_owner(mul_value, d.BinOp)
        if x is None or mul is None or x.axis.data != 0 or mul.op_kind != BinOpKind.MUL:
            continue
        for y_value, row_value in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
            y = _sole_use_owner(y_value, d.InvocationIdOp)
            row = d.literal_word(row_value)
            if y is not None and y.axis.data == 1 and row is not None:
                return (row, mul, y, x)
    return None


def _sole_use_owner(value: SSAValue, kind: type[_Op]) -> _Op | None:
    owner = value.owner
    if isinstance(owner, kind) and value.uses.get_length() == 1:
        return owner
    return None
