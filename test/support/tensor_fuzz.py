"""The tensor fuzzer: random tensor graphs (`vyre.tensor`) on the interpreter
and on wgpu against an independent oracle, bit for bit.

A case is a JSON recipe: steps, each an input (element type, shape with
static and dynamic dims, its bit patterns) or an op over earlier steps, and the
steps that are outputs. The ops: views (transpose, basic indexing with steps
and negative bounds, broadcast_to, reshape, chained), elementwise ops with
numpy broadcasting (add, sub, mul, div, maximum, minimum, neg, abs, sqrt,
and the correctly rounded exp, log, tanh, erf), sums in every order, max/min
along an axis, matmul (exact and sequential, batched), and the F32 composites
softmax, layer_norm, gelu and attention (causal or not). Shapes hold dims of size 0 and 1, dynamic dims (bound from the
arguments at run time, broadcast at run time when they are 1) and derived
dims (slices of dynamic dims). Element types F32, F16, BF16, U32, I32; float
inputs hold every special value.

The oracle (numpy on the bit patterns, no vyre code): views are numpy's views;
elementwise floats are `float_oracles` (the scalar ops); sums, max/min and
matmul are `tensor_oracles` (exact rationals rounded once, the contract's
zero/NaN/infinity rules; sequential and tree sums in float32 as defined;
sequential matmul as fma in order); the composites are `composite_oracles`,
their definitions step by step on those. Integers wrap (I32 compares signed).

About one case in twelve ends with an invalid step (shapes that do not
broadcast, statically or only at run time, a reshape of the wrong count, an
index out of range, max or softmax over an empty axis, matmul's inner dims, a
composite of another type than F32): building or
running it must raise a `ValueError`, on every backend.

`TensorFuzzer` is the `tensor` target of `python -m vyre.testing.fuzz`;
failures shrink to fewer outputs (and the steps they need).
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

import composite_oracles as C
import float_oracles
import tensor_oracles as O

__all__ = ["TensorFuzzer", "check_tensor_case", "generate_case"]

FLOATS = ("f32", "f16", "bf16")
DTYPES = (*FLOATS, "u32", "i32")
STORED: dict[str, type[np.unsignedinteger[Any]]] = {
    "f32": np.uint32, "f16": np.uint16, "bf16": np.uint16, "u32": np.uint32, "i32": np.uint32,
}  # fmt: skip
"""The numpy type of each element type's bit patterns in the oracle."""
MAX_ELEMENTS = 240
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
UNARY = ("neg", "abs", "sqrt", "exp", "log", "tanh", "erf")
COMPOSITES = ("softmax", "layer_norm", "gelu", "attention")
OPERANDS = ("x", "y", "z")
"""The keys of a step's operands (earlier steps' numbers)."""
SCALAR_NAME = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max", "minimum": "min"}
ORDERS: dict[str, Callable[[Sequence[int], str], int]] = {
    "exact": O.exact_sum, "sequential": O.sequential_sum, "tree": O.tree_sum,
}  # fmt: skip

Dim = int | str
Spelled = int | str | None
"""A dim as the user spells it: an int, a bound dynamic name, or None (a size
derived from dynamic dims, which has no spelling)."""


class Invalid(Exception):
    """The oracle's verdict on a step that has no result (numpy refuses it)."""


# ---------------------------------------------------------------------------
# The oracle: every step on numpy bit patterns
# ---------------------------------------------------------------------------


@dataclass
class Value:
    dtype: str
    bits: np.ndarray
    dims: tuple[Spelled, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.bits.shape)


def _index_key(items: Sequence[Any]) -> tuple[Any, ...]:
    key: list[Any] = []
    for item in items:
        if item == "...":
            key.append(Ellipsis)
        elif isinstance(item, list):
            start, stop, step = cast(list[int | None], item)
            key.append(slice(start, stop, step))
        else:
            key.append(int(item))
    return tuple(key)


