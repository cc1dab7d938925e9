"""`execute`: run a prepared kernel on host words with the reference semantics.

The kernel comes from the pipeline (`vyre.pipeline.prepare`: validated, calls
inlined, constants folded); the interpreter runs no pass and no validation.

Workgroups are run in batches (lanes = workgroups x invocations, workgroup-
major then local linear index); each batch gets fresh zeroed workgroup memory
per workgroup. With `lane_order="reversed"` batches, workgroups and lanes run
in the opposite order, so that Stores and Atomics whose result depends on the
order (data races) give different bytes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from vyre.context import nesting_depth
from vyre.dialects import vyre as d
from vyre.fingerprint import LruCache
from vyre.pipeline import Prepared
from vyre.runtime.interp import machine as m
from vyre.runtime.interp.budget import BATCH_COST, WorkBudget, resolve_budget, workgroup_memory_cost
from vyre.runtime.interp.compile import compile_kernel
from vyre.runtime.interp.errors import InterpError
from vyre.runtime.interp.memory import (
    INPUT_LIMIT_BYTES,
    MIB,
    WORKGROUP_LIMIT_BYTES,
    BufferInfo,
    Memory,
    packed_words,
    storage_memory,
    workgroup_memory,
)
from vyre.runtime.interp.values import WORD, Lanes

LANE_ORDERS = ("forward", "reversed")

# Batches hold at most this many lanes (unless one workgroup is larger), at most
# this many lane-values (lanes x value slots of the program, which bounds the
# memory of long programs) and at most this much workgroup memory (unless one
# workgroup needs more).
LANES_PER_BATCH = 1 << 16
LANE_VALUES_PER_BATCH = 1 << 24
WORKGROUP_BYTES_PER_BATCH = 64 * MIB


def execute(
    program: Prepared | d.KernelOp,
    words: Mapping[str, npt.ArrayLike],
    dispatch: Sequence[int] | int,
    *,
    lane_order: str = "forward",
    lengths: Mapping[str, int] | None = None,
    budget: int | None = None,
) -> dict[str, npt.NDArray[np.uint32]]:
    """Run a prepared program (or its kernel) over `dispatch` workgroups; return
    the final words of every read_write buffer. `words` holds the initial words
    of every storage and uniform buffer; the caller's arrays are never modified.

    `lengths` maps storage/uniform buffer names to their element count where the
    words do not tell it: an F16/BF16 buffer packs two elements per word, so n
    elements take ceil(n/2) words, and one missing from `lengths` has 2 x words
    elements. An entry for any other buffer must equal the count its words give
    (words / words per element). The result of a read_write F16/BF16 buffer is
    its ceil(n/2) words.

    `budget` bounds the work of the run in units (budget.py; default: the
    `VYRE_INTERP_BUDGET` environment variable, else 1.5e10, about 15 s of work):
    work that would pass it raises `InterpBudgetError` (a ValueError), before
    running where it can be predicted."""
    if lane_order not in LANE_ORDERS:
        raise ValueError(f"lane_order must be 'forward' or 'reversed', got {lane_order!r}")
    work = WorkBudget(resolve_budget(budget))
    kernel = _kernel_of(program)
    if not isinstance(program, Prepared):  # a prepared kernel is validated: V018 holds
        _check_nesting(kernel)
    grid = _grid(dispatch)
    workgroup_size = _workgroup_size(kernel)
    infos = _buffer_infos(kernel)
    host_words = _host_words(infos, words)
    elements = _element_counts(infos, host_words, lengths)
    storage = {
        name: storage_memory(infos[name], w, elements[name]) for name, w in host_words.items()
    }
    workgroup_infos = [info for info in infos.values() if info.is_workgroup]
    _check_workgroup_limits(workgroup_infos)
    body, slot_count = _compiled(program, kernel, infos)
    plan = _Plan(grid, workgroup_size, lane_order == "reversed")
    per_workgroup_bytes = sum(
        info.declared_count * info.words_per_element * 4 for info in workgroup_infos
    )
    per_batch = plan.workgroups_per_batch(slot_count, per_workgroup_bytes)
    lanes, batches = prod(grid) * prod(workgroup_size), -(-prod(grid) // per_batch)
    lane_cost, fixed_cost = body.certain
    shared_words = per_workgroup_bytes // 4
    work.predict(
        int((lane_cost + BATCH_COST[0]) * lanes)
        + (fixed_cost + BATCH_COST[1]) * batches
        + workgroup_memory_cost(len(workgroup_infos) * batches, shared_words * prod(grid)),
        f"a dispatch of {grid} workgroups of {workgroup_size} invocations ({lanes} invocations)"
        + (f", each with {per_workgroup_bytes:,} bytes of workgroup memory" if shared_words else ""),
    )
    for start, stop in plan.batches(per_batch):
        work.charge(workgroup_memory_cost(len(workgroup_infos), shared_words * (stop - start)))
        memories = dict(storage)
        for info in workgroup_infos:
            memories[info.name] = workgroup_memory(info, stop - start)
        batch = plan.batch(start, stop, memories, slot_count)
        batch.budget = work
        work.charge(int(BATCH_COST[0] * batch.lanes) + BATCH_COST[1])
        body.run(batch, None)
    return {
        name: host_words[name]
        for name, info in infos.items()
        if info.access == d.AccessKind.READ_WRITE
    }


COMPILED_CAPACITY = 256
_COMPILED: LruCache[int, tuple[Prepared, m.Body, int]] = LruCache(COMPILED_CAPACITY)
"""Compiled bodies of prepared programs by program identity: a kernel op runs
the same few programs many times, over many buffer sizes (a BFS level is three
dispatches; a certificate runs each op on dozens of lengths). A body holds
nothing of a dispatch (buffer lengths are read at run time), so it serves
every run; machine steps are frozen, so it is reused as it is. The entry keeps
the program alive, so its id is not reused while it is cached. Bare kernel ops
(which a caller may still rewrite) are compiled every time."""


def _compiled(
    program: object, kernel: d.KernelOp, infos: Mapping[str, BufferInfo]
) -> tuple[m.Body, int]:
    if not isinstance(program, Prepared):
        return compile_kernel(kernel, infos)
    key = id(program)
    entry = _COMPILED.get(key)
    if entry is not None and entry[0] is program:
        return entry[1], entry[2]
    body, slot_count = compile_kernel(kernel, infos)
    _COMPILED.put(key, (program, body, slot_count))
    return body, slot_count


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------


def _kernel_of(program: object) -> d.KernelOp:
    if isinstance(program, Prepared):
        return program.kernel
    if isinstance(program, d.KernelOp):
        return program
    raise TypeError(
        "execute() takes a prepared program (vyre.pipeline.prepare(program)) or its"
        f" vyre.kernel op, got {type(program).__name__}"
    )


def _grid(dispatch: Sequence[int] | int) -> tuple[int, int, int]:
    """(x, y, z) workgroup counts from a count or 1 to 3 counts (missing ones 1)."""
    if isinstance(dispatch, (int, np.integer)):
        given: list[object] = [dispatch]
    else:
        try:
            given = list(dispatch)
        except TypeError:
            given = []
    counts: list[int] = []
    for size in given:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            break
        counts.append(int(cast("int | np.integer[Any]", size)))
    if not 1 <= len(given) <= 3 or len(counts) != len(given):
        raise ValueError(
            "dispatch must be 1 to 3 non-negative workgroup counts (x, y, z), "
            f"got {dispatch!r}"
        )
    x, y, z = [*counts, 1, 1][:3]
    return (x, y, z)


def _check_nesting(kernel: d.KernelOp) -> None:
    """The interpreter recurses once per statement level: a kernel given directly
    must be within V018's limit."""
    depth = nesting_depth(kernel) - 1
    if depth > MAX_NESTING_DEPTH:
        raise InterpError(
            f"program nesting depth {depth} exceeds max {MAX_NESTING_DEPTH} (V018): the"
            " reference interpreter runs validated programs (vyre.pipeline.prepare)"
        )


