"""The binding layout of a lowered kernel: what the runtime binds and uploads.

All resources live in bind group 0.

- Every read_only / read_write buffer is a storage buffer at its declared binding:
  `array<T>` with T = u32 (U32, Bool as 0/1, Bytes as packed words), i32 (I32),
  vec2<u32> (U64 lo/hi, Vec2U32) or vec4<u32> (Vec4U32, U128); a read_write buffer that
  any atomic touches is `array<atomic<u32>>`. The host words are uploaded as is.
- Float buffers never have a WGSL float type: F32 is `array<u32>` (one bit
  pattern per word); F16 and BF16 pack TWO elements per word, element 2k in bits
  0-15 and element 2k + 1 in bits 16-31, so n elements take ceil(n / 2) words.
  A read_write F16/BF16 buffer that a store touches is `array<atomic<u32>>`: a
  store replaces its half with a compare-exchange loop on the word (guards.py), so
  a neighbour stored at the same time by another invocation is never lost.
- Every uniform buffer is `array<vec4<u32>, 4096>` (64 KiB, the WebGPU default
  limit): the host words packed four per vec4, in order, so u32-sized element i is
  lane i % 4 of vec4 i / 4, a 2-word element i is lanes 2(i % 2), 2(i % 2) + 1 of
  vec4 i / 2, a Vec4U32 or U128 element i is vec4 i, and an F16/BF16 element i is half
  i % 2 of word i / 2. The runtime uploads the words as is into a 64 KiB buffer.
- `_vyre_meta` is a uniform struct of u32 words at binding `max(binding) + 1`
  (0 without buffers): words 0..2 are the workgroup-id offset (x, y, z) of the
  dispatch slice (the runtime splits dispatches over 65,535 workgroups per axis),
  word 3 + k is the logical element count of `buffers[k]` (storage and uniform
  buffers, in declaration order; for F16/BF16 the element count, not the words). Logical counts, not `arrayLength`, bound every
  access, because the runtime allocates at least one element for empty buffers.
- The vectorised lowering of an elementwise map (vector.py) declares the buffers
  it accesses at the element index as `array<vec4<u32>>` (`vec4<i32>` for I32;
  `array<vec2<u32>>` for F16/BF16): the same words, read and written a chunk of
  four elements at a time (the runtime allocates every
  storage buffer in whole 16-byte units, so the binding size is a multiple of
  16); its meta uniform ends with `virtual_count` and `vector_end`.
- Where loops are checked (options.py `loop_limit`), a kernel that has a loop
  binds the loop status word at `meta binding + 1` (the meta uniform takes the
  binding after the buffers' highest; where that passes 2**32 - 1, the two take
  the smallest numbers no buffer uses, wgsl.py `_internal_bindings`):
  `var<storage, read_write> _vyre_status: array<atomic<u32>>` (16 bytes, the
  device's one status buffer; non-zero after a run: a loop was stopped).
- The constant tables a kernel reads (`vyre.lookup`: the correctly rounded
  functions' constants) live in ONE read-only storage buffer,
  `var<storage, read> vyre_tables: array<u32>` at `meta binding + 2` (after the
  loop status word's slot, bound or not; `_internal_bindings` again where that
  passes 2**32 - 1): every distinct table of the module, concatenated in the order
  first read (`TableBuffer.words`). Each table's accessor reads
  `vyre_tables[offset + min(i, len - 1)]`, 0 past the table's end (guards.py). The
  runtime uploads the words once per distinct table set and binds that buffer
  with every dispatch of the kernel (a storage read, never a dynamically indexed
  `const` array, which naga copies into function-local memory on every access).
- Workgroup buffers are `var<workgroup>` arrays of their declared count (floats
  of every width: one element per `u32`). A workgroup buffer that any atomic
  touches (validation admits atomics only on U32 ones) is
  `var<workgroup> name: array<atomic<u32>, N>`; every plain load and store of it
  is then an `atomicLoad` / `atomicStore` (guards.py), and so is the zeroing at
  kernel start. docs/kernels.md ("Workgroup atomics") gives the semantics.
"""

