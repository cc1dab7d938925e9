"""`vyre.ops.evaluate`: run one library op on a backend, elementwise over arrays.

It lives above the runtime (running needs the pipeline and the backends, which
sit above the expression-op library); the `vyre.ops` façade exports it.

The op is exercised the way programs use it: a kernel whose invocation `i`
loads `in0[i], in1[i], ...`, calls the op with `Expr.call` and stores the
result in `out[i]`; `vyre.run` prepares (validates, inlines, folds) and runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Node, Program
from vyre.ir import Expr as E
from vyre.kernels.catalog import get, get_kernel
from vyre.kernels.run import evaluate_kernel, evaluate_kernel_columns, f32_hint
from vyre.kernels.spec import KernelSpec
from vyre.ops.spec import OpSpec, OpSignature, UnsupportedByBackend
from vyre.runtime.api import run
from vyre.runtime.device_buffer import to_device

__all__ = ["elementwise_program", "evaluate", "evaluate_many", "evaluate_raw"]

WORKGROUP = 64
MAX_GROUPS_PER_AXIS = 65_535

_NUMPY_INPUT = {
    DataType.U32: np.uint32,
    DataType.I32: np.int32,
    DataType.BOOL: np.uint32,
    DataType.F32: np.float32,
}
_RANGES = {
    DataType.U32: (0, 2**32 - 1),
    DataType.I32: (-(2**31), 2**31 - 1),
    DataType.BOOL: (0, 1),
}

_programs: dict[tuple[str, OpSignature, int], Program] = {}


def elementwise_program(spec: OpSpec, groups_x: int) -> Program:
    """`out[i] = op(in0[i], ...)` with `i = id.y * groups_x * 64 + id.x`, so a
    dispatch may use its y axis when x would exceed 65,535 workgroups."""
    key = (spec.id, spec.signature, groups_x)
    program = _programs.get(key)
    if program is not None:
        return program
    inputs = [BufferDecl.read(f"in{i}", i, t) for i, t in enumerate(spec.signature.inputs)]
    out = BufferDecl.read_write("out", len(inputs), spec.signature.output)
    index = E.var("i")
    row = E.mul(E.invocation_id(1), E.u32(groups_x * WORKGROUP))
    program = Program(
        buffers=[*inputs, out],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[
            Node.let("i", E.add(row, E.invocation_id(0))),
            Node.store("out", index, E.call(spec.id, [E.load(d.name, index) for d in inputs])),
        ],
        name="evaluate",
    )
    _programs[key] = program
    return program


def evaluate(op_id: str, inputs: Sequence[Any], backend: str = "wgpu", on_device: bool = False) -> Any:
    """A scalar op applied elementwise to equal-length arrays on `backend`; a
    kernel op's primary output for its inputs (C7, docs/kernels.md).

    `on_device=True` (wgpu only) keeps the result on the device: a
    `vyre.DeviceBuffer` of the output's logical length (an output sized by the
    data is cut to its length there), ready to be an input of another op or of
    `vyre.run` with no host round trip."""
    spec = get(op_id)
    if isinstance(spec, KernelSpec):
        return evaluate_kernel(spec, inputs, backend, on_device=on_device)[0]
    intrinsic = spec.intrinsic
    if intrinsic is not None and not intrinsic.available_on(backend):
        raise UnsupportedByBackend(spec.id, backend, intrinsic)
    if on_device and backend != "wgpu":
        raise ValueError(
            f"on_device=True keeps outputs on the wgpu device; backend {backend!r} has none"
            " (use backend='wgpu', or on_device=False)"
        )
    arrays = _check_inputs(spec, inputs)
    n = len(arrays[0]) if arrays else 1
    output_dtype = _NUMPY_INPUT.get(spec.signature.output, np.uint32)
    if n == 0:
        empty = np.zeros(0, dtype=output_dtype)
        return to_device(empty, dtype=spec.signature.output) if on_device else empty
    groups = -(-n // WORKGROUP)
    groups_x = min(groups, MAX_GROUPS_PER_AXIS)
    groups_y = -(-groups // groups_x)
    feeds = {f"in{i}": a for i, a in enumerate(arrays)}
    result = run(
        elementwise_program(spec, groups_x),
        feeds,
        dispatch=(groups_x, groups_y, 1),
        outputs={"out": n},
        backend=backend,
        on_device=on_device,
    )
    if on_device:
        return result["out"]
    return np.asarray(result["out"])[:n]


def evaluate_raw(
    op_id: str, inputs: Sequence[Any], backend: str = "wgpu", on_device: bool = False
) -> dict[str, Any]:
    """Every output of a kernel op, by port name (C7, docs/kernels.md); `DeviceBuffer`s
    with `on_device=True`."""
    spec = get_kernel(op_id)
    outputs = evaluate_kernel(spec, inputs, backend, on_device=on_device)
    return {port.name: value for port, value in zip(spec.outputs, outputs)}


def evaluate_many(
    op_id: str, many: Sequence[Sequence[Any]], backend: str = "wgpu", on_device: bool = False
) -> list[Any]:
    """A kernel op's primary output for each of many independent inputs; on wgpu
    all of them run in one submission and come back in one readback (an op with
    a batched plan, `KernelSpec.plan_many`, runs them as one pipeline over the
    inputs laid end to end). `DeviceBuffer`s with `on_device=True`."""
    spec = get_kernel(op_id)
    return evaluate_kernel_columns(spec, many, backend, on_device=on_device)[0]


def _check_inputs(spec: OpSpec, inputs: Sequence[Any]) -> list[np.ndarray]:
    sig = spec.signature
    if isinstance(inputs, np.ndarray) or not isinstance(inputs, Sequence):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"ops.evaluate(`{spec.id}`, inputs): inputs must be a list of {sig.arity} array(s),"
            f" one per input of {sig}"
        )
    if len(inputs) != sig.arity:
        raise ValueError(
            f"`{spec.id}` takes {sig.arity} input(s) {sig}, got {len(inputs)} array(s)"
        )
    unsupported = [t for t in (*sig.inputs, sig.output) if t not in _NUMPY_INPUT]
    if unsupported:
        raise NotImplementedError(
            f"ops.evaluate: `{spec.id}` has {unsupported[0]} operands; evaluate applies scalar"
            " ops (u32, i32, bool, f32) elementwise"
        )
    arrays: list[np.ndarray] = []
    for position, (value, dtype) in enumerate(zip(inputs, sig.inputs, strict=True)):
        array = np.asarray(value)
        if array.ndim == 0:
            array = array.reshape(1)
        if dtype is DataType.F32:
            arrays.append(_float_input(spec, position, array))
            continue
        if array.size == 0:
            array = array.astype(np.int64).reshape(0)
        if array.ndim != 1 or not (
            np.issubdtype(array.dtype, np.integer) or array.dtype == np.bool_
        ):
            raise TypeError(
                f"input {position} of `{spec.id}` must be a 1-D integer array, got"
                f" {array.dtype} of shape {array.shape}"
            )
        low, high = _RANGES[dtype]
        if array.size and (int(array.min()) < low or int(array.max()) > high):
            raise ValueError(
                f"input {position} of `{spec.id}` has values outside the {dtype} range"
                f" [{low}, {high}]"
            )
        arrays.append(array.astype(_NUMPY_INPUT[dtype]))
    if len({len(a) for a in arrays}) > 1:
        raise ValueError(
            f"the inputs of `{spec.id}` must have equal lengths, got {[len(a) for a in arrays]}"
        )
    return arrays


def _float_input(spec: OpSpec, position: int, array: np.ndarray) -> np.ndarray:
    """An F32 input: a 1-D float32 array, every bit kept (NaN payloads
    included). Like `vyre.run`, other float widths are a TypeError: rounding
    float64 to f32 would change values silently (1e300 becomes inf)."""
    if array.size == 0:
        return np.zeros(0, dtype=np.float32)
    if array.ndim != 1 or array.dtype.kind != "f" or array.dtype.itemsize != 4:
        raise TypeError(
            f"input {position} of `{spec.id}` must be a 1-D float array (f32) of dtype float32, got"
            f" {array.dtype} of shape {array.shape}{f32_hint(array)}"
        )
    return array if array.dtype == np.float32 else array.astype(np.float32)

