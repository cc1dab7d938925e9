"""What every command-line entry point shares: a closed standard output ends it
quietly (no traceback, exit status 141), `--help` describes every option and
gives its default, and a mistyped option or choice gets a suggestion."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vyre.cli.pipes import EXIT_CLOSED_PIPE
from vyre.cli.suggest import argparse_hint, did_you_mean
from vyre.conform.cli import _parser as conform_parser  # pyright: ignore[reportPrivateUsage]
from vyre.tools.vyre_run import _argument_parser as run_parser  # pyright: ignore[reportPrivateUsage]

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
XOR = str(ROOT / "examples" / "xor.mlir")


def _closed_pipe(command: list[str], unbuffered: bool) -> subprocess.CompletedProcess[str]:
    """Run `command` with a standard output whose reader is gone."""
    read, write = os.pipe()
    os.close(read)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    try:
        return subprocess.run(command, stdout=write, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    finally:
        os.close(write)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    np.save(folder / "a.npy", np.arange(64, dtype=np.uint32))
    return folder


COMMANDS = {
    "vyre-opt": [str(BIN / "vyre-opt"), XOR],
    "vyre-opt -t wgsl": [str(BIN / "vyre-opt"), XOR, "-t", "wgsl"],
    "vyre-run": [str(BIN / "vyre-run"), XOR, "--input", "a={a}", "--input", "b={a}", "--output", "out=64",
                 "--dispatch", "1", "--backend", "interp"],
    "vyre-conform": [str(BIN / "vyre-conform"), "approximate", "--backend", "interp", "--ops", "fsqrt_approx",
                     "--range", "0x3f800000:16"],
    "python -m vyre": [sys.executable, "-m", "vyre"],
    "fuzz driver": [sys.executable, "-m", "vyre.testing.fuzz", "--only", "text", "--inputs", "2", "--corpus", "none"],
    "examples/xor_kernel.py": [sys.executable, str(ROOT / "examples" / "xor_kernel.py"), "--backend", "interp"],
}


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_closed_stdout_ends_quietly(name: str, unbuffered: bool, inputs: Path) -> None:
    command = [part.replace("{a}", str(inputs / "a.npy")) for part in COMMANDS[name]]
    run = _closed_pipe(command, unbuffered)
    assert "Traceback" not in run.stderr and "BrokenPipeError" not in run.stderr, run.stderr
    assert "Exception ignored" not in run.stderr, run.stderr
    assert run.returncode == EXIT_CLOSED_PIPE, run.stderr


def test_the_adapter_probe_ends_quietly_too(gpu_adapter: object) -> None:
    run = _closed_pipe([sys.executable, "-m", "vyre.runtime.adapters", "--check"], unbuffered=False)
    assert run.returncode == EXIT_CLOSED_PIPE
    assert "Traceback" not in run.stderr and "BrokenPipeError" not in run.stderr, run.stderr


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    found = [("vyre-run", run_parser()), ("vyre-conform", conform_parser())]
    for action in conform_parser()._actions:  # pyright: ignore[reportPrivateUsage]
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            found += [(f"vyre-conform {name}", sub) for name, sub in action.choices.items()]  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType]
    return found


@pytest.mark.parametrize(("name", "parser"), _parsers(), ids=[name for name, _ in _parsers()])
def test_help_describes_every_option_and_its_default(name: str, parser: argparse.ArgumentParser) -> None:
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            continue
        label = "/".join(action.option_strings) or action.dest
        assert action.help, f"{name} {label} has no help text"
        if action.default not in (None, False, [], argparse.SUPPRESS) and not action.required:
            assert "default" in action.help, f"{name} {label}: the help does not give the default {action.default!r}"


def test_vyre_run_help_says_what_the_default_backend_needs() -> None:
    text = run_parser().format_help()
    assert "(default: wgpu)" in " ".join(text.split()) and "vyre[gpu]" in text


def test_suggestions() -> None:
    assert did_you_mean("canonicalise", ["canonicalize", "cse", "dce"]) == "; did you mean `canonicalize`?"
    assert did_you_mean("zzz", ["canonicalize", "cse"]) == ""
    parser = run_parser()
    assert argparse_hint(parser, "unrecognized arguments: --inptu a=x.npy") == "; did you mean `--input`?"
    assert argparse_hint(parser, "argument --backend: invalid choice: 'wgpux' (choose from 'interp', 'wgpu')") == (
        "; did you mean `wgpu`?"
    )
    assert argparse_hint(conform_parser(), "unrecognized arguments: --witnesess 3") == "; did you mean `--witnesses`?"


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["certify", "--backend", "wgpux"], "did you mean `wgpu`?"),
        (["certify", "--strenght", "fast"], "did you mean `--strength`?"),
        (["certfy"], "did you mean `certify`?"),
    ],
)
def test_vyre_conform_suggests(argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]) -> None:
    from vyre.conform.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.rstrip().endswith(hint)
