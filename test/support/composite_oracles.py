"""Independent oracles of the tensor composites (softmax, layer_norm, gelu,
attention) on F32 bit patterns, written from docs/tensors.md's definitions of
each as a sequence of strict operations, sharing no code with vyre: every
elementwise step is `float_oracles.evaluate` (exact rationals, numpy float64
for the IEEE operations, MPFR for exp and erf), every reduction and product
`tensor_oracles` (exact sums and dot products rounded once, maximumNumber).

Arrays hold uint32 patterns; `Invalid`-worthy shapes are the caller's to
refuse (this module assumes shapes the contract accepts).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import float_oracles
import tensor_oracles as O

__all__ = ["attention", "constant", "gelu", "layer_norm", "softmax"]

NEG_INFINITY = 0xFF80_0000
GELU_C = 0.7071067811865476


def constant(value: float) -> np.ndarray:
    """The F32 pattern of `value` rounded to F32 (numpy's conversion), as a 0-d array."""
    return np.array(value, dtype=np.float32).reshape(()).view(np.uint32)


def _map(name: str, *operands: np.ndarray) -> np.ndarray:
    """The F32 scalar op `name` elementwise, operands broadcast as numpy does."""
    shape = np.broadcast_shapes(*(a.shape for a in operands))
    flat = [np.broadcast_to(a, shape).ravel() for a in operands]
    out = [float_oracles.evaluate(name, "", "f32", *(int(a[i]) for a in flat)) for i in range(int(np.prod(shape)))]
    return np.array(out, dtype=np.uint32).reshape(shape)


def _keep(bits: np.ndarray, axis: int, reduce: Callable[[list[int]], int]) -> np.ndarray:
    return np.expand_dims(O.along(bits, axis, reduce, np.uint32), axis)


def _maximum(lane: list[int]) -> int:
    return O.extreme(lane, "f32", True)


def _exact(lane: list[int]) -> int:
    return O.exact_sum(lane, "f32")


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """`m = max(x, axis)`; `e = exp(x - m)`; `s = sum(e, axis, "exact")`; `e / s`."""
    m = _keep(x, axis, _maximum)
    e = _map("exp", _map("sub", x, m))
    s = _keep(e, axis, _exact)
    return _map("div", e, s)


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """`mu = sum(x) / n`; `d = x - mu`; `v = sum(d * d) / n`; `r = 1 / sqrt(v + eps)`;
    `(d * r) * weight + bias`, over the last axis, n = f32(N), exact sums."""
    n = constant(float(x.shape[-1]))
    mu = _map("div", _keep(x, -1, _exact), n)
    d = _map("sub", x, mu)
    v = _map("div", _keep(_map("mul", d, d), -1, _exact), n)
    r = _map("div", constant(1.0), _map("sqrt", _map("add", v, constant(eps))))
    out = _map("add", _map("mul", _map("mul", d, r), weight), bias)
    return np.ascontiguousarray(np.broadcast_to(out, x.shape))


def gelu(x: np.ndarray) -> np.ndarray:
    """`(0.5 * x) * (1 + erf(x * c))`, c = f32(0.7071067811865476)."""
    inner = _map("erf", _map("mul", x, constant(GELU_C)))
    return _map("mul", _map("mul", constant(0.5), x), _map("add", constant(1.0), inner))


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    """`s = matmul(q, kT, "exact") * c`, `c = 1 / sqrt(f32(d))`; causal: `-inf`
    above the diagonal; `matmul(softmax(s, -1), v, "exact")`."""
    c = _map("div", constant(1.0), _map("sqrt", constant(float(q.shape[-1]))))
    s = _map("mul", O.matmul(q, np.swapaxes(k, -1, -2), "f32", "exact"), c)
    if causal:
        above = np.triu(np.ones(s.shape[-2:], dtype=bool), k=1)
        s = np.where(above, np.uint32(NEG_INFINITY), s).astype(np.uint32)
    return O.matmul(softmax(s, -1), v, "f32", "exact")
