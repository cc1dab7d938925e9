"""Float campaigns on a GPU: strict float ops over whole input spaces (L1f).

    python bench/float_campaigns.py --plan h100-remaining [--checkpoint FILE] [--budget 540]
    python bench/float_campaigns.py --batch binary16 --checkpoint floats.jsonl [--jobs 16]
    python bench/float_campaigns.py --plan h100-remaining --host-profile     (no GPU: host inputs/s)

Plans (the strict floats' campaigns the H100 still owes, by priority; see --list):
  h100-remaining  the F32 binary ops, comparisons and fma on 2**30 adversarial inputs each
                  (add/sub/mul/div re-run: their soft-float changed; min/max/comparisons/fma
                  never ran there), the F16/BF16 binary ops whose soft-float changed
                  (add/sub/mul/div, all 2**32 pairs), the F32 unary ops and conversions
                  whose lowered code changed (sqrt, ceil, to_f16, u32/i32 to every format,
                  all 2**32 inputs), and every F16/BF16 unary op and conversion (65,536 each)
  smoke           a few small campaigns of every kind (how the plan is tested on lavapipe)

Batches (the strict floats' verification plan, by kind):
  binary16   every F16 and BF16 binary op (add sub mul div min max) over all 2**32 pairs
  compare16  every F16 and BF16 comparison over all 2**32 pairs
  unary16    every F16 and BF16 unary op and conversion over all 65,536 inputs
  unary32    every F32 unary op and conversion over all 2**32 inputs, and u32/i32 to each format
  pairs16    the correctly rounded functions of two operands (atan2, pow) for F16 and BF16 over
             all 2**32 pairs
  binary32   F32 add sub mul div min max, the comparisons and fma on --count adversarial inputs each

Each chunk is appended to the checkpoint as it finishes: re-running resumes, and
a run stops at the first chunk boundary after --budget seconds (default 540, so
one run fits a 10-minute slot; run it again to go on). One pool of worker processes (every core) computes operands, the exact
oracle and the sums for all campaigns while the GPU runs the kernels. The table
printed at the end (device, inputs, mismatches, seconds per campaign) is what
bench/RESULTS.md records.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the repository on sys.path)
import numpy as np

from vyre.conform import float_campaign
from vyre.conform.float_campaign import Campaign, ChunkResult, run_campaign, summary, worker_pool
from vyre.cli.pipes import quiet_on_closed_pipe

BINARY = ("add", "sub", "mul", "div", "min", "max")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
UNARY = ("neg", "abs", "sqrt", "floor", "ceil", "round", "trunc", "is_nan", "is_inf")
NARROW = ("f16", "bf16")
ADVERSARIAL = 1 << 30


def batch(name: str, count: int, seed: int) -> list[Campaign]:
    if name == "binary16":
        return [Campaign(op, fmt) for fmt in NARROW for op in BINARY]
    if name == "compare16":
        return [Campaign(op, fmt) for fmt in NARROW for op in COMPARE]
    if name == "unary16":
        conversions = [f"to_{t}" for t in ("f32", "f16", "bf16", "u32", "i32")]
        return [Campaign(op, fmt) for fmt in NARROW for op in (*UNARY, *conversions) if op != f"to_{fmt}"]
    if name == "unary32":
        conversions = [f"to_{t}" for t in ("f16", "bf16", "u32", "i32")]
        campaigns = [Campaign(op, "f32") for op in (*UNARY, *conversions)]
        return campaigns + [Campaign(op, fmt) for fmt in ("f32", "f16", "bf16") for op in ("from_u32", "from_i32")]
    if name == "functions":
        from vyre.dialects import vyre as d

        names = [op.SHORT_NAME for op in d.ops_of(d.FloatFunctionOp)]
        pairs = [op.SHORT_NAME for op in d.ops_of(d.FloatBinaryOp) if op.SHORT_NAME not in BINARY]  # atan2, pow
        return [
            *(Campaign(op, fmt) for fmt in ("f32", "f16", "bf16") for op in names),
            *(Campaign(op, fmt) for fmt in NARROW for op in pairs),  # all 2**32 pairs
            *(Campaign(op, "f32", "adversarial", count, seed) for op in pairs),
        ]
    if name == "pairs16":
        from vyre.dialects import vyre as d

        names = [op.SHORT_NAME for op in d.ops_of(d.FloatBinaryOp) if op.SHORT_NAME not in BINARY]
        return [Campaign(op, fmt) for fmt in NARROW for op in names]
    if name == "binary32":
        return [Campaign(op, "f32", "adversarial", count, seed) for op in (*BINARY, *COMPARE, "fma")]
    raise SystemExit(f"unknown batch {name!r}")


def plan(name: str, count: int, seed: int) -> list[Campaign]:
    if name == "h100-remaining":
        return [
            *(Campaign(op, "f32", "adversarial", count, seed) for op in ("add", "sub", "mul", "div", "fma")),
            *(Campaign(op, "f32", "adversarial", count, seed) for op in ("min", "max", *COMPARE)),
            *(Campaign(op, fmt) for fmt in NARROW for op in ("add", "sub", "mul", "div")),
            Campaign("sqrt", "f32"),
            Campaign("ceil", "f32"),
            Campaign("to_f16", "f32"),
            *(Campaign(op, fmt) for fmt in ("f32", "f16", "bf16") for op in ("from_u32", "from_i32")),
            *batch("unary16", count, seed),
        ]
    if name == "lavapipe-v2":
        # the 32-bit unary rows whose lowered code the v2 algorithms changed
        return [
            Campaign("sqrt", "f32"),
            Campaign("ceil", "f32"),
            Campaign("to_f16", "f32"),
            *(Campaign(op, fmt) for fmt in ("f32", "f16", "bf16") for op in ("from_u32", "from_i32")),
        ]
    if name == "smoke":
        return [
            *(Campaign(op, "f32", "adversarial", count, seed) for op in ("add", "div", "fma", "min", "lt")),
            Campaign("sqrt", "f16"),
            Campaign("to_i32", "bf16"),
        ]
    raise SystemExit(f"unknown plan {name!r}")


def host_profile(campaigns: list[Campaign], jobs: int) -> None:
    """The host side only (operands, oracle, sums), no GPU: CPU time per input
    in this process (robust on a loaded machine), and the seconds a whole
    campaign then needs on `jobs` workers; and the host side a stored truth
    leaves (`float_truth`: no oracle; an uploaded space's operands, nothing for
    an exhaustive one, whose operands come from the input index in the kernel)."""
    from vyre.conform.float_campaign import _host_piece, _memory, _Piece, _Stage  # pyright: ignore[reportPrivateUsage]

    print(f"| campaign | CPU ns per input | host seconds for the campaign on {jobs} workers"
          " | CPU ns per input with a stored truth |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        path = str(Path(scratch) / "operands.u32")
        np.memmap(path, dtype=np.uint32, mode="w+", shape=(3, PROFILE)).flush()
        _memory(path, 3, PROFILE)
        for campaign in campaigns:
            length = min(PROFILE, campaign.size)
            start = (campaign.size // 2) & ~0xFFFF if campaign.size > length else 0
            _host_piece(_Piece(campaign, start, length, path, 0, PROFILE))  # warm (tables, imports)
            began = time.process_time()
            for offset in range(0, length, float_campaign.PIECE):
                piece = min(float_campaign.PIECE, length - offset)
                _host_piece(_Piece(campaign, start + offset, piece, path, offset, PROFILE))
            cpu = (time.process_time() - began) / length
            began = time.process_time()
            _Stage(campaign, start, length, None, None, stored=(0, 0)).words()
            truth = (time.process_time() - began) / length
            print(f"| {campaign.name} | {cpu * 1e9:,.0f} | {cpu * campaign.size / jobs:,.1f} | {truth * 1e9:,.3f} |",
                  flush=True)


PROFILE = 1 << 21


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--plan", help="h100-remaining, lavapipe-v2 or smoke")
    parser.add_argument("--batch", action="append", default=[])
    parser.add_argument("--checkpoint", type=Path, default=Path("bench/results/floats-h100-v2.jsonl"))
    parser.add_argument("--count", type=int, default=ADVERSARIAL, help="adversarial inputs per op")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (default: every core)")
    parser.add_argument("--backend", default="wgpu")
    parser.add_argument("--chunk-bits", type=int, default=24, help="inputs per chunk: 2**BITS")
    parser.add_argument(
        "--budget", type=float, default=540.0, help="seconds: after this, stop at the next chunk boundary"
    )
    parser.add_argument("--only", help="comma-separated op names: keep only their campaigns")
    parser.add_argument("--formats", help="comma-separated formats: keep only their campaigns")
    parser.add_argument("--list", action="store_true", help="print the campaigns and exit")
    parser.add_argument("--host-profile", action="store_true", help="measure the host side only")
    args = parser.parse_args()
    float_campaign.CHUNK = 1 << args.chunk_bits
    campaigns = plan(args.plan, args.count, args.seed) if args.plan else []
    for name in args.batch:
        campaigns += batch(name, args.count, args.seed)
    if args.only:
        campaigns = [c for c in campaigns if c.op in args.only.split(",")]
    if args.formats:
        campaigns = [c for c in campaigns if c.fmt in args.formats.split(",")]
    if not campaigns:
        raise SystemExit("name a --plan or at least one --batch (and an --only/--formats that keeps some)")
    if args.list:
        for campaign in campaigns:
            print(f"{campaign.name}: {campaign.size:,} inputs")
        return
    import os

    jobs = args.jobs or os.cpu_count() or 1
    if args.host_profile:
        host_profile(campaigns, jobs)
        return

    from _common import gpu_name

    device = gpu_name()
    print(f"device: {device}; host: {jobs} worker processes; checkpoint {args.checkpoint}", flush=True)
    args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    skipped: list[str] = []
    with worker_pool(jobs) as pool:
        for campaign in campaigns:
            if time.perf_counter() - began > args.budget:
                skipped.append(campaign.name)
                continue
            start = time.perf_counter()
            results: list[ChunkResult] = []
            for result in run_campaign(campaign, args.backend, checkpoint=args.checkpoint, pool=pool):
                results.append(result)
                if time.perf_counter() - began > args.budget:
                    skipped.append(campaign.name)  # stopped between chunks: the checkpoint has the rest
                    break
            bad = sum(r.mismatches for r in results)
            print(
                f"{campaign.name}: {sum(r.length for r in results):,} inputs now, {bad} mismatches,"
                f" {time.perf_counter() - start:.1f} s", flush=True,
            )
    names = {campaign.name for campaign in campaigns}
    totals = summary(args.checkpoint) if args.checkpoint.exists() else {}
    print(f"\n{device}, {time.perf_counter() - began:.0f} s in all\n")
    print("| campaign | inputs | of | mismatches | seconds |")
    print("|---|---|---|---|---|")
    for campaign in campaigns:
        row = totals.get(campaign.name)
        if row is None:
            print(f"| {campaign.name} | 0 | {campaign.size:,} | - | - |")
            continue
        print(f"| {campaign.name} | {row['inputs']:,} | {campaign.size:,} | {row['mismatches']} | {row['seconds']:.1f} |")
        for first in row["first"]:
            print(f"|   mismatch | {[hex(v) for v in first]} | | | |")
    left = [name for name in names if totals.get(name, {}).get("inputs", 0) < next(c.size for c in campaigns if c.name == name)]
    print(f"\n{len(names) - len(left)} of {len(names)} campaigns complete"
          + (f"; run again to resume ({len(skipped)} stopped or not started in this run)" if left else ""))


if __name__ == "__main__":
    main()
