"""The vectorised entry point of an elementwise map kernel (map_shape.py).

A map kernel's body runs once per *virtual* invocation: the element index
`idx` in `[0, n)` (`n`, the virtual count, comes from the run's dispatch:
`MapShape.virtual_count`). The vectorised lowering emits the body once, as a
lane function `fn lane(idx, <the elements at idx>)`, and an entry point in
which each real invocation runs `ELEMENTS` = 8 virtual invocations: two
*chunks* of CHUNK = 4 consecutive elements, strided by the workgroup size.
Real invocation l of workgroup g takes chunks `c_u = g * 512 + u * 256 + l`
(u = 0, 1), i.e. elements `4 c_u .. 4 c_u + 3`: the 256 invocations of a
workgroup read one chunk each per access, so every vec4 load and store of a
warp covers 512 consecutive bytes (measured on the H100, bench/wgsl_variants.py:
xor at 2,683 GB/s in this shape against 2,419 with each invocation's two vec4s
adjacent, and workgroups of 256 keep 64 Mi elements within one dispatch);

- the buffers the body accesses at `idx` (the *vector buffers*) are declared
  `array<vec4<u32>>` (`vec4<i32>` for I32), F16/BF16 ones `array<vec2<u32>>`
  (layout.py): a chunk of a one-word type is one vec4, of a half type one
  vec2 (two words of two halves);
- a read-only element is passed to the lane by value; a written buffer's
  element lives in a function variable passed by pointer: the lane's loads
  read it, its stores write it (no-op at or past the buffer's logical length,
  exactly as a store to memory), and the entry point writes the variables back
  with whole-chunk stores after the 8 lanes ran. The variable starts with the
  element's stored word, unless the buffer is *overwritten* (its old content is
  never observed: MapShape.overwritten), then its old words are not read;
- a *periodic* buffer (map_shape.py: read only at `idx mod C`, C a multiple of
  4) is declared `array<vec4<u32>>` as well and read on the fast path as the
  chunk `c mod (C / 4)`: elements 4c .. 4c + 3 are at 4(c mod C/4) + 0..3
  modulo C, since 4 divides C; the host sets `vector_end` to 0 (every lane
  guarded) when the buffer holds fewer than C elements, and the scalar tail
  reads element `idx mod C` through its guard, as the scalar kernel does;
- fast path: when the invocation's last chunk ends at or before `vector_end`
  (`c_1 < vector_end / 4`; the host computes `vector_end = min(n, logical
  length of every vector buffer)`), every one of the 8 elements exists in every
  vector buffer, so the chunk accesses are exact;
- scalar tail: otherwise, each lane `v < n` loads its elements with the OOB
  guards (0 at or past a buffer's length), runs, and stores each written
  element with the store guard (an F16/BF16 half by a plain read-modify-write
  of its word: the invocation owns all of the word's elements).

Byte-identical to the scalar kernel: virtual invocation `idx` reads and writes
only element `idx` of the written buffers (the map property), so giving each a
private copy of its elements and writing them back at the end changes nothing;
every load and store keeps its guard against the logical lengths; elements no
virtual invocation owns (past `n`) are never touched; F16/BF16 words are owned
by one invocation (a chunk holds whole words), so they need no atomics. The
chunks of all workgroups are distinct and cover `[0, 4 * chunks)`, so every
virtual invocation runs exactly once; chunk indices stay below 2^30 (at most
2^21 workgroups for n < 2^32), so no element index wraps.

The runtime dispatches `ceil(n / (8 * WORKGROUP))` workgroups of `WORKGROUP`
invocations along x (split at the per-axis limit like any dispatch: past
65,535 x 2,048 = 128 Mi elements) and puts `n` and `vector_end` in the meta
uniform (`virtual_count`, `vector_end`).
"""

from __future__ import annotations

from dataclasses import dataclass

from vyre.dialects.vyre import DataTypeKind
from vyre.lowering.layout import BufferBinding, MetaLayout
from vyre.lowering.map_shape import MapShape
from vyre.lowering.names import Namer
from vyre.lowering.values import wgsl_type