from __future__ import annotations

from dataclasses import dataclass

from vyre.dialects.vyre import AccessKind, DataTypeKind
from vyre.lowering.values import HALF_KINDS

UNIFORM_CAPACITY_VEC4 = 4096
"""Uniform buffers are declared `array<vec4<u32>, 4096>`: 64 KiB, 16,384 words."""

UNIFORM_CAPACITY_WORDS = UNIFORM_CAPACITY_VEC4 * 4

META_OFFSET_WORDS = 3
"""Words 0..2 of the meta uniform: workgroup-id offset x, y, z."""

WORDS_PER_ELEMENT: dict[DataTypeKind, int] = {kind: kind.facts.words for kind in DataTypeKind}
"""Words per element of a workgroup array, and of a storage/uniform buffer except
F16/BF16 ones, which pack two elements per word (`BufferBinding.word_count`)."""

STORAGE_ELEMENT_TYPES: dict[DataTypeKind, str] = {kind: kind.facts.wgsl for kind in DataTypeKind}
"""The WGSL element type of a storage or workgroup array: the type facts' `wgsl`
(Bytes as packed `u32` words, floats as `u32` bit patterns)."""


@dataclass(frozen=True)
class BufferBinding:
    """A storage or uniform buffer of the kernel and how the runtime binds it."""

    name: str
    """The vyre buffer name (the key of the host `words` dict)."""
    wgsl_name: str
    binding: int
    access: AccessKind
    element: DataTypeKind
    atomic: bool
    """Declared `array<atomic<u32>>` because an atomic touches it."""
    meta_word: int
    """Index of its logical element count in the meta uniform."""
    vector: bool = False
    """Declared `array<vec4<u32>>` (`vec4<i32>` for I32) by the vectorised
    lowering of a map kernel (vector.py): element i of a one-word type is lane
    i % 4 of vec4 i / 4; an F16/BF16 buffer is `array<vec2<u32>>`, element i
    half i % 2 of lane (i / 2) % 2 of vec2 i / 4."""

    @property
    def words_per_element(self) -> int:
        """Words of one element; 1 for F16/BF16, which pack two elements per word
        (`packed_halves`, `word_count`)."""
        return WORDS_PER_ELEMENT[self.element]

    @property
    def packed_halves(self) -> bool:
        """F16/BF16: two elements per word, element 2k in the low half."""
        return self.element in HALF_KINDS

    def word_count(self, count: int) -> int:
        """Words holding `count` elements."""
        if self.element in HALF_KINDS:
            return (count + 1) // 2
        return count * WORDS_PER_ELEMENT[self.element]

    @property
    def is_uniform(self) -> bool:
        return self.access == AccessKind.UNIFORM

    @property
    def wgsl_array_type(self) -> str:
        if self.is_uniform:
            return f"array<vec4<u32>, {UNIFORM_CAPACITY_VEC4}>"
        if self.atomic:
            return "array<atomic<u32>>"
        if self.vector:
            return f"array<{self.vector_type}>"
        return f"array<{STORAGE_ELEMENT_TYPES[self.element]}>"

    @property
    def vector_type(self) -> str:
        """The WGSL type of one chunk of a `vector` buffer (four elements)."""
        if self.packed_halves:
            return "vec2<u32>"
        return "vec4<i32>" if self.element == DataTypeKind.I32 else "vec4<u32>"

    @property
    def wgsl_declaration(self) -> str:
        space = {
            AccessKind.READ_ONLY: "storage, read",
            AccessKind.READ_WRITE: "storage, read_write",
            AccessKind.UNIFORM: "uniform",
        }[self.access]
        return (
            f"@group(0) @binding({self.binding}) var<{space}> "
            f"{self.wgsl_name}: {self.wgsl_array_type};"
        )


