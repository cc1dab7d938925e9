"""The twelve laws of `vyre.ops.laws` as relations over an abstract algebra.

A law of op `f` is written once, as a list of `Relation`s between terms built
with `algebra.call(op_id, *args)`; it is violated at an input when any relation
fails. The same statement is evaluated by

- `NumpyAlgebra`: vectorised numpy, calling each op's CPU reference (the law
  check of the specification itself) or any other per-op evaluator (a backend,
  for explaining a counterexample);
- `IRAlgebra`: vyre IR, one `E.call` per distinct term (the law check through a
  backend: the calls are inlined and lowered like any program's).

The oracle of a law is always the op itself at other points, or other ops: no
law check calls a reference to compute an expected value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from vyre.ir import DataType, Node
from vyre.ir import Expr as E
from vyre.ops import laws as L
from vyre.ops import registry as ops_registry

__all__ = [
    "IRAlgebra",
    "NumpyAlgebra",
    "Relation",
    "UnsupportedLaw",
    "law_check_name",
    "law_relations",
    "law_variables",
]

V = TypeVar("V")

_VARIABLES: dict[type[L.Law], int] = {
    L.Commutative: 2,
    L.Associative: 3,
    L.Identity: 1,
    L.SelfInverse: 1,
    L.Idempotent: 1,
    L.Absorbing: 1,
    L.Involution: 1,
    L.DeMorgan: 2,
    L.Monotone: 2,
    L.Bounded: 1,
    L.Complement: 1,
    L.DistributiveOver: 3,
}


class UnsupportedLaw(ValueError):
    """A law kind the engine has no checker for."""


def law_variables(law: L.Law) -> int:
    """How many free variables (a, b, c) the law quantifies over."""
    count = _VARIABLES.get(type(law))
    if count is None:
        raise UnsupportedLaw(f"no checker for law {law} ({type(law).__name__})")
    return count


def law_check_name(law: L.Law) -> str:
    """The failure `check` of a law: "law:Commutative", "law:DistributiveOver"."""
    return f"law:{law.name}"


@dataclass(frozen=True)
class Relation(Generic[V]):
    """`lhs rel rhs` (rel: "==", "<=", ">="), required when `premise` (a <= b) holds.

    The float laws' relations (`float_relations`) add: `order` "float" compares
    `<=`/`>=` in IEEE totalOrder of F32 patterns instead of unsigned; the
    relation is required only where no word of `unless_nan` is an F32 NaN,
    and, when `only_nan` is given, only where that word is one."""

    lhs_text: str
    lhs: V
    rel: str
    rhs_text: str
    rhs: V
    premise: tuple[V, V] | None = None
    order: str = "unsigned"
    unless_nan: tuple[V, ...] = ()
    only_nan: V | None = None


class Algebra(Protocol[V]):
    def call(self, op_id: str, *args: V) -> V: ...

    def const(self, value: int) -> V: ...

    def wrapping_add(self, x: V, y: V) -> V: ...


def law_relations(law: L.Law, f: str, alg: Algebra[V], xs: Sequence[V]) -> list[Relation[V]]:
    """The relations that together state `law` for op `f` at variables `xs`."""
    a = xs[0]
    match law:
        case L.Commutative():
            b = xs[1]
            return [Relation("f(a,b)", alg.call(f, a, b), "==", "f(b,a)", alg.call(f, b, a))]
        case L.Associative():
            b, c = xs[1], xs[2]
            lhs = alg.call(f, alg.call(f, a, b), c)
            rhs = alg.call(f, a, alg.call(f, b, c))
            return [Relation("f(f(a,b),c)", lhs, "==", "f(a,f(b,c))", rhs)]
        case L.Identity(e):
            ce = alg.const(e)
            return [
                Relation(f"f(a,{e:#x})", alg.call(f, a, ce), "==", "a", a),
                Relation(f"f({e:#x},a)", alg.call(f, ce, a), "==", "a", a),
            ]
        case L.SelfInverse(r):
            return [Relation("f(a,a)", alg.call(f, a, a), "==", f"{r:#x}", alg.const(r))]
        case L.Idempotent():
            return [Relation("f(a,a)", alg.call(f, a, a), "==", "a", a)]
        case L.Absorbing(z):
            cz = alg.const(z)
            return [
                Relation(f"f(a,{z:#x})", alg.call(f, a, cz), "==", f"{z:#x}", cz),
                Relation(f"f({z:#x},a)", alg.call(f, cz, a), "==", f"{z:#x}", cz),
            ]
        case L.Involution():
            return [Relation("f(f(a))", alg.call(f, alg.call(f, a)), "==", "a", a)]
        case L.DeMorgan(inner, dual):
            b = xs[1]
            lhs = alg.call(f, alg.call(inner, a, b))
            rhs = alg.call(dual, alg.call(f, a), alg.call(f, b))
            return [Relation(f"f({inner}(a,b))", lhs, "==", f"{dual}(f(a),f(b))", rhs)]
        case L.Monotone():
            b = xs[1]
            return [Relation("f(a)", alg.call(f, a), "<=", "f(b)", alg.call(f, b), (a, b))]
        case L.Bounded(lo, hi):
            fa = alg.call(f, a)
            return [
                Relation("f(a)", fa, ">=", f"{lo:#x}", alg.const(lo)),
                Relation("f(a)", fa, "<=", f"{hi:#x}", alg.const(hi)),
            ]
        case L.Complement(g, u):
            total = alg.wrapping_add(alg.call(f, a), alg.call(g, a))
            return [Relation(f"f(a)+{g}(a)", total, "==", f"{u:#x}", alg.const(u))]
        case L.DistributiveOver(g):
            b, c = xs[1], xs[2]
            lhs = alg.call(f, a, alg.call(g, b, c))
            rhs = alg.call(g, alg.call(f, a, b), alg.call(f, a, c))
            return [Relation(f"f(a,{g}(b,c))", lhs, "==", f"{g}(f(a,b),f(a,c))", rhs)]
        case _:
            raise UnsupportedLaw(f"no checker for law {law} ({type(law).__name__})")


# ---------------------------------------------------------------------------
# numpy
# ---------------------------------------------------------------------------

Evaluator = Callable[[str, list[np.ndarray]], np.ndarray]
"""`(op_id, flat uint32 columns) -> flat uint32 results`."""

_TABLE_MIN = 1 << 16


class NumpyAlgebra:
    """Terms are uint32 arrays that broadcast against each other (exhaustive
    domains use one axis per variable, so `f(a,b)` is computed on the (a, b)
    grid only). Distinct terms are computed once. When a call's broadcast result
    is large but its arguments take few distinct values, the op is evaluated on
    the grid of distinct values and gathered (same results, fewer calls)."""

    def __init__(self, evaluate: Evaluator):
        self._evaluate = evaluate
        self._memo: dict[tuple[Any, ...], np.ndarray] = {}
        self._uniques: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._keep: list[np.ndarray] = []

    def const(self, value: int) -> np.ndarray:
        return np.asarray(value, dtype=np.uint32)

    def wrapping_add(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (x.astype(np.uint32) + y.astype(np.uint32)).astype(np.uint32)

    # -- the words of the float laws (each computed once per argument, so the
    # calls on them are shared between laws) --

    def flip_sign(self, x: np.ndarray) -> np.ndarray:
        return self._word(("flip", self._key(x)), x, lambda: np.asarray(x, dtype=np.uint32) ^ np.uint32(SIGN))

    def successor(self, x: np.ndarray) -> np.ndarray:
        return self._word(("next", self._key(x)), x, lambda: next_in_order(np.asarray(x, dtype=np.uint32)))

    def table(self, words: Sequence[int], index: np.ndarray) -> np.ndarray:
        values = np.asarray(words, dtype=np.uint32)
        position = np.asarray(index, dtype=np.uint32) % np.uint32(len(values))
        return self._word(("table", tuple(words), self._key(index)), index, lambda: values[position])

    def _word(self, key: tuple[Any, ...], source: np.ndarray, make: Callable[[], np.ndarray]) -> np.ndarray:
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = make()
            self._keep.append(source)
        return found

    def call(self, op_id: str, *args: np.ndarray) -> np.ndarray:
        key = (op_id, *(self._key(a) for a in args))
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        result = self._call(op_id, [np.asarray(a, dtype=np.uint32) for a in args])
        self._memo[key] = result
        self._keep.extend(args)
        return result

    @staticmethod
    def _key(value: np.ndarray) -> Any:
        if value.ndim == 0:
            return ("const", int(value))
        return ("array", id(value))

    def _call(self, op_id: str, args: list[np.ndarray]) -> np.ndarray:
        shape = np.broadcast_shapes(*(a.shape for a in args))
        size = int(np.prod(shape, dtype=np.int64))
        if size >= _TABLE_MIN and all(a.ndim == len(shape) for a in args if a.ndim):
            tabled = self._tabled(op_id, args, shape, size)
            if tabled is not None:
                return tabled
        return self._direct(op_id, args, shape)

    def _direct(self, op_id: str, args: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
        columns = [np.ascontiguousarray(np.broadcast_to(a, shape)).ravel() for a in args]
        out = self._evaluate(op_id, columns)
        return out.reshape(shape)

    def _unique(self, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = id(value)
        cached = self._uniques.get(key)
        if cached is None:
            values, inverse = np.unique(value, return_inverse=True)
            cached = (values, inverse.reshape(value.shape).astype(np.intp))
            self._uniques[key] = cached
            self._keep.append(value)
        return cached

    def _tabled(
        self, op_id: str, args: list[np.ndarray], shape: tuple[int, ...], size: int
    ) -> np.ndarray | None:
        parts: list[tuple[np.ndarray, np.ndarray, tuple[int, ...]]] = []
        grid = 1
        for a in args:
            if a.size == size:
                return None
            values, inverse = self._unique(a)
            axes = tuple(d for d in range(a.ndim) if a.shape[d] > 1)
            parts.append((values, inverse, axes))
            grid *= len(values)
        if grid * 4 > size:
            return None
        mesh = np.meshgrid(*(values for values, _, _ in parts), indexing="ij")
        table = self._evaluate(op_id, [m.ravel() for m in mesh]).reshape(
            tuple(len(values) for values, _, _ in parts)
        )
        varying = [j for j, (_, _, axes) in enumerate(parts) if axes]
        if len(varying) == 2:
            # fix the constant arguments (one distinct value each)
            index = tuple(slice(None) if j in varying else 0 for j in range(len(parts)))
            plane = table[index]
            first, second = varying
            if min(parts[first][2]) > min(parts[second][2]):
                first, second = second, first
                plane = plane.T
            outer = _outer(plane, parts[first][1], parts[second][1], shape)
            if outer is not None:
                return outer
        flat = np.zeros((), dtype=np.intp)
        for values, inverse, _ in parts:
            flat = flat * len(values) + inverse
        return table.reshape(-1)[np.broadcast_to(flat, shape)]


def _is_identity(inverse: np.ndarray, count: int) -> bool:
    flat = inverse.reshape(-1)
    return len(flat) == count and bool(np.all(flat == np.arange(count)))


def _outer(
    plane: np.ndarray, first: np.ndarray, second: np.ndarray, shape: tuple[int, ...]
) -> np.ndarray | None:
    """`plane[first, second]` broadcast to `shape` by row gathers, when `first`
    varies on leading axes and `second` on the axes after them (they may share
    axis 0, which is then looped over); None for other layouts."""
    first_axes = [d for d in range(len(shape)) if first.ndim and first.shape[d] > 1]
    second_axes = [d for d in range(len(shape)) if second.ndim and second.shape[d] > 1]
    shared = sorted(set(first_axes) & set(second_axes))
    if shared not in ([], [0]):
        return None
    own_first = [d for d in first_axes if d not in shared]
    own_second = [d for d in second_axes if d not in shared]
    if own_first and own_second and max(own_first) > min(own_second):
        return None
    if sorted(shared + own_first + own_second) != [d for d in range(len(shape)) if shape[d] > 1]:
        return None

    def gather(rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        block = plane[rows.reshape(-1)]
        if not _is_identity(columns, plane.shape[1]):
            block = np.take(block, columns.reshape(-1), axis=1)
        return block

    if not shared:
        return gather(first, second).reshape(shape)
    out = np.empty(shape, dtype=plane.dtype)
    for i in range(shape[0]):
        rows = first[i if first.shape[0] > 1 else 0]
        columns = second[i if second.shape[0] > 1 else 0]
        out[i] = gather(rows, columns).reshape(shape[1:])
    return out


SIGN = 0x8000_0000
_MAGNITUDE = 0x7FFF_FFFF
_INFINITY = 0x7F80_0000


def order_key_numpy(x: np.ndarray) -> np.ndarray:
    """Unsigned keys of F32 patterns that compare as IEEE totalOrder (non-NaN)."""
    x = np.asarray(x, dtype=np.uint32)
    return np.where(x >= np.uint32(SIGN), ~x, x | np.uint32(SIGN)).astype(np.uint32)


def next_in_order(x: np.ndarray) -> np.ndarray:
    """The F32 pattern after each of `x` in totalOrder (+0 after -0; after +inf
    and NaNs: a NaN)."""
    key = order_key_numpy(x) + np.uint32(1)
    return np.where(key >= np.uint32(SIGN), key & np.uint32(_MAGNITUDE), ~key).astype(np.uint32)


def is_nan_numpy(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, dtype=np.uint32) & np.uint32(_MAGNITUDE)) > np.uint32(_INFINITY)


def relation_fails_numpy(rel: Relation[np.ndarray]) -> np.ndarray:
    """Where `rel` is violated (bool array)."""
    lhs, rhs = rel.lhs, rel.rhs
    if rel.order == "float" and rel.rel != "==":
        lhs, rhs = order_key_numpy(lhs), order_key_numpy(rhs)
    if rel.rel == "==":
        bad = lhs != rhs
    elif rel.rel == "<=":
        bad = lhs > rhs
    else:
        bad = lhs < rhs
    if rel.premise is not None:
        bad = bad & (rel.premise[0] <= rel.premise[1])
    for word in rel.unless_nan:
        bad = bad & ~is_nan_numpy(word)
    if rel.only_nan is not None:
        bad = bad & is_nan_numpy(rel.only_nan)
    return np.asarray(bad)


def violations_numpy(rels: Sequence[Relation[np.ndarray]], shape: tuple[int, ...]) -> np.ndarray:
    bad = np.zeros(shape, dtype=bool)
    for rel in rels:
        bad = bad | relation_fails_numpy(rel)
    return bad


# ---------------------------------------------------------------------------
# vyre IR
# ---------------------------------------------------------------------------


def word_call(op_id: str, args: Sequence[E]) -> E:
    """`op_id` called on u32 words, as a u32 word: the proof system works on words,
    so an F32 input is the word's bits (a bitcast) and an F32 output is read back
    as its bits. Ops of other signatures are called as they are."""
    spec = ops_registry.resolve(op_id)
    if spec is None:
        return E.call(op_id, list(args))
    inputs = [
        E.bitcast(DataType.F32, a) if t is DataType.F32 else a
        for a, t in zip(args, spec.signature.inputs, strict=False)
    ]
    value = E.call(op_id, inputs)
    return E.bitcast(DataType.U32, value) if spec.signature.output is DataType.F32 else value


class IRAlgebra:
    """Terms are vyre `Expr`s; each distinct call becomes one `let` in `statements`."""

    def __init__(self, prefix: str = "t"):
        self.statements: list[Node] = []
        self._memo: dict[tuple[Any, ...], E] = {}
        self._prefix = prefix

    def const(self, value: int) -> E:
        return E.u32(value)

    def wrapping_add(self, x: E, y: E) -> E:
        return E.add(x, y)

    def call(self, op_id: str, *args: E) -> E:
        return self._bind((op_id, *(repr(a) for a in args)), lambda: word_call(op_id, args))

    def flip_sign(self, x: E) -> E:
        return self._bind(("flip", repr(x)), lambda: E.bitxor(x, E.u32(SIGN)))

    def successor(self, x: E) -> E:
        def make() -> E:
            key = E.add(order_key_ir(x), E.u32(1))
            return E.select(E.ge(key, E.u32(SIGN)), E.bitand(key, E.u32(_MAGNITUDE)), E.bitnot(key))

        return self._bind(("next", repr(x)), make)

    def table(self, words: Sequence[int], index: E) -> E:
        return self._bind(
            ("table", tuple(words), repr(index)), lambda: E.lookup(words, E.mod(index, E.u32(len(words))))
        )

    def _bind(self, key: tuple[Any, ...], make: Callable[[], E]) -> E:
        """The value of `make()`, bound once (a `let`) per distinct `key`."""
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        name = f"{self._prefix}{len(self._memo)}"
        self.statements.append(Node.let(name, make()))
        value = E.var(name)
        self._memo[key] = value
        return value


def order_key_ir(x: E) -> E:
    """`order_key_numpy` in vyre IR."""
    return E.select(E.ge(x, E.u32(SIGN)), E.bitnot(x), E.bitor(x, E.u32(SIGN)))


def is_nan_ir(x: E) -> E:
    return E.gt(E.bitand(x, E.u32(_MAGNITUDE)), E.u32(_INFINITY))


def relation_fails_ir(rel: Relation[E]) -> E:
    """A u32 0/1 expression: 1 where `rel` is violated."""
    lhs, rhs = rel.lhs, rel.rhs
    if rel.order == "float" and rel.rel != "==":
        lhs, rhs = order_key_ir(lhs), order_key_ir(rhs)
    if rel.rel == "==":
        bad = E.ne(lhs, rhs)
    elif rel.rel == "<=":
        bad = E.gt(lhs, rhs)
    else:
        bad = E.lt(lhs, rhs)
    if rel.premise is not None:
        bad = E.and_(E.le(rel.premise[0], rel.premise[1]), bad)
    for word in rel.unless_nan:
        bad = E.and_(bad, E.logical_not(is_nan_ir(word)))
    if rel.only_nan is not None:
        bad = E.and_(bad, is_nan_ir(rel.only_nan))
    return bad


def violation_ir(rels: Sequence[Relation[E]]) -> E:
    terms = [relation_fails_ir(r) for r in rels]
    out = terms[0]
    for term in terms[1:]:
        out = E.or_(out, term)
    return out


def describe(rels: Sequence[Relation[np.ndarray]]) -> str:
    """The failing relations at one input, e.g. "f(a,b) = 0xffffffff ≠ f(b,a) = 0x1"."""
    parts: list[str] = []
    for rel in rels:
        if not bool(np.asarray(relation_fails_numpy(rel)).reshape(-1)[0]):
            continue
        lhs = int(np.asarray(rel.lhs).reshape(-1)[0])
        rhs = int(np.asarray(rel.rhs).reshape(-1)[0])
        symbol = {"==": "≠", "<=": ">", ">=": "<"}[rel.rel]
        parts.append(f"{rel.lhs_text} = {lhs:#x} {symbol} {rel.rhs_text} = {rhs:#x}")
    return "; ".join(parts)
