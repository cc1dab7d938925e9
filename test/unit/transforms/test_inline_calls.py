"""The inline-calls pass: expansion, evaluation order, errors (V016/V017/V020)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import DiagnosticException

import vyre
from vyre import ops
from vyre.dialects import vyre as d
from vyre.ir import AtomicOp, BufferDecl, DataType, Node, Program
from vyre.ir import Expr as E
from vyre.ops import OpSignature, OpSpec
from vyre.transforms.inline_calls import InlineCallsError, InlineCallsPass, inline_calls
from vyre.validate import ValidationError

U32 = DataType.U32


def _program(value: E, *extra: BufferDecl) -> Program:
    return Program(
        buffers=[
            BufferDecl.read("a", 0, U32),
            BufferDecl.read("b", 1, U32),
            BufferDecl.read_write("out", 2, U32),
            *extra,
        ],
        workgroup_size=(64, 1, 1),
        entry=[Node.store("out", E.gid_x(), value)],
    )


A = E.load("a", E.gid_x())
B = E.load("b", E.gid_x())


def _names(program: Program) -> list[str]:
    return [op.name for op in program.kernel.body.walk()]


def _calls(program: Program) -> list[str]:
    return [op.op_id.data for op in program.kernel.body.walk() if isinstance(op, d.CallOp)]


def test_pass_is_a_named_module_pass_in_the_registry() -> None:
    from vyre.transforms import get_all_passes

    assert InlineCallsPass.name == "inline-calls"
    assert get_all_passes()["inline-calls"]() is InlineCallsPass


def test_inline_calls_returns_a_new_program() -> None:
    program = _program(E.call("primitive.math.max", [A, B]))
    before = vyre.print_ir(program)
    inlined = inline_calls(program)
    assert inlined is not program and vyre.print_ir(program) == before
    assert _calls(inlined) == []
    assert "vyre.select" in _names(inlined)


def test_nested_calls_expand_until_no_category_a_call_remains() -> None:
    value = E.call(
        "primitive.math.clamp",
        [E.call("primitive.math.lcm", [A, B]), E.call("primitive.bitwise.popcount", [A]), B],
    )
    inlined = inline_calls(_program(value))
    assert _calls(inlined) == []
    names = _names(inlined)
    assert names.count("vyre.unop") >= 65  # popcount + gcd's ctz steps
    assert "vyre.loop" not in names and "vyre.let" not in names
    assert vyre.validate(inlined) == []


def test_unop_intrinsics_become_unops_and_others_stay_calls() -> None:
    for name, kind in (("popcount", "popcount"), ("clz", "clz"), ("ctz", "ctz"),
                       ("reverse_bits", "reverse_bits")):
        inlined = inline_calls(_program(E.call(f"primitive.bitwise.{name}", [A])))
        unops = [op for op in inlined.kernel.body.walk() if isinstance(op, d.UnOp)]
        assert [op.kind.data for op in unops] == [kind]
        assert _calls(inlined) == []
    extract = E.call("primitive.bitwise.extract_bits", [A, E.u32(4), B])
    inlined = inline_calls(_program(E.call("primitive.math.max", [extract, A])))
    assert _calls(inlined) == ["primitive.bitwise.extract_bits"]


def test_arguments_are_evaluated_once() -> None:
    """max uses each argument twice: the atomic in its argument stays one op, runs
    once per invocation, and both uses see the same value."""
    counter = BufferDecl.read_write("counter", 3, U32)
    old = E.atomic(AtomicOp.ADD, "counter", E.u32(0), E.u32(1))
    program = _program(E.call("primitive.math.max", [old, E.u32(0)]), counter)
    inlined = inline_calls(program)
    atomics = [op for op in inlined.kernel.body.walk() if isinstance(op, d.AtomicOp)]
    assert len(atomics) == 1
    assert len(list(atomics[0].res.uses)) == 2  # the comparison and the selected arm
    n = 128
    result = vyre.run(
        program, {"a": np.zeros(n, np.uint32), "b": np.zeros(n, np.uint32)},
        dispatch=(2, 1, 1), outputs={"out": n, "counter": 1}, backend="interp",
    )
    assert result["counter"].tolist() == [n]
    assert sorted(result["out"].tolist()) == list(range(n))


def test_calls_inside_regions_are_inlined_in_place() -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, U32), BufferDecl.read_write("out", 1, U32)],
        workgroup_size=(64, 1, 1),
        entry=[
            Node.let("x", A),
            Node.if_(
                E.call("primitive.compare.gt", [E.var("x"), E.u32(5)]),
                [Node.loop("k", E.u32(0), E.u32(2), [
                    Node.store("out", E.add(E.mul(E.gid_x(), E.u32(2)), E.var("k")),
                               E.call("primitive.math.sub_sat", [E.var("x"), E.var("k")])),
                ])],
            ),
        ],
    )
    inlined = inline_calls(program)
    assert _calls(inlined) == []
    loop = next(op for op in inlined.kernel.body.walk() if isinstance(op, d.LoopOp))
    assert any(isinstance(op, d.SelectOp) for op in loop.body_block.ops)
    a = np.array([3, 9, 0xFFFFFFFF], dtype=np.uint32)
    out = vyre.run(program, {"a": a}, dispatch=(1, 1, 1), outputs={"out": 6}, backend="interp")
    assert out["out"].tolist() == [0, 0, 9, 8, 0xFFFFFFFF, 0xFFFFFFFE]


def _errors(program: Program, specs: dict[str, OpSpec] | None = None) -> list[Any]:
    with pytest.raises(ValidationError) as caught:
        inline_calls(program, specs=specs)
    assert isinstance(caught.value, InlineCallsError)
    assert isinstance(caught.value, DiagnosticException)
    return caught.value.diagnostics


def test_unknown_op_is_v016() -> None:
    (diagnostic,) = _errors(_program(E.call("primitive.math.addd", [A, B])))
    assert diagnostic.rule == "V016"
    assert diagnostic.message == (
        "vyre IR validation: V016: unknown op `primitive.math.addd`. Fix: use a registered op"
        " id or add the op to core::ops::*."
    )
    assert isinstance(diagnostic.op, d.CallOp)


def _user(op_id: str, composition: Any, **fields: Any) -> OpSpec:
    return OpSpec(
        id=op_id, version=1, signature=OpSignature(inputs=[U32], output=U32), category="A",
        reference=lambda a: a, composition=composition, boundaries=[0], **fields,
    )


V017 = (
    "vyre IR validation: V017: call depth exceeds maximum of 32. Fix: reduce call nesting or"
    " mutually recursive operations."
)


def test_deep_call_chains_are_v017() -> None:
    def chain(depth: int) -> dict[str, OpSpec]:
        specs = {f"user.chain.op{k}": _user(
            f"user.chain.op{k}", lambda a, k=k: E.call(f"user.chain.op{k + 1}", [a]))
            for k in range(depth - 1)}
        last = f"user.chain.op{depth - 1}"
        specs[last] = _user(last, lambda a: E.add(a, E.u32(1)))
        return specs

    ok = inline_calls(_program(E.call("user.chain.op0", [A])), specs=chain(32))
    assert _calls(ok) == []
    (diagnostic,) = _errors(_program(E.call("user.chain.op0", [A])), chain(33))
    assert (diagnostic.rule, diagnostic.message) == ("V017", V017)


def test_recursive_compositions_are_v017() -> None:
    specs = {
        "user.cycle.ping": _user("user.cycle.ping", lambda a: E.call("user.cycle.pong", [a])),
        "user.cycle.pong": _user("user.cycle.pong", lambda a: E.call("user.cycle.ping", [a])),
    }
    diagnostics = _errors(_program(E.call("user.cycle.ping", [A])), specs)
    assert [(x.rule, x.message) for x in diagnostics] == [("V017", V017)]


def test_non_inlinable_ops_are_v020() -> None:
    specs = {"user.buffer.opaque": _user("user.buffer.opaque", lambda a: a, inlinable=False)}
    (diagnostic,) = _errors(_program(E.call("user.buffer.opaque", [A])), specs)
    assert diagnostic.rule == "V020"
    assert diagnostic.message == (
        "vyre IR validation: V020: call to non-inlinable op `user.buffer.opaque` is rejected by"
        " validation. Fix: lower this operation through its dedicated backend path or rewrite"
        " the caller with explicit IR."
    )


def test_independent_errors_are_all_reported() -> None:
    value = E.add(E.call("user.nope", [A]), E.call("primitive.math.clamp", [A, B]))
    diagnostics = _errors(_program(value))
    assert [x.rule for x in diagnostics] == ["V016", "V131"]
    assert diagnostics[1].message == (
        "vyre IR validation: call to `primitive.math.clamp` passes 2 argument(s) but the op"
        " takes 3. Fix: call it as primitive.math.clamp(u32, u32, u32) -> u32."
    )


def test_argument_and_result_types_must_match_the_signature() -> None:
    value = E.call("primitive.math.add", [E.cast(DataType.I32, A), B])
    (diagnostic,) = _errors(_program(E.cast(U32, value)))
    assert diagnostic.message == (
        "vyre IR validation: argument 0 of the call to `primitive.math.add` must be `u32`, got"
        " `i32`. Fix: cast the argument to u32."
    )
    text = """
    vyre.kernel @k workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
      %zero = vyre.lit_u32 0
      %r = vyre.call "primitive.math.add"(%zero, %zero) : i32
    }"""
    (diagnostic,) = _errors(vyre.parse_ir(text))
    assert diagnostic.rule == "V130"
    assert "yields `i32` but the op returns `u32`" in diagnostic.message


def test_module_pass_rewrites_in_place_and_raises_diagnostics() -> None:
    program = _program(E.call("primitive.math.min", [A, B]))
    module = program.module.clone()
    PassPipeline((InlineCallsPass(),)).apply(Context(), module)
    assert _calls(Program.from_module(module)) == []
    assert Program.from_module(module) == inline_calls(program)
    bad = _program(E.call("primitive.math.clamp", [A, B])).module.clone()
    with pytest.raises(DiagnosticException, match="passes 2 argument"):
        InlineCallsPass().apply(Context(), bad)


def test_registered_user_op_is_inlined() -> None:
    spec = OpSpec(
        id="user.math.twice", version=1, signature=OpSignature(inputs=[U32], output=U32),
        category="A",
        reference=lambda a: (np.asarray(a, dtype=np.uint64) * 2 % 2**32).astype(np.uint32),
        composition=lambda a: E.add(a, a), boundaries=[0],
    )
    ops.register(spec)
    try:
        inlined = inline_calls(_program(E.call("user.math.twice", [A])))
        adds = [op for op in inlined.kernel.body.walk() if isinstance(op, d.BinOp)]
        assert len(adds) == 1 and adds[0].lhs is adds[0].rhs
    finally:
        ops.unregister("user.math.twice")