MAX_NESTING_DEPTH = 64


def _workgroup_size(kernel: d.KernelOp) -> tuple[int, int, int]:
    sizes = kernel.workgroup
    if len(sizes) != 3 or any(size < 1 for size in sizes):
        raise InterpError(
            f"workgroup_size {sizes} must have three components >= 1 (V003)"
        )
    x, y, z = sizes
    if x * y * z > MAX_WORKGROUP_INVOCATIONS:
        raise InterpError(
            f"workgroup_size {sizes} has {x * y * z} invocations per workgroup; the reference"
            f" interpreter runs at most {MAX_WORKGROUP_INVOCATIONS} (a GPU far fewer)"
        )
    return (x, y, z)


MAX_WORKGROUP_INVOCATIONS = 1 << 16


def _buffer_infos(kernel: d.KernelOp) -> dict[str, BufferInfo]:
    infos: dict[str, BufferInfo] = {}
    for decl in kernel.buffer_decls:
        name = decl.buffer_name.data
        if name in infos:
            raise InterpError(f"duplicate buffer name `{name}` (V001)")
        infos[name] = BufferInfo(
            name, decl.access_kind, decl.element.data_kind, decl.count.data
        )
    return infos


def _as_words(name: str, value: npt.ArrayLike) -> npt.NDArray[np.uint32]:
    array = np.asarray(value)
    if array.ndim != 1:
        raise ValueError(
            f"words of buffer `{name}` must be a 1-D array, got shape {array.shape}"
        )
    if array.dtype == np.uint32:
        return array
    if array.size == 0:
        return np.zeros(0, dtype=np.uint32)
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"words of buffer `{name}` must be a uint32 array, got dtype {array.dtype}"
        )
    if len(array) and (int(array.min()) < 0 or int(array.max()) > 0xFFFF_FFFF):
        raise ValueError(f"words of buffer `{name}` must fit in 32 bits")
    return array.astype(np.uint32)


