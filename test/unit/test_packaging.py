"""vyre as a package other projects depend on (docs/mlir.md): the dialect and the
lowering import no GPU stack, the metadata names the licence and the extras,
py.typed ships, and a consumer's pyright resolves `vyre` from the editable
install of the project's environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GPU_STACK = ("wgpu", "dask", "distributed", "torch")


def _imported_after(statement: str) -> list[str]:
    probe = (
        f"import sys\n{statement}\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(GPU_STACK)!r}))"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().replace("'", '"'))


@pytest.mark.parametrize(
    "statement",
    [
        "import vyre.dialects.vyre",
        "import vyre.lowering.wgsl",
        "import vyre, vyre.pipeline, vyre.transforms.convert_to_vyre, vyre.universe",
        "import vyre.tools.vyre_opt",
    ],
)
def test_the_compiler_imports_no_gpu_stack(statement: str) -> None:
    assert _imported_after(statement) == []


def test_the_probe_sees_a_gpu_import() -> None:
    assert _imported_after("import vyre.dialects.vyre, wgpu") == ["wgpu"]


def test_extras_and_pins() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dependencies = " ".join(project["dependencies"])
    assert "wgpu" not in dependencies and "xdsl>=0.74.0,<0.75" in dependencies
    extras = project["optional-dependencies"]
    assert any(req.startswith("wgpu") for req in extras["gpu"])
    assert any(req.startswith("dask") for req in extras["dask"])
    assert set(extras["all"]) == {"vyre[gpu,dask,prove]"}
    pins = {
        line.split("==")[0]: line.split("==")[1]
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    assert pins["xdsl"] == version("xdsl") == "0.74.0"
    assert pins["wgpu"] == version("wgpu")


def test_licence_metadata_and_py_typed() -> None:
    meta = metadata("vyre")
    assert meta["License-Expression"] == "Apache-2.0"
    assert "Apache License" in (ROOT / "LICENSE").read_text()[:200]
    assert (ROOT / "vyre" / "py.typed").exists()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["vyre"]


def test_a_consumer_projects_pyright_resolves_vyre(tmp_path: Path) -> None:
    """A project outside the repository, whose pyright config points at the
    venv vyre is installed in (editable, as `make setup` installs it)."""
    pyright = Path(sys.executable).parent / "pyright"
    if not pyright.exists():
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI=true and pyright is not installed (make typecheck installs it)")
        pytest.skip("pyright is not installed (make typecheck installs it)")
    venv = Path(sys.prefix)
    (tmp_path / "pyrightconfig.json").write_text(
        json.dumps(
            {
                "venvPath": str(venv.parent),
                "venv": venv.name,
                "typeCheckingMode": "strict",
                "include": ["use_vyre.py"],
            }
        )
    )
    (tmp_path / "use_vyre.py").write_text(
        "from vyre.dialects.vyre import KernelOp\n"
        "from vyre.ir import DataType\n\n\n"
        "def name(kernel: KernelOp) -> str:\n"
        "    return kernel.sym_name.data\n\n\n"
        "kind: DataType = DataType.U32\n"
        "wrong: int = name  # the one error: proves pyright knows KernelOp's type\n"
    )
    run = subprocess.run(
        [str(pyright), "-p", str(tmp_path / "pyrightconfig.json"), "--outputjson"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    report = json.loads(run.stdout)
    messages = [d["message"] for d in report["generalDiagnostics"]]
    assert not any("could not be resolved" in m or "is unknown" in m for m in messages), messages
    assert len(messages) == 1 and "(kernel: KernelOp) -> str" in messages[0], messages


def test_without_wgpu_the_gpu_backend_names_the_extra(tmp_path: Path) -> None:
    """`pip install vyre` (no extra): the interpreter runs, the wgpu backend says
    which extra it needs (wgpu hidden from the import system in a subprocess)."""
    probe = (
        "import sys\n"
        "class NoWgpu:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'wgpu' or name.startswith('wgpu.'):\n"
        "            raise ModuleNotFoundError(\"No module named 'wgpu'\", name='wgpu')\n"
        "sys.meta_path.insert(0, NoWgpu())\n"
        "import numpy as np, vyre\n"
        "from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program\n"
        "p = Program(buffers=[BufferDecl.read_write('o', 0, DataType.U32)], workgroup_size=(1, 1, 1),\n"
        "            entry=[N.store('o', E.u32(0), E.u32(9))])\n"
        "print(vyre.run(p, {}, dispatch=(1, 1, 1), outputs={'o': 1}, backend='interp')['o'][0])\n"
        "try:\n"
        "    vyre.run(p, {}, dispatch=(1, 1, 1), outputs={'o': 1}, backend='wgpu')\n"
        "except RuntimeError as error:\n"
        "    print(error)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "9"
    assert "pip install 'vyre[gpu]'" in lines[1]


def test_the_editable_install_is_a_static_path_without_compat_mode() -> None:
    """`make setup` installs `-e .` in setuptools' default mode, which is a static
    path (a .pth naming the project root, which pyright follows) only because
    pyproject.toml maps the package from the project root; the transitional
    `editable_mode=compat` (a deprecation warning of setuptools) is not used."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"": "."}
    assert "editable_mode" not in (ROOT / "Makefile").read_text()
