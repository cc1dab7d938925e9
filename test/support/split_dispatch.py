"""A kernel op's plan run step by step on wgpu with every dispatch cut into
slices of at most `limit` workgroups per axis: the runtime's splitting past
65,535 workgroups a dispatch (each slice's workgroup ids carry an offset),
exercised with inputs small enough for lavapipe."""

from __future__ import annotations

from typing import Any

import numpy as np

from vyre import ops
from vyre.kernels.spec import KernelSpec


def run_split(op_id: str, args: list[Any], limit: int) -> dict[str, np.ndarray]:
    """The final words of each buffer of the op's plan, every dispatch cut into
    slices of at most `limit` workgroups per axis."""
    from vyre.ir import BufferAccess
    from vyre.kernels import run as kernel_run
    from vyre.pipeline import prepare
    from vyre.runtime import host, wgpu_backend

    spec = ops.get(op_id)
    assert isinstance(spec, KernelSpec)
    checked = kernel_run.check_args(spec, args)
    plan = spec.plan(checked.sizes, checked.scalars)
    state: dict[str, np.ndarray] = {k: np.asarray(v) for k, v in checked.words.items()}
    for buffer in plan.buffers:
        count = host.word_count(buffer.dtype, buffer.count)
        state[buffer.name] = buffer.words.copy() if buffer.words is not None else np.full(count, buffer.fill, np.uint32)
    for step in plan.steps:
        words = {
            d.name: state[step.source(d.name)] for d in step.program.buffers if d.access is not BufferAccess.WORKGROUP
        }
        final = wgpu_backend.execute(prepare(step.program), words, step.dispatch, max_workgroups_per_axis=limit)
        for name, value in final.items():
            state[step.source(name)] = np.asarray(value)
    return state
