"""The surface a Python user meets first: `vyre.__version__`, `python -m vyre`,
a namespace that is the API and nothing else, a docstring on every builder (the
pdoc reference of `make docs`), and a short `repr` of a diagnostic."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tomllib
import types
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

import vyre
from vyre import installation
from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.runtime import adapters
from vyre.runtime.adapters import adapter_info

ROOT = Path(__file__).resolve().parents[2]


def _python_m_vyre(*args: str, prelude: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m vyre ARGS` after `prelude` (run in the same interpreter), with
    `VYRE_ADAPTER` only when `env` gives it."""
    code = (
        f"{prelude}\nimport runpy, sys\nsys.argv = ['vyre', *{list(args)!r}]\n"
        "runpy.run_module('vyre', run_name='__main__')\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "VYRE_ADAPTER"}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment | env,
    )


def _adapter_names() -> list[str]:
    return [adapter_info(adapter).name for adapter in adapters.vulkan_adapters()]


# -- the version ------------------------------------------------------------------------


def test_the_version_is_the_installed_distributions_and_pyprojects() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert vyre.__version__ == version("vyre") == pyproject


# -- the namespace ------------------------------------------------------------------------


def _extra_names(names: list[str], all_names: list[str]) -> list[str]:
    """The names that are neither in `__all__` nor dunders."""
    dunder = [n for n in names if n.startswith("__") and n.endswith("__")]
    return sorted(set(names) - set(all_names) - set(dunder))


