"""The soft-float algorithm of each strict float op class.

Each algorithm module registers its functions beside their definitions:

```python
@algorithm(d.FSqrtOp)
def fsqrt(fmt: Format, a: W[V]) -> W[V]: ...
```

`ALGORITHMS[op](fmt, variant)` is the op's integer program for one format (and,
for `vyre.fcmp`, one predicate) as a function of the operand words; `float-strict`
and the catalogue of `vyre.transforms.softfloat` both read it. The table's scope
is every strict float op of the dialect: the completeness test fails, naming the
op, when one has no algorithm.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, TypeVar

from vyre.dialects import vyre as d
from vyre.dialects.tables import OpTable
from vyre.transforms.softfloat.formats import Format
from vyre.transforms.softfloat.machine import W

__all__ = ["ALGORITHMS", "Algorithm", "FAST_PATHS", "FastPath", "algorithm", "fast_path", "variants"]

Algorithm = Callable[..., W[Any]]
"""An op's integer program over its operand words, for one format."""
F = TypeVar("F", bound=Callable[..., W[Any]])

ALGORITHMS: OpTable[type[d.FloatOp], Callable[[Format, str], Algorithm]] = OpTable(
    "soft-float algorithms", d.strict_float_ops
)


def algorithm(*ops: type[d.FloatOp]) -> Callable[[F], F]:
    """Decorator: `fn(fmt, *words)` is the algorithm of `ops` (ops without variants)."""

    def register(fn: F) -> F:
        for op in ops:
            ALGORITHMS.add(op, lambda fmt, _variant, fn=fn: partial(fn, fmt))
        return fn

    return register


def variants(op: type[d.FloatOp], by_variant: Mapping[str, Callable[..., W[Any]]]) -> None:
    """Register the algorithms of an op with variants (a comparison's predicates)."""

    def pick(fmt: Format, variant: str) -> Algorithm:
        fn = by_variant.get(variant)
        if fn is None:
            raise KeyError(f"{op.name} has no variant `{variant}` (one of {', '.join(by_variant)})")
        return partial(fn, fmt)

    ALGORITHMS.add(op, pick)


FastPath = Callable[..., tuple[W[Any], W[Any]]]
"""An op's program for its common case, over its operand words: (applies, result),
`result` being the algorithm's where `applies` is 1."""

P = TypeVar("P", bound=FastPath)

FAST_PATHS: dict[tuple[type[d.FloatOp], str], FastPath] = {}
"""The fast path of an op in one format (by the format's name), where it has one."""


def fast_path(op: type[d.FloatOp], fmt: Format) -> Callable[[P], P]:
    """Decorator: `fn(*words) -> (applies, result)` is the fast path of `op` in `fmt`."""

    def register(fn: P) -> P:
        FAST_PATHS[(op, fmt.name)] = fn
        return fn

    return register
