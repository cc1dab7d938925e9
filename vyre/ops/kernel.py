"""Kernel ops: library ops that are whole kernels over buffers (python-api.md,
"Buffer-level operations"; oplib.md C1-C9).

A scalar op (`OpSpec`) is an expression that inlines into any program. A kernel
op (`KernelSpec`) is a *kernel pipeline*: an ordered list of vyre Programs, each
with its dispatch size, over named buffers (the op's inputs, constants it
uploads, zeroed scratch and its outputs). Workgroups cannot talk inside one
dispatch (execution-model.md), so global steps (a reduction's second pass, the
three passes of a scan) are separate dispatches; the runtime runs them in order
(`vyre.runtime.kernel_run`: the interpreter, or one wgpu submission with every
buffer on the device).

The plan depends on the sizes of the inputs and on scalar inputs (a byte to look
for, a bin count), never on their contents: `KernelSpec.plan(sizes, scalars)`
builds it. Inputs of type `Bytes` reach the programs as their packed words (four
bytes per u32, little-endian; padding bytes unspecified, C1); their byte length
is in `sizes` and the plan passes it in a constant buffer when a kernel needs it.

An output whose length depends on the data (unique values, matches) is sized for
the worst case; `Port.length_from` names the one-element output that holds its
real length, and the host trims it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vyre.ir import DataType, Program

__all__ = [
    "BOUNDARY_LENGTHS",
    "ERROR_CODES",
    "NO_ERROR",
    "OpInputError",
    "KERNEL_KINDS",
    "Buffer",
    "KernelLaw",
    "KernelPlan",
    "KernelSignature",
    "KernelSpec",
    "Port",
    "Step",
]

KERNEL_KINDS = ("map", "reduce", "scan-based", "batch", "iterative")
"""oplib.md C2: the op kind decides the algorithm and the benchmark."""

BOUNDARY_LENGTHS = (0, 1, 2, 3, 4, 5, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097)
"""Input lengths every kernel op is checked on (oplib.md §14): empty, one, the
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
"""oplib.md C6: what a kernel op's error code output means."""


class OpInputError(ValueError):
    """Malformed input to a kernel op (a decoder given bad bytes): names the op,
    the byte offset of the first bad byte and the C6 error code; nothing is
    half-decoded (python-api.md "Buffer-level operations", oplib.md C6)."""

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


@dataclass(frozen=True)
class KernelPlan:
    """The buffers and dispatches of one evaluation of a kernel op."""

    buffers: tuple[Buffer, ...]
    """Constants, scratch and outputs (inputs are named by the op's ports)."""
    steps: tuple[Step, ...]
    outputs: Mapping[str, str] = field(default_factory=lambda: {})
    """Output port -> pipeline buffer holding it, where the names differ."""

    def buffer(self, name: str) -> Buffer:
        for buffer in self.buffers:
            if buffer.name == name:
                return buffer
        raise KeyError(name)

    def output_buffer(self, port: str) -> str:
        return self.outputs.get(port, port)


Reference = Callable[..., tuple[np.ndarray, ...]]
"""The CPU reference: the user inputs (numpy arrays, bytes as uint8 arrays,
scalars as ints) -> every output, in port order (scalars as one-element arrays)."""

Sampler = Callable[[np.random.Generator, int, str], tuple[Any, ...]]
"""(generator, length, data pattern name) -> one valid argument tuple."""

Planner = Callable[[Mapping[str, int], Mapping[str, int]], KernelPlan]
"""(element counts of the array inputs (bytes for Bytes), scalar inputs) -> plan."""


class KernelLaw:
    """A property of a kernel op, witnessed on generated inputs by the proof
    system (`vyre.conform.kernel_ops`). `check` gets the op as a function of the
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
    bin count): (rng, n, pattern) -> argument tuple. None: the proof system
    draws every input from its element type."""
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