def test_the_namespace_is_the_api_dunders_and_vyres_own_modules() -> None:
    """In a fresh interpreter: every name of `vyre` is in `__all__`, a dunder or a
    module of vyre itself (`vyre.ir`, `vyre.ops`...), never a helper (`Any`,
    `annotations`, an imported function's module)."""
    probe = (
        "import json, types, vyre\n"
        "print(json.dumps({n: type(v) is types.ModuleType and v.__name__ for n, v in vars(vyre).items()}))"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    names: dict[str, str | bool] = json.loads(run.stdout)
    assert set(vyre.__all__) <= set(names)
    extra = _extra_names(list(names), vyre.__all__)
    assert {name: names[name] for name in extra} == {name: f"vyre.{name}" for name in extra}
    assert not any(name.startswith("_") for name in extra)
    assert {"ir", "ops"} <= set(extra)
    assert "Any" not in names and "annotations" not in names and "evaluate" not in names


def test_the_namespace_after_other_imports_still_holds_only_modules_of_vyre() -> None:
    extra = _extra_names(dir(vyre), vyre.__all__)
    for name in extra:
        value = getattr(vyre, name)
        assert isinstance(value, types.ModuleType) and value.__name__ == f"vyre.{name}", name


def test_everything_in_all_is_there_and_public() -> None:
    for name in vyre.__all__:
        assert hasattr(vyre, name) and not name.startswith("_"), name
    assert len(set(vyre.__all__)) == len(vyre.__all__)


# -- builder docstrings -------------------------------------------------------------------


def _builders() -> list[tuple[str, Any]]:
    """(qualified name, function) of every public builder: the static constructors of
    `Expr` and `Node`, the class methods of `BufferDecl`."""
    found: list[tuple[str, Any]] = []
    for cls, kind in ((Expr, staticmethod), (Node, staticmethod), (BufferDecl, classmethod)):
        for name, member in vars(cls).items():
            if not name.startswith("_") and isinstance(member, kind):
                found.append((f"{cls.__name__}.{name}", member.__func__))
    return found


def test_every_public_builder_says_what_it_builds_and_raises() -> None:
    builders = _builders()
    assert len(builders) > 80  # every Expr and Node constructor, BufferDecl's forms
    undocumented = [name for name, function in builders if not inspect.getdoc(function)]
    assert undocumented == []
    silent = [
        name
        for name, function in builders
        if inspect.signature(function).parameters
        and "TypeError" not in (function.__doc__ or "")
        and "ValueError" not in (function.__doc__ or "")
    ]
    assert silent == []  # every builder that takes arguments names what bad ones raise


def test_programs_and_buffers_document_their_constructors_and_members() -> None:
    for cls in (BufferDecl, Program):
        assert "TypeError" in (cls.__doc__ or "") and "ValueError" in (cls.__doc__ or ""), cls
        for name, member in vars(cls).items():
            if name.startswith("_"):
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            if inspect.isfunction(member):
                assert inspect.getdoc(member), f"{cls.__name__}.{name}"


# -- python -m vyre -----------------------------------------------------------------------


def test_python_m_vyre_names_the_version_the_adapter_and_the_extras(gpu_adapter: Any) -> None:
    run = _python_m_vyre()
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    lines = run.stdout.splitlines()
    found = [adapter_info(adapter) for adapter in adapters.vulkan_adapters()]
    info = found[0]  # the best, with no VYRE_ADAPTER
    assert lines[0] == f"vyre {vyre.__version__}"
    assert lines[1] == f"adapter: {info.name}; backend {info.backend}; device type {info.adapter_type}"
    assert lines[2] == "adapters:"
    assert lines[3 : 3 + len(found)] == [
        f"  gpu:{index} {each.name}; backend {each.backend}; device type {each.adapter_type}"
        + (" (chosen)" if index == 0 else "")
        for index, each in enumerate(found)
    ]
    lines = lines[3 + len(found) :]
    assert lines[0] == "extras:"
    assert lines[1:] == [
        f"  gpu: wgpu {version('wgpu')}",
        f"  dask: dask {version('dask')}",
        f"  prove: cvc5 {version('cvc5')}",
    ]


def test_python_m_vyre_honours_vyre_adapter(gpu_adapter: Any) -> None:
    names = _adapter_names()
    last = names[-1]  # the last ranked: VYRE_ADAPTER, not the ranking, picks it
    wanted = last.upper()
    chosen = _python_m_vyre(VYRE_ADAPTER=wanted).stdout.splitlines()[1]
    first_match = next(name for name in names if wanted.lower() in name.lower())
    assert chosen.startswith(f"adapter: {first_match}; ")
    assert chosen.endswith(f"; chosen by VYRE_ADAPTER={wanted!r}")
    run = _python_m_vyre(VYRE_ADAPTER="no-such-adapter")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert run.stdout.splitlines()[1] == (
        "adapter: none (VYRE_ADAPTER='no-such-adapter' matches no Vulkan adapter"
        f" (have: {', '.join(names)}))"
    )


def test_python_m_vyre_picks_an_adapter_by_index(gpu_adapter: Any) -> None:
    found = [adapter_info(adapter) for adapter in adapters.vulkan_adapters()]
    last = len(found) - 1
    lines = _python_m_vyre(VYRE_ADAPTER=f"gpu:{last}").stdout.splitlines()
    info = found[last]
    assert lines[1] == (
        f"adapter: {info.name}; backend {info.backend}; device type {info.adapter_type};"
        f" chosen by VYRE_ADAPTER='gpu:{last}'"
    )
    assert lines[3 + last].endswith(" (chosen)") and lines[3 + last].startswith(f"  gpu:{last} ")
    run = _python_m_vyre(VYRE_ADAPTER=f"gpu:{len(found)}")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    lines = run.stdout.splitlines()
    assert lines[1].startswith(
        f"adapter: none (VYRE_ADAPTER='gpu:{len(found)}': no adapter has index {len(found)}; this host has"
    )
    assert "Fix: set VYRE_ADAPTER to" in lines[1]
    assert lines[2] == "adapters:" and not any(line.endswith("(chosen)") for line in lines)


def test_python_m_vyre_without_wgpu_says_why_there_is_no_adapter() -> None:
    hide_wgpu = (
        "import sys\n"
        "class NoWgpu:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'wgpu' or name.startswith('wgpu.'):\n"
        "            raise ModuleNotFoundError(\"No module named 'wgpu'\", name='wgpu')\n"
        "sys.meta_path.insert(0, NoWgpu())\n"
    )
    run = _python_m_vyre(prelude=hide_wgpu)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    adapter_line = run.stdout.splitlines()[1]
    assert adapter_line.startswith("adapter: none (the wgpu backend needs wgpu")
    assert "pip install 'vyre[gpu]'" in adapter_line


def test_without_a_vulkan_adapter_the_adapter_is_none_with_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(adapters, "vulkan_adapters", lambda: ())
    assert installation.adapter() == (
        "none (no Vulkan adapter found. Fix: install a GPU driver, or Mesa's lavapipe "
        "(Debian: apt-get install mesa-vulkan-drivers).)"
    )


def test_python_m_vyre_help() -> None:
    run = _python_m_vyre("--help")
    assert run.returncode == 0 and run.stdout.startswith("usage: python -m vyre"), run.stderr


def test_extras_list_each_feature_extra_with_its_packages_or_not_installed() -> None:
    requirements = [
        "xdsl<0.75,>=0.74.0",
        'wgpu<0.33,>=0.32.0; extra == "gpu"',
        'dask[distributed]>=2024.1; extra == "dask"',
        "cvc5>=1.1; extra == 'prove'",
        'vyre[dask,gpu,prove]; extra == "all"',
        'pytest>=8; extra == "dev"',
    ]
    versions = {"wgpu": "0.32.0", "dask": "2024.1.0"}
    found = installation.extras_of(requirements, versions.get)
    assert [str(extra) for extra in found] == [
        "gpu: wgpu 0.32.0",
        "dask: dask 2024.1.0",
        "prove: cvc5 not installed",
    ]


def test_the_extras_are_pyprojects() -> None:
    """`python -m vyre` lists the extras of the metadata, which pyproject.toml writes."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {name for name in project["optional-dependencies"] if name not in ("all", "dev")}
    assert {extra.name for extra in installation.extras()} == declared


# -- repr(Diagnostic) ---------------------------------------------------------------------

STORE = "vyre IR validation: store to unknown buffer `nowhere`. Fix: declare it in Program::buffers."
SIZE = "vyre IR validation: workgroup_size[0] is 0. Fix: all workgroup dimensions must be >= 1."


def _invalid() -> Program:
    return Program(
        [BufferDecl.read_write("out", 0, DataType.U32)],
        (0, 1, 1),
        [Node.block([Node.store("nowhere", Expr.u32(0), Expr.u32(1))])],
        name="k",
    )


def test_a_diagnostics_repr_is_its_rule_place_and_message() -> None:
    size, store = vyre.validate(_invalid())
    assert repr(size) == f"Diagnostic(V003 at kernel 'k': {SIZE})"
    assert repr(store) == f"Diagnostic(V004 at vyre.store in kernel 'k': {STORE})"
    assert str(store) == store.message == STORE and store.rule == "V004"
    assert repr(vyre.Diagnostic("V004", STORE)) == f"Diagnostic(V004: {STORE})"


def test_a_parsed_programs_diagnostics_name_the_source_location() -> None:
    parsed = vyre.parse_ir(vyre.print_ir(_invalid()), "k.vyre")
    size, store = vyre.validate(parsed)
    assert repr(size) == f"Diagnostic(V003 at kernel 'k' (k.vyre:2:3): {SIZE})"
    assert repr(store) == f"Diagnostic(V004 at vyre.store in kernel 'k' (k.vyre:6:7): {STORE})"
    assert len(repr(store)) < 200
