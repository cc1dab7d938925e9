"""The float-functions fuzzer: random float programs on the interpreter and on
wgpu, bit for bit, and every strict float op spot-checked against independent
oracles (`float_oracles.py`: numpy and exact rationals for the arithmetic,
MPFR for the correctly rounded functions).

The ops come from the dialect (`vyre.testing.random_programs.FLOAT_OP_VARIANTS`:
every strict float op, each comparison predicate apart), so a function added
to the dialect is fuzzed without a change here; its oracle is gmpy2's function
of the same name (`float_oracles.MPFR_NAMES` for another spelling), and an op
without one fails loudly (`test_float_fuzz.py` checks that every op has one).

Input `index` features op `index % len(ops)` in one format (F32, F16, BF16 in
turn), so a campaign covers every op in every format alike. An input is a JSON
case of two parts:

- `program`: a random float program (`random_case` with `float_focus`, the
  featured op drawn half of the time, at most two calls of correctly rounded
  functions: GPU compilers inline each call) with inputs biased to the special
  values (signed zeros, subnormals, infinities, NaNs with payloads,
  near-overflow, the functions' thresholds, huge trigonometric arguments); the
  interpreter's final words must equal wgpu's;
- `spot`: the featured op alone over `SPOT_ELEMENTS` operand tuples of the same
  special values (their neighbours, moderate values, random patterns; equal,
  negated and nearly equal pairs), loaded from buffers: the interpreter must
  give the oracle's pattern for every element, and wgpu the interpreter's. The
  spot program's text depends only on the op and the format, so each process
  compiles it once.

A failure shrinks to the part that fails, then to the failing element (spot)
or statement by statement (program). The first line of a failure names the op,
the format and the backends, so one bug is one corpus entry.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import float_oracles
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Program, float_op_expr, parse_ir, print_ir
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.testing.random_programs import (
    FLOAT_EDGES,
    FLOAT_OP_VARIANTS,
    FUNCTION_EDGES,
    GeneratorConfig,
    random_case,
)

__all__ = [
    "FORMATS",
    "FloatFunctionsFuzzer",
    "check_float_case",
    "featured_spellings",
    "spot_operands",
    "spot_program",
]

FORMATS: dict[str, DataType] = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}
SPOT_ELEMENTS = 256
SPOT_WORKGROUP = 64


def program_config(op: type[d.FloatOp], variant: str, fmt: str) -> GeneratorConfig:
    """The random programs' shape: float-focused, featuring one op in one format,
    at most two function calls (GPU compilers inline each), small enough that
    lavapipe compiles one in about a second of CPU."""
    return GeneratorConfig(
        float_focus=True,
        featured=((op, variant),),
        float_formats=(FORMATS[fmt],),
        max_functions=2,
        max_statements=4,
        max_depth=2,
        max_body_statements=2,
        workgroup=False,  # barriers make lavapipe split the shader: tens of seconds to compile
        vectors=False,
    )


def spelling(op: type[d.FloatOp], variant: str) -> str:
    """The public spelling of a float op (`fadd`, `flt`, `fsin`, `fma`)."""
    return "f" + variant if variant else op.mnemonic()


def featured_spellings() -> tuple[str, ...]:
    """Every strict float op (and comparison predicate), in the dialect's order."""
    return tuple(spelling(op, variant) for op, variant in FLOAT_OP_VARIANTS)


def _op(name: str) -> tuple[type[d.FloatOp], str]:
    found = d.float_op_spellings().get(name)
    if found is None or found[0] not in d.STRICT_FLOAT_OPS:
        raise ValueError(f"`{name}` is not a strict float op of the dialect")
    return found


# ---------------------------------------------------------------------------
# The spot check: one op over many operand tuples
# ---------------------------------------------------------------------------


def _element(rnd: random.Random, dtype: DataType) -> int:
    width = 32 if dtype is DataType.F32 else 16
    mask = (1 << width) - 1
    edges = FLOAT_EDGES[dtype] + FUNCTION_EDGES[dtype]
    roll = rnd.random()
    if roll < 0.4:
        return rnd.choice(edges)
    if roll < 0.6:
        return (rnd.choice(edges) + rnd.randint(-8, 8)) & mask
    if roll < 0.8:  # moderate magnitudes: 2**-12 .. 2**12, either sign
        fbits = {DataType.F32: 23, DataType.F16: 10, DataType.BF16: 7}[dtype]
        bias = (1 << (width - fbits - 2)) - 1
        exponent = bias + rnd.randint(-12, 12)
        return rnd.getrandbits(1) << (width - 1) | exponent << fbits | rnd.getrandbits(fbits)
    return rnd.getrandbits(width)


