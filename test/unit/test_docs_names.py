"""Every name a page of the documentation uses exists: the files and folders it
names, the commands, their subcommands and options, the passes and targets, the
op ids, and the Python and IR names (`vyre.ops.evaluate`, `vyre.fadd`,
`E.fsin_approx`). And the pages name nothing outside the repository (no spec
file of another tree, no `../`, no issue number): each page stands alone.

The pages: README.md, ARCHITECTURE.md and everything in docs/. A name may also
be a file the reader makes (`my_ops.py`, `kernel.mlir`: PLACEHOLDERS), a file a
how-to page has the reader create (CREATED), an output of the command blocks
(under `build/`, which git ignores) or generated (`docs/api/`, `make docs`).
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import importlib
import importlib.util
import io
import itertools
import re
import shlex
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from vyre import ops
from vyre.conform.cli import _parser as conform_parser  # pyright: ignore[reportPrivateUsage]
from vyre.dialects.vyre import Vyre
from vyre.ir import Expr, Node
from vyre.tools.pipeline_names import option_names
from vyre.tools.vyre_opt import VyreOptMain, get_all_passes
from vyre.tools.vyre_run import _argument_parser as run_parser  # pyright: ignore[reportPrivateUsage]

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(
    [*(p.relative_to(ROOT).as_posix() for p in DOCS.glob("*.md")), "README.md", "ARCHITECTURE.md"]
)

PLACEHOLDERS = {
    "my_ops.py": "a user's file of op registrations (--load-ops)",
    "kernel.mlir": "a user's kernel file",
    "cert.json": "a certificate a command writes",
    "f.jsonl": "a checkpoint a command writes",
    "truth.jsonl": "a float-campaign truth file a command writes",
    "scale.mlir": "a kernel file in an example of adding-a-pass.md",
    "pyrightconfig.json": "a consumer project's pyright configuration",
}
CREATED = {
    "docs/adding-a-pass.md": {"vyre/transforms/strength_reduce.py", "test/lit/transforms/strength-reduce.mlir"},
}
GENERATED = ("build/", "docs/api/", ".venv/")
OUTSIDE = ("python-api.md", "oplib.md", "smt-laws.md", "casts.md", "execution-model.md", "types.md")
TOOLS = {"vyre-opt", "vyre-run", "vyre-conform", "xdsl-opt"}
COMMANDS = TOOLS | {"python", "make", "mkdir", "mlir-opt-16", ".", "lit", "pip", "head"}
EXTENSIONS = "py|md|mlir|json|jsonl|txt|toml|npy|cfg|html|whl"


def _text(page: str) -> str:
    return re.sub(r"https?://\S+", "", (ROOT / page).read_text())


def _inline_code(page: str) -> list[str]:
    text = re.sub(r"```.*?```", "", _text(page), flags=re.DOTALL)
    return re.findall(r"`([^`\n]+)`", text)


def _command_lines(page: str) -> list[str]:
    """The lines of the page's sh blocks, and inline code that is a command."""
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", _text(page), flags=re.DOTALL):
        lines += [line.split("  # ")[0].strip() for line in block.splitlines() if line.strip()]
    for code in _inline_code(page):
        first = code.split(" ", 1)[0]
        if first in TOOLS or re.match(r"(make [a-z]|python -m )", code):
            lines.append(code)
    return lines


@cache
def _repository_files() -> tuple[str, ...]:
    found: list[str] = []
    for path in ROOT.rglob("*"):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in (".git", ".venv") or "__pycache__" in relative.parts or "Output" in relative.parts:
            continue
        found.append(relative.as_posix() + ("/" if path.is_dir() else ""))
    return tuple(found)


def _braces(name: str) -> list[str]:
    """`test_kernel_{a,b}.py` -> the names it stands for."""
    parts = re.split(r"\{([^{}]*)\}", name)
    choices = [[part] if i % 2 == 0 else part.split(",") for i, part in enumerate(parts)]
    return ["".join(combination) for combination in itertools.product(*choices)]


def _exists(name: str, page: str) -> bool:
    if name in PLACEHOLDERS or name in CREATED.get(page, set()) or name.startswith(GENERATED):
        return True
    pattern = re.sub(r"<[a-z]+>", "*", name.lstrip("./"))
    files = _repository_files()
    if "/" not in pattern.rstrip("/"):  # a bare name: anywhere in the repository
        return any(fnmatch.fnmatchcase(f.rstrip("/").rsplit("/", 1)[-1], pattern.rstrip("/")) for f in files)
    return any(fnmatch.fnmatchcase(f, pattern) or fnmatch.fnmatchcase(f, "*/" + pattern) for f in files)


