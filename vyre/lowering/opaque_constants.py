"""Literals that Mesa's NIR would rewrite with the wrong sign of zero, made opaque.

Mesa's NIR (seen in lavapipe, Mesa 22.3.6 with LLVM 15, the CPU adapter of CI and
of GPU-less machines; the same optimiser sits under every Mesa Vulkan driver) has
algebraic rules `bcsel(a, 1.0, 0.0) -> b2f(a)` and `bcsel(a, -1.0, -0.0) ->
fneg(b2f(a))`. NIR is typeless and compares the pattern's float constants as
floats, so `0.0` also matches the bits of `-0.0` and the reverse. Any `u32`
choice between two constants 0x3f800000 (1.0) / 0x80000000 (-0.0), or
0xbf800000 (-1.0) / 0x00000000 (+0.0), is then rewritten into a conversion that
produces the other zero: `select(0xbf800000u, 0u, c)` stores 0x80000000 when `c`
holds, and so does `if (c) { x = 0u; } else { x = 0xbf800000u; }` (NIR turns the
`if` into the same `bcsel`). Integer code, strict soft-float code (floor and ceil
choose between exactly these constants) and user literals are all exposed.
Measured on lavapipe over every ordered pair of 35 constants (the float ±0, ±0.5,
±1, ±2, ±3, ±4, ±inf, NaN, subnormals, extremes and integer patterns), as `select`
and as `if`/`else`: exactly these four choices are wrong, and every other pair
is right (test/unit/test_opaque_constants.py reruns the probe on the adapter).

The rules need both arms to be constants NIR knows, and every such pair holds
±1.0. So every literal with the bits of ±1.0 that the emitter writes is mixed
with a word NIR cannot know: `(0x3f800000u ^ meta.opaque_zero)`, where
`opaque_zero` is a field of the meta uniform that the runtime always writes as 0
(layout.py `MetaLayout.opaque_zero`). The value is unchanged on every device; on
NVIDIA a uniform operand costs nothing, and only kernels that contain such a
literal get the field.

The emitter folds constant expressions before it writes them, and a read of a
never-assigned local bound to a constant is that constant (wgsl.py
`local_const`), so `let k = 0xbf800001u; select(k - 1u, 0u, c)` reaches this module
as the literal 0xbf800000u. Constant tables (`vyre.lookup`) are no literals: their
words live in the kernel's table buffer (layout.py `TableBuffer`) and are loaded
from memory, which NIR cannot fold, so a table holding ±1.0 patterns needs no
shielding (test/unit/dialects/test_lookup.py reads the four wrong choices from a
table on the adapter). Not covered: a value NIR alone can prove constant
(through a `var` it propagates after unrolling a loop, say).
"""

from __future__ import annotations

import re

__all__ = ["ONE_PATTERNS", "shield", "uses_hazard"]

ONE_PATTERNS = (0x3F80_0000, 0xBF80_0000)
"""The bit patterns of +1.0 and -1.0 (binary32)."""

_U32_FORMS = tuple(f"0x{bits:x}u" for bits in ONE_PATTERNS)
_U32_DECIMAL = tuple(f"{bits}u" for bits in ONE_PATTERNS)
_I32_FORMS = ("1065353216i", "-1082130432i")

_LITERAL = re.compile(
    r"(?<![\w.])(?:"
    + "|".join(re.escape(form) for form in (*_U32_FORMS, *_U32_DECIMAL, *_I32_FORMS))
    + r")(?![\w.])"
)


def uses_hazard(wgsl: str) -> bool:
    """Whether the WGSL text holds a ±1.0-pattern literal."""
    return _LITERAL.search(wgsl) is not None


def shield(wgsl: str, zero: str) -> str:
    """Mix `zero` (a WGSL `u32` expression NIR cannot fold, always 0 at run time)
    into every ±1.0-pattern literal of the text. The literal keeps its type."""

    def opaque(match: re.Match[str]) -> str:
        literal = match.group(0)
        if literal.endswith("i"):
            return f"({literal} ^ bitcast<i32>({zero}))"
        return f"({literal} ^ {zero})"

    return _LITERAL.sub(opaque, wgsl)