def _host_words(
    infos: Mapping[str, BufferInfo], words: Mapping[str, npt.ArrayLike]
) -> dict[str, npt.NDArray[np.uint32]]:
    """Checked words of every storage/uniform buffer; read_write ones are copies."""
    if not isinstance(words, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"words must map buffer names to arrays, got {type(words).__name__}")
    for name in words:
        info = infos.get(name)
        if info is None:
            raise ValueError(f"words given for unknown buffer `{name}`")
        if info.is_workgroup:
            raise ValueError(
                f"words given for workgroup buffer `{name}`: workgroup memory starts zeroed"
            )
    result: dict[str, npt.NDArray[np.uint32]] = {}
    for name, info in infos.items():
        if info.is_workgroup:
            continue
        if name not in words:
            raise ValueError(f"no words given for {info.access.value} buffer `{name}`")
        array = _as_words(name, words[name])
        if array.nbytes > INPUT_LIMIT_BYTES:
            raise ValueError(
                f"buffer `{name}` holds {array.nbytes} bytes, more than the reference "
                f"interpreter's limit of 64 MiB ({INPUT_LIMIT_BYTES} bytes) per input. "
                "Fix: tile the computation "
                "into smaller dispatches"
            )
        if info.access == d.AccessKind.READ_WRITE:
            array = array.copy()
        result[name] = array
    return result


def _element_counts(
    infos: Mapping[str, BufferInfo],
    host_words: Mapping[str, npt.NDArray[np.uint32]],
    lengths: Mapping[str, int] | None,
) -> dict[str, int]:
    """Element count of every storage/uniform buffer, from `lengths` or its words."""
    given: Mapping[str, int] = {} if lengths is None else lengths
    if not isinstance(given, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"lengths must map buffer names to element counts, got {lengths!r}")
    for name, count in given.items():
        if name not in host_words:
            known = ", ".join(sorted(host_words)) or "none"
            raise ValueError(
                f"length given for `{name}`, which is not a storage or uniform buffer of "
                f"the program (have: {known})"
            )
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"length of buffer `{name}` must be an int, got {count!r}")
        if count < 0:
            raise ValueError(f"length of buffer `{name}` is negative ({count})")
    counts: dict[str, int] = {}
    for name, array in host_words.items():
        info = infos[name]
        words = len(array)
        if info.packed:
            count = int(given.get(name, 2 * words))
            if packed_words(count) != words:
                raise ValueError(
                    f"buffer `{name}` of {count} {info.element.value} elements needs "
                    f"{packed_words(count)} words (two elements per word), but {words} "
                    "words were given"
                )
        else:
            width = info.words_per_element
            count = words // width  # a ragged word count is reported by storage_memory
            if name in given and not words % width and int(given[name]) != count:
                raise ValueError(
                    f"length {given[name]} given for buffer `{name}`, but its {words} "
                    f"words hold {count} {info.element.value} elements"
                )
        counts[name] = count
    return counts


