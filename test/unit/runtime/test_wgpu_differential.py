"""wgpu backend against the reference interpreter on random race-free programs
(vyre.testing.random_programs): every read_write buffer must agree byte for byte."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vyre.testing.backends import execute_interp
from vyre.testing.backends import execute_wgpu as execute
from vyre.testing.random_programs import random_case

SEEDS = range(1000, 1012)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program_matches_the_interpreter(seed: int, gpu_adapter: Any) -> None:
    case = random_case(seed)
    words = lambda: {k: v.copy() for k, v in case.words.items()}  # noqa: E731
    want = execute_interp(case.program, words(), case.dispatch, lengths=case.lengths)
    got = execute(case.program, words(), case.dispatch, lengths=case.lengths)
    assert sorted(got) == sorted(want)
    for name, words in want.items():
        assert np.array_equal(got[name], words), f"buffer `{name}` differs\n{case.describe()}"
