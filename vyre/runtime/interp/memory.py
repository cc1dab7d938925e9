"""Buffers of a dispatch and the lane-wise Load, Store and Atomic on them.

Storage buffers (read_only, read_write, uniform) hold the host words of the
runtime contract. Workgroup buffers hold one zeroed region per workgroup of
the current batch; a lane reaches its own region through its workgroup slot.

F16/BF16 storage buffers are packed: two elements per word, element 2k in bits
0-15 and element 2k+1 in bits 16-31, so n elements take ceil(n/2) words (the
count n comes with the words: the runtime's `lengths`). A load gives the 16-bit
pattern in the low half of a word; a store writes only its element's half and
never disturbs the neighbour half. F16/BF16 workgroup buffers hold one element
per word (internal memory, not observable).

Out of bounds (index >= logical element count, per workgroup for workgroup
buffers): Load yields 0 of the element type, Store does nothing, Atomic does
nothing and yields 0. Conflicting Stores and Atomics of one op are applied in
lane order (the order of the lanes of the batch), so the last lane wins.

Atomics act on read_write storage buffers and on workgroup buffers of u32
elements (docs/kernels.md, "Workgroup atomics"): on a workgroup buffer a lane
reaches the element `index` of its own workgroup's region, so workgroups never
see each other's atomics; the lanes of one workgroup hitting one element are
applied one after the other in lane order, each seeing the previous one's
result (one valid order of relaxed atomics).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vyre.dialects.vyre import AccessKind, AtomicOpKind, DataTypeKind
from vyre.runtime.interp.errors import InterpError
from vyre.runtime.interp.values import HALF_FLOATS, WORD, Lanes, Truth, words_per_value

Index = npt.NDArray[np.int64]

MIB = 1 << 20
INPUT_LIMIT_BYTES = 64 * MIB
WORKGROUP_LIMIT_BYTES = 64 * MIB


@dataclass(frozen=True)
class BufferInfo:
    """What the interpreter needs of a declaration."""

    name: str
    access: AccessKind
    element: DataTypeKind
    declared_count: int

    @property
    def words_per_element(self) -> int:
        if self.element == DataTypeKind.BYTES:
            return 1
        return words_per_value(self.element)

    @property
    def is_workgroup(self) -> bool:
        return self.access == AccessKind.WORKGROUP

    @property
    def packed(self) -> bool:
        """Two 16-bit float elements per word (F16/BF16 storage and uniform buffers)."""
        return self.element in HALF_FLOATS and not self.is_workgroup


@dataclass
class Memory:
    """A buffer's words seen as elements: `data` has shape (elements,) or
    (elements, width); `count` is the logical element count per region."""

    info: BufferInfo
    data: npt.NDArray[np.uint32]
    count: int

    @property
    def width(self) -> int:
        return self.info.words_per_element


def packed_words(count: int) -> int:
    """Words of a packed F16/BF16 buffer of `count` elements."""
    return (count + 1) // 2


def storage_memory(
    info: BufferInfo, words: npt.NDArray[np.uint32], count: int | None = None
) -> Memory:
    """The memory of a storage/uniform buffer over its words (shared, not copied).
    `count` is the element count of a packed buffer (default: 2 x words)."""
    if info.packed:
        elements = 2 * len(words) if count is None else count
        if packed_words(elements) != len(words):
            raise InterpError(
                f"buffer `{info.name}` of {elements} {info.element.value} elements needs "
                f"{packed_words(elements)} words (two elements per word), but "
                f"{len(words)} words were given"
            )
        return Memory(info, words, elements)
    width = info.words_per_element
    if len(words) % width:
        raise InterpError(
            f"buffer `{info.name}` holds {info.element.value} elements of {width} words, "
            f"but {len(words)} words were given. Fix: pass a multiple of {width} words"
        )
    count = len(words) // width
    data = words if width == 1 else words.reshape(count, width)
    return Memory(info, data, count)


def workgroup_memory(info: BufferInfo, workgroups: int) -> Memory:
    """Zeroed memory for `workgroups` workgroups; region k is workgroup slot k."""
    width = info.words_per_element
    shape = (workgroups * info.declared_count,) + ((width,) if width > 1 else ())
    return Memory(info, np.zeros(shape, dtype=WORD), info.declared_count)


def _check_typed(memory: Memory, what: str) -> None:
    if memory.info.element == DataTypeKind.BYTES:
        raise InterpError(
            f"{what} on buffer `{memory.info.name}` with element type `bytes` is not "
            "supported (V013). Fix: use a typed buffer"
        )


def _positions(
    memory: Memory, index: Lanes, slots: Index | None
) -> tuple[Index, Truth | None]:
    """Flat element positions of each lane and the in-bounds lanes (None: all)."""
    count = memory.count
    if slots is None:
        position = index.astype(np.int64)
    else:
        position = slots * count + index
    if len(index) and int(index.max()) < count:
        return position, None
    return position, index < count


def load(memory: Memory, index: Lanes, slots: Index | None) -> Lanes:
    """`buffer[index]` per lane; 0 of the element type out of bounds."""
    _check_typed(memory, "load")
    width = memory.width
    lanes = len(index)
    if memory.count == 0:
        shape = (lanes,) if width == 1 else (lanes, width)
        return np.zeros(shape, dtype=WORD)
    position, inside = _positions(memory, index, slots)
    if memory.info.packed:
        return _load_halves(memory.data, position, inside)
    if inside is None:
        values = np.take(memory.data, position, axis=0)
    else:
        values = np.take(memory.data, np.where(inside, position, 0), axis=0)
        values[~inside] = 0
    if memory.info.element == DataTypeKind.BOOL:
        return (values != 0).astype(WORD)
    return values


def _load_halves(data: Lanes, position: Index, inside: Truth | None) -> Lanes:
    """Elements of a packed buffer: the half of word position // 2 that holds
    each element, in the low half of a value (0 out of bounds)."""
    if inside is not None:
        position = np.where(inside, position, 0)
    words = np.take(data, position >> 1)
    shift = ((position & 1) << 4).astype(WORD)
    values = (words >> shift) & WORD(0xFFFF)
    if inside is not None:
        values[~inside] = 0
    return values


def _store_halves(data: Lanes, position: Index, value: Lanes) -> None:
    """Write each element's half of its word; `position` holds distinct elements,
    so each parity touches distinct words and the other half is kept."""
    for parity, keep in ((0, 0xFFFF_0000), (1, 0x0000_FFFF)):
        pick = (position & 1) == parity
        if not pick.any():
            continue
        words = position[pick] >> 1
        half = (value[pick] & WORD(0xFFFF)) << WORD(16 * parity)
        data[words] = (data[words] & WORD(keep)) | half


def _check_width(memory: Memory, value: Lanes, what: str) -> None:
    width = 1 if value.ndim == 1 else value.shape[1]
    if width != memory.width:
        raise InterpError(
            f"{what} of a {width}-word value into buffer `{memory.info.name}` of "
            f"{memory.info.element.value} elements ({memory.width} words). "
            "Fix: cast the value to the buffer's element type"
        )


def _strictly_monotone(position: Index) -> bool:
    if len(position) < 2:
        return True
    step = np.diff(position)
    return bool(np.all(step > 0) or np.all(step < 0))


def _last_of_each_position(position: Index) -> Index:
    """Indices (into `position`) of the last occurrence of every distinct value."""
    order = np.argsort(position, kind="stable")
    ordered = position[order]
    last = np.ones(len(order), dtype=np.bool_)
    last[:-1] = ordered[1:] != ordered[:-1]
    return order[last]


def store(
    memory: Memory, index: Lanes, value: Lanes, slots: Index | None, mask: Truth | None
) -> None:
    """`buffer[index] = value` for the active in-bounds lanes, later lanes win."""
    _check_typed(memory, "store")
    _check_width(memory, value, "store")
    if memory.count == 0 or not len(index):
        return
    position, inside = _positions(memory, index, slots)
    active = mask if inside is None else (inside if mask is None else mask & inside)
    if active is not None:
        position, value = position[active], value[active]
    if not _strictly_monotone(position):
        keep = _last_of_each_position(position)
        position, value = position[keep], value[keep]
    if memory.info.packed:
        _store_halves(memory.data, position, value)
        return
    memory.data[position] = value


# ---------------------------------------------------------------------------
# Atomics: applied one lane after the other in lane order
# ---------------------------------------------------------------------------

_SCAN_OPS: dict[AtomicOpKind, Callable[[Lanes, Lanes], Lanes]] = {
    AtomicOpKind.ADD: np.add,
    AtomicOpKind.OR: np.bitwise_or,
    AtomicOpKind.AND: np.bitwise_and,
    AtomicOpKind.XOR: np.bitwise_xor,
    AtomicOpKind.MIN: np.minimum,
    AtomicOpKind.MAX: np.maximum,
}


@dataclass(frozen=True)
class _Groups:
    """Active lanes sorted by target element, lane order kept inside a group."""

    lanes: Index  # lane of each sorted entry
    position: Index  # target element of each sorted entry
    start: npt.NDArray[np.intp]  # index of the first entry of the entry's group
    first: Truth  # entry opens its group
    last: Truth  # entry closes its group


def _group(position: Index, lanes: Index) -> _Groups:
    order = np.argsort(position, kind="stable")
    ordered = position[order]
    entries = len(order)
    first = np.ones(entries, dtype=np.bool_)
    first[1:] = ordered[1:] != ordered[:-1]
    last = np.ones(entries, dtype=np.bool_)
    last[:-1] = first[1:]
    start = np.maximum.accumulate(np.where(first, np.arange(entries), 0))
    return _Groups(lanes[order], ordered, start, first, last)


def _segmented_inclusive_scan(
    values: Lanes, start: npt.NDArray[np.intp], combine: Callable[[Lanes, Lanes], Lanes]
) -> Lanes:
    """Inclusive scan of an associative `combine` inside each group (Hillis-Steele)."""
    scanned = values.copy()
    entry = np.arange(len(values))
    longest = int((entry - start).max()) + 1 if len(values) else 0
    distance = 1
    while distance < longest:
        reach = entry - distance >= start
        target = entry[reach]
        scanned[target] = combine(scanned[target - distance], scanned[target])
        distance <<= 1
    return scanned


def _compare_exchange(
    initial: Lanes, value: Lanes, expected: Lanes, groups: _Groups
) -> tuple[Lanes, Lanes]:
    """Pre-values (per entry) and final values (per entry, read at group ends)."""
    solo = groups.first & groups.last
    previous = initial.copy()
    final = np.where(solo & (initial == expected), value, initial).astype(WORD)
    contended = np.flatnonzero(~solo)
    current = 0
    for entry in contended.tolist():
        if groups.first[entry]:
            current = int(initial[entry])
        previous[entry] = current
        if current == int(expected[entry]):
            current = int(value[entry])
        final[entry] = current
    return previous, final


ATOMIC_ACCESS = frozenset({AccessKind.READ_WRITE, AccessKind.WORKGROUP})
"""The buffers atomics may target (with u32 elements): V009, V014, V025."""


def atomic(
    memory: Memory,
    kind: AtomicOpKind,
    index: Lanes,
    value: Lanes,
    expected: Lanes | None,
    mask: Truth | None,
    slots: Index | None = None,
) -> Lanes:
    """Atomic read-modify-write per active in-bounds lane; yields pre-values.
    `slots` (workgroup buffers) gives each lane's workgroup region."""
    info = memory.info
    if info.element != DataTypeKind.U32 or info.access not in ATOMIC_ACCESS:
        raise InterpError(
            f"atomic on buffer `{info.name}` ({info.access.value} {info.element.value}): "
            "atomics need a read_write or workgroup buffer of u32 elements (V009/V014/V025)"
        )
    lanes = len(index)
    result = np.zeros(lanes, dtype=WORD)
    if memory.count == 0 or not lanes:
        return result
    active = index < memory.count
    if mask is not None:
        active &= mask
    active_lanes = np.flatnonzero(active)
    if not len(active_lanes):
        return result
    position = index[active_lanes].astype(np.int64)
    if slots is not None:
        position += slots[active_lanes] * memory.count
    groups = _group(position, active_lanes)
    operand = value[groups.lanes]
    initial = memory.data[groups.position]
    if kind == AtomicOpKind.COMPARE_EXCHANGE:
        assert expected is not None
        previous, final = _compare_exchange(
            initial, operand, expected[groups.lanes], groups
        )
    elif kind == AtomicOpKind.EXCHANGE:
        previous = initial.copy()
        previous[~groups.first] = operand[np.flatnonzero(~groups.first) - 1]
        final = operand
    else:
        combine = _SCAN_OPS[kind]
        scanned = _segmented_inclusive_scan(operand, groups.start, combine)
        previous = initial.copy()
        later = np.flatnonzero(~groups.first)
        previous[later] = combine(initial[later], scanned[later - 1])
        final = combine(initial, scanned)
    result[groups.lanes] = previous
    memory.data[groups.position[groups.last]] = final[groups.last]
    return result
