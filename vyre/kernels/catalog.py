"""The kernel ops in the op registry: the built-in families, typed lookups and
`register`.

The registry (`vyre.ops.registry`, a layer below) keeps every kernel op as a
`KernelEntry`; this module fills it with the built-in ones (`builtin_kernels`,
the loader that importing `vyre.kernels` installs) and reads it back as
`KernelSpec`s. A family is a module of `vyre.kernels.families` that defines
`KERNELS` (shared helpers such as `common.py` define none): a new family is a
new module there, with no list to edit.
"""

from __future__ import annotations

import importlib
import pkgutil

from vyre.kernels.admission import admit_kernel
from vyre.kernels.spec import KernelSpec
from vyre.ops import registry
from vyre.ops.admission import admit
from vyre.ops.spec import OpSpec

__all__ = ["builtin_kernels", "family_modules", "get", "get_kernel", "register", "resolve_kernel"]

FAMILIES = "vyre.kernels.families"


def family_modules() -> tuple[str, ...]:
    """Every module of `vyre.kernels.families` that defines `KERNELS`, sorted."""
    package = importlib.import_module(FAMILIES)
    names: list[str] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.ispkg:
            continue
        name = f"{FAMILIES}.{info.name}"
        if hasattr(importlib.import_module(name), "KERNELS"):
            names.append(name)
    return tuple(names)


def builtin_kernels() -> tuple[KernelSpec, ...]:
    """The built-in kernel ops, family by family (the registry's kernel loader)."""
    specs: list[KernelSpec] = []
    for name in family_modules():
        kernels: tuple[KernelSpec, ...] = importlib.import_module(name).KERNELS
        specs.extend(kernels)
    return tuple(specs)


def _typed(op_id: str, entry: registry.KernelEntry) -> KernelSpec:
    if not isinstance(entry, KernelSpec):  # only this package adds kernel entries
        raise TypeError(f"kernel op `{op_id}` is a {type(entry).__name__}, not a KernelSpec")
    return entry


def get(op_id: str) -> OpSpec | KernelSpec:
    """The spec of `op_id` (an `OpSpec` or a `KernelSpec`; `ops.get`);
    `UnknownOpError` (a KeyError) naming close ids otherwise."""
    spec = registry.get(op_id)
    return spec if isinstance(spec, OpSpec) else _typed(op_id, spec)


def get_kernel(op_id: str) -> KernelSpec:
    """The `KernelSpec` of a kernel op; `UnknownOpError` (a KeyError) for any other id."""
    return _typed(op_id, registry.get_kernel(op_id))


def resolve_kernel(op_id: str) -> KernelSpec | None:
    """The `KernelSpec` of `op_id`, or None."""
    entry = registry.resolve_kernel(op_id)
    return None if entry is None else _typed(op_id, entry)


def register(spec: OpSpec | KernelSpec) -> OpSpec | KernelSpec:
    """Admit `spec` (a scalar `OpSpec` or a `KernelSpec`) through the admission
    gates and add it to the registry (`vyre.ops.register`).

    Raises `vyre.AdmissionError` naming the failed gate."""
    if isinstance(spec, KernelSpec):
        admitted = admit_kernel(spec)
        registry.add_kernel(admitted)
        return admitted
    return registry.add(admit(spec))
