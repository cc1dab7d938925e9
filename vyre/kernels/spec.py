"""Kernel ops: library ops that are whole kernels over buffers (docs/kernels.md;
the conventions C1-C9 that every kernel op keeps are listed there).

A scalar op (`OpSpec`) is an expression that inlines into any program. A kernel
op (`KernelSpec`) is a *kernel pipeline*: an ordered list of vyre Programs, each
with its dispatch size, over named buffers (the op's inputs, constants it
uploads, zeroed scratch and its outputs). Workgroups cannot talk inside one
dispatch (C3), so global steps (a reduction's second pass, the
passes of a scan) are separate dispatches; the runtime runs them in order
(`vyre.kernels.run`: the interpreter, or one wgpu submission with every
buffer on the device).

The plan depends on the sizes of the inputs and on scalar inputs (a byte to look
for, a bin count), never on their contents: `KernelSpec.plan(sizes, scalars)`
builds it. Inputs of type `Bytes` reach the programs as their packed words (four
bytes per u32, little-endian; padding bytes unspecified, C1); their byte length
is in `sizes` and the plan passes it in a constant buffer when a kernel needs it.

An output whose length depends on the data (unique values, matches) is sized for
the worst case; `Port.length_from` names the one-element output that holds its
real length, and the host trims it.

Data-dependent continuation (docs/kernels.md "Iterative and re-planned ops"):

- `Repeat` marks a range of a plan's steps as one *round*, run again while a
  flag word on the device is non-zero, at most `max_rounds` times (BFS levels,
  label propagation: C2 kind "iterative"). On wgpu several rounds go into
  one submission and the flag is read back once per batch, so every round
  after convergence must leave every buffer unchanged (guard the round by the
  flag or by an empty frontier).
- `KernelSpec.replan` lets an op whose output size depends on the data
  (decompression) look at its scalar outputs after a run and ask for a run
  with another plan (a larger capacity): a bounded number of times, never a
  silent truncation.
- `KernelSpec.plan_many` is a batched plan over many evaluations' inputs laid
  end to end (`BatchPlan`), so `ops.evaluate_many` of a million small inputs is
  a few dispatches, not a million.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

import numpy as np

from vyre.ir import DataType, Program

__all__ = [
    "BOUNDARY_LENGTHS",
    "ERROR_CODES",
    "MAX_REPLANS",
    "MAX_ROUNDS_PER_CHECK",
    "NO_ERROR",
    "OpInputError",
    "KERNEL_KINDS",
    "BatchPlan",
    "BatchSizes",
    "Buffer",
    "DeviceCheck",
    "KernelLaw",
    "KernelPlan",
    "KernelSignature",
    "KernelSpec",
    "Planner",
    "Port",
    "Repeat",
    "Step",
    "batch_starts",
    "size_column",
    "unit_starts",
]

KERNEL_KINDS = ("map", "reduce", "scan-based", "batch", "iterative")
"""The op kinds (C2): an op's kind decides its algorithm and its benchmark."""

BOUNDARY_LENGTHS = (0, 1, 2, 3, 4, 5, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097)
"""Input lengths every kernel op is checked on: empty, one, the
workgroup size and tile size +- 1, and lengths that are not multiples of 4."""


NO_ERROR = 0xFFFF_FFFF
"""The value of a kernel op's error output when its input is well formed."""


ERROR_CODES = {
    1: "invalid symbol",
    2: "bad length",
    3: "bad padding",
    4: "non-canonical trailing bits",
    5: "truncated",
    6: "overflow",
    7: "corrupt stream",
    8: "output too small",
}
"""What a kernel op's error code output means (C6)."""


class OpInputError(ValueError):
    """Malformed input to a kernel op (a decoder given bad bytes): names the op,
    the byte offset of the first bad byte and the C6 error code; nothing is
    half-decoded (C6)."""

    def __init__(self, op_id: str, offset: int, code: int = 1, detail: str = ""):
        self.op_id = op_id
        self.offset = offset
        self.code = code
        self.detail = detail
        what = ERROR_CODES.get(code, f"error code {code}")
        tail = f": {detail}" if detail else ""
        super().__init__(f"`{op_id}`: malformed input at byte offset {offset} ({what}){tail}")


