"""Benchmark (c): lane-operations per second of the reference interpreter.

    python bench/interp_throughput.py [--lanes 256,4096,262144] [--iters 32] [--trials 3]

A lane-operation is one IR operation (expression or statement) executed by one
invocation. The kernel is a small integer mixer: a loop of `--iters`
iterations over three assignments (21 ops per iteration, plus the ops around
the loop), run by `--lanes` invocations (workgroups of 256). The count comes
from the kernel itself: ops in the loop body times the trip count plus every
other op, times the lanes. The result is checked against a numpy oracle; the
best of `--trials` runs is reported (the interpreter is single-threaded).
"""

from __future__ import annotations

import argparse
import time

import _common  # noqa: F401  (puts the repository on sys.path)
import numpy as np

from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.cli.pipes import quiet_on_closed_pipe

WORKGROUP = 256


def mixer(iters: int) -> Program:
    x, y, k = E.var("x"), E.var("y"), E.var("k")
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.let("x", E.load("a", E.var("i"))),
            N.let("y", E.load("b", E.var("i"))),
            N.loop("k", E.u32(0), E.u32(iters), [
                N.assign("x", E.add(E.mul(x, E.u32(1664525)), E.u32(1013904223))),
                N.assign("y", E.bitxor(y, E.shr(x, E.u32(7)))),
                N.assign("x", E.add(x, E.select(E.bitand(y, E.u32(1)), k, E.u32(3)))),
            ]),
            N.store("out", E.var("i"), E.bitxor(x, y)),
        ],
        name="bench_mixer",
    )


def oracle(a: np.ndarray, b: np.ndarray, iters: int) -> np.ndarray:
    x, y = a.astype(np.uint64), b.astype(np.uint64)
    mask = np.uint64(0xFFFF_FFFF)
    for k in range(iters):
        x = (x * np.uint64(1664525) + np.uint64(1013904223)) & mask
        y = y ^ (x >> np.uint64(7))
        x = (x + np.where(y & np.uint64(1), np.uint64(k), np.uint64(3))) & mask
    return (x ^ y).astype(np.uint32)


def ops_per_lane(program: Program, iters: int) -> int:
    """IR ops one invocation executes: loop-body ops run `iters` times."""
    total = 0
    for op in program.kernel.walk():
        if op is program.kernel:
            continue
        inside = op.parent_op()
        total += iters if isinstance(inside, d.LoopOp) else 1
    return total


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", default="256,4096,262144", help="comma-separated invocation counts")
    parser.add_argument("--iters", type=int, default=32)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()

    from _common import cpu_name, table

    from vyre.runtime.interp import execute

    program = mixer(args.iters)
    per_lane = ops_per_lane(program, args.iters)
    rng = np.random.default_rng(3)
    rows = []
    for lanes in (int(v) for v in args.lanes.split(",")):
        lanes = -(-lanes // WORKGROUP) * WORKGROUP
        a = rng.integers(0, 2**32, lanes, dtype=np.uint32)
        b = rng.integers(0, 2**32, lanes, dtype=np.uint32)
        words = {"a": a, "b": b, "out": np.zeros(lanes, dtype=np.uint32)}
        best = float("inf")
        for _ in range(args.trials):
            start = time.perf_counter()
            out = execute(program, words, (lanes // WORKGROUP, 1, 1))
            best = min(best, time.perf_counter() - start)
        if not np.array_equal(out["out"], oracle(a, b, args.iters)):
            raise SystemExit("wrong result")
        lane_ops = per_lane * lanes
        rows.append([
            f"interp ({cpu_name()})", f"{lanes:,}", per_lane, f"{lane_ops:,}", f"{best:.3f}",
            f"{lane_ops / best:.2e}",
        ])
    print(table(["device", "lanes", "ops/lane", "lane-ops", "seconds", "lane-ops/s"], rows))


if __name__ == "__main__":
    main()
