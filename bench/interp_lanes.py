"""Throughput of the reference interpreter on two small kernels.

    python bench/interp_lanes.py [invocations]   (default 4,194,304)

Prints lane-operations per second (ops of the kernel body x invocations /
wall time) for an elementwise kernel and a loop kernel over a large dispatch
(`interp_throughput.py` measures a mixer kernel against a numpy oracle).
"""

from __future__ import annotations

import sys
import time

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout on sys.path)
import numpy as np

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.pipeline import prepare
from vyre.runtime.interp.engine import execute
from vyre.cli.pipes import quiet_on_closed_pipe


def _elementwise() -> Program:
    idx = E.var("idx")
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("idx", E.gid_x()),
            N.store("out", idx, E.bitxor(E.load("a", idx), E.load("b", idx))),
        ],
    )


def _looping() -> Program:
    idx = E.var("idx")
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("idx", E.gid_x()),
            N.let("h", E.load("a", idx)),
            N.loop(
                "i",
                E.u32(0),
                E.u32(16),
                [N.assign("h", E.mul(E.bitxor(E.var("h"), E.var("i")), E.u32(0x01000193)))],
            ),
            N.store("out", idx, E.add(E.var("h"), E.load("b", idx))),
        ],
    )


def _lane_ops_per_invocation(program: Program, loop_trips: int) -> int:
    from vyre.dialects import vyre as d

    total = 0
    for op in program.kernel.body.walk():
        if op is program.kernel:
            continue
        inside_loop = isinstance(op.parent_op(), d.LoopOp)
        total += loop_trips if inside_loop else 1
    return total


def measure(program: Program, invocations: int, loop_trips: int = 1) -> tuple[float, float]:
    """(seconds of the best of three runs, lane-ops per second)."""
    rng = np.random.default_rng(0)
    words = {
        "a": rng.integers(0, 2**32, invocations, dtype=np.uint64).astype(np.uint32),
        "b": rng.integers(0, 2**32, invocations, dtype=np.uint64).astype(np.uint32),
        "out": np.zeros(invocations, dtype=np.uint32),
    }
    dispatch = (invocations // 64, 1, 1)
    prepared = prepare(program)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        execute(prepared, words, dispatch)
        best = min(best, time.perf_counter() - start)
    ops = _lane_ops_per_invocation(program, loop_trips) * invocations
    return best, ops / best


@quiet_on_closed_pipe
def main(argv: list[str]) -> int:
    invocations = int(argv[0]) if argv else 1 << 22
    for name, program, trips in (
        ("elementwise xor", _elementwise(), 1),
        ("16-trip loop", _looping(), 16),
    ):
        seconds, rate = measure(program, invocations, trips)
        print(
            f"{name:16s} {invocations} invocations: {seconds:.3f} s, "
            f"{invocations / seconds:.3e} invocations/s, {rate:.3e} lane-ops/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
