"""The cases of the tensor track: for every op of `vyre.tensor`, graphs that
use it and random inputs for them, with the expected outputs computed by the
independent reference (vyre.conform.tensor_reference).

An op (`TensorOp`) has a few *variants*, each one graph built from a seeded
generator: its shapes are random and include dims of size 0 and 1; the first
variant's inputs have dynamic dims (each input set draws its own sizes), the
others read their operands through non-contiguous views (transposes, slices
with steps, broadcasts), and the variants of a float op cover F32, F16 and
BF16. A variant draws as many input sets as the strength asks for, each with
special values (NaN, infinities, signed zeros, subnormals) among ordinary ones;
the reference sees the same views applied by numpy.

L3f ops are the elementary ones (views, elementwise ops, map, reductions,
matmul, integer ops); L4f ops are the composites (softmax, layer_norm,
attention, gelu) and the transformer block of vyre.conform.tensor_block.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from vyre import tensor as vt
from vyre.conform import tensor_reference as R
from vyre.conform.tensor_block import block_graph, block_reference, block_weights
from vyre.ir import DataType
from vyre.ir import Expr as E

__all__ = [
    "TENSOR_OPS",
    "TensorOp",
    "Variant",
    "input_sets",
    "tensor_fingerprint",
    "variant_of",
]

Inputs = dict[str, np.ndarray]
Outputs = dict[str, np.ndarray]
DTYPES = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}
UINT = {"f32": np.uint32, "f16": np.uint16, "bf16": np.uint16}


@dataclass(frozen=True)
class Variant:
    """One graph of an op: `draw(rng)` makes an input set, `expect(inputs)`
    its outputs by the reference."""

    graph: vt.Graph
    draw: Callable[[np.random.Generator], Inputs]
    expect: Callable[[Inputs], Outputs]


@dataclass(frozen=True)
class TensorOp:
    """An op of the tensor track: `build(rng, k)` makes variant `k` of `variants`."""

    id: str
    composite: bool
    variants: int
    build: Callable[[np.random.Generator, int], Variant]

    @property
    def category(self) -> str:
        return "tensor-composite" if self.composite else "tensor"


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def random_bits(rng: np.random.Generator, shape: Sequence[int], fmt: str) -> np.ndarray:
    """Bit patterns (uint32 / uint16): ordinary values over a wide range of
    exponents, every special kind, some random patterns."""
    width, ebits, fbits, nan, _, _ = R.FORMATS[fmt]
    n = int(np.prod(shape))
    values = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(np.float32)
    ordinary = R.bits(R.from_f32(values, fmt), fmt).astype(np.int64)
    inf = ((1 << ebits) - 1) << fbits
    top = 1 << (width - 1)
    special = np.array([nan, nan | 1, 0, top, 1, top | 3, inf, inf | top], dtype=np.int64)
    pick = rng.random(n)
    out = np.where(pick < 0.12, rng.choice(special, n), ordinary)
    out = np.where(pick > 0.95, rng.integers(0, 1 << width, n), out)
    return out.astype(UINT[fmt]).reshape(tuple(shape))


def user(bits: np.ndarray, fmt: str) -> np.ndarray:
    return bits.view({"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[fmt])


def values(rng: np.random.Generator, shape: Sequence[int], fmt: str = "f32") -> np.ndarray:
    return user(random_bits(rng, shape, fmt), fmt)


def realistic(rng: np.random.Generator, shape: Sequence[int], scale: float = 1.0, specials: bool = True) -> np.ndarray:
    """Normal F32 values, with a rare NaN or infinity when `specials`."""
    out = (rng.standard_normal(tuple(shape)) * scale).astype(np.float32)
    if specials and out.size and rng.random() < 0.3:
        flat = out.reshape(-1)
        flat[int(rng.integers(0, flat.size))] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0], np.float32))
    return out


def dim(rng: np.random.Generator, small: bool = False) -> int:
    """A dim: often 0 or 1, else up to 9 (up to 4 when `small`)."""
    sizes = (0, 1, 1, 2, 3, 4) if small else (0, 1, 2, 3, 5, 7, 9)
    return int(rng.choice(sizes))


def positive(rng: np.random.Generator, most: int = 9) -> int:
    return int(rng.integers(1, most + 1))


def _fmt(k: int) -> str:
    return ("f32", "f16", "bf16")[k % 3]


# ---------------------------------------------------------------------------
# Elementwise ops, map and views
# ---------------------------------------------------------------------------

_BINARY: dict[str, tuple[Callable[[vt.Tensor, vt.Tensor], vt.Tensor], Callable[[Any, Any, str], Any]]] = {
    "add": (vt.add, lambda a, b, f: R.arith("add", a, b, f)),
    "sub": (vt.sub, lambda a, b, f: R.arith("sub", a, b, f)),
    "mul": (vt.mul, lambda a, b, f: R.arith("mul", a, b, f)),
    "div": (vt.div, lambda a, b, f: R.arith("div", a, b, f)),
    "maximum": (vt.maximum, lambda a, b, f: R.pairwise_extreme(a, b, True, f)),  # pyright: ignore[reportUnknownLambdaType]
    "minimum": (vt.minimum, lambda a, b, f: R.pairwise_extreme(a, b, False, f)),  # pyright: ignore[reportUnknownLambdaType]
}

_UNARY: dict[str, tuple[Callable[[vt.Tensor], vt.Tensor], Callable[[Any, str], Any]]] = {
    "neg": (vt.neg, R.neg),
    "abs": (vt.abs, R.absolute),
    "sqrt": (vt.sqrt, R.sqrt),
    "exp": (vt.exp, lambda a, f: R.function("exp", a, f)),
    "log": (vt.log, lambda a, f: R.function("log", a, f)),
    "tanh": (vt.tanh, lambda a, f: R.function("tanh", a, f)),
    "erf": (vt.erf, lambda a, f: R.function("erf", a, f)),
}


def _binary(name: str) -> Callable[[np.random.Generator, int], Variant]:
    fn, ref = _BINARY[name]

    def build(rng: np.random.Generator, k: int) -> Variant:
        fmt = _fmt(k)
        g = vt.Graph(f"{name}_{k}")
        if k == 0:
            a = g.input("a", DTYPES[fmt], ("n", "m"))
            b = g.input("b", DTYPES[fmt], ("m",))
            g.output("c", fn(a, b))
            return Variant(
                g,
                lambda r: (lambda n, m: {"a": values(r, (n, m), fmt), "b": values(r, (m,), fmt)})(dim(r), dim(r)),
                lambda i: {"c": ref(i["a"], i["b"], fmt)},
            )
        rows, cols = positive(rng, 6), positive(rng, 8)
        a = g.input("a", DTYPES[fmt], (rows, cols))
        b = g.input("b", DTYPES[fmt], (cols, 1))
        g.output("c", fn(vt.transpose(a)[::-1, ::2], b))
        return Variant(
            g,
            lambda r: {"a": values(r, (rows, cols), fmt), "b": values(r, (cols, 1), fmt)},
            lambda i: {"c": ref(i["a"].T[::-1, ::2], i["b"], fmt)},
        )

    return build


def _unary(name: str) -> Callable[[np.random.Generator, int], Variant]:
    fn, ref = _UNARY[name]

    def build(rng: np.random.Generator, k: int) -> Variant:
        fmt = _fmt(k)
        g = vt.Graph(f"{name}_{k}")
        if k == 0:
            x = g.input("x", DTYPES[fmt], ("n", 3))
            g.output("y", fn(x))
            return Variant(g, lambda r: {"x": values(r, (dim(r), 3), fmt)}, lambda i: {"y": ref(i["x"], fmt)})
        shape = (positive(rng, 5), positive(rng, 5), positive(rng, 4))
        x = g.input("x", DTYPES[fmt], shape)
        g.output("y", fn(vt.transpose(x, (2, 0, 1))[:, ::-2]))
        return Variant(
            g,
            lambda r: {"x": values(r, shape, fmt)},
            lambda i: {"y": ref(np.ascontiguousarray(i["x"].transpose(2, 0, 1)[:, ::-2]), fmt)},
        )

    return build


def _map(rng: np.random.Generator, k: int) -> Variant:
    """`vt.map` of a body of strict ops: `(x * y) + x` and `sqrt(|x|) - y`."""
    fmt = _fmt(k)
    g = vt.Graph(f"map_{k}")
    x = g.input("x", DTYPES[fmt], ("n", 4) if k == 0 else (3, 4))
    y = g.input("y", DTYPES[fmt], (4,))

    def fused(a: E, b: E) -> E:
        return E.fadd(E.fmul(a, b), a)

    def root(a: E, b: E) -> E:
        return E.fsub(E.fsqrt(E.fabs(a)), b)

    g.output("p", vt.map(fused, x, y))
    g.output("q", vt.map(root, vt.transpose(vt.transpose(x)[::-1]), y))

    def expect(i: Inputs) -> Outputs:
        a, b = i["x"], i["y"]
        flipped = np.ascontiguousarray(a.T[::-1].T)
        return {
            "p": R.arith("add", R.arith("mul", a, b, fmt), a, fmt),
            "q": R.arith("sub", R.sqrt(R.absolute(flipped, fmt), fmt), b, fmt),
        }

    def draw(r: np.random.Generator) -> Inputs:
        return {"x": values(r, (dim(r) if k == 0 else 3, 4), fmt), "y": values(r, (4,), fmt)}

    return Variant(g, draw, expect)


def _views(rng: np.random.Generator, k: int) -> Variant:
    """transpose, basic indexing (negative steps, ints, `...`), broadcast_to
    and reshape (a view, and a copy where the strides cannot express it),
    each result written out by a copy."""
    fmt = _fmt(k)
    shape = (positive(rng, 4), positive(rng, 5), positive(rng, 6))
    g = vt.Graph(f"views_{k}")
    x = g.input("x", DTYPES[fmt], shape)
    g.output("transpose", vt.transpose(x, (1, 2, 0)))
    g.output("index", x[-1, ::-2, 1:])
    g.output("ellipsis", x[..., ::3])
    g.output("broadcast", vt.broadcast_to(x[:, :1], (2, shape[0], 3, shape[2])))
    g.output("reshape", vt.reshape(x, (-1,)))
    g.output("reshape_copy", vt.reshape(vt.transpose(x), (shape[2], -1)))

    def expect(i: Inputs) -> Outputs:
        a = i["x"]
        return {
            "transpose": a.transpose(1, 2, 0),
            "index": a[-1, ::-2, 1:],
            "ellipsis": a[..., ::3],
            "broadcast": np.broadcast_to(a[:, :1], (2, shape[0], 3, shape[2])),
            "reshape": a.reshape(-1),
            "reshape_copy": a.T.reshape(shape[2], -1),
        }

    return Variant(g, lambda r: {"x": values(r, shape, fmt)}, expect)


def _integers(rng: np.random.Generator, k: int) -> Variant:
    """U32 and I32: add, sub, mul, neg (wrapping), maximum, minimum, sum, max, min."""
    dtype, np_type = (DataType.I32, np.int32) if k == 0 else (DataType.U32, np.uint32)
    g = vt.Graph(f"integers_{k}")
    a = g.input("a", dtype, ("n", 5))
    b = g.input("b", dtype, (5,))
    g.output("arith", vt.neg(a * b - a) + b)
    g.output("extremes", vt.maximum(a, b) - vt.minimum(vt.transpose(vt.transpose(a)[::-1]), b))
    g.output("sum", vt.sum(a, 0))
    g.output("max", vt.max(a, 1))
    g.output("min", vt.min(vt.transpose(a), 1))

    def draw(r: np.random.Generator) -> Inputs:
        n = positive(r, 6)
        lo, hi = (-(2**31), 2**31) if k == 0 else (0, 2**32)
        return {"a": r.integers(lo, hi, (n, 5)).astype(np_type), "b": r.integers(lo, hi, (5,)).astype(np_type)}

    def expect(i: Inputs) -> Outputs:
        x, y = i["a"], i["b"]
        with np.errstate(over="ignore"):
            return {
                "arith": (-(x * y - x) + y).astype(np_type),
                "extremes": (np.maximum(x, y) - np.minimum(x[:, ::-1], y)).astype(np_type),
                "sum": x.sum(0, dtype=np_type),
                "max": x.max(1),
                "min": x.T.min(1),
            }

    return Variant(g, draw, expect)


# ---------------------------------------------------------------------------
# Reductions and matmul
# ---------------------------------------------------------------------------


def _sum(order: str) -> Callable[[np.random.Generator, int], Variant]:
    def build(rng: np.random.Generator, k: int) -> Variant:
        fmt = _fmt(k)
        g = vt.Graph(f"sum_{order}_{k}")
        if k == 0:
            x = g.input("x", DTYPES[fmt], ("n", "m"))
            g.output("rows", vt.sum(x, 1, order))
            g.output("cols", vt.sum(x, 0, order))
            return Variant(
                g,
                lambda r: {"x": values(r, (dim(r), int(r.integers(0, 70))), fmt)},
                lambda i: {"rows": _ref_sum(i["x"], 1, order, fmt), "cols": _ref_sum(i["x"], 0, order, fmt)},
            )
        shape = (positive(rng, 4), positive(rng, 40))
        x = g.input("x", DTYPES[fmt], shape)
        g.output("view", vt.sum(vt.transpose(x)[::-3], -1, order))
        return Variant(
            g,
            lambda r: {"x": values(r, shape, fmt)},
            lambda i: {"view": _ref_sum(np.ascontiguousarray(i["x"].T[::-3]), -1, order, fmt)},
        )

    return build


def _ref_sum(x: np.ndarray, axis: int, order: str, fmt: str) -> np.ndarray:
    return R.exact_sum(x, axis, fmt) if order == "exact" else R.ordered_sum(x, axis, order, fmt)


def _extreme(maximum: bool) -> Callable[[np.random.Generator, int], Variant]:
    fn = vt.max if maximum else vt.min

    def build(rng: np.random.Generator, k: int) -> Variant:
        fmt = _fmt(k)
        g = vt.Graph(f"{'max' if maximum else 'min'}_{k}")
        x = g.input("x", DTYPES[fmt], ("n", "m"))
        g.output("rows", fn(x, 1))
        g.output("view", fn(vt.transpose(x)[::-1], 1))
        return Variant(
            g,
            lambda r: {"x": values(r, (positive(r, 5), positive(r, 30)), fmt)},
            lambda i: {
                "rows": R.extreme(i["x"], 1, maximum, fmt),
                "view": R.extreme(np.ascontiguousarray(i["x"].T[::-1]), 1, maximum, fmt),
            },
        )

    return build


def _matmul(mode: str) -> Callable[[np.random.Generator, int], Variant]:
    ref = R.matmul_exact if mode == "exact" else R.matmul_sequential

    def build(rng: np.random.Generator, k: int) -> Variant:
        fmt = _fmt(k)
        g = vt.Graph(f"matmul_{mode}_{k}")
        if k == 0:
            a = g.input("a", DTYPES[fmt], ("m", "k"))
            b = g.input("b", DTYPES[fmt], ("k", "n"))
            g.output("c", vt.matmul(a, b, mode))

            def draw(r: np.random.Generator) -> Inputs:
                m, inner, n = dim(r, True), dim(r), dim(r, True)
                return {"a": values(r, (m, inner), fmt), "b": values(r, (inner, n), fmt)}

            return Variant(g, draw, lambda i: {"c": ref(i["a"], i["b"], fmt)})
        m, inner, n = positive(rng, 4), positive(rng, 9), positive(rng, 4)
        a = g.input("a", DTYPES[fmt], (2, inner, m))
        b = g.input("b", DTYPES[fmt], (n, inner))
        g.output("c", vt.matmul(vt.transpose(a, (0, 2, 1))[:, ::-1], vt.transpose(b), mode))
        return Variant(
            g,
            lambda r: {"a": values(r, (2, inner, m), fmt), "b": values(r, (n, inner), fmt)},
            lambda i: {"c": ref(np.ascontiguousarray(i["a"].transpose(0, 2, 1)[:, ::-1]), np.ascontiguousarray(i["b"].T), fmt)},
        )

    return build


# ---------------------------------------------------------------------------
# Composites
# ---------------------------------------------------------------------------


def _softmax(rng: np.random.Generator, k: int) -> Variant:
    g = vt.Graph(f"softmax_{k}")
    if k == 0:
        x = g.input("x", DataType.F32, ("n", "m"))
        g.output("last", vt.softmax(x))
        g.output("first", vt.softmax(x, 0))
        return Variant(
            g,
            lambda r: {"x": realistic(r, (positive(r, 5), positive(r, 40)), 5.0)},
            lambda i: {"last": R.softmax(i["x"], -1), "first": R.softmax(i["x"], 0)},
        )
    shape = (positive(rng, 3), positive(rng, 4), positive(rng, 9))
    x = g.input("x", DataType.F32, shape)
    g.output("view", vt.softmax(vt.transpose(x, (2, 0, 1))[::-1], 1))
    return Variant(
        g,
        lambda r: {"x": realistic(r, shape, 8.0)},
        lambda i: {"view": R.softmax(np.ascontiguousarray(i["x"].transpose(2, 0, 1)[::-1]), 1)},
    )


def _layer_norm(rng: np.random.Generator, k: int) -> Variant:
    g = vt.Graph(f"layer_norm_{k}")
    if k == 0:
        x = g.input("x", DataType.F32, ("n", "c"))
        w = g.input("w", DataType.F32, ("c",))
        b = g.input("b", DataType.F32, ("c",))
        g.output("y", vt.layer_norm(x, w, b))

        def draw(r: np.random.Generator) -> Inputs:
            n, c = positive(r, 4), positive(r, 40)
            return {"x": realistic(r, (n, c), 3.0) + np.float32(r.integers(-50, 50)), "w": realistic(r, (c,)), "b": realistic(r, (c,))}

        return Variant(g, draw, lambda i: {"y": R.layer_norm(i["x"], i["w"], i["b"])})
    shape = (positive(rng, 3), positive(rng, 4), positive(rng, 12))
    x = g.input("x", DataType.F32, shape)
    w = g.input("w", DataType.F32, (shape[0],))
    g.output("view", vt.layer_norm(vt.transpose(x, (1, 2, 0)), w, w[::-1], eps=1e-3))
    return Variant(
        g,
        lambda r: {"x": realistic(r, shape, 2.0), "w": realistic(r, (shape[0],))},
        lambda i: {"view": R.layer_norm(np.ascontiguousarray(i["x"].transpose(1, 2, 0)), i["w"], i["w"][::-1], 1e-3)},
    )


def _attention(rng: np.random.Generator, k: int) -> Variant:
    causal = k == 0
    g = vt.Graph(f"attention_{k}")
    if causal:
        q = g.input("q", DataType.F32, (2, "t", 3))
        kk = g.input("k", DataType.F32, (2, "t", 3))
        v = g.input("v", DataType.F32, (1, "t", 4))
        g.output("o", vt.attention(q, kk, v, causal=True))

        def draw(r: np.random.Generator) -> Inputs:
            t = positive(r, 12)
            return {"q": realistic(r, (2, t, 3), 2.0), "k": realistic(r, (2, t, 3), 2.0), "v": realistic(r, (1, t, 4))}

        return Variant(g, draw, lambda i: {"o": R.attention(i["q"], i["k"], i["v"], True)})
    heads, depth, tokens, keys = positive(rng, 2), positive(rng, 4), positive(rng, 6), positive(rng, 9)
    q = g.input("q", DataType.F32, (tokens, heads, depth))
    kk = g.input("k", DataType.F32, (heads, depth, keys))
    v = g.input("v", DataType.F32, (heads, keys, 3))
    g.output("o", vt.attention(vt.transpose(q, (1, 0, 2)), vt.transpose(kk, (0, 2, 1)), v))
    return Variant(
        g,
        lambda r: {"q": realistic(r, (tokens, heads, depth), 2.0), "k": realistic(r, (heads, depth, keys), 2.0), "v": realistic(r, (heads, keys, 3))},
        lambda i: {"o": R.attention(np.ascontiguousarray(i["q"].transpose(1, 0, 2)), np.ascontiguousarray(i["k"].transpose(0, 2, 1)), i["v"])},
    )


def _gelu(rng: np.random.Generator, k: int) -> Variant:
    g = vt.Graph(f"gelu_{k}")
    if k == 0:
        x = g.input("x", DataType.F32, ("n", 5))
        g.output("y", vt.gelu(x))
        return Variant(g, lambda r: {"x": values(r, (dim(r), 5))}, lambda i: {"y": R.gelu(i["x"])})
    shape = (positive(rng, 4), positive(rng, 6))
    x = g.input("x", DataType.F32, shape)
    b = g.input("b", DataType.F32, (shape[0],))
    g.output("y", vt.gelu(vt.transpose(x)[::-1] + b))
    return Variant(
        g,
        lambda r: {"x": realistic(r, shape, 3.0), "b": realistic(r, (shape[0],))},
        lambda i: {"y": R.gelu(R.arith("add", i["x"].T[::-1], i["b"]))},
    )


def _block(rng: np.random.Generator, k: int) -> Variant:
    """Variant 0: (1, T, 16) with 2 heads and dynamic tokens; 1: (2, 5, 8), 4 heads."""
    batch, width, heads = (1, 16, 2) if k == 0 else (2, 8, 4)
    tokens: int | str = "t" if k == 0 else 5
    graph = block_graph(f"block_{k}", batch, tokens, width, heads)

    def draw(r: np.random.Generator) -> Inputs:
        length = positive(r, 8) if k == 0 else 5
        return {"x": realistic(r, (batch, length, width), 1.0, specials=False), **block_weights(r, width)}

    return Variant(graph, draw, lambda i: block_reference(i, heads))


def _ops() -> dict[str, TensorOp]:
    table: list[TensorOp] = []
    for name in _BINARY:
        table.append(TensorOp(f"tensor.{name}", False, 3, _binary(name)))
    for name in _UNARY:
        table.append(TensorOp(f"tensor.{name}", False, 3, _unary(name)))
    table.append(TensorOp("tensor.map", False, 3, _map))
    table.append(TensorOp("tensor.views", False, 3, _views))
    table.append(TensorOp("tensor.integers", False, 2, _integers))
    for order in ("exact", "sequential", "tree"):
        table.append(TensorOp(f"tensor.sum.{order}", False, 3, _sum(order)))
    table.append(TensorOp("tensor.max", False, 3, _extreme(True)))
    table.append(TensorOp("tensor.min", False, 3, _extreme(False)))
    for mode in ("exact", "sequential"):
        table.append(TensorOp(f"tensor.matmul.{mode}", False, 3, _matmul(mode)))
    table.append(TensorOp("tensor.softmax", True, 2, _softmax))
    table.append(TensorOp("tensor.layer_norm", True, 2, _layer_norm))
    table.append(TensorOp("tensor.attention", True, 2, _attention))
    table.append(TensorOp("tensor.gelu", True, 2, _gelu))
    table.append(TensorOp("tensor.block", True, 2, _block))
    return {op.id: op for op in table}


TENSOR_OPS: Mapping[str, TensorOp] = _ops()
"""Every op of the tensor track by id, in certificate order."""


def _rng(seed: int, op_id: str, label: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}|tensor|{op_id}|{label}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def variant_of(op: TensorOp, seed: int, k: int) -> Variant:
    return op.build(_rng(seed, op.id, f"graph{k}"), k)


def input_sets(op: TensorOp, variant: Variant, seed: int, k: int, count: int) -> list[dict[str, np.ndarray]]:
    return [variant.draw(_rng(seed, op.id, f"inputs{k}.{j}")) for j in range(count)]


def tensor_fingerprint(op_id: str) -> dict[str, Any]:
    """What the registry hash covers for a tensor-track op: the IR of the
    kernels its variants lower to (built from a fixed seed)."""
    op = TENSOR_OPS.get(op_id)
    if op is None:
        return {"id": op_id, "missing": True}
    from vyre.tensor import kernels
    from vyre.text import print_module

    lowered: list[str] = []
    for k in range(op.variants):
        programs = kernels(variant_of(op, 0, k).graph)
        text = "\n".join(print_module(p.module) for p in programs)
        lowered.append(hashlib.sha256(text.encode()).hexdigest())
    return {"id": op.id, "category": op.category, "variants": op.variants, "kernels": lowered}
