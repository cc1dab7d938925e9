"""The names of a `-p` pipeline and a `-t` target, checked before they run.

xDSL reports an unknown pass as `Unrecognized passes: ['canonicalise']` and an
unknown option as `Provided arguments ["workgroup_sise"] not found in expected
arguments ["workgroup_size"]`. vyre-opt checks them first and names the closest
known pass or option, with options spelled as pipelines write them
(`workgroup-size`; xDSL takes `-` and `_` alike):

    vyre-opt: error: unknown pass `canonicalise`; did you mean `canonicalize`? (passes: ...)
    vyre-opt: error: pass `convert-to-vyre` has no option `workgroup-sise`; did you mean
        `workgroup-size`? (options: workgroup-size)
    vyre-opt: error: pass `convert-to-vyre`: option `workgroup-size` takes an integer, got true

(xDSL would take `true` for an integer: a bool is an int in Python.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import get_args, get_type_hints

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
    try:
        hints = get_type_hints(spec_class)
    except (NameError, TypeError):  # annotations it cannot resolve: xDSL checks the values
        hints = {}
    for given, values in spec.parameters.items():
        option = given.replace("_", "-")
        if option not in options:
            raise ValueError(
                f"{what} has no option `{given}`{did_you_mean(option, options)}"
                f" (options: {', '.join(options) or 'none'})"
            )
        kind = _scalar_kind(hints.get(option.replace("-", "_")))
        if kind is not None and not (len(values) == 1 and _is(values[0], kind)):
            shown = ",".join(str(v).lower() if isinstance(v, bool) else repr(v) for v in values)
            raise ValueError(f"{what}: option `{option}` takes {_KINDS[kind]}, got {shown or 'nothing'}")


_KINDS: dict[type, str] = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _scalar_kind(annotation: object) -> type | None:
    """The one scalar type an option takes (`int`, `int | None`: int), or None."""
    kinds = [t for t in (get_args(annotation) or (annotation,)) if t is not type(None)]
    return kinds[0] if len(kinds) == 1 and isinstance(kinds[0], type) and kinds[0] in _KINDS else None


def _is(value: object, kind: type) -> bool:
    """`value` (as xDSL parsed it) is of `kind`; a bool is no number here."""
    if kind is bool or isinstance(value, bool):
        return kind is bool and isinstance(value, bool)
    return isinstance(value, (int, float) if kind is float else kind)
