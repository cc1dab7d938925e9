"""Check a correctly rounded function's soft-float algorithm against the exact oracle.

    python bench/cr_check.py NAME [--formats f32,f16,bf16] [--sample N] [--exhaustive16]
                                  [--range FIRST:COUNT] [--seed S] [--chunk N]

NAME is a short name (`exp2`, `atan2`). The algorithm runs on the numpy machine (the same
code float-strict turns into IR), the oracle is the reference interpreter's
(float64 with a guard band, MPFR for the flagged inputs; it shares no code with
the algorithm). `--exhaustive16` runs every F16 and BF16 input; `--sample N`
runs 4 N random F32 patterns (uniform over all patterns, over the exponent
range where the function is neither 0, 1 nor inf, in [1 - 2**-8, 1] and in
[0, 2**-11), the last three with random signs) plus a grid of special values; `--range FIRST:COUNT` runs F32 patterns FIRST .. FIRST+COUNT-1 (for
exhaustive shards; the GPU campaign `vyre-conform floats --ops NAME` covers all
2**32 in about a minute on an H100). A function of two operands (atan2, y first)
is checked on pairs: `--sample N` random F32 pairs (uniform over all patterns,
over moderate magnitudes, and with close magnitudes, each with random signs;
for pow N more whose results are in range: x anywhere or near 1, y = t / log2|x|)
plus the grid of every pair of the special values below (Annex F's signed
zeros, infinities and NaNs, +-1, tiny and huge values); for F16/BF16 `--sample N`
random pairs plus the grid (`--exhaustive16` is every pair: 2**32, a GPU
campaign's size). `--chunk` bounds the inputs per evaluation (memory).
Mismatches are printed with the input, the algorithm's and the oracle's results;
the exit status is 1 when there is any.
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


def check(op: type[d.FloatOp], fmt: str, *columns: np.ndarray, chunk: int = 1 << 22) -> int:
    """Mismatches of the algorithm against the oracle on operand columns (one
    per operand; one column serves every operand of a unary function)."""
    machine = sf.NumpyMachine()
    algorithm = sf.algorithm_of(op, sf.FORMATS[fmt])
    bad_total = 0
    for start in range(0, columns[0].size, chunk):
        part = [c[start : start + chunk] for c in columns]
        got = np.asarray(algorithm(*(machine.word(c) for c in part)).v, dtype=np.uint32)
        want = oracle.evaluate(op, fmt, *part)
        bad = np.flatnonzero(got != want)
        for k in bad[: max(0, 20 - bad_total)].tolist():
            args = ", ".join(f"{int(c[k]):#x}" for c in part)
            print(f"  {fmt} {op.SHORT_NAME}({args}) = {int(got[k]):#x}, exact {int(want[k]):#x}")
        bad_total += int(bad.size)
    return bad_total


def _specials16(fmt: str) -> np.ndarray:
    """The special values of a 16-bit format: signed zeros, smallest and largest
    subnormals and normals, +-1, 1 - ulp, 1/2, infinities, NaNs."""
    f = sf.FORMATS[fmt]
    top = (f.emax - 1) << f.fraction | ((1 << f.fraction) - 1)
    values = [0, 1, (1 << f.fraction) - 1, 1 << f.fraction, f.one, f.one - 1, f.half, top, f.inf,
              f.nan, f.inf + 1, f.one + 1, f.one << 1 if f is sf.F16 else f.one + (1 << f.fraction)]
    values += [v | f.sign for v in values]
    return np.unique(np.asarray(values, dtype=np.uint32))


def _pow_pairs(n: int, rng: np.random.Generator) -> np.ndarray:
    """F32 (x, y) with x**y in range: any finite nonzero x (a third within 2**-8
    of 1), y = t / log2|x| for t uniform in [-152, 129] (results from the
    underflow to the overflow threshold, |y| up to 2**30 near 1), random signs
    of x."""
    x = rng.integers(1, 0x7F80_0000, n, dtype=np.uint64).astype(np.uint32)
    x[: n // 3] = rng.integers(0x3F7F_0000, 0x3F81_0000, n // 3, dtype=np.uint64).astype(np.uint32)
    with np.errstate(all="ignore"):
        y = (rng.uniform(-152.0, 129.0, n) / np.log2(x.view(np.float32).astype(np.float64))).astype(np.float32)
    y = np.where(np.isfinite(y), y, np.float32(0.5)).view(np.uint32)
    return np.stack([x | (rng.integers(0, 2, n, dtype=np.uint32) << np.uint32(31)), y])


def _pairs(fmt: str, args: argparse.Namespace, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The (y, x) columns of a function of two operands in format `fmt` (for
    pow, (x, y), with a third set of pairs whose results are in range)."""
    n = args.sample
    if fmt in ("f16", "bf16"):
        if args.exhaustive16:
            every = np.arange(1 << 32, dtype=np.uint64)
            return (every >> np.uint64(16)).astype(np.uint32), (every & np.uint64(0xFFFF)).astype(np.uint32)
        specials = _specials16(fmt)
        grid_y, grid_x = (g.ravel() for g in np.meshgrid(specials, specials))
        y = rng.integers(0, 1 << 16, n, dtype=np.uint32)
        x = rng.integers(0, 1 << 16, n, dtype=np.uint32)
        return np.concatenate([grid_y, y]), np.concatenate([grid_x, x])
    specials = np.asarray(SPECIALS, dtype=np.uint32)
    grid_y, grid_x = (g.ravel() for g in np.meshgrid(specials, specials))
    third = max(1, n // 3)
    uniform = rng.integers(0, 1 << 32, (2, third), dtype=np.uint64).astype(np.uint32)
    moderate = rng.integers(0x3000_0000, 0x4400_0000, (2, third), dtype=np.uint64).astype(np.uint32)
    close_x = rng.integers(0x0080_0000, 0x7F00_0000, third, dtype=np.uint64)
    close_y = np.clip(close_x.astype(np.int64) + rng.integers(-(1 << 26), 1 << 26, third), 1, 0x7F7F_FFFF)
    close = np.stack([close_y.astype(np.uint32), close_x.astype(np.uint32)])
    signs = rng.integers(0, 2, (2, 3 * third), dtype=np.uint32) << np.uint32(31)
    drawn = np.concatenate([uniform, moderate | signs[:, :third], close | signs[:, third:2 * third]], axis=1)
    if args.name == "pow":
        drawn = np.concatenate([drawn, _pow_pairs(n, rng)], axis=1)
    return np.concatenate([grid_y, drawn[0]]), np.concatenate([grid_x, drawn[1]])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("--formats", default="f32,f16,bf16")
    parser.add_argument("--sample", type=int, default=1 << 20)
    parser.add_argument("--exhaustive16", action="store_true")
    parser.add_argument("--range", help="FIRST:COUNT of F32 patterns")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=1 << 22, help="inputs per evaluation")
    args = parser.parse_args(argv)
    op = _op(args.name)
    if op.ARITY not in (1, 2):
        raise SystemExit(f"{args.name} is not a function of one or two operands")
    rng = np.random.default_rng(args.seed)
    failures = 0
    for fmt in args.formats.split(","):
        if op.ARITY == 2:
            y, x = _pairs(fmt, args, rng)
            bad = check(op, fmt, y, x, chunk=args.chunk)
            print(f"{fmt} {args.name}: {y.size:,} pairs, {bad} mismatches", flush=True)
            failures += bad
            continue
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
            near_one = rng.integers(0x3F70_0000, 0x3F80_0001, args.sample, dtype=np.uint64).astype(np.uint32)
            near_zero = rng.integers(0x0000_0000, 0x3A00_0000, args.sample, dtype=np.uint64).astype(np.uint32)
            signs = rng.integers(0, 2, (3, args.sample), dtype=np.uint32) << np.uint32(31)
            bits = np.concatenate([
                np.asarray(SPECIALS, dtype=np.uint32), uniform, moderate | signs[0],
                near_one | signs[1], near_zero | signs[2],
            ])
        bad = check(op, fmt, bits, chunk=args.chunk)
        print(f"{fmt} {args.name}: {bits.size:,} inputs, {bad} mismatches", flush=True)
        failures += bad
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
