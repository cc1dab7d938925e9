"""WGSL values during lowering: expression text, vyre type, known constant, read set.

Every vyre value has one WGSL representation: U32 -> `u32`, I32 -> `i32`,
Bool -> `u32` holding 0 or 1, U64 and Vec2U32 -> `vec2<u32>` (lane 0 = low word),
Vec4U32 -> `vec4<u32>`, and the strict floats F32, F16 and BF16 -> `u32` holding
their bit pattern (F16/BF16 in the low 16 bits, the upper 16 bits zero). Bytes has
no value form (only buffers hold bytes).

No WGSL float type or float operation is ever emitted: WGSL lets an
implementation flush subnormals in any float operation (bitcast and pack
intermediates included), so float values live in `u32` words and all float
arithmetic is integer code by the time it reaches the emitter (the float-strict
pass of `vyre.pipeline.prepare`).
"""

from __future__ import annotations

from dataclasses import dataclass

from vyre.dialects.vyre import DataTypeKind

U32_MASK = 0xFFFF_FFFF

VALUE_TYPES: dict[DataTypeKind, str] = {
    kind: kind.facts.wgsl for kind in DataTypeKind if kind.lanes
}
"""The WGSL type of each value type (the type facts' `wgsl`)."""

LANES: dict[DataTypeKind, int] = {kind: kind.lanes for kind in DataTypeKind if kind.lanes}

FLOAT_KINDS = frozenset(kind for kind in DataTypeKind if kind.is_float)
HALF_KINDS = frozenset(kind for kind in DataTypeKind if kind.facts.half)
"""16-bit floats: one value is the low half of a `u32`; storage and uniform
buffers pack two elements per word (layout.py)."""


class LoweringError(ValueError):
    """A program the WGSL lowering cannot express (after validation passed)."""


FLOAT_STRICT_FIX = "Fix: run the float-strict pass (vyre.pipeline.prepare does)."


def float_arithmetic_error(what: str) -> LoweringError:
    """The error for float arithmetic (or a float value cast) reaching the emitter."""
    return LoweringError(
        f"vyre lowering: {what} reached the WGSL emitter, which emits no float "
        "operation (WGSL may flush subnormals in any of them; floats are carried as "
        f"u32 bit patterns and computed in integer code). {FLOAT_STRICT_FIX}"
    )


def wgsl_type(kind: DataTypeKind) -> str:
    """The WGSL type that holds a vyre value of this type."""
    if kind not in VALUE_TYPES:
        raise LoweringError(
            f"vyre lowering: a `{kind.value}` value has no WGSL form. "
            "Fix: use buffer load/store on typed buffers instead of byte values."
        )
    return VALUE_TYPES[kind]


def zero_value(kind: DataTypeKind) -> str:
    """The WGSL zero of a value type: `0u`, `0i`, `vec2<u32>()`..."""
    if kind == DataTypeKind.I32:
        return "0i"
    if LANES.get(kind) == 1:
        return "0u"
    return f"{wgsl_type(kind)}()"


def storage_zero(element_type: str) -> str:
    """The WGSL zero of a buffer element type (`u32`, `i32`, `vec2<u32>`...)."""
    return {"u32": "0u", "i32": "0i"}.get(element_type, f"{element_type}()")


def u32_literal(value: int) -> str:
    value &= U32_MASK
    return f"{value}u" if value < 0x10000 else f"0x{value:x}u"


def i32_literal(bits: int) -> str:
    """An i32 literal for a 32-bit pattern; never the unrepresentable `-2147483648i`."""
    bits &= U32_MASK
    if bits == 0x8000_0000:
        return "bitcast<i32>(0x80000000u)"
    signed = bits - (1 << 32) if bits & 0x8000_0000 else bits
    return f"{signed}i" if signed >= 0 else f"-{-signed}i"


@dataclass(slots=True)
class Value:
    """A lowered vyre value.

    `text` is a WGSL expression; `const` holds the lanes (u32 bit patterns) when the
    value is a compile-time constant; `buffers`/`locals` name the memory the text
    reads, so that the emitter can evaluate it before anything overwrites that
    memory; `atomic` says the text needs no parentheses as an operand; `cheap`
    says it may be repeated at every use (identifiers, member accesses, literals).

    Treated as immutable; not frozen because a frozen dataclass is several
    times slower to make, and the emitter makes one per expression op.
    """

    text: str
    kind: DataTypeKind
    const: tuple[int, ...] | None = None
    buffers: frozenset[str] = frozenset()
    locals: frozenset[str] = frozenset()
    atomic: bool = True
    cheap: bool = False
    condition: str | None = None
    """For 0/1 values built from a comparison: the WGSL bool it converts."""

    @property
    def reads_memory(self) -> bool:
        return bool(self.buffers or self.locals)

    @property
    def operand(self) -> str:
        """The text, parenthesised when it is a compound operator expression."""
        return self.text if self.atomic else f"({self.text})"

    @staticmethod
    def constant(kind: DataTypeKind, lanes: tuple[int, ...]) -> Value:
        lanes = tuple(lane & U32_MASK for lane in lanes)
        if kind == DataTypeKind.I32:
            text = i32_literal(lanes[0])
            return Value(text, kind, lanes, atomic=not text.startswith("-"), cheap=True)
        if LANES[kind] == 1:
            return Value(u32_literal(lanes[0]), kind, lanes, cheap=True)
        parts = ", ".join(u32_literal(lane) for lane in lanes)
        return Value(f"{wgsl_type(kind)}({parts})", kind, lanes, cheap=True)

    @staticmethod
    def derived(
        text: str,
        kind: DataTypeKind,
        *operands: Value,
        atomic: bool = True,
        condition: str | None = None,
    ) -> Value:
        """A value computed from `operands`: it reads whatever they read."""
        buffers: frozenset[str] = frozenset()
        local_names: frozenset[str] = frozenset()
        for operand in operands:
            buffers |= operand.buffers
            local_names |= operand.locals
        return Value(text, kind, None, buffers, local_names, atomic, False, condition)

    def retyped(self, kind: DataTypeKind) -> Value:
        """The same WGSL value seen as another vyre type with the same representation."""
        return Value(
            self.text,
            kind,
            self.const,
            self.buffers,
            self.locals,
            self.atomic,
            self.cheap,
            self.condition,
        )
