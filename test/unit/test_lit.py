"""The lit/FileCheck suite (test/lit), run once inside pytest: one test per file."""

from __future__ import annotations

import fcntl
import json
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


def _run_lit(report: Path) -> dict[str, dict[str, object]]:
    command = [
        sys.executable,
        "-c",
        "import sys; from lit.main import main; sys.exit(main())",
        "-j2",
        "-q",
        "-o",
        str(report),
        str(LIT_DIR),
    ]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
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


@pytest.mark.xdist_group("lit")  # mostly one worker; lit runs once either way (its own 2 processes)
@pytest.mark.parametrize("name", LIT_FILES)
def test_lit_file_passes(name: str, lit_results: dict[str, dict[str, object]]) -> None:
    result = lit_results.get(name)
    assert result is not None, f"lit did not run {name}; it ran {sorted(lit_results)}"
    assert result["code"] in PASSING_CODES, f"{name}: {result['code']}\n{result.get('output', '')}"
