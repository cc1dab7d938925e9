"""The project's code and prose stand alone: no tracked source, test, benchmark,
example or page cites a file of another tree (the specification and the
reference notes the project was written from) or an issue-tracker number. What
such a citation meant is written out where it is used, or the pointer goes to
the project's own documentation (docs/).

The pages of docs/, README.md and ARCHITECTURE.md are also checked by
`test_docs_names.py`; this test covers everything else as well. Out of its
scope: bench/RESULTS.md and bench/results/ (measurement logs, edited as runs
come in) and the tests that hold the forbidden names in order to forbid them
(ENFORCERS).
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FOLDERS = ("vyre/", "test/", "bench/", "examples/", "docs/")
ROOT_FILES = ("README.md", "ARCHITECTURE.md", "Makefile", "lit.cfg.py", "pyproject.toml")
SUFFIXES = (".py", ".md", ".mlir", ".sh", ".toml", ".wgsl")
EXCLUDED = ("bench/RESULTS.md", "bench/results/")
ENFORCERS = (
    "test/unit/test_self_contained.py",
    "test/unit/test_docs_names.py",
    "test/unit/test_docs.py",
    "test/unit/tensor/test_docs_page.py",
)

OUTSIDE_FILES = (
    # the specification
    "python-api.md",
    "types.md",
    "casts.md",
    "execution-model.md",
    # the reference notes
    "oplib.md",
    "smt-laws.md",
    "float-strict.md",
    "vyre-anchor.md",
    "conformance-wgsl.md",
    "cr-math-and-tensors.md",
    "architecture-review",
    "xdsl.md",
    "oplib_vectors",
    "cr_oracle.py",
    "crc_combine_check.py",
    "half_double_rounding.py",
    "dp4a_rate.py",
    "cpu_baselines.txt",
    "peers_h100_torch.txt",
    "import_cycles.py",
)
"""Files of the other tree, by name."""

OUTSIDE_NAME = re.compile(
    "|".join(rf"(?<![\w-]){re.escape(name)}" for name in OUTSIDE_FILES)
    + r"|\.\./shared|shared/spec|shared/reference|shared/tools|/work/"
    + r"|(?<![\w/.-])reference/[\w.-]+\.(?:md|py|txt)\b"
)
"""A name or a path of the other tree. `reference/` alone is an ordinary word
("the reference/parity checks"); a file under it is not."""

SHARED_PAGE = re.compile(r"(?<![\w/.-])(?:conform|validation)\.md\b")
"""`conform.md` and `validation.md` are pages of docs/ and files of the
specification alike: outside docs/ the project's pages are named with their
folder (`docs/conform.md`), so a bare name is the other tree's."""

ISSUE = re.compile(
    r"\b(?:issues?|bugs?|tickets?|PRs?|pull\s+requests?)\s+(?:no\.\s*)?#?\d+"
    r"|\(#\d+\b",
    flags=re.IGNORECASE,
)
"""An issue number: "issue 12", "issues #10-#16", "PR #3", "(#11)". A bare `#0`
is not one (a port name, "H100 #2", `#include`, a CSS colour)."""


@cache
def _scanned() -> tuple[str, ...]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *FOLDERS, *ROOT_FILES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    return tuple(
        path
        for path in listed
        if path
        and (path.endswith(SUFFIXES) or path.rsplit("/", 1)[-1] == "Makefile")
        and not path.startswith(EXCLUDED)
        and path not in ENFORCERS
        and (ROOT / path).is_file()
    )


def problems(path: str, text: str) -> list[str]:
    """`line: what` for every citation of another tree or an issue number."""
    found: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        hits = OUTSIDE_NAME.findall(line) + ISSUE.findall(line)
        if not path.startswith("docs/"):
            hits += SHARED_PAGE.findall(line)
        found += [f"{number}: {hit}" for hit in hits]
    return found


def test_the_scan_covers_the_tree() -> None:
    files = _scanned()
    assert len(files) > 300
    assert {"README.md", "Makefile", "vyre/__init__.py", "docs/conform.md"} <= set(files)
    assert not any(f.startswith(EXCLUDED) for f in files)


def test_the_checker_sees_what_is_wrong() -> None:
    """Each kind of citation is found; the look-alikes are not."""
    wrong = [
        '"""The canonical tree (python-api.md)."""',
        "# oplib.md C5: no index",
        "see ../shared/spec/casts.md",
        "(reference/conformance-wgsl.md)",
        "the laws of conform.md",
        "zero-overhead benchmark (issue #4)",
        "what issue 12 asks",
        "issues #10-#16",
        "fixed in (#11)",
        "(vyre-anchor.md §9.4)",
    ]
    for text in wrong:
        assert problems("vyre/x.py", text), text
    right = [
        "see docs/conform.md and docs/validation.md",
        "vyre/lowering/casts.py: the cast table",
        'AdapterInfo("H100 #2", "DiscreteGPU")',
        'vtensor.buffer "#0" f32',
        "#include <stdio.h>",
        "color: #000000;",
        "x = 1  # 1 word",
        "the reference/parity checks",
        "step 3 of the 12 issues found",
    ]
    for text in right:
        assert problems("vyre/x.py", text) == [], text
    assert problems("docs/floats.md", "(`conform.md`, \"Several GPUs\")") == []


def test_no_file_names_anything_outside_the_repository() -> None:
    found = {path: problems(path, (ROOT / path).read_text(errors="replace")) for path in _scanned()}
    wrong = {path: hits for path, hits in found.items() if hits}
    assert wrong == {}, "these files cite another tree or an issue number"
