"""`vyre.run`: prepare a program, move numpy arrays in, run a backend, move them out.

The backends speak the host words of
`vyre.runtime.host`; this module checks every argument first (each error names
the buffer) and prepares the program (`vyre.pipeline.prepare`: validation, then
the passes) before any backend work.

Each call computes the program's structural fingerprint once (`vyre.fingerprint`)
and hands it to the pipeline, whose cache holds the prepared program; the
buffer table the argument checks use is cached beside it. A program changed in
place has a new fingerprint, so it is validated and prepared again.

The hot path (`_Hot`, per program module, wgpu with host arrays): a repeated
call checks that the module still runs as when its fingerprint was taken
(`vyre.fingerprint.Known.runs_the_same`: its ops, regions and blocks compared
with a snapshot in C loops), checks the arguments of the common shape in one loop, and runs the
bound run shape (`wgpu_backend.HostRun`) kept for its element counts and
dispatch. Every other call, and every argument of another shape, goes through
the general checks; errors are theirs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, SupportsIndex, cast

import numpy as np

from vyre.fingerprint import Fingerprint, Known, LruCache, fingerprint, remembered
from vyre.ir import BufferAccess, BufferDecl, DataType, Program
from vyre.pipeline import Prepared, prepare
from vyre.runtime import host
from vyre.runtime.device_buffer import DeviceBuffer
from vyre.runtime.interp import execute as interp_execute
from vyre.runtime.wgpu_device import Resident

__all__ = ["BACKENDS", "ProgramTable", "prepare_arguments", "run"]

Words = dict[str, "np.ndarray | Resident"]
"""Host words of every storage/uniform buffer, or words already on the device."""

Backend = Callable[
    [Prepared, Words, tuple[int, int, int], dict[str, int]],
    dict[str, np.ndarray],
]
"""(prepared program, words, dispatch, F16/BF16 element counts) -> final words."""


def _interp(
    prepared: Prepared,
    words: Words,
    dispatch: tuple[int, int, int],
    lengths: dict[str, int],
) -> dict[str, np.ndarray]:
    host_words = {
        name: value.read() if isinstance(value, Resident) else value
        for name, value in words.items()
    }
    return interp_execute(prepared, host_words, dispatch, lengths=lengths or None)


def _wgpu(
    prepared: Prepared,
    words: Words,
    dispatch: tuple[int, int, int],
    lengths: dict[str, int],
) -> dict[str, np.ndarray]:
    return _wgpu_backend().execute(prepared, words, dispatch, lengths=lengths or None)


@cache
def _wgpu_backend() -> ModuleType:
    """The wgpu backend module, imported on first use: importing wgpu costs
    about a second, and programs run on the interpreter never need it."""
    from vyre.runtime import wgpu_backend

    return wgpu_backend


BACKENDS: dict[str, Backend] = {"interp": _interp, "wgpu": _wgpu}
"""The backends `vyre.run` knows, by name."""


@dataclass(frozen=True)
class _FastRow:
    name: str
    dtype: DataType
    words: np.dtype[Any]
    """The numpy dtype whose arrays are this buffer's words as they are."""
    read_write: bool


@dataclass(frozen=True)
class ProgramTable:
    """The buffers of a program as the argument checks use them."""

    decls: Mapping[str, BufferDecl]
    """Every buffer by name (for a repeated name, the last declaration)."""
    storage: tuple[BufferDecl, ...]
    """The storage and uniform buffers, in declaration order."""
    fast: tuple[_FastRow, ...] | None = None
    """Set when every storage buffer holds one-word elements whose native
    arrays are their words (U32, I32, F32) and none is uniform: `vyre.run` on
    wgpu then checks the common arguments inline (`_run_fast`)."""

    @classmethod
    def of(cls, buffers: tuple[BufferDecl, ...]) -> ProgramTable:
        storage = tuple(decl for decl in buffers if decl.access is not BufferAccess.WORKGROUP)
        rows: list[_FastRow] = []
        for decl in storage:
            words = host.word_dtype(decl.dtype)
            if words is None or decl.access is BufferAccess.UNIFORM:
                break
            rows.append(_FastRow(decl.name, decl.dtype, words, decl.access is BufferAccess.READ_WRITE))
        names = [decl.name for decl in storage]
        fast = tuple(rows) if len(rows) == len(storage) and len(set(names)) == len(names) else None
        return cls({decl.name: decl for decl in buffers}, storage, fast)