__all__ = ["CHUNK", "ELEMENTS", "UNITS", "META_FIELDS", "WORKGROUP", "LaneSignature", "VectorLayout", "entry_lines"]

CHUNK = 4
"""Consecutive elements per chunk: one vec4 of one-word elements, one vec2 of
F16/BF16 halves."""
UNITS = 2
"""Chunks per real invocation, strided by the workgroup size."""
ELEMENTS = CHUNK * UNITS
"""Virtual invocations (elements) per real invocation."""
WORKGROUP = 256
"""Real invocations per workgroup of a vectorised kernel."""
META_FIELDS = ("virtual_count", "vector_end")
"""The extra meta words of a vectorised kernel (layout.py `MetaLayout.extra_fields`)."""


@dataclass(frozen=True)
class VectorLayout:
    """How the runtime dispatches a vectorised map kernel."""

    row: int | None
    """The index form (map_shape.py): None for `idx = id.x`, else the row width."""
    program_workgroup: tuple[int, int, int]
    """The program's workgroup size (which, with the dispatch, gives n)."""
    buffers: tuple[str, ...]
    """The vector buffers (their lengths bound `vector_end`)."""
    periodic: tuple[tuple[str, int], ...] = ()
    """(buffer, C) of the periodic buffers (MapShape.periodic): the fast path
    reads one as vec4 chunks at `chunk mod (C / 4)`, so it runs only where every
    index below C exists (the runtime sets `vector_end` to 0 otherwise)."""
    overwritten: tuple[str, ...] = ()
    """Outputs every virtual invocation stores unconditionally before reading
    them (MapShape.overwritten): with n >= their length, every element is
    written and their old content is never observed (the runtime need not
    clear a fresh one)."""
    elements: int = ELEMENTS
    workgroup: int = WORKGROUP

    def virtual_count(self, dispatch: tuple[int, int, int]) -> int | None:
        """n for this dispatch, or None when the dispatch does not give every
        index in [0, n) exactly once (then the scalar kernel runs)."""
        wx, wy, wz = self.program_workgroup
        gx, gy, gz = dispatch
        if self.row is None:
            return gx * wx if gy * wy * gz * wz == 1 else None
        if gz * wz != 1 or self.row != gx * wx:
            return None
        return self.row * gy * wy

    def groups(self, virtual_count: int) -> int:
        """Real workgroups for n virtual invocations."""
        per_group = self.elements * self.workgroup
        return -(-virtual_count // per_group)


@dataclass(frozen=True)
class LaneSignature:
    """The lane function's parameters."""

    function: str
    index: str
    values: dict[str, str]
    """Buffer -> parameter holding its element at idx (read, never written)."""
    pointers: dict[str, str]
    """Buffer -> `ptr<function, T>` parameter of its element (written)."""

    @staticmethod
    def of(namer: Namer, shape: MapShape) -> LaneSignature:
        function = namer.claim("vyre_lane")
        index = namer.claim("idx")
        values: dict[str, str] = {}
        pointers: dict[str, str] = {}
        for name in shape.vector_buffers:
            if name in shape.written:
                pointers[name] = namer.claim(f"{name}_element")
            elif name in shape.loaded:
                values[name] = namer.claim(f"{name}_element")
        for name in shape.periodic:
            values[name] = namer.claim(f"{name}_element")
        return LaneSignature(function, index, values, pointers)

    def header(self, bindings: dict[str, BufferBinding]) -> str:
        params = [f"{self.index}: u32"]
        for name, param in self.values.items():
            params.append(f"{param}: {wgsl_type(bindings[name].element)}")
        for name, param in self.pointers.items():
            params.append(f"{param}: ptr<function, {_word_type(bindings[name])}>")
        return f"fn {self.function}({', '.join(params)}) {{"

    def arguments(self, index: str, elements: dict[str, str]) -> str:
        """The call of the lane with the given index and element texts
        (values as WGSL expressions, pointers as variable names)."""
        args = [index]
        args += [elements[name] for name in self.values]
        args += [f"&{elements[name]}" for name in self.pointers]
        return f"{self.function}({', '.join(args)});"


def _word_type(binding: BufferBinding) -> str:
    """The type a lane keeps an element in: as stored (Bool as its word)."""
    if binding.element == DataTypeKind.I32:
        return "i32"
    return "u32"


def _zero(binding: BufferBinding) -> str:
    """The zero a lane variable of this buffer starts from when its old word is
    not read (an overwritten output: the value is never observed, except as 0
    at or past the buffer's length, where stores do nothing)."""
    return "0i" if binding.element == DataTypeKind.I32 else "0u"


def lane_load(binding: BufferBinding, pointer: str) -> str:
    """The vyre value of the element behind a lane pointer."""
    if binding.element == DataTypeKind.BOOL:
        return f"u32((*{pointer}) != 0u)"
    return f"(*{pointer})"


def entry_lines(
    *,
    namer: Namer,
    shape: MapShape,
    lane: LaneSignature,
    bindings: dict[str, BufferBinding],
    meta: MetaLayout,
    tail_load: dict[str, str],
    tail_store: dict[str, str],
) -> tuple[list[str], list[str]]:
    """(entry parameters, entry body lines) of the vectorised kernel.
    `tail_load[b]` / `tail_store[b]` name the guarded element helpers of each
    vector buffer (`f(i)` returns the element as a lane keeps it; `g(i, v)`
    stores it)."""
    m = meta.wgsl_name
    group = namer.claim("dispatch_workgroup_id")
    local = namer.claim("local_id")
    chunk = namer.claim("chunk")
    params = [
        f"@builtin(workgroup_id) {group}: vec3<u32>",
        f"@builtin(local_invocation_id) {local}: vec3<u32>",
    ]
    chunks = [chunk] + [namer.claim(f"chunk_{u}") for u in range(1, UNITS)]
    stride = f"{UNITS * WORKGROUP}u"
    lines = [
        f"let {chunk} = ({group}.x + {m}.wg_offset_x) * {stride} + {local}.x;",
        *(f"let {c} = {chunk} + {u * WORKGROUP}u;" for u, c in enumerate(chunks) if u),
        f"if ({chunk} * {CHUNK}u >= {m}.virtual_count) {{",
        "  return;",
        "}",
        f"if ({chunks[-1]} < ({m}.vector_end >> 2u)) {{",
    ]
    lines += ["  " + line for line in _fast_path(namer, shape, lane, bindings, chunks)]
    lines += ["  return;", "}"]
    lines += _tail(namer, shape, lane, bindings, meta, chunk, tail_load, tail_store)
    return params, lines


def _fast_path(
    namer: Namer,
    shape: MapShape,
    lane: LaneSignature,
    bindings: dict[str, BufferBinding],
    chunks: list[str],
) -> list[str]:
    lines: list[str] = []
    per_lane: list[dict[str, str]] = [{} for _ in range(ELEMENTS)]
    stores: list[str] = []
    for name, period in shape.periodic.items():  # chunk c holds elements 4c .. 4c + 3 of idx mod C
        binding = bindings[name]
        cycle = [f"({c} % {period // CHUNK}u)" for c in chunks]
        for k, text in enumerate(_lane_words(binding, namer, lines, binding.wgsl_name, cycle, True)):
            per_lane[k][name] = _lane_value(binding, text)
    for name in shape.vector_buffers:
        if name not in lane.values and name not in lane.pointers:
            continue
        binding = bindings[name]
        array = binding.wgsl_name
        loaded = name in lane.values or name not in shape.overwritten
        lanes = _lane_words(binding, namer, lines, array, chunks, loaded)
        if name in lane.values:
            for k, text in enumerate(lanes):
                per_lane[k][name] = _lane_value(binding, text)
            continue
        variables = [namer.claim(f"{name}_{k}") for k in range(ELEMENTS)]
        word_type = _word_type(binding)
        for k, variable in enumerate(variables):
            init = lanes[k] if lanes else _zero(binding)
            lines.append(f"var {variable}: {word_type} = {init};")
            per_lane[k][name] = variable
        stores += _write_back(binding, array, chunks, variables)
    for k in range(ELEMENTS):
        c = k % CHUNK
        index = f"{chunks[k // CHUNK]} * {CHUNK}u" + (f" + {c}u" if c else "")
        lines.append(lane.arguments(index, per_lane[k]))
    return lines + stores


def _lane_value(binding: BufferBinding, word: str) -> str:
    """The vyre value of a loaded element word, as a lane takes it by value."""
    return f"u32({word} != 0u)" if binding.element == DataTypeKind.BOOL else word


def _lane_words(
    binding: BufferBinding,
    namer: Namer,
    lines: list[str],
    array: str,
    chunks: list[str],
    loaded: bool,
) -> list[str]:
    """Emit the chunk loads of one buffer's 8 elements; their lane texts (as a
    lane keeps them), or [] when nothing is loaded."""
    if not loaded:
        return []
    texts: list[str] = []
    for u, chunk in enumerate(chunks):
        vec = namer.claim(f"{binding.name}_v{u}")
        lines.append(f"let {vec} = {array}[{chunk}];")
        if binding.packed_halves:
            for word in "xy":
                texts += [f"({vec}.{word} & 0xffffu)", f"({vec}.{word} >> 16u)"]
        else:
            texts += [f"{vec}.{lane}" for lane in "xyzw"]
    return texts


def _write_back(binding: BufferBinding, array: str, chunks: list[str], variables: list[str]) -> list[str]:
    out: list[str] = []
    for u, chunk in enumerate(chunks):
        mine = variables[CHUNK * u : CHUNK * (u + 1)]
        if binding.packed_halves:
            pairs = [f"({mine[2 * k]} & 0xffffu) | ({mine[2 * k + 1]} << 16u)" for k in range(2)]
            out.append(f"{array}[{chunk}] = vec2<u32>({', '.join(pairs)});")
        else:
            out.append(f"{array}[{chunk}] = {binding.vector_type}({', '.join(mine)});")
    return out


def _tail(
    namer: Namer,
    shape: MapShape,
    lane: LaneSignature,
    bindings: dict[str, BufferBinding],
    meta: MetaLayout,
    chunk: str,
    tail_load: dict[str, str],
    tail_store: dict[str, str],
) -> list[str]:
    """The 8 lanes one by one, every access guarded (the last, partial chunks):
    lane j is element `(chunk + (j / 4) * WORKGROUP) * 4 + j % 4`."""
    j = namer.claim("lane")
    v = namer.claim("element")
    body: list[str] = []
    elements: dict[str, str] = {}
    for name in lane.values:
        period = shape.periodic.get(name)
        elements[name] = f"{tail_load[name]}({v})" if period is None else f"{tail_load[name]}({v} % {period}u)"
    stores: list[str] = []
    for name in lane.pointers:
        variable = namer.claim(f"{name}_lane")
        word_type = _word_type(bindings[name])
        if name in shape.overwritten:
            # zeroed explicitly: naga hoists a loop body's `var` without an
            # initializer and does not zero it again on the next iteration
            # (measured: a lane past the buffer's length saw the previous lane's value)
            body.append(f"var {variable}: {word_type} = {_zero(bindings[name])};")
        else:
            body.append(f"var {variable}: {word_type} = {tail_load[name]}({v});")
        elements[name] = variable
        stores.append(f"{tail_store[name]}({v}, {variable});")
    body.append(lane.arguments(v, elements))
    body += stores
    return [
        f"for (var {j}: u32 = 0u; {j} < {ELEMENTS}u; {j} = {j} + 1u) {{",
        f"  let {v} = ({chunk} + ({j} >> 2u) * {WORKGROUP}u) * {CHUNK}u + ({j} & 3u);",
        f"  if ({v} < {meta.wgsl_name}.virtual_count) {{",
        *("    " + line for line in body),
        "  }",
        "}",
    ]
