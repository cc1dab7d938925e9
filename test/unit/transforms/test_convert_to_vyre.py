"""convert-to-vyre: functions of MLIR's standard dialects, converted and run on
the interpreter and on wgpu, against numpy models of MLIR's arith semantics
(written here from the MLIR op definitions, sharing no code with the pass),
with vyre's documented results where MLIR leaves one undefined."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np
import pytest

import vyre
from vyre.ir import Program
from vyre.text import parse_module
from vyre.tools.vyre_opt import get_all_dialects
from vyre.transforms.convert_to_vyre import ConversionError, ConvertToVyrePass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

I32 = np.int32
U32 = np.uint32
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
SPECIAL = [0, 1, 2, 3, -1, -2, -3, 7, -7, 31, 32, 33, 63, INT_MIN, INT_MIN + 1, INT_MAX, INT_MAX - 1, 1 << 16]


def _context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def convert(source: str) -> ModuleOp:
    module = Parser(_context(), source, "test.mlir").parse_module()
    ConvertToVyrePass().apply(_context(), module)
    return module


def parallel(args: str, body: str, upper: str = "%n", prologue: str = "", name: str = "k") -> str:
    """A function running `body` (with %i the index) in a 1-D scf.parallel."""
    return f"""func.func @{name}({args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xi32>
{prologue}
  "scf.parallel"(%c0, {upper}, %c1) <{{operandSegmentSizes = array<i32: 1, 1, 1, 0>}}> ({{
  ^bb0(%i: index):
{body}
    scf.reduce
  }}) : (index, index, index) -> ()
  func.return
}}
"""


def run_both(module: ModuleOp, inputs: dict[str, np.ndarray], n: int) -> list[dict[str, np.ndarray]]:
    program = Program.from_module(module)
    dispatch = (max(1, math.ceil(n / 64)), 1, 1)
    return [
        vyre.run(program, inputs, dispatch=dispatch, backend=backend)
        for backend in ("interp", "wgpu")
    ]


# ---------------------------------------------------------------------------
# numpy models of arith (int64 arithmetic, wrapped to 32 bits)
# ---------------------------------------------------------------------------


def wrap(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.int64) & 0xFFFFFFFF).astype(U32)


def s(x: np.ndarray) -> np.ndarray:
    return x.astype(U32).view(I32).astype(np.int64)


def u(x: np.ndarray) -> np.ndarray:
    return x.astype(U32).astype(np.int64)


def divsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, y = s(a), s(b)
    safe = np.where(y == 0, 1, y)
    q = np.abs(x) // np.abs(safe) * np.sign(x) * np.sign(safe)  # truncates toward zero
    return wrap(np.where(y == 0, 0, q))


def remsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, y = s(a), s(b)
    safe = np.where(y == 0, 1, y)
    r = np.abs(x) % np.abs(safe) * np.sign(x)  # the dividend's sign
    return wrap(np.where(y == 0, 0, r))


def shrsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return wrap(s(a) >> (u(b) % 32))


INTEGER_OPS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "addi": lambda a, b: wrap(u(a) + u(b)),
    "subi": lambda a, b: wrap(u(a) - u(b)),
    "muli": lambda a, b: wrap(u(a) * u(b)),
    "divui": lambda a, b: wrap(np.where(u(b) == 0, 0, u(a) // np.where(u(b) == 0, 1, u(b)))),
    "divsi": divsi,
    "remui": lambda a, b: wrap(np.where(u(b) == 0, 0, u(a) % np.where(u(b) == 0, 1, u(b)))),
    "remsi": remsi,
    "andi": lambda a, b: wrap(u(a) & u(b)),
    "ori": lambda a, b: wrap(u(a) | u(b)),
    "xori": lambda a, b: wrap(u(a) ^ u(b)),
    "shli": lambda a, b: wrap(u(a) << (u(b) % 32)),
    "shrui": lambda a, b: wrap(u(a) >> (u(b) % 32)),
    "shrsi": shrsi,
    "maxui": lambda a, b: wrap(np.maximum(u(a), u(b))),
    "minui": lambda a, b: wrap(np.minimum(u(a), u(b))),
    "maxsi": lambda a, b: wrap(np.maximum(s(a), s(b))),
    "minsi": lambda a, b: wrap(np.minimum(s(a), s(b))),
}
PREDICATES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": lambda a, b: u(a) == u(b),
    "ne": lambda a, b: u(a) != u(b),
    "slt": lambda a, b: s(a) < s(b),
    "sle": lambda a, b: s(a) <= s(b),
    "sgt": lambda a, b: s(a) > s(b),
    "sge": lambda a, b: s(a) >= s(b),
    "ult": lambda a, b: u(a) < u(b),
    "ule": lambda a, b: u(a) <= u(b),
    "ugt": lambda a, b: u(a) > u(b),
    "uge": lambda a, b: u(a) >= u(b),
}


def integer_operands() -> tuple[np.ndarray, np.ndarray]:
    pairs = [(x, y) for x in SPECIAL for y in SPECIAL]
    rng = np.random.default_rng(13)
    randoms = rng.integers(INT_MIN, INT_MAX, size=(96, 2), endpoint=True)
    a = np.array([p[0] for p in pairs] + list(randoms[:, 0]), dtype=np.int64)
    b = np.array([p[1] for p in pairs] + list(randoms[:, 1]), dtype=np.int64)
    return wrap(a), wrap(b)


def integer_kernel() -> tuple[str, list[Callable[[np.ndarray, np.ndarray], np.ndarray]]]:
    """One function: output slot k holds the k-th op of (a[i], b[i]) at k*n + i."""
    lines: list[str] = [
        "    %x = memref.load %a[%i] : memref<?xi32>",
        "    %y = memref.load %b[%i] : memref<?xi32>",
    ]
    models: list[Callable[[np.ndarray, np.ndarray], np.ndarray]] = []

    def store(value: str, model: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
        k = len(models)
        lines.extend(
            [
                f"    %k{k} = arith.constant {k} : index",
                f"    %o{k} = arith.muli %k{k}, %n : index",
                f"    %p{k} = arith.addi %o{k}, %i : index",
                f"    memref.store {value}, %out[%p{k}] : memref<?xi32>",
            ]
        )
        models.append(model)

    for name, model in INTEGER_OPS.items():
        lines.append(f"    %r_{name} = arith.{name} %x, %y : i32")
        store(f"%r_{name}", model)
    for predicate, model in PREDICATES.items():
        lines.append(f"    %c_{predicate} = arith.cmpi {predicate}, %x, %y : i32")
        lines.append(f"    %e_{predicate} = arith.extui %c_{predicate} : i1 to i32")
        store(f"%e_{predicate}", lambda a, b, m=model: wrap(m(a, b).astype(np.int64)))
    # the extended multiplications: both words of the 64-bit product
    lines += [
        "    %ul, %uh = arith.mului_extended %x, %y : i32",
        "    %sl, %sh = arith.mulsi_extended %x, %y : i32",
    ]
    store("%ul", lambda a, b: wrap(u(a) * u(b)))
    store("%uh", lambda a, b: ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(U32))
    store("%sl", lambda a, b: wrap(s(a) * s(b)))
    store("%sh", lambda a, b: wrap((s(a) * s(b)) >> 32))
    # select, extsi/trunci (i1), i1 logic, constants, index casts
    lines += [
        "    %lt = arith.cmpi slt, %x, %y : i32",
        "    %sel = arith.select %lt, %x, %y : i32",
    ]
    store("%sel", lambda a, b: wrap(np.where(s(a) < s(b), s(a), s(b))))
    lines += [
        "    %bit = arith.trunci %x : i32 to i1",
        "    %neg = arith.extsi %bit : i1 to i32",
    ]
    store("%neg", lambda a, b: wrap(-(u(a) & 1)))
    lines += [
        "    %ge = arith.cmpi uge, %x, %y : i32",
        "    %odd = arith.trunci %y : i32 to i1",
        "    %both = arith.andi %ge, %odd : i1",
        "    %either = arith.xori %both, %lt : i1",
        "    %w = arith.extui %either : i1 to i32",
    ]
    store("%w", lambda a, b: wrap(((u(a) >= u(b)) & (u(b) & 1 == 1)) ^ (s(a) < s(b))))
    lines += [
        "    %m7 = arith.constant -7 : i32",
        "    %big = arith.constant 4000000000 : i32",
        "    %t1 = arith.muli %x, %m7 : i32",
        "    %t2 = arith.xori %t1, %big : i32",
        "    %ix = arith.index_cast %t2 : i32 to index",
        "    %iy = arith.index_cast %ix : index to i32",
    ]
    store("%iy", lambda a, b: wrap((u(a) * -7) ^ 4000000000))
    body = "\n".join(lines)
    args = "%a: memref<?xi32>, %b: memref<?xi32>, %out: memref<?xi32>"
    return parallel(args, body), models


def test_integer_ops_match_numpy_on_interp_and_wgpu(gpu_adapter) -> None:
    source, models = integer_kernel()
    module = convert(source)
    a, b = integer_operands()
    n = len(a)
    inputs = {"a": a, "b": b, "out": np.zeros(n * len(models), dtype=U32)}
    expected = np.concatenate([model(a, b) for model in models])
    for result in run_both(module, inputs, n):
        got = result["out"].reshape(len(models), n)
        for k, model in enumerate(models):
            mismatch = np.flatnonzero(got[k] != expected[k * n : (k + 1) * n])
            assert mismatch.size == 0, (k, model, a[mismatch[:3]], b[mismatch[:3]], got[k][mismatch[:3]])


# ---------------------------------------------------------------------------
# Floats
# ---------------------------------------------------------------------------

F32_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38, np.inf, -np.inf, np.nan, 7.0, 0.1]
CANONICAL_NAN = np.uint32(0x7FC00000)


def canonical(x: np.ndarray) -> np.ndarray:
    bits = x.astype(np.float32).view(U32).copy()
    bits[np.isnan(x)] = CANONICAL_NAN
    return bits


def maximum_number(a: np.ndarray, b: np.ndarray, take_max: bool) -> np.ndarray:
    result = np.where(np.isnan(a), b, np.where(np.isnan(b), a, np.fmax(a, b) if take_max else np.fmin(a, b)))
    both_zero = (a == 0) & (b == 0)
    signed = np.where(np.signbit(a) & np.signbit(b), -0.0, 0.0) if take_max else np.where(np.signbit(a) | np.signbit(b), -0.0, 0.0)
    return np.where(both_zero, signed, result).astype(np.float32)


def nan_propagating(a: np.ndarray, b: np.ndarray, take_max: bool) -> np.ndarray:
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), maximum_number(a, b, take_max)).astype(np.float32)


FLOAT_OPS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "addf": lambda a, b: a + b,
    "subf": lambda a, b: a - b,
    "mulf": lambda a, b: a * b,
    "divf": lambda a, b: a / b,
    "maxnumf": lambda a, b: maximum_number(a, b, True),
    "minnumf": lambda a, b: maximum_number(a, b, False),
    "maximumf": lambda a, b: nan_propagating(a, b, True),
    "minimumf": lambda a, b: nan_propagating(a, b, False),
}
FLOAT_PREDICATES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "false": lambda a, b: np.zeros(a.shape, bool),
    "oeq": lambda a, b: a == b,
    "ogt": lambda a, b: a > b,
    "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b,
    "ole": lambda a, b: a <= b,
    "one": lambda a, b: (a < b) | (a > b),
    "ord": lambda a, b: ~np.isnan(a) & ~np.isnan(b),
    "ueq": lambda a, b: (a == b) | np.isnan(a) | np.isnan(b),
    "ugt": lambda a, b: ~(a <= b),
    "uge": lambda a, b: ~(a < b),
    "ult": lambda a, b: ~(a >= b),
    "ule": lambda a, b: ~(a > b),
    "une": lambda a, b: a != b,
    "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "true": lambda a, b: np.ones(a.shape, bool),
}


def saturate(x: np.ndarray, low: int, high: int) -> np.ndarray:
    t = np.trunc(np.where(np.isnan(x), 0.0, x).astype(np.float64))
    return np.clip(t, low, high).astype(np.int64)


class _Slots:
    """The MLIR lines of a test function whose value k lands at out[k*n + i], with
    the expected words of every slot (computed from the inputs by numpy)."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.expected: dict[str, list[np.ndarray]] = {"fout": [], "iout": []}

    def store(self, buffer: str, value: str, expected: np.ndarray) -> None:
        k = len(self.expected[buffer])
        element = "f32" if buffer == "fout" else "i32"
        self.lines += [
            f"    %{buffer}_k{k} = arith.constant {k} : index",
            f"    %{buffer}_o{k} = arith.muli %{buffer}_k{k}, %n : index",
            f"    %{buffer}_p{k} = arith.addi %{buffer}_o{k}, %i : index",
            f"    memref.store {value}, %{buffer}[%{buffer}_p{k}] : memref<?x{element}>",
        ]
        self.expected[buffer].append(expected.astype(U32))


