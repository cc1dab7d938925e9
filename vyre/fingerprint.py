"""Structural fingerprints of vyre programs, and the bounded caches they key.

`fingerprint(program)` records, in order, every op's class, properties,
attributes, operand numbering, result numbering and types, and the shape of
every region and block (block arguments and an end marker after each block's
ops). SSA values are numbered by first appearance, so two programs get equal
fingerprints exactly when they are the same IR (SSA name hints included: the
WGSL names its temporaries after them):
`str(program)` is a far slower key for the same question (370 µs against
about 45 µs for a 10-op kernel on a 2-core lavapipe host).

Validation and lowering of a program with `vyre.call` also depend on the op
registry, so the fingerprint ends with the spec of every op the program calls,
directly or through the callees' compositions (specs are immutable and compared
by identity): registering or replacing an op changes the fingerprint.

Repeated calls on the same program object are cheaper still: the first call
takes a snapshot of the module by identity (every op, region, block and SSA
value in it, its type, and a copy of its fields: xDSL keeps them in the
instance `__dict__`, including the private `_operands`, `_next_op`,
`_first_op`, `_args`, `_type`, `_name` behind the public properties), with the
property and attribute dicts copied. A later call compares the module with the
snapshot in a fixed number of C-level loops (`map` over the objects, list and
dict equality that short-circuits on identity), no Python code per op, and
returns the stored fingerprint when nothing differs. xDSL replaces operand,
result, region and block-argument tuples on every change, links ops and blocks
through fields, and attributes are immutable, so every in-place change of the
IR changes some field or dict: a program changed in place gets a new
fingerprint. A field set for the first time (a class default until then) adds
a key, which differs too.

There is no O(1) mutation stamp to read instead: xDSL writes these fields
directly from dozens of places and users mutate the property dicts in place,
so only a hook in xDSL itself could maintain one.

Where the walk cannot vouch for exactness (a use of a value defined outside the
module, a successor block, nesting deeper than the interpreter's recursion
limit, a registry lookup that raises) `fingerprint` returns None and callers
must not cache.
"""

from __future__ import annotations

import operator
import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation

from vyre.dialects.vyre import CallOp
from vyre.ops.registry import resolve

__all__ = ["Fingerprint", "Known", "LruCache", "fingerprint", "remembered"]

_END = object()
"""Marks the end of a block's ops (and of a region's blocks in snapshots)."""


@dataclass(frozen=True, eq=False, slots=True)
class Fingerprint:
    """An exact structural key of a program; its hash is computed once."""

    key: tuple[Hashable, ...]
    hash_value: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hash_value", hash(self.key))

    def __hash__(self) -> int:
        return self.hash_value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fingerprint):
            return NotImplemented
        return self.hash_value == other.hash_value and self.key == other.key


class _Inexact(Exception):
    """The walk met IR whose fingerprint would not be exact."""


@dataclass
class _Walk:
    """The flat key under construction. SSA values are numbered by id (their
    `__hash__` runs in Python); the module keeps them alive during the walk.
    `_operands` and `_successors` are xDSL's private fields: the public
    properties build a wrapper object per op."""

    key: list[Hashable] = field(default_factory=lambda: [])
    numbers: dict[int, int] = field(default_factory=lambda: {})
    definitions: int = 0
    called: dict[str, None] = field(default_factory=lambda: {})
    specs: list[tuple[str, object]] = field(default_factory=lambda: [])

    def block(self, block: Block) -> None:
        append = self.key.append
        numbers = self.numbers
        args = block.args
        append(len(args))
        for arg in args:
            append(numbers.setdefault(id(arg), len(numbers)))
            append(arg.type)
            append(arg.name_hint)
        self.definitions += len(args)
        op = block.first_op
        while op is not None:
            self.op(op)
            op = op.next_op
        append(_END)

    def op(self, op: Operation) -> None:
        append = self.key.append
        numbers = self.numbers
        append(type(op))
        append(tuple(op.properties.items()))
        append(tuple(op.attributes.items()))
        operands = op._operands  # pyright: ignore[reportPrivateUsage]
        append(len(operands))
        for operand in operands:
            append(numbers.setdefault(id(operand), len(numbers)))
        results = op.results
        append(len(results))
        for result in results:
            append(numbers.setdefault(id(result), len(numbers)))
            append(result.type)
            append(result.name_hint)
        self.definitions += len(results)
        if op._successors:  # pyright: ignore[reportPrivateUsage]
            raise _Inexact
        if isinstance(op, CallOp):
            self.called.setdefault(op.op_id.data, None)
        regions = op.regions
        append(len(regions))
        for region in regions:
            blocks = list(region.blocks)
            append(len(blocks))
            for block in blocks:
                self.block(block)

    def registry_specs(self) -> None:
        """(op id, spec) of every op called, transitively through compositions."""
        if not self.called:
            return
        pending = list(self.called)
        seen = set(pending)
        while pending:
            op_id = pending.pop()
            try:
                spec = resolve(op_id)
                callees = getattr(spec, "callees", ()) if spec is not None else ()
            except Exception as error:  # a broken user spec: validation reports it
                raise _Inexact from error
            self.specs.append((op_id, spec))
            self.key.append(op_id)
            self.key.append(spec)
            if not isinstance(callees, tuple | list | frozenset | set):
                continue
            for callee in callees:  # pyright: ignore[reportUnknownVariableType]
                if isinstance(callee, str) and callee not in seen:
                    seen.add(callee)
                    pending.append(callee)


_STATE = operator.attrgetter("__dict__")
"""An IR object's fields (xDSL's ops, blocks, regions and values are plain
dataclasses: every field lives in the instance `__dict__`, or is a class
default until it is first set)."""
_CONTAINERS = (dict, list, set)