def _elementwise(name: str, dtype: str, *operands: np.ndarray) -> np.ndarray:
    if dtype in FLOATS:
        scalar = SCALAR_NAME.get(name, name)
        flat = [np.asarray(a).ravel() for a in np.broadcast_arrays(*operands)]
        shape = np.broadcast_shapes(*(a.shape for a in operands))
        out = [float_oracles.evaluate(scalar, "", dtype, *(int(a[i]) for a in flat)) for i in range(int(np.prod(shape)))]
        return np.array(out, dtype=STORED[dtype]).reshape(shape)
    view = np.int32 if dtype == "i32" else np.uint32
    xs = [np.asarray(a, dtype=np.uint32).view(view) for a in operands]
    with np.errstate(over="ignore"):
        result = {
            "add": lambda: xs[0] + xs[1],
            "sub": lambda: xs[0] - xs[1],
            "mul": lambda: xs[0] * xs[1],
            "maximum": lambda: np.maximum(xs[0], xs[1]),
            "minimum": lambda: np.minimum(xs[0], xs[1]),
            "neg": lambda: (np.zeros_like(xs[0]) - xs[0]),
        }[name]()
    return np.asarray(result).astype(view).view(np.uint32)


def _reduce(step: dict[str, Any], x: Value) -> np.ndarray:
    axis = int(step["axis"])
    if x.bits.ndim == 0 or not -x.bits.ndim <= axis < x.bits.ndim:
        raise Invalid(f"axis {axis} of a rank-{x.bits.ndim} tensor")
    axis %= x.bits.ndim
    op = str(step["op"])
    if op in ("max", "min") and x.bits.shape[axis] == 0:
        raise Invalid("max/min over an empty axis")
    if x.dtype in FLOATS:
        fmt = x.dtype
        if op == "sum":
            order = ORDERS[str(step["order"])]
            return O.along(x.bits, axis, lambda v: order(v, fmt), STORED[fmt])
        return O.along(x.bits, axis, lambda v: O.extreme(v, fmt, op == "max"), STORED[fmt])
    view = np.int32 if x.dtype == "i32" else np.uint32
    signed = x.bits.view(view)
    if op == "sum":
        return (np.sum(x.bits.astype(np.uint64), axis=axis) & 0xFFFF_FFFF).astype(np.uint32)
    found = np.max(signed, axis=axis) if op == "max" else np.min(signed, axis=axis)
    return np.asarray(found).astype(view).view(np.uint32)


def _broadcast_dims(a: tuple[Spelled, ...], b: tuple[Spelled, ...]) -> tuple[Spelled, ...]:
    """The spelling of a broadcast's dims: a dim both spell alike, or the other
    where one is a static 1; else derived."""
    rank = max(len(a), len(b))
    da = (1,) * (rank - len(a)) + a
    db = (1,) * (rank - len(b)) + b
    out: list[Spelled] = []
    for x, y in zip(da, db):
        out.append(x if x == y or y == 1 else y if x == 1 else None)
    return tuple(out)


def _view(step: dict[str, Any], x: Value, env: dict[str, int]) -> Value:
    op = str(step["op"])
    try:
        if op == "transpose":
            axes = step.get("axes")
            order = list(reversed(range(x.bits.ndim))) if axes is None else [int(a) for a in axes]
            return Value(x.dtype, x.bits.transpose(order), tuple(x.dims[a] for a in order))
        if op == "index":
            items = list(step["key"])
            bits = x.bits[_index_key(items)]
            return Value(x.dtype, bits, _indexed_dims(x, items))
        if op == "broadcast_to":
            target: list[Dim] = list(step["shape"])
            shape = tuple(env[d] if isinstance(d, str) else int(d) for d in target)
            return Value(x.dtype, np.broadcast_to(x.bits, shape), tuple(target))
        target_shape = [int(d) for d in step["shape"]]
        bits = x.bits.reshape(target_shape)
        static = all(isinstance(d, int) for d in x.dims)
        dims: tuple[Spelled, ...] = tuple(
            d if d != -1 else int(bits.shape[k]) if static else None for k, d in enumerate(target_shape)
        )
        return Value(x.dtype, bits, dims)
    except (IndexError, ValueError) as error:
        raise Invalid(str(error)) from None


def _indexed_dims(x: Value, items: list[Any]) -> tuple[Spelled, ...]:
    full = list(items)
    if "..." in full:
        at = full.index("...")
        full[at : at + 1] = [[None, None, 1]] * (x.bits.ndim - (len(full) - 1))
    full += [[None, None, 1]] * (x.bits.ndim - len(full))
    dims: list[Spelled] = []
    for item, dim in zip(full, x.dims):
        if isinstance(item, list):
            dims.append(dim if item == [None, None, 1] else None)
    return tuple(dims)


