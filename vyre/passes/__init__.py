"""vyre's own passes, registered lazily: importing this package imports no pass."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory returning the pass class (imported on first call)."""

    def get_inline_calls() -> type[ModulePass]:
        from vyre.passes import inline_calls

        return inline_calls.InlineCallsPass

    return {"inline-calls": get_inline_calls}
