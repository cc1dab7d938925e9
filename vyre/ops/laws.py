"""The algebraic laws (docs/conform.md), as values.

A law is characterization material of an `OpSpec`: a claim about its CPU
reference `f` that the proof system verifies (exhaustive on u8, witnessed on
u32). Laws that mention other operations (`DeMorgan`, `Complement`,
`DistributiveOver`) name them by op id. Every law is a frozen, hashable value,
so law sets can be compared (characterization collisions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

__all__ = [
    "ALL_LAWS",
    "Absorbing",
    "Associative",
    "Bounded",
    "Commutative",
    "Complement",
    "DeMorgan",
    "DistributiveOver",
    "Idempotent",
    "Identity",
    "Involution",
    "Law",
    "Monotone",
    "SelfInverse",
]

_U32_MAX = 0xFFFF_FFFF


def _check_u32(law: str, what: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{law}: {what} must be an int, got {type(value).__name__}")
    if not 0 <= value <= _U32_MAX:
        raise ValueError(f"{law}: {what} must be a u32 in [0, 2**32), got {value}")


def _check_op_id(law: str, what: str, value: object) -> None:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{law}: {what} must be an op id (a non-empty str), got {value!r}")


@dataclass(frozen=True)
class Law:
    """Base of the laws. `arity` is the arity of the op the law speaks of (the
    class's `ARITY`, or a law's own for one that fits several arities:
    `vyre.ops.float_laws`); `statement` is the law as a formula of `f`."""

    ARITY: ClassVar[int]
    statement: ClassVar[str]

    @property
    def arity(self) -> int:
        return self.ARITY

    @property
    def name(self) -> str:
        return type(self).__name__

    def referenced_ops(self) -> tuple[str, ...]:
        """Op ids this law mentions besides the op that declares it."""
        return ()

    def __str__(self) -> str:
        return self.name


# -- binary laws -------------------------------------------------------------


@dataclass(frozen=True)
class Commutative(Law):
    ARITY: ClassVar[int] = 2
    statement: ClassVar[str] = "f(a,b) = f(b,a)"


@dataclass(frozen=True)
class Associative(Law):
    ARITY: ClassVar[int] = 2
    statement: ClassVar[str] = "f(f(a,b),c) = f(a,f(b,c))"


@dataclass(frozen=True)
class Identity(Law):
    """`f(a,e) = a ∧ f(e,a) = a`."""

    e: int
    ARITY: ClassVar[int] = 2
    statement: ClassVar[str] = "f(a,e) = a ∧ f(e,a) = a"

    def __post_init__(self) -> None:
        _check_u32("Identity", "e", self.e)

    def __str__(self) -> str:
        return f"Identity({self.e:#x})"


@dataclass(frozen=True)
class SelfInverse(Law):
    """`f(a,a) = r`."""

    r: int
    ARITY: ClassVar[int] = 2
    statement: ClassVar[str] = "f(a,a) = r"

    def __post_init__(self) -> None:
        _check_u32("SelfInverse", "r", self.r)

    def __str__(self) -> str:
        return f"SelfInverse({self.r:#x})"


@dataclass(frozen=True)
class Idempotent(Law):
    ARITY: ClassVar[int] = 2
    statement: ClassVar[str] = "f(a,a) = a"


@dataclass(frozen=True)
class Absorbing(Law):
    """`f(a,z) = z ∧ f(z,a) = z`."""

    z: int
    ARITY: ClassVar[int] = 2
    statement: ClassVar[str] = "f(a,z) = z ∧ f(z,a) = z"

    def __post_init__(self) -> None:
        _check_u32("Absorbing", "z", self.z)

    def __str__(self) -> str:
        return f"Absorbing({self.z:#x})"


@dataclass(frozen=True)
class DistributiveOver(Law):
    """`f(a,g(b,c)) = g(f(a,b),f(a,c))`; `g` is an op id."""

    g: str
    ARITY: ClassVar[int] = 2
    statement: ClassVar[str] = "f(a,g(b,c)) = g(f(a,b),f(a,c))"

    def __post_init__(self) -> None:
        _check_op_id("DistributiveOver", "g", self.g)

    def referenced_ops(self) -> tuple[str, ...]:
        return (self.g,)

    def __str__(self) -> str:
        return f"DistributiveOver({self.g})"


# -- unary laws --------------------------------------------------------------


@dataclass(frozen=True)
class Involution(Law):
    ARITY: ClassVar[int] = 1
    statement: ClassVar[str] = "f(f(a)) = a"


@dataclass(frozen=True)
class Monotone(Law):
    ARITY: ClassVar[int] = 1
    statement: ClassVar[str] = "a ≤ b → f(a) ≤ f(b)"


@dataclass(frozen=True)
class Bounded(Law):
    """`lo ≤ f(a) ≤ hi` (unsigned)."""

    lo: int
    hi: int
    ARITY: ClassVar[int] = 1
    statement: ClassVar[str] = "lo ≤ f(a) ≤ hi"

    def __post_init__(self) -> None:
        _check_u32("Bounded", "lo", self.lo)
        _check_u32("Bounded", "hi", self.hi)
        if self.lo > self.hi:
            raise ValueError(f"Bounded: lo ({self.lo}) must not exceed hi ({self.hi})")

    def __str__(self) -> str:
        return f"Bounded({self.lo}, {self.hi})"


# -- cross-operation laws ----------------------------------------------------


@dataclass(frozen=True)
class DeMorgan(Law):
    """`f(inner(a,b)) = dual(f(a),f(b))`; `inner` and `dual` are binary op ids."""

    inner: str
    dual: str
    ARITY: ClassVar[int] = 1
    statement: ClassVar[str] = "f(inner(a,b)) = dual(f(a),f(b))"

    def __post_init__(self) -> None:
        _check_op_id("DeMorgan", "inner", self.inner)
        _check_op_id("DeMorgan", "dual", self.dual)

    def referenced_ops(self) -> tuple[str, ...]:
        return (self.inner, self.dual)

    def __str__(self) -> str:
        return f"DeMorgan({self.inner}, {self.dual})"


@dataclass(frozen=True)
class Complement(Law):
    """`f(a) + g(a) = u` (wrapping u32 add); `g` is a unary op id."""

    g: str
    u: int
    ARITY: ClassVar[int] = 1
    statement: ClassVar[str] = "f(a) + g(a) = u"

    def __post_init__(self) -> None:
        _check_op_id("Complement", "g", self.g)
        _check_u32("Complement", "u", self.u)

    def referenced_ops(self) -> tuple[str, ...]:
        return (self.g,)

    def __str__(self) -> str:
        return f"Complement({self.g}, {self.u:#x})"


ALL_LAWS: tuple[type[Law], ...] = (
    Commutative,
    Associative,
    Identity,
    SelfInverse,
    Idempotent,
    Absorbing,
    Involution,
    DeMorgan,
    Monotone,
    Bounded,
    Complement,
    DistributiveOver,
)
"""The twelve law kinds, in their canonical order."""
