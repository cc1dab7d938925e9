"""An interrupt is never a finding: after SIGINT, an exception a unit raises
(an interrupt some code turned into an ordinary error) is the interrupt again."""

from __future__ import annotations

import os
import signal

import pytest

from vyre.conform import interrupt
from vyre.conform.executors import run_one
from vyre.conform.results import UnitError


class _Failing:
    def run_unit(self, unit: object) -> list[object]:
        raise RuntimeError("generator didn't stop after throw()")


def test_an_error_before_any_interrupt_is_a_finding() -> None:
    with interrupt.watching():
        records = run_one(_Failing(), object())  # type: ignore[arg-type]
    assert len(records) == 1 and isinstance(records[0], UnitError)
    assert "RuntimeError" in str(records[0])
    assert not interrupt.interrupted()


def test_an_error_after_an_interrupt_is_the_interrupt() -> None:
    with interrupt.watching():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
        assert interrupt.interrupted()
        with pytest.raises(KeyboardInterrupt):
            run_one(_Failing(), object())  # type: ignore[arg-type]
    previous = signal.getsignal(signal.SIGINT)
    assert previous is not interrupt._on_sigint  # pyright: ignore[reportPrivateUsage]


def test_watching_clears_the_flag_of_an_earlier_run() -> None:
    with interrupt.watching():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert interrupt.interrupted()
    with interrupt.watching():
        assert not interrupt.interrupted()
