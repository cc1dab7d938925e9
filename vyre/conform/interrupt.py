"""SIGINT in a vyre-conform run: remembered, so that an interrupt can never
end as a finding.

Python raises `KeyboardInterrupt` wherever the main thread is when the signal
arrives; code between there and the CLI (a library's context manager, a
generator's cleanup) may turn it into an ordinary exception, which the
engine would record as a unit that cannot run, and the run would end with a
failing certificate instead of "interrupted". While `watching()` is active,
SIGINT also sets a flag: `run_one` re-raises `KeyboardInterrupt` for any
exception once the flag is set, and the CLI checks it before it writes a
certificate.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Generator
from contextlib import contextmanager
from types import FrameType

__all__ = ["interrupted", "watching"]

_flag = threading.Event()


def interrupted() -> bool:
    """Whether SIGINT arrived while `watching()` was active (this process)."""
    return _flag.is_set()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _flag.set()
    raise KeyboardInterrupt


@contextmanager
def watching() -> Generator[None]:
    """SIGINT sets the flag, then raises `KeyboardInterrupt` as usual (in the
    main thread only; elsewhere nothing changes). The flag is cleared on entry
    and the previous handler restored on exit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _flag.clear()
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
