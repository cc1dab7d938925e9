"""Fuzzing campaigns at scale (docs/reliability.md).

    python bench/fuzz.py [--text 100000] [--wire 1000000] [--api 100000]
        [--differential 0] [--float-functions 0] [--tensor 0] [--tensor-text 0] [--u128 0]
        [--jobs 16] [--seed 1] [--start 0]

Runs the fuzzers of `vyre.testing.fuzz` for a number of inputs each, split over
`--jobs` processes (disjoint input ranges), and prints one markdown row per
fuzzer: inputs, wall time, rate, tracebacks, oracle failures, hangs (> 10 s),
crashes, and the machine it ran on (the CPU; for the differential fuzzer also
the wgpu adapter the programs ran on against the interpreter). Every oracle is
independent of the code under test: a round trip must give back the same
program (text, wire), a wrong argument must be a TypeError/ValueError (API),
the interpreter's final words are the reference (differential). Failures are
shrunk and saved under test/fuzz_corpus/; the exit status is 1 if any.

On the H100 host (16 cores), with 16 jobs: `--text 100000 --wire 1000000` takes
about 4 minutes; `--text 0 --wire 0 --api 0 --differential 5000` about 4 minutes
(run it twice with `--start 0` and `--start 5000` for 10^4 programs).
`--float-functions N`, `--tensor N` and `--u128 N` run interp-vs-device campaigns
of N programs (graphs) against their oracles too (docs/reliability.md gives the rates).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import _common  # noqa: F401  (puts the checkout first on sys.path)

from _common import cpu_name, gpu_name, table
from vyre.cli.pipes import quiet_on_closed_pipe


@quiet_on_closed_pipe
def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--text", type=int, default=100_000)
    parser.add_argument("--wire", type=int, default=1_000_000)
    parser.add_argument("--api", type=int, default=100_000)
    parser.add_argument("--differential", type=int, default=0)
    parser.add_argument("--float-functions", type=int, default=0, help="float programs (interp vs device, MPFR)")
    parser.add_argument("--tensor", type=int, default=0, help="tensor graphs (interp and device vs the oracle)")
    parser.add_argument("--tensor-text", type=int, default=0, help="mutated tensor IR through vyre-opt")
    parser.add_argument("--u128", type=int, default=0, help="u128 expression trees (interp and device vs Python ints)")
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args(argv)
    rows: list[list[object]] = []
    failed = False
    for name in ("text", "wire", "api", "differential", "float-functions", "tensor", "tensor-text", "u128"):
        inputs = getattr(args, name.replace("-", "_"))
        if inputs <= 0:
            continue
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "report.json"
            command = [
                sys.executable, "-m", "vyre.testing.fuzz", "--only", name, "--inputs", str(inputs),
                "--jobs", str(args.jobs), "--seed", str(args.seed), "--start", str(args.start),
                "--json", str(out),
            ]  # fmt: skip
            subprocess.run(command, check=False, stdout=subprocess.DEVNULL)
            summary = json.loads(out.read_text())[0]
        counts = summary["counts"]
        failed |= any(counts.values())
        on_device = name in ("differential", "float-functions", "tensor", "u128")
        machine = f"interp vs {gpu_name()} ({cpu_name()})" if on_device else cpu_name()
        seconds = float(summary["seconds"])
        rows.append(
            [
                name, f"{summary['inputs']:,}", f"{seconds:.0f}", f"{summary['inputs'] / max(seconds, 1e-9):,.0f}",
                counts["traceback"], counts["oracle"], counts["hang"], counts["crash"], machine,
            ]
        )  # fmt: skip
        for line in summary["failures"][:20]:
            print(f"- {name}: {line}", file=sys.stderr)
    print(f"fuzzing, seed {args.seed}, inputs from {args.start}, {args.jobs} jobs\n")
    header = ["fuzzer", "inputs", "s", "inputs/s", "tracebacks", "wrong", "hangs > 10 s", "crashes", "device"]
    print(table(header, rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
