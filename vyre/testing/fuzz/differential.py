"""The differential fuzzer: random valid programs on the interpreter and on wgpu.

Each input is a JSON case: a program (its text), host words of its buffers, the
dispatch and the F16/BF16 lengths, made by `vyre.testing.random_programs`.
The oracle: both backends return the same final words for every read_write
buffer (the interpreter is the reference; wgpu runs the lowered WGSL on
whatever adapter is present: lavapipe here, a GPU where there is one).
A failing case shrinks statement by statement (`vyre.testing.reduce`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from vyre.testing.fuzz.base import OracleFailure

__all__ = ["DifferentialFuzzer", "case_json", "check_case"]


def case_json(program_text: str, words: dict[str, Any], dispatch: tuple[int, int, int], lengths: dict[str, int]) -> bytes:
    return json.dumps(
        {
            "program": program_text,
            "words": {name: [int(w) for w in np.asarray(value).ravel()] for name, value in words.items()},
            "dispatch": list(dispatch),
            "lengths": lengths,
        },
        sort_keys=True,
    ).encode()


class DifferentialFuzzer:
    name = "differential"
    extension = "json"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def generate(self, index: int) -> bytes:
        from vyre.ir import print_ir
        from vyre.testing.random_programs import random_case

        case_seed = random.Random(f"differential:{self.seed}:{index}").randrange(2**62)
        case = random_case(case_seed)
        return case_json(print_ir(case.program), case.words, case.dispatch, case.lengths)

    def check(self, data: bytes) -> None:
        check_case(data)

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        from vyre import ir as vyre
        from vyre.testing.reduce import reduce_program

        case = json.loads(data)

        def encode(program: Any) -> bytes:
            return case_json(vyre.print_ir(program), case["words"], tuple(case["dispatch"]), case["lengths"])

        program = vyre.parse_ir(case["program"])
        return encode(reduce_program(program, lambda candidate: still_fails(encode(candidate)), max_checks=300))


def check_case(data: bytes) -> None:
    """Run the case on both backends; `OracleFailure` naming the first buffer
    and word where they differ."""
    from vyre import ir as vyre
    from vyre.testing.backends import execute_interp, execute_wgpu

    case = json.loads(data)
    program = vyre.parse_ir(case["program"], "<case>")
    words = {name: np.array(value, dtype=np.uint32) for name, value in case["words"].items()}
    dispatch = tuple(case["dispatch"])
    lengths = case["lengths"] or None
    expected = execute_interp(program, words, dispatch, lengths=lengths)
    found = execute_wgpu(program, words, dispatch, lengths=lengths)
    for name in expected:
        want, got = np.asarray(expected[name]), np.asarray(found[name])
        if want.shape != got.shape or not np.array_equal(want, got):
            differ = np.flatnonzero(want.ravel() != got.ravel()) if want.shape == got.shape else [0]
            at = int(differ[0])
            raise OracleFailure(
                f"buffer `{name}` word {at}: interp {int(want.ravel()[at]):#x},"
                f" wgpu {int(got.ravel()[at]):#x}" if want.shape == got.shape
                else f"buffer `{name}`: interp shape {want.shape}, wgpu {got.shape}"
            )
