"""The Python builder (`vyre.ir`): types and enums, building a program."""

from __future__ import annotations

import pytest

from vyre.dialects import vyre as d
from vyre.ir import (
    AtomicOp,
    BinOp,
    BufferAccess,
    BufferDecl,
    DataType,
    Expr as E,
    Node as N,
    Program,
    UnOp,
)


def test_stable_data_types_and_sizes() -> None:
    expected = {
        "U32": 4, "I32": 4, "U64": 8, "VEC2U32": 8, "VEC4U32": 16, "BOOL": 4, "BYTES": 0,
        "F32": 4, "F16": 2, "BF16": 2, "U128": 16,
    }  # fmt: skip
    assert {t.name: t.min_bytes() for t in DataType} == expected


def test_enum_members_named_in_the_spec() -> None:
    assert [a.name for a in BufferAccess] == ["READ_ONLY", "READ_WRITE", "UNIFORM", "WORKGROUP"]
    assert [b.name for b in BinOp] == (
        "ADD SUB MUL DIV MOD BIT_AND BIT_OR BIT_XOR SHL SHR EQ NE LT GT LE GE AND OR DOT4_I8 MUL_HIGH"
        " FADD FSUB FMUL FDIV FMIN FMAX FEQ FNE FLT FLE FGT FGE FATAN2 FPOW".split()
    )
    assert [u.name for u in UnOp] == (
        "NEGATE BIT_NOT LOGICAL_NOT POPCOUNT CLZ CTZ REVERSE_BITS"
        " FNEG FABS FSQRT FFLOOR FCEIL FROUND FTRUNC FIS_NAN FIS_INF FEXP2 FEXP FEXP10 FLOG FLOG2 FLOG10"
        " FSIN FCOS FTAN FASIN FACOS FATAN FTANH FERF"
        " FSQRT_APPROX FEXP2_APPROX FLOG2_APPROX FSIN_APPROX FCOS_APPROX".split()
    )
    assert [a.name for a in AtomicOp] == (
        "ADD OR AND XOR MIN MAX EXCHANGE COMPARE_EXCHANGE".split()
    )


def test_every_expression_constructor_of_the_spec_exists() -> None:
    a, b = E.u32(1), E.u32(2)
    for name in "add sub mul div mod bitand bitor bitxor shl shr eq ne lt gt le ge and_ or_".split():
        assert getattr(E, name)(a, b) is not None
    for name in "negate bitnot logical_not popcount clz ctz reverse_bits".split():
        assert getattr(E, name)(a) is not None
    assert E.gid_x() == E.invocation_id(0)
    assert E.binop(BinOp.ADD, a, b) == E.add(a, b)


def test_buffer_decl_constructors() -> None:
    assert BufferDecl.read("a", 0, DataType.U32) == BufferDecl(
        "a", 0, BufferAccess.READ_ONLY, DataType.U32, 0
    )
    assert BufferDecl.read_write("o", 2, DataType.U64).access is BufferAccess.READ_WRITE
    assert BufferDecl.uniform("p", 3, DataType.U32).access is BufferAccess.UNIFORM
    tile = BufferDecl.workgroup("tile", 256, DataType.U32)
    assert (tile.access, tile.count, tile.binding) == (BufferAccess.WORKGROUP, 256, 0)


def _xor_program() -> Program:
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("idx", E.gid_x()),
            N.store("out", E.var("idx"), E.bitxor(E.load("a", E.var("idx")), E.load("b", E.var("idx")))),
        ],
    )


def test_program_produces_dialect_ops_in_evaluation_order() -> None:
    program = _xor_program()
    kernel = program.kernel
    assert isinstance(kernel, d.KernelOp)
    assert program.workgroup_size == (64, 1, 1)
    assert [b.name for b in program.buffers] == ["a", "b", "out"]
    names = [op.name for op in kernel.entry.ops]
    assert names == [
        "vyre.invocation_id",
        "vyre.let",
        "vyre.var",  # store index
        "vyre.var",
        "vyre.load",
        "vyre.var",
        "vyre.load",
        "vyre.binop",
        "vyre.store",
    ]
    store = kernel.entry.last_op
    assert isinstance(store, d.StoreOp)
    assert store.buffer.data == "out"
    assert isinstance(store.value.owner, d.BinOp) and store.value.owner.op_kind is d.BinOpKind.BIT_XOR


def test_types_flow_from_buffers_and_lets() -> None:
    program = Program(
        buffers=[BufferDecl.read("wide", 0, DataType.U64)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.let("w", E.load("wide", E.u32(0))),
            N.let("copy", E.var("w")),
            N.loop("i", E.u32(0), E.u32(4), [N.let("j", E.var("i"))]),
        ],
    )
    ops = list(program.kernel.walk())
    var_types = {op.var_name.data: op.res.type for op in ops if isinstance(op, d.VarOp)}
    assert var_types == {"w": DataType.U64.attr, "i": DataType.U32.attr}


