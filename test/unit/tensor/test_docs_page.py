"""docs/tensors.md is tested like the other how-to pages: its Python blocks run
as written (in order, one namespace), its commands run from the repository
root, and it refers only into the repository."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "tensors.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), flags=re.DOTALL)


def test_the_python_blocks_run_as_written() -> None:
    blocks = _blocks("python")
    assert len(blocks) >= 3
    namespace: dict[str, object] = {"__name__": "docs_tensors"}
    with contextlib.redirect_stdout(io.StringIO()):
        for block in blocks:
            exec(compile(block, str(PAGE), "exec"), namespace)  # noqa: S102 - our own docs


def test_the_commands_run() -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    commands = [line.split("  # ")[0].strip() for block in _blocks("sh") for line in block.splitlines() if line.strip()]
    assert commands
    for command in commands:
        run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"{command}\n{run.stderr[-2000:]}"


def test_the_page_refers_only_into_the_repository() -> None:
    text = PAGE.read_text()
    assert "/work/" not in text and "../shared" not in text and "shared/spec" not in text
    for link in re.findall(r"\]\(([^)]+)\)", text):
        assert link.startswith("http") or (PAGE.parent / link.split("#")[0]).exists(), link