@dataclass(frozen=True)
class WorkgroupArray:
    """A workgroup buffer: `var<workgroup> name: array<T, count>`, with
    T = `atomic<u32>` when an atomic touches it (`atomic`)."""

    name: str
    wgsl_name: str
    element: DataTypeKind
    count: int
    atomic: bool = False
    """Declared `array<atomic<u32>, count>` because an atomic touches it: every
    access to it is then an atomic builtin (atomicLoad/atomicStore/atomicAdd...)."""

    @property
    def wgsl_element_type(self) -> str:
        if self.atomic:
            return "atomic<u32>"
        return STORAGE_ELEMENT_TYPES[self.element]

    @property
    def size_bytes(self) -> int:
        return self.count * WORDS_PER_ELEMENT[self.element] * 4

    @property
    def wgsl_declaration(self) -> str:
        return f"var<workgroup> {self.wgsl_name}: array<{self.wgsl_element_type}, {self.count}>;"


@dataclass(frozen=True)
class TableBuffer:
    """The constant tables of a kernel, concatenated into one read-only storage
    buffer that the runtime makes once per distinct `words` and binds at `binding`."""

    binding: int
    wgsl_name: str
    words: tuple[int, ...]
    """Every distinct table the kernel reads, concatenated (u32 words)."""

    @property
    def wgsl_declaration(self) -> str:
        return (
            f"@group(0) @binding({self.binding}) var<storage, read> "
            f"{self.wgsl_name}: array<u32>;"
        )


@dataclass(frozen=True)
class MetaLayout:
    """The internal uniform `_vyre_meta`: dispatch offset and logical counts."""

    binding: int
    wgsl_name: str
    struct_name: str
    length_fields: tuple[str, ...]
    """Struct field of each buffer's count, in the order of the kernel's buffers."""
    extra_fields: tuple[str, ...] = ()
    """Fields after the counts (the vectorised lowering's `virtual_count` and
    `vector_end`, vector.py), packed from `pack(..., extra=...)`."""
    opaque_zero: bool = False
    """A last field `opaque_zero`, always 0 (`pack` pads with zeros): a value no
    shader compiler can fold, which opaque_constants.py mixes into the literals
    that Mesa's NIR would otherwise rewrite."""

    @property
    def words(self) -> int:
        zero = 1 if self.opaque_zero else 0
        return META_OFFSET_WORDS + len(self.length_fields) + len(self.extra_fields) + zero

    @property
    def size_bytes(self) -> int:
        """The struct size rounded up to 16 bytes (what the runtime allocates)."""
        return -(-self.words * 4 // 16) * 16

    def pack(
        self,
        workgroup_offset: tuple[int, int, int],
        counts: tuple[int, ...],
        extra: tuple[int, ...] = (),
    ) -> list[int]:
        """The meta words for one dispatch slice (`counts` in buffer order, then
        the `extra_fields`)."""
        if len(counts) != len(self.length_fields):
            raise ValueError(
                f"meta layout has {len(self.length_fields)} buffer counts, got {len(counts)}"
            )
        if len(extra) != len(self.extra_fields):
            raise ValueError(
                f"meta layout has {len(self.extra_fields)} extra words, got {len(extra)}"
            )
        words = [*workgroup_offset, *counts, *extra]
        return words + [0] * (self.size_bytes // 4 - len(words))

    def struct_declaration(self) -> str:
        fields = [
            "wg_offset_x", "wg_offset_y", "wg_offset_z", *self.length_fields, *self.extra_fields,
            *(("opaque_zero",) if self.opaque_zero else ()),
        ]
        body = "".join(f"  {field}: u32,\n" for field in fields)
        return f"struct {self.struct_name} {{\n{body}}}"

    def declaration(self) -> str:
        return (
            f"@group(0) @binding({self.binding}) var<uniform> "
            f"{self.wgsl_name}: {self.struct_name};"
        )

    def offset_vector(self) -> str:
        m = self.wgsl_name
        return f"vec3<u32>({m}.wg_offset_x, {m}.wg_offset_y, {m}.wg_offset_z)"
