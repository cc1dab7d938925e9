"""docs/ is tested like the README: the how-to pages' Python blocks run as written
(in order, one namespace per page), every command of the command-line blocks runs
from the repository's point of view, the validation page lists exactly the
messages vyre produces, and the pages refer to nothing outside the repository."""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vyre.dialects.vyre import DataTypeKind
from vyre.validation import messages

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TESTED_PAGES = ("adding-an-op.md", "adding-a-pass.md")
COMMAND_PAGES = ("README.md", "mlir.md")
SELF_CONTAINED = (
    "README.md",
    "semantics.md",
    "validation.md",
    "mlir.md",
    "adding-an-op.md",
    "adding-a-pass.md",
)


def _blocks(page: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (DOCS / page).read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("page", TESTED_PAGES)
def test_the_how_to_pages_run_as_written(page: str) -> None:
    blocks = _blocks(page, "python")
    assert len(blocks) >= 3
    namespace: dict[str, object] = {"__name__": f"docs_{page.removesuffix('.md').replace('-', '_')}"}
    with contextlib.redirect_stdout(io.StringIO()):
        for block in blocks:
            exec(compile(block, str(DOCS / page), "exec"), namespace)  # noqa: S102 - our own docs


def _commands(page: str) -> list[str]:
    lines: list[str] = []
    for block in _blocks(page, "sh"):
        lines.extend(line.split("  # ")[0].strip() for line in block.splitlines() if line.strip())
    return lines


def test_every_command_runs(tmp_path: Path) -> None:
    """Every command of the pages (each once), run in a scratch folder holding the
    examples, so that the files they write (a.npy, ...) land there; the venv's
    tools come first on PATH."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    commands = list(dict.fromkeys(c for page in COMMAND_PAGES for c in _commands(page)))
    assert len(commands) >= 10
    for command in commands:
        if "mlir-opt-16" in command and shutil.which("mlir-opt-16") is None:
            continue  # needs Debian's mlir-16-tools (test_mlir_generic.py covers it)
        run = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, f"{command}\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
        assert "Traceback" not in run.stderr, command
    import numpy as np

    out = np.load(tmp_path / "out.npy")
    assert (out == np.arange(1024, dtype=np.uint32) ^ np.uint32(5)).all()


def _message_samples() -> list[tuple[str, str]]:
    """(function name, message) for every message function, with sample arguments."""
    samples: list[tuple[str, str]] = []
    for name, function in inspect.getmembers(messages, inspect.isfunction):
        if function.__module__ != messages.__name__ or name.startswith("_"):
            continue
        arguments: list[object] = []
        for parameter in inspect.signature(function).parameters.values():
            annotation = str(parameter.annotation)
            if "DataTypeKind" in annotation:
                arguments.append(DataTypeKind.I32)
            elif "int" in annotation:
                arguments.append(7)
            else:
                arguments.append("thing")
        samples.append((name, function(*arguments)))
    return samples


def _documented_messages() -> list[tuple[str, re.Pattern[str]]]:
    (block,) = [b for b in _blocks("validation.md", "text") if "vyre IR validation" in b]
    documented: list[tuple[str, re.Pattern[str]]] = []
    for line in block.splitlines():
        code, text = line.split(" ", 1)
        pattern = re.escape(text)
        pattern = re.sub(r"<[a-z]+>", ".+?", pattern.replace(r"\<", "<").replace(r"\>", ">"))
        documented.append((code, re.compile(pattern + "$")))
    return documented


def test_the_validation_page_lists_every_message_and_only_those() -> None:
    documented = _documented_messages()
    samples = _message_samples()
    assert len(samples) >= 40
    undocumented = [name for name, text in samples if not any(p.match(text) for _, p in documented)]
    assert undocumented == []
    produced = [code for code, pattern in documented if not any(pattern.match(t) for _, t in samples)]
    assert produced == []
    codes = {code for code, _ in documented}
    assert {f"V{n:03d}" for n in range(1, 26)} <= codes


@pytest.mark.parametrize("page", SELF_CONTAINED)
def test_the_pages_refer_only_into_the_repository(page: str) -> None:
    text = (DOCS / page).read_text()
    assert "/work/" not in text and "../shared" not in text and "shared/spec" not in text
    for link in re.findall(r"\]\(([^)]+)\)", text):
        assert not link.startswith(("/", "..")), link
        assert link.startswith("http") or (DOCS / link.split("#")[0]).exists(), link
