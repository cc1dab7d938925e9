"""Run a `Program` on one backend's word contract, for tests and tools.

The backends (`vyre.runtime.interp.execute`, `vyre.runtime.wgpu_backend.execute`)
take prepared programs and host words; these helpers prepare the program through
the pipeline first (`vyre.pipeline.prepare`, cached by fingerprint), so a test
can compare backends on the very same prepared IR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from vyre.ir import Program
from vyre.pipeline import prepare
from vyre.runtime.interp import execute as interp_execute

__all__ = ["execute_interp", "execute_interp_unchecked", "execute_wgpu"]


def execute_interp(
    program: Program,
    words: Mapping[str, npt.ArrayLike],
    dispatch: Sequence[int] | int,
    *,
    lane_order: str = "forward",
    lengths: Mapping[str, int] | None = None,
) -> dict[str, npt.NDArray[np.uint32]]:
    """The final words of every read_write buffer, on the reference interpreter
    (`lengths`: element counts of F16/BF16 buffers, two elements per word)."""
    return interp_execute(prepare(program), words, dispatch, lane_order=lane_order, lengths=lengths)


def execute_interp_unchecked(
    program: Program,
    words: Mapping[str, npt.ArrayLike],
    dispatch: Sequence[int] | int,
    *,
    lengths: Mapping[str, int] | None = None,
) -> dict[str, npt.NDArray[np.uint32]]:
    """The program's kernel run as it is, neither validated nor transformed: how
    the interpreter's own defences against broken invariants are tested."""
    return interp_execute(program.kernel, words, dispatch, lengths=lengths)


def execute_wgpu(
    program: Program,
    words: Mapping[str, np.ndarray],
    dispatch: Sequence[int],
    *,
    max_workgroups_per_axis: int | None = None,
    lengths: Mapping[str, int] | None = None,
) -> dict[str, np.ndarray]:
    """The final words of every read_write buffer, through WGSL on the wgpu device."""
    from vyre.runtime.wgpu_backend import execute  # imports wgpu: only when used

    return execute(
        prepare(program),
        words,
        dispatch,
        max_workgroups_per_axis=max_workgroups_per_axis,
        lengths=lengths,
    )
