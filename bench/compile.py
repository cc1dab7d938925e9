"""Compile time across program sizes.

    python bench/compile.py [--nodes 1000,10000,100000] [--repeat 3]
                            [--floats 100,200,1000] [--formats f32,f16] [--first-run]

For each size a deterministic map-shaped program of about that many nodes (ops,
as V019 counts them: lets, assigns, ifs, loops, stores and their expressions)
is built with the Python builder, then timed step by step (median of
`--repeat` runs, each on fresh objects so that no cache answers):

- build: `Expr`/`Node` trees -> `Program` (the dialect ops),
- validate: `vyre.validate`,
- fingerprint: `vyre.fingerprint` (the key of the pipeline's cache; not in b+v+l),
- prepare: what `vyre.pipeline.prepare` does after validation when its cache
  misses (`pipeline.transformed`: a copy of the module, inline-calls, canonicalize),
- lower: `Prepared.wgsl` (float-strict and canonicalize when the module holds a
  float operation, then the WGSL emitter),
- b+v+l: build + validate + prepare + lower, what a program costs from Python to WGSL,
- print / parse: `vyre.print_ir` / `vyre.parse_ir` of the custom text,
- wire enc / dec: `Program.to_wire` / `Program.from_wire`,
- xdsl arith parse: xDSL's own parser on an `arith` function of the same op count
  (`%vN = arith.addi %v(N-1), %a : i32`), the yardstick for parsing speed.

Float rows (`--floats`, `--formats`): a chain of N lets mixing strict add,
mul, fma, div and sqrt over two float inputs (the kernel of the float-compile
targets), timed by stage: build, validate, prepare, float-strict (the pass and its
canonicalize: `Prepared.strict_module`), lower (the WGSL emitter), b+v+p+s+l,
the WGSL size and the number of routines; with `--first-run`, the first
`vyre.run` on the best adapter present (pipeline creation included) and a check
that it equals the interpreter.

Each step checks its result against an independent oracle while it measures:
the parsed and wire-decoded programs must be structurally equal to the built one,
the printed text must survive a second round trip unchanged, the WGSL must hold
one store per output and the interpreter's result on a few lanes must equal a
plain-Python evaluation of the same arithmetic.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout first on sys.path)
import numpy as np

from _common import cpu_name, median, table
from vyre.cli.pipes import quiet_on_closed_pipe

if TYPE_CHECKING:
    from vyre.ir import Program

T = TypeVar("T")

MASK = 0xFFFF_FFFF
LANES = 8


def _timed(fn: Callable[[], T]) -> tuple[float, T]:
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def _nodes(units: int) -> int:
    """The V019 node count of `_program(units)`: 8 + 22 per unit + 9 per loop."""
    return 8 + 22 * units + 9 * (units // 8)


def _units(target: int) -> int:
    """The most units whose program has at most `target` nodes (at least one):
    100,000 stays within V019's limit."""
    units = max(1, target // 22)
    while units > 1 and _nodes(units) > target:
        units -= 1
    return units


def _program(units: int) -> tuple[Program, Callable[[int], int]]:
    """A map kernel: `acc` mixes `x = a[gid]` through `units` blocks of lets,
    an if/else and (every 8th unit) a 4-trip loop; stores `acc` to out[gid].
    Also returns the plain-Python model of one lane (the oracle)."""
    from vyre.ir import BufferDecl, DataType
    from vyre.ir import Expr as E
    from vyre.ir import Node as N
    from vyre.ir import Program

    body = [N.let("x", E.load("a", E.gid_x())), N.let("acc", E.u32(0))]
    for k in range(units):
        t = f"t{k}"
        body.append(
            N.let(
                t,
                E.bitxor(
                    E.add(E.mul(E.var("x"), E.u32(2 * k + 1)), E.u32(k)),
                    E.shr(E.var("acc"), E.u32(k % 31)),
                ),
            )
        )
        body.append(
            N.if_(
                E.lt(E.var(t), E.u32((k * 2654435761) & MASK)),
                [N.assign("acc", E.add(E.var("acc"), E.var(t)))],
                [N.assign("acc", E.bitxor(E.var("acc"), E.var(t)))],
            )
        )
        if k % 8 == 7:
            body.append(
                N.loop(
                    "i",
                    E.u32(0),
                    E.u32(4),
                    [N.assign("acc", E.add(E.mul(E.var("acc"), E.u32(3)), E.var("i")))],
                )
            )
    body.append(N.store("out", E.gid_x(), E.var("acc")))
    program = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (64, 1, 1),
        body,
    )

    def model(x: int) -> int:
        acc = 0
        for k in range(units):
            t = ((x * (2 * k + 1) + k) & MASK) ^ (acc >> (k % 31))
            acc = (acc + t) & MASK if t < (k * 2654435761) & MASK else acc ^ t
            if k % 8 == 7:
                for i in range(4):
                    acc = (acc * 3 + i) & MASK
        return acc

    return program, model


