"""The op registry: built-in families, loaded on first use, plus user ops.

The registry is data: `add` stores a spec that `vyre.ops.register` admitted
(the admission gates live in `admission.py`). Importing it builds nothing; the
built-in specs are constructed the first time an id is looked up or listed.
Importing it also tells the builder how to type calls (`vyre.ir.set_call_typer`):
a `Call` without a spelled result type gets its op's declared output type.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from vyre.ir import DataType, set_call_typer
from vyre.ops.kernel import KernelSpec
from vyre.ops.spec import OpSpec

__all__ = [
    "UnknownOpError",
    "add",
    "builtin_op_ids",
    "generation",
    "get",
    "get_kernel",
    "get_scalar",
    "builtin_kernel_op_ids",
    "kernel_op_ids",
    "resolve_kernel",
    "scalar_op_ids",
    "known_op_ids",
    "resolve",
    "unregister",
]

_BUILTIN_FAMILIES = (
    "vyre.ops.primitive.math",
    "vyre.ops.primitive.bitwise",
    "vyre.ops.primitive.compare",
    "vyre.ops.primitive.logical",
    "vyre.ops.primitive.float",
)

def _kernel_family_modules() -> tuple[str, ...]:
    """Every module of `vyre.ops.kernels` that defines `KERNELS` (shared helpers
    such as `common.py` define none), sorted: a new family is a new module there,
    with no list to edit."""
    import importlib
    import pkgutil

    package = importlib.import_module("vyre.ops.kernels")
    names: list[str] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.ispkg:
            continue
        name = f"vyre.ops.kernels.{info.name}"
        if hasattr(importlib.import_module(name), "KERNELS"):
            names.append(name)
    return tuple(names)


_builtins: dict[str, OpSpec] | None = None
_user: dict[str, OpSpec] = {}
_builtin_kernels: dict[str, KernelSpec] | None = None
_user_kernels: dict[str, KernelSpec] = {}
_generation = 0


def generation() -> int:
    """A counter bumped by every register/unregister: caches of lowered programs
    that contain calls key on it, so a re-registered op id never runs stale code."""
    return _generation


class UnknownOpError(KeyError):
    """An op id that is not registered; the message names the closest ids."""

    def __init__(self, op_id: object, candidates: list[str], message: str | None = None):
        self.op_id = op_id
        self.candidates = candidates
        hint = f"; did you mean {', '.join(f'`{c}`' for c in candidates)}?" if candidates else ""
        self.message = message or f"unknown op `{op_id}`{hint} (ops.known_op_ids() lists every op)"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


def _load_builtins() -> dict[str, OpSpec]:
    global _builtins
    if _builtins is None:
        import importlib

        specs: dict[str, OpSpec] = {}
        for module_name in _BUILTIN_FAMILIES:
            module = importlib.import_module(module_name)
            for spec in module.SPECS:
                if spec.id in specs:
                    raise RuntimeError(f"built-in op `{spec.id}` is defined twice")
                specs[spec.id] = spec
        _builtins = specs
    return _builtins


def _load_kernels() -> dict[str, KernelSpec]:
    global _builtin_kernels
    if _builtin_kernels is None:
        import importlib

        specs: dict[str, KernelSpec] = {}
        for module_name in _kernel_family_modules():
            module = importlib.import_module(module_name)
            for spec in module.KERNELS:
                if spec.id in specs or spec.id in _load_builtins():
                    raise RuntimeError(f"built-in op `{spec.id}` is defined twice")
                specs[spec.id] = spec
        _builtin_kernels = specs
    return _builtin_kernels


def builtin_op_ids() -> tuple[str, ...]:
    """The built-in scalar op ids, sorted (`builtin_kernel_op_ids` lists the kernel ops)."""
    return tuple(sorted(_load_builtins()))


def builtin_kernel_op_ids() -> tuple[str, ...]:
    return tuple(sorted(_load_kernels()))


def known_op_ids() -> tuple[str, ...]:
    """Every registered op id (scalar and kernel ops), sorted."""
    return tuple(sorted({**_load_builtins(), **_user, **_load_kernels(), **_user_kernels}))


def scalar_op_ids() -> tuple[str, ...]:
    """The ids of the scalar ops (inlinable compositions and intrinsics), sorted."""
    return tuple(sorted({**_load_builtins(), **_user}))


def kernel_op_ids() -> tuple[str, ...]:
    """The ids of the kernel ops (whole-buffer kernels), sorted."""
    return tuple(sorted({**_load_kernels(), **_user_kernels}))


def get(op_id: str) -> OpSpec | KernelSpec:
    """The spec of `op_id` (an `OpSpec` or a `KernelSpec`); `UnknownOpError` (a
    KeyError) naming close ids otherwise."""
    spec = resolve(op_id) or resolve_kernel(op_id)
    if spec is None:
        candidates = difflib.get_close_matches(str(op_id), known_op_ids(), n=3, cutoff=0.6)
        raise UnknownOpError(op_id, candidates)
    return spec


def get_scalar(op_id: str) -> OpSpec:
    """The `OpSpec` of a scalar op; `UnknownOpError` for any other id (naming a
    kernel op as one)."""
    spec = get(op_id)
    if isinstance(spec, KernelSpec):
        raise UnknownOpError(
            op_id, [], f"`{op_id}` is a kernel op (a whole-buffer kernel), not a scalar op"
        )
    return spec


def get_kernel(op_id: str) -> KernelSpec:
    """The `KernelSpec` of a kernel op; `UnknownOpError` for any other id."""
    spec = get(op_id)
    if isinstance(spec, OpSpec):
        raise UnknownOpError(op_id, [], f"`{op_id}` is a scalar op, not a kernel op")
    return spec


def resolve_kernel(op_id: str) -> KernelSpec | None:
    """The kernel spec of `op_id`, or None."""
    if not isinstance(op_id, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        return None
    return _user_kernels.get(op_id) or _load_kernels().get(op_id)


def resolve(op_id: str, extra: Mapping[str, OpSpec] | None = None) -> OpSpec | None:
    """The spec of `op_id` (looked up in `extra` first), or None."""
    if extra and op_id in extra:
        return extra[op_id]
    if not isinstance(op_id, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        return None
    return _user.get(op_id) or _load_builtins().get(op_id)


def add(spec: OpSpec) -> OpSpec:
    """Store an admitted user op (`vyre.ops.register` admits, then adds)."""
    global _generation
    _user[spec.id] = spec
    _generation += 1
    return spec


def add_kernel(spec: KernelSpec) -> KernelSpec:
    """Store an admitted user kernel op."""
    _user_kernels[spec.id] = spec
    return spec


def output_type(op_id: str) -> DataType | None:
    """The declared output type of a registered op, None for an unknown id."""
    spec = resolve(op_id)
    return None if spec is None else spec.signature.output


set_call_typer(output_type)


def unregister(op_id: str) -> None:
    """Remove a user-registered op. Built-in ops cannot be removed."""
    if op_id in _load_builtins() or op_id in _load_kernels():
        raise ValueError(
            f"`{op_id}` is a built-in op and cannot be unregistered;"
            " only ops added with ops.register can be removed"
        )
    global _generation
    if op_id in _user_kernels:
        del _user_kernels[op_id]
        return
    if op_id not in _user:
        get(op_id)  # raises UnknownOpError with suggestions
    del _user[op_id]
    _generation += 1