def spot_operands(rnd: random.Random, arity: int, fmt: str, n: int = SPOT_ELEMENTS) -> list[list[int]]:
    """`arity` columns of `n` operand patterns: special values, their
    neighbours, moderate values, random patterns; for two or more operands
    also equal, negated and nearly equal pairs, and exact cancellations (fma)."""
    dtype = FORMATS[fmt]
    top = 1 << (31 if dtype is DataType.F32 else 15)
    mask = (top << 1) - 1
    one = {DataType.F32: 0x3F80_0000, DataType.F16: 0x3C00, DataType.BF16: 0x3F80}[dtype]
    columns = [[_element(rnd, dtype) for _ in range(n)] for _ in range(arity)]
    if arity < 2:
        return columns
    a, b = columns[0], columns[1]
    for i in range(n):
        roll = rnd.random()
        if roll < 0.08:
            b[i] = a[i]
        elif roll < 0.16:
            b[i] = a[i] ^ top
        elif roll < 0.24:
            b[i] = (a[i] + rnd.randint(-3, 3)) & mask
        elif roll < 0.3 and arity == 3:
            b[i], columns[2][i] = one, a[i] ^ top
    return columns


@functools.cache
def spot_program(name: str, fmt: str) -> Program:
    """`out[i] = <op>(a0[i], ...)` for every invocation (a comparison or a
    classification stores 0 or 1 as a u32): one program per op and format."""
    op, variant = _op(name)
    dtype = FORMATS[fmt]
    result = DataType.U32 if op.RESULT is not None else dtype
    buffers = [BufferDecl.read(f"a{k}", k, dtype) for k in range(op.ARITY)]
    buffers.append(BufferDecl.read_write("out", op.ARITY, result))
    i = E.var("i")
    value = float_op_expr(op, [E.load(f"a{k}", i) for k in range(op.ARITY)], variant)
    if op.RESULT is not None:
        value = E.cast(DataType.U32, value)
    body = [N.let("i", E.invocation_id(0)), N.store("out", i, value)]
    return Program(buffers, (SPOT_WORKGROUP, 1, 1), body, name=f"spot_{name}_{fmt}")


def _pack(values: Sequence[int], dtype: DataType) -> np.ndarray:
    if dtype is DataType.F32 or dtype is DataType.U32:
        return np.array(values, dtype=np.uint32)
    halves = list(values) + [0] * (len(values) % 2)
    return np.array([lo | hi << 16 for lo, hi in zip(halves[::2], halves[1::2])], dtype=np.uint32)


def _unpack(words: np.ndarray, dtype: DataType, n: int) -> list[int]:
    flat = [int(w) for w in np.asarray(words).ravel()]
    if dtype is DataType.F32 or dtype is DataType.U32:
        return flat[:n]
    return [w >> shift & 0xFFFF for w in flat for shift in (0, 16)][:n]


def _failure(first_line: str, details: Sequence[str]) -> Exception:
    from vyre.testing.fuzz.base import OracleFailure

    shown = list(details[:6]) + ([f"... and {len(details) - 6} more"] if len(details) > 6 else [])
    return OracleFailure("\n".join([first_line, *shown]))