def test_float_ops_match_numpy_on_interp_and_wgpu(gpu_adapter) -> None:
    pairs = [(x, y) for x in F32_SPECIAL for y in F32_SPECIAL]
    a = np.array([p[0] for p in pairs], dtype=np.float32)
    b = np.array([p[1] for p in pairs], dtype=np.float32)
    words = np.resize(integer_operands()[0], len(a))
    slots = _Slots(
        [
            "    %x = memref.load %a[%i] : memref<?xf32>",
            "    %y = memref.load %b[%i] : memref<?xf32>",
            "    %w = memref.load %w_in[%i] : memref<?xi32>",
        ]
    )
    with np.errstate(all="ignore"):
        for name, model in FLOAT_OPS.items():
            slots.lines.append(f"    %r_{name} = arith.{name} %x, %y : f32")
            slots.store("fout", f"%r_{name}", canonical(model(a, b)))
        slots.lines.append("    %r_negf = arith.negf %x : f32")
        slots.store("fout", "%r_negf", a.view(U32) ^ U32(0x80000000))  # the sign bit only: NaN payloads kept
        slots.lines.append("    %r_si = arith.sitofp %w : i32 to f32")
        slots.store("fout", "%r_si", canonical(words.view(I32).astype(np.float32)))
        slots.lines.append("    %r_ui = arith.uitofp %w : i32 to f32")
        slots.store("fout", "%r_ui", canonical(words.astype(np.float32)))
        slots.lines += [
            "    %r_bc = arith.bitcast %w : i32 to f32",
            "    %r_k = arith.constant -2.5 : f32",
            "    %r_bk = arith.addf %r_bc, %r_k : f32",
        ]
        slots.store("fout", "%r_bk", canonical(words.view(np.float32) + np.float32(-2.5)))
        for predicate, model in FLOAT_PREDICATES.items():
            slots.lines.append(f"    %c_{predicate} = arith.cmpf {predicate}, %x, %y : f32")
            slots.lines.append(f"    %e_{predicate} = arith.extui %c_{predicate} : i1 to i32")
            slots.store("iout", f"%e_{predicate}", model(a, b))
        slots.lines.append("    %t_si = arith.fptosi %x : f32 to i32")
        slots.store("iout", "%t_si", wrap(saturate(a, INT_MIN, INT_MAX)))
        slots.lines.append("    %t_ui = arith.fptoui %x : f32 to i32")
        slots.store("iout", "%t_ui", wrap(saturate(a, 0, 2**32 - 1)))
        slots.lines.append("    %t_bc = arith.bitcast %y : f32 to i32")
        slots.store("iout", "%t_bc", b.view(U32))

    args = "%a: memref<?xf32>, %b: memref<?xf32>, %w_in: memref<?xi32>, %fout: memref<?xf32>, %iout: memref<?xi32>"
    source = parallel(args, "\n".join(slots.lines)).replace(
        "memref.dim %a, %c0 : memref<?xi32>", "memref.dim %a, %c0 : memref<?xf32>"
    )
    module = convert(source)
    n = len(a)
    floats, words_out = slots.expected["fout"], slots.expected["iout"]
    inputs = {
        "a": a,
        "b": b,
        "w_in": words,
        "fout": np.zeros(n * len(floats), dtype=np.float32),
        "iout": np.zeros(n * len(words_out), dtype=U32),
    }
    for result in run_both(module, inputs, n):
        for buffer, expected in (("fout", floats), ("iout", words_out)):
            got = result[buffer].view(U32).reshape(len(expected), n)
            for k, want in enumerate(expected):
                bad = np.flatnonzero(got[k] != want)
                assert bad.size == 0, (buffer, k, a[bad[:3]], b[bad[:3]], got[k][bad[:3]], want[bad[:3]])


