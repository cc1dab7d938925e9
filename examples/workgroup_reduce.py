"""A workgroup reduction with barriers: the (wrapping) sum of each block of 64 values.

Each workgroup copies its 64 values into workgroup memory (`tile`), then halves
the number of active lanes six times: lane l < stride adds tile[l + stride]
into tile[l]. A barrier before each step makes the previous step's writes
visible to every lane of the workgroup; the loop bounds are literals, so every
lane reaches every barrier (vyre's validator checks this, rule V010). Lane 0
finally writes the block's sum. Sums wrap modulo 2**32, like numpy's uint32.

    python examples/workgroup_reduce.py [--backend wgpu|interp] [--n 100000]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import vyre
from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program

LANES = 64
STEPS = 6  # 64 -> 32 -> ... -> 1


def build() -> Program:
    lane, stride = E.var("lane"), E.var("stride")
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read_write("sums", 1, DataType.U32),
            BufferDecl.workgroup("tile", LANES, DataType.U32),
        ],
        workgroup_size=(LANES, 1, 1),
        entry=[
            N.let("lane", E.local_id(0)),
            # loads past the end of `data` read 0, which leaves a sum unchanged
            N.store("tile", lane, E.load("data", E.gid_x())),
            N.loop("step", E.u32(0), E.u32(STEPS), [
                N.barrier(),
                N.let("stride", E.shr(E.u32(LANES // 2), E.var("step"))),
                N.if_(E.lt(lane, stride), [
                    N.store("tile", lane, E.add(E.load("tile", lane), E.load("tile", E.add(lane, stride)))),
                ]),
            ]),
            N.barrier(),
            N.if_(E.eq(lane, E.u32(0)), [N.store("sums", E.workgroup_id(0), E.load("tile", E.u32(0)))]),
        ],
        name="workgroup_reduce",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("wgpu", "interp"), default="wgpu")
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be positive")

    program = build()
    print(vyre.print_ir(program))
    rng = np.random.default_rng(0)
    data = rng.integers(0, 2**32, args.n, dtype=np.uint32)
    blocks = -(-args.n // LANES)
    sums = vyre.run(
        program, {"data": data}, dispatch=(blocks, 1, 1), outputs={"sums": blocks}, backend=args.backend
    )["sums"]

    expected = np.add.reduceat(data, np.arange(0, args.n, LANES), dtype=np.uint32)
    print(f"{blocks} block sums of {args.n} values ({args.backend}); first ones: {sums[:4]}")
    if not np.array_equal(sums, expected):
        wrong = int(np.count_nonzero(sums != expected))
        print(f"MISMATCH: {wrong} of {blocks} sums differ from numpy", file=sys.stderr)
        return 1
    print("ok: equal to numpy.add.reduceat (mod 2**32)")
    return 0


if __name__ == "__main__":
    sys.exit(quiet_on_closed_pipe(main)(sys.argv[1:]))
