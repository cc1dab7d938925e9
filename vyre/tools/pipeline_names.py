"""The names of a `-p` pipeline and a `-t` target, checked before they run.

xDSL reports an unknown pass as `Unrecognized passes: ['canonicalise']` and an
unknown option as `Provided arguments ["workgroup_sise"] not found in expected
arguments ["workgroup_size"]`. vyre-opt checks them first and names the closest
known pass or option, with options spelled as pipelines write them
(`workgroup-size`; xDSL takes `-` and `_` alike):

    vyre-opt: error: unknown pass `canonicalise`; did you mean `canonicalize`? (passes: ...)
    vyre-opt: error: pass `convert-to-vyre` has no option `workgroup-sise`; did you mean
        `workgroup-size`? (options: workgroup-size)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline, parse_spec
from xdsl.utils.target import Target

from vyre.cli.suggest import did_you_mean

__all__ = ["check_pipeline", "check_target", "option_names"]


def option_names(spec_class: type[ModulePass] | type[Target]) -> list[str]:
    """The options of a pass or target class, as a pipeline spells them."""
    fields = dataclasses.fields(spec_class)
    return sorted(f.name.replace("_", "-") for f in fields if f.init and f.name != "name")


def check_pipeline(available: Mapping[str, Callable[[], type[ModulePass]]], pipeline: str) -> None:
    """A `ValueError` naming the first unknown pass or option of `pipeline`."""
    for spec in parse_pipeline(pipeline):
        if spec.name not in available:
            raise ValueError(
                f"unknown pass `{spec.name}`{did_you_mean(spec.name, available)}"
                f" (passes: {', '.join(sorted(available))})"
            )
        _check_options(f"pass `{spec.name}`", available[spec.name](), spec)


def check_target(available: Mapping[str, Callable[[], type[Target]]], target: str) -> None:
    """A `ValueError` naming an unknown option of the target `target` (a known
    target's name: the driver checks names)."""
    spec = parse_spec(target)
    if spec.name in available:
        _check_options(f"target `{spec.name}`", available[spec.name](), spec)


def _check_options(what: str, spec_class: type[ModulePass] | type[Target], spec: ArgSpec) -> None:
    options = option_names(spec_class)
    for given in spec.parameters:
        if given.replace("_", "-") not in options:
            raise ValueError(
                f"{what} has no option `{given}`{did_you_mean(given.replace('_', '-'), options)}"
                f" (options: {', '.join(options) or 'none'})"
            )