@dataclass(frozen=True)
class Port:
    """An input or output of a kernel op."""

    name: str
    dtype: DataType
    """Element type; `Bytes` for byte strings."""
    scalar: bool = False
    """One value: an input given as a Python int, an output of one element."""
    length_from: str | None = None
    """For an output sized by the data: the scalar output holding its length."""

    def __str__(self) -> str:
        return f"{self.dtype}" if self.scalar or self.dtype is DataType.BYTES else f"{self.dtype}[]"


@dataclass(frozen=True)
class KernelSignature:
    """The inputs and outputs of a kernel op."""

    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]

    @property
    def arity(self) -> int:
        return len(self.inputs)

    @property
    def output(self) -> DataType:
        """The element type of the primary (first) output."""
        return self.outputs[0].dtype

    def __str__(self) -> str:
        ins = ", ".join(str(p) for p in self.inputs)
        outs = ", ".join(str(p) for p in self.outputs)
        return f"({ins}) -> {outs if len(self.outputs) == 1 else f'({outs})'}"


@dataclass(frozen=True)
class Buffer:
    """A buffer of a kernel pipeline that is not an input: a constant (its
    `words` are uploaded), scratch or an output (zeroed, or filled with `fill`)."""

    name: str
    dtype: DataType
    count: int
    """Elements (words for `Bytes` outputs are derived from the byte count)."""
    words: np.ndarray | None = None
    """Initial words (1-D uint32); None: every word is `fill`."""
    fill: int = 0

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError(f"buffer `{self.name}` has a negative count ({self.count})")
        if not 0 <= self.fill <= 0xFFFF_FFFF:
            raise ValueError(f"fill of buffer `{self.name}` must be a u32 word, got {self.fill}")


@dataclass(frozen=True)
class Step:
    """One dispatch of a kernel pipeline."""

    program: Program
    dispatch: tuple[int, int, int]
    bind: Mapping[str, str] = field(default_factory=lambda: {})
    """Program buffer name -> pipeline buffer name, where they differ."""

    def source(self, program_buffer: str) -> str:
        return self.bind.get(program_buffer, program_buffer)


MAX_ROUNDS_PER_CHECK = 256
"""The most rounds of a `Repeat` that wgpu encodes between two flag readbacks."""


@dataclass(frozen=True)
class Repeat:
    """Steps `start`..`stop - 1` of a plan form one *round*, run again and again
    while word `word` of plan buffer `until` is non-zero after a round (a
    do-while: at least one round when `max_rounds` > 0), at most `max_rounds`
    rounds; if the flag is still set after `max_rounds` rounds the evaluation
    fails (`RuntimeError`), it is never cut short silently.

    The interpreter reads the flag after every round. wgpu encodes
    `rounds_per_check` rounds in one submission, reads the flag back, then
    doubles the batch (up to `MAX_ROUNDS_PER_CHECK`) while it stays set, so a
    long iteration costs a few readbacks, not one per round. Hence the rule every
    iterative op keeps: **a round that starts with the flag's work done (an
    empty frontier, nothing changed) changes no buffer** and leaves the flag 0;
    then both backends give identical outputs."""

    start: int
    stop: int
    until: str
    """The plan buffer (not an input) holding the flag."""
    max_rounds: int
    word: int = 0
    rounds_per_check: int = 4

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.stop:
            raise ValueError(f"Repeat needs 0 <= start < stop, got steps {self.start}..{self.stop}")
        if self.max_rounds < 0 or self.word < 0:
            raise ValueError(f"Repeat over `{self.until}`: max_rounds and word must be >= 0")
        if not 1 <= self.rounds_per_check <= MAX_ROUNDS_PER_CHECK:
            raise ValueError(
                f"Repeat over `{self.until}`: rounds_per_check must be in [1, {MAX_ROUNDS_PER_CHECK}]"
            )


