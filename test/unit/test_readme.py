"""The README's Python examples run, and print what the README says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_python_examples_run_and_print_what_they_claim(gpu_adapter) -> None:
    blocks = _python_blocks()
    assert len(blocks) >= 2
    namespace: dict[str, object] = {}
    for block in blocks:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - our own docs
        claimed = [line[2:] for line in block.splitlines() if line.startswith("# V0")]
        if claimed:
            assert printed.getvalue().splitlines() == claimed
