"""The lit/FileCheck suite (test/lit), run once inside pytest: one test per file.

Its `vyre-opt` calls go to a fork server that imported vyre once
(test/support/lit_fork_server.py: each call a fork, 5x less time than a new
interpreter per call); make test-all also runs the suite with the installed
script itself on the command-line files and one file of every other folder,
each call a new interpreter, as `make lit` does."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIT_DIR = ROOT / "test" / "lit"
LIT_FILES = sorted(path.relative_to(ROOT).as_posix() for path in LIT_DIR.rglob("*.mlir"))
PASSING_CODES = {"PASS", "XFAIL", "UNSUPPORTED"}  # UNSUPPORTED: a REQUIRES feature is absent (mlir-opt-16)


@pytest.fixture(scope="session")
def lit_results(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, dict[str, object]]:
    """Run the whole suite once (2 workers) and map each test file to lit's result.
    Under pytest-xdist the workers share one run: the first to take the lock runs
    lit and the others read its report (xdist may hand lit tests to any worker)."""
    if worker_id == "master":
        return _run_lit(tmp_path_factory.mktemp("lit") / "results.json")
    shared = tmp_path_factory.getbasetemp().parent
    report = shared / "lit-results.json"
    with open(shared / "lit.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _by_file(report) if report.exists() else _run_lit(report)


def _run_lit(report: Path, *, fork_server: bool = True, paths: list[str] | None = None) -> dict[str, dict[str, object]]:
    command = [
        sys.executable,
        "-c",
        "import sys; from lit.main import main; sys.exit(main())",
        "-j2",
        "-q",
        "-o",
        str(report),
        *([str(LIT_DIR)] if paths is None else [str(ROOT / name) for name in paths]),
    ]
    env = {**os.environ, "VYRE_LIT_FORK_SERVER": "1" if fork_server else "0"}
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if not report.exists():
        pytest.fail(f"lit did not run (exit {run.returncode}):\n{run.stdout}\n{run.stderr}")
    return _by_file(report)


def _by_file(report: Path) -> dict[str, dict[str, object]]:
    """lit's JSON report: each test file's result."""
    tests = json.loads(report.read_text())["tests"]
    return {str(test["name"]).split(" :: ", 1)[1]: test for test in tests}


def test_the_suite_has_tests() -> None:
    assert "test/lit/dialect/ops.mlir" in LIT_FILES
    assert any(name.startswith("test/lit/tools/") for name in LIT_FILES)


@pytest.mark.xdist_group("lit")  # (pytest 9.2 drops xdist 3.8's groups; the lock above runs lit once)
@pytest.mark.parametrize("name", LIT_FILES)
def test_lit_file_passes(name: str, lit_results: dict[str, dict[str, object]]) -> None:
    result = lit_results.get(name)
    assert result is not None, f"lit did not run {name}; it ran {sorted(lit_results)}"
    assert result["code"] in PASSING_CODES, f"{name}: {result['code']}\n{result.get('output', '')}"


def _through_the_script() -> list[str]:
    """The files run again with the installed script: every file of
    test/lit/tools (the command line itself: options, exit codes, messages)
    and the first of every other folder (each of its substitutions)."""
    first: dict[str, str] = {}
    for name in LIT_FILES:
        first.setdefault(name.rsplit("/", 1)[0], name)
    tools = [name for name in LIT_FILES if name.startswith("test/lit/tools/")]
    return sorted({*first.values(), *tools})


@pytest.mark.slow  # lit a second time, each vyre-opt a new interpreter (a fifth of a second a call): make test-all
def test_the_suite_passes_with_the_installed_script(tmp_path: Path) -> None:
    files = _through_the_script()
    assert len(files) < len(LIT_FILES) and any("/tools/" in name for name in files)
    results = _run_lit(tmp_path / "results.json", fork_server=False, paths=files)
    assert sorted(results) == files
    failed = {name: result["code"] for name, result in results.items() if result["code"] not in PASSING_CODES}
    assert failed == {}, failed
