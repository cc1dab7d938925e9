"""Check a correctly rounded function's soft-float algorithm against the exact oracle.

    python bench/cr_check.py NAME [--formats f32,f16,bf16] [--sample N] [--exhaustive16]
                                  [--range FIRST:COUNT] [--seed S]

NAME is a short name (`exp2`). The algorithm runs on the numpy machine (the same
code float-strict turns into IR), the oracle is the reference interpreter's
(float64 with a guard band, MPFR for the flagged inputs; it shares no code with
the algorithm). `--exhaustive16` runs every F16 and BF16 input; `--sample N`
runs N random F32 patterns (uniform over all patterns, and over the exponent
range where the function is neither 0, 1 nor inf) plus a grid of special
values; `--range FIRST:COUNT` runs F32 patterns FIRST .. FIRST+COUNT-1 (for
exhaustive shards; the GPU campaign `vyre-conform floats --ops NAME` covers all
2**32 in about a minute on an H100). Mismatches are printed with the input, the
algorithm's and the oracle's results; the exit status is 1 when there is any.
"""

from __future__ import annotations

import argparse
import sys

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout first on sys.path)
import numpy as np

from vyre.dialects import vyre as d
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf

SPECIALS = (
    0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x007F_FFFF, 0x0080_0000, 0x3F80_0000,
    0xBF80_0000, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFC0_0001,
    0x7F80_0001, 0x4000_0000, 0x3F00_0000, 0x4049_0FDB, 0x3FC9_0FDB, 0x42FE_0000, 0xC316_0000,
)  # fmt: skip


def _op(name: str) -> type[d.FloatOp]:
    for op in d.FLOAT_OPS:
        if op.SHORT_NAME == name:
            return op
    raise SystemExit(f"no float op with short name {name!r}")


def check(op: type[d.FloatOp], fmt: str, bits: np.ndarray) -> int:
    machine = sf.NumpyMachine()
    words = [machine.word(bits)] * op.ARITY
    got = np.asarray(sf.algorithm_of(op, sf.FORMATS[fmt])(*words).v, dtype=np.uint32)
    want = oracle.evaluate(op, fmt, *([bits] * op.ARITY))
    bad = np.flatnonzero(got != want)
    for k in bad[:20].tolist():
        print(f"  {fmt} {op.SHORT_NAME}({int(bits[k]):#x}) = {int(got[k]):#x}, exact {int(want[k]):#x}")
    return int(bad.size)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("--formats", default="f32,f16,bf16")
    parser.add_argument("--sample", type=int, default=1 << 20)
    parser.add_argument("--exhaustive16", action="store_true")
    parser.add_argument("--range", help="FIRST:COUNT of F32 patterns")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    op = _op(args.name)
    if op.ARITY != 1:
        raise SystemExit("bench/cr_check.py checks unary functions; pow/atan2 take pairs")
    rng = np.random.default_rng(args.seed)
    failures = 0
    for fmt in args.formats.split(","):
        if fmt in ("f16", "bf16"):
            bits = np.arange(1 << 16, dtype=np.uint32)
            if not args.exhaustive16:
                bits = bits[rng.integers(0, 1 << 16, min(args.sample, 1 << 16))]
        elif args.range:
            first, count = (int(v, 0) for v in args.range.split(":"))
            bits = np.arange(first, first + count, dtype=np.uint64).astype(np.uint32)
        else:
            uniform = rng.integers(0, 1 << 32, args.sample, dtype=np.uint64).astype(np.uint32)
            moderate = rng.integers(0x3000_0000, 0x4400_0000, args.sample, dtype=np.uint64).astype(np.uint32)
            signs = rng.integers(0, 2, args.sample, dtype=np.uint32) << np.uint32(31)
            bits = np.concatenate([np.asarray(SPECIALS, dtype=np.uint32), uniform, moderate | signs])
        bad = check(op, fmt, bits)
        print(f"{fmt} {args.name}: {bits.size:,} inputs, {bad} mismatches", flush=True)
        failures += bad
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