# ---------------------------------------------------------------------------
# scf.for (signed bounds, a step, loop-carried values), scf.if with results
# ---------------------------------------------------------------------------

FLOW = parallel(
    "%a: memref<?xi32>, %out: memref<?xi32>",
    """    %x = memref.load %a[%i] : memref<?xi32>
    %lo = arith.constant -5 : i32
    %eleven = arith.constant 11 : i32
    %hi = arith.remsi %x, %eleven : i32
    %st = arith.constant 3 : i32
    %sum = scf.for %j = %lo to %hi step %st iter_args(%acc = %x) -> (i32) : i32 {
      %t = arith.muli %j, %j : i32
      %c = arith.cmpi slt, %t, %acc : i32
      %nxt = scf.if %c -> (i32) {
        %p = arith.addi %acc, %t : i32
        scf.yield %p : i32
      } else {
        %q = arith.subi %acc, %j : i32
        scf.yield %q : i32
      }
      scf.yield %nxt : i32
    }
    %four = arith.constant 4 : index
    %m = arith.remui %i, %four : index
    %tot = scf.for %k = %c0 to %m step %c1 iter_args(%s = %sum) -> (i32) {
      %ki = arith.index_cast %k : index to i32
      %s2 = arith.addi %s, %ki : i32
      scf.yield %s2 : i32
    }
    %zero = arith.constant 0 : i32
    %isneg = arith.cmpi slt, %tot, %zero : i32
    scf.if %isneg {
      %abs = arith.subi %zero, %tot : i32
      memref.store %abs, %out[%i] : memref<?xi32>
    } else {
      memref.store %tot, %out[%i] : memref<?xi32>
    }""",
    name="flow",
)


