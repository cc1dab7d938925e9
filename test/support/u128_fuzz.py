"""The u128 fuzzer: random expression trees over `u128` on the interpreter and
on wgpu against Python's integers.

A case is JSON: the rows of the input buffers (`a`, `b`: `u128`, `w`: `u32`),
and outputs, each an element type (`u128`, or `u32` for comparisons, counts
and casts down) and an expression tree (`u128_oracles`' form) stored to
`o<k>[i]` by invocation `i`. The trees use every operator `u128` has (add,
sub, mul, div, mod, the bitwise ones, shl, shr, the six comparisons,
bit_not, popcount, clz, ctz), select, the casts to and from `u128` through
`u32`, `i32`, `bool`, `u64`, `vec2u32` and `vec4u32`, and a few `u32`
operations on the counts; their leaves are literals and loads (`i + 1` and
past the end too: 0), biased to the edges (0, 1, 2^32 - 1, 2^32, 2^64 +- 1,
2^127, 2^128 - 1, powers of two and their neighbours, shift amounts near 128).

About one case in ten adds an invalid output (a `u128` beside a `u32` operand,
an operator `u128` lacks, a cast the table leaves out, a value stored to a
buffer of another type): building or running the program must raise a
`ValueError`/`TypeError` with a `vyre IR validation:` message, on every backend.

The oracle (`u128_oracles.py`) is written from docs/semantics.md and shares no
code with vyre. The interpreter must give the oracle's value in every row, and
wgpu the interpreter's words. `U128Fuzzer` is the `u128` target of
`python -m vyre.testing.fuzz`; a failure shrinks to fewer outputs, fewer rows
and smaller trees (a node replaced by an operand or by a literal 0).
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

import u128_oracles as O

__all__ = ["U128Fuzzer", "build_program", "check_u128_case", "generate_case", "oracle_rows"]

MASK = (1 << 128) - 1
WORKGROUP = 16
"""Invocations of the one workgroup (rows are at most this many: the others store past the end)."""
VALUE_OPS = ("add", "sub", "mul", "div", "mod", "bit_and", "bit_or", "bit_xor", "shl", "shr")
COMPARISONS = O.COMPARISONS
COUNTS = ("popcount", "clz", "ctz")
U32_OPS = ("add", "sub", "mul", "bit_xor", "shr", "lt", "and", "or")
NARROW = ("u32", "i32", "bool", "u64", "vec2u32", "vec4u32")
"""The types a value takes on its way to or from `u128` through casts."""
MAX_DIVISIONS = 3
"""div/mod per case: each is a long loop in WGSL that lavapipe compiles for a while."""

Tree = list[Any]


def _edges() -> tuple[int, ...]:
    fixed = [0, 1, 2, 3, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1, 2**64, 2**64 + 1, 2**96 - 1,
             2**96, 2**127 - 1, 2**127, 2**127 + 1, MASK - 1, MASK]  # fmt: skip
    return tuple(fixed)


EDGES = _edges()
AMOUNTS = (0, 1, 31, 32, 33, 63, 64, 65, 96, 127, 128, 129, 255, 256, 2**32 - 1)
U32_EDGES = (0, 1, 2, 31, 32, 127, 128, 2**31 - 1, 2**31, 2**32 - 1)


def value128(rnd: random.Random) -> int:
    """An edge, a power of two or its neighbour, a shift amount, or random bits of a random width."""
    roll = rnd.random()
    if roll < 0.35:
        return rnd.choice(EDGES)
    if roll < 0.6:
        return ((1 << rnd.randrange(128)) + rnd.choice((-1, 0, 0, 1))) & MASK
    if roll < 0.7:
        return rnd.choice(AMOUNTS)
    return rnd.getrandbits(rnd.choice((8, 16, 32, 48, 64, 96, 127, 128)))


def value32(rnd: random.Random) -> int:
    return rnd.choice(U32_EDGES) if rnd.random() < 0.6 else rnd.getrandbits(32)


class _Maker:
    """Random trees of one case (keeps count of its divisions)."""

    def __init__(self, rnd: random.Random):
        self.rnd = rnd
        self.divisions = 0

    def leaf(self, kind: str) -> Tree:
        rnd = self.rnd
        if rnd.random() < 0.4:
            return ["lit", kind, value128(rnd) if kind == "u128" else value32(rnd)]
        offset = rnd.choice((0, 0, 0, 0, 1, WORKGROUP))
        return ["load", rnd.choice("ab") if kind == "u128" else "w", offset]

    def u128(self, depth: int) -> Tree:
        rnd = self.rnd
        if depth <= 0 or rnd.random() < 0.2:
            return self.leaf("u128")
        roll = rnd.random()
        if roll < 0.55:
            op = rnd.choice(VALUE_OPS)
            if op in ("div", "mod"):
                if self.divisions >= MAX_DIVISIONS:
                    op = rnd.choice(("add", "mul", "bit_xor"))
                else:
                    self.divisions += 1
            right = ["lit", "u128", rnd.choice(AMOUNTS)] if op in ("shl", "shr") and rnd.random() < 0.5 else None
            return ["bin", op, self.u128(depth - 1), right or self.u128(depth - 1)]
        if roll < 0.65:
            return ["un", "bit_not", self.u128(depth - 1)]
        if roll < 0.9:
            return ["cast", "u128", self.narrow(rnd.choice(NARROW), depth - 1)]
        return ["select", self.u32(depth - 1), self.u128(depth - 1), self.u128(depth - 1)]

    def narrow(self, kind: str, depth: int) -> Tree:
        """A value of a type other than `u128`: a cast of a `u128` (or, for the
        scalars, of a `u32`) tree."""
        if kind == "u32":
            return self.u32(depth)
        source = self.u32(depth) if kind in ("i32", "bool") and self.rnd.random() < 0.4 else self.u128(depth)
        return ["cast", kind, source]

    def u32(self, depth: int) -> Tree:
        rnd = self.rnd
        if depth <= 0 or rnd.random() < 0.15:
            return self.leaf("u32")
        roll = rnd.random()
        if roll < 0.35:
            return ["bin", rnd.choice(COMPARISONS), self.u128(depth - 1), self.u128(depth - 1)]
        if roll < 0.6:
            return ["un", rnd.choice(COUNTS), self.u128(depth - 1)]
        if roll < 0.85:
            source = rnd.choice(("u128", "u128", "i32", "bool", "u64", "vec2u32", "vec4u32"))
            inner = self.u128(depth - 1) if source == "u128" else self.narrow(source, depth - 1)
            return ["cast", "u32", inner]
        return ["bin", rnd.choice(U32_OPS), self.u32(depth - 1), self.u32(depth - 1)]

    def invalid(self) -> dict[str, Any]:
        """An output the rules refuse (module doc)."""
        rnd = self.rnd
        x, y = self.u128(1), self.u32(1)
        kind = rnd.randrange(6)
        if kind == 0:  # V144: a u128 beside a u32 (the shift amount too)
            pair = [x, y] if rnd.random() < 0.5 else [y, x]
            return {"type": "u128", "expr": ["bin", rnd.choice(VALUE_OPS + COMPARISONS), *pair]}
        if kind == 1:  # V145: and, or
            return {"type": "u32", "expr": ["bin", rnd.choice(("and", "or")), x, self.u128(1)]}
        if kind == 2:  # V145: negate, logical_not, reverse_bits
            return {"type": "u128", "expr": ["un", rnd.choice(("negate", "logical_not", "reverse_bits")), x]}
        if kind == 3:  # a cast the table leaves out
            source, target = rnd.choice((("u128", "f32"), ("u128", "f16"), ("u64", "vec4u32"), ("vec2u32", "vec4u32")))
            inner = x if source == "u128" else ["cast", source, x]
            return {"type": "u32", "expr": ["cast", "u32", ["cast", target, inner]]}
        if kind == 4:  # select of a u128 or a u32
            return {"type": "u128", "expr": ["select", self.u32(1), x, y]}
        return {"type": "u32", "expr": x} if rnd.random() < 0.5 else {"type": "u128", "expr": y}


def generate_case(rnd: random.Random) -> dict[str, Any]:
    """A case (module doc): 1-16 rows, 1-3 outputs of depth 2-5, one case
    in ten with an invalid output."""
    rows = rnd.choice((1, 2, 3, 4, 7, 8, 12, 16))
    maker = _Maker(rnd)
    inputs = {
        "a": [value128(rnd) for _ in range(rows)],
        "b": [value128(rnd) for _ in range(rows)],
        "w": [value32(rnd) for _ in range(rows)],
    }
    outputs: list[dict[str, Any]] = []
    for _ in range(rnd.choice((1, 2, 3, 3))):
        kind = "u128" if rnd.random() < 0.7 else "u32"
        depth = rnd.choice((2, 3, 4, 5))
        outputs.append({"type": kind, "expr": maker.u128(depth) if kind == "u128" else maker.u32(depth)})
    if rnd.random() < 0.1:
        outputs.insert(rnd.randrange(len(outputs) + 1), maker.invalid())
    return {"inputs": inputs, "outputs": outputs}


# ---------------------------------------------------------------------------
# The program, its inputs, its results
# ---------------------------------------------------------------------------


def _expr(tree: Sequence[Any]) -> Any:
    from vyre.ir import BinOp, DataType, UnOp
    from vyre.ir import Expr as E

    head = tree[0]
    if head == "lit":
        return E.u128(int(tree[2])) if tree[1] == "u128" else E.u32(int(tree[2]))
    if head == "load":
        index = E.var("i") if int(tree[2]) == 0 else E.add(E.var("i"), E.u32(int(tree[2])))
        return E.load(str(tree[1]), index)
    if head == "select":
        return E.select(_expr(tree[1]), _expr(tree[2]), _expr(tree[3]))
    if head == "cast":
        return E.cast(DataType(str(tree[1])), _expr(tree[2]))
    if head == "un":
        return E.unop(UnOp(str(tree[1])), _expr(tree[2]))
    return E.binop(BinOp(str(tree[1])), _expr(tree[2]), _expr(tree[3]))


def build_program(case: dict[str, Any]) -> Any:
    """`o<k>[i] = tree_k` for every invocation `i` of one workgroup."""
    from vyre.ir import BufferDecl, DataType, Program
    from vyre.ir import Expr as E
    from vyre.ir import Node as N

    buffers = [BufferDecl.read(name, k, DataType(kind)) for k, (name, kind) in enumerate(O.INPUT_TYPES.items())]
    outputs: list[dict[str, Any]] = case["outputs"]
    for k, out in enumerate(outputs):
        buffers.append(BufferDecl.read_write(f"o{k}", len(buffers), DataType(str(out["type"]))))
    body = [N.let("i", E.invocation_id(0))]
    body += [N.store(f"o{k}", E.var("i"), _expr(out["expr"])) for k, out in enumerate(outputs)]
    return Program(buffers, (WORKGROUP, 1, 1), body, name="u128_fuzz")


def _words(values: Sequence[int], kind: str) -> np.ndarray:
    if kind == "u32":
        return np.array(values, dtype=np.uint32)
    rows = [[(v >> (32 * k)) & 0xFFFF_FFFF for k in range(4)] for v in values]
    return np.array(rows, dtype=np.uint32).reshape(len(values), 4)


def _ints(array: Any, kind: str) -> list[int]:
    words = np.asarray(array, dtype=np.uint32)
    if kind == "u32":
        return [int(w) for w in words.ravel()]
    return [sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in words.reshape(-1, 4)]


def _arguments(case: dict[str, Any]) -> dict[str, Any]:
    inputs: dict[str, list[int]] = case["inputs"]
    rows = len(inputs["a"])
    arguments: dict[str, Any] = {name: _words(inputs[name], kind) for name, kind in O.INPUT_TYPES.items()}
    for k, out in enumerate(case["outputs"]):
        arguments[f"o{k}"] = _words([0] * rows, str(out["type"]))
    return arguments


def oracle_rows(case: dict[str, Any]) -> list[list[int]] | None:
    """Every output's values row by row (None when the rules refuse the program)."""
    inputs: dict[str, list[int]] = case["inputs"]
    rows = len(inputs["a"])
    try:
        for out in case["outputs"]:  # the types, whatever the row count
            O.store(str(out["type"]), out["expr"], 0, inputs)
        return [[O.store(str(out["type"]), out["expr"], r, inputs) for r in range(rows)] for out in case["outputs"]]
    except O.Invalid:
        return None


