"""The reference interpreter's work budget: no run may go on for hours.

Work is counted in *units* of about a nanosecond of interpreter time on a
2-core host: each machine step has a cost per lane and a fixed cost
(`COST` in machine.py, measured over random programs), and every batch of lanes
costs its setup (`BATCH_COST`) and its zeroed workgroup memory
(`WORKGROUP_MEMORY_COST`: per buffer made and per word zeroed; 2,000 buffers
of 8,192 words cost about 20 ms per batch of one workgroup, far more than the
lanes). The default budget, 1.5e10 units, is about
15 seconds of work (more on a loaded machine, less on a fast one); a count,
not a clock, so that a run is refused or not the same way everywhere.

The budget is checked three ways, the first two before the work is done:

1. before running: the work every invocation certainly does (its steps up to
   the first statement that may return, through blocks and loops with literal
   bounds) times the invocations of the dispatch, so that a dispatch of
   (2**31, 1, 1) or a loop to 2**32 - 1 with literal bounds is refused at once;
2. when a loop starts: its trip count (the most iterations any active lane
   needs) times the work of its body, if the body cannot return;
3. while running: every statement list adds its cost, and the run stops as soon
   as the total passes the budget.

Set it with `execute(..., budget=units)` or the environment variable
`VYRE_INTERP_BUDGET` (an integer, or `unlimited`); refusals raise
`InterpBudgetError`, a ValueError that names the work and the budget.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from vyre.runtime.interp.errors import InterpError

__all__ = [
    "BATCH_COST",
    "WORKGROUP_MEMORY_COST",
    "DEFAULT_BUDGET",
    "ENV_VAR",
    "InterpBudgetError",
    "WorkBudget",
    "resolve_budget",
    "workgroup_memory_cost",
]

ENV_VAR = "VYRE_INTERP_BUDGET"
DEFAULT_BUDGET = 15_000_000_000
UNITS_PER_SECOND = 1e9
BATCH_COST: tuple[float, int] = (20.0, 50_000)
"""Units per lane and in all of setting up one batch (ids, masks, memories)."""
WORKGROUP_MEMORY_COST: tuple[float, int] = (1.0, 2_000)
"""Units per word of workgroup memory a batch zeroes, and per workgroup buffer
it makes (measured on the 2-core host: 2,000 buffers of 8,192 words over 3,000
batches of one workgroup, 61 s; 20,000 buffers of one word over 782 batches,
35 s)."""


def workgroup_memory_cost(buffers: int, words: int) -> int:
    """Units of making `buffers` workgroup buffers of `words` words in all."""
    per_word, per_buffer = WORKGROUP_MEMORY_COST
    return int(per_word * words) + per_buffer * buffers


class InterpBudgetError(InterpError):
    """Work beyond the interpreter's budget (predicted, or reached while running)."""


def resolve_budget(budget: int | None) -> int | None:
    """The budget of one run: `budget` if given, else `VYRE_INTERP_BUDGET`, else
    `DEFAULT_BUDGET`; None means unlimited."""
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"budget must be a positive int (work units), got {budget!r}")
        if budget <= 0:
            raise ValueError(f"budget must be a positive number of work units, got {budget}")
        return budget
    text = os.environ.get(ENV_VAR, "").strip()
    if not text:
        return DEFAULT_BUDGET
    if text.lower() == "unlimited":
        return None
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = 0
    if value <= 0:
        raise ValueError(
            f"{ENV_VAR}={text!r} is not a budget: give a positive integer number of work"
            " units (e.g. 15000000000) or `unlimited`"
        )
    return value


def _seconds(units: float) -> str:
    seconds = units / UNITS_PER_SECOND
    if seconds < 10:
        return f"about {seconds:.2g} s"
    if seconds < 120:
        return f"about {seconds:.0f} s"
    if seconds < 2 * 86_400:
        return f"about {seconds / 3600:.1f} hours"
    return f"about {seconds / 86_400:.3g} days"


@dataclass
class WorkBudget:
    """The units one run may still spend (`limit` None: unlimited)."""

    limit: int | None
    used: int = 0

    def charge(self, units: int) -> None:
        self.used += units
        if self.limit is not None and self.used > self.limit:
            raise InterpBudgetError(
                f"the reference interpreter stopped after {self.used:.3g} work units, more than"
                f" its budget of {self.limit:.3g} ({_seconds(self.limit)}); the program's loops"
                f" run longer than that. {self._fix()}"
            )

    def predict(self, units: int, work: str) -> None:
        """Refuse before running work that would pass the budget."""
        if self.limit is not None and self.used + units > self.limit:
            raise InterpBudgetError(
                f"the reference interpreter refuses {work}: at least {units:.3g} work units"
                f" ({_seconds(units)}), more than its budget of {self.limit:.3g}"
                f" ({_seconds(self.limit)}). {self._fix()}"
            )

    @staticmethod
    def _fix() -> str:
        return (
            "Fix: run fewer invocations or loop iterations (tile the work over several"
            f" dispatches), or raise the budget ({ENV_VAR}=<units> or `unlimited`, or"
            " execute(..., budget=<units>))"
        )
