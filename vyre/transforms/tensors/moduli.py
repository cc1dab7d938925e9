"""The moduli of the exact matmul on 8-bit dot products, and the facts about
them that its kernels use (all Python ints, computed once at import).

`MODULI` are pairwise coprime, at most 256 (a residue centred on zero fits a
signed byte: [-128, 127] for 256, [-(m-1)/2, (m-1)/2] for odd m), taken
greedily from 256 down so each adds nearly eight bits; 256 is the first.
An integer `C` with `|C| < M / 2`, `M = prod(MODULI[:n])`, is determined by
its residues modulo the first `n` moduli (Chinese remainder theorem). The
kernels recover `X = C + M / 2` in [0, M): `M / 2 = 128 * (the odd moduli)`
is 128 modulo 256 and 0 modulo each other modulus whatever `n` is, so the
offset is added to the residue modulo 256 alone; `X`'s mixed-radix digits
(Garner's: digit `t` is `(x_t - sum_{s<t} v_s prod(MODULI[:s])) *
prod(MODULI[:t])**-1 mod m_t`, the sum taken with each weight reduced
modulo `m_t` first and lifted by a multiple of `m_t`, so one remainder per
digit) give `X` in binary by Horner's rule, and `C = X - M / 2` (its sign
the borrow).
"""

from __future__ import annotations

from math import gcd, prod

__all__ = [
    "MODULI",
    "N_MAX",
    "PREFIX_BITS",
    "garner_lift",
    "half",
    "horner_digits",
    "moduli_needed",
    "offset",
    "prefix_inverse",
    "prefix_mod",
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
integer below `2**(PREFIX_BITS[n] - 1)` in magnitude is recovered, sign included."""


def moduli_needed(bits: int) -> int | None:
    """The fewest moduli that recover every integer of magnitude below
    `2**bits` (None when `N_MAX` are not enough)."""
    for n in range(N_MAX + 1):
        if PREFIX_BITS[n] >= bits + 1:
            return n
    return None


def half(n: int) -> int:
    """`prod(MODULI[:n]) / 2` (exact: 256 is the first modulus), the offset
    the kernels add: they recover `X = C + M/2` in [0, M)."""
    return prod(MODULI[:n]) // 2


def prefix_mod(s: int, t: int) -> int:
    """`prod(MODULI[:s]) mod MODULI[t]` (s < t): the weight of mixed-radix
    digit `s` modulo `MODULI[t]`."""
    return prod(MODULI[:s]) % MODULI[t]


def prefix_inverse(t: int) -> int:
    """`prod(MODULI[:t])`'s inverse modulo `MODULI[t]`."""
    return pow(prod(MODULI[:t]), -1, MODULI[t])


def garner_lift(t: int) -> int:
    """The least multiple of `MODULI[t]` at or above the largest weighted sum
    of the digits before `t` (`sum_{s<t} v_s * prefix_mod(s, t)`, each `v_s <
    MODULI[s]`): `x + garner_lift(t) - sum` is never negative, below 2**21."""
    m = MODULI[t]
    top = sum((MODULI[s] - 1) * prefix_mod(s, t) for s in range(t))
    return -(-top // m) * m


def horner_digits(t: int, width: int = 24) -> int:
    """`width`-bit digits of every value below `prod(MODULI[t:])`: what
    Horner's rule, run from the last modulus down, holds after step `t`."""
    return -(-(prod(MODULI[t:]) - 1).bit_length() // width)


def offset(t: int, bound: int = 1 << 30) -> int:
    """The least multiple of `MODULI[t]` at or above `bound`: `acc + offset(t)`
    is a non-negative u32 with the residue of `acc` for any `|acc| <= bound`."""
    m = MODULI[t]
    return -(-bound // m) * m


def reconstruct(residues: list[int]) -> int:
    """The integer `C`, `|C| < prod(MODULI[:n]) / 2`, from the residues
    (each in [0, m)) of `C + prod(MODULI[:n]) / 2` modulo the first n moduli,
    step by step as the reconstruction kernel does it (a host model of the
    kernel, checked against Python's CRT in the tests)."""
    digits: list[int] = []
    for t, x in enumerate(residues):
        m = MODULI[t]
        below = sum(v * prefix_mod(s, t) for s, v in enumerate(digits))
        digits.append((x + garner_lift(t) - below) * prefix_inverse(t) % m)
    value = 0
    for t in range(len(digits) - 1, -1, -1):
        value = value * MODULI[t] + digits[t]
    return value - half(len(digits))