def evaluate_step(step: dict[str, Any], values: list[Value], env: dict[str, int]) -> Value:
    """The oracle's value of `step` (`Invalid` when numpy or the contract refuses it)."""
    op = str(step["op"])
    if op == "input":
        dtype = str(step["dtype"])
        dims: list[Dim] = list(step["dims"])
        shape: list[int] = []
        for d in dims:
            if isinstance(d, str):
                shape.append(env.setdefault(d, int(step["sizes"][d])))
            else:
                shape.append(int(d))
        bits = np.array(step["bits"], dtype=STORED[dtype]).reshape(shape)
        return Value(dtype, bits, tuple(dims))
    x = values[int(step["x"])]
    if op in ("transpose", "index", "broadcast_to", "reshape"):
        return _view(step, x, env)
    if op in UNARY:
        if x.dtype not in FLOATS and op != "neg":
            raise Invalid(f"{op} of {x.dtype}")
        return Value(x.dtype, _elementwise(op, x.dtype, x.bits), x.dims)
    if op in BINARY:
        y = values[int(step["y"])]
        if x.dtype != y.dtype or (op == "div" and x.dtype not in FLOATS):
            raise Invalid(f"{op} of {x.dtype} and {y.dtype}")
        try:
            np.broadcast_shapes(x.shape, y.shape)
        except ValueError as error:
            raise Invalid(str(error)) from None
        return Value(x.dtype, _elementwise(op, x.dtype, x.bits, y.bits), _broadcast_dims(x.dims, y.dims))
    if op in COMPOSITES:
        return _composite(step, [x, *(values[int(step[a])] for a in OPERANDS[1:] if a in step)])
    if op in ("sum", "max", "min"):
        bits = _reduce(step, x)
        axis = int(step["axis"]) % x.bits.ndim
        return Value(x.dtype, bits, x.dims[:axis] + x.dims[axis + 1 :])
    y = values[int(step["y"])]
    if x.bits.ndim < 2 or y.bits.ndim < 2 or x.shape[-1] != y.shape[-2]:
        raise Invalid("matmul shapes")
    try:
        batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError as error:
        raise Invalid(str(error)) from None
    bits = O.matmul(x.bits, y.bits, x.dtype, str(step["accumulate"]))
    batch_dims = _broadcast_dims(x.dims[:-2], y.dims[:-2])
    return Value("f32", bits.reshape((*batch, x.shape[-2], y.shape[-1])), (*batch_dims, x.dims[-2], y.dims[-1]))


def _composite(step: dict[str, Any], xs: list[Value]) -> Value:
    """softmax, layer_norm, gelu, attention: F32 only, shapes as the contract
    requires (`Invalid` otherwise)."""
    op = str(step["op"])
    if any(v.dtype != "f32" for v in xs):
        raise Invalid(f"{op} of {[v.dtype for v in xs]}")
    x = xs[0]
    if op == "gelu":
        return Value("f32", C.gelu(x.bits), x.dims)
    if op == "softmax":
        axis = int(step["axis"])
        if x.bits.ndim == 0 or not -x.bits.ndim <= axis < x.bits.ndim or x.shape[axis] == 0:
            raise Invalid(f"softmax over axis {axis} of shape {x.shape}")
        return Value("f32", C.softmax(x.bits, axis % x.bits.ndim), x.dims)
    if op == "layer_norm":
        weight, bias = xs[1], xs[2]
        if x.bits.ndim == 0 or not (_broadcasts_to(weight.shape, x.shape) and _broadcasts_to(bias.shape, x.shape)):
            raise Invalid(f"layer_norm of {x.shape} with {weight.shape} and {bias.shape}")
        return Value("f32", C.layer_norm(x.bits, weight.bits, bias.bits, float(step["eps"])), x.dims)
    q, k, v = xs
    causal = bool(step["causal"])
    if min(q.bits.ndim, k.bits.ndim, v.bits.ndim) < 2 or q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise Invalid("attention shapes")
    if k.shape[-2] == 0 or (causal and q.shape[-2] != k.shape[-2]):
        raise Invalid("attention without keys, or causal with T != S")
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError as error:
        raise Invalid(str(error)) from None
    bits = C.attention(q.bits, k.bits, v.bits, causal)
    batch_dims = _broadcast_dims(_broadcast_dims(q.dims[:-2], k.dims[:-2]), v.dims[:-2])
    return Value("f32", bits.reshape((*batch, q.shape[-2], v.shape[-1])), (*batch_dims, q.dims[-2], v.dims[-1]))


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        np.broadcast_to(np.empty(shape), target)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------
# The graph: the same steps through vyre.tensor
# ---------------------------------------------------------------------------


