"""The xDSL context that knows the dialects vyre programs use."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin

from vyre.dialects.vyre import Vyre


def vyre_context() -> Context:
    """A fresh context with `builtin` and `vyre` loaded."""
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Vyre)
    return ctx