def _i32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def flow_model(x: int, i: int) -> int:
    """FLOW, step by step, on Python ints wrapped to i32 (MLIR's scf.for compares
    its bounds as signed integers)."""
    hi = 0 if x == 0 else _i32(int(math.fmod(x, 11)))
    acc, j = x, -5
    while j < hi:
        t = _i32(j * j)
        acc = _i32(acc + t) if t < acc else _i32(acc - j)
        j += 3
    for k in range(i % 4):
        acc = _i32(acc + k)
    return (_i32(-acc) if acc < 0 else acc) & 0xFFFFFFFF


def test_loops_and_branches_match_a_model_on_interp_and_wgpu(gpu_adapter) -> None:
    module = convert(FLOW)
    values = [x for x in SPECIAL if abs(x) < 1000] + [INT_MIN, INT_MAX, -1000, 999, 12345, -54321]
    a = wrap(np.array(values * 3, dtype=np.int64))
    expected = np.array([flow_model(_i32(int(x)), i) for i, x in enumerate(a)], dtype=U32)
    for result in run_both(module, {"a": a, "out": np.zeros(len(a), dtype=U32)}, len(a)):
        assert (result["out"] == expected).all(), (result["out"], expected)


def test_the_kernel_takes_the_function_name_buffers_and_guard() -> None:
    source = re.sub(r"%a\b", "%0", FLOW).replace("%out: memref<?xi32>", "%out: memref<16xi32>")
    module = convert(source.replace("%out[%i] : memref<?xi32>", "%out[%i] : memref<16xi32>"))
    program = Program.from_module(module)
    assert program.name == "flow"
    assert [(b.name, b.binding, b.access.value, b.dtype.value) for b in program.buffers] == [
        ("arg0", 0, "read_only", "u32"),
        ("out", 1, "read_write", "u32"),
    ]
    assert vyre.validate(program) == []