def _file_names(page: str) -> Iterator[str]:
    text = _text(page)
    for match in re.finditer(rf"(?<![\w/.<>{{}}*-])([\w.{{}},*<>/-]*[\w}}*>]\.(?:{EXTENSIONS}))(?![\w/])", text):
        yield from _braces(match.group(1))
    for code in _inline_code(page):  # folders: `vyre/transforms/softfloat/`
        if re.fullmatch(r"[\w.<>-]+(/[\w.<>-]+)*/", code):
            yield code


@pytest.mark.parametrize("page", PAGES)
def test_every_file_a_page_names_exists(page: str) -> None:
    missing = sorted({name for name in _file_names(page) if not _exists(name, page)})
    assert missing == [], f"{page} names files the repository does not hold"


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_name_nothing_outside_the_repository(page: str) -> None:
    text = (ROOT / page).read_text()
    assert "../" not in text and "/work/" not in text and "shared/spec" not in text
    named = [name for name in OUTSIDE if re.search(rf"(?<![\w/-]){re.escape(name)}", text)]
    assert named == [], f"{page} names files of another tree"
    issues = re.findall(r"\bissues?\s+#?\d+|(?<![\w&])#\d+\b", text, flags=re.IGNORECASE)
    assert issues == [], f"{page} names issue numbers"


# ---------------------------------------------------------------------------
# op ids, Python names and IR names
# ---------------------------------------------------------------------------


@cache
def _op_ids() -> tuple[str, ...]:
    return tuple(ops.known_op_ids())


def _is_op_id(name: str) -> bool:
    ids = _op_ids()
    return any(fnmatch.fnmatchcase(i, name) or i.startswith(name + ".") for i in ids)


def _resolves(name: str) -> bool:
    """A dialect op or attribute (`vyre.fadd`), or a Python module or attribute
    path (`vyre.ops.evaluate`; a trailing `.*` names a package's modules)."""
    if name in {op.name for op in Vyre.operations} | {attr.name for attr in Vyre.attributes}:
        return True
    parts = name.removesuffix(".*").split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True
    return False


def _dotted_names(page: str) -> Iterator[str]:
    for code in _inline_code(page):
        for token in re.findall(r"(?<![\w.])([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_*]+)+)", code):
            if not re.search(rf"\.(?:{EXTENSIONS})$", token):
                yield token


@pytest.mark.parametrize("page", PAGES)
def test_every_op_id_and_python_name_a_page_names_exists(page: str) -> None:
    families = {op_id.split(".")[0] for op_id in _op_ids()}
    wrong: set[str] = set()
    for name in _dotted_names(page):
        head = name.split(".")[0]
        if head in families and not _is_op_id(name):
            wrong.add(name)
        elif head == "vyre" and not _resolves(name):
            wrong.add(name)
    for code in _inline_code(page):
        for owner, cls in (("E", Expr), ("N", Node)):
            wrong |= {f"{owner}.{a}" for a in re.findall(rf"(?<![\w.]){owner}\.(\w+)", code) if not hasattr(cls, a)}
    assert sorted(wrong) == [], f"{page} names ops or Python names that do not exist"


# ---------------------------------------------------------------------------
# commands, options, passes and targets
# ---------------------------------------------------------------------------


@cache
def _make_targets() -> frozenset[str]:
    return frozenset(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), flags=re.MULTILINE))


def _parser_options(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings}  # pyright: ignore[reportPrivateUsage]


@cache
def _vyre_opt_options() -> frozenset[str]:
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
        VyreOptMain(args=["--help"])
    return frozenset(re.findall(r"(?<![\w-])(--?[\w-]+)", help_text.getvalue()))


@cache
def _conform_subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = conform_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # pyright: ignore[reportPrivateUsage]
    return dict(commands.choices)  # pyright: ignore[reportUnknownArgumentType]


@cache
def _xdsl_names() -> tuple[frozenset[str], frozenset[str]]:
    from xdsl.universe import Universe

    multiverse = Universe.get_multiverse()
    return frozenset(multiverse.all_passes), frozenset(multiverse.all_targets)


