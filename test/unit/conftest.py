"""Shared fixtures. GPU tests never skip under CI=true: a missing adapter fails."""

from __future__ import annotations

import os

import pytest


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