TABLE_CAPACITY = 256
_TABLES: LruCache[Fingerprint, tuple[Prepared, ProgramTable]] = LruCache(TABLE_CAPACITY)
"""The prepared program and buffer table of recently run programs, by fingerprint."""


def prepared_table(program: Program, key: Fingerprint | None) -> tuple[Prepared, ProgramTable]:
    """`program` prepared by the pipeline, with its buffer table; both cached by
    the fingerprint `key`. Raises `vyre.ValidationError`."""
    entry = _TABLES.get(key) if key is not None else None
    if entry is not None:
        return entry
    prepared = prepare(program, key)
    entry = (prepared, ProgramTable.of(prepared.buffers))
    if key is not None:
        _TABLES.put(key, entry)
    return entry


@dataclass(frozen=True)
class Arguments:
    """Checked arguments of one run: host words of every storage/uniform buffer and
    the user element count of every read_write buffer (bytes for `Bytes`)."""

    words: Words
    counts: dict[str, int]
    dispatch: tuple[int, int, int]
    lengths: dict[str, int]
    """Element counts of the F16/BF16 buffers (two elements per word): the
    backends' `lengths`."""


def _check_dispatch(dispatch: object) -> tuple[int, int, int]:
    if dispatch.__class__ is tuple:  # fast path: three plain positive ints
        items = cast("tuple[object, ...]", dispatch)
        if len(items) == 3:
            x, y, z = items
            if type(x) is int and type(y) is int and type(z) is int and min(x, y, z) >= 1:
                return (x, y, z)
    problem = (
        f"dispatch must be 3 positive ints (workgroup counts along x, y, z), got {dispatch!r}"
    )
    if isinstance(dispatch, str | bytes) or not hasattr(dispatch, "__len__"):
        raise ValueError(problem)
    items = list(cast("Iterable[object]", dispatch))
    if len(items) != 3:
        raise ValueError(problem)
    counts: list[int] = []
    for item in items:
        if isinstance(item, bool | np.bool_):
            raise ValueError(problem)
        try:
            count = operator.index(cast("SupportsIndex", item))
        except TypeError:
            raise ValueError(problem) from None
        if count < 1:
            raise ValueError(problem)
        counts.append(count)
    return (counts[0], counts[1], counts[2])


def _check_size(name: str, size: object) -> int:
    if type(size) is int and size >= 0:  # fast path: a plain non-negative int
        return size
    if isinstance(size, bool | np.bool_):
        raise TypeError(f"size of output `{name}` must be an int, got {size!r}")
    try:
        count = operator.index(cast("SupportsIndex", size))
    except TypeError:
        raise TypeError(
            f"size of output `{name}` must be an int (its element count), got {size!r}"
        ) from None
    if count < 0:
        raise ValueError(f"size of output `{name}` is negative ({count})")
    return count


def _unknown(name: object, decls: Mapping[str, BufferDecl], what: str) -> ValueError:
    known = ", ".join(f"`{n}`" for n in decls) or "none"
    return ValueError(f"{what} `{name}` is not a buffer of this program (buffers: {known})")


def prepare_arguments(
    program: Program,
    inputs: Mapping[str, Any],
    dispatch: object,
    outputs: Mapping[str, Any] | None,
) -> Arguments:
    """Check the arguments of `run` and build the host words; raises `ValueError`
    or `TypeError` naming the offending buffer."""
    return _prepare(ProgramTable.of(program.buffers), inputs, dispatch, outputs)


_NO_OUTPUTS: Mapping[str, Any] = {}
UNIFORM_LIMIT_BYTES = 64 * 1024  # a uniform buffer holds small configuration constants


