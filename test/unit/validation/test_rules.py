"""Every rule V001-V025 triggered by a program built with `vyre.ir`.

The expected texts are copied from docs/validation.md on purpose: they are the
oracle, so they must not come from the module under test."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest
from xdsl.ir import Operation

import vyre
from vyre.ir import AtomicOp, BufferAccess, BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N

if TYPE_CHECKING:
    from conftest import FakeRegistry

INP = BufferDecl.read("inp", 0, DataType.U32)
OUT = BufferDecl.read_write("out", 1, DataType.U32)


def program(
    entry: Sequence[N],
    buffers: Sequence[BufferDecl] = (INP, OUT),
    workgroup_size: tuple[int, int, int] = (64, 1, 1),
) -> Program:
    return Program(buffers, workgroup_size, entry)


def found(prog: Program) -> list[tuple[str, str]]:
    return [(d.rule, d.message) for d in vyre.validate(prog)]


def test_v001_duplicate_buffer_name() -> None:
    prog = program([], [INP, BufferDecl.read_write("inp", 1, DataType.U32)])
    assert found(prog) == [
        (
            "V001",
            "vyre IR validation: duplicate buffer name `inp`. Fix: each buffer must have a unique name.",
        )
    ]


def test_v002_duplicate_binding_and_workgroup_exemption() -> None:
    prog = program([], [INP, BufferDecl.read_write("b", 0, DataType.U32)])
    assert found(prog) == [
        (
            "V002",
            "vyre IR validation: duplicate binding slot 0 (buffer `b`). Fix: each buffer must have a unique binding.",
        )
    ]
    shared = BufferDecl.workgroup("tile", 4, DataType.U32)  # binding 0, exempt
    assert found(program([], [INP, shared])) == []


def test_v003_each_zero_workgroup_axis() -> None:
    assert found(program([], workgroup_size=(0, 1, 0))) == [
        ("V003", "vyre IR validation: workgroup_size[0] is 0. Fix: all workgroup dimensions must be >= 1."),
        ("V003", "vyre IR validation: workgroup_size[2] is 0. Fix: all workgroup dimensions must be >= 1."),
    ]


def test_v004_unknown_buffer_for_each_use() -> None:
    prog = program(
        [
            N.let("a", E.load("nope", E.u32(0))),
            N.let("b", E.buf_len("nope")),
            N.let("c", E.atomic(AtomicOp.ADD, "nope", E.u32(0), E.u32(1))),
            N.store("nope", E.u32(0), E.u32(1)),
        ]
    )
    assert found(prog) == [
        ("V004", "vyre IR validation: load from unknown buffer `nope`. Fix: declare it in Program::buffers."),
        ("V004", "vyre IR validation: buflen of unknown buffer `nope`. Fix: declare it in Program::buffers."),
        ("V004", "vyre IR validation: atomic on unknown buffer `nope`. Fix: declare it in Program::buffers."),
        ("V004", "vyre IR validation: store to unknown buffer `nope`. Fix: declare it in Program::buffers."),
    ]


def test_v005_store_to_read_only_and_uniform() -> None:
    params = BufferDecl.uniform("params", 2, DataType.U32)
    prog = program(
        [N.store("inp", E.u32(0), E.u32(1)), N.store("params", E.u32(0), E.u32(1))],
        [INP, OUT, params],
    )
    fix = "Fix: declare it with BufferAccess::ReadWrite or BufferAccess::Workgroup."
    assert found(prog) == [
        ("V005", f"vyre IR validation: store to non-writable buffer `inp`. {fix}"),
        ("V005", f"vyre IR validation: store to non-writable buffer `params`. {fix}"),
    ]
    shared = BufferDecl.workgroup("tile", 4, DataType.U32)
    ok = [N.store("out", E.u32(0), E.u32(1)), N.store("tile", E.u32(0), E.u32(1))]
    assert found(program(ok, [INP, OUT, shared])) == []


def test_v006_undeclared_reference_and_assignment() -> None:
    prog = program([N.store("out", E.u32(0), E.var("ghost")), N.assign("phantom", E.u32(1))])
    assert found(prog) == [
        (
            "V006",
            "vyre IR validation: reference to undeclared variable `ghost`. Fix: add `let ghost = ...;` before this use.",
        ),
        (
            "V006",
            "vyre IR validation: assignment to undeclared variable `phantom`. Fix: add `let phantom = ...;` before this assignment.",
        ),
    ]


def test_v007_axis_out_of_range_for_each_id() -> None:
    prog = program(
        [
            N.let("a", E.invocation_id(3)),
            N.let("b", E.workgroup_id(5)),
            N.let("c", E.local_id(7)),
            N.let("d", E.local_id(2)),
        ]
    )
    fix = "Fix: use 0 (x), 1 (y), or 2 (z)."
    assert found(prog) == [
        ("V007", f"vyre IR validation: invocation/workgroup ID axis 3 out of range. {fix}"),
        ("V007", f"vyre IR validation: invocation/workgroup ID axis 5 out of range. {fix}"),
        ("V007", f"vyre IR validation: invocation/workgroup ID axis 7 out of range. {fix}"),
    ]


def test_v008_let_and_loop_variable_shadowing() -> None:
    prog = program(
        [
            N.let("x", E.u32(0)),
            N.let("x", E.u32(1)),
            N.loop("x", E.u32(0), E.u32(2), []),
            N.loop("i", E.u32(0), E.u32(2), [N.let("i", E.u32(3))]),
            N.if_(E.u32(1), [N.block([N.let("x", E.u32(4))])]),
        ]
    )
    message = "vyre IR validation: duplicate local binding `{}`. Fix: choose a unique local name; shadowing is not allowed."
    assert found(prog) == [
        ("V008", message.format("x")),
        ("V008", message.format("x")),
        ("V008", message.format("i")),
        ("V008", message.format("x")),
    ]


def test_v009_atomic_on_read_only_and_uniform() -> None:
    params = BufferDecl.uniform("params", 2, DataType.U32)
    prog = program(
        [
            N.let("a", E.atomic(AtomicOp.ADD, "inp", E.u32(0), E.u32(1))),
            N.let("b", E.atomic(AtomicOp.MAX, "params", E.u32(0), E.u32(1))),
        ],
        [INP, OUT, params],
    )
    fix = "Fix: declare it with BufferAccess::ReadWrite."
    assert found(prog) == [
        ("V009", f"vyre IR validation: atomic on non-writable buffer `inp`. {fix}"),
        ("V009", f"vyre IR validation: atomic on non-writable buffer `params`. {fix}"),
    ]


def test_v010_divergent_barrier() -> None:
    prog = program([N.if_(E.lt(E.local_id(0), E.u32(32)), [N.barrier()])])
    assert found(prog) == [
        (
            "V010",
            "vyre IR validation: barrier may be reached by only part of a workgroup. Fix: move the barrier to uniform control flow.",
        )
    ]


def test_v011_assignment_to_loop_variable_of_any_enclosing_loop() -> None:
    prog = program(
        [
            N.loop(
                "i",
                E.u32(0),
                E.u32(4),
                [N.assign("i", E.u32(1)), N.loop("j", E.u32(0), E.u32(4), [N.assign("i", E.var("j"))])],
            )
        ]
    )
    message = "vyre IR validation: assignment to loop variable `i`. Fix: loop variables are immutable."
    assert found(prog) == [("V011", message), ("V011", message)]


@pytest.mark.parametrize(
    ("source", "target"),
    [(DataType.U64, "vec4u32"), (DataType.VEC2U32, "vec4u32")],
)
def test_v012_unsupported_cast(source: DataType, target: str) -> None:
    value = E.cast(source, E.u32(7))
    prog = program([N.let("x", E.cast(DataType.VEC4U32, value))])
    assert found(prog) == [
        (
            "V012",
            f"vyre IR validation: unsupported cast from `{source.value}` to `{target}`. Fix: use a conversion of the cast table (docs/semantics.md, \"Casts\").",
        )
    ]


def test_v012_cast_from_bytes_to_scalar(registry: FakeRegistry) -> None:
    registry.add("test.bytes", output=DataType.BYTES)
    prog = program(
        [
            N.let("x", E.cast(DataType.U32, E.call("test.bytes", []))),
            N.let("y", E.cast(DataType.BYTES, E.call("test.bytes", []))),  # identity
        ]
    )
    assert found(prog) == [
        (
            "V012",
            "vyre IR validation: unsupported cast from `bytes` to `u32`. Fix: use a conversion of the cast table (docs/semantics.md, \"Casts\").",
        )
    ]


def test_every_cast_of_the_table_is_accepted() -> None:
    scalars = [DataType.U32, DataType.I32, DataType.BOOL, DataType.U64, DataType.VEC2U32, DataType.VEC4U32]
    unsupported = {(DataType.U64, DataType.VEC4U32), (DataType.VEC2U32, DataType.VEC4U32)}
    entry = []
    for source in scalars:
        for target in scalars:
            if (source, target) not in unsupported:
                entry.append(N.let(f"c_{source.value}_{target.value}", E.cast(target, E.cast(source, E.u32(1)))))
    # the inner cast from u32 is itself in the table for every scalar type
    assert found(program(entry)) == []


def test_v013_bytes_buffer_load_store_atomic() -> None:
    blob = BufferDecl.read_write("blob", 2, DataType.BYTES)
    prog = program(
        [
            N.let("a", E.load("blob", E.u32(0))),
            N.store("blob", E.u32(0), E.u32(1)),
            N.let("c", E.atomic(AtomicOp.ADD, "blob", E.u32(0), E.u32(1))),
            N.let("n", E.buf_len("blob")),
        ],
        [INP, OUT, blob],
    )
    message = "vyre IR validation: operation on buffer `blob` with element type `bytes` is not supported. Fix: use a typed buffer."
    assert found(prog) == [("V013", message)] * 3


def test_v014_atomic_on_non_u32_elements() -> None:
    signed = BufferDecl.read_write("signed", 2, DataType.I32)
    wide = BufferDecl.read_write("wide", 3, DataType.U64)
    prog = program(
        [
            N.let("a", E.atomic(AtomicOp.ADD, "signed", E.u32(0), E.u32(1))),
            N.let("b", E.atomic(AtomicOp.OR, "wide", E.u32(0), E.u32(1))),
        ],
        [INP, OUT, signed, wide],
    )
    assert found(prog) == [
        (
            "V014",
            "vyre IR validation: atomic on buffer `signed` with non-u32 element type `i32`. Fix: atomics only support U32 elements.",
        ),
        (
            "V014",
            "vyre IR validation: atomic on buffer `wide` with non-u32 element type `u64`. Fix: atomics only support U32 elements.",
        ),
    ]


def test_v015_each_non_u32_loop_bound() -> None:
    prog = program(
        [
            N.loop("i", E.i32(0), E.u32(4), []),
            N.loop("j", E.u32(0), E.bool_(True), []),
            N.loop("k", E.cast(DataType.U64, E.u32(0)), E.i32(3), []),
        ]
    )
    message = "vyre IR validation: loop bound expression must be `u32`, got `{}`. Fix: ensure `from` and `to` are U32."
    assert found(prog) == [
        ("V015", message.format("i32")),
        ("V015", message.format("bool")),
        ("V015", message.format("u64")),
        ("V015", message.format("i32")),
    ]


def test_v016_unknown_op_id() -> None:
    prog = program([N.let("x", E.call("no.such.op", [E.u32(1)]))])
    assert found(prog) == [
        (
            "V016",
            "vyre IR validation: V016: unknown op `no.such.op`. Fix: use a registered op id or add the op to core::ops::*.",
        )
    ]


V017 = (
    "V017",
    "vyre IR validation: V017: call depth exceeds maximum of 32. Fix: reduce call nesting or mutually recursive operations.",
)


def nested_calls(op_id: str, depth: int) -> E:
    expr = E.u32(1)
    for _ in range(depth):
        expr = E.call(op_id, [expr])
    return expr


def test_v017_calls_nested_in_argument_position(registry: FakeRegistry) -> None:
    registry.add("test.id")
    assert found(program([N.let("x", nested_calls("test.id", 32))])) == []
    # one finding for the outermost call that crosses the limit, not one per level
    assert found(program([N.let("x", nested_calls("test.id", 40))])) == [V017]


def test_v017_nesting_through_other_expressions_counts(registry: FakeRegistry) -> None:
    registry.add("test.id")
    expr = E.u32(1)
    for _ in range(33):
        expr = E.call("test.id", [E.add(expr, E.u32(1))])
    assert found(program([N.let("x", expr)])) == [V017]


def test_v017_callee_chain(registry: FakeRegistry) -> None:
    for level in range(40):
        registry.add(f"test.f{level}", callees=(f"test.f{level + 1}",) if level < 39 else ())
    # test.f8 heads a chain of 32 ops: depth 32 is allowed; test.f7 is 33 deep
    assert found(program([N.let("x", E.call("test.f8", []))])) == []
    assert found(program([N.let("x", E.call("test.f7", []))])) == [V017]
    # a chain of 31 below a call nested under one more call: 2 + 31 = 33
    registry.add("test.id")
    assert found(program([N.let("x", E.call("test.f9", [E.call("test.id", [])]))])) == []
    assert found(program([N.let("x", E.call("test.f9", [E.call("test.id", [E.call("test.id", [])])]))])) == [V017]


def test_v017_cycle_is_infinitely_deep(registry: FakeRegistry) -> None:
    registry.add("test.even", callees=("test.odd",))
    registry.add("test.odd", callees=("test.even",))
    registry.add("test.self", callees=("test.self",))
    prog = program([N.let("x", E.call("test.even", [])), N.let("y", E.call("test.self", []))])
    assert found(prog) == [V017, V017]


def nested_blocks(depth: int) -> list[N]:
    body: list[N] = [N.barrier()]
    for _ in range(depth):
        body = [N.block(body)]
    return body


def test_v018_nesting_depth_reported_once_with_the_maximum() -> None:
    assert found(program(nested_blocks(64))) == []
    mixed: list[N] = nested_blocks(66)
    for _ in range(3):
        mixed = [N.if_(E.u32(1), mixed), N.loop("i" + str(len(mixed)), E.u32(0), E.u32(1), list(nested_blocks(65)))]
    diagnostics = vyre.validate(program(mixed))
    assert [(d.rule, d.message) for d in diagnostics] == [
        (
            "V018",
            "vyre IR validation: V018: program nesting depth 69 exceeds max 64. Fix: flatten nested If/Loop/Block structures or split the program before lowering.",
        )
    ]


def test_v019_node_count_counts_statements_and_expressions() -> None:
    # 33_333 stores of 3 nodes each (two literals and the store) + 2 barriers
    prog = program([N.store("out", E.u32(0), E.u32(1))] * 33_333 + [N.barrier()] * 2)
    assert found(prog) == [
        (
            "V019",
            "vyre IR validation: V019: program has more than 100000 statement nodes. Fix: split the program into smaller kernels or run an optimization pass before lowering.",
        )
    ]
    last = prog.kernel.entry.last_op
    assert last is not None
    last.detach()  # 100_000 nodes: at the limit, allowed
    assert found(prog) == []


def test_v020_non_inlinable_call(registry: FakeRegistry) -> None:
    registry.add("test.kernel_only", inlinable=False)
    registry.add("test.scalar")
    prog = program([N.let("x", E.call("test.kernel_only", [])), N.let("y", E.call("test.scalar", []))])
    assert found(prog) == [
        (
            "V020",
            "vyre IR validation: V020: call to non-inlinable op `test.kernel_only` is rejected by validation. Fix: lower this operation through its dedicated backend path or rewrite the caller with explicit IR.",
        )
    ]


def test_v021_left_and_right_operands() -> None:
    prog = program(
        [
            N.let("a", E.add(E.i32(1), E.u32(2))),
            N.let("b", E.shl(E.u32(1), E.bool_(True))),
            N.let("c", E.eq(E.cast(DataType.VEC2U32, E.u32(1)), E.cast(DataType.U64, E.u32(1)))),
        ]
    )
    message = "vyre IR validation: binary operation {} operand must be `u32`, got `{}`. Fix: cast or rewrite the operand to produce U32."
    assert found(prog) == [
        ("V021", message.format("left", "i32")),
        ("V021", message.format("right", "bool")),
        ("V021", message.format("left", "vec2u32")),
        ("V021", message.format("right", "u64")),
    ]


def test_v022_if_condition_type() -> None:
    prog = program(
        [
            N.if_(E.i32(1), []),
            N.if_(E.cast(DataType.VEC4U32, E.u32(1)), []),
            N.if_(E.bool_(True), []),
            N.if_(E.u32(1), []),
        ]
    )
    message = "vyre IR validation: if condition must be `u32` or `bool`, got `{}`. Fix: cast or rewrite the condition to produce U32 or Bool."
    assert found(prog) == [("V022", message.format("i32")), ("V022", message.format("vec4u32"))]


def test_v023_cast_to_bytes() -> None:
    prog = program([N.let("x", E.cast(DataType.BYTES, E.u32(1))), N.let("y", E.cast(DataType.BYTES, E.i32(1)))])
    message = "vyre IR validation: V023: cast to Bytes is unsupported in WGSL lowering. Fix: use buffer load/store directly for byte data."
    assert found(prog) == [("V023", message), ("V023", message)]


def test_v024_workgroup_buffer_count() -> None:
    prog = program([], [INP, OUT, BufferDecl.workgroup("tile", 0, DataType.U32)])
    assert found(prog) == [
        ("V024", "vyre IR validation: workgroup buffer `tile` has count 0. Fix: declare a positive element count.")
    ]


def test_v025_atomic_on_workgroup_buffer_of_non_u32_elements() -> None:
    # vyre extends the core rule V025 (docs/kernels.md, "Workgroup
    # atomics"): atomics on U32 workgroup buffers are valid; V025 (with its text)
    # still rejects the other element types, beside V014.
    signed = BufferDecl.workgroup("tile", 8, DataType.I32)
    prog = program([N.let("a", E.atomic(AtomicOp.ADD, "tile", E.u32(0), E.u32(1)))], [INP, OUT, signed])
    assert found(prog) == [
        ("V025", "vyre IR validation: atomic on non-writable buffer `tile`. Fix: declare it with BufferAccess::ReadWrite."),
        ("V014", "vyre IR validation: atomic on buffer `tile` with non-u32 element type `i32`. Fix: atomics only support U32 elements."),
    ]


@pytest.mark.parametrize("op", list(AtomicOp), ids=lambda op: op.name)
def test_atomics_on_u32_workgroup_buffers_are_valid(op: AtomicOp) -> None:
    shared = BufferDecl.storage("tile", 0, BufferAccess.WORKGROUP, DataType.U32, 8)
    expected = E.u32(0) if op is AtomicOp.COMPARE_EXCHANGE else None
    body = [
        N.let("a", E.atomic(op, "tile", E.local_id(0), E.u32(1), expected)),
        N.barrier(),
        N.store("out", E.gid_x(), E.add(E.var("a"), E.load("tile", E.u32(0)))),
        N.store("tile", E.u32(1), E.u32(5)),
    ]
    assert found(program(body, [INP, OUT, shared])) == []


def test_atomics_still_rejected_on_read_only_and_uniform_buffers() -> None:
    uniform = BufferDecl.uniform("u", 2, DataType.U32)
    prog = program(
        [
            N.let("a", E.atomic(AtomicOp.ADD, "inp", E.u32(0), E.u32(1))),
            N.let("b", E.atomic(AtomicOp.OR, "u", E.u32(0), E.u32(1))),
        ],
        [INP, OUT, uniform],
    )
    text = "vyre IR validation: atomic on non-writable buffer `{}`. Fix: declare it with BufferAccess::ReadWrite."
    assert found(prog) == [("V009", text.format("inp")), ("V009", text.format("u"))]


def test_workgroup_atomic_value_and_index_type_rules_still_apply() -> None:
    shared = BufferDecl.workgroup("tile", 8, DataType.U32)
    bytes_shared = BufferDecl.workgroup("raw", 8, DataType.BYTES)
    prog = program(
        [
            N.let("a", E.atomic(AtomicOp.ADD, "tile", E.i32(0), E.u32(1))),
            N.let("b", E.atomic(AtomicOp.ADD, "tile", E.u32(0), E.i32(1))),
            N.let("c", E.atomic(AtomicOp.ADD, "raw", E.u32(0), E.u32(1))),
        ],
        [INP, OUT, shared, bytes_shared],
    )
    assert [rule for rule, _ in found(prog)] == ["V027", "V057", "V025", "V013"]


def test_v018_beyond_the_walk_depth_reports_sizes_without_recursing() -> None:
    # 5000 nested blocks (built from dialect ops: the builder itself recurses)
    from vyre.dialects import vyre as d

    ops: list[Operation] = [d.BarrierOp()]
    for _ in range(5000):
        ops = [d.BlockOp(ops)]
    kernel = d.KernelOp("k", (0, 1, 1), [], ops)
    assert [(x.rule, x.message) for x in vyre.validate(kernel)] == [
        ("V003", "vyre IR validation: workgroup_size[0] is 0. Fix: all workgroup dimensions must be >= 1."),
        (
            "V018",
            "vyre IR validation: V018: program nesting depth 5000 exceeds max 64. Fix: flatten nested If/Loop/Block structures or split the program before lowering.",
        ),
    ]


def test_v018_reported_with_the_other_findings_below_the_walk_depth() -> None:
    body: list[N] = [N.barrier()]
    for level in range(100):
        body = [N.if_(E.local_id(0) if level == 0 else E.u32(1), body)]
    assert [x.rule for x in vyre.validate(program(body))] == ["V018", "V010"]
