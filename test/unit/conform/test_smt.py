"""SMT proofs (vyre.conform.smt): models, translation, solver portfolio, obligations.

Oracles: each op's numpy reference (for the formal models), the reference
interpreter (for the translation of prepared IR), and hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
import z3

from vyre import conform, ops
from vyre.conform.plan import in_track
from vyre.conform.smt import (
    MODELS,
    ModelMismatch,
    NumpyBits,
    Z3Bits,
    check_model,
    decide,
    model_for,
    prove_obligation,
    register_model,
    translate_op,
    unregister_model,
)
from vyre.conform.smt.lift import IntBits
from vyre.conform.smt.terms import NV
from vyre.ir import Expr as E
from vyre.ops import laws as L
from vyre.ops import registry

MAX = 0xFFFF_FFFF
INTEGER_PRIMITIVES = [
    op for op in ops.known_op_ids()
    if op.startswith("primitive.") and in_track(registry.get(op), "integer")
]


def test_every_integer_primitive_has_a_model() -> None:
    assert len(INTEGER_PRIMITIVES) >= 53
    assert sorted(MODELS) == sorted(INTEGER_PRIMITIVES)


@pytest.mark.parametrize("op_id", INTEGER_PRIMITIVES)
def test_model_equals_numpy_reference_exhaustively_at_u8(op_id: str) -> None:
    """Every u8 input (u16 for unary ops; u6 per input for ternary, u5 for
    insert_bits: 2**18 and 2**20 inputs) and the op's boundary, class and
    special inputs."""
    spec = registry.get_scalar(op_id)
    bits = {1: 16, 2: 8, 3: 6, 4: 5}[spec.signature.arity]
    model = model_for(op_id)
    assert model is not None
    assert check_model(spec, model, bits) >= 1 << (bits * spec.signature.arity)


def test_a_wrong_model_is_caught_by_the_cross_check() -> None:
    spec = registry.get_scalar("primitive.math.add_sat")
    with pytest.raises(ModelMismatch, match="add_sat"):
        check_model(spec, lambda B, a, b: B.add(a, b), 8)


@pytest.mark.parametrize("op_id", ["primitive.math.gcd", "primitive.bitwise.extract_bits",
                                   "primitive.math.div_ceil", "primitive.bitwise.clz",
                                   "primitive.math.sign", "primitive.bitwise.insert_bits"])
def test_z3_and_numpy_interpretations_of_a_model_agree(op_id: str) -> None:
    spec = registry.get_scalar(op_id)
    arity = spec.signature.arity
    rng = np.random.default_rng(5)
    rows = [tuple(int(v) for v in rng.integers(0, 1 << 32, arity)) for _ in range(12)]
    rows += [(0,) * arity, (MAX,) * arity, tuple([1, 32, 31, 33][:arity])]
    model = MODELS[op_id]
    xs = [z3.BitVec(f"v{j}", 32) for j in range(arity)]
    term = model(Z3Bits(), *xs)
    for row in rows:
        concrete = z3.simplify(z3.substitute(term, *[(x, z3.BitVecVal(v, 32)) for x, v in zip(xs, row)]))
        numeric = model(NumpyBits(), *[NV(v, 32) for v in row])
        assert concrete.as_long() == int(numeric.value), (op_id, row)


@pytest.mark.parametrize("op_id", INTEGER_PRIMITIVES)
def test_translation_of_the_prepared_ir_matches_the_interpreter(op_id: str) -> None:
    """The translation, evaluated concretely, against the reference interpreter
    running the same prepared program (structured inputs of the op)."""
    from vyre.conform import generate as gen

    spec = registry.get_scalar(op_id)
    rows = gen.structured_op_rows(spec)[:4096]
    columns = [np.ascontiguousarray(rows[:, j]) for j in range(rows.shape[1])]
    got = translate_op(spec, NumpyBits(), [NV(c, 32) for c in columns])
    want = ops.evaluate(op_id, columns, backend="interp")
    assert np.array_equal(np.broadcast_to(got.value, (len(rows),)).astype(np.uint32), want)


def test_integer_lifting_proves_what_bit_blasting_cannot() -> None:
    """mul_high Distrib(min) (z3 on bit-vectors times out even at width 8) over the integers."""
    from vyre.conform.smt.prove import law_goal

    goal = law_goal("primitive.math.mul_high", L.DistributiveOver("primitive.math.min"))
    outcome = decide(goal, 3, 20.0, solvers=("z3-int",))
    assert outcome.status == "proved", outcome.detail


def test_lifted_terms_agree_with_bit_vectors_at_points() -> None:
    B = IntBits()
    a, b = B.variable("a"), B.variable("b")
    term = MODELS["primitive.math.mul_sat"](B, a, b)
    for x, y in [(3, 7), (0x10000, 0x10000), (MAX, 2), (0xFFFF, 0x10001)]:
        s = z3.Solver()
        s.add(*B.constraints, a.term == x, b.term == y)
        assert s.check() == z3.sat
        assert s.model().eval(term.term).as_long() == min(x * y, MAX)


def test_lifted_translation_agrees_with_the_interpreter_at_points() -> None:
    """The integer lifting of mul_high's 16-bit-limb composition (which proves
    it for all inputs) evaluates to the interpreter's values."""
    spec = registry.get_scalar("primitive.math.mul_high")
    B = IntBits()
    a, b = B.variable("a"), B.variable("b")
    term = translate_op(spec, B, [a, b])
    for x, y in [(0xFFFEFFFF, 0xFFFF), (MAX, MAX), (0x12345678, 0x9ABCDEF0), (0x10000, 0xFFFF)]:
        s = z3.Solver()
        s.add(*B.constraints, a.term == x, b.term == y)
        assert s.check() == z3.sat
        assert s.model().eval(term.term).as_long() == (x * y) >> 32


