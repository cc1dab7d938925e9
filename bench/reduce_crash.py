"""Reduce a WGSL shader that crashes a driver's pipeline creation.

    python bench/reduce_crash.py bench/results/nvidia-pipeline-crash-117.wgsl --out DIR [--jobs 12]

Each candidate shader is compiled in a child process (the wgpu device of the
adapter `VYRE_ADAPTER` or the default one: `create_shader_module`, then
`create_compute_pipeline`); a candidate is *interesting* when the child dies of a
signal (the driver's crash), *invalid* when naga rejects it, and *fine* when the
pipeline is made. The reduction alternates two kinds of edits until neither
finds a smaller interesting shader:

- ddmin over lines (complements of n <= 16 chunks, tested in parallel);
- one-line simplifications (never of a line with `break` or `exchanged`), all candidates tested in parallel and accepted
  greedily in order: drop the line; replace a `let`/`var` initialiser by the
  type's zero value; replace `if (...) {`, `for (...) {`, `loop {` by a plain
  `{`; replace a call `vyre_xxx(...)` on the line by `0u`.

Writes DIR/reduced.wgsl after every accepted step and DIR/log.txt (each step,
its line count and the number of candidates tried), plus DIR/probes.txt:
hand-written variants of the reduced shader's constructs, each with its outcome.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TextIO

CHILD = r"""
import sys, wgpu
code = open(sys.argv[1]).read()
adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
device = adapter.request_device_sync()
try:
    module = device.create_shader_module(code=code)
except Exception:
    sys.exit(3)
try:
    device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})
except Exception:
    sys.exit(4)
sys.exit(0)
"""

TIMEOUT_S = 60.0
MAX_CHUNKS = 16


class Tester:
    def __init__(self, jobs: int, workdir: Path) -> None:
        self.jobs = jobs
        self.workdir = workdir
        self.tried = 0
        self.cache: dict[str, str] = {}

    def outcome(self, code: str) -> str:
        if code in self.cache:
            return self.cache[code]
        self.tried += 1
        with tempfile.NamedTemporaryFile("w", suffix=".wgsl", dir=self.workdir, delete=False) as f:
            f.write(code)
            path = f.name
        try:
            proc = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, timeout=TIMEOUT_S)
            rc = proc.returncode
            result = "crash" if rc < 0 else {0: "fine", 3: "invalid", 4: "error"}.get(rc, f"rc{rc}")
        except subprocess.TimeoutExpired:
            result = "hang"
        Path(path).unlink(missing_ok=True)
        self.cache[code] = result
        return result

    def many(self, codes: list[str]) -> list[str]:
        with ThreadPoolExecutor(self.jobs) as pool:
            return list(pool.map(self.outcome, codes))


def join(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def ddmin(lines: list[str], t: Tester, log: TextIO) -> list[str]:
    n = 2
    while len(lines) >= 2:
        size = -(-len(lines) // n)
        chunks = [(k, min(k + size, len(lines))) for k in range(0, len(lines), size)]
        complements = [lines[:a] + lines[b:] for a, b in chunks if not any(
            word in line for line in lines[a:b] for word in PROTECTED)]
        results = t.many([join(c) for c in complements])
        hit = next((c for c, r in zip(complements, results) if r == "crash"), None)
        if hit is not None:
            lines = hit
            n = max(n - 1, 2)
            print(f"ddmin: {len(lines)} lines (n={n}, tried {t.tried})", file=log, flush=True)
            continue
        if n >= min(len(lines), MAX_CHUNKS):
            break  # finer than this, the one-line edits of `simplify` are cheaper
        n = min(2 * n, len(lines), MAX_CHUNKS)
    return lines


ZERO = {"u32": "0u", "i32": "0i", "f32": "0.0", "bool": "false"}
DECL = re.compile(r"^(\s*)(let|var)\s+(\w+)\s*:\s*([\w<>, ]+?)\s*=\s*(.*);\s*$")
HEAD = re.compile(r"^(\s*)(if \(.*\)|for \(.*\)|loop|while \(.*\))\s*\{\s*$")
CALL = re.compile(r"vyre_\w+\([^()]*(?:\([^()]*\)[^()]*)*\)")


PROTECTED = ("break", "exchanged")
"""Lines never edited: a compare-exchange loop keeps its exit (without it the loop never ends,
and a driver's trouble with an endless loop is another bug than the one being reduced)."""


def edits(line: str) -> list[str | None]:
    """Candidate replacements of one line (None: drop it)."""
    if any(word in line for word in PROTECTED):
        return []
    out: list[str | None] = [None]
    m = DECL.match(line)
    if m:
        indent, kind, name, ty, _ = m.groups()
        zero = ZERO.get(ty.strip(), f"{ty.strip()}()")
        out.append(f"{indent}{kind} {name}: {ty} = {zero};")
    m = HEAD.match(line)
    if m:
        out.append(f"{m.group(1)}{{")
    for call in CALL.finditer(line):
        out.append(line[: call.start()] + "0u" + line[call.end():])
    return [e for e in out if e != line]


def simplify(lines: list[str], t: Tester, log: TextIO) -> tuple[list[str], bool]:
    candidates: list[tuple[int, str | None]] = [(k, e) for k, line in enumerate(lines) for e in edits(line)]

    def apply(base: list[str], k: int, e: str | None) -> list[str]:
        return base[:k] + ([] if e is None else [e]) + base[k + 1:]

    results = t.many([join(apply(lines, k, e)) for k, e in candidates])
    good = [(k, e) for (k, e), r in zip(candidates, results) if r == "crash"]
    if not good:
        return lines, False
    # Accept greedily from the bottom up, so that earlier line numbers stay valid.
    current = lines
    changed = False
    done: set[int] = set()
    for k, e in sorted(good, key=lambda ke: -ke[0]):
        if k in done:
            continue
        trial = apply(current, k, e)
        if t.outcome(join(trial)) == "crash":
            current, changed = trial, True
            done.add(k)
            print(f"simplify: line {k + 1} -> {e!r}: {len(current)} lines (tried {t.tried})", file=log, flush=True)
    return current, changed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("shader", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=420.0, help="time budget (default: %(default)s)")
    parser.add_argument("--probes", type=Path, default=None, help="a directory of extra .wgsl probes to classify")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    t = Tester(args.jobs, args.out)
    log = open(args.out / "log.txt", "a")
    lines = [line for line in args.shader.read_text().splitlines() if line.strip()]
    first = t.many([join(lines)] * 3)
    print(f"original: {len(lines)} lines, outcomes of 3 tries: {first}", file=log, flush=True)
    if args.probes:
        with open(args.out / "probes.txt", "a") as probes:
            paths = sorted(args.probes.glob("*.wgsl"))
            for path, result in zip(paths, t.many([p.read_text() for p in paths])):
                print(f"{path.name}: {result}", file=probes, flush=True)
    if "crash" not in first:
        print("the original does not crash here: nothing to reduce", file=log, flush=True)
        return
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        before = len(lines), join(lines)
        lines = ddmin(lines, t, log)
        (args.out / "reduced.wgsl").write_text(join(lines))
        lines, _ = simplify(lines, t, log)
        (args.out / "reduced.wgsl").write_text(join(lines))
        if (len(lines), join(lines)) == before:
            break
    final = t.many([join(lines)] * 3)
    print(f"reduced: {len(lines)} lines, outcomes of 3 tries: {final}, {t.tried} candidates", file=log, flush=True)


if __name__ == "__main__":
    main()
