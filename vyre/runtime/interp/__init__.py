"""The reference interpreter: the oracle every backend is tested against.

`execute(program, words, dispatch, *, lane_order="forward", lengths=None,
budget=None)` runs
a (validated) program on host words with the exact semantics of the spec
(docs/semantics.md, docs/floats.md)
and returns the final words of every read_write buffer; `lengths` gives the
element count of F16/BF16 buffers (two elements per word). It shares no
semantic code with the WGSL lowering nor with the soft-float rewrite. Its work
is bounded (budget.py: `VYRE_INTERP_BUDGET`, or `budget=`): a run that would go
on for hours is refused with `InterpBudgetError`, before it starts where the
work can be predicted.
"""

from __future__ import annotations

from vyre.runtime.interp.budget import DEFAULT_BUDGET, ENV_VAR, InterpBudgetError
from vyre.runtime.interp.engine import LANE_ORDERS, execute
from vyre.runtime.interp.errors import InterpError

__all__ = ["DEFAULT_BUDGET", "ENV_VAR", "LANE_ORDERS", "InterpBudgetError", "InterpError", "execute"]