def _failure(first_line: str, details: Sequence[str] = ()) -> Exception:
    from vyre.testing.fuzz.base import OracleFailure

    shown = list(details[:6]) + ([f"... and {len(details) - 6} more"] if len(details) > 6 else [])
    return OracleFailure("\n".join([first_line, *shown]))


@functools.cache
def _have_gpu() -> bool:
    try:
        from vyre.runtime.adapters import choose_adapter

        choose_adapter()
    except Exception:  # noqa: BLE001 - no wgpu, no adapter: interpreter and oracle only
        return False
    return True


def _run(case: dict[str, Any], backend: str) -> dict[str, Any]:
    import vyre

    return vyre.run(build_program(case), _arguments(case), dispatch=(1, 1, 1), backend=backend)


def _check_invalid(case: dict[str, Any], backends: Sequence[str]) -> None:
    """Every backend refuses the program with a validation message."""
    for backend in backends:
        try:
            _run(case, backend)
        except (TypeError, ValueError) as error:
            if "vyre IR validation" not in str(error):
                raise _failure(f"an invalid u128 program refused on {backend} without a validation message", [str(error)[:300]]) from None
            continue
        raise _failure(f"an invalid u128 program ran on {backend}", [json.dumps(case["outputs"])[:600]])


def _differences(case: dict[str, Any], want: list[list[int]], got: dict[str, Any], label: str) -> list[str]:
    wrong: list[str] = []
    for k, out in enumerate(case["outputs"]):
        values = _ints(got[f"o{k}"], str(out["type"]))
        for row, expected in enumerate(want[k]):
            if values[row] != expected:
                tree = json.dumps(out["expr"])
                wrong.append(f"o{k}[{row}] = {tree[:400]}: {label} {values[row]:#x}, want {expected:#x}")
    return wrong