# -- obligations and planted bugs ------------------------------------------------------


def _user(register, name, arity, reference, composition, model=None, **fields) -> str:
    op_id = register(name, arity, reference, composition, **fields)
    if model is not None:
        register_model(op_id, model)
    return op_id


@pytest.fixture
def models():
    added: list[str] = []
    yield added
    for op_id in added:
        unregister_model(op_id)


def _add_sat_ref(a, b):
    return np.minimum(a.astype(np.uint64) + b.astype(np.uint64), MAX).astype(np.uint32)


def test_add_sat_planted_bug_only_at_b_zero_is_caught(register, models) -> None:
    """`s <= a` instead of `s < a`: saturates exactly when b = 0, a case uniform
    random witnesses hit with probability 2**-32 each."""
    op_id = register("add_sat_bug", 2, _add_sat_ref,
                     lambda a, b: (lambda s: E.select(E.le(s, a), E.u32(MAX), s))(E.add(a, b)))
    register_model(op_id, MODELS["primitive.math.add_sat"]); models.append(op_id)
    record = prove_obligation(registry.get_scalar(op_id), "composition", 10.0)
    assert record.status == "counterexample", record
    assert record.counterexample == (0, 0)   # shrunk: a = b = 0 saturates to 0xffffffff
    assert record.raw[1] == 0
    assert "0xffffffff" in record.description and "0x0" in record.description


def _mul_high_limbs(final_shift: int):
    def composition(a, b):
        low, sixteen = E.u32(0xFFFF), E.u32(16)
        a_lo, a_hi, b_lo, b_hi = E.bitand(a, low), E.shr(a, sixteen), E.bitand(b, low), E.shr(b, sixteen)
        lo_lo, lo_hi, hi_lo, hi_hi = E.mul(a_lo, b_lo), E.mul(a_lo, b_hi), E.mul(a_hi, b_lo), E.mul(a_hi, b_hi)
        middle = E.add(E.add(E.shr(lo_lo, sixteen), E.bitand(lo_hi, low)), E.bitand(hi_lo, low))
        return E.add(E.add(E.add(hi_hi, E.shr(lo_hi, sixteen)), E.shr(hi_lo, sixteen)),
                     E.shr(middle, E.u32(final_shift)))

    return composition


@pytest.mark.parametrize("name, base, composition", [
    ("rotl33", "primitive.bitwise.rotl", lambda a, b: E.bitor(E.shl(a, b), E.shr(a, E.sub(E.u32(33), b)))),
    ("byteswap16", "primitive.bitwise.byte_swap", lambda a: E.bitor(
        E.bitor(E.shl(a, E.u32(24)), E.shr(a, E.u32(24))),
        E.bitor(E.shl(E.bitand(a, E.u32(0xFF00)), E.u32(16)), E.bitand(E.shr(a, E.u32(8)), E.u32(0xFF00))))),
    ("sign30", "primitive.math.sign", lambda a: E.bitor(E.ne(a, E.u32(0)), E.negate(E.shr(a, E.u32(30))))),
    ("mul_high15", "primitive.math.mul_high", _mul_high_limbs(15)),
])
def test_planted_composition_bugs(register, models, name, base, composition) -> None:
    """Planted mutations of compositions: each is found, replayed through the
    interpreter and the reference, and shrunk."""
    spec = registry.get_scalar(base)
    arity = spec.signature.arity
    op_id = register(name, arity, spec.reference, composition)
    register_model(op_id, MODELS[base]); models.append(op_id)
    record = prove_obligation(registry.get_scalar(op_id), "composition", 30.0)
    assert record.status == "counterexample", record
    row = [np.array([v], np.uint32) for v in record.counterexample]
    got = ops.evaluate(op_id, row, backend="interp")
    assert int(got[0]) != int(spec.reference(*row)[0])


