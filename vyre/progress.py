"""Long stages made visible: what vyre is doing when a compile takes a while.

The pipeline and the runtime wrap their slow stages (float-strict, the WGSL
lowering, the GPU pipeline's creation) in `stage(...)`. Nothing is printed unless
a tool asked for it with `report_to(stream)` (`vyre-run` and `vyre-conform` do,
on stderr); then a stage still running after `DELAY` seconds says so once, and
says how long it took when it ends:

```
vyre: lowering kernel @big to WGSL ...
vyre: lowering kernel @big to WGSL: 1.8 s
```

Stages that end within `DELAY` print nothing, so fast runs stay quiet. The
Python API stays silent unless asked.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["DELAY", "report_to", "stage"]

DELAY = 1.0
"""Seconds a stage runs before it is reported."""

_stream: TextIO | None = None
_lock = threading.Lock()


def report_to(stream: TextIO | None) -> TextIO | None:
    """Report long stages to `stream` (None: stop reporting); returns the
    previous stream."""
    global _stream
    with _lock:
        previous, _stream = _stream, stream
    return previous


def _write(stream: TextIO, text: str) -> None:
    try:
        with _lock:
            stream.write(text + "\n")
            stream.flush()
    except (OSError, ValueError):  # a closed pipe or stream: reporting is best effort
        pass


@contextmanager
def stage(what: str) -> Generator[None]:
    """Run the body as the stage `what` (`lowering kernel @k to WGSL`)."""
    stream = _stream
    if stream is None:
        yield
        return
    started = time.perf_counter()
    announced = threading.Event()

    def announce() -> None:
        announced.set()
        _write(stream, f"vyre: {what} ...")

    timer = threading.Timer(DELAY, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if announced.is_set():
            _write(stream, f"vyre: {what}: {time.perf_counter() - started:.1f} s")
