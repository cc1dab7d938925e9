"""The schedule of a lowered tensor graph: what the host does, in order.

`Schedule` is the Python form, `vtensor.schedule` (beside the module's
`vyre.kernel`s) the IR form; `schedule_ops` and `read_schedule` convert
between them, so a schedule printed by `vyre-opt -p lower-tensors` is the one
`vyre.tensor.run` executes:

1. bind every dynamic dim from the input arguments' shapes;
2. evaluate every `Check` (shape agreements, indices in range, every strided
   read inside its buffer): a failing one is a `ValueError` before anything runs;
3. allocate the buffers (zeroed);
4. run the dispatches in order: kernel, grid (workgroups), `repeat` times with
   `rep` = 0, 1, ..., and the kernel's `dims` uniform holding `params`;
5. read the results.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from vyre.dialects import tensor as t
from vyre.dialects import vyre as v
from vyre.dialects.symbolic import Sym
from vyre.dialects.tensor_layout import Check, Layout
from vyre.ir import DataType, Program

__all__ = [
    "Dispatch",
    "Schedule",
    "ScheduleBuffer",
    "ScheduleInput",
    "ScheduleResult",
    "read_schedule",
    "schedule_ops",
]


@dataclass(frozen=True)
class ScheduleInput:
    name: str
    dtype: DataType
    shape: tuple[Sym, ...]

    @property
    def type(self) -> t.TensorType:
        return t.TensorType.contiguous(self.dtype, self.shape)


@dataclass(frozen=True)
class ScheduleBuffer:
    name: str
    dtype: DataType
    count: Sym


@dataclass(frozen=True)
class Dispatch:
    program: Program
    grid: tuple[Sym, Sym, Sym]
    repeat: Sym
    params: tuple[Sym, ...]
    bind: tuple[tuple[str, str], ...]
    """(kernel buffer, schedule buffer or input)."""


@dataclass(frozen=True)
class ScheduleResult:
    name: str
    buffer: str
    dtype: DataType
    shape: tuple[Sym, ...]

    @property
    def type(self) -> t.TensorType:
        return t.TensorType.contiguous(self.dtype, self.shape)


@dataclass(frozen=True)
class Schedule:
    name: str
    inputs: tuple[ScheduleInput, ...]
    checks: tuple[Check, ...]
    buffers: tuple[ScheduleBuffer, ...]
    dispatches: tuple[Dispatch, ...]
    results: tuple[ScheduleResult, ...]

    @property
    def kernels(self) -> tuple[Program, ...]:
        """Every kernel, in dispatch order, each once."""
        seen: dict[int, Program] = {}
        for dispatch in self.dispatches:
            seen.setdefault(id(dispatch.program), dispatch.program)
        return tuple(seen.values())


def schedule_ops(schedule: Schedule) -> list[Operation]:
    """The `vyre.kernel`s (each once) and the `vtensor.schedule` of `schedule`."""
    kernels: list[Operation] = [program.kernel.clone() for program in schedule.kernels]
    entries: list[Operation] = [t.InputOp(i.name, i.type) for i in schedule.inputs]
    entries += [t.CheckOp(c.cond, c.message, c.args) for c in schedule.checks]
    entries += [t.BufferOp(b.name, b.dtype, b.count) for b in schedule.buffers]
    entries += [
        t.DispatchOp(d.program.name, d.grid, d.repeat, d.params, d.bind) for d in schedule.dispatches
    ]
    entries += [t.ResultOp(r.name, r.buffer, r.type) for r in schedule.results]
    return [*kernels, t.ScheduleOp(schedule.name, entries)]


def _contiguous(ty: t.TensorType, what: str) -> tuple[DataType, tuple[Sym, ...]]:
    layout = ty.layout
    if layout != Layout.contiguous(layout.shape):
        raise ValueError(f"{what}: a schedule's inputs and results are contiguous tensors, got {ty}")
    return ty.dtype, layout.shape


def read_schedule(module: ModuleOp, name: str | None = None) -> Schedule:
    """The schedule `name` (the only one when None) of a lowered module, its
    kernels as Programs. `ValueError` for a module without it or a dispatch of
    a kernel the module does not hold."""
    schedules = [op for op in module.ops if isinstance(op, t.ScheduleOp)]
    if name is not None:
        schedules = [op for op in schedules if op.sym_name.data == name]
    if len(schedules) != 1:
        raise ValueError(f"expected one vtensor.schedule{'' if name is None else f' @{name}'}, found {len(schedules)}")
    kernels = {op.sym_name.data: op for op in module.ops if isinstance(op, v.KernelOp)}
    programs: dict[str, Program] = {}
    inputs: list[ScheduleInput] = []
    checks: list[Check] = []
    buffers: list[ScheduleBuffer] = []
    dispatches: list[Dispatch] = []
    results: list[ScheduleResult] = []
    for op in schedules[0].body.block.ops:
        if isinstance(op, t.InputOp):
            dtype, shape = _contiguous(op.tensor, f"input {op.input_name.data!r}")
            inputs.append(ScheduleInput(op.input_name.data, dtype, shape))
        elif isinstance(op, t.CheckOp):
            checks.append(Check(t.cached_sym(op.cond.data), op.message.data, tuple(t.cached_sym(a.data) for a in op.args.data)))
        elif isinstance(op, t.BufferOp):
            buffers.append(ScheduleBuffer(op.buffer_name.data, DataType.of(op.element), t.cached_sym(op.count.data)))
        elif isinstance(op, t.DispatchOp):
            dispatches.append(_dispatch(op, kernels, programs))
        elif isinstance(op, t.ResultOp):
            dtype, shape = _contiguous(op.tensor, f"result {op.result_name.data!r}")
            results.append(ScheduleResult(op.result_name.data, op.buffer.data, dtype, shape))
    return Schedule(
        schedules[0].sym_name.data, tuple(inputs), tuple(checks), tuple(buffers), tuple(dispatches), tuple(results)
    )


def _dispatch(op: t.DispatchOp, kernels: dict[str, v.KernelOp], programs: dict[str, Program]) -> Dispatch:
    name = op.kernel.data
    program = programs.get(name)
    if program is None:
        kernel = kernels.get(name)
        if kernel is None:
            raise ValueError(f"vtensor.dispatch of @{name}: the module holds no such vyre.kernel")
        program = Program.from_module(ModuleOp([kernel.clone()]))
        programs[name] = program
    grid = tuple(t.cached_sym(g.data) for g in op.grid.data)
    return Dispatch(
        program,
        (grid[0], grid[1], grid[2]),
        t.cached_sym(op.repeat.data),
        tuple(t.cached_sym(p.data) for p in op.params.data),
        op.bindings,
    )
