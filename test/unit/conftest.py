"""Shared fixtures. GPU tests never skip under CI=true: a missing adapter fails."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

# The tests (and every tool they start) get a cache folder of their own, so the
# regression corpus vyre-conform replays and records is never the user's.
_CACHE = tempfile.mkdtemp(prefix="vyre-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)


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