def test_unsupported_ops_are_conversion_errors_naming_them() -> None:
    source = parallel(
        "%a: memref<?xi32>",
        "    %x = memref.load %a[%i] : memref<?xi32>\n    %y = arith.ceildivsi %x, %x : i32",
    )
    with pytest.raises(ConversionError) as caught:
        convert(source)
    assert caught.value.op.name == "arith.ceildivsi"
    assert caught.value.reason.startswith("convert-to-vyre: 'arith.ceildivsi' is not supported")


def test_the_workgroup_size_is_an_option() -> None:
    module = Parser(_context(), FLOW, "test.mlir").parse_module()
    ConvertToVyrePass(workgroup_size=256).apply(_context(), module)
    assert Program.from_module(module).workgroup_size == (256, 1, 1)
    with pytest.raises(PassFailedException, match="workgroup-size must be in"):
        ConvertToVyrePass(workgroup_size=0).apply(_context(), Parser(_context(), FLOW, "t").parse_module())
    with pytest.raises(PassFailedException, match="workgroup-size must be in .* got True"):  # a bool is no size
        ConvertToVyrePass(workgroup_size=True).apply(_context(), Parser(_context(), FLOW, "t").parse_module())


GUARD_CASES = {
    # bound = the stored buffer's length, store at the index: the guard is implied
    "implied": ("%out", "%out"),
    # bound = a's length, store into the longer out: the guard must stay
    "needed": ("%a", "%out"),
}


