"""Strengths of a certification run: fast, standard, legendary."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

__all__ = ["STRENGTHS", "Strength", "StrengthName", "strength_named"]


class StrengthName(StrEnum):
    """The strengths a run can be asked for, weakest first."""

    FAST = "fast"
    STANDARD = "standard"
    LEGENDARY = "legendary"

REFERENCE_CUBE_BITS = 8
"""Bits per variable of the exhaustive three-variable laws on the CPU reference:
all 16,777,216 u8 triples, at every strength."""


@dataclass(frozen=True)
class Strength:
    """How much evidence a run gathers.

    `witnesses`: seeded uniform u32 witnesses per law, per target (reference and
    backend), and per op for the reference/parity checks (on top of the
    structured boundary/class/adversarial witnesses). `backend_cube_bits`: bits
    per variable of the exhaustive three-variable laws run through the backend
    (one- and two-variable laws are always exhaustive on u8 there).
    `determinism_runs`: repetitions of the same input; `determinism_random`:
    random rows added to the structured rows for them."""

    name: StrengthName
    witnesses: int
    backend_cube_bits: int
    determinism_runs: int
    determinism_random: int
    reference_cube_bits: int = REFERENCE_CUBE_BITS

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name.value, "witnesses": self.witnesses, "backend_cube_bits": self.backend_cube_bits,
            "determinism_runs": self.determinism_runs, "determinism_random": self.determinism_random,
            "reference_cube_bits": self.reference_cube_bits,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Strength:
        return cls(
            StrengthName(data["name"]), int(data["witnesses"]), int(data["backend_cube_bits"]),
            int(data["determinism_runs"]), int(data["determinism_random"]), int(data["reference_cube_bits"]),
        )

    def with_witnesses(self, witnesses: int) -> Strength:
        return replace(self, witnesses=witnesses)


STRENGTHS: dict[StrengthName, Strength] = {
    StrengthName.FAST: Strength(StrengthName.FAST, 10_000, 4, 3, 1_024),
    StrengthName.STANDARD: Strength(StrengthName.STANDARD, 1_000_000, 6, 10, 4_096),
    StrengthName.LEGENDARY: Strength(StrengthName.LEGENDARY, 100_000_000, 8, 10, 65_536),
}


def strength_named(name: object) -> Strength:
    if isinstance(name, Strength):
        return name
    for key, strength in STRENGTHS.items():
        if isinstance(name, str) and name == key.value:
            return strength
    raise ValueError(
        f"unknown strength {name!r}; choose one of: {', '.join(STRENGTHS)}"
        " (fast: 1e4 witnesses per law, standard: 1e6, legendary: 1e8)"
    )