def _element_type(dtype: str) -> Any:
    from vyre.ir import DataType

    return DataType(dtype)


def _user_array(value: Value) -> np.ndarray:
    if value.dtype in FLOATS:
        return O.user_array(value.bits, value.dtype)
    return value.bits.view(np.int32 if value.dtype == "i32" else np.uint32)


def build_step(step: dict[str, Any], graph: Any, tensors: list[Any]) -> Any:
    """The tensor of `step` in `graph` (vyre.tensor's own checks may raise)."""
    from vyre import tensor as vt

    op = str(step["op"])
    if op == "input":
        return graph.input(str(step["name"]), _element_type(str(step["dtype"])), tuple(step["dims"]))
    x = tensors[int(step["x"])]
    if op == "transpose":
        return vt.transpose(x, step.get("axes"))
    if op == "index":
        return x[_index_key(list(step["key"]))]
    if op == "broadcast_to":
        return vt.broadcast_to(x, tuple(step["shape"]))
    if op == "reshape":
        return vt.reshape(x, tuple(int(d) for d in step["shape"]))
    if op in UNARY:
        return getattr(vt, op)(x)
    if op in BINARY:
        return getattr(vt, op)(x, tensors[int(step["y"])])
    if op == "sum":
        return vt.sum(x, int(step["axis"]), str(step["order"]))
    if op in ("max", "min"):
        return getattr(vt, op)(x, int(step["axis"]))
    if op == "gelu":
        return vt.gelu(x)
    if op == "softmax":
        return vt.softmax(x, int(step["axis"]))
    if op == "layer_norm":
        return vt.layer_norm(x, tensors[int(step["y"])], tensors[int(step["z"])], float(step["eps"]))
    if op == "attention":
        return vt.attention(x, tensors[int(step["y"])], tensors[int(step["z"])], bool(step["causal"]))
    return vt.matmul(x, tensors[int(step["y"])], str(step["accumulate"]))


def _failure(first_line: str, details: Sequence[str] = ()) -> Exception:
    from vyre.testing.fuzz.base import OracleFailure

    return OracleFailure("\n".join([first_line, *details]))


@functools.cache
def _have_gpu() -> bool:
    try:
        from vyre.runtime.adapters import choose_adapter

        choose_adapter()
    except Exception:  # noqa: BLE001 - no wgpu, no adapter: the interpreter only
        return False
    return True


def _describe(step: dict[str, Any]) -> str:
    parts = {k: v for k, v in step.items() if k not in ("bits", "op", "name")}
    return f"vt.{step['op']} {json.dumps(parts, sort_keys=True)}"


def check_tensor_case(data: bytes) -> None:
    """Build the case's graph, run it on every backend, compare with the oracle
    (an invalid last step: a `ValueError`, at build or run)."""
    from vyre import tensor as vt

    case = json.loads(data)
    steps: list[dict[str, Any]] = case["steps"]
    expect_error = bool(case.get("invalid"))
    values: list[Value] = []
    env: dict[str, int] = {}
    for k, step in enumerate(steps):
        try:
            values.append(evaluate_step(step, values, env))
        except Invalid:
            if not (expect_error and k == len(steps) - 1):
                raise ValueError(f"the case's step {k} is invalid for the oracle: {_describe(step)}") from None
    graph = vt.Graph("fuzz")
    tensors: list[Any] = []
    for k, step in enumerate(steps):
        try:
            tensors.append(build_step(step, graph, tensors))
        except ValueError as error:
            if expect_error and k == len(steps) - 1:
                return  # refused when built: allowed
            raise _failure(f"{_describe_op(step)}: a valid graph refused when built", [str(error)]) from None
    outputs = [int(k) for k in case["outputs"]]
    for k in outputs:
        graph.output(f"o{k}", tensors[k])
    inputs = {str(s["name"]): _user_array(values[k]) for k, s in enumerate(steps) if s["op"] == "input"}
    backends = ["interp", "wgpu"] if _have_gpu() else ["interp"]
    for backend in backends:
        try:
            got = vt.run(graph, inputs, backend=backend)
        except ValueError as error:
            if expect_error:
                continue
            raise _failure(f"vt.run on {backend}: a valid graph refused", [str(error)]) from None
        if expect_error:
            raise _failure(f"{_describe_op(steps[-1])}: an invalid graph ran on {backend}", [_describe(steps[-1])])
        for k in outputs:
            _compare(steps[k], values[k], got[f"o{k}"], backend)


