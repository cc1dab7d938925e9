"""What a strict float op costs on the GPU: the integer operations per element
of its lowered WGSL.

`wgsl_cost(op, fmt)` lowers the elementwise kernel `out[i] = op(a[i], b[i])`
(one operand for sqrt, three for fma) through the pipeline (so through
`float-strict` and the WGSL lowering, exactly as a user's kernel), counts the
integer operations of the shader's entry point, and subtracts the same count of
the copy kernel `out[i] = a[i]` of the format (index arithmetic, loads, the
store: for F16/BF16 the half-word extraction and the compare-exchange store). What
is left is the op itself, as the GPU's compiler receives it, by kind:

- `arith` (`+ -`), `mul` (`*`), `logic` (`& | ^`), `shift` (`<< >>`),
  `compare` (`== != < <= > >=`), `select`, `clz` (`countLeadingZeros`),
  `bool` (`u32(...)` of a comparison);
- `shift_mask`: the `& 31u` the lowering puts on every shift by a non-literal
  amount (WGSL masks the amount; the hardware shift clamps it): counted in
  `logic` too, reported so that a lowering which proves amounts below 32 can
  see what it would save;
- `select_test`: the `!= 0u` that turns a u32 condition word back into a bool
  for `select` (counted in `compare` too).

An op with a fast path (F32 fma: `softfloat.fma_normal`) is counted as the
elements it covers cost: the fast path and its test; the whole algorithm's
routine, called only by the lanes it does not cover (an assignment inside an
`if`, where a select would have called it for every element), is reported apart
(`fallback`, its operations per call).

`ir_ops(op, fmt)` is the count of the soft-float program itself (the integer
ops `float-strict` builds, before folding and lowering).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr, Node, Program, float_op_expr
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.lowering.options import LoweringOptions
from vyre.pipeline import prepare
from vyre.transforms import softfloat as sf

__all__ = ["KINDS", "OPS", "Cost", "elementwise_program", "fallback_counts", "ir_ops", "wgsl_cost", "wgsl_counts"]

OPS: dict[str, tuple[type[d.FloatOp], str]] = {
    ("f" + variant if variant else op.mnemonic()): (op, variant)
    for op in d.STRICT_FLOAT_OPS
    for variant in d.float_op_variants(op)
}
"""Op spelling (`fadd`, `flt`, `fma`, the public `BinOp`/`UnOp` value) -> (op
class, variant): every strict float op of the dialect is costed. Comparisons
and classifications store their 0/1 result as u32."""

KINDS = ("arith", "mul", "logic", "shift", "compare", "select", "clz", "bool")
_TYPES = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}
_TOKEN = re.compile(
    r"countLeadingZeros\(|select\(|u32\(|<<|>>|<=|>=|==|!=|&&|\|\||[-+*&|^<>]|[A-Za-z_][A-Za-z_0-9]*|0x[0-9a-fA-F]+u?|[0-9]+u?"
)
_KIND = {
    "+": "arith", "-": "arith", "*": "mul", "&": "logic", "|": "logic", "^": "logic",
    "<<": "shift", ">>": "shift", "==": "compare", "!=": "compare", "<": "compare",
    "<=": "compare", ">": "compare", ">=": "compare", "select(": "select",
    "countLeadingZeros(": "clz", "u32(": "bool",
}  # fmt: skip


@dataclass(frozen=True)
class Cost:
    """Integer operations per element of one op's lowered WGSL."""

    op: str
    fmt: str
    kinds: dict[str, int]
    shift_mask: int
    select_test: int
    ir: int
    """Operations of the soft-float program (`ir_ops`)."""
    fallback: int = 0
    """WGSL operations of the routines called only where a fast path does not
    apply (0: the op has no fast path), not in `kinds`."""

    @property
    def total(self) -> int:
        return sum(self.kinds.values())


def elementwise_program(op: str, fmt: str, name: str | None = None) -> Program:
    """`out[i] = op(a[i], b[i], ...)` over buffers of format `fmt` ("copy": out[i] = a[i])."""
    ty = _TYPES[fmt]
    i = E.var("i")
    if op == "copy":
        names = "a"
        value: Expr = E.load("a", i)
        boolean = False
    else:
        op_class, variant = OPS[op]
        names = "abc"[: op_class.ARITY]
        value = float_op_expr(op_class, [E.load(n, i) for n in names], variant)
        boolean = op_class.RESULT is not None
    out_ty = ty
    if boolean:
        value, out_ty = E.select(value, E.u32(1), E.u32(0)), DataType.U32
    body: list[Node] = [N.let("i", E.invocation_id(0)), N.store("out", i, value)]
    buffers = [*(BufferDecl.read(n, k, ty) for k, n in enumerate(names))]
    buffers.append(BufferDecl.read_write("out", len(names), out_ty))
    return Program(buffers, (64, 1, 1), body, name=name or f"cost_{fmt}_{op}")


