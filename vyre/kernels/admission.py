"""The admission gates of kernel ops (`vyre.ops.register` of a `KernelSpec`).

Gate 0 (id) — as for scalar ops: a dotted name not already registered.
Gate 10 (ports) — ports have distinct names and supported element types; the
    op declares at least one output.
Gate 11 (plan) — for inputs of the boundary lengths, the plan builds; every
    step's program is valid vyre IR (the validator of the library's layer);
    every storage and uniform buffer of a step resolves to an input or a plan
    buffer; no step writes an input; every output has its buffer, sized as the
    reference's output (outputs sized by the data: at least as large).
Gate 12 (reference) — the CPU reference is deterministic and returns one array
    per output on those inputs.

Parity of the kernels with the reference, and the op's laws, are certified by
`vyre-conform` (the kernel track, `vyre.conform.kernel_track`): running a kernel
needs the runtime, which sits above the library.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from vyre.ir import BufferAccess, DataType, Program
from vyre.kernels.samplers import arguments
from vyre.kernels.spec import KernelSpec, Planner, Port
from vyre.ops import registry
from vyre.ops.admission import AdmissionError, gate_id
from vyre.validation.checker import KernelChecker

__all__ = ["ADMISSION_LENGTHS", "admit_kernel"]

ADMISSION_LENGTHS = (0, 1, 5, 257, 4097)

_PORT_TYPES = frozenset(
    {DataType.U32, DataType.I32, DataType.BOOL, DataType.U64, DataType.F32, DataType.BYTES}
)


def _sizes(spec: KernelSpec, args: tuple[Any, ...]) -> tuple[dict[str, int], dict[str, int]]:
    sizes: dict[str, int] = {}
    scalars: dict[str, int] = {}
    for port, value in zip(spec.inputs, args):
        if port.scalar:
            scalars[port.name] = int(value)
        else:
            sizes[port.name] = len(value)
    return sizes, scalars


def _gate_ports(spec: KernelSpec) -> None:
    if not spec.outputs:
        raise AdmissionError(spec.id, 10, "the op declares no output", "declare at least one output Port")
    for port in (*spec.inputs, *spec.outputs):
        if not isinstance(port, Port):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise AdmissionError(spec.id, 10, f"{port!r} is not a Port", "declare inputs and outputs as Ports")
        if port.dtype not in _PORT_TYPES:
            raise AdmissionError(
                spec.id, 10, f"port `{port.name}` has element type {port.dtype}",
                f"use one of {', '.join(sorted(t.value for t in _PORT_TYPES))}",
            )


def _outputs_of(spec: KernelSpec, args: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
    try:
        first = tuple(np.asarray(v) for v in spec.reference(*args))
        second = tuple(np.asarray(v) for v in spec.reference(*args))
    except Exception as error:  # noqa: BLE001 - reported as the gate's finding
        raise AdmissionError(
            spec.id, 12, f"the reference raised {type(error).__name__}: {error}",
            "make the reference accept the op's inputs (arrays, bytes as uint8 arrays, ints)",
        ) from None
    if len(first) != len(spec.outputs):
        raise AdmissionError(
            spec.id, 12, f"the reference returned {len(first)} value(s) for {len(spec.outputs)} output(s)",
            "return one array per output, in port order",
        )
    for a, b in zip(first, second):
        if a.tobytes() != b.tobytes():
            raise AdmissionError(spec.id, 12, "the reference is not deterministic", "remove the randomness")
    return first


def _gate_plan(
    spec: KernelSpec,
    args: tuple[Any, ...],
    outputs: tuple[np.ndarray, ...],
    valid: dict[int, Program],
    planner: Planner | None = None,
) -> None:
    """Gate 11 for one input size and one planner (`spec.plan` by default).
    `valid` holds the step programs already validated (by id; the planners
    reuse their programs across sizes): each is validated once."""
    sizes, scalars = _sizes(spec, args)
    where = f"for inputs of sizes {sizes}"
    try:
        plan = (planner or spec.plan)(sizes, scalars)
    except Exception as error:  # noqa: BLE001 - reported as the gate's finding
        raise AdmissionError(
            spec.id, 11, f"building the plan {where} raised {type(error).__name__}: {error}",
            "make the planner accept every input size",
        ) from None
    names = {p.name for p in spec.array_inputs}
    known = names | {b.name for b in plan.buffers}
    for step in plan.steps:
        program = step.program
        if valid.get(id(program)) is not program:
            findings = KernelChecker.check(program.kernel, _lookup)
            if findings:
                raise AdmissionError(
                    spec.id, 11, f"the step program `{program.name}` is invalid: {findings[0]}",
                    "fix the program the planner builds",
                )
            valid[id(program)] = program
        for decl in program.buffers:
            if decl.access is BufferAccess.WORKGROUP:
                continue
            source = step.source(decl.name)
            if source not in known:
                raise AdmissionError(
                    spec.id, 11, f"step `{program.name}` binds `{decl.name}` to `{source}`, which is"
                    " neither an input nor a plan buffer", "add the buffer to the plan or fix the binding",
                )
            if decl.access is BufferAccess.READ_WRITE and source in names:
                raise AdmissionError(
                    spec.id, 11, f"step `{program.name}` writes the input `{source}`",
                    "copy the input into a scratch buffer first; inputs are read only",
                )
    for port, expected in zip(spec.outputs, outputs):
        name = plan.output_buffer(port.name)
        try:
            buffer = plan.buffer(name)
        except KeyError:
            raise AdmissionError(
                spec.id, 11, f"output `{port.name}` has no plan buffer `{name}` {where}",
                "add the output's buffer to the plan",
            ) from None
        length = len(expected) if expected.ndim else 1
        if (buffer.count < length) if port.length_from else (buffer.count != length):
            raise AdmissionError(
                spec.id, 11, f"output `{port.name}` is sized {buffer.count} {where}, the reference"
                f" gives {length}", "size the output buffer as the reference's output",
            )


def _lookup(op_id: str) -> object | None:
    return registry.resolve(op_id)


def admit_kernel(spec: KernelSpec, *, registered: Iterable[str] | None = None) -> KernelSpec:
    """Run the kernel gates on `spec`; return it, or raise `AdmissionError`."""
    gate_id(spec, set(registry.known_op_ids() if registered is None else registered))
    _gate_ports(spec)
    valid: dict[int, Program] = {}
    for n in ADMISSION_LENGTHS:
        args = arguments(spec, n, seed=n)
        outputs = _outputs_of(spec, args)
        _gate_plan(spec, args, outputs, valid)
        if spec.alternative is not None:
            _gate_plan(spec, args, outputs, valid, spec.alternative)
    return spec
