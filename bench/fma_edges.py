"""Strict F32 fma on a GPU over inputs built to reach every edge of its fast path.

    python bench/fma_edges.py [--log2-count 24] [--chunks 4] [--seed 1]

F32 fma computes a fast path where the operands are normal, the product's and the
addend's exponents are less than 32 apart and the result is normal, and the general
algorithm elsewhere (`vyre/transforms/softfloat/fma_normal.py`). Random patterns
rarely land on the fast path's edges, so each class here is made to:

- `jam`: an odd product beside an addend shifted 24-31 places with its kept bits on
  or beside the rounding tie (where a jam bit meets the product's bit 0);
- `cancel`: addends -(a * b) (1 + d), |d| from 2**-1 to 2**-24, and within 6 ulps
  of -(a * b): cancellation of 1 to all places, across the 15 the fast path keeps;
- `scaled`: +-(a * b) scaled by 2**-40 .. 2**40: every exponent difference around 32;
- `near`: operands in [2**-7, 2**8), both signs (typical data);
- `range`: products and results at the top and the bottom of the normal range.

Each chunk (2**log2_count inputs a class) runs as one strict kernel (`vyre.run`,
float-strict's soft-float on the GPU, the fast path and its fallback as the lowering
makes them) and every result word is compared with the reference interpreter's
exact fma (float64 products, round-to-odd sums: no code shared). The table gives the
inputs, the share the fast path covers (`fma_f32_normal` on the host) and the
mismatches, which must be 0.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import _common  # (puts the repository on sys.path)
import numpy as np
import numpy.typing as npt

from float import WORKGROUP, grid, program

import vyre
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.fma_normal import fma_f32_normal

U32 = npt.NDArray[np.uint32]
U64 = npt.NDArray[np.uint64]


def _patterns(sign: U64, exponent: U64, significand: U64) -> U32:
    return ((sign << np.uint64(31)) | (exponent << np.uint64(23)) | (significand & np.uint64(0x7F_FFFF))).astype(np.uint32)


def _normal(rng: np.random.Generator, n: int, low: int, high: int) -> U32:
    return _patterns(
        rng.integers(0, 2, n, dtype=np.uint64),
        rng.integers(low, high, n, dtype=np.uint64),
        rng.integers(0, 1 << 23, n, dtype=np.uint64),
    )


def jam(rng: np.random.Generator, n: int) -> tuple[U32, U32, U32]:
    ma = rng.integers(1 << 23, 1 << 24, n, dtype=np.uint64) | np.uint64(1)
    mb = rng.integers(1 << 23, 1 << 24, n, dtype=np.uint64) | np.uint64(1)
    p = ma * mb
    shift = rng.integers(24, 32, n, dtype=np.uint64)
    lost = shift - np.uint64(23)
    negative = rng.integers(0, 2, n, dtype=np.uint64)
    half, mask = np.uint64(1 << 22), np.uint64((1 << 23) - 1)
    tie = np.where(negative == 1, (p - half) & mask, (half - p) & mask)
    kept = tie - rng.integers(0, 2, n, dtype=np.uint64)
    below = (rng.integers(1, 1 << 62, n, dtype=np.uint64) % ((np.uint64(1) << lost) - np.uint64(1))) + np.uint64(1)
    mc = (kept << lost) | below
    mc = np.where((mc >> np.uint64(23)) == 1, mc, np.uint64(1 << 23) | (mc & mask))  # keep it 24 bits
    ea = rng.integers(100, 155, n, dtype=np.uint64)
    eb = rng.integers(100, 155, n, dtype=np.uint64)
    top = (p >> np.uint64(47)) & np.uint64(1)  # the product's leading 1 at bit 47, not 46
    ec = ea + eb + top - np.uint64(127) - shift
    sa, sb = rng.integers(0, 2, n, dtype=np.uint64), rng.integers(0, 2, n, dtype=np.uint64)
    return _patterns(sa, ea, ma), _patterns(sb, eb, mb), _patterns(sa ^ sb ^ negative, ec, mc)


def _product(a: U32, b: U32) -> npt.NDArray[np.float64]:
    return a.view(np.float32).astype(np.float64) * b.view(np.float32).astype(np.float64)


def cancel(rng: np.random.Generator, n: int) -> tuple[U32, U32, U32]:
    """c = -(a * b) (1 + d), |d| = 2**-1 .. 2**-24: about -log2|d| places cancel
    (half the inputs), or c within 6 ulps of -(a * b) rounded (all of them cancel)."""
    a, b = _normal(rng, n, 90, 165), _normal(rng, n, 90, 165)
    d = np.ldexp(rng.choice(np.array([-1.0, 1.0]), n), -rng.integers(1, 25, n))
    graded = (-_product(a, b) * (1.0 + d)).astype(np.float32).view(np.uint32)
    ulps = (-_product(a, b)).astype(np.float32).view(np.uint32) + rng.integers(-6, 7, n).astype(np.uint32)
    return a, b, np.where(rng.integers(0, 2, n) == 1, graded, ulps).astype(np.uint32)


def scaled(rng: np.random.Generator, n: int) -> tuple[U32, U32, U32]:
    a, b = _normal(rng, n, 90, 165), _normal(rng, n, 90, 165)
    scale = np.ldexp(1.0, rng.integers(-40, 41, n))
    sign = rng.choice(np.array([-1.0, 1.0]), n)
    c = (_product(a, b) * scale * sign).astype(np.float32).view(np.uint32)
    return a, b, c ^ rng.integers(0, 2, n).astype(np.uint32)  # and a last-bit change


def near(rng: np.random.Generator, n: int) -> tuple[U32, U32, U32]:
    return _normal(rng, n, 120, 135), _normal(rng, n, 120, 135), _normal(rng, n, 120, 135)


def range_edges(rng: np.random.Generator, n: int) -> tuple[U32, U32, U32]:
    high = (_normal(rng, n, 190, 200), _normal(rng, n, 180, 192), _normal(rng, n, 240, 255))
    low = (_normal(rng, n, 1, 40), _normal(rng, n, 60, 90), _normal(rng, n, 1, 8))
    pick = rng.integers(0, 2, n).astype(bool)
    return tuple(np.where(pick, h, l).astype(np.uint32) for h, l in zip(high, low))  # type: ignore[return-value]


CLASSES: dict[str, Callable[[np.random.Generator, int], tuple[U32, U32, U32]]] = {
    "jam": jam, "cancel": cancel, "scaled": scaled, "near": near, "range": range_edges,
}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--log2-count", type=int, default=24, help="inputs a class a chunk: 2**N")
    parser.add_argument("--chunks", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", default="wgpu")
    args = parser.parse_args()
    n = 1 << args.log2_count
    dispatch = grid(n)
    kernel = program("fma", "f32", dispatch[0] * WORKGROUP)  # bench/float.py's strict fma map
    m = sf.NumpyMachine()
    print(f"# strict F32 fma edges on {_common.gpu_name() if args.backend == 'wgpu' else args.backend}")
    print("| class | inputs | fast path applies | mismatches | seconds |")
    print("|---|---|---|---|---|")
    total_bad = 0
    for name, make in CLASSES.items():
        rng = np.random.default_rng([args.seed, len(name), sum(map(ord, name))])
        inputs = applied = bad = 0
        start = time.perf_counter()
        for _ in range(args.chunks):
            a, b, c = make(rng, n)
            out = vyre.run(
                kernel,
                {"a": a.view(np.float32), "b": b.view(np.float32), "c": c.view(np.float32)},
                dispatch=dispatch,
                outputs={"out": n},
                backend=args.backend,
            )
            got = np.asarray(out["out"]).view(np.uint32)
            want = oracle.fma("f32", a, b, c)
            wrong = np.flatnonzero(got != want)
            for k in wrong[:3]:
                print(f"MISMATCH {name}: fma({a[k]:#010x}, {b[k]:#010x}, {c[k]:#010x}) = {got[k]:#010x}, want {want[k]:#010x}")
            bad += int(wrong.size)
            applies, _ = fma_f32_normal(m.word(a), m.word(b), m.word(c))
            applied += int(np.count_nonzero(applies.v))
            inputs += n
        total_bad += bad
        print(f"| {name} | {inputs:,} | {applied / inputs:.1%} | {bad} | {time.perf_counter() - start:.1f} |")
    if total_bad:
        raise SystemExit(f"{total_bad} mismatches")


if __name__ == "__main__":
    main()