def test_equivalent_mutant_is_proved_not_flagged(register, models) -> None:
    """rotl with `32 - b` instead of `0 - b` is the same function (amounts are & 31)."""
    ref = registry.get_scalar("primitive.bitwise.rotl")
    op_id = register("rotl32", 2, ref.reference,
                     lambda a, b: E.bitor(E.shl(a, b), E.shr(a, E.sub(E.u32(32), b))))
    register_model(op_id, MODELS["primitive.bitwise.rotl"]); models.append(op_id)
    assert prove_obligation(registry.get_scalar(op_id), "composition", 10.0).status == "proved"


def test_false_law_gets_a_shrunk_counterexample(register) -> None:
    op_id = register("sub_comm", 2, lambda a, b: (a.astype(np.int64) - b).astype(np.uint32),
                     lambda a, b: E.sub(a, b), laws=[L.Commutative()])
    # no model: the law is proved (or refuted) on the composition
    record = prove_obligation(registry.get_scalar(op_id), "law:Commutative", 10.0)
    assert record.status == "counterexample"
    assert sorted(record.counterexample) == [0, 1]
    assert "compositions of" in record.detail


def test_user_op_without_model_has_an_unprovable_composition(register) -> None:
    op_id = register("avg", 2, lambda a, b: ((a.astype(np.uint64) + b) >> 1).astype(np.uint32),
                     lambda a, b: E.add(E.bitand(a, b), E.shr(E.bitxor(a, b), E.u32(1))),
                     laws=[L.Commutative(), L.Idempotent()])
    record = prove_obligation(registry.get_scalar(op_id), "composition")
    assert record.status == "error" and "no formal model" in record.detail
    assert prove_obligation(registry.get_scalar(op_id), "law:Idempotent").status == "proved"


def test_a_timeout_is_never_proved() -> None:
    spec = registry.get_scalar("primitive.math.gcd")
    record = prove_obligation(spec, "law:Associative", 0.05)
    assert record.status == "timeout"
    assert "no answer within" in record.detail


@pytest.mark.slow  # a certification campaign: make test-all
def test_certify_with_prove_records_obligation_strengths(register, models) -> None:
    op_id = register("avg_floor", 2, lambda a, b: ((a.astype(np.uint64) + b) >> 1).astype(np.uint32),
                     lambda a, b: E.add(E.bitand(a, b), E.shr(E.bitxor(a, b), E.u32(1))),
                     laws=[L.Commutative(), L.Idempotent()])
    register_model(op_id, MODELS["primitive.math.avg_floor"]); models.append(op_id)
    cert = conform.certify(backend="interp", ops=[op_id, "primitive.math.gcd"], strength="fast",
                           witnesses=500, corpus=None, prove=True, prove_timeout=0.2,
                           checks=["laws", "reference", "determinism"])
    by = {(o.op_id, o.check): o for o in cert.obligations}
    assert by[(op_id, "composition")].strength == "proved"
    assert by[(op_id, "law:Commutative")].strength == "proved"
    assert "z3" in by[(op_id, "law:Commutative")].detail
    gcd = by[("primitive.math.gcd", "law:Associative")]
    assert gcd.strength == "exhaustive-u8" and gcd.holds and "not proved (timeout" in gcd.detail
    assert by[("primitive.math.gcd", "composition")].strength in ("proved", "exhaustive-u8")
    assert cert.passed and cert.level == "L2"
    assert "obligations" in cert.to_human() and cert.data["prove"]["timeout_s"] == 0.2


def test_certify_with_prove_fails_on_a_planted_bug(register, models) -> None:
    op_id = register("add_sat_bug2", 2, _add_sat_ref,
                     lambda a, b: (lambda s: E.select(E.le(s, a), E.u32(MAX), s))(E.add(a, b)))
    register_model(op_id, MODELS["primitive.math.add_sat"]); models.append(op_id)
    cert = conform.certify(backend="interp", ops=[op_id], strength="fast", witnesses=200,
                           corpus=None, prove=True, checks=["determinism"])
    failure = [f for f in cert.failures if f.target == "proof"]
    assert len(failure) == 1 and failure[0].check == "composition"
    assert failure[0].counterexample == (0, 0) and failure[0].fix.startswith("Fix: ")
    assert not cert.passed


def test_prove_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="prove_timeout"):
        conform.certify(backend="interp", ops=["primitive.math.add"], prove=True, prove_timeout=-1)
    with pytest.raises(ValueError, match="integer"):
        conform.certify(backend="interp", ops=["primitive.float.add"], prove=True, track="float")