def check_spot(name: str, fmt: str, columns: list[list[int]]) -> None:
    """The interpreter against the oracle on every element, wgpu against the
    interpreter (`OracleFailure`; the first line names the op, the format and
    the backends)."""
    from vyre.testing.backends import execute_interp, execute_wgpu

    op, variant = _op(name)
    dtype = FORMATS[fmt]
    n = len(columns[0]) if columns else 0
    if n == 0:
        return
    result = DataType.U32 if op.RESULT is not None else dtype
    program = spot_program(name, fmt)
    words = {f"a{k}": _pack(column, dtype) for k, column in enumerate(columns)}
    words["out"] = _pack([0] * n, result)
    lengths = {b: n for b in words} if dtype is not DataType.F32 else {}
    if result is DataType.U32:
        lengths.pop("out", None)
    dispatch = (-(-n // SPOT_WORKGROUP), 1, 1)
    interp = _unpack(execute_interp(program, words, dispatch, lengths=lengths or None)["out"], result, n)
    wrong: list[str] = []
    for i in range(n):
        operands = [column[i] for column in columns]
        want = float_oracles.evaluate(op.SHORT_NAME, variant, fmt, *operands)
        if interp[i] != want:
            shown = ", ".join(f"{x:#x}" for x in operands)
            wrong.append(f"{name}({shown}): interpreter {interp[i]:#x}, oracle {want:#x}")
    oracle = "MPFR" if op.SHORT_NAME not in float_oracles.ARITHMETIC and op.SHORT_NAME != "cmp" else "exact"
    if wrong:
        raise _failure(f"{name} {fmt}: the interpreter differs from the {oracle} oracle", wrong)
    if not _have_gpu():
        return
    gpu = _unpack(execute_wgpu(program, words, dispatch, lengths=lengths or None)["out"], result, n)
    differ = [
        f"{name}({', '.join(f'{c[i]:#x}' for c in columns)}): interpreter {interp[i]:#x}, wgpu {gpu[i]:#x}"
        for i in range(n)
        if gpu[i] != interp[i]
    ]
    if differ:
        raise _failure(f"{name} {fmt}: wgpu differs from the interpreter", differ)


# ---------------------------------------------------------------------------
# The random program
# ---------------------------------------------------------------------------


def check_program(name: str, fmt: str, part: dict[str, Any]) -> None:
    """The random program on both backends (vyre.testing.fuzz.differential's
    oracle); a difference is reported under the featured op and format."""
    from vyre.testing.backends import execute_interp
    from vyre.testing.fuzz.base import OracleFailure
    from vyre.testing.fuzz.differential import check_case

    data = json.dumps(part, sort_keys=True).encode()
    if not _have_gpu():  # no adapter: the program must still run on the interpreter
        words = {k: np.array(v, dtype=np.uint32) for k, v in part["words"].items()}
        execute_interp(parse_ir(part["program"]), words, tuple(part["dispatch"]), lengths=part["lengths"] or None)
        return
    try:
        check_case(data)
    except OracleFailure as error:
        raise _failure(f"a random program featuring {name} ({fmt}): wgpu differs from the interpreter", [str(error)]) from None


@functools.cache
def _have_gpu() -> bool:
    try:
        from vyre.runtime.adapters import choose_adapter

        choose_adapter()
    except Exception:  # noqa: BLE001 - no wgpu, no adapter: interpreter and oracle only
        return False
    return True


# ---------------------------------------------------------------------------
# The fuzzer
# ---------------------------------------------------------------------------


def case_json(case: dict[str, Any]) -> bytes:
    return json.dumps(case, sort_keys=True).encode()


def check_float_case(data: bytes) -> None:
    """Both parts of a case (module doc)."""
    case = json.loads(data)
    name, fmt = str(case["featured"]), str(case["format"])
    if fmt not in FORMATS:
        raise ValueError(f"unknown float format {fmt!r}")
    spot = case.get("spot")
    if spot:
        check_spot(name, fmt, [[int(v) for v in column] for column in spot["operands"]])
    program = case.get("program")
    if program:
        check_program(name, fmt, program)


class FloatFunctionsFuzzer:
    """Every strict float op, in every format, in random programs (interp vs
    wgpu) and alone against the oracles (module doc)."""

    name = "float-functions"
    extension = "json"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def generate(self, index: int) -> bytes:
        ops = FLOAT_OP_VARIANTS
        op, variant = ops[index % len(ops)]
        fmt = tuple(FORMATS)[(index // len(ops)) % len(FORMATS)]
        rnd = random.Random(f"float-functions:{self.seed}:{index}")
        made = random_case(rnd.randrange(2**62), program_config(op, variant, fmt))
        program = json.loads(_program_json(print_ir(made.program), made.words, made.dispatch, made.lengths))
        name = spelling(op, variant)
        spot = {"operands": spot_operands(rnd, op.ARITY, fmt)}
        return case_json({"featured": name, "format": fmt, "program": program, "spot": spot})

    def check(self, data: bytes) -> None:
        check_float_case(data)

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        """The failing part alone, then its failing element (spot) or its
        fewest statements (program)."""
        case = json.loads(data)
        for part in ("program", "spot"):
            if case.get("program") and case.get("spot"):
                trial = {**case, part: None}
                if still_fails(case_json(trial)):
                    case = trial
        if case.get("spot"):
            case = _shrink_spot(case, still_fails)
        if case.get("program"):
            case = _shrink_program(case, still_fails)
        return case_json(case)


def _program_json(text: str, words: dict[str, Any], dispatch: tuple[int, int, int], lengths: dict[str, int]) -> bytes:
    from vyre.testing.fuzz.differential import case_json as program_case

    return program_case(text, words, dispatch, lengths)


def _shrink_spot(case: dict[str, Any], still_fails: Callable[[bytes], bool]) -> dict[str, Any]:
    from vyre.testing.fuzz.shrink import ddmin

    columns: list[list[int]] = case["spot"]["operands"]
    n = len(columns[0])

    def with_rows(rows: Sequence[int]) -> dict[str, Any]:
        return {**case, "spot": {"operands": [[column[i] for i in rows] for column in columns]}}

    rows = ddmin(list(range(n)), lambda rows: still_fails(case_json(with_rows(rows))), max_checks=200)
    return with_rows(rows)


def _shrink_program(case: dict[str, Any], still_fails: Callable[[bytes], bool]) -> dict[str, Any]:
    from vyre.testing.reduce import reduce_program

    part = case["program"]

    def with_program(program: Program) -> dict[str, Any]:
        return {**case, "program": {**part, "program": print_ir(program)}}

    small = reduce_program(
        parse_ir(part["program"]), lambda p: still_fails(case_json(with_program(p))), max_checks=300
    )
    return with_program(small)
