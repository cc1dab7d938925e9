"""The vocabulary of proof records: tracks, levels, checks, targets, strengths, verdicts.

Every kind is a `StrEnum`: a member equals, formats and serialises as the
string certificates have always held ("L2f", "parity", "exhaustive-u8"), so
`cert.level == "L2"` and `ob.strength == "proved"` hold and the JSON bytes (and
the content digest) do not depend on the enums. `parse` turns a user's string
into a member at the API boundary, with a `ValueError` that names the
parameter and the allowed values.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

__all__ = [
    "CheckGroup",
    "CheckKind",
    "CheckVerdict",
    "LawVerdict",
    "Level",
    "ObligationStrength",
    "OpOutcome",
    "OpStatus",
    "ProofStatus",
    "REQUESTABLE_LEVELS",
    "Target",
    "Track",
    "UnitKind",
    "parse",
]

K = TypeVar("K", bound=StrEnum)


def parse(
    kind: type[K],
    value: object,
    parameter: str,
    allowed: tuple[K, ...] | None = None,
    error: type[ValueError] = ValueError,
) -> K:
    """`value` (a member or its string) as a member of `kind`, restricted to
    `allowed` when given; otherwise `error` (a ValueError) naming `parameter`
    and the choices."""
    choices = allowed if allowed is not None else tuple(kind)
    for member in choices:
        if isinstance(value, str) and value == member.value:
            return member
    raise error(f"{parameter} must be one of {', '.join(m.value for m in choices)}, got {value!r}")


class Track(StrEnum):
    """The tracks of certification (docs/conform.md); a certificate never mixes them."""

    INTEGER = "integer"
    FLOAT = "float"
    KERNEL = "kernel"
    TENSOR = "tensor"

    @property
    def suffix(self) -> str:
        """What the levels of the track carry after the rung (L2f, L1k; the
        tensor track's L3f and L4f are the float track's upper levels)."""
        return {Track.INTEGER: "", Track.FLOAT: "f", Track.KERNEL: "k", Track.TENSOR: "f"}[self]


class Level(StrEnum):
    """A conformance level: a rung (1 parity .. 4 full) and the suffix of its track."""

    NONE = "none"
    L1 = "L1"
    L2 = "L2"
    L3 = "L3"
    L4 = "L4"
    L1F = "L1f"
    L2F = "L2f"
    L3F = "L3f"
    L4F = "L4f"
    L1K = "L1k"
    L2K = "L2k"
    L3K = "L3k"
    L4K = "L4k"

    @property
    def rung(self) -> int:
        """0 for none, else 1..4."""
        return 0 if self is Level.NONE else int(self.value[1])

    @classmethod
    def at(cls, rung: int, track: Track) -> Level:
        """The level of `rung` (0: none) on `track`."""
        return cls.NONE if rung == 0 else cls(f"L{rung}{track.suffix}")


REQUESTABLE_LEVELS = (Level.L1, Level.L2, Level.L3, Level.L4)
"""What a run may aim for (`level=`); the track adds its suffix to what it reaches."""


class CheckGroup(StrEnum):
    """What a run can be restricted to (`checks=`)."""

    LAWS = "laws"
    REFERENCE = "reference"
    PARITY = "parity"
    DETERMINISM = "determinism"
    REGRESSION = "regression"
    ORACLE = "oracle"
    ZERO_OVERHEAD = "zero-overhead"


class CheckKind(StrEnum):
    """The kind of a result's or an obligation's `check`: the whole string, or
    the part before the colon of the named ones ("law:Commutative",
    "invariant:Deterministic", "compose:<op>", "perf:<op>")."""

    LAW = "law"
    REFERENCE = "reference"
    PARITY = "parity"
    DETERMINISM = "determinism"
    ORACLE = "oracle"
    EXECUTION = "execution"
    ZERO_OVERHEAD = "zero-overhead"
    COMPOSITION = "composition"
    INVARIANT = "invariant"
    COMPOSE = "compose"
    PERF = "perf"

    @property
    def named(self) -> bool:
        """True for the kinds whose checks carry a name after a colon."""
        return self in (CheckKind.LAW, CheckKind.INVARIANT, CheckKind.COMPOSE, CheckKind.PERF)

    def check(self, name: str) -> str:
        """The check string of a named kind: `CheckKind.LAW.check("Commutative")`."""
        return f"{self.value}:{name}"

    @classmethod
    def of(cls, check: str) -> CheckKind:
        """The kind of a check string (ValueError for one no run produces)."""
        head, colon, _ = check.partition(":")
        kind = parse(cls, head, "check kind")
        if bool(colon) != kind.named:
            raise ValueError(f"check {check!r}: `{head}` checks are written {'kind:name' if kind.named else 'bare'}")
        return kind


class UnitKind(StrEnum):
    """What a unit of a plan runs (the first field of its key)."""

    LAWS_REFERENCE = "laws-reference"
    LAWS_BACKEND = "laws-backend"
    REFERENCE = "reference"
    PARITY = "parity"
    ORACLE = "oracle"
    DETERMINISM = "determinism"
    REGRESSION = "regression"
    ZERO_OVERHEAD = "zero-overhead"
    PROVE = "prove"
    COMPOSE = "compose"
    PERF = "perf"
    INVARIANT = "invariant"
    KERNEL_REFERENCE = "kernel-reference"
    KERNEL_PARITY = "kernel-parity"
    KERNEL_LAWS_REFERENCE = "kernel-laws-reference"
    KERNEL_LAWS_BACKEND = "kernel-laws-backend"
    KERNEL_DETERMINISM = "kernel-determinism"
    TENSOR_REFERENCE = "tensor-reference"
    TENSOR_PARITY = "tensor-parity"
    TENSOR_DETERMINISM = "tensor-determinism"


class Target(StrEnum):
    """What a result judged: the CPU reference, the backend under test, the
    SMT models (proof), the call structure (compose) or the lowered WGSL."""

    REFERENCE = "reference"
    BACKEND = "backend"
    PROOF = "proof"
    STRUCTURE = "structure"
    LOWERING = "lowering"


class ObligationStrength(StrEnum):
    """What establishes an obligation, strongest first. `exhaustive`: every
    input the obligation quantifies over (every listed case of an exact-cases
    law; every F32 input of a float law, from a float campaign)."""

    PROVED = "proved"
    EXHAUSTIVE = "exhaustive"
    EXHAUSTIVE_U16 = "exhaustive-u16"
    EXHAUSTIVE_U8 = "exhaustive-u8"
    WITNESSED = "witnessed"


class ProofStatus(StrEnum):
    """A solver portfolio's answer for one obligation."""

    PROVED = "proved"
    COUNTEREXAMPLE = "counterexample"
    TIMEOUT = "timeout"
    ERROR = "error"


class LawVerdict(StrEnum):
    """A declared law on one target."""

    VERIFIED = "verified"
    VIOLATED = "violated"
    NOT_RUN = "not-run"
    UNSUPPORTED_LAW = "unsupported-law"


class CheckVerdict(StrEnum):
    """An op-level check (reference, parity, determinism, oracle)."""

    PASSED = "passed"
    VIOLATED = "violated"


class OpStatus(StrEnum):
    """Whether the plan checks an op or leaves it out (with a reason)."""

    CHECKED = "checked"
    UNSUPPORTED = "unsupported"


class OpOutcome(StrEnum):
    """An op's line in the certificate."""

    PASSED = "passed"
    FAILED = "failed"
    UNSUPPORTED = "unsupported"
