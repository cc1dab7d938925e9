"""The first vyre kernel: out[i] = a[i] ^ b[i], end to end.

Builds the program with the Python builder, validates it, prints its IR and the
WGSL it lowers to, runs it on the best Vulkan adapter present (an NVIDIA GPU, or
Mesa's lavapipe on a machine without one) and checks the bytes against numpy.

    python examples/xor_kernel.py [--backend wgpu|interp] [--n 65536]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import vyre
from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program


def build(workgroup: int = 64) -> Program:
    idx = E.var("idx")
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(workgroup, 1, 1),
        entry=[
            N.let("idx", E.gid_x()),
            N.store("out", idx, E.bitxor(E.load("a", idx), E.load("b", idx))),
        ],
        name="xor_kernel",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("wgpu", "interp"), default="wgpu")
    parser.add_argument("--n", type=int, default=1 << 16)
    args = parser.parse_args(argv)

    program = build()
    diagnostics = vyre.validate(program)
    if diagnostics:
        for diagnostic in diagnostics:
            print(diagnostic.message, file=sys.stderr)
        return 1
    print("== vyre IR (validated) ==")
    print(vyre.print_ir(program))
    print("== WGSL ==")
    print(vyre.lower_to_wgsl(program))

    if args.backend == "wgpu":
        from vyre.runtime.adapters import adapter_info, choose_adapter

        print(f"== running on: {adapter_info(choose_adapter())} ==")
    else:
        print("== running on: the reference interpreter ==")
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**32, args.n, dtype=np.uint32)
    b = rng.integers(0, 2**32, args.n, dtype=np.uint32)
    workgroups = -(-args.n // 64)
    out = vyre.run(
        program,
        {"a": a, "b": b},
        dispatch=(workgroups, 1, 1),
        outputs={"out": args.n},
        backend=args.backend,
    )["out"]
    if not np.array_equal(out, a ^ b):
        wrong = int(np.count_nonzero(out != (a ^ b)))
        print(f"MISMATCH: {wrong} of {args.n} elements differ from numpy", file=sys.stderr)
        return 1
    print(f"ok: {args.n} elements equal numpy's a ^ b, byte for byte")
    return 0


if __name__ == "__main__":
    sys.exit(quiet_on_closed_pipe(main)(sys.argv[1:]))
