"""The float laws (`vyre.ops.float_laws`): the values, their relations, each one
declared falsely on a planted F32 op and caught on the CPU reference and
through the backend with the same minimal counterexample, and the library's
correctly rounded functions certified at L2f."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from vyre import conform, ops
from vyre.conform.algebra import IRAlgebra, NumpyAlgebra, next_in_order, order_key_numpy, violations_numpy
from vyre.conform.float_relations import float_law_relations, float_law_variables, law_variables_of
from vyre.conform.kinds import ObligationStrength
from vyre.ir import BufferDecl, DataType, Node, Program
from vyre.ir import Expr as E
from vyre.ops import OpSignature, OpSpec
from vyre.ops import float_laws as FL
from vyre.ops import laws as L
from vyre.pipeline import prepare
from vyre.runtime.interp import execute

F32 = DataType.F32
SIGN = 0x8000_0000
FAST = {"strength": "fast", "witnesses": 1000, "corpus": None, "checks": ["laws"], "track": "float"}
_serial = itertools.count()


def _f32(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])


@pytest.fixture
def register_f32() -> Iterator[Callable[..., str]]:
    """`register_f32(name, arity, reference, composition, laws)` -> the id of an
    F32 op (numpy float32 reference), unregistered after the test."""
    added: list[str] = []

    def add(name: str, arity: int, reference, composition, laws) -> str:
        op_id = f"user.floattest{next(_serial)}.{name}"
        ops.register(OpSpec(
            id=op_id, version=1, signature=OpSignature([F32] * arity, F32), category="A",
            reference=reference, composition=composition, laws=laws, boundaries=[0, 0x3F80_0000],
        ))
        added.append(op_id)
        return op_id

    yield add
    for op_id in added:
        ops.unregister(op_id)


def _neg(a):  # noqa: ANN001, ANN202
    return (np.asarray(a, dtype=np.float32).view(np.uint32) ^ np.uint32(SIGN)).view(np.float32)


def _canonical(x: np.ndarray) -> np.ndarray:
    out = np.asarray(x, dtype=np.float32).copy()
    out[np.isnan(out)] = np.array([FL.CANONICAL_NAN], dtype=np.uint32).view(np.float32)[0]
    return out


def _quiet(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """`fn` on float32 arrays, without numpy's floating-point warnings, NaN canonical."""

    def reference(*xs: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return _canonical(fn(*(np.asarray(x, dtype=np.float32) for x in xs)))

    return reference


NEG = (1, _neg, lambda a: E.fneg(a))
ABS = (1, np.abs, lambda a: E.fabs(a))
SQUARE = (1, _quiet(lambda a: a * a), lambda a: E.fmul(a, a))
SQRT = (1, _quiet(np.sqrt), lambda a: E.fsqrt(a))
FLOOR = (1, _quiet(np.floor), lambda a: E.ffloor(a))
ADD = (2, _quiet(lambda a, b: a + b), lambda a, b: E.fadd(a, b))

CASES = [
    (SQRT, FL.FloatMonotone(), None),  # true: controls
    (FLOOR, FL.FloatMonotone(), None),
    (SQUARE, FL.FloatEven(), None),
    (ABS, FL.FloatRange(FL.F32_ZERO, FL.F32_INF), None),
    (NEG, FL.FloatMonotone(decreasing=True), None),
    (NEG, FL.FloatExactCases([((FL.F32_ONE,), FL.F32_NEG_ONE), ((FL.F32_NEG_ZERO,), FL.F32_ZERO)]), None),
    # false, with the minimal counterexample both targets must shrink to
    (ABS, FL.FloatOdd(), (0,)),  # |-0| = +0, but -|+0| = -0
    (NEG, FL.FloatEven(), (0,)),  # -(-0) = +0 but -(+0) = -0
    (NEG, FL.FloatMonotone(), (0,)),  # -(+0) = -0 > -(2**-149)
    (SQRT, FL.FloatMonotone(decreasing=True), (0,)),  # sqrt(+0) = +0 < sqrt(2**-149)
    (ABS, FL.FloatRange(FL.F32_NEG_ONE, FL.F32_ONE), (0x3F80_0001,)),  # the first pattern above 1
    (SQRT, FL.FloatRange(FL.F32_ZERO, FL.F32_INF), (SIGN,)),  # sqrt(-0) = -0 < +0 in totalOrder
    (NEG, FL.FloatExactCases([((FL.F32_ONE,), FL.F32_NEG_ONE), ((FL.F32_ZERO,), FL.F32_ZERO)]), (1,)),  # case 1
    (ADD, FL.FloatOdd(inputs=2), (0, 0)),  # (-0) + (+0) = +0, but -((+0) + (+0)) = -0
]


@pytest.mark.parametrize(("op", "law", "minimal"), CASES, ids=[f"{str(c[1])}-{i}" for i, c in enumerate(CASES)])
def test_float_law_caught_on_both_targets(register_f32, op, law, minimal) -> None:
    arity, reference, composition = op
    op_id = register_f32("op", arity, reference, composition, laws=[law])
    cert = conform.certify(backend="interp", ops=[op_id], **FAST)
    if minimal is None:
        assert cert.passed, [f.detail for f in cert.failures]
        return
    found = {f.target: f.counterexample for f in cert.failures}
    assert found == {"reference": minimal, "backend": minimal}
    assert all(f.check == f"law:{law.name}" and f.law == str(law) for f in cert.failures)


def test_a_false_float_law_is_caught_on_wgpu(gpu_adapter: object, register_f32) -> None:
    (arity, reference, composition), law, minimal = CASES[8]  # neg declared increasing
    op_id = register_f32("neg", arity, reference, composition, laws=[law])
    cert = conform.certify(backend="wgpu", ops=[op_id], **FAST)
    assert {f.target: f.counterexample for f in cert.failures} == {"reference": minimal, "backend": minimal}
    assert "f(a⁺)" in (cert.failures[0].detail or "")


def test_failures_name_the_relation_and_the_bits(register_f32) -> None:
    op_id = register_f32("abs", *ABS, laws=[FL.FloatOdd()])
    cert = conform.certify(backend="interp", ops=[op_id], **FAST)
    assert cert.failures[0].detail == "f(-a) = 0x0 ≠ -f(a) = 0x80000000"


# ---------------------------------------------------------------------------
# The library's correctly rounded functions
# ---------------------------------------------------------------------------

FUNCTIONS = ["exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
             "tanh", "erf", "pow"]


def test_every_function_declares_float_laws_and_exact_cases() -> None:
    for name in FUNCTIONS:
        spec = ops.get(f"primitive.float.{name}")
        kinds = {type(law) for law in spec.laws}
        assert FL.FloatExactCases in kinds and (len(kinds) >= 2 or name == "pow"), name  # pow: x < 0 breaks each order law
        assert all(isinstance(law, FL.FloatLaw) and law.arity == spec.signature.arity for law in spec.laws)
    odd = {n for n in FUNCTIONS if any(isinstance(x, FL.FloatOdd) for x in ops.get(f"primitive.float.{n}").laws)}
    monotone = {n for n in FUNCTIONS if any(isinstance(x, FL.FloatMonotone) for x in ops.get(f"primitive.float.{n}").laws)}
    assert odd == {"sin", "tan", "asin", "atan", "atan2", "tanh", "erf"}
    assert monotone == {"exp", "exp2", "exp10", "log", "log2", "log10", "asin", "acos", "atan", "tanh", "erf"}


def test_functions_certify_l2f_on_the_gpu(gpu_adapter: object) -> None:
    """exp (monotone, range, exact cases) and atan2 (odd in y, range, exact
    cases): every law verified on the MPFR reference and through lavapipe,
    the exact cases on every case."""
    ids = ["primitive.float.exp", "primitive.float.atan2"]
    cert = conform.certify(backend="wgpu", ops=ids, strength="fast", witnesses=2000, corpus=None, track="float")
    assert cert.level == "L2f" and cert.failures == [], [f.detail for f in cert.failures]
    laws = {(ob.op_id, ob.check): ob for ob in cert.obligations if ob.check.startswith("law:")}
    assert set(laws) == {
        (op_id, f"law:{law}") for op_id in ids for law in ops.get(op_id).laws
    }
    for (_, check), ob in laws.items():
        want = ObligationStrength.EXHAUSTIVE if "FloatExactCases" in check else ObligationStrength.WITNESSED
        assert ob.strength == want and ob.holds, (check, ob.detail)
    cases = next(ob.detail for (op_id, check), ob in laws.items() if op_id.endswith("atan2") and "Cases" in check)
    assert "backend:cases 32" in cases and "reference:cases 32" in cases


# ---------------------------------------------------------------------------
# The values and their relations
# ---------------------------------------------------------------------------


def test_float_laws_are_frozen_hashable_values() -> None:
    values = [
        FL.FloatOdd(), FL.FloatOdd(inputs=2), FL.FloatEven(), FL.FloatMonotone(), FL.FloatMonotone(decreasing=True),
        FL.FloatRange(FL.F32_NEG_ONE, FL.F32_ONE), FL.FloatExactCases([((0,), FL.F32_ONE)]),
    ]
    assert len(set(values)) == len(values)
    assert [str(v) for v in values] == [
        "FloatOdd", "FloatOdd(inputs=2)", "FloatEven", "FloatMonotone", "FloatMonotone(decreasing)",
        "FloatRange(-1.0, 1.0)", f"FloatExactCases(1 cases, {values[-1].fingerprint})",  # type: ignore[attr-defined]
    ]
    assert [v.arity for v in values] == [1, 2, 1, 1, 1, 1, 1]
    assert FL.FloatExactCases([((0, 1), 2)]).arity == 2
    assert all(isinstance(v, L.Law) for v in values) and set(FL.FLOAT_LAWS) == {type(v) for v in values}
    with pytest.raises(dataclasses.FrozenInstanceError):
        FL.FloatOdd().inputs = 2  # type: ignore[misc]
    assert str(FL.FloatRange(FL.F32_PI ^ SIGN, FL.F32_PI, inputs=2)) == "FloatRange(-3.1415927, 3.1415927, inputs=2)"


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: FL.FloatOdd(inputs=0), ValueError),
        (lambda: FL.FloatEven(inputs="1"), TypeError),
        (lambda: FL.FloatMonotone(decreasing=1), TypeError),
        (lambda: FL.FloatRange(FL.F32_ONE, FL.F32_NEG_ONE), ValueError),
        (lambda: FL.FloatRange(FL.CANONICAL_NAN, FL.F32_ONE), ValueError),
        (lambda: FL.FloatRange(-1, 0), ValueError),
        (lambda: FL.FloatRange(0.5, 1), TypeError),
        (lambda: FL.FloatExactCases([]), ValueError),
        (lambda: FL.FloatExactCases([((0,), 1), ((0, 1), 1)]), ValueError),
        (lambda: FL.FloatExactCases([((0,), 1), ((0,), 2)]), ValueError),
        (lambda: FL.FloatExactCases([((2**32,), 1)]), ValueError),
    ],
)
def test_float_law_parameters_are_checked(make: Callable[[], object], error: type[Exception]) -> None:
    with pytest.raises(error):
        make()


