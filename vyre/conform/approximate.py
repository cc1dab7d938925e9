"""The approximate track (L1a): approximate float ops within their declared
error bounds, never in the same certificate as strict ops (docs/conform.md).

An approximate op (`vyre.fsin_approx`...) lowers to the native WGSL builtin, so
its bits depend on the GPU; what is guaranteed is its `Tolerance` (WGSL's
accuracy rule for the builtin): within `ulp` (+ `ulp_per_magnitude` * |x|) units
in the last place of the exact result, or within `absolute` of it, for finite
normal (or zero) inputs in the op's domain whose exact result is a normal f32 or
zero (WGSL lets an implementation flush subnormal inputs and results). The check
runs the op over an input space on a backend, reads every result back and
measures it against the exact value (`vyre.runtime.interp.floats.approximate`,
float64 rounded once to f32). Inputs outside the domain are counted, not judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from vyre.cli.suggest import did_you_mean
from vyre.conform import float_campaign as fc
from vyre.dialects import vyre as d
from vyre.pipeline import prepare
from vyre.runtime.interp import floats as oracle

__all__ = [
    "APPROXIMATE",
    "ApproximateReport",
    "approximate_op",
    "check_approximate",
    "describe",
    "ulp_distance",
]

U32 = npt.NDArray[np.uint32]

APPROXIMATE: dict[str, type[d.ApproximateUnaryOp]] = {op.SHORT_NAME: op for op in d.APPROXIMATE_OPS}
"""An approximate op's one name (`fsin_approx`: its mnemonic, as in the IR and
docs/floats.md) -> its op class (and tolerance)."""

_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def approximate_op(name: str) -> str:
    """The one name of the approximate op `name` (`fsqrt_approx`, or the IR's
    `vyre.fsqrt_approx`); a `ValueError` naming the closest ones otherwise."""
    short = name.removeprefix("vyre.")
    if short in APPROXIMATE:
        return short
    raise ValueError(
        f"unknown approximate op {name!r}{did_you_mean(short, APPROXIMATE)} (one of"
        f" {', '.join(APPROXIMATE)})"
    )


def describe(tolerance: d.Tolerance) -> str:
    """The bound as docs/floats.md writes it: `3 ulp`, `3 + 2·|x| ulp`,
    `3 ulp, or 2⁻²¹ absolute`, `2⁻¹¹ absolute`."""
    parts: list[str] = []
    if tolerance.ulp or tolerance.ulp_per_magnitude or not tolerance.absolute:
        per = f" + {tolerance.ulp_per_magnitude:g}·|x|" if tolerance.ulp_per_magnitude else ""
        parts.append(f"{tolerance.ulp:g}{per} ulp")
    if tolerance.absolute:
        parts.append(f"{_power_of_two(tolerance.absolute)} absolute")
    return ", or ".join(parts)


def _power_of_two(value: float) -> str:
    """`2⁻¹¹` for an exact power of two, else the value with 3 digits."""
    mantissa, exponent = math.frexp(value)
    if mantissa != 0.5:
        return f"{value:.3g}"
    return "2" + str(exponent - 1).translate(_SUPERSCRIPTS)


def _ordered(bits: U32) -> npt.NDArray[np.int64]:
    """F32 patterns mapped to integers in IEEE order (-0 and +0 both 0)."""
    signed = bits.astype(np.int64)
    magnitude = signed & 0x7FFF_FFFF
    return np.where(signed & 0x8000_0000, -magnitude, magnitude)


def ulp_distance(a: U32, b: U32) -> npt.NDArray[np.int64]:
    """Units in the last place between two F32 patterns (by ordered bits)."""
    return np.abs(_ordered(a) - _ordered(b))


@dataclass
class ApproximateReport:
    op: str
    checked: int = 0
    """Inputs in the domain, judged against the tolerance."""
    outside: int = 0
    """Inputs outside the domain (not judged)."""
    violations: int = 0
    max_ulp: int = 0
    max_absolute: float = 0.0
    first: list[tuple[int, int, int]] = field(default_factory=lambda: [])
    """Up to 8 violations: (input, got, exact)."""

    @property
    def passed(self) -> bool:
        return self.violations == 0 and self.checked > 0


def _judge(report: ApproximateReport, x: U32, got: U32) -> None:
    tolerance = APPROXIMATE[report.op].TOLERANCE
    exact = oracle.approximate(report.op, x)
    with np.errstate(all="ignore"):  # signalling NaN patterns warn when widened
        xf = x.view(np.float32).astype(np.float64)
        ef = exact.view(np.float32).astype(np.float64)
        gf = got.view(np.float32).astype(np.float64)
        domain = np.isfinite(xf) & ((np.abs(xf) >= 2.0**-126) | (xf == 0))  # WGSL may flush subnormals
        if tolerance.low is not None:
            domain &= xf >= tolerance.low
        if tolerance.high is not None:
            domain &= xf <= tolerance.high
        magnitude = np.abs(ef)
        domain &= np.isfinite(ef) & ((magnitude >= 2.0**-126) | (magnitude == 0))
        ulps = ulp_distance(got, exact)
        absolute = np.abs(gf - ef)
        allowed = tolerance.ulp + tolerance.ulp_per_magnitude * np.abs(xf)
        ok = (ulps <= allowed) | (absolute <= tolerance.absolute)
    bad = domain & ~ok
    report.checked += int(np.count_nonzero(domain))
    report.outside += int(len(x) - np.count_nonzero(domain))
    report.violations += int(np.count_nonzero(bad))
    if np.any(domain):
        report.max_ulp = max(report.max_ulp, int(ulps[domain].max()))
        report.max_absolute = max(report.max_absolute, float(np.nan_to_num(absolute[domain]).max()))
    for i in np.flatnonzero(bad)[: 8 - len(report.first)]:
        report.first.append((int(x[i]), int(got[i]), int(exact[i])))


def check_approximate(
    op: str, backend: str = "wgpu", *, ranges: tuple[tuple[int, int], ...] = ((0, 1 << 32),)
) -> ApproximateReport:
    """Run approximate op `op` (`fsin_approx`, or the IR's `vyre.fsin_approx`)
    on every F32 pattern of the (first, count) `ranges` (all 2**32 patterns by
    default); judge every result."""
    op = approximate_op(op)
    if backend not in ("interp", "wgpu"):
        raise ValueError(f"backend must be 'interp' or 'wgpu', got {backend!r}")
    for first, count in ranges:
        if count <= 0 or first < 0 or first + count > 1 << 32:
            raise ValueError(
                f"range ({first:#x}, {count}) must hold at least one F32 pattern and stay within 0..2**32"
            )
    campaign = fc.Campaign(op, "f32")
    report = ApproximateReport(op)
    program = prepare(fc.campaign_program(campaign, readback=True))
    for first, count in ranges:
        for start in range(first, first + count, fc.CHUNK):
            length = min(fc.CHUNK, first + count - start)
            words = {"params": np.array([start, length], dtype=np.uint32)}
            got = fc._run(backend, program, words, fc._groups(length), length)  # pyright: ignore[reportPrivateUsage]
            _judge(report, np.arange(start, start + length, dtype=np.uint64).astype(np.uint32), got)
    return report
