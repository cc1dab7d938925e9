"""vyre's passes, and the one registry of every pass vyre tools offer.

`get_all_passes()` maps a pass name to a factory returning the pass class; the
factories import on first call, so importing this package imports no pass.
It holds vyre's own passes (`get_vyre_passes()`: inline-calls, float-strict,
convert-to-vyre, lower-tensors; the ones the `xdsl.universe` entry point adds to plain
`xdsl-opt`) and the upstream xDSL passes that work on vyre IR (`canonicalize`
folds vyre's integer ops through their folders, `cse`, `dce`).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass

__all__ = ["get_all_passes", "get_vyre_passes"]


def get_vyre_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """vyre's own passes: name -> factory returning the pass class (imported on
    first call). None of the names is one of xDSL's."""

    def get_inline_calls() -> type[ModulePass]:
        from vyre.transforms import inline_calls

        return inline_calls.InlineCallsPass

    def get_float_strict() -> type[ModulePass]:
        from vyre.transforms import float_strict

        return float_strict.FloatStrictPass

    def get_convert_to_vyre() -> type[ModulePass]:
        from vyre.transforms import convert_to_vyre

        return convert_to_vyre.ConvertToVyrePass

    def get_lower_tensors() -> type[ModulePass]:
        from vyre.transforms import lower_tensors

        return lower_tensors.LowerTensorsPass

    return {
        "convert-to-vyre": get_convert_to_vyre,
        "float-strict": get_float_strict,
        "inline-calls": get_inline_calls,
        "lower-tensors": get_lower_tensors,
    }


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory returning the pass class (imported on first call):
    vyre's own passes and xDSL's canonicalize, cse and dce."""

    def get_canonicalize() -> type[ModulePass]:
        from xdsl.transforms.canonicalize import CanonicalizePass

        return CanonicalizePass

    def get_cse() -> type[ModulePass]:
        from xdsl.transforms.common_subexpression_elimination import (
            CommonSubexpressionElimination,
        )

        return CommonSubexpressionElimination

    def get_dce() -> type[ModulePass]:
        from xdsl.transforms.dead_code_elimination import DeadCodeElimination

        return DeadCodeElimination

    return {
        "canonicalize": get_canonicalize,
        "cse": get_cse,
        "dce": get_dce,
        **get_vyre_passes(),
    }