@dataclass(frozen=True)
class KernelPlan:
    """The buffers and dispatches of one evaluation of a kernel op."""

    buffers: tuple[Buffer, ...]
    """Constants, scratch and outputs (inputs are named by the op's ports)."""
    steps: tuple[Step, ...]
    """Every dispatch, in order (the steps of a `Repeat` once each)."""
    outputs: Mapping[str, str] = field(default_factory=lambda: {})
    """Output port -> pipeline buffer holding it, where the names differ."""
    repeats: tuple[Repeat, ...] = ()
    """Ranges of `steps` run as rounds until a flag clears (sorted, disjoint)."""

    def __post_init__(self) -> None:
        end = 0
        for repeat in self.repeats:
            if repeat.start < end or repeat.stop > len(self.steps):
                raise ValueError(
                    f"Repeat over steps {repeat.start}..{repeat.stop} must lie in the plan's"
                    f" {len(self.steps)} steps, sorted and disjoint from the others"
                )
            end = repeat.stop
            try:
                flag = self.buffer(repeat.until)
            except KeyError:
                raise ValueError(f"Repeat flag `{repeat.until}` is not a buffer of the plan") from None
            if repeat.word >= _words(flag.dtype, flag.count):
                raise ValueError(f"Repeat flag word {repeat.word} is past the end of `{repeat.until}`")

    def buffer(self, name: str) -> Buffer:
        for buffer in self.buffers:
            if buffer.name == name:
                return buffer
        raise KeyError(name)

    def output_buffer(self, port: str) -> str:
        return self.outputs.get(port, port)

    def segments(self) -> tuple[tuple[Step, ...] | Repeat, ...]:
        """The plan in execution order: runs of straight steps and repeats."""
        out: list[tuple[Step, ...] | Repeat] = []
        at = 0
        for repeat in self.repeats:
            if at < repeat.start:
                out.append(self.steps[at : repeat.start])
            out.append(repeat)
            at = repeat.stop
        if at < len(self.steps):
            out.append(self.steps[at:])
        return tuple(out)


_Count = TypeVar("_Count", int, np.ndarray)


def _words(dtype: DataType, count: _Count) -> _Count:
    """Host words of `count` elements (vyre.runtime.host's layout, C1); `count`
    an int or an int64 array (the same arithmetic on every entry)."""
    if dtype is DataType.BYTES:
        return (count + 3) // 4
    if dtype in (DataType.F16, DataType.BF16):
        return (count + 1) // 2
    if dtype in (DataType.U64, DataType.VEC2U32):
        return 2 * count
    if dtype is DataType.VEC4U32:
        return 4 * count
    return count


def unit_starts(units: np.ndarray) -> np.ndarray:
    """Where each of K evaluations' `units` (an integer array: words,
    invocations, workgroups) starts when laid end to end: K + 1 int64 entries,
    the last the total (one numpy pass)."""
    starts = np.zeros(len(units) + 1, dtype=np.int64)
    np.cumsum(np.asarray(units, dtype=np.int64), out=starts[1:])
    return starts


@overload
def batch_starts(dtype: DataType, counts: np.ndarray) -> np.ndarray: ...
@overload
def batch_starts(dtype: DataType, counts: Sequence[int]) -> tuple[int, ...]: ...
def batch_starts(dtype: DataType, counts: Sequence[int] | np.ndarray) -> tuple[int, ...] | np.ndarray:
    """Where each evaluation's words start in a batched input of element type
    `dtype` (`BatchPlan`): the packed words of the inputs laid end to end, each
    starting on a word (a Bytes input is padded to a multiple of 4 bytes).
    One more entry than `counts`: the last is the total word count. Given an
    integer array, an int64 array (one numpy pass, no Python int per
    evaluation); given a sequence of ints, a tuple of ints."""
    if isinstance(counts, np.ndarray):
        return unit_starts(_words(dtype, counts.astype(np.int64, copy=False)))
    starts_list = [0]
    for count in counts:
        starts_list.append(starts_list[-1] + _words(dtype, count))
    return tuple(starts_list)


