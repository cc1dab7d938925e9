"""A command whose standard output is closed ends quietly.

`vyre-opt kernel.mlir | head -1`: once `head` exits, the next write to the pipe
fails with `BrokenPipeError` (Python ignores SIGPIPE). An entry point wrapped in
`quiet_on_closed_pipe` then stops without a traceback (and without Python's
"Exception ignored" note when the last buffered output is flushed at exit) and
exits with status `EXIT_CLOSED_PIPE`, 141 = 128 + SIGPIPE, the status a shell
reports for a program the signal ended.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["EXIT_CLOSED_PIPE", "quiet_on_closed_pipe"]

EXIT_CLOSED_PIPE = 141

P = ParamSpec("P")
R = TypeVar("R")


def quiet_on_closed_pipe(main: Callable[P, R]) -> Callable[P, R]:
    """`main`, ending with `SystemExit(EXIT_CLOSED_PIPE)` and no traceback when
    its standard output is closed. Standard output is flushed when `main` ends
    (returns, exits or raises), so that a closed pipe is found here, not at
    interpreter exit."""

    @functools.wraps(main)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            try:
                result = main(*args, **kwargs)
            finally:  # on a return, an exit or an error alike
                sys.stdout.flush()
        except BrokenPipeError:
            _discard_stdout()
            raise SystemExit(EXIT_CLOSED_PIPE) from None
        return result

    return wrapper


def _discard_stdout() -> None:
    """Point file descriptor 1 at the null device, so that the flush Python
    makes at exit (of what is still buffered) cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fileno = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fileno)
        finally:
            os.close(null)
