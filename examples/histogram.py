"""A histogram with atomics: hist[data[i] >> shift] += 1, checked against numpy.

Every invocation reads one value and adds 1 to its bin with an atomic add, so
invocations that hit the same bin never lose an update; the final counts do
not depend on the order in which the GPU runs them. The top bits of each value
pick its bin (`bins` must be a power of two, at least 2).

    python examples/histogram.py [--backend wgpu|interp] [--n 100000] [--bins 16]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import vyre
from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.ir import AtomicOp, BufferDecl, DataType, Expr as E, Node as N, Program

WORKGROUP = 64


def build(bins: int) -> Program:
    shift = 32 - (bins.bit_length() - 1)  # the top log2(bins) bits select the bin
    i = E.var("i")
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read_write("hist", 1, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            # the last workgroup may run past the data: those invocations stop here
            N.if_(E.ge(i, E.buf_len("data")), [N.return_()]),
            N.let("bin", E.shr(E.load("data", i), E.u32(shift))),
            # `atomic` returns the count before the addition; we do not need it
            N.let("before", E.atomic(AtomicOp.ADD, "hist", E.var("bin"), E.u32(1))),
        ],
        name="histogram",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("wgpu", "interp"), default="wgpu")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--bins", type=int, default=16)
    args = parser.parse_args(argv)
    if args.bins < 2 or args.bins & (args.bins - 1) or args.n < 1:
        parser.error("--bins must be a power of two >= 2 and --n positive")

    program = build(args.bins)
    print(vyre.print_ir(program))
    rng = np.random.default_rng(0)
    data = rng.integers(0, 2**32, args.n, dtype=np.uint32)
    result = vyre.run(
        program,
        {"data": data},
        dispatch=(-(-args.n // WORKGROUP), 1, 1),
        outputs={"hist": args.bins},
        backend=args.backend,
    )["hist"]

    shift = 32 - (args.bins.bit_length() - 1)
    expected = np.bincount((data.astype(np.uint64) >> shift).astype(np.int64), minlength=args.bins)
    print(f"histogram of {args.n} values in {args.bins} bins ({args.backend}):")
    print(result)
    if not np.array_equal(result, expected):
        print(f"MISMATCH: numpy counts {expected}", file=sys.stderr)
        return 1
    print("ok: equal to numpy.bincount")
    return 0


if __name__ == "__main__":
    sys.exit(quiet_on_closed_pipe(main)(sys.argv[1:]))
