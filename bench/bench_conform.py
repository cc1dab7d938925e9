"""Benchmark: how long a vyre-conform certificate takes, and what it needs.

    python bench/bench_conform.py [--backends interp,wgpu] [--strength standard]
                                  [--ops 'primitive.*'] [--jobs 1] [--legendary]
                                  [--prove [--prove-timeout 10]] [--campaign [--witnesses N]]
                                  [--skip-certify]

Each certification runs in a fresh process (`vyre-conform certify ... --no-corpus`),
so the time includes start-up, the wgpu device, pipeline compilation and the
plan (registry hash, independence probes); the peak RSS is that process's own
(os.wait4). `--legendary` adds one law at legendary strength (10**8 witnesses on
the CPU reference and through each backend): Commutative of primitive.math.add.
`--prove` times the SMT proof of every obligation of every `primitive.*`
integer op (composition == reference and each declared law; `vyre.conform.smt`)
in this process, lists each obligation not proved with the solvers' answers, and
checks every proved law against 10**5 random inputs through the numpy
references (an oracle that shares nothing with the solvers). `--campaign` is the
1e8-witness campaign: add Commutative with 10**8 witnesses on the
reference and through each backend, one `vyre-conform` process each, wall time
and that process's peak RSS (`--witnesses` shrinks it for lavapipe).
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
from vyre.cli.pipes import quiet_on_closed_pipe

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


def prove_all(timeout: float) -> list[list[object]]:
    import numpy as np

    from vyre import ops
    from vyre.conform.algebra import NumpyAlgebra, law_relations, law_variables, violations_numpy
    from vyre.conform.plan import in_track
    from vyre.conform.smt import obligation_names, prove_obligation
    from vyre.ops import registry

    def ref(op_id: str, cols: list) -> np.ndarray:
        spec = registry.get_scalar(op_id)
        return (np.asarray(spec.reference(*cols)).astype(np.int64) & 0xFFFF_FFFF).astype(np.uint32)

    ids = [i for i in ops.known_op_ids() if i.startswith("primitive.") and in_track(registry.get(i), "integer")]
    counts: dict[str, int] = {}
    slow: list[tuple[float, str]] = []
    missing: list[str] = []
    started = time.perf_counter()
    rng = np.random.default_rng(1)
    for op_id in ids:
        spec = registry.get_scalar(op_id)
        for name in obligation_names(spec):
            t0 = time.perf_counter()
            record = prove_obligation(spec, name, timeout)
            spent = time.perf_counter() - t0
            counts[record.status.value] = counts.get(record.status.value, 0) + 1
            slow.append((spent, f"{op_id} {name}"))
            if record.status != "proved":
                missing.append(f"{op_id} {name}: {record.status} — {record.detail[:200]}")
            elif name.startswith("law:"):
                law = next(x for x in spec.laws if f"law:{x}" == name)
                cols = [rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32)
                        for _ in range(law_variables(law))]
                bad = violations_numpy(law_relations(law, op_id, NumpyAlgebra(ref), cols), (100_000,))
                if bad.any():
                    raise SystemExit(f"{op_id} {name} was proved but fails on random inputs: prover bug")
    total = time.perf_counter() - started
    print(f"\nSMT: {sum(counts.values())} obligations of {len(ids)} integer primitives in {total:.1f} s"
          f" (timeout {timeout:g} s per solver attempt): {counts}")
    for spent, what in sorted(slow, reverse=True)[:8]:
        print(f"  slowest: {what} {spent:.2f} s")
    for line in missing:
        print(f"  not proved: {line}")
    return [["prove all primitive obligations", "z3/cvc5", "CPU", f"{total:.1f} s", "-", "-",
             f"{sum(counts.values())} obligations, {counts.get('proved', 0)} proved", "-",
             counts.get("counterexample", 0)]]


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="interp,wgpu")
    parser.add_argument("--strength", default="standard")
    parser.add_argument("--ops", default="primitive.*")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--legendary", action="store_true")
    parser.add_argument("--campaign", action="store_true", help="the 1e8-witness add Commutative campaign")
    parser.add_argument("--witnesses", type=int, default=100_000_000)
    parser.add_argument("--prove", action="store_true")
    parser.add_argument("--prove-timeout", type=float, default=10.0)
    parser.add_argument("--skip-certify", action="store_true", help="only --prove / --campaign")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    rows = []
    if args.prove:
        rows.extend(prove_all(args.prove_timeout))
    for backend in [] if args.skip_certify else backends:
        r = certify(backend, args.ops, args.strength, args.jobs, [])
        rows.append(
            [
                f"`{args.ops}` {args.strength}", backend, r["adapter"], f"{r['seconds']:.1f} s",
                f"{r['rss_mb']:.0f} MB", r["level"], f"{r['ops']} ops, {r['laws']} law x target",
                f"{r['cases']:,}", r["failures"],
            ]
        )
    if args.legendary or args.campaign:
        for backend in backends:
            extra = ["--laws", "Commutative", "--checks", "laws", "--witnesses", str(args.witnesses)]
            r = certify(backend, "primitive.math.add", "legendary", 1, extra)
            if r["failures"]:
                raise SystemExit(f"add Commutative failed on {backend}: a backend bug or a harness bug")
            rows.append(
                [
                    f"add Commutative, {args.witnesses:,} witnesses", backend, r["adapter"], f"{r['seconds']:.1f} s",
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