def _arith_text(ops: int) -> str:
    """`ops` ops in all: the function, ops - 2 additions and the return."""
    lines = ["func.func @f(%a : i32) -> i32 {", "  %v0 = arith.addi %a, %a : i32"]
    lines += [f"  %v{k} = arith.addi %v{k - 1}, %a : i32" for k in range(1, ops - 2)]
    lines += [f"  func.return %v{ops - 3} : i32", "}"]
    return "\n".join(lines) + "\n"


def _xdsl_arith_parse(text: str) -> int:
    from xdsl.context import Context
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.parser import Parser

    ctx = Context()
    for dialect in (Builtin, Func, Arith):
        ctx.load_dialect(dialect)
    module = Parser(ctx, text).parse_module()
    return sum(1 for _ in module.walk()) - 1  # ops below the module


def _measure(units: int, repeat: int) -> dict[str, float | int]:
    import vyre
    from vyre.fingerprint import fingerprint
    from vyre.ir import Program, parse_ir, print_ir
    from vyre.pipeline import Prepared, transformed
    from vyre.validation.checker import KernelShape

    times: dict[str, list[float]] = {}

    def record(name: str, seconds: float) -> None:
        times.setdefault(name, []).append(seconds)

    nodes = 0
    checked: tuple[Program, Callable[[int], int]] | None = None
    for _ in range(repeat):
        build, (program, model) = _timed(lambda: _program(units))
        nodes = KernelShape.measure(program.kernel).node_count
        assert nodes == _nodes(units), (nodes, _nodes(units))
        validate, diagnostics = _timed(lambda: vyre.validate(program))
        assert diagnostics == [], diagnostics[:3]
        # what vyre.pipeline.prepare does after its cache missed, and the
        # fingerprint it looks the cache up by
        keying, key = _timed(lambda: fingerprint(program))
        assert key is not None
        prepare, prepared = _timed(lambda: Prepared(transformed(program), None))
        lower_time, lowered = _timed(lambda: prepared.wgsl)
        assert lowered.wgsl.count("out[") >= 1
        printing, text = _timed(lambda: print_ir(program))
        parsing, parsed = _timed(lambda: parse_ir(text))
        assert parsed == program, "parse_ir(print_ir(p)) differs from p"
        assert print_ir(parsed) == text, "print_ir is not a fixed point of the round trip"
        encoding, blob = _timed(program.to_wire)
        decoding, decoded = _timed(lambda: Program.from_wire(blob))
        assert decoded == program, "from_wire(to_wire(p)) differs from p"
        record("build", build)
        record("validate", validate)
        record("fingerprint", keying)
        record("prepare", prepare)
        record("lower", lower_time)
        record("b+v+l", build + validate + prepare + lower_time)
        record("print", printing)
        record("parse", parsing)
        record("wire enc", encoding)
        record("wire dec", decoding)
        arith = _arith_text(nodes)
        arith_time, arith_ops = _timed(lambda: _xdsl_arith_parse(arith))
        assert arith_ops == nodes, (arith_ops, nodes)
        record("xdsl arith parse", arith_time)
        checked = program, model
    assert checked is not None, "--repeat must be at least 1"
    _check_semantics(*checked)
    result: dict[str, float | int] = {"nodes": nodes}
    result |= {name: median(values) for name, values in times.items()}
    return result


def _check_semantics(program: Program, model: Callable[[int], int]) -> None:
    """The interpreter on a few lanes against the plain-Python model."""
    import vyre

    a = np.array([0, 1, 2, 7, 0xFFFF_FFFF, 12345, 0x8000_0000, 99], dtype=np.uint32)[:LANES]
    out = vyre.run(program, {"a": a}, outputs={"out": LANES}, dispatch=(1, 1, 1), backend="interp")
    expected = np.array([model(int(x)) for x in a], dtype=np.uint32)
    got = np.asarray(out["out"])
    assert np.array_equal(got, expected), (got, expected)


def _float_chain(count: int, fmt: str) -> Program:
    """`count` lets mixing add, mul, fma, div and sqrt over two inputs of `fmt`."""
    from vyre.ir import BufferDecl, DataType, Expr, Node, Program
    from vyre.ir import Expr as E
    from vyre.ir import Node as N

    dtype = DataType(fmt)
    one = E.float_bits(dtype, 0x3F800000 if dtype is DataType.F32 else 0x3F80 if dtype is DataType.BF16 else 0x3C00)
    body: list[Node] = [
        N.let("i", E.gid_x()),
        N.let("v0", E.load("a", E.var("i"))),
        N.let("v1", E.load("b", E.var("i"))),
    ]
    names = ["v0", "v1"]
    for k in range(count):
        x, y, z = (E.var(names[(k * s + 1) % len(names)]) for s in (7, 3, 5))
        steps: list[Callable[[], Expr]] = [
            lambda: E.fadd(x, y),
            lambda: E.fmul(x, y),
            lambda: E.fma(x, y, z),
            lambda: E.fdiv(x, E.fadd(E.fabs(y), one)),
            lambda: E.fsqrt(E.fabs(x)),
        ]
        names.append(f"v{k + 2}")
        body.append(N.let(names[-1], steps[k % 5]()))
    body.append(N.store("out", E.var("i"), E.var(names[-1])))
    buffers = [BufferDecl.read("a", 0, dtype), BufferDecl.read("b", 1, dtype), BufferDecl.read_write("out", 2, dtype)]
    return Program(buffers, (64, 1, 1), body, name=f"chain_{fmt}_{count}")


