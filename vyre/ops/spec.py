"""Operation specifications: what an op of the standard library declares.

An `OpSpec` is the op's definition for the whole toolchain: its signature, its
category (A: a composition of vyre IR that inlines to nothing; C: a hardware
intrinsic), its CPU reference (`cpu_fn`, vectorised over numpy arrays) and its
conformance rule material (laws, equivalence classes, boundary values,
alternate implementations). Specs are checked by the admission gates of
`vyre.ops.admission` before they enter the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

from vyre.ir import (
    BinaryExpr,
    Bitcast,
    Fma,
    LitFloat,
    Call,
    Cast,
    DataType,
    Expr,
    LitBool,
    LitI32,
    LitU32,
    Param,
    Select,
    UnaryExpr,
    UnOp,
)
from vyre.ops.laws import Law

__all__ = [
    "Boundary",
    "CompositionError",
    "EquivalenceClass",
    "Intrinsic",
    "OpSignature",
    "OpSpec",
    "Param",
    "UnsupportedByBackend",
    "expr_children",
    "walk_expr",
]

Boundary = int | tuple[int, ...]
"""A boundary value: one u32 used for every input, or one value per input."""


@dataclass(frozen=True)
class OpSignature:
    """`inputs -> output`, as vyre data types."""

    inputs: tuple[DataType, ...]
    output: DataType

    def __init__(self, inputs: Iterable[DataType], output: DataType):
        object.__setattr__(self, "inputs", tuple(inputs))
        object.__setattr__(self, "output", output)

    @property
    def arity(self) -> int:
        return len(self.inputs)

    def __str__(self) -> str:
        return f"({', '.join(str(t) for t in self.inputs)}) -> {self.output}"


@dataclass(frozen=True)
class EquivalenceClass:
    """A class of inputs on which the op behaves uniformly, with representative
    input tuples (one u32 per input) that the proof system exercises."""

    description: str
    representatives: tuple[tuple[int, ...], ...]

    def __init__(self, description: str, representatives: Iterable[Iterable[int]]):
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "representatives", tuple(tuple(r) for r in representatives))


@dataclass(frozen=True)
class Intrinsic:
    """The descriptor of a Category C op: the hardware instruction it
    maps to 1:1 and the backends that support it. `wgsl` names the WGSL builtin
    function; `unop`, when set, is the vyre `UnOp` that is the same instruction
    (inline-calls rewrites such calls into that UnOp). There is no software
    fallback: a backend outside `backends` reports the op as unsupported."""

    hardware: str
    wgsl: str
    backends: tuple[str, ...] = ("interp", "wgpu")
    unop: UnOp | None = None

    def available_on(self, backend: str) -> bool:
        return backend in self.backends


class UnsupportedByBackend(RuntimeError):
    """A Category C op run on a backend that lacks its hardware (naming the op
    and the backend): a first-class outcome, never a silent software fallback."""

    def __init__(self, op_id: str, backend: str, intrinsic: Intrinsic):
        self.op_id = op_id
        self.backend = backend
        super().__init__(
            f"op `{op_id}` (Category C: {intrinsic.hardware}) is not supported by backend"
            f" `{backend}`; there is no software fallback. Fix: run it on one of"
            f" {', '.join(intrinsic.backends)}, or compose the computation from Category A ops."
        )


class CompositionError(ValueError):
    """A composition that is not a pure expression over its parameters."""


@dataclass(frozen=True, kw_only=True, eq=False)
class OpSpec:
    """One operation of the standard library (docs/adding-an-op.md).

    `composition` is, for Category A, a callable taking one `Expr` per input and
    returning the op's value as an `Expr` built from vyre IR (BinOp, UnOp,
    Select, Cast, literals and calls of other library ops); for Category C, an
    `Intrinsic` descriptor. `reference` is the CPU reference, vectorised over
    numpy arrays (one per input) and returning a numpy array.
    """

    id: str
    version: int
    signature: OpSignature
    category: str
    reference: Callable[..., Any]
    composition: Callable[..., Expr] | Intrinsic
    laws: tuple[Law, ...] = ()
    equivalence_classes: tuple[EquivalenceClass, ...] = ()
    boundaries: tuple[Boundary, ...] = ()
    inlinable: bool = True
    alternates: tuple[str, ...] = ()
    summary: str = field(default="")

    def __post_init__(self) -> None:
        for name in ("laws", "equivalence_classes", "boundaries", "alternates"):
            value = getattr(self, name)
            if isinstance(value, (list, set, frozenset)):
                object.__setattr__(self, name, tuple(cast("Iterable[object]", value)))

    @property
    def intrinsic(self) -> Intrinsic | None:
        """The Category C descriptor, or None for a composition."""
        return self.composition if isinstance(self.composition, Intrinsic) else None

    @cached_property
    def composition_tree(self) -> Expr:
        """The Category A composition applied to `Param` leaves (computed once)."""
        if self.intrinsic is not None or not callable(self.composition):
            raise CompositionError(f"op `{self.id}` has no composition (Category C)")
        params = [Param(i, t) for i, t in enumerate(self.signature.inputs)]
        tree = self.composition(*params)
        if not isinstance(tree, Expr):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise CompositionError(
                f"the composition of `{self.id}` returned {type(tree).__name__}, not a vyre Expr"
            )
        return tree

    @cached_property
    def callees(self) -> tuple[str, ...]:
        """Op ids the composition calls directly, in first-use order."""
        if self.intrinsic is not None:
            return ()
        seen: dict[str, None] = {}
        for node in walk_expr(self.composition_tree):
            if isinstance(node, Call):
                seen.setdefault(node.op_id, None)
        return tuple(seen)

    def __repr__(self) -> str:
        return f"OpSpec({self.id!r}, v{self.version}, {self.signature}, category {self.category!r})"


def expr_children(node: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a composition node, in evaluation order.

    Raises `CompositionError` for nodes a composition may not contain: reads of
    locals, buffers or invocation ids, and atomics (a composition is a pure
    function of its parameters)."""
    if not isinstance(node, _COMPOSITION_NODES):
        raise CompositionError(
            f"a composition may only use its parameters, literals, BinOp, UnOp, Select,"
            f" Cast, Bitcast, Fma and calls of library ops; found {type(node).__name__}"
        )
    return node.children()


_COMPOSITION_NODES = (
    Param, LitU32, LitI32, LitBool, LitFloat, BinaryExpr, UnaryExpr, Bitcast, Fma, Select, Cast, Call,
)  # fmt: skip
"""The expression nodes a composition may hold (a pure function of its parameters)."""


def walk_expr(root: Expr) -> Iterator[Expr]:
    """Every distinct node of a composition DAG once, children before parents,
    left to right. Nodes are distinct by identity, so shared sub-trees (a value
    used twice) are visited once and the walk stays linear in the DAG's size."""
    done: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if expanded:
            done.add(id(node))
            yield node
            continue
        stack.append((node, True))
        for child in reversed(expr_children(node)):
            if id(child) not in done:
                stack.append((child, False))