def test_a_float_law_of_the_wrong_arity_or_type_is_not_admitted(register_f32) -> None:
    with pytest.raises(ops.AdmissionError, match="FloatOdd is a law of 1-ary ops"):
        register_f32("add", *ADD, laws=[FL.FloatOdd()])
    with pytest.raises(ops.AdmissionError, match=r"FloatEven is a float law \(of F32 ops\)"):
        ops.register(OpSpec(
            id="user.floattest.u32_even", version=1, signature=OpSignature([DataType.U32], DataType.U32),
            category="A", reference=lambda a: a, composition=lambda a: a, laws=[FL.FloatEven()],
        ))


def test_order_keys_and_successors() -> None:
    values = np.array([0xFF80_0000, 0xBF80_0000, 0x8000_0001, SIGN, 0, 1, 0x3F80_0000, 0x7F7F_FFFF, 0x7F80_0000],
                      dtype=np.uint32)  # ascending in totalOrder
    assert np.all(np.diff(order_key_numpy(values).astype(np.int64)) > 0)
    assert [FL.order_key(int(v)) for v in values] == order_key_numpy(values).tolist()
    after = next_in_order(values)
    assert after.tolist()[:5] == [0xFF7F_FFFF, 0xBF7F_FFFF, SIGN, 0, 1]
    assert after.tolist()[5:8] == [2, 0x3F80_0001, 0x7F80_0000]
    assert FL.is_nan_bits(int(after[8]))
    floats = values.view(np.float32)
    finite = np.isfinite(floats) & (floats != 0) & (values != 0x7F7F_FFFF)
    assert np.array_equal(next_in_order(values)[finite].view(np.float32), np.nextafter(floats[finite], np.float32(np.inf)))