@pytest.mark.parametrize("case", GUARD_CASES)
def test_the_bounds_guard_is_left_out_only_where_implied(case: str, gpu_adapter) -> None:
    bound, stored = GUARD_CASES[case]
    source = parallel(
        "%a: memref<?xi32>, %out: memref<?xi32>",
        "    %x = memref.load %a[%i] : memref<?xi32>\n"
        "    %y = arith.muli %x, %x : i32\n"
        f"    memref.store %y, {stored}[%i] : memref<?xi32>",
    ).replace("memref.dim %a, %c0", f"memref.dim {bound}, %c0")
    module = convert(source)
    has_guard = "vyre.if" in str(module)
    assert has_guard == (case == "needed")
    a = np.arange(1, 101, dtype=U32)
    out = np.full(150, 7, dtype=U32)
    expected = out.copy()
    expected[: len(a) if case == "needed" else len(out)] = np.concatenate([a * a, np.zeros(50, U32)])[
        : len(a) if case == "needed" else len(out)
    ]
    program = Program.from_module(module)
    for backend in ("interp", "wgpu"):  # 4 extra workgroups of invocations past the end
        result = vyre.run(program, {"a": a, "out": out}, dispatch=(7, 1, 1), backend=backend)
        assert (result["out"] == expected).all(), (backend, result["out"])
