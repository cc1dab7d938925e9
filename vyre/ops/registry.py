"""The op registry: built-in families, loaded on first use, plus user ops.

The registry is data: `add` stores a spec that `vyre.ops.register` admitted
(the admission gates live in `admission.py`). Importing it builds nothing; the
built-in specs are constructed the first time an id is looked up or listed.
Importing it also tells the builder how to type calls (`vyre.ir.set_call_typer`):
a `Call` without a spelled result type gets its op's declared output type.

It also keeps the catalog of kernel ops (whole-buffer ops, `vyre.kernels`),
which live in a layer above this one: the registry knows them only as
`KernelEntry` (an id, a version, never inlinable), so validation can name a
call to one (V020) and `get`/`known_op_ids` list them. The built-in kernel ops
come from the loader that the `vyre.kernels` package registers when it is
imported (`register_kernel_loader`), called on first use; `import vyre`, which
every `import vyre.…` runs first, imports it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from vyre.ir import DataType, set_call_typer
from vyre.ops.spec import OpSpec

__all__ = [
    "KernelEntry",
    "KernelLoader",
    "UnknownOpError",
    "add",
    "add_kernel",
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
    "register_kernel_loader",
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



class KernelEntry(Protocol):
    """What the registry knows of a kernel op (`vyre.kernels.spec.KernelSpec`)."""

    @property
    def id(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def inlinable(self) -> bool:
        """Always False: a kernel op is run with `ops.evaluate`, never called (V020)."""
        ...


KernelLoader = Callable[[], Iterable[KernelEntry]]
"""() -> the built-in kernel ops (every family of `vyre.kernels.families`)."""

_builtins: dict[str, OpSpec] | None = None
_user: dict[str, OpSpec] = {}
_builtin_kernels: dict[str, KernelEntry] | None = None
_user_kernels: dict[str, KernelEntry] = {}
_kernel_loader: KernelLoader | None = None
_generation = 0


def register_kernel_loader(loader: KernelLoader) -> None:
    """Install the loader of the built-in kernel ops (`vyre.kernels` does, when
    imported); it runs the first time a kernel op is looked up or listed."""
    global _kernel_loader, _builtin_kernels
    _kernel_loader = loader
    _builtin_kernels = None


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


def _load_kernels() -> dict[str, KernelEntry]:
    global _builtin_kernels
    if _builtin_kernels is None:
        if _kernel_loader is None:  # `vyre.kernels` not imported (yet): none known
            return {}
        specs: dict[str, KernelEntry] = {}
        for spec in _kernel_loader():
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


def get(op_id: str) -> OpSpec | KernelEntry:
    """The spec of `op_id` (an `OpSpec`, or a kernel op's `KernelSpec`);
    `UnknownOpError` (a KeyError) naming close ids otherwise."""
    spec = resolve(op_id) or resolve_kernel(op_id)
    if spec is None:
        candidates = difflib.get_close_matches(str(op_id), known_op_ids(), n=3, cutoff=0.6)
        raise UnknownOpError(op_id, candidates)
    return spec


def get_scalar(op_id: str) -> OpSpec:
    """The `OpSpec` of a scalar op; `UnknownOpError` for any other id (naming a
    kernel op as one)."""
    spec = get(op_id)
    if not isinstance(spec, OpSpec):
        raise UnknownOpError(
            op_id, [], f"`{op_id}` is a kernel op (a whole-buffer kernel), not a scalar op"
        )
    return spec


def get_kernel(op_id: str) -> KernelEntry:
    """The kernel op `op_id` (its `KernelSpec`; `vyre.kernels.catalog.get_kernel`
    is typed so); `UnknownOpError` for any other id."""
    spec = get(op_id)
    if isinstance(spec, OpSpec):
        raise UnknownOpError(op_id, [], f"`{op_id}` is a scalar op, not a kernel op")
    return spec


def resolve_kernel(op_id: str) -> KernelEntry | None:
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


def add_kernel(spec: KernelEntry) -> KernelEntry:
    """Store an admitted user kernel op (`vyre.ops.register` admits, then adds)."""
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