def test_the_ir_algebra_computes_the_numpy_words() -> None:
    """Successor, sign flip and case tables of the law kernels, on the
    interpreter, against the numpy algebra's, for specials and random words."""
    rng = np.random.default_rng(5)
    words = np.concatenate([
        np.array([0, SIGN, 1, 0x7F7F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFFF_FFFF], dtype=np.uint32),
        rng.integers(0, 1 << 32, 1000, dtype=np.uint64).astype(np.uint32),
    ])
    table = [7, 11, 13]
    ir = IRAlgebra()
    x = E.load("x", E.gid_x())
    terms = [ir.successor(x), ir.flip_sign(x), ir.table(table, x)]
    body = [*ir.statements, *(Node.store(f"o{j}", E.gid_x(), t) for j, t in enumerate(terms))]
    program = Program(
        [BufferDecl.read("x", 0, DataType.U32), *(BufferDecl.read_write(f"o{j}", 1 + j, DataType.U32) for j in range(3))],
        (64, 1, 1), [Node.if_(E.lt(E.gid_x(), E.u32(len(words))), body)],
    )
    out = execute(prepare(program), {"x": words, **{f"o{j}": np.zeros_like(words) for j in range(3)}}, (-(-len(words) // 64), 1, 1))
    alg = NumpyAlgebra(lambda op_id, cols: cols[0])
    assert np.array_equal(out["o0"], alg.successor(words))
    assert np.array_equal(out["o1"], alg.flip_sign(words))
    assert np.array_equal(out["o2"], alg.table(table, words))


def test_relations_on_the_reference_locate_the_violations() -> None:
    """FloatRange(-1, 1) of the identity over a few patterns: violated exactly
    at the non-NaN patterns outside [-1, 1]; NaNs are not judged."""
    law = FL.FloatRange(FL.F32_NEG_ONE, FL.F32_ONE)
    words = np.array([0, SIGN, 0x3F80_0000, 0x3F80_0001, 0xBF80_0001, 0x7F80_0000, 0x7FC0_0000], dtype=np.uint32)
    alg = NumpyAlgebra(lambda op_id, cols: cols[0])
    bad = violations_numpy(float_law_relations(law, "id", alg, [words]), words.shape)
    assert bad.tolist() == [False, False, False, True, True, True, False]
    assert float_law_variables(law) == law_variables_of(law) == 1
    assert law_variables_of(FL.FloatOdd(inputs=2)) == 2 and law_variables_of(L.Commutative()) == 2


def test_the_smt_and_l4_algebras_leave_float_laws_out() -> None:
    """Proofs and the compositional analysis know the twelve laws only: a float
    law there is 'no checker', never a silently wrong axiom."""
    from vyre.conform.algebra import UnsupportedLaw, law_relations, law_variables

    with pytest.raises(UnsupportedLaw):
        law_variables(FL.FloatOdd())
    with pytest.raises(UnsupportedLaw):
        law_relations(FL.FloatMonotone(), "f", NumpyAlgebra(lambda op_id, cols: cols[0]), [np.zeros(1, np.uint32)])
    assert _f32(FL.F32_PI_2) == pytest.approx(np.pi / 2)