def _entry_body(wgsl: str) -> str:
    body = wgsl[wgsl.index("fn main(") :]
    lines = body.splitlines()[1:]
    return "\n".join(line for line in lines if "invocation_id =" not in line and "workgroup_id =" not in line)


_ROUTINE = re.compile(r"^fn ((?:soft_|vyre_mul_high)[A-Za-z0-9_]*)\(.*?^}", re.MULTILINE | re.DOTALL)
_CALL = re.compile(r"\b((?:soft_|vyre_mul_high)[A-Za-z0-9_]*)\(")
"""Float-strict's routines and the portable `mul_high` helper (lowering/mul_high.py)."""
_FALLBACK = re.compile(
    r"^\s*var ([A-Za-z_][A-Za-z_0-9]*): \w+ = .*;\n\s*if \(.*\) \{\n\s*\1 = (soft_[A-Za-z0-9_]+)\(",
    re.MULTILINE,
)
"""A routine called only where a fast path does not apply: the lowering declares
the select's value with the other arm and assigns the call inside the `if` that
follows (wgsl.py `_call_where_picked`)."""


def _own_counts(body: str) -> tuple[Counter[str], int, int]:
    counts: Counter[str] = Counter()
    for token in _TOKEN.findall(body):
        kind = _KIND.get(token)
        if kind is not None:
            counts[kind] += 1
    return counts, len(re.findall(r"& 31u\)", body)), len(re.findall(r"!= 0u\)", body))


def wgsl_counts(wgsl: str) -> tuple[Counter[str], int, int]:
    """(operations by kind, shift masks, select tests) one run of a shader's entry
    point executes where every fast path applies: its own, and each soft-float
    routine's (a WGSL function of float-strict) once per call, but for the
    fallback calls (`fallback_counts`)."""
    return _walk(wgsl)[0]


def fallback_counts(wgsl: str) -> Counter[str]:
    """Operations by kind of the routines a shader calls only where a fast path
    does not apply (once for each routine that calls one)."""
    return _walk(wgsl)[1]


def _walk(wgsl: str) -> tuple[tuple[Counter[str], int, int], Counter[str]]:
    routines = {match.group(1): match.group(0) for match in _ROUTINE.finditer(wgsl)}
    totals: dict[str, tuple[Counter[str], int, int]] = {}
    fallback: Counter[str] = Counter()

    def total(body: str) -> tuple[Counter[str], int, int]:
        counts, masks, tests = _own_counts(body)
        lazy = [name for _, name in _FALLBACK.findall(body)]
        for name in lazy:
            if name not in totals:
                text = routines[name]
                totals[name] = total(text[text.index("{") :])
            fallback.update(totals[name][0])
        for name in _CALL.findall(body):
            if name in lazy:
                lazy.remove(name)
                continue
            if name not in totals:
                text = routines[name]
                totals[name] = total(text[text.index("{") :])
            inner, inner_masks, inner_tests = totals[name]
            counts += inner
            masks += inner_masks
            tests += inner_tests
        return counts, masks, tests

    return total(_entry_body(wgsl)), fallback


@cache
def _counts(op: str, fmt: str, int64: bool) -> tuple[tuple[Counter[str], int, int], Counter[str]]:
    lowered = prepare(elementwise_program(op, fmt)).lowered_for(LoweringOptions(int64=int64))
    return _walk(lowered.wgsl)


def ir_ops(op: str, fmt: str) -> int:
    """Integer operations of the soft-float program of `op` (before folding): of
    its fast path where it has one (what the elements it covers run)."""
    op_class, variant = OPS[op]
    algorithm = sf.fast_path_of(op_class, sf.FORMATS[fmt]) or sf.algorithm_of(op_class, sf.FORMATS[fmt], variant)
    params = [E.var(n) for n in "abc"[: op_class.ARITY]]

    def build(m: sf.ExprMachine) -> object:
        return algorithm(*(m.word(p) for p in params))

    return sf.count_ops(build)


def wgsl_cost(op: str, fmt: str, int64: bool = False) -> Cost:
    """Integer operations per element that `op` of `fmt` adds to a lowered kernel:
    for a target with 64-bit integers when `int64` (`mul_high` one `u64` product,
    lowering/mul_high.py), else the portable form."""
    (counts, masks, tests), fallback = _counts(op, fmt, int64)
    (base, base_masks, base_tests), _ = _counts("copy", fmt, int64)
    kinds = {kind: counts[kind] - base[kind] for kind in KINDS}
    return Cost(op, fmt, kinds, masks - base_masks, tests - base_tests, ir_ops(op, fmt), fallback.total())