def _describe_op(step: dict[str, Any]) -> str:
    return f"vt.{step['op']}"


def _compare(step: dict[str, Any], want: Value, got: np.ndarray, backend: str) -> None:
    shape = tuple(int(d) for d in got.shape)
    label = f"{_describe_op(step)} ({want.dtype}) on {backend}"
    if shape != want.shape:
        raise _failure(f"{label}: the result's shape differs from the oracle's", [f"{shape} != {want.shape}"])
    have = np.ascontiguousarray(got).view(STORED[want.dtype]).astype(np.int64).ravel()
    expected = want.bits.astype(np.int64).ravel()
    differ = np.flatnonzero(have != expected)
    if differ.size:
        shown = [f"element {int(i)}: {int(have[i]):#x}, the oracle {int(expected[i]):#x}" for i in differ[:6]]
        raise _failure(f"{label}: differs from the oracle", [_describe(step), *shown])


# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------


class _Maker:
    """Draws a valid recipe step by step, tracking the oracle's values."""

    def __init__(self, rnd: random.Random):
        self.rnd = rnd
        self.steps: list[dict[str, Any]] = []
        self.values: list[Value] = []
        self.env: dict[str, int] = {}
        self.names = 0

    def add(self, step: dict[str, Any]) -> bool:
        """Append `step` when the oracle accepts it (and its result is small)."""
        try:
            value = evaluate_step(step, self.values, dict(self.env))
        except Invalid:
            return False
        if value.bits.size > MAX_ELEMENTS:
            return False
        if step["op"] == "input":
            for d in step["dims"]:
                if isinstance(d, str):
                    self.env.setdefault(d, int(step["sizes"][d]))
        self.steps.append(step)
        self.values.append(value)
        return True

    def fresh(self) -> str:
        self.names += 1
        return f"d{self.names}"

    def input(self, dtype: str, dims: Sequence[Spelled], shape: Sequence[int]) -> int | None:
        """A new input of `shape` spelled `dims` (None: a fresh dynamic dim)."""
        spelled: list[Dim] = []
        sizes: dict[str, int] = {}
        for d, size in zip(dims, shape):
            if d is None or (isinstance(d, str) and self.env.get(d) != size):
                d = self.fresh()
            if isinstance(d, str):
                sizes[d] = size
            spelled.append(d)
        rng = np.random.default_rng(self.rnd.getrandbits(32))
        count = int(np.prod(shape)) if shape else 1
        if dtype in FLOATS:
            bits = O.random_bits(rng, (count,), dtype)
        else:
            edges = np.array([0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE], dtype=np.uint32)
            bits = np.where(rng.random(count) < 0.3, rng.choice(edges, count), rng.integers(0, 1 << 32, count, dtype=np.uint64).astype(np.uint32))
        step = {"op": "input", "name": f"x{len(self.steps)}", "dtype": dtype, "dims": spelled, "sizes": sizes,
                "bits": [int(b) for b in bits]}  # fmt: skip
        return len(self.steps) - 1 if self.add(step) else None

    def first_input(self) -> int | None:
        dtype = self.rnd.choice(DTYPES + FLOATS)
        rank = self.rnd.choice((1, 2, 2, 3, 3, 4))
        shape = [self.rnd.choice((1, 2, 3, 4, 5, 7)) for _ in range(rank)]
        if self.rnd.random() < 0.15:
            shape[self.rnd.randrange(rank)] = 0
        while int(np.prod(shape)) > 60:
            shape[self.rnd.randrange(rank)] = 1
        dims: list[Spelled] = [None if self.rnd.random() < 0.4 else s for s in shape]
        return self.input(dtype, dims, shape)


def _slice_item(rnd: random.Random, size: int) -> Any:
    if size > 0 and rnd.random() < 0.2:
        return rnd.randrange(-size, size)
    bound: Callable[[], int | None] = lambda: None if rnd.random() < 0.4 else rnd.randint(-size - 2, size + 2)  # noqa: E731
    return [bound(), bound(), rnd.choice((1, 1, 2, -1, -2, 3))]


