"""The error type of the reference interpreter."""

from __future__ import annotations


class InterpError(ValueError):
    """A program or input the reference interpreter cannot run, with the reason.

    Raised for broken invariants of a program that should have been rejected
    by validation (unknown buffers, unsupported casts, divergent barriers...)
    and for inputs outside the interpreter's conformance limits.
    """
