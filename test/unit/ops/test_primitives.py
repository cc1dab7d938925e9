"""The primitive families: catalog, CPU references against independent oracles,
declared laws (exhaustive on the u8 domain, witnessed on random u32), and every
Category A composition (inlined by inline-calls) against its reference.

Oracles are plain Python ints (conftest.py). The law checker and the IR
evaluator below are written here, independently of vyre.ops."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from vyre import ops
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Node, Program
from vyre.ir import Expr as E
from vyre.ops import laws as L
from vyre.ops.spec import OpSpec
from vyre.transforms.inline_calls import inline_calls

M = 0xFFFF_FFFF
U64 = np.uint64

CATALOG = {
    "primitive.math": {
        "add": "A", "sub": "A", "mul": "A", "div": "A", "mod": "A", "abs_diff": "A",
        "min": "A", "max": "A", "gcd": "A", "lcm": "A", "add_sat": "A", "sub_sat": "A",
        "clamp": "A", "avg_floor": "A", "wrapping_neg": "A", "negate": "A", "sign": "A",
        "abs": "A", "mul_high": "A", "mul_sat": "A", "div_ceil": "A", "avg_ceil": "A",
    },
    "primitive.bitwise": {
        "and": "A", "or": "A", "xor": "A", "not": "A", "shl": "A", "shr": "A", "rotl": "A",
        "rotr": "A", "andn": "A", "xnor": "A", "bit_test": "A", "byte_swap": "A",
        "popcount": "C", "clz": "C", "ctz": "C", "reverse_bits": "C",
        "extract_bits": "C", "insert_bits": "C",
    },
    "primitive.compare": {
        "eq": "A", "ne": "A", "lt": "A", "le": "A", "gt": "A", "ge": "A",
        "logical_not": "A", "select": "A",
    },
    "primitive.logical": {"and": "A", "or": "A", "xor": "A", "nand": "A", "nor": "A"},
}
ARITY = {"clamp": 3, "select": 3, "extract_bits": 3, "insert_bits": 4}
UNARY = {"wrapping_neg", "negate", "sign", "abs", "not", "popcount", "clz", "ctz",
         "reverse_bits", "logical_not", "byte_swap"}
EXPECTED = {
    f"{family}.{name}": category for family, names in CATALOG.items()
    for name, category in names.items()
}
IDS = sorted(EXPECTED)
COMPOSED = [op_id for op_id in IDS if EXPECTED[op_id] == "A"]


def _arity(op_id: str) -> int:
    name = op_id.rsplit(".", 1)[1]
    return 1 if name in UNARY else ARITY.get(name, 2)


def _ref(op_id: str) -> Callable[..., np.ndarray]:
    spec = ops.get(op_id)

    def run(*columns: np.ndarray) -> np.ndarray:
        out = np.asarray(spec.reference(*[c.astype(np.uint32) for c in columns]))
        assert out.dtype == np.uint32, f"{op_id} reference returned {out.dtype}"
        return out.astype(U64)

    return run


# ---------------------------------------------------------------------------
# Catalog
# ---------------------------------------------------------------------------


def test_catalog_is_complete_with_categories() -> None:
    """The catalog is exactly the registered primitives, so every test parametrized
    over it covers each new op."""
    integer = {i for i in ops.known_op_ids() if i.startswith("primitive.")}
    integer -= {i for i in integer if i.startswith("primitive.float.")}  # test_float_ops.py
    assert integer == set(EXPECTED)
    for op_id, category in EXPECTED.items():
        spec = ops.get(op_id)
        assert (spec.id, spec.version, spec.category) == (op_id, 1, category)
        assert spec.signature.inputs == (DataType.U32,) * _arity(op_id)
        assert spec.signature.output is DataType.U32
        assert spec.inlinable is True
        assert (spec.intrinsic is not None) == (category == "C")


def test_every_op_has_an_oracle(oracles: dict[str, Callable[..., int]]) -> None:
    assert set(oracles) == set(EXPECTED)


def test_callees_name_direct_calls_only() -> None:
    assert ops.get("primitive.math.lcm").callees == ("primitive.math.gcd",)
    assert set(ops.get("primitive.math.clamp").callees) == {
        "primitive.math.min",
        "primitive.math.max",
    }
    assert ops.get("primitive.math.gcd").callees == ()
    assert ops.get("primitive.math.mul_sat").callees == ("primitive.math.mul_high",)
    assert ops.get("primitive.bitwise.popcount").callees == ()


def test_intrinsics_declare_their_wgsl_builtin() -> None:
    builtins = {
        "popcount": ("countOneBits", "popcount"),
        "clz": ("countLeadingZeros", "clz"),
        "ctz": ("countTrailingZeros", "ctz"),
        "reverse_bits": ("reverseBits", "reverse_bits"),
        "extract_bits": ("extractBits", None),
        "insert_bits": ("insertBits", None),
    }
    for name, (wgsl, unop) in builtins.items():
        intrinsic = ops.get(f"primitive.bitwise.{name}").intrinsic
        assert intrinsic is not None
        assert intrinsic.wgsl == wgsl
        assert (intrinsic.unop.value if intrinsic.unop else None) == unop
        assert intrinsic.available_on("wgpu") and intrinsic.available_on("interp")


# ---------------------------------------------------------------------------
# References against the oracles
# ---------------------------------------------------------------------------


def _declared_inputs(spec: OpSpec) -> list[tuple[int, ...]]:
    arity = spec.signature.arity
    rows = [rep for cls in spec.equivalence_classes for rep in cls.representatives]
    for boundary in spec.boundaries:
        rows.append(boundary if isinstance(boundary, tuple) else (boundary,) * arity)
    return rows


@pytest.mark.parametrize("op_id", IDS)
def test_reference_matches_oracle(
    op_id: str,
    oracles: dict[str, Callable[..., int]],
    inputs_for: Callable[[int, int, int], list[tuple[int, ...]]],
) -> None:
    spec = ops.get(op_id)
    oracle = oracles[op_id]
    rows = inputs_for(spec.signature.arity, 2000, hash(op_id) & 0xFFFF) + _declared_inputs(spec)
    columns = [np.array(col, dtype=np.uint32) for col in zip(*rows, strict=True)]
    got = np.asarray(spec.reference(*columns))
    assert got.dtype == np.uint32 and got.shape == (len(rows),)
    for row, value in zip(rows, got.tolist(), strict=True):
        expected = oracle(*row)
        assert value == expected, f"{op_id}{row}: reference {value:#x}, oracle {expected:#x}"


# ---------------------------------------------------------------------------
# Laws: exhaustive on u8, witnessed on u32
# ---------------------------------------------------------------------------

U8 = np.arange(256, dtype=U64)
# The ternary laws run on a reduced but honest cube: small values, both ends of
# the u8 range and values around powers of two (32**3 = 32,768 triples).
U8_REDUCED = np.array(
    sorted({0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 63, 64, 65, 100, 127, 128, 129,
            170, 200, 253, 254, 255, 6, 9, 12, 48, 85, 96, 192}),
    dtype=U64,
)
WITNESS_COUNT = 4096


def _u32_witness(seed: int, count: int = WITNESS_COUNT) -> np.ndarray:
    rng = np.random.default_rng(seed)
    edge = np.array([0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, M], dtype=U64)
    return np.concatenate([edge, rng.integers(0, 1 << 32, count, dtype=U64)])


def _pairs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.ravel(), b.ravel()


def _triples(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, b, c = np.meshgrid(values, values, values, indexing="ij")
    return a.ravel(), b.ravel(), c.ravel()


def law_counterexample(op_id: str, law: L.Law, domain: str) -> tuple[int, ...] | None:
    """The first input violating `law` for op `op_id`'s reference, or None.

    domain "u8": exhaustive on 0..255 (ternary laws on the reduced cube);
    domain "u32": random u32 witnesses (pairs/triples drawn independently)."""
    f = _ref(op_id)
    if domain == "u8":
        unary, (a, b), (x, y, z) = U8, _pairs(U8), _triples(U8_REDUCED)
    else:
        unary = _u32_witness(1)
        a, b = _u32_witness(2), _u32_witness(3)
        x, y, z = _u32_witness(4), _u32_witness(5), _u32_witness(6)

    def first(mask: np.ndarray, *columns: np.ndarray) -> tuple[int, ...] | None:
        bad = np.flatnonzero(~mask)
        return None if bad.size == 0 else tuple(int(c[bad[0]]) for c in columns)

    match law:
        case L.Commutative():
            return first(f(a, b) == f(b, a), a, b)
        case L.Associative():
            return first(f(f(x, y), z) == f(x, f(y, z)), x, y, z)
        case L.Identity(e):
            ee = np.full_like(unary, e)
            return first((f(unary, ee) == unary) & (f(ee, unary) == unary), unary)
        case L.SelfInverse(r):
            return first(f(unary, unary) == r, unary)
        case L.Idempotent():
            return first(f(unary, unary) == unary, unary)
        case L.Absorbing(z0):
            zz = np.full_like(unary, z0)
            return first((f(unary, zz) == z0) & (f(zz, unary) == z0), unary)
        case L.DistributiveOver(g_id):
            g = _ref(g_id)
            return first(f(x, g(y, z)) == g(f(x, y), f(x, z)), x, y, z)
        case L.Involution():
            return first(f(f(unary)) == unary, unary)
        case L.Monotone():
            ordered = np.sort(unary)
            values = f(ordered)
            return first(np.concatenate([[True], values[1:] >= values[:-1]]), ordered)
        case L.Bounded(lo, hi):
            values = f(unary)
            return first((values >= lo) & (values <= hi), unary)
        case L.DeMorgan(inner, dual):
            return first(f(_ref(inner)(a, b)) == _ref(dual)(f(a), f(b)), a, b)
        case L.Complement(g_id, u):
            return first(((f(unary) + _ref(g_id)(unary)) & U64(M)) == u, unary)
        case _:
            raise AssertionError(f"no checker for {law}")


LAW_CASES = [
    pytest.param(op_id, law, id=f"{op_id}:{law}") for op_id in IDS for law in ops.get(op_id).laws
]


@pytest.mark.parametrize(("op_id", "law"), LAW_CASES)
def test_declared_law_holds(op_id: str, law: L.Law) -> None:
    for domain in ("u8", "u32"):
        counterexample = law_counterexample(op_id, law, domain)
        assert counterexample is None, f"{op_id} violates {law} on {domain}: {counterexample}"


def test_every_op_declares_rule_material() -> None:
    for op_id in IDS:
        spec = ops.get(op_id)
        assert spec.laws or spec.equivalence_classes or spec.boundaries
        assert spec.equivalence_classes, f"{op_id} declares no equivalence class"


@pytest.mark.parametrize(
    ("op_id", "law"),
    [
        ("primitive.math.sub", L.Commutative()),
        ("primitive.math.sub", L.Identity(0)),
        ("primitive.math.avg_floor", L.Associative()),
        ("primitive.math.lcm", L.Associative()),  # true on u8, wraps on u32
        ("primitive.compare.gt", L.DistributiveOver("primitive.math.max")),
        ("primitive.math.abs", L.Monotone()),
        ("primitive.bitwise.not", L.DeMorgan("primitive.bitwise.xor", "primitive.bitwise.xor")),
        ("primitive.bitwise.popcount", L.Bounded(0, 31)),
        ("primitive.math.negate", L.Complement("primitive.bitwise.not", 0)),
        ("primitive.logical.nand", L.Absorbing(0)),
        ("primitive.math.mul", L.Idempotent()),
        ("primitive.math.div", L.SelfInverse(1)),
        ("primitive.compare.logical_not", L.Involution()),
        ("primitive.math.mul_sat", L.DistributiveOver("primitive.math.add")),
        ("primitive.math.div_ceil", L.SelfInverse(1)),
        ("primitive.math.avg_ceil", L.Associative()),
        ("primitive.bitwise.andn", L.Commutative()),
        ("primitive.bitwise.andn", L.Identity(0)),
        ("primitive.bitwise.xnor", L.Identity(0)),
        ("primitive.bitwise.bit_test", L.Absorbing(0)),
        ("primitive.bitwise.byte_swap", L.Monotone()),
    ],
)
def test_false_laws_are_refuted(op_id: str, law: L.Law) -> None:
    """The checker can fail: laws the ops do not declare because they are false."""
    assert law not in ops.get(op_id).laws
    found = [law_counterexample(op_id, law, domain) for domain in ("u8", "u32")]
    assert any(c is not None for c in found), f"{law} unexpectedly holds for {op_id}"


def test_lcm_associativity_fails_only_by_wrapping() -> None:
    assert law_counterexample("primitive.math.lcm", L.Associative(), "u8") is None
    assert law_counterexample("primitive.math.lcm", L.Associative(), "u32") is not None


def test_complement_checker() -> None:
    """No built-in declares Complement; `not(a) + a = 2**32 - 1` exercises it with a
    user op standing for the identity."""
    spec = OpSpec(
        id="test.identity", version=1, signature=ops.get("primitive.bitwise.not").signature,
        category="A", reference=lambda a: np.asarray(a, dtype=np.uint32),
        composition=lambda a: a, boundaries=[0],
    )
    ops.register(spec)
    try:
        law = L.Complement("test.identity", M)
        assert law_counterexample("primitive.bitwise.not", law, "u8") is None
        assert law_counterexample("primitive.bitwise.not", law, "u32") is None
        bad = L.Complement("test.identity", 0)
        assert law_counterexample("primitive.bitwise.not", bad, "u8") == (0,)
    finally:
        ops.unregister("test.identity")


# ---------------------------------------------------------------------------
# Compositions: inline the op, evaluate the inlined IR, compare with the reference
# ---------------------------------------------------------------------------


def _popcount(x: np.ndarray) -> np.ndarray:
    count = np.zeros_like(x)
    for k in range(32):
        count += (x >> U64(k)) & U64(1)
    return count


def _bit_length(x: np.ndarray) -> np.ndarray:
    length = np.zeros_like(x)
    for k in range(32):
        length = np.where((x >> U64(k)) != 0, U64(k + 1), length)
    return length


def _unop(kind: str, x: np.ndarray) -> np.ndarray:
    if kind == "negate":
        return (U64(1 << 32) - x) & U64(M)
    if kind == "bit_not":
        return x ^ U64(M)
    if kind == "logical_not":
        return (x == 0).astype(U64)
    if kind == "popcount":
        return _popcount(x)
    if kind == "clz":
        return U64(32) - _bit_length(x)
    if kind == "ctz":
        lowest = x & ((U64(1 << 32) - x) & U64(M))
        return np.where(x == 0, U64(32), _bit_length(lowest) - U64(1))
    if kind == "reverse_bits":
        out = np.zeros_like(x)
        for k in range(32):
            out |= ((x >> U64(k)) & U64(1)) << U64(31 - k)
        return out
    raise AssertionError(kind)


def _binop(kind: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    safe = np.where(b == 0, U64(1), b)
    table = {
        "add": lambda: (a + b) & U64(M),
        "sub": lambda: (a - b) & U64(M),
        "mul": lambda: (a * b) & U64(M),
        "div": lambda: np.where(b == 0, U64(0), a // safe),
        "mod": lambda: np.where(b == 0, U64(0), a % safe),
        "bit_and": lambda: a & b,
        "bit_or": lambda: a | b,
        "bit_xor": lambda: a ^ b,
        "shl": lambda: (a << (b & U64(31))) & U64(M),
        "shr": lambda: a >> (b & U64(31)),
        "eq": lambda: (a == b).astype(U64),
        "ne": lambda: (a != b).astype(U64),
        "lt": lambda: (a < b).astype(U64),
        "gt": lambda: (a > b).astype(U64),
        "le": lambda: (a <= b).astype(U64),
        "ge": lambda: (a >= b).astype(U64),
        "and": lambda: ((a != 0) & (b != 0)).astype(U64),
        "or": lambda: ((a != 0) | (b != 0)).astype(U64),
    }
    return table[kind]()


def evaluate_inlined(program: Program, columns: Sequence[np.ndarray]) -> np.ndarray:
    """Evaluate a straight-line, call-free kernel `out[i] = f(in0[i], ...)`:
    every value is a uint64 array holding 32-bit patterns."""
    n = len(columns[0])
    values: dict[object, np.ndarray] = {}
    out = np.zeros(n, dtype=U64)
    for op in program.kernel.body.block.ops:
        match op:
            case d.InvocationIdOp():
                value = np.arange(n, dtype=U64)
            case d.LoadOp():
                value = columns[int(op.buffer.data.removeprefix("in"))][values[op.index]]
            case d.LitU32Op():
                value = np.full(n, op.value.data, dtype=U64)
            case d.LitI32Op():
                value = np.full(n, op.value.data & M, dtype=U64)
            case d.BinOp():
                value = _binop(op.kind.data, values[op.lhs], values[op.rhs])
            case d.UnOp():
                value = _unop(op.kind.data, values[op.operand])
            case d.SelectOp():
                value = np.where(values[op.cond] != 0, values[op.if_true], values[op.if_false])
            case d.CastOp():
                assert op.res.type in (d.U32, d.I32), "only u32/i32 bitcasts expected"
                value = values[op.value]
            case d.StoreOp():
                out[values[op.index]] = values[op.value]
                continue
            case _:
                raise AssertionError(f"unexpected op after inlining: {op.name}")
        values[op.results[0]] = value.astype(U64)
    return out


def _op_program(op_id: str) -> Program:
    arity = _arity(op_id)
    buffers = [BufferDecl.read(f"in{i}", i, DataType.U32) for i in range(arity)]
    index = E.gid_x()
    return Program(
        buffers=[*buffers, BufferDecl.read_write("out", arity, DataType.U32)],
        workgroup_size=(64, 1, 1),
        entry=[Node.store("out", index, E.call(op_id, [E.load(b.name, index) for b in buffers]))],
    )


def _domain(arity: int) -> list[np.ndarray]:
    """u8 exhaustive (ternary: the reduced cube) plus random u32 tuples (the test
    adds the op's declared representatives and boundaries)."""
    rng = np.random.default_rng(arity)
    if arity == 1:
        small = [U8]
    elif arity == 2:
        small = list(_pairs(U8))
    else:
        small = list(_triples(U8_REDUCED))
    big = [rng.integers(0, 1 << 32, 8192, dtype=U64) for _ in range(arity)]
    return [np.concatenate([s, b]) for s, b in zip(small, big, strict=True)]


UNOP_INTRINSICS = [f"primitive.bitwise.{n}" for n in ("popcount", "clz", "ctz", "reverse_bits")]


@pytest.mark.parametrize("op_id", COMPOSED + UNOP_INTRINSICS)
def test_inlined_composition_matches_reference(op_id: str) -> None:
    inlined = inline_calls(_op_program(op_id))
    kinds = {op.name for op in inlined.kernel.body.walk()}
    assert "vyre.call" not in kinds and "vyre.loop" not in kinds
    assert kinds <= {"vyre.invocation_id", "vyre.load", "vyre.lit_u32", "vyre.lit_i32",
                     "vyre.binop", "vyre.unop", "vyre.select", "vyre.cast", "vyre.store"}
    declared = zip(*_declared_inputs(ops.get(op_id)), strict=True)
    columns = [
        np.concatenate([column, np.array(extra, dtype=U64)])
        for column, extra in zip(_domain(_arity(op_id)), declared, strict=True)
    ]
    got = evaluate_inlined(inlined, columns)
    expected = _ref(op_id)(*columns)
    bad = np.flatnonzero(got != expected)
    assert bad.size == 0, (
        f"{op_id} composition differs at {tuple(int(c[bad[0]]) for c in columns)}:"
        f" {int(got[bad[0]]):#x} != {int(expected[bad[0]]):#x}"
    )


def _fibonacci_pairs() -> list[tuple[int, int]]:
    a, b, pairs = 1, 1, []
    while b <= M:
        pairs.append((b, a))
        a, b = b, a + b
    return pairs


def test_gcd_composition_on_adversarial_u32() -> None:
    """The unrolled binary GCD on inputs that need many steps: consecutive
    Fibonacci numbers, near-equal large values, powers of two, all-ones."""
    rng = random.Random(7)
    rows = _fibonacci_pairs() + [
        (M, M - 1), (M, 1), (1, M), (M, M), (0x8000_0000, 0x4000_0000), (0x8000_0000, 3),
        (0xFFFF_FFFB, 0xFFFF_FFF1), (2**31 - 1, 2**31 - 3), (3**20, 2**31), (0, M), (M, 0),
    ] + [(rng.getrandbits(32) | 1, rng.getrandbits(32)) for _ in range(4000)]
    columns = [np.array(c, dtype=U64) for c in zip(*rows, strict=True)]
    for op_id, oracle in (
        ("primitive.math.gcd", _python_gcd),
        ("primitive.math.lcm", lambda a, b: 0 if 0 in (a, b) else (a * b // _python_gcd(a, b)) & M),
    ):
        got = evaluate_inlined(inline_calls(_op_program(op_id)), columns).tolist()
        for row, value in zip(rows, got, strict=True):
            assert value == oracle(*row), f"{op_id}{row}"


def _python_gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a
