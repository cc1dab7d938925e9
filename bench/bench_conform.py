"""Benchmark: how long a vyre-conform certificate takes, and what it needs.

    python bench/bench_conform.py [--backends interp,wgpu] [--strength standard]
                                  [--ops 'primitive.*'] [--jobs 1] [--legendary]

Each certification runs in a fresh process (`vyre-conform certify ... --no-corpus`),
so the time includes start-up, the wgpu device, pipeline compilation and the
plan (registry hash, independence probes); the peak RSS is that process's own
(os.wait4). `--legendary` adds one law at legendary strength (10**8 witnesses on
the CPU reference and through each backend): Commutative of primitive.math.add.
The report is markdown, for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common

REPO = _common.REPO


def certify(backend: str, ops: str, strength: str, jobs: int, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "cert.json"
        argv = [
            sys.executable, "-m", "vyre.conform.cli", "certify", "--backend", backend,
            "--ops", ops, "--strength", strength, "--no-corpus", "--quiet", "--jobs", str(jobs),
            "--out", str(out), *extra,
        ]
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        stderr = process.stderr.read().decode() if process.stderr else ""
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1) or not out.exists():
            raise SystemExit(f"vyre-conform failed ({code}):\n{stderr}")
        cert = json.loads(out.read_text())
    cases = sum(d["cases"] for r in cert["law_results"] for d in r["domains"].values())
    cases += sum(
        d["cases"]
        for checks in cert["checks"].values()
        for name, check in checks.items()
        if name != "regression"
        for d in check["domains"].values()
    )
    return {
        "backend": backend,
        "adapter": cert["backend"].get("adapter", "") or "reference interpreter",
        "seconds": elapsed,
        "rss_mb": usage.ru_maxrss / 1024,
        "level": cert["level"],
        "ops": len(cert["ops"]),
        "failures": len(cert["failures"]),
        "laws": len(cert["law_results"]),
        "cases": cases,
        "units": cert["plan"]["units"],
        "digest": cert["content_digest"][:16],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="interp,wgpu")
    parser.add_argument("--strength", default="standard")
    parser.add_argument("--ops", default="primitive.*")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--legendary", action="store_true")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    rows = []
    for backend in backends:
        r = certify(backend, args.ops, args.strength, args.jobs, [])
        rows.append(
            [
                f"`{args.ops}` {args.strength}", backend, r["adapter"], f"{r['seconds']:.1f} s",
                f"{r['rss_mb']:.0f} MB", r["level"], f"{r['ops']} ops, {r['laws']} law x target",
                f"{r['cases']:,}", r["failures"],
            ]
        )
    if args.legendary:
        for backend in backends:
            extra = ["--laws", "Commutative", "--checks", "laws"]
            r = certify(backend, "primitive.math.add", "legendary", 1, extra)
            rows.append(
                [
                    "add Commutative legendary", backend, r["adapter"], f"{r['seconds']:.1f} s",
                    f"{r['rss_mb']:.0f} MB", "(laws only)", "1 law x 2 targets", f"{r['cases']:,}",
                    r["failures"],
                ]
            )
    print(f"CPU: {_common.cpu_name()}; jobs={args.jobs}\n")
    print(
        _common.table(
            ["run", "backend", "device", "wall", "peak RSS", "level", "scope", "cases", "failures"],
            rows,
        )
    )


if __name__ == "__main__":
    main()
