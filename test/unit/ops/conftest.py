"""Independent oracles of the primitive families: plain Python ints, written from
docs/semantics.md / WGSL's definitions, sharing nothing with vyre.ops' numpy references."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

M = 0xFFFF_FFFF


def _s32(x: int) -> int:
    return x - (1 << 32) if x >= 1 << 31 else x


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _lcm(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return 0
    return (a * b // _gcd(a, b)) & M


def _field(offset: int, count: int) -> tuple[int, int]:
    o = min(offset, 32)
    return o, min(count, 32 - o)


def _extract_bits(e: int, offset: int, count: int) -> int:
    o, c = _field(offset, count)
    return sum(((e >> (o + i)) & 1) << i for i in range(c))


def _insert_bits(e: int, newbits: int, offset: int, count: int) -> int:
    o, c = _field(offset, count)
    result = e
    for i in range(c):
        bit = (newbits >> i) & 1
        result = (result & ~(1 << (o + i))) | (bit << (o + i))
    return result & M


def _div_ceil(a: int, b: int) -> int:
    if b == 0:
        return 0
    quotient, remainder = divmod(a, b)
    return quotient + (1 if remainder else 0)


def _byte_swap(a: int) -> int:
    return int.from_bytes(a.to_bytes(4, "little"), "big")


def _rotl(a: int, b: int) -> int:
    s = b % 32
    return ((a << s) | (a >> (32 - s))) & M


def _rotr(a: int, b: int) -> int:
    s = b % 32
    return ((a >> s) | (a << (32 - s))) & M


ORACLES: dict[str, Callable[..., int]] = {
    "primitive.math.add": lambda a, b: (a + b) & M,
    "primitive.math.sub": lambda a, b: (a - b) & M,
    "primitive.math.mul": lambda a, b: (a * b) & M,
    "primitive.math.div": lambda a, b: 0 if b == 0 else a // b,
    "primitive.math.mod": lambda a, b: 0 if b == 0 else a % b,
    "primitive.math.abs_diff": lambda a, b: abs(a - b),
    "primitive.math.min": min,
    "primitive.math.max": max,
    "primitive.math.gcd": _gcd,
    "primitive.math.lcm": _lcm,
    "primitive.math.add_sat": lambda a, b: min(a + b, M),
    "primitive.math.sub_sat": lambda a, b: max(a - b, 0),
    "primitive.math.clamp": lambda x, lo, hi: min(max(x, lo), hi),
    "primitive.math.avg_floor": lambda a, b: (a + b) // 2,
    "primitive.math.wrapping_neg": lambda a: (-a) & M,
    "primitive.math.negate": lambda a: (-a) & M,
    "primitive.math.sign": lambda a: 1 if _s32(a) > 0 else (M if _s32(a) < 0 else 0),
    "primitive.math.abs": lambda a: abs(_s32(a)) & M,
    "primitive.math.mul_high": lambda a, b: (a * b) >> 32,
    "primitive.math.mul_sat": lambda a, b: min(a * b, M),
    "primitive.math.div_ceil": _div_ceil,
    "primitive.math.avg_ceil": lambda a, b: (a + b + 1) // 2,
    "primitive.bitwise.and": lambda a, b: a & b,
    "primitive.bitwise.or": lambda a, b: a | b,
    "primitive.bitwise.xor": lambda a, b: a ^ b,
    "primitive.bitwise.not": lambda a: ~a & M,
    "primitive.bitwise.shl": lambda a, b: (a << (b % 32)) & M,
    "primitive.bitwise.shr": lambda a, b: a >> (b % 32),
    "primitive.bitwise.rotl": _rotl,
    "primitive.bitwise.rotr": _rotr,
    "primitive.bitwise.andn": lambda a, b: a & ~b & M,
    "primitive.bitwise.xnor": lambda a, b: ~(a ^ b) & M,
    "primitive.bitwise.bit_test": lambda a, b: (a >> (b % 32)) & 1,
    "primitive.bitwise.byte_swap": _byte_swap,
    "primitive.bitwise.popcount": lambda a: bin(a).count("1"),
    "primitive.bitwise.clz": lambda a: 32 - a.bit_length(),
    "primitive.bitwise.ctz": lambda a: 32 if a == 0 else (a & -a).bit_length() - 1,
    "primitive.bitwise.reverse_bits": lambda a: int(f"{a:032b}"[::-1], 2),
    "primitive.bitwise.extract_bits": _extract_bits,
    "primitive.bitwise.insert_bits": _insert_bits,
    "primitive.compare.eq": lambda a, b: int(a == b),
    "primitive.compare.ne": lambda a, b: int(a != b),
    "primitive.compare.lt": lambda a, b: int(a < b),
    "primitive.compare.le": lambda a, b: int(a <= b),
    "primitive.compare.gt": lambda a, b: int(a > b),
    "primitive.compare.ge": lambda a, b: int(a >= b),
    "primitive.compare.logical_not": lambda a: int(a == 0),
    "primitive.compare.select": lambda c, a, b: a if c != 0 else b,
    "primitive.logical.and": lambda a, b: int(a != 0 and b != 0),
    "primitive.logical.or": lambda a, b: int(a != 0 or b != 0),
    "primitive.logical.xor": lambda a, b: int((a != 0) != (b != 0)),
    "primitive.logical.nand": lambda a, b: int(not (a != 0 and b != 0)),
    "primitive.logical.nor": lambda a, b: int(not (a != 0 or b != 0)),
}

EDGE = (0, 1, 2, 3, 7, 31, 32, 33, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000,
        0x8000_0001, 0xAAAA_AAAA, 0xDEAD_BEEF, 0xFFFF_FFFE, M)


def edge_and_random(arity: int, count: int, seed: int) -> list[tuple[int, ...]]:
    """Every edge combination (edge set trimmed for arity > 2) plus random tuples
    biased towards small and extreme values."""
    rng = random.Random(seed)
    edge = EDGE if arity <= 2 else EDGE[::3] if arity == 3 else EDGE[::5]
    combos: list[tuple[int, ...]] = [()]
    for _ in range(arity):
        combos = [c + (v,) for c in combos for v in edge]

    def draw() -> int:
        kind = rng.randrange(4)
        if kind == 0:
            return rng.randrange(64)
        if kind == 1:
            return M - rng.randrange(64)
        return rng.getrandbits(32)

    combos += [tuple(draw() for _ in range(arity)) for _ in range(count)]
    return combos


@pytest.fixture(scope="session")
def oracles() -> dict[str, Callable[..., int]]:
    return ORACLES


@pytest.fixture(scope="session")
def inputs_for() -> Callable[[int, int, int], list[tuple[int, ...]]]:
    return edge_and_random
