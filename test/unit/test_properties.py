"""Property tests (Hypothesis) of the builder, the text form and the wire form.

Programs are drawn from a grammar of valid u32 programs (lets, assigns, stores,
ifs, literal-bound loops, blocks, returns; every integer BinOp and UnOp, select,
loads at any index, ids), so that each property holds for every draw:

- the builder is a function: the same trees give equal programs, equal hashes;
  trees compare, hash and pickle by value,
- text: `parse_ir(print_ir(p)) == p`, and printing is a fixed point; the generic
  form round-trips too,
- wire: `from_wire(to_wire(p)) == p` and the encoding is canonical,
- every drawn program validates.

Profiles (VYRE_HYPOTHESIS_PROFILE): `ci` (the default: derandomised, so CI runs
the same examples every time; Hypothesis then uses no example database),
`fuzz` (`make fuzz`: random, 1,000 examples per property, failures kept in
test/fuzz_corpus/hypothesis) and `replay` (only the examples saved there). A
failure `make fuzz` finds is printed shrunk; pin it with `@example(...)` so CI
replays it forever."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase

import vyre
from vyre.ir import BinOp, BufferDecl, DataType, Program, UnOp
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.ir import INTEGER_BINOPS as INT_BINOP_KINDS, INTEGER_UNOPS as INT_UNOP_KINDS

DATABASE = Path(__file__).resolve().parents[1] / "fuzz_corpus" / "hypothesis"
_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
settings.register_profile(
    "ci", derandomize=True, max_examples=15, phases=[Phase.explicit, Phase.generate, Phase.shrink], **_COMMON
)
settings.register_profile(
    "fuzz", max_examples=1_000, database=DirectoryBasedExampleDatabase(DATABASE), **_COMMON
)
settings.register_profile(
    "replay",
    database=DirectoryBasedExampleDatabase(DATABASE),
    phases=[Phase.explicit, Phase.reuse],
    **_COMMON,
)
settings.load_profile(os.environ.get("VYRE_HYPOTHESIS_PROFILE", "ci"))

BUFFERS = [
    BufferDecl.read("a", 0, DataType.U32),
    BufferDecl.read_write("out", 1, DataType.U32),
    BufferDecl.workgroup("tile", 16, DataType.U32),
]
INT_BINOPS: list[BinOp] = list(INT_BINOP_KINDS)
INT_UNOPS: list[UnOp] = list(INT_UNOP_KINDS)

u32s = st.one_of(st.sampled_from([0, 1, 2, 31, 32, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF]), st.integers(0, 2**32 - 1))


def exprs(names: tuple[str, ...]) -> st.SearchStrategy[E]:
    """u32 expressions over the locals `names`."""
    leaves = st.one_of(
        u32s.map(E.u32),
        st.sampled_from([E.gid_x(), E.local_id(0), E.workgroup_id(0), E.buf_len("a")]),
        *([st.sampled_from(names).map(E.var)] if names else []),
    )

    def extend(inner: st.SearchStrategy[E]) -> st.SearchStrategy[E]:
        return st.one_of(
            st.tuples(st.sampled_from(INT_BINOPS), inner, inner).map(lambda t: E.binop(*t)),
            st.tuples(st.sampled_from(INT_UNOPS), inner).map(lambda t: E.unop(*t)),
            st.tuples(inner, inner, inner).map(lambda t: E.select(*t)),
            inner.map(lambda index: E.load(st_buffer_a, index)),
            inner.map(lambda index: E.load("tile", index)),
            inner.map(lambda value: E.cast(DataType.U32, value)),
        )

    return st.recursive(leaves, extend, max_leaves=8)


st_buffer_a = "a"


@st.composite
def statements(
    draw: st.DrawFn, names: tuple[str, ...], depth: int, count: int, loop_vars: tuple[str, ...] = ()
) -> list[N]:
    """Statements over the visible locals `names` (`loop_vars` among them are
    read-only: V011)."""
    body: list[N] = []
    local = list(names)
    for _ in range(draw(st.integers(0, count))):
        kind = draw(st.sampled_from(["let", "assign", "store", "if", "loop", "block", "return"]))
        scope = tuple(local)
        assignable = [name for name in local if name not in loop_vars]
        if kind == "let" or (kind == "assign" and not assignable):
            name = f"v{len(local)}_{depth}"
            if name in local:
                continue
            body.append(N.let(name, draw(exprs(scope))))
            local.append(name)
        elif kind == "assign":
            body.append(N.assign(draw(st.sampled_from(assignable)), draw(exprs(scope))))
        elif kind == "store":
            target = draw(st.sampled_from(["out", "tile"]))
            body.append(N.store(target, draw(exprs(scope)), draw(exprs(scope))))
        elif kind == "return":
            body.append(N.return_())
        elif depth == 0:
            continue
        elif kind == "if":
            then = draw(statements(scope, depth - 1, 2, loop_vars))
            otherwise = draw(statements(scope, depth - 1, 2, loop_vars))
            body.append(N.if_(draw(exprs(scope)), then, otherwise))
        elif kind == "loop":
            var = f"i{depth}_{len(body)}"
            inner = draw(statements((*scope, var), depth - 1, 2, (*loop_vars, var)))
            body.append(N.loop(var, E.u32(draw(st.integers(0, 3))), E.u32(draw(st.integers(0, 5))), inner))
        else:
            body.append(N.block(draw(statements(scope, depth - 1, 2, loop_vars))))
    return body


@st.composite
def programs(draw: st.DrawFn) -> tuple[list[N], tuple[int, int, int]]:
    sizes = (draw(st.sampled_from([1, 2, 16, 64])), 1, 1)
    return draw(statements((), 2, 4)), sizes


def _build(entry: list[N], sizes: tuple[int, int, int]) -> Program:
    return Program(BUFFERS, sizes, entry)


@given(programs())
def test_the_builder_is_a_function_of_its_trees(case: tuple[list[N], tuple[int, int, int]]) -> None:
    entry, sizes = case
    first, second = _build(entry, sizes), _build(entry, sizes)
    assert first == second and hash(first) == hash(second)
    assert vyre.validate(first) == []
    copied = pickle.loads(pickle.dumps(entry))
    assert copied == entry and hash(tuple(copied)) == hash(tuple(entry))
    assert _build(copied, sizes) == first


@given(programs())
def test_text_round_trip(case: tuple[list[N], tuple[int, int, int]]) -> None:
    program = _build(*case)
    text = vyre.print_ir(program)
    parsed = vyre.parse_ir(text)
    assert parsed == program
    assert vyre.print_ir(parsed) == text
    assert vyre.parse_ir(vyre.print_ir(program, generic=True)) == program


@given(programs())
def test_wire_round_trip_is_lossless_and_canonical(case: tuple[list[N], tuple[int, int, int]]) -> None:
    program = _build(*case)
    blob = program.to_wire()
    decoded = Program.from_wire(blob)
    assert decoded == program
    assert decoded.to_wire() == blob
    assert vyre.print_ir(decoded) == vyre.print_ir(program)
