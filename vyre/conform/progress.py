"""A one-line progress bar on stderr for long certification runs."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from vyre.conform.plan import Unit

__all__ = ["Progress"]

WIDTH = 28


class Progress:
    """Progress by estimated cost; redrawn at most 10 times a second."""

    def __init__(
        self, total: float, done: float, units: int, enabled: bool, stream: TextIO | None = None
    ):
        self.total = max(total, 1.0)
        self.done = done
        self.units = units
        self.finished = 0
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.start_done = done
        self._last = 0.0
        self._drawn = False

    def advance(self, unit: Unit) -> None:
        self.done += unit.cost + 1.0
        self.finished += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.finished < self.units:
            return
        self._last = now
        fraction = min(1.0, self.done / self.total)
        elapsed = now - self.started
        gained = self.done - self.start_done
        remaining = (self.total - self.done) * elapsed / gained if gained > 0 else 0.0
        filled = int(WIDTH * fraction)
        label = f"{unit.kind} {unit.op}"[:48]
        line = (
            f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {100 * fraction:5.1f}%"
            f" {self.finished}/{self.units} units {elapsed:6.1f}s ETA {remaining:5.0f}s  {label:<48}"
        )
        self.stream.write(line)
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
