"""The reference interpreter: the oracle every backend is tested against.

`execute(program, words, dispatch, *, lane_order="forward", lengths=None)` runs
a (validated) program on host words with the exact semantics of the spec
(conform.md ground truth, casts.md, execution-model.md, python-api.md "Floats")
and returns the final words of every read_write buffer; `lengths` gives the
element count of F16/BF16 buffers (two elements per word). It shares no
semantic code with the WGSL lowering nor with the soft-float rewrite.
"""

from __future__ import annotations

from vyre.runtime.interp.engine import LANE_ORDERS, execute
from vyre.runtime.interp.errors import InterpError

__all__ = ["LANE_ORDERS", "InterpError", "execute"]
