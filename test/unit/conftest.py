"""Shared fixtures. GPU tests never skip under CI=true: a missing adapter fails."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# Each test process (and every tool it starts) gets a vyre cache folder of its
# own, so the regression corpus vyre-conform replays and records is never the
# user's (set before any test module imports vyre.conform).
_CACHE = tempfile.mkdtemp(prefix="vyre-test-cache-")
os.environ["VYRE_CACHE_DIR"] = _CACHE


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_CACHE, ignore_errors=True)


def _ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def gpu_adapter():
    """The Vulkan adapter vyre runs on (lavapipe on a machine without a GPU)."""
    from vyre.runtime.adapters import choose_adapter

    try:
        return choose_adapter()
    except RuntimeError as error:
        if _ci():
            pytest.fail(f"CI=true and no Vulkan adapter: {error}")
        pytest.skip(f"no Vulkan adapter: {error}")
