"""The moduli of the exact matmul on 8-bit dot products, and the facts about
them that its kernels use (all Python ints, computed once at import).

`MODULI` are pairwise coprime, at most 256 (a residue centred on zero fits a
signed byte: [-128, 127] for 256, [-(m-1)/2, (m-1)/2] for odd m), taken
greedily from 256 down so each adds nearly eight bits. An integer `C` with
`|C| < prod(MODULI[:n]) / 4` is determined by its residues modulo the first
`n` moduli (Chinese remainder theorem); the factor 4 leaves room to read the
sign from the top mixed-radix digit (`sign_from_top_digit`).
"""

from __future__ import annotations

from math import gcd, prod

__all__ = [
    "MODULI",
    "N_MAX",
    "PREFIX_BITS",
    "garner_inverse",
    "moduli_needed",
    "offset",
    "pow2_32k",
    "reconstruct",
]

N_MAX = 18
"""The most moduli a matmul uses (their product has 140 bits)."""


def _greedy(count: int) -> tuple[int, ...]:
    chosen: list[int] = []
    m = 256
    while len(chosen) < count:
        if all(gcd(m, c) == 1 for c in chosen):
            chosen.append(m)
        m -= 1
    return tuple(chosen)


MODULI: tuple[int, ...] = _greedy(N_MAX)

PREFIX_BITS: tuple[int, ...] = tuple(prod(MODULI[:n]).bit_length() - 1 for n in range(N_MAX + 1))
"""`PREFIX_BITS[n] = floor(log2(prod(MODULI[:n])))`: with `n` moduli every
integer below `2**(PREFIX_BITS[n] - 2)` in magnitude is recovered, sign included."""


def moduli_needed(bits: int) -> int | None:
    """The fewest moduli that recover every integer of magnitude below
    `2**bits` (None when `N_MAX` are not enough)."""
    for n in range(N_MAX + 1):
        if PREFIX_BITS[n] >= bits + 2:
            return n
    return None


def garner_inverse(s: int, t: int) -> int:
    """`MODULI[s]`'s inverse modulo `MODULI[t]` (s < t), the step of Garner's
    mixed-radix conversion."""
    return pow(MODULI[s], -1, MODULI[t])


def offset(t: int, bound: int = 1 << 30) -> int:
    """The least multiple of `MODULI[t]` at or above `bound`: `acc + offset(t)`
    is a non-negative u32 with the residue of `acc` for any `|acc| <= bound`."""
    m = MODULI[t]
    return -(-bound // m) * m


def pow2_32k(t: int, k: int) -> int:
    """`2**(32 k) mod MODULI[t]`."""
    return pow(2, 32 * k, MODULI[t])


def reconstruct(residues: list[int]) -> int:
    """The integer `C`, `|C| < prod(MODULI[:n]) / 4`, with residues `residues`
    (each in [0, m)) modulo the first n moduli: Garner's mixed-radix digits, the
    sign read from the top digit, exactly as the reconstruction kernel does it
    (a host model of the kernel, checked against Python's CRT in the tests)."""
    n = len(residues)
    if n == 0:
        return 0
    digits: list[int] = []
    for t, x in enumerate(residues):
        u = x
        m = MODULI[t]
        for s, v in enumerate(digits):
            u = (u + m * -(-256 // m) - v) * garner_inverse(s, t) % m
        digits.append(u)
    negative = 2 * digits[-1] >= MODULI[n - 1]
    value = 0
    for t in range(n - 1, -1, -1):
        w = MODULI[t] - 1 - digits[t] if negative else digits[t]
        value = value * MODULI[t] + w
    return -(value + 1) if negative else value
