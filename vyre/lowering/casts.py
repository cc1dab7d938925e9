"""The cast table (docs/semantics.md), as WGSL.

| source          | target            | WGSL                                              |
|-----------------|-------------------|---------------------------------------------------|
| any             | same type         | the value itself                                  |
| U32 / Bool      | I32               | `bitcast<i32>(v)`                                 |
| I32             | U32               | `bitcast<u32>(v)`                                 |
| Bool            | U32               | the value (Bool already is a u32 0/1)             |
| U32             | Bool              | `u32(v != 0u)`                                    |
| I32             | Bool              | `u32(v != 0i)`                                    |
| U32 / Bool      | U64               | `vec2<u32>(v, 0u)` (zero-extend)                  |
| I32             | U64               | `vec2<u32>(bitcast<u32>(v), select(0u, M, v < 0i))`, M = 0xffffffffu |
| U32 / Bool      | Vec2U32 / Vec4U32 | `vec2<u32>(v)` / `vec4<u32>(v)` (splat)           |
| I32             | Vec2U32 / Vec4U32 | splat of `bitcast<u32>(v)`                        |
| U64 / Vec2U32   | U64 / Vec2U32     | the value (same `vec2<u32>` layout)               |
| U64, Vec*, U128 | U32               | `v.x`                                             |
| U64, Vec*, U128 | I32               | `bitcast<i32>(v.x)`                               |
| U64, Vec*, U128 | Bool              | `u32(any(v != vecN<u32>()))`                      |
| Vec4U32, U128   | U64 / Vec2U32     | `v.xy`                                            |
| U32 / Bool      | U128              | `vec4<u32>(v, 0u, 0u, 0u)` (zero-extend)          |
| I32             | U128              | `vec4<u32>(bitcast<u32>(v), vec3<u32>(select(0u, M, v < 0i)))` |
| U64 / Vec2U32   | U128              | `vec4<u32>(v, 0u, 0u)` (zero-extend)              |
| Vec4U32 / U128  | U128 / Vec4U32    | the value (same `vec4<u32>` layout)               |

Everything else (casts into or out of Bytes, widening a vector) is rejected by
validation (V012, V023); reaching it here raises `LoweringError`.

A float VALUE cast (U32/I32 <-> F32/F16/BF16, between floats) is arithmetic:
the float-strict pass turns it into integer code before lowering, and
`lower_cast` raises `LoweringError` if one is left.

Bitcasts (`vyre.bitcast`, `lower_bitcast`) reinterpret bits; every float value
is a `u32` word (values.py), so:

| source     | target     | WGSL                                      |
|------------|------------|-------------------------------------------|
| any        | same type  | the value itself                          |
| U32        | I32        | `bitcast<i32>(v)`                         |
| I32        | U32        | `bitcast<u32>(v)`                         |
| F32        | U32        | the value (same word)                     |
| U32        | F32        | the value (same word)                     |
| F32        | I32        | `bitcast<i32>(v)`                         |
| I32        | F32        | `bitcast<u32>(v)`                         |
| U32        | F16 / BF16 | `v & 0xffffu` (the low 16 bits)           |
| I32        | F16 / BF16 | `bitcast<u32>(v) & 0xffffu`               |
| F16 / BF16 | U32        | the value (already zero-extended)         |
| F16 / BF16 | I32        | `bitcast<i32>(v)`                         |

Constants are folded to literals. Other pairs (F32 <-> F16, F16 <-> BF16, any
other type) are not bitcasts (V142) and raise `LoweringError`.
"""

from __future__ import annotations

from vyre.dialects.vyre import DataTypeKind
from vyre.dialects.vyre import bitcast_defined, fold_cast
from vyre.lowering.values import (
    FLOAT_KINDS,
    HALF_KINDS,
    LANES,
    LoweringError,
    Value,
    float_arithmetic_error,
    wgsl_type,
)

U32 = DataTypeKind.U32
I32 = DataTypeKind.I32
BOOL = DataTypeKind.BOOL
U64 = DataTypeKind.U64
VEC2 = DataTypeKind.VEC2U32
VEC4 = DataTypeKind.VEC4U32
U128 = DataTypeKind.U128


def _unsupported(source: DataTypeKind, target: DataTypeKind) -> LoweringError:
    return LoweringError(
        f"vyre lowering: unsupported cast from `{source.value}` to `{target.value}`. "
        'Fix: use a conversion of the cast table (docs/semantics.md, "Casts").'
    )