def test_builders_accept_what_validation_reports() -> None:
    # unknown buffer, undeclared variable, axis 7, zero workgroup size: all buildable
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read("a", 0, DataType.U32)],
        workgroup_size=(0, 1, 1),
        entry=[N.store("nowhere", E.var("ghost"), E.invocation_id(7))],
    )
    assert program.workgroup_size == (0, 1, 1)


@pytest.mark.parametrize(
    ("build", "error", "words"),
    [
        (lambda: E.u32(-1), ValueError, "u32 literal"),
        (lambda: E.u32(2**32), ValueError, "u32 literal"),
        (lambda: E.i32(2**31), ValueError, "i32 literal"),
        (lambda: E.u32(True), TypeError, "u32 literal"),
        (lambda: E.bool_(1), TypeError, "bool literal"),
        (lambda: E.var(3), TypeError, "variable name"),
        (lambda: E.add(E.u32(1), 2), TypeError, "Expr"),
        (lambda: E.binop("add", E.u32(1), E.u32(2)), TypeError, "BinOp"),
        (lambda: E.atomic(AtomicOp.ADD, "b", E.u32(0), E.u32(1), E.u32(2)), ValueError, "expected"),
        (lambda: E.atomic(AtomicOp.COMPARE_EXCHANGE, "b", E.u32(0), E.u32(1)), ValueError, "expected"),
        (lambda: N.if_(E.u32(1), N.return_()), TypeError, "single Node"),
        (lambda: BufferDecl.read("a", -1, DataType.U32), ValueError, "binding of buffer `a`"),
        (lambda: BufferDecl("a", 0, "read_only", DataType.U32), TypeError, "access of buffer `a`"),
        (lambda: Program([], (1, 1), []), ValueError, "3 components"),
        (lambda: Program([], (1, 1, -1), []), ValueError, "workgroup_size[2]"),
        (lambda: Program(["a"], (1, 1, 1), []), TypeError, "BufferDecl"),
    ],
)
def test_builders_reject_values_no_program_can_hold(build, error, words: str) -> None:
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        build()


def test_program_equality_is_structural() -> None:
    assert _xor_program() == _xor_program()
    assert _xor_program() != Program([], (1, 1, 1), [])
    assert _xor_program().clone() == _xor_program()


def test_a_shared_dag_stops_the_builder_at_its_node_limit() -> None:
    """`e = E.add(e, e)` 40 times is a DAG of 41 nodes whose program expands to
    2^40 ops (every use is its own copy): the builder ran out of memory. It stops
    with a V019-style ValueError once it passes MAX_BUILD_NODES, for shared
    expressions and for shared statements alike; V019 itself stays validation's."""
    import time

    from vyre.context import MAX_BUILD_NODES
    from vyre.validation.messages import MAX_NODE_COUNT

    assert MAX_BUILD_NODES == 2 * MAX_NODE_COUNT
    e = E.u32(1)
    for _ in range(40):
        e = E.add(e, e)
    body: list[N] = [N.store("out", E.u32(0), E.u32(1))]
    for _ in range(40):
        body = [N.block(body + body)]
    out = [BufferDecl.read_write("out", 0, DataType.U32)]
    for entry in ([N.store("out", E.u32(0), e)], body):
        began = time.process_time()  # CPU time: the bound holds on a loaded machine too
        with pytest.raises(ValueError, match=r"^V019: program has more than 200,000 nodes once built.*Fix: "):
            Program(out, (1, 1, 1), entry)
        assert time.process_time() - began < 30
    chain = E.u32(1)
    for _ in range(16):  # 2^17 - 1 expression ops: built, and validation says V019
        chain = E.add(chain, chain)
    import vyre

    assert [d.rule for d in vyre.validate(Program(out, (1, 1, 1), [N.store("out", E.u32(0), chain)]))] == ["V019"]


def test_buffers_follow_the_kernels_declarations() -> None:
    """`Program.buffers` is made once per declaration attribute; a kernel given
    other declarations gives the new ones."""
    from xdsl.dialects.builtin import ArrayAttr

    program = Program([BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
                      (1, 1, 1), [])  # fmt: skip
    first = program.buffers
    assert program.buffers is first and [b.name for b in first] == ["a", "out"]
    kernel = program.kernel
    kernel.buffers = ArrayAttr([BufferDecl.read_write("z", 0, DataType.I32).to_attr()])
    assert [(b.name, b.dtype) for b in program.buffers] == [("z", DataType.I32)]
    assert isinstance(kernel, d.KernelOp)