class BatchSizes(Sequence[Mapping[str, int]]):
    """Per-evaluation mappings (name -> value) of a batch, backed by one int64
    column per name: what the runtime's columnar `evaluate_many` path gives a
    `BatchPlanner`. A planner that needs only a column reads it with
    `size_column` (one array, no Python object per evaluation); indexing or
    iterating makes the mappings once, on first use (`rows()`)."""

    __slots__ = ("_columns", "_count", "_make_rows", "_rows")

    def __init__(
        self,
        columns: Mapping[str, np.ndarray],
        count: int,
        make_rows: Callable[[], Sequence[Mapping[str, int]]],
    ):
        self._columns = columns
        self._count = count
        self._make_rows = make_rows
        self._rows: Sequence[Mapping[str, int]] | None = None

    def column(self, name: str) -> np.ndarray:
        """Every evaluation's value of `name` (int64; KeyError if absent)."""
        return self._columns[name]

    def rows(self) -> Sequence[Mapping[str, int]]:
        if self._rows is None:
            self._rows = self._make_rows()
        return self._rows

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, k: int) -> Mapping[str, int]: ...
    @overload
    def __getitem__(self, k: slice) -> Sequence[Mapping[str, int]]: ...
    def __getitem__(self, k: int | slice) -> Mapping[str, int] | Sequence[Mapping[str, int]]:
        return self.rows()[k]

    def __iter__(self) -> Iterator[Mapping[str, int]]:
        return iter(self.rows())


def size_column(sizes: Sequence[Mapping[str, int]], name: str) -> np.ndarray:
    """Every evaluation's `name` entry of a planner's `sizes` (or scalars) as an
    int64 array: the column itself for `BatchSizes`, else read row by row."""
    if isinstance(sizes, BatchSizes):
        return sizes.column(name)
    return np.fromiter((int(s[name]) for s in sizes), dtype=np.int64, count=len(sizes))


@dataclass(frozen=True)
class BatchPlan:
    """The plan of many evaluations at once (`KernelSpec.plan_many`).

    Every array input port of the batched plan is the evaluations' inputs laid
    end to end, evaluation k's packed words starting at word
    `batch_starts(dtype, sizes)[k]`; scalar inputs reach the planner as one
    mapping per evaluation (a plan uploads what its kernels need). Each output
    buffer holds every evaluation's output: `splits[port][k]` is (first word,
    element count) of evaluation k's, which the runtime cuts out (and then trims
    to a `length_from` output as for a single evaluation). A port's splits may
    also be an integer array of shape (evaluations, 2), row k being that pair
    (no Python tuple per evaluation)."""

    plan: KernelPlan
    splits: Mapping[str, tuple[tuple[int, int], ...] | np.ndarray]


Reference = Callable[..., tuple[np.ndarray, ...]]
"""The CPU reference: the user inputs (numpy arrays, bytes as uint8 arrays,
scalars as ints) -> every output, in port order (scalars as one-element arrays)."""

Sampler = Callable[[np.random.Generator, int, str], tuple[Any, ...]]
"""(generator, length, data pattern name) -> one valid argument tuple."""

Planner = Callable[[Mapping[str, int], Mapping[str, int]], KernelPlan]
"""(element counts of the array inputs (bytes for Bytes), scalar inputs) -> plan."""

Replanner = Callable[[Mapping[str, int], Mapping[str, int], Mapping[str, int]], "KernelPlan | None"]
"""(sizes, scalar inputs, the scalar outputs of the run just done) -> the plan of
another run, or None to keep the outputs."""

BatchPlanner = Callable[[Sequence[Mapping[str, int]], Sequence[Mapping[str, int]]], BatchPlan]
"""(sizes of each evaluation, scalar inputs of each evaluation) -> batched plan."""

MAX_REPLANS = 3
"""Runs of an evaluation after its first, at most (`KernelSpec.replan`)."""


@dataclass(frozen=True)
class DeviceCheck:
    """A check of inputs that are already on the device (`vyre.DeviceBuffer`s),
    run there instead of reading them back: `plan(sizes, scalars)` is a small
    pipeline whose buffer `status` ends holding a few words, and
    `message(sizes, scalars, status words)` is None for valid input, else the
    `ValueError` message (naming the input). The runtime runs the checks of all
    evaluations in one submission and reads the status words in one readback,
    before it runs the op. With a DeviceCheck, `KernelSpec.check_args` gets
    device buffers as they are (not read back): it checks what the host knows
    (lengths, scalars) and leaves their contents to this check."""

    plan: "Planner"
    message: Callable[[Mapping[str, int], Mapping[str, int], np.ndarray], str | None]
    status: str = "status"