def _prepare(
    table: ProgramTable,
    inputs: Mapping[str, Any],
    dispatch: object,
    outputs: Mapping[str, Any] | None,
) -> Arguments:
    if not isinstance(inputs, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"inputs must be a dict of buffer name -> array, got {inputs!r}")
    outputs = _NO_OUTPUTS if outputs is None else outputs
    if not isinstance(outputs, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"outputs must be a dict of buffer name -> element count, got {outputs!r}")
    checked_dispatch = _check_dispatch(dispatch)
    decls = table.decls
    for name in inputs:
        decl = decls.get(name)
        if decl is None:
            raise _unknown(name, decls, "input")
        if decl.access is BufferAccess.WORKGROUP:
            raise ValueError(
                f"input `{name}` is a workgroup buffer; workgroup memory starts zeroed "
                "and takes no input"
            )
    for name in outputs:
        decl = decls.get(name)
        if decl is None:
            raise _unknown(name, decls, "output")
        if decl.access is not BufferAccess.READ_WRITE:
            raise ValueError(
                f"output `{name}` is a {decl.access.value} buffer; outputs name "
                "read_write buffers only"
            )
        if name in inputs:
            raise ValueError(
                f"buffer `{name}` is given both as an input and as an output size; "
                "a read_write input starts with its content and needs no size"
            )

    words: Words = {}
    counts: dict[str, int] = {}
    lengths: dict[str, int] = {}
    for decl in table.storage:
        if decl.name in inputs:
            value = inputs[decl.name]
            if isinstance(value, DeviceBuffer):
                if value.dtype is not decl.dtype:
                    raise TypeError(
                        f"input `{decl.name}` ({decl.dtype}) is a DeviceBuffer of {value.dtype};"
                        " its element type must match the buffer's"
                    )
                words[decl.name], count, nbytes = value.resident, value.count, value.nbytes
            else:
                found, count = host.to_words(decl.name, decl.dtype, value)
                words[decl.name], nbytes = found, found.nbytes
            if decl.access is BufferAccess.UNIFORM and nbytes > UNIFORM_LIMIT_BYTES:
                raise ValueError(
                    f"uniform buffer `{decl.name}` holds {nbytes} bytes; uniform"
                    f" buffers hold at most 64 KiB. Fix: declare it read_only instead."
                )
        elif decl.name in outputs:
            count = _check_size(decl.name, outputs[decl.name])
            words[decl.name] = host.zero_words(decl.dtype, count)
        elif decl.access is BufferAccess.READ_WRITE:
            raise ValueError(
                f"read_write buffer `{decl.name}` has no size: give its element count in "
                f"outputs (outputs={{'{decl.name}': n}}) or its initial content in inputs"
            )
        else:
            raise ValueError(
                f"missing input for {decl.access.value} buffer `{decl.name}` ({decl.dtype})"
            )
        if decl.access is BufferAccess.READ_WRITE:
            counts[decl.name] = count
        if decl.dtype in host.PACKED_HALF_TYPES:
            lengths[decl.name] = count
    return Arguments(words, counts, checked_dispatch, lengths)


_NO_SIZES: dict[str, Any] = {}
_MAX_GROUPS = 0xFFFF_FFFF
"""Workgroup counts are u32 (the backend refuses more, naming the limit)."""


