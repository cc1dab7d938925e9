"""U128 end to end: one program per family of operators, run by `vyre.run` on the
reference interpreter and on wgpu (lavapipe), against Python's integers.

The oracle is Python's int arithmetic written here (modulo 2**128, x / 0 == x % 0
== 0 as for u32, shift amounts modulo 128, unsigned order), never vyre's code.
The inputs are edges at every word boundary, their neighbours, and random values
of one to four words; the division inputs also hold the cases where Knuth's
quotient estimate is one too large and the remainder is added back (found by
construction: a divisor's top digits 0x8000.. and a dividend just below a
multiple of it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pytest

import vyre
from vyre.ir import BinOp, BufferDecl, DataType, Expr as E, Node as N, Program, UnOp

MOD = 1 << 128
MAX = MOD - 1
WG = 64

EDGES = (
    0, 1, 2, 3, 0xFFFF, 0x1_0000, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1, 2**64,
    2**64 + 1, 2**96 - 1, 2**96, 2**127 - 1, 2**127, 2**127 + 1, MAX - 1, MAX,
    0x8000_0000_0000_0000_0000_0000_0000_0001, 0xFFFF_0000_FFFF_0000_FFFF_0000_FFFF_0000,
)  # fmt: skip


def _values(seed: int, count: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.getrandbits(rng.choice((8, 16, 32, 48, 64, 96, 128))) for _ in range(count)]


def _pairs(seed: int, count: int) -> tuple[list[int], list[int]]:
    """Every pair of edges, then `count` random pairs."""
    a = [x for x in EDGES for _ in EDGES] + _values(seed, count)
    b = [y for _ in EDGES for y in EDGES] + _values(seed + 1, count)
    return a, b


def _adding_back(count: int) -> tuple[list[int], list[int]]:
    """Pairs where the quotient digit estimate is one too large after its
    corrections (the add-back step): divisors whose top 16-bit digits are
    0x8000..0x8001 or 0xFFFF with a small tail, dividends a multiple of the
    divisor minus a little."""
    rng = random.Random(7)
    a: list[int] = []
    b: list[int] = []
    for _ in range(count):
        words = rng.choice((2, 3, 4, 5, 6, 7, 8))
        top = rng.choice((0x8000, 0x8001, 0xFFFF, 0xFFFE))
        divisor = (top << (16 * (words - 1))) | rng.getrandbits(16 * (words - 1))
        divisor |= rng.choice((0, 1, 0xFFFF))
        quotient = rng.getrandbits(max(1, 128 - 16 * words + 1))
        dividend = (quotient * divisor - rng.choice((1, 2, divisor - 1, 0x1_0000))) % MOD
        a.append(dividend)
        b.append(divisor)
    return a, b


def words(values: Sequence[int]) -> npt.NDArray[np.uint32]:
    """U128 values as vyre.run takes them: uint32, shape (n, 4), word 0 least significant."""
    rows = [[(v >> shift) & 0xFFFF_FFFF for shift in (0, 32, 64, 96)] for v in values]
    return np.array(rows, dtype=np.uint32).reshape(len(values), 4)


def ints(array: npt.NDArray[np.uint32]) -> list[int]:
    return [sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in array]


def _run_both(
    program: Program, inputs: dict[str, object], n: int
) -> dict[str, npt.NDArray[np.generic]]:
    """The results of the interpreter, checked equal, byte for byte, to wgpu's."""
    dispatch = ((n + WG - 1) // WG, 1, 1)
    expected = vyre.run(program, inputs, dispatch=dispatch, backend="interp")
    got = vyre.run(program, inputs, dispatch=dispatch, backend="wgpu")
    for name, value in expected.items():
        assert value.dtype == got[name].dtype and value.shape == got[name].shape, name
        differ = np.flatnonzero(np.any((value != got[name]).reshape(len(value), -1), axis=1))
        assert differ.size == 0, f"`{name}`: interp and wgpu differ at {differ[:8].tolist()}"
    return expected


def _elementwise(
    inputs: Sequence[tuple[str, DataType]], outputs: Sequence[tuple[str, DataType, E]]
) -> Program:
    """`out_k[i] = expr_k(inputs[i])` for every invocation i (guarded by the length)."""
    buffers = [BufferDecl.read(name, k, dtype) for k, (name, dtype) in enumerate(inputs)]
    buffers += [
        BufferDecl.read_write(name, len(inputs) + k, dtype) for k, (name, dtype, _) in enumerate(outputs)
    ]
    stores = [N.store(name, E.var("i"), expr) for name, _, expr in outputs]
    body = [N.let("i", E.gid_x()), N.if_(E.lt(E.var("i"), E.buf_len(inputs[0][0])), stores)]
    return Program(buffers=buffers, workgroup_size=(WG, 1, 1), entry=body, name="u128")


def _load(name: str) -> E:
    return E.load(name, E.var("i"))


def _binary_family(
    ops: dict[BinOp, Callable[[int, int], int]], a: list[int], b: list[int], result: DataType
) -> None:
    program = _elementwise(
        [("a", DataType.U128), ("b", DataType.U128)],
        [(op.value, result, E.binop(op, _load("a"), _load("b"))) for op in ops],
    )
    zeros = words([0] * len(a)) if result is DataType.U128 else np.zeros(len(a), np.uint32)
    inputs: dict[str, object] = {"a": words(a), "b": words(b)} | {op.value: zeros for op in ops}
    out = _run_both(program, inputs, len(a))
    for op, oracle in ops.items():
        got = ints(out[op.value]) if result is DataType.U128 else out[op.value].tolist()
        want = [oracle(x, y) for x, y in zip(a, b, strict=True)]
        bad = [(hex(x), hex(y), hex(g), hex(w)) for x, y, g, w in zip(a, b, got, want, strict=True) if g != w]
        assert not bad, f"{op.value}: {len(bad)} wrong, first {bad[:3]}"


def test_arithmetic_wraps_modulo_2_128(gpu_adapter: object) -> None:
    a, b = _pairs(1, 1500)
    _binary_family(
        {
            BinOp.ADD: lambda x, y: (x + y) % MOD,
            BinOp.SUB: lambda x, y: (x - y) % MOD,
            BinOp.MUL: lambda x, y: (x * y) % MOD,
        },
        a, b, DataType.U128,
    )  # fmt: skip


def test_division_is_exact_and_a_zero_divisor_gives_zero(gpu_adapter: object) -> None:
    a, b = _pairs(2, 1500)
    more_a, more_b = _adding_back(600)
    rng = random.Random(3)
    small = [rng.getrandbits(rng.choice((1, 8, 16, 17, 31, 32, 33))) for _ in range(300)]
    a += more_a + _values(4, 300)
    b += more_b + small
    _binary_family(
        {
            BinOp.DIV: lambda x, y: 0 if y == 0 else x // y,
            BinOp.MOD: lambda x, y: 0 if y == 0 else x % y,
        },
        a, b, DataType.U128,
    )  # fmt: skip


def test_bitwise_operators(gpu_adapter: object) -> None:
    a, b = _pairs(5, 500)
    _binary_family(
        {
            BinOp.BIT_AND: lambda x, y: x & y,
            BinOp.BIT_OR: lambda x, y: x | y,
            BinOp.BIT_XOR: lambda x, y: x ^ y,
        },
        a, b, DataType.U128,
    )  # fmt: skip
    program = _elementwise([("a", DataType.U128)], [("n", DataType.U128, E.bitnot(_load("a")))])
    out = _run_both(program, {"a": words(a), "n": words([0] * len(a))}, len(a))
    assert ints(out["n"]) == [MAX ^ x for x in a]


def test_shifts_take_the_amount_modulo_128(gpu_adapter: object) -> None:
    rng = random.Random(6)
    amounts = [*range(0, 260), 2**32 + 5, 2**64 + 127, 2**100 + 1, MAX]
    a = [rng.choice(EDGES) if k % 3 else rng.getrandbits(128) for k in range(len(amounts) * 4)]
    b = [amounts[k % len(amounts)] for k in range(len(a))]
    _binary_family(
        {
            BinOp.SHL: lambda x, y: (x << (y % 128)) % MOD,
            BinOp.SHR: lambda x, y: x >> (y % 128),
        },
        a, b, DataType.U128,
    )  # fmt: skip


def test_constant_shifts_by_whole_words_and_bits(gpu_adapter: object) -> None:
    """A constant amount is folded in the lowering (a multiple of 32 to a
    swizzle of the words, others to the helper with a literal): every amount
    that matters, and the word extraction `u32(x >> 32 k)` the exact matmul
    uses on workgroup quads."""
    rng = random.Random(9)
    a = list(EDGES) + [rng.getrandbits(128) for _ in range(40)]
    amounts = (0, 1, 31, 32, 33, 64, 95, 96, 127, 128, 160)
    outputs: list[tuple[str, DataType, E]] = []
    for n in amounts:
        outputs.append((f"shl{n}", DataType.U128, E.shl(_load("a"), E.u128(n))))
        outputs.append((f"shr{n}", DataType.U128, E.shr(_load("a"), E.u128(n))))
    for k in range(4):
        outputs.append((f"word{k}", DataType.U32, E.cast(DataType.U32, E.shr(_load("a"), E.u128(32 * k)))))
    program = _elementwise([("a", DataType.U128)], outputs)
    inputs: dict[str, object] = {"a": words(a)}
    for name, dtype, _ in outputs:
        inputs[name] = words([0] * len(a)) if dtype is DataType.U128 else np.zeros(len(a), np.uint32)
    out = _run_both(program, inputs, len(a))
    for n in amounts:
        assert ints(out[f"shl{n}"]) == [(x << (n % 128)) % MOD for x in a], n
        assert ints(out[f"shr{n}"]) == [x >> (n % 128) for x in a], n
    for k in range(4):
        assert out[f"word{k}"].tolist() == [(x >> (32 * k)) & 0xFFFF_FFFF for x in a], k


def test_a_loaded_whole_word_amount_the_same_in_every_lane(gpu_adapter: object) -> None:
    """A shift amount read from a buffer and the same in every lane: the
    interpreter moves whole words (its fast path) where the amount is a
    multiple of 32 modulo 128, the GPU runs its general helper; both equal
    Python's integers, and so does a set of lanes where one amount differs."""
    rng = random.Random(10)
    a = list(EDGES) + [rng.getrandbits(128) for _ in range(20)]
    for amount in (0, 32, 64, 96, 128, 2**32 + 64, 2**100 + 96, 33):
        _binary_family(
            {BinOp.SHL: lambda x, y: (x << (y % 128)) % MOD, BinOp.SHR: lambda x, y: x >> (y % 128)},
            a, [amount] * len(a), DataType.U128,
        )  # fmt: skip
    _binary_family(
        {BinOp.SHL: lambda x, y: (x << (y % 128)) % MOD, BinOp.SHR: lambda x, y: x >> (y % 128)},
        a, [64] * (len(a) - 1) + [65], DataType.U128,
    )  # fmt: skip


def test_comparisons_are_unsigned_and_give_u32(gpu_adapter: object) -> None:
    a, b = _pairs(8, 500)
    a += a[:200]
    b += a[:200]  # equal pairs
    _binary_family(
        {
            BinOp.EQ: lambda x, y: int(x == y),
            BinOp.NE: lambda x, y: int(x != y),
            BinOp.LT: lambda x, y: int(x < y),
            BinOp.GT: lambda x, y: int(x > y),
            BinOp.LE: lambda x, y: int(x <= y),
            BinOp.GE: lambda x, y: int(x >= y),
        },
        a, b, DataType.U32,
    )  # fmt: skip


def test_counts_give_u32_from_0_to_128(gpu_adapter: object) -> None:
    a = list(EDGES) + [1 << k for k in range(128)] + [MAX >> k for k in range(129)] + _values(9, 400)
    oracles: dict[UnOp, Callable[[int], int]] = {
        UnOp.POPCOUNT: lambda x: bin(x).count("1"),
        UnOp.CLZ: lambda x: 128 - x.bit_length(),
        UnOp.CTZ: lambda x: 128 if x == 0 else (x & -x).bit_length() - 1,
    }
    program = _elementwise(
        [("a", DataType.U128)], [(op.value, DataType.U32, E.unop(op, _load("a"))) for op in oracles]
    )
    inputs: dict[str, object] = {"a": words(a)} | {op.value: np.zeros(len(a), np.uint32) for op in oracles}
    out = _run_both(program, inputs, len(a))
    for op, oracle in oracles.items():
        assert out[op.value].tolist() == [oracle(x) for x in a], op


def test_casts_follow_the_table(gpu_adapter: object) -> None:
    """The cast table's u128 rows: truncation to the low words, any non-zero word is true,
    zero extension (sign extension from i32), Vec4U32 the same words."""
    a = list(EDGES) + _values(10, 200)
    n = len(a)
    rng = random.Random(11)
    u32 = [rng.choice((0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, rng.getrandbits(32))) for _ in range(n)]
    u64 = [rng.choice((0, 1, 2**63, 2**64 - 1, rng.getrandbits(64))) for _ in range(n)]
    outputs: list[tuple[str, DataType, E]] = [
        ("to_u32", DataType.U32, E.cast(DataType.U32, _load("a"))),
        ("to_i32", DataType.I32, E.cast(DataType.I32, _load("a"))),
        ("to_bool", DataType.BOOL, E.cast(DataType.BOOL, _load("a"))),
        ("to_u64", DataType.U64, E.cast(DataType.U64, _load("a"))),
        ("to_v2", DataType.VEC2U32, E.cast(DataType.VEC2U32, _load("a"))),
        ("to_v4", DataType.VEC4U32, E.cast(DataType.VEC4U32, _load("a"))),
        ("from_u32", DataType.U128, E.cast(DataType.U128, _load("w"))),
        ("from_i32", DataType.U128, E.cast(DataType.U128, E.cast(DataType.I32, _load("w")))),
        ("from_bool", DataType.U128, E.cast(DataType.U128, E.cast(DataType.BOOL, _load("w")))),
        ("from_u64", DataType.U128, E.cast(DataType.U128, _load("d"))),
        ("from_v2", DataType.U128, E.cast(DataType.U128, E.cast(DataType.VEC2U32, _load("d")))),
        ("from_v4", DataType.U128, E.cast(DataType.U128, E.cast(DataType.VEC4U32, _load("a")))),
    ]
    program = _elementwise([("a", DataType.U128), ("w", DataType.U32), ("d", DataType.U64)], outputs)
    zero = {
        DataType.U32: np.zeros(n, np.uint32), DataType.I32: np.zeros(n, np.int32),
        DataType.BOOL: np.zeros(n, np.uint32), DataType.U64: np.zeros(n, np.uint64),
        DataType.VEC2U32: np.zeros((n, 2), np.uint32), DataType.VEC4U32: np.zeros((n, 4), np.uint32),
        DataType.U128: words([0] * n),
    }  # fmt: skip
    inputs: dict[str, object] = {
        "a": words(a), "w": np.array(u32, np.uint32), "d": np.array(u64, np.uint64),
    } | {name: zero[dtype] for name, dtype, _ in outputs}  # fmt: skip
    out = _run_both(program, inputs, n)
    low = [x & 0xFFFF_FFFF for x in a]
    assert out["to_u32"].tolist() == low
    assert out["to_i32"].tolist() == [w - (1 << 32) if w >> 31 else w for w in low]
    assert out["to_bool"].tolist() == [int(x != 0) for x in a]
    assert out["to_u64"].tolist() == [x % 2**64 for x in a]
    assert ints(out["to_v2"]) == [x % 2**64 for x in a]
    assert ints(out["to_v4"]) == a
    assert ints(out["from_u32"]) == u32
    assert ints(out["from_i32"]) == [(w - (1 << 32) if w >> 31 else w) % MOD for w in u32]
    assert ints(out["from_bool"]) == [int(w != 0) for w in u32]
    assert ints(out["from_u64"]) == u64
    assert ints(out["from_v2"]) == u64
    assert ints(out["from_v4"]) == a


def test_memory_locals_select_and_literals(gpu_adapter: object) -> None:
    """U128 through a uniform buffer, a workgroup tile, a local that is assigned,
    select, and literal operands (folded where both are literals)."""
    n = WG * 2
    a = _values(12, n)
    params = [2**127 + 3, 5]
    body = [
        N.let("i", E.gid_x()),
        N.let("l", E.local_id(0)),
        N.store("tile", E.var("l"), E.mul(E.load("a", E.var("i")), E.load("p", E.u32(0)))),
        N.barrier(),
        N.let("acc", E.load("tile", E.sub(E.u32(WG - 1), E.var("l")))),
        N.assign("acc", E.add(E.var("acc"), E.mul(E.u128(MAX), E.u128(3)))),
        N.let("big", E.select(E.lt(E.var("acc"), E.u128(2**127)), E.var("acc"), E.bitnot(E.var("acc")))),
        N.store("out", E.var("i"), E.div(E.var("big"), E.load("p", E.u32(1)))),
    ]
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U128),
            BufferDecl.uniform("p", 1, DataType.U128),
            BufferDecl.read_write("out", 2, DataType.U128),
            BufferDecl.workgroup("tile", WG, DataType.U128),
        ],
        workgroup_size=(WG, 1, 1),
        entry=body,
        name="u128_memory",
    )
    out = _run_both(program, {"a": words(a), "p": words(params), "out": words([0] * n)}, n)
    want: list[int] = []
    for i in range(n):
        group, lane = divmod(i, WG)
        acc = (a[group * WG + WG - 1 - lane] * params[0] + MAX * 3) % MOD
        big = acc if acc < 2**127 else MAX ^ acc
        want.append(big // params[1])
    assert ints(out["out"]) == want


def test_a_u128_buffer_takes_uint32_rows_of_four() -> None:
    program = _elementwise([("a", DataType.U128)], [("o", DataType.U128, _load("a"))])
    with pytest.raises(TypeError, match=r"shape \(n, 4\)"):
        vyre.run(program, {"a": np.zeros(4, np.uint32), "o": words([0])}, dispatch=(1, 1, 1), backend="interp")
