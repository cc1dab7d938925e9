"""WGSL identifiers for a lowered kernel: reserved words and a unique-name allocator.

Names from the IR are kept when they are valid WGSL identifiers that are neither
reserved nor already taken; otherwise they are sanitised (invalid characters become
`_`, a leading digit gets a `v_` prefix) and made unique with a numeric suffix.
Predeclared WGSL names (types and built-in functions) are treated as reserved too,
because shadowing them would break the code the lowering itself emits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# WGSL keywords (spec section "Keyword Summary").
WGSL_KEYWORDS = frozenset(
    """alias break case const const_assert continue continuing default diagnostic discard
    else enable false fn for if let loop override requires return struct switch true var
    while""".split()
)

# WGSL reserved words (spec section "Reserved Words").
WGSL_RESERVED = frozenset(
    """NULL Self abstract active alignas alignof as asm asm_fragment async attribute auto
    await become binding_array cast catch class co_await co_return co_yield coherent
    column_major common compile compile_fragment concept const_cast consteval constexpr
    constinit crate debugger decltype delete demote demote_to_helper do dynamic_cast enum
    explicit export extends extern external fallthrough filter final finally friend from
    fxgroup get goto groupshared highp impl implements import inline instanceof interface
    layout lowp macro macro_rules match mediump meta mod module move mut mutable namespace
    new nil noexcept noinline nointerpolation non_coherent noncoherent noperspective null
    nullptr of operator package packoffset partition pass patch pixelfragment precise
    precision premerge priv protected pub public readonly ref regardless register
    reinterpret_cast require resource restrict self set shared sizeof smooth snorm static
    static_assert static_cast std subroutine super target template this thread_local throw
    trait try type typedef typeid typename typeof union unless unorm unsafe unsized use
    using varying virtual volatile wgsl where with writeonly yield""".split()
)

# Predeclared types, type generators and built-in functions: legal to shadow in WGSL,
# but the emitted code calls them, so no user name may take them.
WGSL_PREDECLARED = frozenset(
    """bool f16 f32 i32 u32 vec2 vec3 vec4 vec2i vec3i vec4i vec2u vec3u vec4u vec2f vec3f
    vec4f vec2h vec3h vec4h mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4
    array atomic ptr sampler sampler_comparison texture_1d texture_2d texture_2d_array
    texture_3d texture_cube texture_cube_array texture_multisampled_2d
    texture_storage_1d texture_storage_2d texture_storage_2d_array texture_storage_3d
    texture_depth_2d texture_depth_2d_array texture_depth_cube texture_depth_cube_array
    texture_depth_multisampled_2d texture_external read write read_write function private
    workgroup uniform storage
    all any select arrayLength bitcast abs clamp max min sign countLeadingZeros
    countOneBits countTrailingZeros extractBits insertBits firstLeadingBit
    firstTrailingBit reverseBits dot atomicLoad atomicStore atomicAdd atomicSub atomicMax
    atomicMin atomicAnd atomicOr atomicXor atomicExchange atomicCompareExchangeWeak
    workgroupBarrier storageBarrier textureBarrier workgroupUniformLoad
    pack4x8snorm pack4x8unorm unpack4x8snorm unpack4x8unorm""".split()
)

RESERVED_IDENTIFIERS = WGSL_KEYWORDS | WGSL_RESERVED | WGSL_PREDECLARED

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_valid_identifier(name: str) -> bool:
    """A WGSL identifier we may declare: ASCII, not `_`, no `__` prefix, not reserved."""
    return (
        _IDENTIFIER.fullmatch(name) is not None
        and name != "_"
        and not name.startswith("__")
        and name not in RESERVED_IDENTIFIERS
    )


def sanitise(name: str) -> str:
    """The closest valid identifier to `name` (not yet made unique)."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    text = re.sub(r"__+", "_", text)
    if not text or text == "_":
        text = "v"
    if text[0].isdigit():
        text = "v_" + text
    if text in RESERVED_IDENTIFIERS:
        text = text + "_"
    return text


@dataclass
class Namer:
    """Allocates unique WGSL identifiers; `claim` keeps a name when it can.

    Each base name remembers the last suffix it tried, so claiming the same name
    n times costs O(n) in all, not O(n**2) (a 100k-node program reuses a few
    hints thousands of times)."""

    taken: set[str] = field(default_factory=lambda: set[str]())
    _next: dict[str, int] = field(default_factory=lambda: dict[str, int]())
    """Base name -> the next suffix to try."""

    def claim(self, wanted: str) -> str:
        base = wanted if is_valid_identifier(wanted) else sanitise(wanted)
        name = base
        if name in self.taken or not is_valid_identifier(name):
            suffix = self._next.get(base, 1)
            name = f"{base}_{suffix}"
            while name in self.taken or not is_valid_identifier(name):
                suffix += 1
                name = f"{base}_{suffix}"
            self._next[base] = suffix + 1
        self.taken.add(name)
        return name

    def temporary(self, hint: str | None) -> str:
        """A fresh name for a lowering temporary: the SSA name hint, else `tN`."""
        if hint:
            return self.claim(hint)
        index = self._next.get("", 0)
        while f"t{index}" in self.taken:
            index += 1
        self._next[""] = index + 1
        name = f"t{index}"
        self.taken.add(name)
        return name


def comment_safe(text: str) -> str:
    """`text` for a WGSL line comment: control and non-ASCII characters (every WGSL
    line break among them) escaped, so a name can never end the comment."""
    return text.encode("unicode_escape").decode("ascii")
