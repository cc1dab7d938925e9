"""The newcomer examples (examples/histogram.py, examples/workgroup_reduce.py) run on
both backends and agree with their numpy oracles (each example exits 1 if not)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"vyre_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["interp", "wgpu"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "wgpu":
        request.getfixturevalue("gpu_adapter")
    return request.param


@pytest.mark.parametrize(("n", "bins"), [(1000, 16), (130, 2), (77, 256)])
def test_histogram(backend: str, n: int, bins: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert load("histogram").main(["--backend", backend, "--n", str(n), "--bins", str(bins)]) == 0
    assert "ok: equal to numpy.bincount" in capsys.readouterr().out


@pytest.mark.parametrize("n", [1, 63, 64, 1000])
def test_workgroup_reduce(backend: str, n: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert load("workgroup_reduce").main(["--backend", backend, "--n", str(n)]) == 0
    assert "ok: equal to numpy.add.reduceat" in capsys.readouterr().out


def test_histogram_rejects_bad_bins(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        load("histogram").main(["--bins", "3"])
    assert info.value.code == 2
    assert "--bins must be a power of two >= 2" in capsys.readouterr().err