class _Hot:
    """What `vyre.run` keeps per program module for its hot path on wgpu: the
    fingerprint entry that says whether the module is unchanged, the prepared
    program, the buffer rows the common arguments are checked against, and the
    bound run (`wgpu_backend.HostRun`) of every (element counts, dispatch) seen.

    A call whose arguments take the common shape (plain dicts, contiguous 1-D
    arrays of the buffers' word dtypes, int sizes, a tuple of three positive
    ints, every buffer named exactly once) checks them in one loop and runs;
    the checks are the general path's for such arguments (a buffer of the
    program for each name, sizes >= 0, dispatch >= 1). Anything else returns
    None and takes the general path, which reports what is wrong."""

    __slots__ = ("known", "module", "outputs", "prepared", "rows", "runs")

    RUNS_CAPACITY = 16
    """Bound runs kept per program (a program run at many sizes keeps the latest)."""

    def __init__(self, module: object, known: Known, prepared: Prepared, rows: tuple[_FastRow, ...]):
        self.module = module
        self.known = known
        self.prepared = prepared
        self.rows = tuple((row.name, row.read_write, row.words) for row in rows)
        self.outputs = tuple(
            (row.name, None if row.words is host.word_dtype(DataType.U32) else row.words)
            for row in rows
            if row.read_write
        )
        """(name, numpy dtype to view the words as; None: uint32 as they are) of
        every read_write buffer, in binding order (the order of the run's words)."""
        self.runs: dict[tuple[int, ...], Any] = {}

    def run(self, inputs: object, dispatch: object, outputs: object) -> dict[str, Any] | None:
        if dispatch.__class__ is not tuple or inputs.__class__ is not dict:
            return None
        if outputs is None:
            sizes = _NO_SIZES
        elif outputs.__class__ is dict:
            sizes = cast("dict[str, Any]", outputs)
        else:
            return None
        grid = cast("tuple[Any, ...]", dispatch)
        if len(grid) != 3:
            return None
        x, y, z = grid
        if x.__class__ is not int or y.__class__ is not int or z.__class__ is not int:
            return None
        if not (0 < x <= _MAX_GROUPS and 0 < y <= _MAX_GROUPS and 0 < z <= _MAX_GROUPS):
            return None  # the general path names what is wrong (the backend's limit: u32 counts)
        given = cast("dict[str, Any]", inputs)
        rows = self.rows
        if len(given) + len(sizes) != len(rows):
            return None
        arrays: list[np.ndarray | None] = []
        key: list[int] = []
        for name, read_write, words in rows:
            if read_write and name in sizes:
                size = sizes[name]
                if size.__class__ is not int or size < 0:
                    return None
                arrays.append(None)
                key.append(size)
                continue
            value: Any = given.get(name)
            if (
                value.__class__ is not np.ndarray
                or value.dtype is not words
                or value.ndim != 1
                or not value.flags.c_contiguous
            ):
                return None
            arrays.append(value)
            key.append(value.shape[0])
        key += grid
        shape = tuple(key)
        bound = self.runs.get(shape)
        if bound is None or not bound.current():
            counts = shape[:-3]
            bound = _wgpu_backend().host_run(self.prepared, counts, (x, y, z))
            if len(self.runs) >= self.RUNS_CAPACITY:
                self.runs.clear()
            self.runs[shape] = bound
        result: dict[str, Any] = {}
        for (name, view), words in zip(self.outputs, bound.run(arrays)):
            result[name] = words if view is None else words.view(view)
        return result


HOT_CAPACITY = 64
_HOT: LruCache[int, _Hot] = LruCache(HOT_CAPACITY)
"""The hot-path entries of recently run program modules, by id(module); each
entry keeps its module alive, so the id cannot be reused while it is cached."""


def run(
    program: Program,
    inputs: Mapping[str, Any],
    *,
    dispatch: tuple[int, int, int],
    outputs: Mapping[str, int] | None = None,
    backend: str = "wgpu",
    on_device: bool = False,
    isolate: bool = False,
) -> dict[str, Any]:
    """Run `program` on `backend` ("wgpu" or "interp") and return the final
    contents of every read_write buffer, as numpy arrays in the user dtype/shape.

    `inputs` gives the initial contents of storage and uniform buffers (a
    read_write buffer given here starts with that content); `outputs` gives the
    element count of each read_write buffer that is not in `inputs` (it starts
    zeroed). For `Bytes` buffers the element count is the number of bytes.
    An invalid program raises `vyre.ValidationError` before any backend work.

    An input may be a `vyre.DeviceBuffer` of the buffer's element type (no
    upload; never modified). With `on_device=True` (wgpu only) the read_write
    buffers stay on the device and come back as DeviceBuffers: nothing is read
    back until `.numpy()`.

    With `isolate=True` (for programs from untrusted sources) a GPU pipeline
    this process has not compiled yet is compiled in a child process first, so
    that a driver that crashes on it raises `vyre.DriverCrashError` naming the
    program instead of ending this process (vyre.runtime.isolate; about a
    second more per new pipeline). The interpreter has no driver: it ignores
    the flag."""
    if (
        program.__class__ is Program
        and backend.__class__ is str
        and backend == "wgpu"
        and on_device is False
        and isolate is False
    ):
        module = program.module
        hot = _HOT.get(id(module))
        if hot is not None and hot.module is module and hot.known.runs_the_same():
            result = hot.run(inputs, dispatch, outputs)
            if result is not None:
                return result
    return _run(program, inputs, dispatch, outputs, backend, on_device, isolate)


