"""The tensor-text fuzzer: mutated tensor IR through `vyre-opt`.

Seeds are printed `vtensor` graphs (every op, static and dynamic dims, derived
sizes, strided views, `vtensor.map` bodies) built with `vyre.tensor`, and the
schedule `lower-tensors` prints for one of them (kernels beside a
`vtensor.schedule`). Each input applies one to four mutations: the text
fuzzer's (characters, spans, splices, numbers, nesting, strings, lines,
truncation) and the tensor level's own (op names, layout and attribute
keywords swapped, dims replaced by edge values and malformed symbolic sizes).
One input in eight also runs `-p lower-tensors` (its first line says so).

The oracle: `vyre-opt` (run in-process, reading the input as stdin) exits 0
or 1 and never lets a Python exception out; on 1 the first line of its
report is located, `<stdin>:LINE:COL: error: ...` (the one exception: an input
nested deeper than the parser's stack, `TOO_DEEP`); on 0 without a pass the
printed IR is a fixed point (`vyre-opt` prints it back unchanged).
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import sys
from collections.abc import Callable
from functools import cached_property

from vyre.ir import Expr

from vyre.testing.fuzz.base import OracleFailure
from vyre.testing.fuzz.shrink import shrink_text
from vyre.testing.fuzz.text import EDGE_NUMBERS, MUTATIONS

__all__ = ["LOWER", "TensorTextFuzzer", "check_tensor_text", "seed_graphs"]

LOWER = "// lower-tensors\n"
"""First line of an input that also runs `-p lower-tensors`."""
TENSOR_KEYWORDS = (
    "vtensor.graph", "vtensor.output", "vtensor.transpose", "vtensor.index", "vtensor.broadcast_to",
    "vtensor.reshape", "vtensor.copy", "vtensor.add", "vtensor.sub", "vtensor.mul", "vtensor.div",
    "vtensor.maximum", "vtensor.minimum", "vtensor.neg", "vtensor.abs", "vtensor.sqrt", "vtensor.map",
    "vtensor.yield", "vtensor.sum", "vtensor.max", "vtensor.min", "vtensor.matmul", "vtensor.schedule",
    "vtensor.exp", "vtensor.log", "vtensor.tanh", "vtensor.erf", "vtensor.gelu", "vtensor.softmax",
    "vtensor.layer_norm", "vtensor.attention", "eps", "causal",
    "vtensor.input", "!vtensor.tensor", "strides", "offset", "axis", "order", "accumulate", "exact",
    "sequential", "tree", "f32", "f16", "bf16", "u32", "i32", "u64", "bool", "min", "max",
)  # fmt: skip
DIMS = (
    "0", "1", "-1", "n", "m", "k", '"n + 1"', '"n // 0"', '"min(9, n) // 2"', '"n +"', '"(((n"', '"n * n * n"',
    '"99999999999999999999 * n"', '"n % -3"', '"max(n, m) - 7"', '"-n"', '"n ** 2"', '""', "4294967296",
    "18446744073709551616", '"' + "(" * 300 + "n" + ")" * 300 + '"',
)  # fmt: skip
_DIM_LIST = re.compile(r"(?<=tensor<)(f32|f16|bf16|u32|i32)\[([^\]]*)\]")


def seed_graphs(seed: int) -> list[str]:
    """Printed graphs of every tensor op: fixed ones and a few random shapes."""
    from vyre import tensor as vt
    from vyre.ir import DataType

    rng = random.Random(f"tensor-text:{seed}")
    texts: list[str] = []
    for k in range(6):
        f = rng.choice((DataType.F32, DataType.F16, DataType.BF16))
        n: int | str = rng.choice(("n", 5, 1, 0))
        g = vt.Graph(f"g{k}")
        x = g.input("x", f, (n, 8))
        w = g.input("w", f, (8, rng.choice((4, "m"))))
        b = g.input("b", DataType.F32, (w.shape[1],))
        i = g.input("i", rng.choice((DataType.U32, DataType.I32)), (3, 2))
        t = vt.transpose(w)
        s = x[1:9:2, ::-1]
        e = w[-1]
        bb = vt.broadcast_to(b, (n, w.shape[1]))
        r = vt.reshape(t, (-1,))
        mm = vt.matmul(x, w, rng.choice(("exact", "sequential")))
        add = vt.maximum(vt.div(vt.mul(vt.sub(vt.add(mm, b), bb), mm), bb), mm)
        mp = vt.map(_fma_self, vt.sqrt(vt.abs(add)), b)
        g.output("se", vt.sum(mp, 1, rng.choice(("exact", "sequential", "tree"))))
        g.output("mx", vt.max(vt.neg(vt.minimum(i, i)), 0))
        g.output("mn", vt.min(x, -1))
        g.output("s", s)
        g.output("e", e)
        g.output("r", r)
        texts.append(str(g))
    texts.append(_composite_graph(rng))
    return texts


def _composite_graph(rng: random.Random) -> str:
    """The F32 functions and composites: exp, log, tanh, erf, gelu, softmax,
    layer_norm and attention (causal or not), over a dynamic dim."""
    from vyre import tensor as vt
    from vyre.ir import DataType

    f = DataType.F32
    n: int | str = rng.choice(("n", 3))
    g = vt.Graph("g_composites")
    x = g.input("x", f, (n, 4))
    w = g.input("w", f, (4,))
    k = g.input("k", f, (2, n, 4))
    v = g.input("v", f, (n, 3))
    h = vt.gelu(vt.erf(vt.tanh(vt.log(vt.exp(x)))))
    g.output("sm", vt.softmax(h, rng.choice((0, 1, -1))))
    g.output("ln", vt.layer_norm(x, w, w, rng.choice((1e-5, 0.0))))
    g.output("at", vt.attention(x, k, v, rng.random() < 0.5))
    return str(g)


def _fma_self(p: Expr, q: Expr) -> Expr:
    from vyre.ir import Expr as E

    return E.fma(p, q, p)


class TensorTextFuzzer:
    name = "tensor-text"
    extension = "mlir"

    def __init__(self, seed: int = 0):
        self.seed = seed

    @cached_property
    def seeds(self) -> tuple[str, ...]:
        graphs = seed_graphs(self.seed)
        code, lowered, _ = run_vyre_opt(graphs[0], ["-p", "lower-tensors"])
        return tuple(graphs + ([lowered] if code == 0 else []))

    def generate(self, index: int) -> bytes:
        rng = random.Random(f"tensor-text:{self.seed}:{index}")
        text = rng.choice(self.seeds)
        for _ in range(rng.randint(1, 4)):
            text = rng.choice(_TENSOR_MUTATIONS)(rng, text, self.seeds)
        if rng.random() < 0.125:
            text = LOWER + text
        return text.encode("utf-8", "surrogatepass")

    def check(self, data: bytes) -> None:
        check_tensor_text(data.decode("utf-8", "replace"))

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        return shrink_text(data, still_fails)


def run_vyre_opt(text: str, args: list[str]) -> tuple[int, str, str]:
    """`vyre-opt - ARGS` on `text` in this process: (exit status, stdout, stderr)."""
    from vyre.tools.vyre_opt import main

    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8", "surrogatepass")))
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(["-", *args])
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 1
    finally:
        sys.stdin = stdin
    return code, out.getvalue(), err.getvalue()


_LOCATED = re.compile(r"<stdin>:\d+:\d+: error: ")
TOO_DEEP = "<stdin>: error: the input is nested too deeply"
"""vyre-opt's one unlocated report: an input nested deeper than Python's stack
lets xDSL's recursive parser go (about 100 levels; `parse_ir` reads 1,024)."""