class KernelLaw:
    """A property of a kernel op, witnessed on generated inputs by the proof
    system (`vyre.conform.kernel_track`). `check` gets the op as a function of the
    user inputs (on the backend under test) and one input tuple, and returns
    None when the property holds, else a description of the violation."""

    name: str = "KernelLaw"

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class KernelSpec:
    """The definition of a kernel op (see the module doc)."""

    id: str
    version: int
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    kind: str
    reference: Reference
    plan: Planner
    summary: str
    laws: tuple[KernelLaw, ...] = ()
    boundaries: tuple[int, ...] = BOUNDARY_LENGTHS
    max_length: int = 0xFFFF_FFFF
    """The longest array input the op accepts (C5: counts are u32)."""
    check_args: Callable[[tuple[Any, ...]], None] | None = None
    """Extra checks of the user inputs (raise TypeError/ValueError naming them)."""
    sample: Sampler | None = None
    """Valid inputs of size n for ops whose inputs have structure (a graph, a
    bin count): (rng, n, pattern) -> argument tuple, the pattern one of
    `vyre.kernels.samplers.PATTERNS` (the built-in samplers are there). None:
    the proof system draws every input from its element type."""
    error_from: str | None = None
    """For ops that can reject their input (decoders): the scalar U32 output
    holding the byte offset of the first bad byte of the first input, `NO_ERROR`
    when the input is well formed. `ops.evaluate` raises `OpInputError` for any
    other value (the reference returns the same offset, so the proof system
    compares it like any output)."""
    code_from: str | None = None
    """The scalar U32 output holding the C6 error code (`ERROR_CODES`) when
    `error_from` reports an error; None: code 1 (invalid symbol)."""
    describe_error: Callable[[tuple[Any, ...], int], str] | None = None
    """(user inputs, offset) -> a short description of what is wrong there, for
    the `OpInputError` message."""
    replan: Replanner | None = None
    """For ops whose output size depends on the data: after a run, (sizes,
    scalars, every scalar output by name) -> the plan of a new run (e.g. with
    the output capacity a size output reported), or None when the outputs are
    complete. At most `MAX_REPLANS` new runs (then `RuntimeError`); the op makes
    an incomplete run visible in a scalar output, never by trimming."""
    alternative: Planner | None = None
    """For ops whose `replan` may switch to another algorithm (not just another
    capacity): that plan for the same sizes and scalars. The registry hash and
    the admission gates cover it like `plan`, so its programs cannot change
    unnoticed although the first run never uses them."""
    device_check: DeviceCheck | None = None
    """How inputs given as `vyre.DeviceBuffer`s are checked on the device
    (`DeviceCheck`); None: they are read back for `check_args`."""
    plan_many: BatchPlanner | None = None
    """The batched plan (`BatchPlan`) that `ops.evaluate_many` uses for two or
    more evaluations given as host arrays; None: one plan per evaluation."""

    def __post_init__(self) -> None:
        if self.kind not in KERNEL_KINDS:
            raise ValueError(f"kernel op `{self.id}`: kind must be one of {KERNEL_KINDS}")
        names = [p.name for p in (*self.inputs, *self.outputs)]
        if len(set(names)) != len(names):
            raise ValueError(f"kernel op `{self.id}`: port names must be distinct, got {names}")
        scalars = {p.name for p in self.outputs if p.scalar}
        for role, name in (("error_from", self.error_from), ("code_from", self.code_from)):
            if name is not None and name not in scalars:
                raise ValueError(
                    f"kernel op `{self.id}`: {role} names `{name}`, which is not a scalar output"
                )
        for port in self.outputs:
            if port.length_from is not None and port.length_from not in scalars:
                raise ValueError(
                    f"kernel op `{self.id}`: output `{port.name}` takes its length from"
                    f" `{port.length_from}`, which is not a scalar output"
                )

    @property
    def signature(self) -> KernelSignature:
        return KernelSignature(self.inputs, self.outputs)

    @property
    def inlinable(self) -> bool:
        """Kernel ops are whole pipelines: never called from inside a program."""
        return False

    @property
    def category(self) -> str:
        return "kernel"

    @property
    def array_inputs(self) -> tuple[Port, ...]:
        return tuple(p for p in self.inputs if not p.scalar)

    @property
    def scalar_inputs(self) -> tuple[Port, ...]:
        return tuple(p for p in self.inputs if p.scalar)
