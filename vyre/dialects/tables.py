"""Per-op knowledge outside the op class: tables keyed by the dialect's op classes
(or by the operator kinds of `vyre.binop`/`vyre.unop`).

An op's own facts (its name, short name, arity, result rule, folding) live on its
class in `vyre.dialects.vyre`. What another layer knows about the op — its
soft-float algorithm, the interpreter's oracle, its WGSL emission, its SMT
translation — is an entry of one `OpTable` of that layer, registered beside the
code it names, in the style of xDSL's `@impl(OpClass)`:

```python
SOFT_FLOAT = OpTable[type[Operation], Algorithm]("soft-float algorithms", strict_float_ops)

@SOFT_FLOAT.register(d.FSqrtOp)
def fsqrt(...): ...
```

Every table declares its scope (which ops of the dialect it must cover). Every
table ever made is listed by `all_tables()`, so one test finds, for every table,
any op of its scope without an entry, and names both (`OpTable.missing`): a new op
that a consumer forgot fails that test instead of being silently skipped.

Lookups by op class follow the class's MRO (an entry for a base class covers its
subclasses unless a subclass has its own) and are cached per class, so a walker's
dispatch is one dict lookup. `Dispatch` is the walker form: handlers
`(context, op, ...) -> result` whose `op` parameter is typed by the class they
are registered for.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from enum import Enum
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar


__all__ = ["Dispatch", "OpTable", "all_tables", "key_name"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
C = TypeVar("C")
R = TypeVar("R")
O = TypeVar("O")
P = ParamSpec("P")

_TABLES: list[OpTable[Any, Any]] = []


def all_tables() -> tuple[OpTable[Any, Any], ...]:
    """Every table made so far (import a layer's modules to make its tables)."""
    return tuple(_TABLES)


def key_name(key: object) -> str:
    """How a key is named in messages: the op's name (`vyre.fadd`), or the
    kind's spelling (`add`)."""
    if isinstance(key, type):
        name = getattr(key, "name", None)
        return name if isinstance(name, str) else key.__name__
    if isinstance(key, Enum):
        return f"{type(key).__name__}.{key.name}"
    return repr(key)


class OpTable(Generic[K, V]):
    """Entries keyed by op class or operator kind, with a declared scope."""

    def __init__(self, name: str, scope: Callable[[], Iterable[K]]):
        self.name = name
        """What the table holds, e.g. "soft-float algorithms"."""
        self._scope = scope
        self._entries: dict[K, V] = {}
        self._resolved: dict[K, V | None] = {}
        _TABLES.append(self)

    def add(self, key: K, value: V) -> None:
        """Register `value` for `key`; a second entry for one key is a bug."""
        if key in self._entries:
            raise ValueError(f"{key_name(key)} already has an entry in the {self.name}")
        self._entries[key] = value
        self._resolved.clear()

    def register(self, *keys: K) -> Callable[[V], V]:
        """Decorator: register the decorated value for every key given."""

        def decorate(value: V) -> V:
            for key in keys:
                self.add(key, value)
            return value

        return decorate

    def get(self, key: K) -> V | None:
        """The entry of `key`; for an op class, of the nearest class of its MRO
        that has one; None when there is none."""
        try:
            return self._resolved[key]
        except KeyError:
            pass
        value = self._entries.get(key)
        if value is None and isinstance(key, type):
            for base in key.__mro__[1:]:
                value = self._entries.get(base)  # pyright: ignore[reportArgumentType]
                if value is not None:
                    break
        self._resolved[key] = value
        return value

    def __getitem__(self, key: K) -> V:
        value = self.get(key)
        if value is None:
            raise KeyError(f"{key_name(key)} has no entry in the {self.name}")
        return value

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # pyright: ignore[reportArgumentType]

    def keys(self) -> Iterator[K]:
        """The keys registered directly (not those covered through a base class)."""
        return iter(tuple(self._entries))

    def scope(self) -> tuple[K, ...]:
        """The keys this table must cover."""
        return tuple(self._scope())

    def missing(self) -> tuple[str, ...]:
        """The names of the keys in scope without an entry (empty when complete)."""
        return tuple(key_name(key) for key in self.scope() if self.get(key) is None)


class Dispatch(OpTable[type[Any], Callable[..., R]], Generic[C, P, R]):
    """Handlers `(context, op, *args) -> result` by op class (or any class: the
    builder's expression trees use it too): the one dispatch style of the
    walkers (validation, interpreter, lowering, SMT, the builder)."""

    def on(
        self, *ops: type[O]
    ) -> Callable[[Callable[Concatenate[C, O, P], R]], Callable[Concatenate[C, O, P], R]]:
        """Decorator: the handler of `ops` (its `op` parameter has their type)."""

        def decorate(
            handler: Callable[Concatenate[C, O, P], R],
        ) -> Callable[Concatenate[C, O, P], R]:
            for op in ops:
                self.add(op, handler)
            return handler

        return decorate

    def __call__(self, context: C, op: object, *args: P.args, **kwargs: P.kwargs) -> R:
        return self[type(op)](context, op, *args, **kwargs)