def _operand_for(m: _Maker, x: Value) -> tuple[Sequence[Spelled], list[int]]:
    """A shape that broadcasts with `x`: a suffix of its dims, some set to 1,
    some left 1 where x has 1 but set larger."""
    rnd = m.rnd
    keep = rnd.randint(0, len(x.dims))
    dims: list[Spelled] = []
    shape: list[int] = []
    for d, size in list(zip(x.dims, x.shape))[len(x.dims) - keep :]:
        roll = rnd.random()
        if roll < 0.25:
            dims.append(1)
            shape.append(1)
        elif size == 1 and roll < 0.45:
            grown = rnd.choice((2, 3))
            dims.append(None if rnd.random() < 0.5 else grown)
            shape.append(grown)
        else:
            dims.append(d if rnd.random() < 0.7 else None if rnd.random() < 0.5 else size)
            shape.append(size)
    return dims, shape


def _step(m: _Maker) -> None:
    """One more valid step over a random earlier value."""
    rnd = m.rnd
    x_index = len(m.values) - 1 if rnd.random() < 0.6 else rnd.randrange(len(m.values))
    x = m.values[x_index]
    kind = rnd.choices(
        ["transpose", "index", "broadcast_to", "reshape", "unary", "binary", "sum", "maxmin", "matmul", "composite"],
        [2, 3, 2, 2, 2, 3, 2, 1, 2, 2],
    )[0]
    rank = x.bits.ndim
    if kind == "transpose":
        axes = list(range(rank))
        rnd.shuffle(axes)
        m.add({"op": "transpose", "x": x_index, "axes": None if rnd.random() < 0.2 else axes})
    elif kind == "index" and rank:
        key: list[Any] = [_slice_item(rnd, s) for s in x.shape[: rnd.randint(1, rank)]]
        if rnd.random() < 0.2:
            key = ["...", *key[1:]]
        m.add({"op": "index", "x": x_index, "key": key})
    elif kind == "broadcast_to":
        target: list[Dim] = []
        for d, size in zip(x.dims, x.shape):
            if size == 1 and rnd.random() < 0.6:
                target.append(rnd.choice((2, 3)))
            else:
                target.append(d if isinstance(d, (int, str)) else size)
        if rnd.random() < 0.5:
            bound = [n for n, v in m.env.items() if v <= 4]
            target.insert(0, rnd.choice(bound) if bound and rnd.random() < 0.5 else rnd.choice((1, 2, 3)))
        m.add({"op": "broadcast_to", "x": x_index, "shape": target})
    elif kind == "reshape":
        n = int(x.bits.size)
        options = [[-1], [n]] + [[a, -1] for a in (1, 2, 3, 4) if n and n % a == 0] + [[-1, a] for a in (2, 3) if n and n % a == 0]
        if n == 0:
            options += [[3, -1], [0, 2], [2, 0, -1]]
        m.add({"op": "reshape", "x": x_index, "shape": rnd.choice(options)})
    elif kind == "unary":
        m.add({"op": rnd.choice(UNARY if x.dtype in FLOATS else ("neg",)), "x": x_index})
    elif kind == "binary":
        _binary(m, x_index, x)
    elif kind in ("sum", "maxmin") and rank:
        axis = rnd.randrange(-rank, rank)
        if kind == "sum":
            m.add({"op": "sum", "x": x_index, "axis": axis, "order": rnd.choice(tuple(ORDERS))})
        else:
            m.add({"op": rnd.choice(("max", "min")), "x": x_index, "axis": axis})
    elif kind == "matmul":
        _matmul(m, x_index, x)
    elif kind == "composite":
        _composite_step(m, x_index, x)


