"""Float campaigns on a GPU: strict float ops over whole input spaces (L1f).

    python bench/float_campaigns.py --batch binary16 --checkpoint floats.jsonl [--jobs 16]

Batches (issue #10's verification plan):
  binary16   every F16 and BF16 binary op (add sub mul div min max) over all 2**32 pairs
  compare16  every F16 and BF16 comparison over all 2**32 pairs
  unary16    every F16 and BF16 unary op and conversion over all 65,536 inputs
  unary32    every F32 unary op and conversion over all 2**32 inputs, and u32/i32 to each format
  binary32   F32 add sub mul div min max, the comparisons and fma on --count adversarial inputs each

Each chunk is appended to the checkpoint as it finishes (re-running resumes);
the summary table printed at the end is what bench/RESULTS.md records.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import _common  # noqa: F401  (puts the repository on sys.path)

from vyre.conform import float_campaign
from vyre.conform.float_campaign import Campaign, run_campaign, summary

BINARY = ("add", "sub", "mul", "div", "min", "max")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
UNARY = ("neg", "abs", "sqrt", "floor", "ceil", "round", "trunc", "is_nan", "is_inf")


def batch(name: str, count: int, seed: int) -> list[Campaign]:
    narrow = ("f16", "bf16")
    if name == "binary16":
        return [Campaign(op, fmt) for fmt in narrow for op in BINARY]
    if name == "compare16":
        return [Campaign(op, fmt) for fmt in narrow for op in COMPARE]
    if name == "unary16":
        conversions = [f"to_{t}" for t in ("f32", "f16", "bf16", "u32", "i32")]
        return [Campaign(op, fmt) for fmt in narrow for op in (*UNARY, *conversions) if op != f"to_{fmt}"]
    if name == "unary32":
        conversions = [f"to_{t}" for t in ("f16", "bf16", "u32", "i32")]
        campaigns = [Campaign(op, "f32") for op in (*UNARY, *conversions)]
        return campaigns + [Campaign(op, fmt) for fmt in ("f32", "f16", "bf16") for op in ("from_u32", "from_i32")]
    if name == "binary32":
        return [Campaign(op, "f32", "adversarial", count, seed) for op in (*BINARY, *COMPARE, "fma")]
    raise SystemExit(f"unknown batch {name!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", required=True, action="append")
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1 << 30, help="adversarial inputs per op")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--backend", default="wgpu")
    parser.add_argument("--chunk-bits", type=int, default=24, help="inputs per chunk: 2**BITS")
    args = parser.parse_args()
    float_campaign.CHUNK = 1 << args.chunk_bits

    from _common import gpu_name

    print(f"device: {gpu_name()}", flush=True)
    for name in args.batch:
        for campaign in batch(name, args.count, args.seed):
            began = time.perf_counter()
            bad = sum(
                r.mismatches
                for r in run_campaign(campaign, args.backend, checkpoint=args.checkpoint, jobs=args.jobs or None)
            )
            print(f"{campaign.name}: {bad} mismatches, {time.perf_counter() - began:.1f} s", flush=True)
    print("| campaign | inputs | mismatches | chunks | seconds |")
    print("|---|---|---|---|---|")
    for name, row in sorted(summary(args.checkpoint).items()):
        print(f"| {name} | {row['inputs']:,} | {row['mismatches']} | {row['chunks']} | {row['seconds']:.1f} |")
        for first in row["first"]:
            print(f"|   mismatch | {[hex(v) for v in first]} | | | |")


if __name__ == "__main__":
    main()