def _check_workgroup_limits(infos: Sequence[BufferInfo]) -> None:
    total = 0
    for info in infos:
        size = info.declared_count * info.words_per_element * 4
        total += size
        if size > WORKGROUP_LIMIT_BYTES:
            raise ValueError(
                f"workgroup buffer `{info.name}` needs {size} bytes, more than the "
                f"reference interpreter's limit of 64 MiB ({WORKGROUP_LIMIT_BYTES} bytes) "
                "of workgroup memory"
            )
    if total > WORKGROUP_LIMIT_BYTES:
        names = ", ".join(f"`{info.name}`" for info in infos)
        raise ValueError(
            f"workgroup buffers {names} need {total} bytes together, more than the "
            f"reference interpreter's limit of 64 MiB ({WORKGROUP_LIMIT_BYTES} bytes) "
            "of workgroup memory"
        )


# ---------------------------------------------------------------------------
# Batching and ids
# ---------------------------------------------------------------------------


def _unravel(
    linear: npt.NDArray[np.int64], sizes: tuple[int, int, int], axis: int
) -> npt.NDArray[np.int64]:
    stride = prod(sizes[:axis])
    return (linear // stride) % sizes[axis]


@dataclass(frozen=True)
class _Plan:
    grid: tuple[int, int, int]
    workgroup_size: tuple[int, int, int]
    reversed: bool

    def workgroups_per_batch(self, slot_count: int, per_workgroup_bytes: int) -> int:
        lanes = min(LANES_PER_BATCH, LANE_VALUES_PER_BATCH // max(1, slot_count))
        per_batch = max(1, lanes // prod(self.workgroup_size))
        if per_workgroup_bytes:
            per_batch = min(per_batch, max(1, WORKGROUP_BYTES_PER_BATCH // per_workgroup_bytes))
        return per_batch

    def batches(self, per_batch: int) -> Iterator[tuple[int, int]]:
        """(first, end) linear workgroup ranges of `per_batch` workgroups, in
        execution order."""
        total = prod(self.grid)
        starts = range(0, total, per_batch)
        for start in reversed(starts) if self.reversed else starts:
            yield start, min(start + per_batch, total)

    def batch(
        self, start: int, stop: int, memories: dict[str, Memory], slot_count: int
    ) -> m.Batch:
        invocations = prod(self.workgroup_size)
        groups = np.arange(start, stop, dtype=np.int64)
        local = np.arange(invocations, dtype=np.int64)
        if self.reversed:
            groups, local = groups[::-1], local[::-1]
        group_of_lane = np.repeat(groups, invocations)
        local_of_lane = np.tile(local, len(groups))
        cache: dict[tuple[str, int], Lanes] = {}

        def ids(family: str, axis: int) -> Lanes:
            key = (family, axis)
            found = cache.get(key)
            if found is not None:
                return found
            if family == "workgroup":
                value = _unravel(group_of_lane, self.grid, axis)
            elif family == "local":
                value = _unravel(local_of_lane, self.workgroup_size, axis)
            else:
                value = _unravel(group_of_lane, self.grid, axis) * self.workgroup_size[
                    axis
                ] + _unravel(local_of_lane, self.workgroup_size, axis)
            lanes = (value & 0xFFFF_FFFF).astype(WORD)
            cache[key] = lanes
            return lanes

        return m.Batch(
            lanes=len(group_of_lane),
            workgroups=stop - start,
            slot_count=slot_count,
            memories=memories,
            workgroup_slots=group_of_lane - start,
            ids=ids,
        )
