"""Admission gates 0-6 and the characterization-collision check."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import vyre
from vyre import ops
from vyre.ir import DataType
from vyre.ir import Expr as E
from vyre.ops import EquivalenceClass, Intrinsic, OpSignature, OpSpec, laws
from vyre.conform.zero_overhead import problems, witness_program
from vyre.ops.admission import AdmissionError, admit, characterization_collisions

U32 = DataType.U32
BINARY = OpSignature(inputs=[U32, U32], output=U32)


def _spec(**overrides: Any) -> OpSpec:
    """An example user op, with fields replaced."""
    fields: dict[str, Any] = {
        "id": "user.math.avg_floor",
        "version": 1,
        "signature": BINARY,
        "category": "A",
        "reference": lambda a, b: (a & b) + ((a ^ b) >> 1),
        "composition": lambda a, b: E.add(E.bitand(a, b), E.shr(E.bitxor(a, b), E.u32(1))),
        "laws": [laws.Commutative(), laws.Idempotent()],
        "boundaries": [0, 1, 0xFFFFFFFF],
    }
    fields.update(overrides)
    return OpSpec(**fields)


@pytest.fixture
def registry_guard() -> Any:
    """Unregister every user op a test registered."""
    before = set(ops.known_op_ids())
    yield
    for op_id in set(ops.known_op_ids()) - before:
        ops.unregister(op_id)


def test_admission_error_is_exported() -> None:
    assert ops.AdmissionError is AdmissionError
    assert issubclass(AdmissionError, ValueError)


def test_every_builtin_op_is_admitted() -> None:
    ids = ops.known_op_ids()
    for op_id in ids:
        spec = ops.get(op_id)
        if isinstance(spec, ops.KernelSpec):
            assert ops.admit_kernel(spec, registered=set(ids) - {op_id}) is spec
        else:
            assert admit(spec, registered=set(ids) - {op_id}) is spec


def test_gate11_validates_the_step_programs_of_every_size(registry_guard: None) -> None:
    """A plan whose last step is invalid only for inputs of 257 elements (the
    other sizes reuse the builtin's valid programs, which are validated once)."""
    from vyre.ir import BufferDecl
    from vyre.ir import Node as N
    from vyre.kernels.spec import KernelPlan

    base = ops.get("reductions.reduce_sum_u32")
    assert isinstance(base, ops.KernelSpec)
    bad = vyre.Program([BufferDecl.read_write("out", 0, U32)], (64, 1, 1), [N.store("out", E.u32(0), E.i32(1))])

    def plan(sizes: dict[str, int], scalars: dict[str, int]) -> KernelPlan:
        built = base.plan(sizes, scalars)
        if sizes["x"] != 257:
            return built
        last = dataclasses.replace(built.steps[-1], program=bad)
        return dataclasses.replace(built, steps=(*built.steps[:-1], last))

    spec = dataclasses.replace(base, id="user.test.bad_plan", plan=plan)
    with pytest.raises(AdmissionError) as caught:
        ops.register(spec)
    assert caught.value.gate == 11
    assert "the step program `main` is invalid: vyre IR validation: store value type `i32`" in str(caught.value)
    assert "user.test.bad_plan" not in ops.known_op_ids()


def test_python_api_example_registers_and_runs(registry_guard: None) -> None:
    spec = _spec()
    ops.register(spec)
    assert ops.get("user.math.avg_floor") is spec
    assert "user.math.avg_floor" in ops.known_op_ids()
    a = np.array([0, 1, 7, 0xFFFFFFFF], dtype=np.uint32)
    b = np.array([0, 2, 8, 0xFFFFFFFF], dtype=np.uint32)
    expected = [(x + y) // 2 for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert ops.evaluate("user.math.avg_floor", [a, b], backend="interp").tolist() == expected
    ops.unregister("user.math.avg_floor")
    assert "user.math.avg_floor" not in ops.known_op_ids()


def _rejected(spec: OpSpec, gate: int, *fragments: str) -> AdmissionError:
    with pytest.raises(AdmissionError) as caught:
        ops.register(spec)
    error = caught.value
    assert error.gate == gate, str(error)
    text = str(error)
    assert f"op `{spec.id}` rejected by admission gate {gate} ({error.gate_name}):" in text
    assert " Fix: " in text and text.endswith(".")
    for fragment in fragments:
        assert fragment in text, text
    assert spec.id not in ops.known_op_ids() or spec.id.startswith("primitive.")
    return error


# -- gate 0: id ------------------------------------------------------------------


def test_gate0_rejects_malformed_and_duplicate_ids() -> None:
    _rejected(_spec(id="Not An Id"), 0, "is not a dotted lower-case name")
    _rejected(_spec(id="single"), 0)
    _rejected(_spec(id="primitive.math.add"), 0, "already registered")
    _rejected(_spec(version=0), 0, "version 0")


# -- gate 1: category ---------------------------------------------------------------


def test_gate1_rejects_category_b_and_mismatched_compositions() -> None:
    _rejected(_spec(category="B"), 1, "Category B (runtime abstraction overhead) is forbidden")
    intrinsic = Intrinsic(hardware="popcnt", wgsl="countOneBits")
    _rejected(_spec(composition=intrinsic), 1, "needs a composition")
    _rejected(_spec(category="C"), 1, "there is no fallback")
    _rejected(_spec(inlinable="yes"), 1, "inlinable must be a bool")


# -- gate 2: signature -----------------------------------------------------------------


def test_gate2_rejects_bad_signatures_and_arity() -> None:
    _rejected(_spec(signature=(U32, U32)), 2, "not an OpSignature")
    _rejected(_spec(signature=OpSignature(inputs=["u32", U32], output=U32)), 2, "not DataTypes")
    _rejected(_spec(composition=lambda a: a), 2, "does not take 2 argument(s)")
    _rejected(_spec(reference=lambda a, b, c: a), 2, "reference does not take 2")
    _rejected(_spec(composition=lambda a, b: 3), 2, "returned int, not a vyre Expr")
    _rejected(
        _spec(composition=lambda a, b: E.add(a, E.load("buf", b))),
        2,
        "found Load",
    )
    _rejected(_spec(composition=lambda a, b: E.cast(DataType.I32, a)), 2, "yields `i32`")
    _rejected(_spec(composition=lambda a, b: 1 // 0), 2, "raised ZeroDivisionError")


# -- gate 3: zero overhead -----------------------------------------------------------------


def test_gate3_rejects_compositions_that_do_not_inline(registry_guard: None) -> None:
    _rejected(
        _spec(composition=lambda a, b: E.call("user.math.avg_floor", [a, b])),
        3,
        "V017: call depth exceeds maximum of 32",
    )
    _rejected(
        _spec(composition=lambda a, b: E.add(E.cast(DataType.I32, a), b)),
        3,
        "the composition is not valid vyre IR where its call stands: vyre IR validation:"
        " binary operation left operand must be `u32`, got `i32`. Fix: cast or rewrite the"
        " operand to produce U32. Fix: call only",
    )
    _rejected(
        _spec(composition=lambda a, b: E.call("primitive.math.addd", [a, b])),
        3,
        "V016: unknown op `primitive.math.addd`",
    )
    ops.register(_spec(id="user.math.opaque", inlinable=False))
    _rejected(
        _spec(composition=lambda a, b: E.call("user.math.opaque", [a, b])),
        3,
        "V020: call to non-inlinable op `user.math.opaque`",
    )


def test_gate3_accepts_calls_of_library_ops_and_intrinsics(registry_guard: None) -> None:
    spec = _spec(
        id="user.bits.low_field_max",
        composition=lambda a, b: E.call(
            "primitive.math.max",
            [E.call("primitive.bitwise.extract_bits", [a, E.u32(0), E.u32(8)]), b],
        ),
        reference=lambda a, b: np.maximum(np.asarray(a) & 0xFF, b).astype(np.uint32),
        laws=[],
    )
    ops.register(spec)
    assert spec.callees == ("primitive.bitwise.extract_bits", "primitive.math.max")


def test_gate3_checks_the_lowered_wgsl() -> None:
    """The WGSL of an admitted composition holds no loop, no op id and no helper
    beyond those hand-written code over the same buffers needs."""
    wgsl = vyre.lower_to_wgsl(witness_program(ops.get("primitive.math.lcm")))
    assert "primitive." not in wgsl
    assert " loop" not in wgsl and "for (" not in wgsl and "while" not in wgsl
    assert "countTrailingZeros" in wgsl  # gcd's ctz steps, unrolled


# -- gates 4 and 5: the reference ---------------------------------------------------------


def test_gate4_rejects_a_nondeterministic_reference() -> None:
    counter = itertools.count()
    _rejected(
        _spec(reference=lambda a, b: a + np.uint32(next(counter))),
        4,
        "different bytes for the same witness input",
    )


def test_gate4_rejects_a_raising_reference() -> None:
    def broken(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise RuntimeError("no")

    _rejected(_spec(reference=broken), 4, "raised RuntimeError")


def test_gate5_rejects_an_empty_reference() -> None:
    _rejected(_spec(reference=lambda a, b: np.zeros(0, dtype=np.uint32)), 5, "no output byte")


# -- gate 6: rule material -------------------------------------------------------------


def test_gate6_rejects_specs_without_rule_material() -> None:
    _rejected(_spec(laws=[], boundaries=[]), 6, "no law, equivalence class, boundary value")


def test_gate6_rejects_malformed_rule_material() -> None:
    _rejected(_spec(laws=[laws.Involution()]), 6, "a law of 1-ary ops but the op takes 2")
    _rejected(_spec(laws=[laws.DistributiveOver("user.nope")]), 6, "`user.nope`")
    _rejected(_spec(laws=["Commutative"]), 6, "is not a law")
    _rejected(_spec(boundaries=[2**32]), 6, "is not a u32")
    _rejected(_spec(boundaries=[(1, 2, 3)]), 6, "has 3 values for 2 input(s)")
    bad_class = EquivalenceClass("pairs", [(1,)])
    _rejected(_spec(equivalence_classes=[bad_class]), 6, "is not 2 u32 value(s)")


def test_alternates_count_as_rule_material(registry_guard: None) -> None:
    _rejected(_spec(id="user.math.alt", laws=[], boundaries=[]), 6, "no law")
    spec = _spec(id="user.math.alt", laws=[], boundaries=[], alternates=["a + b"])
    assert ops.register(spec) is spec  # the alternate alone passes gate 6
    assert ops.get("user.math.alt") is spec


# -- registry behaviour ------------------------------------------------------------------


def test_register_rejects_non_specs() -> None:
    with pytest.raises(TypeError, match="expects an OpSpec"):
        ops.register({"id": "user.x"})  # type: ignore[arg-type]


def test_builtins_cannot_be_unregistered() -> None:
    with pytest.raises(ValueError, match="built-in op and cannot be unregistered"):
        ops.unregister("primitive.math.add")
    assert "primitive.math.add" in ops.known_op_ids()
    with pytest.raises(KeyError, match="unknown op `user.never`"):
        ops.unregister("user.never")


def test_non_inlinable_ops_register_and_are_reported_by_inline_calls(
    registry_guard: None,
) -> None:
    ops.register(_spec(id="user.buffer.opaque", inlinable=False))
    assert ops.get("user.buffer.opaque").inlinable is False


# -- characterization collisions ------------------------------------------------------


def test_builtin_collisions_are_exactly_the_negation_aliases() -> None:
    warnings = characterization_collisions()
    assert warnings == [
        "characterization collision: `primitive.math.negate` declares the same law set as"
        " `primitive.math.wrapping_neg` and no other rule material distinguishes it. Fix:"
        " declare a law, equivalence class or boundary that separates"
        " `primitive.math.negate` from `primitive.math.wrapping_neg`."
    ]


@pytest.mark.parametrize(
    ("op_id", "peer_id"),
    [
        ("primitive.math.avg_ceil", "primitive.math.avg_floor"),
        ("primitive.math.div_ceil", "primitive.math.div"),
        ("primitive.bitwise.byte_swap", "primitive.bitwise.reverse_bits"),
    ],
)
def test_builtins_with_equal_law_sets_are_separated_by_their_classes(
    op_id: str, peer_id: str
) -> None:
    """An equal law set is no characterization collision when equivalence classes or
    boundaries distinguish the op; without them the pair is reported."""
    op, peer = ops.get(op_id), ops.get(peer_id)
    assert set(op.laws) == set(peer.laws)
    assert not any(f"`{op_id}`" in w for w in characterization_collisions())
    undistinguished = dataclasses.replace(
        op, equivalence_classes=peer.equivalence_classes, boundaries=peer.boundaries
    )
    found = characterization_collisions([undistinguished, peer])
    assert len(found) == 1 and "the same law set" in found[0]
    assert f"`{op_id}`" in found[0] and f"`{peer_id}`" in found[0]


def _peer(op_id: str, law_set: list[laws.Law], **extra: Any) -> OpSpec:
    return _spec(id=op_id, laws=law_set, boundaries=extra.pop("boundaries", [0]), **extra)


def test_collision_check_finds_identical_and_subset_law_sets() -> None:
    a = _peer("user.c.a", [laws.Commutative()])
    b = _peer("user.c.b", [laws.Commutative()])
    c = _peer("user.c.c", [laws.Commutative(), laws.Associative()])
    found = characterization_collisions([a, b, c])
    assert len(found) == 3
    assert any("`user.c.a` declares the same law set as `user.c.b`" in w for w in found)
    assert any("`user.c.a` declares a law subset of `user.c.c`" in w for w in found)
    assert any("`user.c.b` declares a law subset of `user.c.c`" in w for w in found)


def test_other_rule_material_or_arity_separates_ops() -> None:
    a = _peer("user.c.a", [laws.Commutative()])
    b = _peer(
        "user.c.b",
        [laws.Commutative()],
        equivalence_classes=[EquivalenceClass("both odd", [(1, 3)])],
    )
    c = _peer("user.c.c", [laws.Commutative(), laws.Associative()], boundaries=[7])
    unary = _spec(
        id="user.c.u", signature=OpSignature(inputs=[U32], output=U32), laws=[],
        composition=lambda a: a, reference=lambda a: a, boundaries=[0],
    )
    # b and c carry material a lacks; a's material ([0]) is in b, so a still collides with b.
    found = characterization_collisions([a, b, c, unary])
    assert found == [
        "characterization collision: `user.c.a` declares the same law set as `user.c.b` and no"
        " other rule material distinguishes it. Fix: declare a law, equivalence class or"
        " boundary that separates `user.c.a` from `user.c.b`."
    ]


# -- specs are values ------------------------------------------------------------------


def test_specs_are_frozen_and_normalise_lists() -> None:
    spec = _spec()
    assert spec.laws == (laws.Commutative(), laws.Idempotent())
    assert spec.boundaries == (0, 1, 0xFFFFFFFF)
    with pytest.raises(AttributeError):
        spec.id = "other"  # type: ignore[misc]


def test_reference_is_vectorised(oracles: dict[str, Callable[..., int]]) -> None:
    a = np.array([5, 0xFFFFFFFF], dtype=np.uint32)
    b = np.array([7, 1], dtype=np.uint32)
    got = ops.get("primitive.math.add").reference(a, b)
    assert got.tolist() == [oracles["primitive.math.add"](5, 7), 0]