def _shape_of(message: str) -> str:
    """A message with its numbers and quoted parts blanked: one bug, one shape."""
    return re.sub(r"\d+|'[^']*'|`[^`]*`|\"[^\"]*\"", "_", message)[:120]


def check_tensor_text(text: str) -> None:
    """The oracle (module doc)."""
    args = ["-p", "lower-tensors"] if text.startswith(LOWER) else []
    code, out, err = run_vyre_opt(text, args)
    if code not in (0, 1):
        raise OracleFailure(f"vyre-opt exited with status {code}\n{err[-2000:]}")
    if code == 1:
        first = err.splitlines()[0] if err else ""
        if not _LOCATED.match(first) and first != TOO_DEEP:
            raise OracleFailure(f"vyre-opt: an error without a location: {_shape_of(first)}\n{first[:500]}")
        return
    if args:
        return
    again, printed, problems = run_vyre_opt(out, [])
    if again != 0:
        raise OracleFailure(f"vyre-opt refuses its own output\n{problems[:1000]}")
    if printed != out:
        raise OracleFailure("vyre-opt's output is not a fixed point of parse and print")


# -- the tensor level's mutations ------------------------------------------------


def _tensor_keyword(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    words = [k for k in TENSOR_KEYWORDS if k in text]
    if not words:
        return text
    word = rng.choice(words)
    spots = [m.start() for m in re.finditer(re.escape(word), text)]
    at = rng.choice(spots)
    return text[:at] + rng.choice(TENSOR_KEYWORDS) + text[at + len(word) :]


def _dim(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    lists = list(_DIM_LIST.finditer(text))
    if not lists:
        return text
    found = rng.choice(lists)
    dims = found.group(2).split(", ")
    roll = rng.random()
    if roll < 0.6 or not dims:
        dims[rng.randrange(len(dims))] = rng.choice(DIMS) if dims else rng.choice(DIMS)
    elif roll < 0.8:
        dims.insert(rng.randrange(len(dims) + 1), rng.choice(DIMS))
    else:
        del dims[rng.randrange(len(dims))]
    return text[: found.start(2)] + ", ".join(dims) + text[found.end(2) :]


def _attribute_number(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    spots = list(re.finditer(r"(axis|offset) (-?\d+)|\[(-?\d+(, -?\d+)*)\]", text))
    if not spots:
        return text
    found = rng.choice(spots)
    start, end = found.span()
    replacement = rng.choice(EDGE_NUMBERS + ("-5", "2147483648", "-9223372036854775809"))
    inner = text[start:end]
    numbers = list(re.finditer(r"-?\d+", inner))
    pick = rng.choice(numbers)
    return text[: start + pick.start()] + replacement + text[start + pick.end() :]


def _strides(rng: random.Random, text: str, seeds: tuple[str, ...]) -> str:
    spots = [m.end() for m in re.finditer(r"\]>", text)]
    if not spots:
        return text
    at = rng.choice(spots) - 1
    extra = rng.choice((" strides[0]", " strides[1, -1]", " offset 7", " strides[99999999999] offset -3", " offset \"n\""))
    return text[:at] + extra + text[at:]


_TENSOR_MUTATIONS: tuple[Callable[[random.Random, str, tuple[str, ...]], str], ...] = (
    *MUTATIONS, _tensor_keyword, _tensor_keyword, _dim, _dim, _dim, _attribute_number, _strides,
)  # fmt: skip