def check_u128_case(data: bytes) -> None:
    """The interpreter against the oracle, wgpu against the interpreter; an
    invalid program refused on both (module doc)."""
    parsed = json.loads(data)
    if not isinstance(parsed, dict) or set(cast(dict[str, Any], parsed)) != {"inputs", "outputs"}:
        raise ValueError("a u128 case is an object of `inputs` and `outputs`")
    case = cast(dict[str, Any], parsed)
    backends = ["interp", "wgpu"] if _have_gpu() else ["interp"]
    want = oracle_rows(case)
    if want is None:
        _check_invalid(case, backends)
        return
    try:
        interp = _run(case, "interp")
    except (TypeError, ValueError) as error:
        raise _failure("a valid u128 program refused on interp", [str(error)[:300]]) from None
    wrong = _differences(case, want, interp, "interpreter")
    if wrong:
        raise _failure("u128: the interpreter differs from the oracle", wrong)
    if "wgpu" not in backends:
        return
    try:
        gpu = _run(case, "wgpu")
    except (TypeError, ValueError) as error:
        raise _failure("a valid u128 program refused on wgpu", [str(error)[:300]]) from None
    interp_values = [_ints(interp[f"o{k}"], str(out["type"])) for k, out in enumerate(case["outputs"])]
    wrong = _differences(case, interp_values, gpu, "wgpu")
    if wrong:
        raise _failure("u128: wgpu differs from the interpreter", wrong)