def _state(item: object) -> dict[str, object]:
    """A copy of an IR object's fields, with its mutable containers (an op's
    property and attribute dicts) copied too: compared later by content."""
    state = dict(_STATE(item))
    for name, value in state.items():
        if isinstance(value, _CONTAINERS):
            state[name] = value.copy()  # pyright: ignore[reportUnknownMemberType]
    return state


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What a module is made of, by identity: every op, region and block in
    it (`nodes`) and every SSA value (`values`), each object's type and a copy
    of its fields."""

    nodes: tuple[object, ...]
    node_types: list[type]
    node_states: list[dict[str, object]]
    values: tuple[object, ...]
    value_types: list[type]
    value_states: list[dict[str, object]]

    @classmethod
    def of(cls, module: ModuleOp) -> _Snapshot:
        """Collect without recursion: ops are pushed on a stack, so any nesting
        depth is fine."""
        nodes: list[object] = []
        values: list[object] = []
        append, extend = nodes.append, values.extend
        stack: list[Operation] = [module]
        while stack:
            op = stack.pop()
            append(op)
            extend(op.results)
            for region in op.regions:
                append(region)
                for block in region.blocks:
                    append(block)
                    extend(block.args)
                    stack.extend(block.ops)
        return cls(
            tuple(nodes), list(map(type, nodes)), list(map(_state, nodes)),
            tuple(values), list(map(type, values)), list(map(_state, values)),
        )

    def nodes_unchanged(self) -> bool:
        """Every op, region and block still has the type and fields it had
        (the property and attribute dicts the same content)."""
        return _same(self.nodes, self.node_types, self.node_states)

    def unchanged(self) -> bool:
        """`nodes_unchanged`, and every SSA value too (its name hint)."""
        return self.nodes_unchanged() and _same(self.values, self.value_types, self.value_states)


def _same(items: tuple[object, ...], types: list[type], states: list[dict[str, object]]) -> bool:
    """`items` still have these types and fields, decided by C loops over the
    objects: no Python code runs per object."""
    return list(map(_STATE, items)) == states and list(map(type, items)) == types


@dataclass(frozen=True, slots=True)
class Known:
    """The fingerprint of a module at the time of `snapshot`."""

    module: ModuleOp
    snapshot: _Snapshot
    fingerprint: Fingerprint
    specs: tuple[tuple[str, object], ...]
    """(op id, spec) of every op called: the registry must still give these."""

    def still_valid(self) -> bool:
        """The module is what it was when the fingerprint was taken, and the
        registry still gives the same spec for every op it calls."""
        return self.snapshot.unchanged() and self._specs_hold()

    def runs_the_same(self) -> bool:
        """The module still runs as the program fingerprinted (`vyre.run`'s
        hot path asks this on every call): `still_valid` without looking at
        the SSA values. A value's only field xDSL lets change after creation
        is its name hint (`type` has no setter; owner and index are fixed;
        its use list changes only with the operands of ops, which are
        compared), and a renamed value computes the same bytes. About a third
        fewer objects read per call; the general path (`fingerprint`) still
        sees a new name."""
        return self.snapshot.nodes_unchanged() and self._specs_hold()

    def _specs_hold(self) -> bool:
        if not self.specs:
            return True
        try:
            return all(resolve(op_id) is spec for op_id, spec in self.specs)
        except Exception:
            return False


KNOWN_CAPACITY = 64
"""Program modules whose last fingerprint and snapshot are kept."""


class HasModule(Protocol):
    """A vyre.ir.Program (the builder's handle on its module)."""

    @property
    def module(self) -> ModuleOp: ...


def fingerprint(program: HasModule | ModuleOp) -> Fingerprint | None:
    """The structural fingerprint of a program (or its module); None when it
    cannot be exact (the caller must then not cache anything for it)."""
    module = program if isinstance(program, ModuleOp) else program.module
    known = _KNOWN.get(id(module))
    try:
        if known is not None and known.module is module and known.still_valid():
            return known.fingerprint
    except RecursionError:
        return None
    try:
        snapshot = _Snapshot.of(module)
    except AttributeError:  # an IR object without a __dict__ (another xDSL)
        return None
    walk = _Walk()
    try:
        walk.op(module)
        walk.registry_specs()
    except (_Inexact, RecursionError):
        return None
    if walk.definitions != len(walk.numbers):
        return None  # an operand defined outside the module
    result = Fingerprint(tuple(walk.key))
    _KNOWN.put(id(module), Known(module, snapshot, result, tuple(walk.specs)))
    return result


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """A thread-safe mapping that keeps the `capacity` most recently used entries
    (a hit takes no lock; insertions and evictions do)."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError(f"an LRU cache needs a capacity of at least 1, got {capacity}")
        self.capacity = capacity
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        entries = self._entries
        value = entries.get(key)
        if value is not None:
            try:  # OrderedDict's C methods are atomic; another thread may evict
                entries.move_to_end(key)
            except KeyError:
                pass
        return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries


_KNOWN: LruCache[int, Known] = LruCache(KNOWN_CAPACITY)
"""The last fingerprint of recently fingerprinted modules, by id(module); each
entry keeps its module alive, so the id cannot be reused while it is cached."""


def remembered(module: ModuleOp) -> Known | None:
    """The fingerprint entry `fingerprint` keeps for `module` (None: not
    fingerprinted, evicted, or not exact). `Known.still_valid()` then answers
    whether it still holds: a caller that keeps the entry (vyre.run's hot path)
    checks it on every call instead of looking the module up."""
    known = _KNOWN.get(id(module))
    return known if known is not None and known.module is module else None