def _measure_floats(count: int, fmt: str, repeat: int, first_run: bool) -> list[object]:
    import vyre
    from vyre.dialects import vyre as d
    from vyre.pipeline import Prepared, transformed

    times: dict[str, list[float]] = {}
    size = routines = 0
    for _ in range(repeat):
        build, program = _timed(lambda: _float_chain(count, fmt))
        validate, diagnostics = _timed(lambda: vyre.validate(program))
        assert diagnostics == [], diagnostics[:3]
        prepare, prepared = _timed(lambda: Prepared(transformed(program), None))
        strict, module = _timed(lambda: prepared.strict_module)
        lower, lowered = _timed(lambda: prepared.wgsl)
        size = len(lowered.wgsl)
        routines = sum(1 for op in module.ops if isinstance(op, d.RoutineOp))
        for name, seconds in (("build", build), ("validate", validate), ("prepare", prepare),
                              ("float-strict", strict), ("lower", lower)):  # fmt: skip
            times.setdefault(name, []).append(seconds)
        times.setdefault("total", []).append(build + validate + prepare + strict + lower)
    row: list[object] = [f"{fmt} x {count}"]
    row += [f"{1e3 * median(times[step]):.0f}" for step in ("build", "validate", "prepare", "float-strict", "lower", "total")]
    row += [f"{size / 1024:.1f}", routines]
    if first_run:
        row.append(f"{_first_run(_float_chain(count, fmt), fmt):.2f}")
    return row


def _first_run(program: Program, fmt: str) -> float:
    """Seconds of the first `vyre.run` on the GPU (a fresh program: nothing cached);
    its result must equal the interpreter's."""
    import vyre

    n = 4096
    rng = np.random.default_rng(5)
    dtype = {"f32": np.float32, "f16": np.float16}.get(fmt)
    if dtype is None:
        a, b = (rng.integers(0, 1 << 16, n, dtype=np.uint16) for _ in range(2))
    else:
        a, b = (rng.standard_normal(n).astype(dtype) for _ in range(2))
    args = {"a": a, "b": b}
    start = time.perf_counter()
    gpu = vyre.run(program, args, dispatch=(n // 64, 1, 1), outputs={"out": n}, backend="wgpu")["out"]
    seconds = time.perf_counter() - start
    ref = vyre.run(program, args, dispatch=(n // 64, 1, 1), outputs={"out": n}, backend="interp")["out"]
    assert np.array_equal(np.asarray(gpu).view(np.uint8), np.asarray(ref).view(np.uint8)), "wgpu != interp"
    return seconds


@quiet_on_closed_pipe
def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--floats", default="100,200,1000", help="strict float operations per row ('' for none)")
    parser.add_argument("--formats", default="f32,f16")
    parser.add_argument("--first-run", action="store_true", help="time the first vyre.run on the GPU too")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.nodes.split(",") if n]
    rows: list[list[object]] = []
    steps = [
        "build", "validate", "fingerprint", "prepare", "lower", "b+v+l", "print", "parse",
        "wire enc", "wire dec", "xdsl arith parse",
    ]  # fmt: skip
    for size in sizes:
        result = _measure(_units(size), args.repeat)
        nodes = int(result["nodes"])
        row: list[object] = [f"{nodes:,}"]
        row += [f"{1e3 * float(result[step]):.1f}" for step in steps]
        per_op_vyre = float(result["parse"]) / nodes * 1e6
        per_op_xdsl = float(result["xdsl arith parse"]) / nodes * 1e6
        row += [f"{per_op_vyre:.1f} / {per_op_xdsl:.1f}"]
        rows.append(row)
        print(f"measured {nodes} nodes", file=sys.stderr, flush=True)
    header = ["nodes", *(f"{step} ms" for step in steps), "parse µs/op vyre / xdsl"]
    if rows:
        print(f"compile time on {cpu_name()} (CPU only; median of {args.repeat})\n")
        print(table(header, rows))
    float_rows: list[list[object]] = []
    for fmt in [f for f in args.formats.split(",") if f]:
        for count in [int(n) for n in args.floats.split(",") if n]:
            float_rows.append(_measure_floats(count, fmt, args.repeat, args.first_run))
            print(f"measured {fmt} x {count}", file=sys.stderr, flush=True)
    if float_rows:
        float_header = [
            "strict ops", "build ms", "validate ms", "prepare ms", "float-strict ms", "lower ms",
            "total ms", "WGSL KB", "routines",
        ]  # fmt: skip
        if args.first_run:
            from _common import gpu_name

            float_header.append(f"first run s ({gpu_name()})")
        print(f"\nstrict float kernels on {cpu_name()} (median of {args.repeat})\n")
        print(table(float_header, float_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
