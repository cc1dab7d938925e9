"""Fixtures of the lowering tests: naga (through wgpu) as the WGSL acceptance check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture(scope="session")
def naga_accepts(gpu_adapter: Any) -> Callable[[str], None]:
    """Create a shader module from WGSL text; raises wgpu's error when naga rejects it."""
    from vyre.runtime.wgpu_device import gpu_device

    device = gpu_device().device

    def check(wgsl: str) -> None:
        device.create_shader_module(label="lowering test", code=wgsl)

    return check
