"""`python -m vyre.testing.fuzz`: run the fuzzers for a time budget (`make fuzz`).

    python -m vyre.testing.fuzz [--seconds 300] [--only NAME,...] [--seed 0] [--inputs N]
        [--start I] [--jobs J] [--corpus DIR|none] [--json FILE]

The targets are `base.TARGETS`: text, wire, api, differential, kernel,
float-functions, tensor, tensor-text, u128. The kernel, float-functions, tensor,
tensor-text and u128 fuzzers are test code of the checkout (test/support/): outside a
checkout, choosing one is a one-line error. The time budget is shared by the chosen
fuzzers (in proportion to their weights); with `--inputs N` each fuzzer checks
N inputs instead (a campaign's size). `--jobs J` splits each fuzzer's inputs
over J processes (disjoint index ranges). Every failure is shrunk and saved to
the corpus (default: the repository's test/fuzz_corpus, replayed by CI); the
exit status is 1 when any failure was found. Prints a markdown table: inputs,
seconds, inputs per second (the throughput), tracebacks, oracle failures, hangs
(more than the target's CPU seconds on one input: 10 s, a minute for
float-functions, whose programs lavapipe compiles for seconds), crashes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.cli.suggest import ArgumentParser
from vyre.testing.fuzz.base import FUZZERS, hang_seconds, unavailable, weight
from vyre.testing.fuzz.harness import CORPUS, Report, run_fuzzer

KINDS = ("traceback", "oracle", "hang", "crash")


def _row(name: str, inputs: int, seconds: float, counts: dict[str, int], saved: list[str]) -> list[str]:
    rate = inputs / seconds if seconds else 0.0
    return [name, f"{inputs:,}", f"{seconds:.0f}", f"{rate:,.1f}", *(str(counts[k]) for k in KINDS), str(len(saved))]


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _summary(report: Report) -> dict[str, object]:
    return {
        "fuzzer": report.fuzzer,
        "inputs": report.inputs,
        "seconds": report.seconds,
        "counts": {kind: report.count(kind) for kind in KINDS},
        "failures": [f"{f.kind}: {f.description} (input {f.index})" for f in report.failures],
        "saved": [str(path) for path in report.saved],
    }


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m vyre.testing.fuzz", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="time budget of the whole run (default: 300)")
    parser.add_argument(
        "--only", default=",".join(FUZZERS), help=f"comma-separated fuzzers (default: all, {','.join(FUZZERS)})"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the first input (default: 0)")
    parser.add_argument("--inputs", type=int, default=None, help="inputs per fuzzer (instead of time)")
    parser.add_argument("--start", type=int, default=0, help="index of the first input (default: 0)")
    parser.add_argument("--jobs", type=int, default=1, help="processes per fuzzer (default: 1)")
    parser.add_argument(
        "--corpus", default=str(CORPUS), help="where failures go ('none': nowhere; default: test/fuzz_corpus)"
    )
    parser.add_argument("--json", default=None, help="also write the reports as JSON")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in names if name not in FUZZERS]
    if unknown or not names:
        parser.error(f"unknown fuzzer(s) {unknown}; choose from {', '.join(FUZZERS)}")
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    for name in names:
        problem = unavailable(name)
        if problem is not None:
            print(f"{parser.prog}: {problem}", file=sys.stderr)
            return 2
    corpus = None if args.corpus == "none" else Path(args.corpus)
    total_weight = sum(weight(name) for name in names)
    summaries: list[dict[str, object]] = []
    for name in names:
        seconds = args.seconds * weight(name) / total_weight
        if args.jobs == 1:
            report = run_fuzzer(
                name, seed=args.seed, seconds=seconds if args.inputs is None else 1e9,
                max_inputs=args.inputs, start=args.start, corpus=corpus,
                log=_log,
            )
            summaries.append(_summary(report))
        else:
            summaries.append(_parallel(name, args, seconds))
    header = ["fuzzer", "inputs", "seconds", "inputs/s", *KINDS, "saved"]
    print(f"| {' | '.join(header)} |\n|{'---|' * len(header)}")
    failed = False
    for summary in summaries:
        counts: dict[str, int] = summary["counts"]  # type: ignore[assignment]
        failed |= any(counts.values())
        row = _row(str(summary["fuzzer"]), int(summary["inputs"]), float(summary["seconds"]), counts, summary["saved"])  # type: ignore[arg-type]
        print(f"| {' | '.join(row)} |")
        for line in summary["failures"]:  # type: ignore[attr-defined]
            print(f"  - {line}", file=sys.stderr)
    limits = sorted({f"{hang_seconds(name):.0f} s" for name in names})
    print(f"\n(hang: more than {' or '.join(limits)} of CPU on one input; seed {args.seed})")
    if args.json:
        Path(args.json).write_text(json.dumps(summaries, indent=1))
    return 1 if failed else 0


def _parallel(name: str, args: argparse.Namespace, seconds: float) -> dict[str, object]:
    """`--jobs` child runs over disjoint input ranges, merged."""
    span = args.inputs // args.jobs + 1 if args.inputs is not None else 10**9
    children: list[tuple[subprocess.Popen[bytes], Path]] = []
    began = time.time()
    for job in range(args.jobs):
        out = Path(f"/tmp/vyre-fuzz-{name}-{args.seed}-{job}-{time.time_ns()}.json")
        command = [
            sys.executable, "-m", "vyre.testing.fuzz", "--only", name, "--seed", str(args.seed),
            "--start", str(args.start + job * span), "--corpus", args.corpus, "--json", str(out),
            "--seconds", str(seconds),
        ]  # fmt: skip
        if args.inputs is not None:
            command += ["--inputs", str(max(0, min(span, args.inputs - job * span)))]
        children.append((subprocess.Popen(command, stdout=subprocess.DEVNULL), out))
    merged: dict[str, object] = {"fuzzer": name, "inputs": 0, "seconds": 0.0, "counts": dict.fromkeys(KINDS, 0), "failures": [], "saved": []}
    for child, out in children:
        child.wait()
        if not out.exists():
            merged["failures"].append(f"crash: job exited with {child.returncode}")  # type: ignore[attr-defined]
            continue
        for summary in json.loads(out.read_text()):
            merged["inputs"] = int(merged["inputs"]) + int(summary["inputs"])  # type: ignore[call-overload]
            for kind in KINDS:
                merged["counts"][kind] += summary["counts"][kind]  # type: ignore[index]
            merged["failures"] += summary["failures"]  # type: ignore[operator]
            merged["saved"] += summary["saved"]  # type: ignore[operator]
        out.unlink()
    merged["seconds"] = time.time() - began
    return merged


if __name__ == "__main__":
    sys.exit(main())