def lower_cast(value: Value, target: DataTypeKind) -> Value:
    """`cast(target, value)` per the cast table."""
    source = value.kind
    if source == target:
        return value
    if source in FLOAT_KINDS or target in FLOAT_KINDS:
        raise float_arithmetic_error(
            f"a float value cast `{source.value}` -> `{target.value}`"
        )
    if source not in LANES or target not in LANES:
        raise _unsupported(source, target)
    if value.const is not None:
        lanes = fold_cast(source, value.const, target)
        if lanes is None:
            raise _unsupported(source, target)
        return Value.constant(target, lanes)
    if LANES[source] == 1:
        return _from_scalar(value, target)
    return _from_vector(value, target)


def _from_scalar(value: Value, target: DataTypeKind) -> Value:
    source = value.kind
    signed = source == I32
    word = Value.derived(f"bitcast<u32>({value.text})", U32, value) if signed else value
    match target:
        case DataTypeKind.U32:
            return word.retyped(U32)
        case DataTypeKind.I32:
            return Value.derived(f"bitcast<i32>({value.text})", I32, value)
        case DataTypeKind.BOOL:
            test = f"{value.operand} != {'0i' if signed else '0u'}"
            return Value.derived(f"u32({test})", BOOL, value, condition=test)
        case DataTypeKind.U64 | DataTypeKind.U128:
            high = f"select(0u, 0xffffffffu, {value.operand} < 0i)" if signed else "0u"
            if target == U64:
                return Value.derived(f"vec2<u32>({word.text}, {high})", U64, value)
            if signed:  # the sign word three times: computed once
                return Value.derived(f"vec4<u32>({word.text}, vec3<u32>({high}))", U128, value)
            return Value.derived(f"vec4<u32>({word.text}, 0u, 0u, 0u)", U128, value)
        case _:
            return Value.derived(f"{wgsl_type(target)}({word.text})", target, value)


def _from_vector(value: Value, target: DataTypeKind) -> Value:
    source = value.kind
    match target:
        case DataTypeKind.U32:
            return Value.derived(f"{value.operand}.x", U32, value)
        case DataTypeKind.I32:
            return Value.derived(f"bitcast<i32>({value.operand}.x)", I32, value)
        case DataTypeKind.BOOL:
            test = f"any({value.operand} != {wgsl_type(source)}())"
            return Value.derived(f"u32({test})", BOOL, value, condition=test)
        case DataTypeKind.U64 | DataTypeKind.VEC2U32 if LANES[source] == 2:
            return value.retyped(target)
        case DataTypeKind.U64 | DataTypeKind.VEC2U32 if LANES[source] == 4:
            return Value.derived(f"{value.operand}.xy", target, value)
        case DataTypeKind.VEC4U32 if source == U128:
            return value.retyped(target)
        case DataTypeKind.U128 if source == VEC4:
            return value.retyped(target)
        case DataTypeKind.U128 if LANES[source] == 2:
            return Value.derived(f"vec4<u32>({value.text}, 0u, 0u)", U128, value)
        case _:
            raise _unsupported(source, target)


def lower_bitcast(value: Value, target: DataTypeKind) -> Value:
    """`bitcast(target, value)` per the table above (floats are `u32` words)."""
    source = value.kind
    if source == target:
        return value
    if not bitcast_defined(source, target):
        raise LoweringError(
            f"vyre lowering: no bitcast from `{source.value}` to `{target.value}`. "
            "Fix: bitcast between f32, u32 and i32, or between f16/bf16 and u32/i32 (V142)."
        )
    if value.const is not None:
        word = value.const[0] & 0xFFFF_FFFF
        if target in HALF_KINDS:
            word &= 0xFFFF
        return Value.constant(target, (word,))
    if target == I32:
        # every other source is a u32 word (F16/BF16 zero-extended)
        return Value.derived(f"bitcast<i32>({value.text})", I32, value)
    word = Value.derived(f"bitcast<u32>({value.text})", U32, value) if source == I32 else value
    if target in HALF_KINDS:  # from u32 or i32: the low 16 bits
        return Value.derived(f"{word.operand} & 0xffffu", target, word, atomic=False)
    return word.retyped(target)
