"""The linear walk the lowering uses: `vyre.transforms.walk.operations`
(`list(op.walk())` without xDSL's generator recursion), shared with the
pipeline's passes."""

from __future__ import annotations

from vyre.transforms.walk import operations

__all__ = ["operations"]
