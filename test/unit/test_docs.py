"""docs/ is tested like the README: the how-to pages' Python blocks run as written
(in order, one namespace per page), the command blocks of README.md, docs/README.md
and docs/mlir.md run as written in a fresh clone after `make demo`, the validation
page lists exactly the messages vyre produces, and the pages refer to nothing
outside the repository (test_docs_names.py checks every name they use)."""

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
SELF_CONTAINED = tuple(sorted(path.name for path in DOCS.glob("*.md")))


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


COMMAND_PAGES = ("README.md", "docs/README.md", "docs/mlir.md")
"""The pages whose command blocks run, each page in one shell session, in the
order written. README.md and docs/README.md activate `.venv` themselves (their
first command block says to); the other pages assume it, as docs/README.md
says."""
SET_UP = ("make demo", "make setup", "make test", "make test-all")
"""Lines the test stands for: the environment of `make setup` is the one running it."""


def _script(page: str) -> str:
    """The page's command blocks as one bash script, line by line as written,
    less the set-up (`make demo`: done) and what needs a tool that is absent."""
    text = (ROOT / page).read_text()
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        for line in block.splitlines():
            command = line.split("  # ")[0].strip()
            if not command or command.startswith(SET_UP):
                continue
            if "mlir-opt-16" in command and shutil.which("mlir-opt-16") is None:
                continue  # Debian's mlir-16-tools (test_mlir_generic.py covers it)
            lines.append(command)
    if "activate" not in lines[0]:
        lines.insert(0, ". .venv/bin/activate")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def fresh_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's files as a fresh clone holds them (tracked, and new ones
    git does not ignore), a git repository of their own, and `.venv` linking to
    the environment `make setup` made (the one running the tests)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    venv = Path(sys.prefix)
    if not (venv / "bin" / "activate").exists():
        pytest.skip(f"the tests do not run in a virtual environment ({venv}); make setup makes one")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    clone = tmp_path_factory.mktemp("clone")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    subprocess.run(["git", "init", "-q"], cwd=clone, check=True)
    subprocess.run(["git", "add", "-A"], cwd=clone, check=True)
    identity = ["-c", "user.name=vyre tests", "-c", "user.email=tests@vyre.invalid"]
    subprocess.run(["git", *identity, "commit", "-q", "--no-verify", "-m", "clone"], cwd=clone, check=True)
    (clone / ".git" / "info" / "exclude").write_text(".venv\n")
    (clone / ".venv").symlink_to(venv)
    return clone


@pytest.mark.parametrize(
    "page",
    # README.md's blocks hold two certification campaigns (about a minute on lavapipe):
    # make test-all; its command-line block is docs/README.md's, which make test runs
    [pytest.param(page, marks=pytest.mark.slow) if page == "README.md" else page for page in COMMAND_PAGES],
)
def test_the_commands_run_as_written_in_a_fresh_clone(page: str, fresh_clone: Path) -> None:
    """Every command of the page, in order, in one bash session started with
    none of the venv's tools on PATH (`make demo` done, nothing activated); no
    traceback, and the files they write are ignored by git (`build/`)."""
    script = _script(page)
    assert script.count("\n") >= 4
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != Path(venv_bin))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = path
    run = subprocess.run(
        ["bash", "-e", "-u", "-o", "pipefail", "-x", "-c", script],
        cwd=fresh_clone, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, f"{page}:\n{run.stderr[-3000:]}"
    assert "Traceback" not in run.stderr + run.stdout, page
    status = subprocess.run(["git", "status", "--porcelain"], cwd=fresh_clone, capture_output=True, text=True)
    assert status.stdout == "", f"{page} left files git does not ignore:\n{status.stdout}"
    if page == "docs/README.md":
        import numpy as np

        out = np.load(fresh_clone / "build" / "out.npy")
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


def test_no_message_names_a_file_outside_the_repository() -> None:
    """A `Fix:` that points at a page points at one the repository holds."""
    for name, text in _message_samples():
        for page in re.findall(r"[\w/.-]+\.md\b", text):
            assert (ROOT / page).exists(), f"{name}: {text}"


def test_the_pages_agree_that_atomics_are_relaxed() -> None:
    """WGSL's atomics are relaxed, and so are vyre's: no page says otherwise."""
    for page in [*DOCS.glob("*.md"), ROOT / "README.md"]:
        assert "sequentially consistent" not in page.read_text().lower(), page.name
    for page in ("semantics.md", "kernels.md"):
        text = " ".join((DOCS / page).read_text().split())
        assert re.search(r"[Aa]tomic.{0,250}\*\*relaxed\*\*", text), page


@pytest.mark.parametrize("page", SELF_CONTAINED)
def test_the_pages_refer_only_into_the_repository(page: str) -> None:
    text = (DOCS / page).read_text()
    assert "/work/" not in text and "../shared" not in text and "shared/spec" not in text
    for link in re.findall(r"\]\(([^)]+)\)", text):
        assert not link.startswith(("/", "..")), link
        assert link.startswith("http") or (DOCS / link.split("#")[0]).exists(), link