def _binary(m: _Maker, x_index: int, x: Value) -> None:
    rnd = m.rnd
    op = rnd.choice(BINARY if x.dtype in FLOATS else ("add", "sub", "mul", "maximum", "minimum"))
    others = [k for k, v in enumerate(m.values) if v.dtype == x.dtype and k != x_index and _broadcasts(v.shape, x.shape)]
    if others and rnd.random() < 0.4:
        y_index = rnd.choice(others)
    else:
        dims, shape = _operand_for(m, x)
        made = m.input(x.dtype, dims, shape)
        if made is None:
            return
        y_index = made
    pair = (x_index, y_index) if rnd.random() < 0.5 else (y_index, x_index)
    m.add({"op": op, "x": pair[0], "y": pair[1]})


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _matmul(m: _Maker, x_index: int, x: Value) -> None:
    rnd = m.rnd
    if x.dtype not in FLOATS:
        return
    if x.bits.ndim < 2:
        made = m.input(x.dtype, [None, x.dims[-1] if x.dims else 1], [rnd.choice((1, 2, 3)), x.shape[-1] if x.shape else 1])
        if made is None:
            return
        x_index, x = made, m.values[made]
    k = x.shape[-1]
    n = rnd.choice((0, 1, 2, 3, 4))
    batch: list[Spelled] = []
    sizes: list[int] = []
    if x.bits.ndim > 2 and rnd.random() < 0.5:
        batch, sizes = [1] * (x.bits.ndim - 2), [1] * (x.bits.ndim - 2)
    made = m.input(x.dtype, [*batch, x.dims[-1], None if rnd.random() < 0.4 else n], [*sizes, k, n])
    if made is not None:
        m.add({"op": "matmul", "x": x_index, "y": made, "accumulate": rnd.choice(("exact", "sequential"))})


def _f32_of(m: _Maker, x_index: int, x: Value) -> tuple[int, Value] | None:
    """`x` when it is F32, else a fresh F32 input spelled as `x`."""
    if x.dtype == "f32":
        return x_index, x
    made = m.input("f32", list(x.dims), list(x.shape))
    return None if made is None else (made, m.values[made])


def _suffix(m: _Maker, x: Value) -> int | None:
    """A fresh F32 input whose shape broadcasts to `x`'s: a suffix of its dims,
    some of them 1 (layer_norm's weight and bias)."""
    keep = m.rnd.randint(0, len(x.dims))
    pairs = list(zip(x.dims, x.shape))[len(x.dims) - keep :]
    ones = [m.rnd.random() < 0.3 for _ in pairs]
    dims: list[Spelled] = [1 if one else d for one, (d, _) in zip(ones, pairs)]
    return m.input("f32", dims, [1 if one else size for one, (_, size) in zip(ones, pairs)])


def _composite_step(m: _Maker, x_index: int, x: Value) -> None:
    rnd = m.rnd
    found = _f32_of(m, x_index, x)
    if found is None:
        return
    x_index, x = found
    op = rnd.choice(COMPOSITES)
    rank = x.bits.ndim
    if op == "gelu":
        m.add({"op": "gelu", "x": x_index})
    elif op == "softmax" and rank:
        m.add({"op": "softmax", "x": x_index, "axis": rnd.randrange(-rank, rank)})
    elif op == "layer_norm" and rank:
        weight, bias = _suffix(m, x), _suffix(m, x)
        if weight is not None and bias is not None:
            eps = rnd.choice((1e-5, 1e-5, 1e-3, 0.0, 1.0))
            m.add({"op": "layer_norm", "x": x_index, "y": weight, "z": bias, "eps": eps})
    elif op == "attention":
        _attention(m, x_index, x)


def _attention(m: _Maker, q_index: int, q: Value) -> None:
    """q is `x` (rank 2 or more) or a fresh (T, d); k (S, d) and v (S, e) fresh."""
    rnd = m.rnd
    if q.bits.ndim < 2:
        made = m.input("f32", [None, None], [rnd.choice((1, 2, 3)), rnd.choice((1, 2, 3, 4))])
        if made is None:
            return
        q_index, q = made, m.values[made]
    causal = rnd.random() < 0.4
    batch: list[Spelled] = [1] * (q.bits.ndim - 2) if rnd.random() < 0.5 else []
    sizes = [1] * len(batch)
    t, d = q.dims[-2], q.dims[-1]
    s = q.shape[-2] if causal else rnd.choice((1, 2, 3, 4))
    keys: Spelled = t if causal else (None if rnd.random() < 0.4 else s)
    e = rnd.choice((1, 2, 3))
    k = m.input("f32", [*batch, keys, d], [*sizes, s, q.shape[-1]])
    v = None if k is None else m.input("f32", [*batch, m.values[k].dims[-2], e], [*sizes, s, e])
    if k is not None and v is not None:
        m.add({"op": "attention", "x": q_index, "y": k, "z": v, "causal": causal})