# ---------------------------------------------------------------------------
# The fuzzer
# ---------------------------------------------------------------------------


def case_json(case: dict[str, Any]) -> bytes:
    return json.dumps(case, sort_keys=True).encode()


class U128Fuzzer:
    """Random u128 expression trees on both backends against Python's integers
    (module doc)."""

    name = "u128"
    extension = "json"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def generate(self, index: int) -> bytes:
        return case_json(generate_case(random.Random(f"u128:{self.seed}:{index}")))

    def check(self, data: bytes) -> None:
        check_u128_case(data)

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        """Fewer outputs, fewer rows, then smaller trees."""
        from vyre.testing.fuzz.shrink import ddmin

        case: dict[str, Any] = json.loads(data)
        outputs = ddmin(case["outputs"], lambda kept: still_fails(case_json({**case, "outputs": list(kept)})), max_checks=40)
        case = {**case, "outputs": outputs}
        rows = len(case["inputs"]["a"])

        def with_rows(kept: Sequence[int]) -> dict[str, Any]:
            return {**case, "inputs": {name: [column[r] for r in kept] for name, column in case["inputs"].items()}}

        kept = ddmin(list(range(rows)), lambda kept: still_fails(case_json(with_rows(kept))), max_checks=40)
        case = with_rows(kept)
        for k in range(len(case["outputs"])):
            case = _shrink_tree(case, k, still_fails)
        return case_json(case)


def _paths(tree: Sequence[Any], at: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """Every node's path (the indices of its operands from the root), the root first."""
    found = [at]
    first = {"bin": 2, "un": 2, "cast": 2, "select": 1}.get(str(tree[0]))
    if first is None:
        return found
    for k in range(first, len(tree)):
        found += _paths(tree[k], (*at, k))
    return found


def _get(tree: Any, path: tuple[int, ...]) -> Any:
    for k in path:
        tree = tree[k]
    return tree


def _replaced(tree: Any, path: tuple[int, ...], node: Any) -> Any:
    if not path:
        return node
    copy = list(tree)
    copy[path[0]] = _replaced(tree[path[0]], path[1:], node)
    return copy


def _shrink_tree(case: dict[str, Any], k: int, still_fails: Callable[[bytes], bool]) -> dict[str, Any]:
    """Output `k`'s tree with nodes replaced by one of their operands or a
    literal 0 while the failure persists (from the root down)."""
    checks = 0
    changed = True
    while changed and checks < 200:
        changed = False
        tree = case["outputs"][k]["expr"]
        for path in _paths(tree):
            node = _get(tree, path)
            first = {"bin": 2, "un": 2, "cast": 2, "select": 1}.get(str(node[0]))
            if first is None:
                continue
            candidates = [node[j] for j in range(first, len(node))] + [["lit", "u128", 0], ["lit", "u32", 0]]
            for candidate in candidates:
                outputs = list(case["outputs"])
                outputs[k] = {**outputs[k], "expr": _replaced(tree, path, candidate)}
                trial = {**case, "outputs": outputs}
                checks += 1
                if still_fails(case_json(trial)):
                    case, changed = trial, True
                    break
            if changed or checks >= 200:
                break
    return case