def _pipeline_problems(tool: str, words: list[str]) -> list[str]:
    problems: list[str] = []
    vyre_passes = get_all_passes()
    xdsl_passes, xdsl_targets = _xdsl_names()
    for flag, value in zip(words, words[1:]):
        if flag == "-p":
            for spec in re.findall(r"([\w-]+)(?:\{([^}]*)\})?", value):
                name, options = spec
                known = vyre_passes if tool == "vyre-opt" else xdsl_passes
                if name not in known:
                    problems.append(f"pass {name}")
                elif tool == "vyre-opt" and options:
                    given = {o.split("=")[0].replace("_", "-") for o in options.split(",")}
                    problems += [f"option {name}{{{o}}}" for o in given - set(option_names(vyre_passes[name]()))]
        if flag == "-t":
            name = value.split("{")[0]
            if name not in ({"mlir", "wgsl"} if tool == "vyre-opt" else xdsl_targets):
                problems.append(f"target {name}")
    return problems


def _segments(line: str) -> list[list[str]]:
    """The simple commands of a shell line (split at `|`, `&&`, `;`), as words."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;")
    lexer.wordchars += "-./=*{}',:@<>[]$"
    try:
        tokens = list(lexer)
    except ValueError:  # an unterminated quote: the line is prose-like
        tokens = line.split()
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token in ("|", "||", "&&", ";"):
            segments.append([])
        else:
            segments[-1].append(token)
    return segments


def _command_problems(line: str) -> list[str]:
    problems: list[str] = []
    for words in _segments(line):
        if not words or words[0] == "...":
            continue
        tool = words[0]
        if tool not in COMMANDS:
            problems.append(f"command {tool}")
            continue
        options = [w.split("=")[0] for w in words[1:] if re.match(r"--?[a-z]", w)]
        if tool == "make":
            problems += [f"make {t}" for t in words[1:] if "=" not in t and t not in _make_targets()]
        elif tool == "python" and words[1:2] == ["-m"]:
            if importlib.util.find_spec(words[2]) is None:
                problems.append(f"python -m {words[2]}")
        elif tool == "vyre-run":
            problems += [f"vyre-run {o}" for o in options if o not in _parser_options(run_parser())]
        elif tool == "vyre-opt":
            problems += [f"vyre-opt {o}" for o in options if o not in _vyre_opt_options()]
        elif tool == "vyre-conform" and len(words) > 1 and not words[1].startswith("-"):
            sub = _conform_subparsers().get(words[1])
            if sub is None:
                problems.append(f"vyre-conform {words[1]}")
            else:
                problems += [f"vyre-conform {words[1]} {o}" for o in options if o not in _parser_options(sub)]
        if tool in ("vyre-opt", "xdsl-opt"):
            problems += _pipeline_problems(tool, words)
    return problems


@pytest.mark.parametrize("page", PAGES)
def test_every_command_option_and_pass_a_page_names_exists(page: str) -> None:
    problems = sorted({p for line in _command_lines(page) for p in _command_problems(line)})
    assert problems == [], f"{page} names commands, options or passes that do not exist"


def test_the_checker_sees_what_is_wrong() -> None:
    """The checks themselves: each finds the mistake it is for."""
    assert not _exists("python-api.md", "README.md") and _exists("docs/conform.md", "README.md")
    assert _exists("smt/floats.py", "README.md") and _exists("test/fuzz_corpus/<fuzzer>/", "README.md")
    assert not _is_op_id("hash.sha257") and _is_op_id("hash.*") and _is_op_id("primitive.float")
    assert not _resolves("vyre.ops.evaluat") and _resolves("vyre.fadd") and _resolves("vyre.ops.*")
    assert _command_problems("vyre-opt x.mlir -p canonicalise") == ["pass canonicalise"]
    assert _command_problems("vyre-opt x.mlir -p 'convert-to-vyre{workgroup-sise=2}'") == [
        "option convert-to-vyre{workgroup-sise}"
    ]
    assert _command_problems("vyre-conform certify --wintesses 3") == ["vyre-conform certify --wintesses"]
    assert _command_problems("vyre-run - --kernel k | make tset") == ["make tset"]
    assert _command_problems("xdsl-opt k.mlir -t vyre-wgls") == ["target vyre-wgls"]


def _messages_in_the_source() -> Iterator[tuple[str, str]]:
    """(file:line, text) of every string literal of vyre/ that is not a docstring
    (a string standing as a statement of its own: of a module, class, function
    or attribute)."""
    import ast

    for path in sorted((ROOT / "vyre").rglob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node.value


def test_no_message_of_vyre_names_a_page_outside_the_repository() -> None:
    """What vyre prints (errors, hints) names only pages the repository holds."""
    wrong = [
        (where, page)
        for where, text in _messages_in_the_source()
        for page in re.findall(r"[\w/.-]+\.md\b", text)
        if not (ROOT / page).exists()
    ]
    assert wrong == []