def _invalid(m: _Maker) -> bool:
    """Append a step the contract refuses (`ValueError`), or nothing."""
    rnd = m.rnd
    x_index = len(m.values) - 1
    x = m.values[x_index]
    choice = rnd.choice(("broadcast", "reshape", "index", "empty", "matmul", "composite"))
    step: dict[str, Any] | None = None
    if choice == "broadcast" and x.bits.ndim and x.shape[-1] > 1:
        y = m.input(x.dtype, [None if rnd.random() < 0.5 else x.shape[-1] + 1], [x.shape[-1] + 1])
        step = None if y is None else {"op": "add", "x": x_index, "y": y}
    elif choice == "reshape":
        step = {"op": "reshape", "x": x_index, "shape": [int(x.bits.size) + 1] if x.bits.size else [0, -1]}
    elif choice == "index" and x.bits.ndim:
        step = {"op": "index", "x": x_index, "key": [rnd.choice((x.shape[0], -x.shape[0] - 1))]}
    elif choice == "empty" and 0 in x.shape:
        reducers = ("max", "min", "softmax") if x.dtype == "f32" else ("max", "min")
        step = {"op": rnd.choice(reducers), "x": x_index, "axis": x.shape.index(0)}
    elif choice == "composite" and x.dtype != "f32":
        step = {"op": "gelu", "x": x_index}
    elif choice == "matmul" and x.dtype in FLOATS and x.bits.ndim == 2:
        y = m.input(x.dtype, [None, 2], [x.shape[-1] + 1, 2])
        step = None if y is None else {"op": "matmul", "x": x_index, "y": y, "accumulate": "exact"}
    if step is None:
        return False
    try:
        evaluate_step(step, m.values, dict(m.env))
    except Invalid:
        m.steps.append(step)
        return True
    return False


def generate_case(rnd: random.Random) -> dict[str, Any]:
    """A random recipe (module doc)."""
    m = _Maker(rnd)
    while m.first_input() is None:
        pass
    for _ in range(rnd.randint(1, 6)):
        _step(m)
    computed = [k for k, s in enumerate(m.steps) if s["op"] != "input"]
    outputs = sorted({computed[-1] if computed else 0, *rnd.sample(computed, min(len(computed), rnd.randint(0, 2)))})
    invalid = rnd.random() < 0.08 and _invalid(m)
    if invalid:
        outputs.append(len(m.steps) - 1)
    return {"steps": m.steps, "outputs": outputs, "invalid": invalid}


# ---------------------------------------------------------------------------
# The fuzzer
# ---------------------------------------------------------------------------


def case_json(case: dict[str, Any]) -> bytes:
    return json.dumps(case, sort_keys=True).encode()


def _needed(steps: list[dict[str, Any]], roots: Sequence[int]) -> list[int]:
    keep: set[int] = set()
    pending = list(roots)
    while pending:
        k = pending.pop()
        if k in keep:
            continue
        keep.add(k)
        pending += [int(steps[k][a]) for a in OPERANDS if a in steps[k]]
    return sorted(keep)


def prune(case: dict[str, Any], outputs: Sequence[int]) -> dict[str, Any]:
    """The case with only `outputs` and the steps they need (renumbered)."""
    steps: list[dict[str, Any]] = case["steps"]
    roots = list(outputs) + ([len(steps) - 1] if case.get("invalid") else [])
    outputs = list(dict.fromkeys([*outputs, *roots[len(outputs) :]]))
    keep = _needed(steps, roots)
    number = {old: new for new, old in enumerate(keep)}
    kept = [{**steps[k], **{a: number[int(steps[k][a])] for a in OPERANDS if a in steps[k]}} for k in keep]
    return {**case, "steps": kept, "outputs": [number[k] for k in outputs]}


class TensorFuzzer:
    """Random tensor graphs on every backend against the oracle (module doc)."""

    name = "tensor"
    extension = "json"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def generate(self, index: int) -> bytes:
        return case_json(generate_case(random.Random(f"tensor:{self.seed}:{index}")))

    def check(self, data: bytes) -> None:
        check_tensor_case(data)

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        """Fewer outputs, with only the steps they need."""
        from vyre.testing.fuzz.shrink import ddmin

        case = json.loads(data)
        outputs = ddmin(list(case["outputs"]), lambda keep: still_fails(case_json(prune(case, keep))), max_checks=64)
        best = prune(case, outputs)
        return case_json(best) if still_fails(case_json(best)) else data
