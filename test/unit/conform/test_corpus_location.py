"""Where vyre-conform writes: the corpus and its lock file in the user's cache
folder by default (`--corpus DIR` names another), never inside the installed
package or the checkout; the corpus shipped with the package is replayed; every
file is created with the process umask."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import vyre
from vyre import conform
from vyre.conform import corpus as corpus_mod
from vyre.conform.files import append_lines, write_atomic

REPO = Path(__file__).resolve().parents[3]
PACKAGE = Path(vyre.__file__).resolve().parent
FAST = ["certify", "--backend", "interp", "--ops", "primitive.math.add", "--strength", "fast", "--witnesses", "50",
        "--checks", "reference", "--quiet"]


def _certify(cwd: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "VYRE_CACHE_DIR"}  # the tests' own
    env["XDG_CACHE_HOME"] = str(cache)
    return subprocess.run([sys.executable, "-m", "vyre.conform.cli", *FAST, *extra], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _package_files() -> set[Path]:
    return {path for path in PACKAGE.rglob("*") if "__pycache__" not in path.parts}


def test_the_default_corpus_and_its_lock_are_in_the_users_cache(tmp_path: Path) -> None:
    before = _package_files()
    run = _certify(tmp_path, tmp_path / "cache", "--out", "cert.json")
    assert run.returncode == 0, run.stderr
    folder = tmp_path / "cache" / "vyre" / "conform"
    assert (folder / "regressions.jsonl.lock").exists()
    assert json.loads((tmp_path / "cert.json").read_text())["run"]["corpus"] == str(folder / "regressions.jsonl")
    assert _package_files() == before  # nothing written inside the package
    assert not (REPO / "conform").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["cache", "cert.json"]


def test_corpus_names_the_folder(tmp_path: Path) -> None:
    run = _certify(tmp_path, tmp_path / "cache", "--corpus", "mine")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "mine" / "regressions.jsonl.lock").exists() and not (tmp_path / "cache").exists()
    (tmp_path / "mine" / "regressions.jsonl").write_text("")
    as_file = _certify(tmp_path, tmp_path / "cache", "--corpus", "mine/regressions.jsonl")
    assert as_file.returncode == 2 and "Traceback" not in as_file.stderr
    assert "a corpus is named by its folder" in as_file.stderr and "name its folder, mine" in as_file.stderr


def test_the_user_cache_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VYRE_CACHE_DIR", str(tmp_path / "mine"))
    assert corpus_mod.user_corpus_dir() == tmp_path / "mine" / "conform"
    monkeypatch.delenv("VYRE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert corpus_mod.user_corpus_dir() == tmp_path / "vyre" / "conform"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = ("Library/Caches" if sys.platform == "darwin" else ".cache") + "/vyre/conform"
    assert corpus_mod.user_corpus_dir() == tmp_path / "home" / expected


def test_the_shipped_corpus_is_package_data_and_replayed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    package_data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["vyre"]
    assert "conform/regressions.jsonl" in package_data
    assert corpus_mod.SHIPPED_CORPUS == PACKAGE / "conform" / "regressions.jsonl"
    assert corpus_mod.SHIPPED_CORPUS.exists()
    corpus_mod.load(corpus_mod.SHIPPED_CORPUS)  # well-formed
    shipped, mine = tmp_path / "shipped.jsonl", tmp_path / "mine.jsonl"
    a = corpus_mod.Entry(op="primitive.math.add", check="reference", target="backend", inputs=(1, 2))
    b = corpus_mod.Entry(op="primitive.math.add", check="reference", target="backend", inputs=(3, 4))
    corpus_mod.append(shipped, [a])
    corpus_mod.append(mine, [a, b])
    monkeypatch.setattr(corpus_mod, "SHIPPED_CORPUS", shipped)
    assert [e.inputs for e in corpus_mod.replayed(mine)] == [(1, 2), (3, 4)]  # each once
    assert corpus_mod.replayed(None) == []
    cert = conform.certify(backend="interp", ops=["primitive.math.add"], strength="fast", witnesses=50,
                           corpus=tmp_path / "absent.jsonl")
    assert cert.data["regression_count"] == 1  # the shipped entry, though the user's corpus is empty


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_files_are_created_with_the_process_umask(umask: int, tmp_path: Path) -> None:
    previous = os.umask(umask)
    try:
        write_atomic(tmp_path / "cert.json", "{}\n")
        append_lines(tmp_path / "lines.jsonl", ["{}"])
        conform.certify(backend="interp", ops=["primitive.math.add"], strength="fast", witnesses=50,
                        corpus=None).write(tmp_path / "real.json")
    finally:
        os.umask(previous)
    for name in ("cert.json", "lines.jsonl", "real.json", "lines.jsonl.lock"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name
