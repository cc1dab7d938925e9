"""Run a fuzzer under a watchdog, shrink its failures, save them to the corpus.

The inputs are checked in a forked child process that reports, through shared
memory, which input it is on and since when (wall clock and its own CPU time).
The parent watches: an input that used more than `hang_seconds` of CPU time
(or ten times that of wall time, for a child that blocks) is a hang (a C-level
regex or a loop that never checks for signals cannot be interrupted
in-process), so the parent kills the child, records the input, and starts a new
child at the next input. CPU time, not wall time, so that a child starved by a
loaded machine is not taken for a hung one.
Tracebacks and oracle failures come back through a queue.

Each distinct failure (by kind and innermost frame) is shrunk in a child
process of its own (with a time limit) and written to
`<corpus>/<fuzzer>/<sha256 prefix>.<ext>`.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import queue
import time
from dataclasses import dataclass, field
from multiprocessing.queues import SimpleQueue
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any

from vyre.testing.fuzz.base import HANG_SECONDS, OracleFailure, describe, get_fuzzer, hang_seconds as target_hang_seconds

__all__ = ["HANG_SECONDS", "CORPUS", "Failure", "Report", "outcome", "run_fuzzer", "save"]

CORPUS = Path(__file__).resolve().parents[3] / "test" / "fuzz_corpus"
"""The regression corpus of the repository (replayed by test_fuzz_corpus.py)."""
SHRINK_SECONDS = 60.0


@dataclass(frozen=True)
class Failure:
    fuzzer: str
    index: int
    kind: str
    """`traceback`, `oracle` or `hang`."""
    description: str
    data: bytes


@dataclass
class Report:
    fuzzer: str
    seed: int
    inputs: int = 0
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=lambda: list[Failure]())
    saved: list[Path] = field(default_factory=lambda: list[Path]())

    def count(self, kind: str) -> int:
        return sum(1 for failure in self.failures if failure.kind == kind)


def outcome(fuzzer_name: str, data: bytes, seed: int = 0) -> tuple[str, str] | None:
    """(kind, description) of the failure `data` causes, None if it passes."""
    fuzzer = get_fuzzer(fuzzer_name, seed)
    try:
        fuzzer.check(data)
    except OracleFailure as error:
        return ("oracle", describe(error))
    except Exception as error:  # noqa: BLE001 - any other exception is what we look for
        return ("traceback", describe(error))
    return None


def _child(
    name: str,
    seed: int,
    start: int,
    stop: int,
    deadline: float,
    current: Synchronized[int],
    started: Synchronized[float],
    started_cpu: Synchronized[float],
    done: Synchronized[int],
    failures: SimpleQueue[tuple[int, str, str]],
) -> None:
    fuzzer = get_fuzzer(name, seed)
    index = start
    while index < stop and time.time() < deadline:
        data = fuzzer.generate(index)
        with current.get_lock():
            current.value = index
            started.value = time.time()
            started_cpu.value = time.process_time()
        try:
            fuzzer.check(data)
        except OracleFailure as error:
            failures.put((index, "oracle", describe(error)))
        except Exception as error:  # noqa: BLE001
            failures.put((index, "traceback", describe(error)))
        with current.get_lock():
            started.value = 0.0
            done.value += 1
        index += 1
    with current.get_lock():
        current.value = -1


def run_fuzzer(
    name: str,
    *,
    seed: int = 0,
    seconds: float = 60.0,
    max_inputs: int | None = None,
    start: int = 0,
    corpus: Path | None = CORPUS,
    hang_seconds: float | None = None,
    shrink: bool = True,
    log: Any = None,
) -> Report:
    """Check inputs `start, start+1, ...` of fuzzer `name` for `seconds` (or
    `max_inputs`); shrink and save each distinct failure when `corpus` is set.
    `hang_seconds`: CPU seconds on one input past which it is a hang (default:
    the target's, `base.hang_seconds`)."""
    if hang_seconds is None:
        hang_seconds = target_hang_seconds(name)
    context = multiprocessing.get_context("fork")
    report = Report(name, seed)
    stop = start + max_inputs if max_inputs is not None else 2**62
    began = time.time()
    deadline = began + seconds
    failures: SimpleQueue[tuple[int, str, str]] = context.SimpleQueue()  # written at once: a crash loses none
    index = start
    last_log = began
    while index < stop and time.time() < deadline:
        current = context.Value("q", index)
        started = context.Value("d", 0.0)
        started_cpu = context.Value("d", 0.0)
        done = context.Value("q", 0)
        child = context.Process(
            target=_child,
            args=(name, seed, index, stop, deadline, current, started, started_cpu, done, failures),
            daemon=True,
        )
        child.start()
        hung: int | None = None
        while child.is_alive():
            child.join(0.2)
            with current.get_lock():
                since, since_cpu, at = started.value, started_cpu.value, current.value
            cpu = _cpu_seconds(child.pid)
            too_long = since and (
                time.time() - since > 10 * hang_seconds
                or (cpu is not None and cpu - since_cpu > hang_seconds)
                or (cpu is None and time.time() - since > hang_seconds)
            )
            if too_long:
                hung = at
                child.kill()
                child.join()
                break
            if log is not None and time.time() - last_log > 30:
                last_log = time.time()
                log(f"{name}: {report.inputs + done.value} inputs, {time.time() - began:.0f} s")
        report.inputs += done.value
        _drain(failures, report, name, seed)
        if hung is not None:
            data = get_fuzzer(name, seed).generate(hung)
            report.failures.append(Failure(name, hung, "hang", f"more than {hang_seconds:.0f} s of CPU", data))
            report.inputs += 1
            index = hung + 1
            continue
        if child.exitcode not in (0, None):
            at = current.value
            if at >= 0:  # the child died on an input (a crash of native code)
                data = get_fuzzer(name, seed).generate(at)
                report.failures.append(Failure(name, at, "crash", f"exit code {child.exitcode}", data))
                report.inputs += 1
                index = at + 1
                continue
        break
    report.seconds = time.time() - began
    if corpus is not None:
        for failure in _distinct(report.failures):
            data = _shrunk(failure, seed) if shrink and failure.kind in ("traceback", "oracle") else failure.data
            report.saved.append(save(corpus, get_fuzzer(name, seed).extension, name, data))
    return report


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process (Linux /proc), None where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _drain(failures: SimpleQueue[tuple[int, str, str]], report: Report, name: str, seed: int) -> None:
    fuzzer = None
    while not failures.empty():
        index, kind, description = failures.get()
        fuzzer = fuzzer or get_fuzzer(name, seed)
        report.failures.append(Failure(name, index, kind, description, fuzzer.generate(index)))


def _distinct(failures: list[Failure]) -> list[Failure]:
    seen: dict[tuple[str, str], Failure] = {}
    for failure in failures:
        key = (failure.kind, failure.description if failure.kind != "hang" else "")
        if key not in seen or len(failure.data) < len(seen[key].data):
            seen[key] = failure
    return list(seen.values())


def _shrink_child(failure: Failure, seed: int, result: multiprocessing.Queue[bytes]) -> None:
    fuzzer = get_fuzzer(failure.fuzzer, seed)
    expected = (failure.kind, failure.description)

    def still_fails(candidate: bytes) -> bool:
        found = outcome(failure.fuzzer, candidate, seed)
        if found is not None and found == expected:
            result.put(candidate)  # the best so far, in case the time runs out
            return True
        return False

    result.put(fuzzer.shrink(failure.data, still_fails))


def _shrunk(failure: Failure, seed: int) -> bytes:
    """The failure's input shrunk in a child process for at most SHRINK_SECONDS."""
    context = multiprocessing.get_context("fork")
    result: multiprocessing.Queue[bytes] = context.Queue()
    child = context.Process(target=_shrink_child, args=(failure, seed, result), daemon=True)
    child.start()
    best = failure.data
    deadline = time.time() + SHRINK_SECONDS
    while child.is_alive() and time.time() < deadline:
        child.join(0.2)
        best = _latest(result, best)
    if child.is_alive():
        child.kill()
        child.join()
    return _latest(result, best)


def _latest(result: multiprocessing.Queue[bytes], best: bytes) -> bytes:
    while True:
        try:
            candidate = result.get(timeout=0.05)
        except queue.Empty:
            return best
        if len(candidate) <= len(best):
            best = candidate


def save(corpus: Path, extension: str, fuzzer: str, data: bytes) -> Path:
    """Write `data` to `<corpus>/<fuzzer>/<sha256 prefix>.<extension>`."""
    folder = corpus / fuzzer
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{hashlib.sha256(data).hexdigest()[:16]}.{extension}"
    if not path.exists():
        tmp = path.with_suffix(path.suffix + f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        tmp.replace(path)
    return path