def _run(
    program: Program,
    inputs: Mapping[str, Any],
    dispatch: object,
    outputs: Mapping[str, int] | None,
    backend: str,
    on_device: bool,
    isolate: bool = False,
) -> dict[str, Any]:
    """`run` through the general checks (and the hot path's entry made when the
    program can take it)."""
    if not isinstance(program, Program):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"vyre.run expects a vyre.ir.Program, got {type(program).__name__}")
    known = isinstance(backend, str)  # pyright: ignore[reportUnnecessaryIsInstance]
    execute = BACKENDS.get(backend) if known else None
    if execute is None:
        raise ValueError(
            f"unknown backend {backend!r}; choose one of: {', '.join(map(repr, BACKENDS))}"
        )
    if not isinstance(on_device, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"on_device must be True or False, got {on_device!r}")
    if not isinstance(isolate, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"isolate must be True or False, got {isolate!r}")
    if on_device and backend != "wgpu":
        raise ValueError(
            f"on_device=True keeps results on the wgpu device; backend {backend!r} has none"
            " (use backend='wgpu', or read results as arrays)"
        )
    module = program.module
    key = fingerprint(program)
    prepared, table = prepared_table(program, key)
    if isolate and backend == "wgpu":
        return _run_execute(prepared, table, _prepare(table, inputs, dispatch, outputs), on_device)
    if table.fast is not None and backend == "wgpu" and not on_device:
        entry = remembered(module) if key is not None else None
        hot: _Hot | None = None
        if entry is not None and entry.fingerprint == key:
            hot = _HOT.get(id(module))
            if hot is None or hot.module is not module or hot.known is not entry:
                hot = _Hot(module, entry, prepared, table.fast)
                _HOT.put(id(module), hot)
        if hot is None:  # not cacheable: the same checks, without keeping anything
            hot = _Hot(module, cast(Known, None), prepared, table.fast)
        result = hot.run(inputs, dispatch, outputs)
        if result is not None:
            return result
    arguments = _prepare(table, inputs, dispatch, outputs)
    if on_device:
        return _run_execute(prepared, table, arguments, on_device, isolate=False)
    final = execute(prepared, arguments.words, arguments.dispatch, arguments.lengths)
    return _results(table, arguments, final, backend)


def _run_execute(
    prepared: Prepared, table: ProgramTable, arguments: Arguments, on_device: bool, isolate: bool = True
) -> dict[str, Any]:
    """A wgpu run through `wgpu_backend.execute` with its keywords: the
    results kept on the device (`on_device`), the pipeline compiled in a child
    process first (`isolate`)."""
    kept = _wgpu_backend().execute(
        prepared, arguments.words, arguments.dispatch,
        lengths=arguments.lengths or None, resident=on_device, isolate=isolate,
    )
    if not on_device:
        return _results(table, arguments, kept, "wgpu")
    return {
        name: DeviceBuffer(kept[name], table.decls[name].dtype, count)
        for name, count in arguments.counts.items()
    }


def _results(
    table: ProgramTable, arguments: Arguments, final: Mapping[str, Any], backend: str
) -> dict[str, Any]:
    """The user arrays of a backend's final words."""
    missing = [name for name in arguments.counts if name not in final]
    if missing:
        raise RuntimeError(f"backend {backend!r} returned no contents for buffer(s) {missing}")
    decls = table.decls
    return {
        name: host.from_words(name, decls[name].dtype, np.asarray(final[name]), count)
        for name, count in arguments.counts.items()
    }
