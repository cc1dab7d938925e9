"""Lowering of a vyre program to one WGSL compute shader.

`lower(kernel)` returns a `LoweredKernel`: the WGSL text plus the binding layout
the runtime needs (layout.py documents it). It takes a prepared kernel
(`vyre.pipeline.prepare`: validated, calls inlined, constants folded) and runs no
pass and no validation itself; `vyre.lower_to_wgsl(program)` is the public path.

Emission rules:

- Expression ops become inline WGSL expressions or `let` temporaries. A value is
  inlined into its use when that is safe: constants and pure expressions always;
  a value that reads memory (a Load, a `vyre.var`) only until something could
  overwrite what it read - before a Store or Atomic on the same buffer, an Assign
  to the same local, a Barrier, or a statement with a body, every such value still
  waiting for a use is materialised as a `let`, so it keeps the value it had at
  its definition. Values used more than once are materialised unless trivial.
  Atomics always run at their position, exactly once.
- The pipeline's `canonicalize` folds every operation whose operands are
  literals, through the ops' folders. The emitter never emits an operation whose
  operands are all constants either (WGSL would const-evaluate it and reject
  `1u / 0u`): where constants meet, it computes the value with the same
  functions the folders use (`vyre.dialects.vyre.fold_*`).
- The guards (division, shifts, out-of-bounds, atomics, workgroup zeroing,
  half-word stores) live in guards.py, the cast and bitcast tables in casts.py.
- Floats (F32, F16, BF16) are `u32` bit patterns (values.py) in `u32` buffers
  (layout.py); the WGSL never contains a float type or a float operation. The
  emitter handles float types, literals (`u32` literals of their bits), loads,
  stores, bitcasts, select and locals; float arithmetic, comparisons, fma, float
  unary ops and float value casts must have been rewritten into integer IR by the
  float-strict pass, and raise `LoweringError` here. Where a float value meets a
  u32/i32 slot of the same bits (after such a rewrite), it is bitcast.
- Locals keep their IR names, buffers theirs, when they are valid WGSL identifiers
  (names.py); lowering temporaries use the SSA name hints or `tN`.
- Ids: `workgroup_id = builtin workgroup_id + meta offset` (dispatch splitting),
  `invocation_id = workgroup_id * workgroup_size + local_id`, both vec3<u32>.
- If/Select conditions are `!= 0`; Select evaluates both arms (WGSL `select`);
  Loop is `for (var i = from; i < to; i = i + 1u)` with `to` evaluated once before
  it (a half-open loop never increments past `to`, so `to == 0xffffffff` is safe);
  a loop whose constant bounds give no iteration is not emitted at all;
  Return is `return;`; Barrier is `storageBarrier(); workgroupBarrier();`, or
  `workgroupBarrier();` alone where no invocation can observe its storage
  fence (fences.py).
- A workgroup buffer that an atomic touches is `array<atomic<u32>, N>`; its
  loads and stores become `atomicLoad` / `atomicStore` (guards.py, layout.py).
- `LoweringOptions` (options.py) select the target's variant: `vectorize` emits
  an elementwise map (map_shape.py) as a lane function run 8 times per
  invocation with vec4 access (vector.py); `combine` turns four loads or stores
  of consecutive words at a multiple of 4 into one guarded vec4 access in
  kernels lowered as written (combine.py); `loop_limit` emits loops unrolled
  and checked for adapters that stop them silently (loops.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, cast

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation, SSAValue

from vyre.dialects import vyre as d
from vyre.dialects.vyre import AccessKind, BinOpKind, DataTypeKind, UnOpKind
from vyre.dialects.vyre import fold_binop, fold_u128_binop, fold_u128_unop, fold_unop, u128_lanes, u128_value
from vyre.lowering import u128
from vyre.dialects.tables import Dispatch, OpTable
from vyre.lowering.casts import lower_bitcast, lower_cast
from vyre.lowering.combine import NOTHING, Combined, Group, combine_accesses
from vyre.lowering.fences import StorageFences, storage_fences
from vyre.lowering.guards import Guards
from vyre.lowering.layout import (
    META_OFFSET_WORDS,
    BufferBinding,
    MetaLayout,
    TableBuffer,
    WorkgroupArray,
)
from vyre.lowering.loops import is_fallback_call, ops_work, routine_work, unroll_factors
from vyre.lowering.map_shape import MapShape, map_shape
from vyre.lowering.names import Namer, comment_safe
from vyre.lowering.opaque_constants import shield, uses_hazard
from vyre.lowering.mul_high import emit_mul_high
from vyre.lowering.options import LoweringOptions
from vyre.lowering.walk import operations
from vyre.lowering.vector import (
    META_FIELDS,
    WORKGROUP,
    LaneSignature,
    VectorLayout,
    entry_lines,
    lane_load,
)
from vyre.lowering.values import (
    FLOAT_KINDS,
    LANES,
    U32_MASK,
    LoweringError,
    Value,
    float_arithmetic_error,
    wgsl_type,
)
from vyre.ops.intrinsics import SCALAR, is_call_intrinsic, wgsl_builtin

__all__ = ["LoweredKernel", "LoweringError", "LoweringOptions", "lower", "vectorises"]

U32 = DataTypeKind.U32
I32 = DataTypeKind.I32
BOOL = DataTypeKind.BOOL
U128 = DataTypeKind.U128
AXES = ("x", "y", "z")
INDENT = "  "


@dataclass(frozen=True)
class LoweredKernel:
    """A program lowered to WGSL, with everything the runtime binds."""

    wgsl: str
    entry_point: str
    workgroup_size: tuple[int, int, int]
    buffers: tuple[BufferBinding, ...]
    """Storage and uniform buffers, in declaration order."""
    workgroup_arrays: tuple[WorkgroupArray, ...]
    meta: MetaLayout
    vector: VectorLayout | None = None
    """Set when this is the vectorised lowering of a map kernel (vector.py):
    the runtime then dispatches by `vector`, not by the program's grid."""
    status_binding: int | None = None
    """Binding of the loop status word (a storage buffer of at least 4 bytes,
    cleared to 0) when loops check their exit (options.py `loop_limit`): a
    non-zero word after the run means a loop was stopped by the driver."""
    tables: TableBuffer | None = None
    """The kernel's constant tables (`vyre.lookup`), when it reads any: a
    read-only storage buffer the runtime makes once and binds (layout.py)."""

    @property
    def workgroup_bytes(self) -> int:
        return sum(array.size_bytes for array in self.workgroup_arrays)

    @property
    def invocations_per_workgroup(self) -> int:
        x, y, z = self.workgroup_size
        return x * y * z


def _internal_bindings(used: set[int]) -> tuple[int, int, int]:
    """The binding numbers of the meta uniform, the loop status word and the
    table buffer: the three after the buffers' highest (layout.py), or, where
    that passes 2**32 - 1, the smallest ones no buffer uses instead of those past
    it (a kernel has far fewer than 2**32 buffers)."""
    top = max(used, default=-1)
    slots = list(range(top + 1, min(top + 4, U32_MASK + 1)))
    taken = used | set(slots)
    free = (slot for slot in range(U32_MASK + 1) if slot not in taken)
    while len(slots) < 3:
        slots.append(next(free))
    return slots[0], slots[1], slots[2]


def lower(kernel: d.KernelOp, options: LoweringOptions = LoweringOptions()) -> LoweredKernel:
    """Lower a prepared kernel (`vyre.pipeline.prepare`) to WGSL plus its binding
    layout, for the target `options` describe (options.py). A call of anything
    but a Category C intrinsic means the kernel was not prepared, and float
    arithmetic (or a float value cast) that the float-strict pass did not
    rewrite: both raise `LoweringError`."""
    if not isinstance(kernel, d.KernelOp):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"lower expects a prepared vyre.kernel (vyre.pipeline.prepare), got"
            f" {type(kernel).__name__}; vyre.lower_to_wgsl takes a Program"
        )
    if not isinstance(options, LoweringOptions):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"lower options must be LoweringOptions, got {type(options).__name__}")
    return _KernelLowering(kernel, options, _Scan.of(kernel)).run()


@dataclass
class _Scan:
    """What the lowering needs to know about the whole kernel, from one walk
    (which also refuses calls and float arithmetic that preparation left)."""

    atomic_buffers: set[str] = field(default_factory=lambda: set[str]())
    stored_buffers: set[str] = field(default_factory=lambda: set[str]())
    locals: list[str] = field(default_factory=lambda: list[str]())
    """Names declared by lets and loops, in walk order (repeats included)."""
    assigned: set[str] = field(default_factory=lambda: set[str]())
    ids: set[str] = field(default_factory=lambda: set[str]())
    """Which id ops occur: "invocation", "workgroup", "local"."""
    invoked: set[str] = field(default_factory=lambda: set[str]())
    """The routines the kernel invokes directly."""

    @staticmethod
    def of(kernel: d.KernelOp) -> _Scan:
        scan = _Scan()
        for op in operations(kernel):
            note = SCAN.get(type(op))
            if note is not None:
                note(scan, op)
        return scan


SCAN: Dispatch[_Scan, [], None] = Dispatch("lowering scan", lambda: ())
"""What the whole-kernel scan notes of each op class (ops without an entry
tell it nothing)."""


@SCAN.on(d.LetOp, d.LoopOp)
def _scan_local(scan: _Scan, op: d.LetOp | d.LoopOp) -> None:
    scan.locals.append(op.var_name.data)


@SCAN.on(d.StoreOp)
def _scan_store(scan: _Scan, op: d.StoreOp) -> None:
    scan.stored_buffers.add(op.buffer.data)


@SCAN.on(d.AssignOp)
def _scan_assign(scan: _Scan, op: d.AssignOp) -> None:
    scan.assigned.add(op.var_name.data)


@SCAN.on(d.AtomicOp)
def _scan_atomic(scan: _Scan, op: d.AtomicOp) -> None:
    scan.atomic_buffers.add(op.buffer.data)


@SCAN.on(d.CallOp)
def _scan_call(scan: _Scan, op: d.CallOp) -> None:
    op_id = op.op_id.data
    if not is_call_intrinsic(op_id):
        raise LoweringError(
            f"vyre lowering: call to `{op_id}` is still present. Fix: prepare"
            " the kernel first (vyre.pipeline.prepare inlines calls; only inlinable"
            " ops may be called, V020)."
        )


@SCAN.on(d.FloatOp, d.CastOp)
def _scan_float(scan: _Scan, op: d.FloatOp | d.CastOp) -> None:
    _check_no_float_arithmetic(op)


@SCAN.on(d.InvokeOp)
def _scan_invoke(scan: _Scan, op: d.InvokeOp) -> None:
    scan.invoked.add(op.callee.data)


@SCAN.on(d.InvocationIdOp, d.WorkgroupIdOp, d.LocalIdOp)
def _scan_id(scan: _Scan, op: d.IdOp) -> None:
    scan.ids.add(_ID_FAMILY[type(op)])


_ID_FAMILY: dict[type[d.IdOp], str] = {
    d.InvocationIdOp: "invocation",
    d.WorkgroupIdOp: "workgroup",
    d.LocalIdOp: "local",
}


def _check_no_float_arithmetic(op: Operation) -> None:
    """Strict float arithmetic never reaches WGSL (see the module doc); approximate
    ops do: they are the native builtins by definition."""
    if isinstance(op, d.FloatOp) and not isinstance(op, d.ApproximateUnaryOp):
        raise float_arithmetic_error(f"float operation `{op.name}`")
    if isinstance(op, d.CastOp):
        source, target = _kind(op.value.type), _kind(op.res.type)
        if source != target and (source in FLOAT_KINDS or target in FLOAT_KINDS):
            raise float_arithmetic_error(
                f"float value cast `vyre.cast` from `{source.value}` to `{target.value}`"
            )


# ---------------------------------------------------------------------------
# Kernel: names, layout, module text
# ---------------------------------------------------------------------------


VECTOR_WORK_LIMIT = 1024
"""The most operations one element of a map may cost (its own and its routines')
for the map to be vectorised. The vectorised form runs the lane function for 8
elements per invocation: it wins where memory bounds a map, and a map whose
elements cost this much is bound by its arithmetic instead, while a driver that
inlines the 8 lane calls (and their routines) compiles 8 times the code. A map
whose element reads constant tables (`vyre.lookup`: the correctly rounded
functions) is vectorised like any other: its tables are reads of the kernel's
table buffer (layout.py `TableBuffer`), which a driver compiles as one load
each. A fast path's fallback call counts as one operation (`element_work`): the
elements it covers never run it."""


def _vector_shape(kernel: d.KernelOp, options: LoweringOptions) -> MapShape | None:
    """The map shape `kernel` is lowered by under `options` (vector.py), or None:
    not a map, not asked for, loops on an adapter that needs them checked, or
    elements too costly for vectorising to pay (`VECTOR_WORK_LIMIT`)."""
    if not options.vectorize:
        return None
    shape = map_shape(kernel)
    if not isinstance(shape, MapShape) or (shape.has_loops and options.loop_limit is not None):
        return None
    if element_work(kernel) > VECTOR_WORK_LIMIT:
        return None
    return shape


def element_work(kernel: d.KernelOp) -> int:
    """The operations one run of the kernel's body executes, counting each invoke
    as its routine's body (routines through routines included) but a fast path's
    fallback call as 1: what the elements the fast path covers run."""
    return ops_work(operations(kernel), routine_work(kernel, fallbacks=False), fallbacks=False)


def vectorises(kernel: d.KernelOp, options: LoweringOptions) -> bool:
    """Whether `lower(kernel, options)` gives the vectorised form of a map: what
    the runtime asks before making either lowering."""
    return _vector_shape(kernel, options) is not None


def _used_routines(kernel: d.KernelOp, invoked: set[str]) -> dict[str, d.RoutineOp]:
    """The routines `kernel` invokes, directly or through other routines (validation
    holds them defined and free of cycles)."""
    known = d.routines_of(kernel)
    used: dict[str, d.RoutineOp] = {}
    pending = sorted(invoked)
    while pending:
        name = pending.pop()
        routine = known.get(name)
        if routine is None:
            raise LoweringError(f"vyre lowering: invoke of unknown routine `@{name}` (V135)")
        if name in used:
            continue
        used[name] = routine
        pending.extend(op.callee.data for op in routine.entry.ops if isinstance(op, d.InvokeOp))
    return dict(sorted(used.items()))


def binding_layout(
    kernel: d.KernelOp, namer: Namer, scan: _Scan, vector_buffers: set[str]
) -> tuple[list[BufferBinding], list[WorkgroupArray]]:
    """The storage/uniform bindings (declaration order, each with its meta length
    word) and the workgroup arrays of a kernel, their WGSL names claimed from
    `namer`. A read_write buffer is atomic when an atomic touches it, or when it
    holds F16/BF16 elements and is stored to (two elements share a word: a
    store is a compare-exchange on the word, guards.py); buffers accessed as
    vec4 (`vector_buffers`) are neither."""
    buffers: list[BufferBinding] = []
    arrays: list[WorkgroupArray] = []
    for decl in kernel.buffer_decls:
        name = decl.buffer_name.data
        wgsl_name = namer.claim(name)
        element = decl.element.data_kind
        if decl.access_kind == AccessKind.WORKGROUP:
            # an atomic makes the whole array `array<atomic<u32>, N>` (validation
            # admits atomics only on U32 workgroup buffers, V014/V025)
            atomic = name in scan.atomic_buffers
            arrays.append(WorkgroupArray(name, wgsl_name, element, decl.count.data, atomic))
            continue
        atomic = (
            decl.access_kind == AccessKind.READ_WRITE
            and name not in vector_buffers
            and (
                name in scan.atomic_buffers
                or (element.facts.half and name in scan.stored_buffers)
            )
        )
        meta_word = META_OFFSET_WORDS + len(buffers)
        buffers.append(
            BufferBinding(
                name, wgsl_name, decl.binding.data, decl.access_kind, element, atomic,
                meta_word, name in vector_buffers,
            )
        )
    return buffers, arrays


class _KernelLowering:
    def __init__(self, kernel: d.KernelOp, options: LoweringOptions, scan: _Scan):
        self.kernel = kernel
        self.options = options
        self.namer = Namer()
        x, y, z = kernel.workgroup
        self.workgroup_size = (x, y, z)
        self.map = _vector_shape(kernel, options)
        self.scan = scan
        vector_buffers = set(self.map.vector_buffers) | set(self.map.periodic) if self.map is not None else set[str]()
        self.combined: Combined = (
            combine_accesses(kernel) if self.map is None and options.combine else NOTHING
        )
        vector_buffers |= self.combined.buffers
        buffers, arrays = binding_layout(kernel, self.namer, scan, vector_buffers)
        meta_binding, self.status_slot, self.table_slot = _internal_bindings({b.binding for b in buffers})
        self.entry_point = self.namer.claim("main")
        struct_name = self.namer.claim("VyreMeta")
        meta_name = self.namer.claim("_vyre_meta")
        self.meta = MetaLayout(
            meta_binding,
            meta_name,
            struct_name,
            tuple(f"len_{b.wgsl_name}" for b in buffers),
            META_FIELDS if self.map is not None else (),
        )
        status = None
        if options.loop_limit is not None:
            status = self.namer.claim("_vyre_status")
        self.buffers = tuple(buffers)
        self.arrays = tuple(arrays)
        param_scope = Namer(set(self.namer.taken))
        # Locals keep their IR names; they are claimed before any internal name.
        self.locals: dict[str, str] = {}
        self.assigned: set[str] = scan.assigned
        for name in scan.locals:
            if name not in self.locals:
                self.locals[name] = self.namer.claim(name)
        self.guards = Guards(
            self.namer,
            param_scope,
            {b.name: b for b in buffers},
            {a.name: a for a in arrays},
            self.meta,
            status,
            int64=options.int64,
        )
        self.unroll: dict[Operation, int] = (
            unroll_factors(kernel) if options.loop_limit is not None else {}
        )
        self.fences: StorageFences | None = None
        """Which barriers keep the storage fence (fences.py): at the first barrier."""
        self.routines = _used_routines(kernel, scan.invoked)
        self.routine_names = {name: self.namer.claim(name) for name in self.routines}
        """The WGSL function of each routine the kernel uses (directly or through others)."""
        self.routine_texts: list[str] = []

    def _emit_routines(self) -> None:
        """One WGSL function per routine the kernel uses: `fn name(p0: u32, ...) -> u32`."""
        for name, routine in self.routines.items():
            body = _Body(self, {})
            params: list[str] = []
            for k, param in enumerate(routine.params):
                kind = _kind(param.type)
                wgsl_name = self.namer.temporary(param.name_hint or f"p{k}")
                params.append(f"{wgsl_name}: {wgsl_type(kind)}")
                body.values[id(param)] = Value(wgsl_name, kind, cheap=True)
            body.block(routine.entry)
            result = wgsl_type(_kind(routine.result_type))
            signature = f"fn {self.routine_names[name]}({', '.join(params)}) -> {result} {{"
            self.routine_texts.append("\n".join([signature, *body.lines, "}"]))

    def run(self) -> LoweredKernel:
        self._emit_routines()
        if self.map is not None:
            return self._run_vector(self.map)
        used = self.scan.ids
        uses_invocation = "invocation" in used
        uses_workgroup = uses_invocation or "workgroup" in used
        uses_local = uses_invocation or "local" in used

        params: list[str] = []
        prologue: list[str] = []
        ids: dict[str, str] = {}
        if uses_workgroup:
            raw = self.namer.claim("dispatch_workgroup_id")
            params.append(f"@builtin(workgroup_id) {raw}: vec3<u32>")
            ids["workgroup"] = self.namer.claim("workgroup_id")
            prologue.append(
                f"let {ids['workgroup']} = {raw} + {self.meta.offset_vector()};"
            )
        if uses_local:
            ids["local"] = self.namer.claim("local_id")
            params.append(f"@builtin(local_invocation_id) {ids['local']}: vec3<u32>")
        if uses_invocation:
            ids["invocation"] = self.namer.claim("invocation_id")
            x, y, z = self.workgroup_size
            prologue.append(
                f"let {ids['invocation']} = {ids['workgroup']} * "
                f"vec3<u32>({x}u, {y}u, {z}u) + {ids['local']};"
            )
        if self.arrays:
            local_index = self.namer.claim("local_index")
            params.append(f"@builtin(local_invocation_index) {local_index}: u32")
            counter = self.namer.claim("k")
            x, y, z = self.workgroup_size
            prologue += self.guards.zero_workgroup_memory(local_index, x * y * z, counter)

        body = _Body(self, ids)
        body.block(self.kernel.entry)
        return self._lowered(self._module_text(params, prologue, body.lines), None)

    def _lowered(self, wgsl: str, vector: VectorLayout | None) -> LoweredKernel:
        return LoweredKernel(
            wgsl,
            self.entry_point,
            self.workgroup_size if vector is None else (vector.workgroup, 1, 1),
            self.buffers,
            self.arrays,
            self.meta,
            vector,
            self._status_binding(),
            self._tables(),
        )

    def _tables(self) -> TableBuffer | None:
        guards = self.guards
        if guards.table_name is None:
            return None
        return TableBuffer(self.table_slot, guards.table_name, tuple(guards.table_words))

    def _status_binding(self) -> int | None:
        return self.status_slot if self.guards.status_used else None

    def _run_vector(self, shape: MapShape) -> LoweredKernel:
        """The vectorised lowering of a map kernel (vector.py)."""
        lane = LaneSignature.of(self.namer, shape)
        body = _Body(self, {}, lane=_Lane(shape, lane, {b.name: b for b in self.buffers}))
        body.depth = 1
        body.block(self.kernel.entry)
        bindings = {b.name: b for b in self.buffers}
        tail_load: dict[str, str] = {}
        tail_store: dict[str, str] = {}
        guards = self.guards
        for name in shape.periodic:
            tail_load[name] = guards.load_helper(name)
        for name in shape.vector_buffers:
            binding = bindings[name]
            if name in lane.values:
                tail_load[name] = guards.load_helper(name)
            elif name in lane.pointers:
                if name not in shape.overwritten:
                    tail_load[name] = guards.load_word_helper(binding)
                tail_store[name] = guards.store_vector_helper(binding)
        params, entry = entry_lines(
            namer=self.namer,
            shape=shape,
            lane=lane,
            bindings=bindings,
            meta=self.meta,
            tail_load=tail_load,
            tail_store=tail_store,
        )
        lane_function = "\n".join(
            [
                "// The program's body for one element index (vector.py): the elements at",
                "// the index come in as values (read) or pointers (written).",
                lane.header(bindings),
                *body.lines,
                "}",
            ]
        )
        layout = VectorLayout(
            shape.row,
            self.workgroup_size,
            shape.vector_buffers,
            tuple(shape.periodic.items()),
            tuple(name for name in shape.vector_buffers if name in shape.overwritten),
        )
        text = self._module_text(params, entry, [], extra=[lane_function], vector=True)
        return self._lowered(text, layout)

    def _module_text(
        self,
        params: list[str],
        prologue: list[str],
        body: list[str],
        extra: list[str] | None = None,
        vector: bool = False,
    ) -> str:
        name = self.kernel.sym_name.data
        x, y, z = (WORKGROUP, 1, 1) if vector else self.workgroup_size
        functions = [
            *(text for _, text in self.guards.functions.values()),
            *self.routine_texts,
            *(extra or []),
        ]
        code = [*functions, *prologue, *body]
        if any(uses_hazard(text) for text in code):
            # literals Mesa's NIR would rewrite with the wrong zero (opaque_constants.py)
            self.meta = replace(self.meta, opaque_zero=True)
            zero = f"{self.meta.wgsl_name}.opaque_zero"
            functions = [shield(text, zero) for text in functions]
            prologue = [shield(line, zero) for line in prologue]
            body = [shield(line, zero) for line in body]
        out = [
            f"// vyre kernel @{comment_safe(name)}, lowered by vyre.lowering.wgsl.",
            "// Bind group 0: the program's storage/uniform buffers at their bindings, and",
            f"// {self.meta.wgsl_name} (binding {self.meta.binding}): workgroup-id offset and "
            "the logical element count of each buffer.",
            "",
            self.meta.struct_declaration(),
            "",
        ]
        out += [b.wgsl_declaration for b in self.buffers]
        out.append(self.meta.declaration())
        status = self._status_binding()
        if status is not None:
            assert self.guards.status is not None
            out += [
                "// Loop status (set when the driver stopped a loop; the runtime raises):",
                f"@group(0) @binding({status}) var<storage, read_write> "
                f"{self.guards.status}: array<atomic<u32>>;",
            ]
        tables = self._tables()
        if tables is not None:
            out += [
                "// Constant tables (vyre.lookup), concatenated; bound read-only by the runtime:",
                tables.wgsl_declaration,
            ]
        out += [a.wgsl_declaration for a in self.arrays]
        for text in functions:
            out += ["", text]
        out += [
            "",
            f"@compute @workgroup_size({x}, {y}, {z})",
            f"fn {self.entry_point}({', '.join(params)}) {{",
        ]
        out += [INDENT + line for line in prologue]
        out += body
        out += ["}", ""]
        return "\n".join(out)


# ---------------------------------------------------------------------------
# Body: statements and expressions
# ---------------------------------------------------------------------------


def _truthy(value: Value) -> str:
    """A WGSL bool: the value is non-zero (any lane non-zero for vectors)."""
    if value.condition is not None:
        return value.condition
    if value.const is not None:
        return "true" if any(value.const) else "false"
    if LANES.get(value.kind, 0) == 1:
        zero = "0i" if value.kind == I32 else "0u"
        return f"{value.operand} != {zero}"
    return f"any({value.operand} != {wgsl_type(value.kind)}())"


def _coerce(value: Value, kind: DataTypeKind) -> Value:
    """The value as `kind`, through the cast table when the types differ; a float
    meeting a u32/i32 slot (or the reverse) keeps its bits (a bitcast)."""
    if value.kind == kind:
        return value
    if value.kind in FLOAT_KINDS or kind in FLOAT_KINDS:
        return lower_bitcast(value, kind)
    return lower_cast(value, kind)




@dataclass(frozen=True)
class _Lane:
    """The body is emitted as the lane function of a vectorised map (vector.py)."""

    shape: MapShape
    signature: LaneSignature
    bindings: dict[str, BufferBinding]


MAX_INLINE_TEXT = 2048
"""The longest WGSL expression a value is kept inline as: a longer one becomes a
`let` where it is defined (as the IR evaluates it: in program order). Every
nesting level adds at least two characters, so no emitted expression nests more
than about a thousand levels: naga parses expressions recursively and overflows
its stack (a segfault of the process) somewhere between 2,000 and 5,000 levels,
while V019 admits expression chains of up to 100,000 nodes."""


STATEMENT_EMITTERS: Dispatch[_Body, [], None] = Dispatch(
    "WGSL statement emission", lambda: d.OPERATIONS
)
"""How each op is emitted where it stands in its block (an expression op defines
its value through `EXPRESSION_EMITTERS`; an atomic runs as a statement)."""
EXPRESSION_EMITTERS: Dispatch[_Body, [], Value] = Dispatch(
    "WGSL expression emission", lambda: d.EXPRESSION_OPS
)
"""The WGSL value of each expression op (strict float ops raise: float-strict
must have rewritten them)."""


@dataclass
class _Body:
    kernel: _KernelLowering
    ids: dict[str, str]
    lane: _Lane | None = None
    lines: list[str] = field(default_factory=lambda: list[str]())
    depth: int = 1
    values: dict[int, Value] = field(default_factory=lambda: {})
    """The lowered value of each SSA value, by `id` (the module keeps the SSA
    values alive while it is lowered; xDSL hashes them in Python, slowly)."""
    remaining: dict[int, tuple[SSAValue, int]] = field(default_factory=lambda: {})
    """Values that read memory and still wait for uses (how many), by `id`."""
    local_types: list[dict[str, DataTypeKind]] = field(default_factory=lambda: [{}])
    local_consts: list[dict[str, tuple[int, ...]]] = field(default_factory=lambda: [{}])
    """Per scope, beside `local_types`: the lanes of each never-assigned local bound
    to a constant. A read of it is that constant, so expressions over it fold here
    and the literals they make pass through opaque_constants.py (a driver would
    fold them itself, after the lowering could shield them)."""
    declared: set[Operation] = field(default_factory=lambda: set[Operation]())
    """Lets already emitted together with the atomic that defines their value."""
    vectors: dict[int, str] = field(default_factory=lambda: {})
    """The vec4 temporary of each load group (combine.py), by `id(group)`."""
    pending: dict[int, dict[int, str]] = field(default_factory=lambda: {})
    """The lane values of each store group not yet stored, by `id(group)`."""

    # -- bookkeeping ----------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append(INDENT * self.depth + line)

    def take(self, ssa: SSAValue) -> Value:
        """The value of an operand, counting one use of it."""
        key = id(ssa)
        value = self.values.get(key)
        if value is None:
            raise LoweringError(f"vyre lowering: value {ssa.name_hint or ssa} has no definition")
        waiting = self.remaining.get(key)
        if waiting is not None:
            if waiting[1] == 1:
                del self.remaining[key]
            else:
                self.remaining[key] = (ssa, waiting[1] - 1)
        return value

    def materialise(self, ssa: SSAValue, value: Value) -> Value:
        name = self.kernel.namer.temporary(ssa.name_hint)
        self.emit(f"let {name}: {wgsl_type(value.kind)} = {value.text};")
        return Value(name, value.kind, cheap=True)

    def define(self, ssa: SSAValue, value: Value) -> None:
        uses = _use_count(ssa)
        if uses == 0:
            return
        key = id(ssa)
        if value.const is not None or (value.cheap and not value.reads_memory):
            self.values[key] = value
            return
        if (uses > 1 and not value.cheap) or len(value.text) > MAX_INLINE_TEXT:
            self.values[key] = self.materialise(ssa, value)
            return
        self.values[key] = value
        if value.reads_memory:
            self.remaining[key] = (ssa, uses)

    def flush(self, overwritten: Callable[[Value], bool]) -> None:
        """Materialise the waiting values that read memory about to be overwritten."""
        if not self.remaining:
            return
        for key, (ssa, _) in list(self.remaining.items()):
            value = self.values[key]
            if overwritten(value):
                self.values[key] = self.materialise(ssa, value)
                del self.remaining[key]

    def local(self, name: str) -> str:
        return self.kernel.locals[name]

    def local_type(self, name: str) -> DataTypeKind:
        for frame in reversed(self.local_types):
            if name in frame:
                return frame[name]
        raise LoweringError(f"vyre lowering: local `{name}` is used outside its scope")

    def local_const(self, name: str) -> tuple[int, ...] | None:
        """The constant lanes of a let in scope, from the scope that declares it."""
        for types, consts in zip(reversed(self.local_types), reversed(self.local_consts)):
            if name in types:
                return consts.get(name)
        return None

    def nested(self, block: Block, scope: dict[str, DataTypeKind] | None = None) -> None:
        self.depth += 1
        self.local_types.append(dict(scope or {}))
        self.local_consts.append({})
        self.block(block)
        self.local_types.pop()
        self.local_consts.pop()
        self.depth -= 1

    # -- statements -----------------------------------------------------------

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        lane = self.lane
        if lane is not None:
            if op in lane.shape.hidden:
                return  # computes the index only
            if op in lane.shape.roots:
                self.define(op.results[0], Value(lane.signature.index, U32, cheap=True))
                return
        emit = STATEMENT_EMITTERS.get(type(op))
        if emit is None:
            raise LoweringError(f"vyre lowering: unexpected op `{op.name}`")
        emit(self, op)

    @STATEMENT_EMITTERS.on(d.ExprOp)
    def expression_statement(self, op: d.ExprOp) -> None:
        emit = EXPRESSION_EMITTERS.get(type(op))
        if emit is None:
            raise LoweringError(f"vyre lowering: unexpected expression `{op.name}`")
        self.define(op.results[0], emit(self, op))

    @STATEMENT_EMITTERS.on(d.YieldOp)
    def yield_(self, op: d.YieldOp) -> None:
        self.emit(f"return {self.take(op.value).text};")

    @STATEMENT_EMITTERS.on(d.ReturnOp)
    def return_(self, op: d.ReturnOp) -> None:
        self.emit("return;")

    @STATEMENT_EMITTERS.on(d.BlockOp)
    def block_statement(self, op: d.BlockOp) -> None:
        self.flush(lambda v: v.reads_memory)
        self.emit("{")
        self.nested(op.body_block)
        self.emit("}")

    @STATEMENT_EMITTERS.on(d.BarrierOp)
    def barrier(self, op: d.BarrierOp) -> None:
        self.flush(lambda v: bool(v.buffers))
        if self.kernel.fences is None:
            self.kernel.fences = storage_fences(self.kernel.kernel)
        for line in self.kernel.fences.lines(op):
            self.emit(line)

    @STATEMENT_EMITTERS.on(d.LetOp)
    def let(self, op: d.LetOp) -> None:
        if op in self.declared:
            self.declared.discard(op)  # an unrolled loop emits the body again
            return
        self.declare(op, self.take(op.value))

    def declare(self, op: d.LetOp, value: Value) -> None:
        name = op.var_name.data
        keyword = "var" if name in self.kernel.assigned else "let"
        self.emit(f"{keyword} {self.local(name)}: {wgsl_type(value.kind)} = {value.text};")
        self.local_types[-1][name] = value.kind
        if value.const is not None and keyword == "let":
            self.local_consts[-1][name] = value.const

    @STATEMENT_EMITTERS.on(d.AssignOp)
    def assign(self, op: d.AssignOp) -> None:
        name = op.var_name.data
        value = _coerce(self.take(op.value), self.local_type(name))
        self.flush(lambda v: name in v.locals)
        self.emit(f"{self.local(name)} = {value.text};")

    @STATEMENT_EMITTERS.on(d.StoreOp)
    def store(self, op: d.StoreOp) -> None:
        buffer = op.buffer.data
        index = _coerce(self.take(op.index), U32)
        value = _coerce(self.take(op.value), self.kernel.guards.element(buffer))
        self.flush(lambda v: buffer in v.buffers)
        member = self.kernel.combined.stores.get(op)
        if member is not None:
            self.combined_store(op, value, *member)
            return
        lane = self.lane
        if lane is not None and buffer in lane.signature.pointers:
            # the lane's own element (map_shape.py: written buffers only at idx)
            # (an F16/BF16 value has its upper 16 bits zero, values.py)
            pointer = lane.signature.pointers[buffer]
            bound = self.kernel.guards.length(buffer).text
            self.emit(f"if ({lane.signature.index} < {bound}) {{")
            self.emit(f"{INDENT}*{pointer} = {value.text};")
            self.emit("}")
            return
        self.emit(self.kernel.guards.store(buffer, index, value))

    def group_base(self, group: Group) -> str:
        """WGSL of a combined group's first element index (a multiple of 4)."""
        base = self.local(group.base)
        return f"{base} + {group.offset}u" if group.offset else base

    def combined_load(self, op: d.LoadOp, group: Group, lane: int) -> Value:
        """A member of a load group (combine.py): the leader loads the vec4."""
        key = id(group)
        if op is group.members[0]:
            name = self.kernel.namer.temporary(f"{group.buffer}_v")
            helper = self.kernel.guards.load4_helper(group.buffer)
            self.emit(f"let {name} = {helper}({self.group_base(group)});")
            self.vectors[key] = name
        kind = self.kernel.guards.element(group.buffer)
        return Value(f"{self.vectors[key]}.{'xyzw'[lane]}", kind, cheap=True)

    def combined_store(self, op: d.StoreOp, value: Value, group: Group, lane: int) -> None:
        """A member of a store group (combine.py): its value is kept, the last
        member stores the vec4."""
        key = id(group)
        parts = self.pending.setdefault(key, {})
        if op is not group.members[-1]:
            name = self.kernel.namer.temporary(f"{group.buffer}_{lane}")
            self.emit(f"let {name}: {wgsl_type(value.kind)} = {value.text};")
            parts[lane] = name
            return
        parts[lane] = value.text
        del self.pending[key]
        guards = self.kernel.guards
        vector = guards.storage[group.buffer].vector_type
        lanes = ", ".join(parts[k] for k in range(4))
        self.emit(f"{guards.store4_helper(group.buffer)}({self.group_base(group)}, {vector}({lanes}));")

    @STATEMENT_EMITTERS.on(d.AtomicOp)
    def atomic(self, op: d.AtomicOp) -> None:
        buffer = op.buffer.data
        index = _coerce(self.take(op.index), U32)
        value = _coerce(self.take(op.value), U32)
        expected = None if op.expected is None else _coerce(self.take(op.expected), U32)
        self.flush(lambda v: buffer in v.buffers)
        call = self.kernel.guards.atomic(op.op_kind, buffer, index, value, expected)
        result = op.results[0]
        uses = list(result.uses)
        if not uses:
            self.emit(f"_ = {call};")
            return
        user = uses[0].operation
        if len(uses) == 1 and isinstance(user, d.LetOp) and op.next_op is user:
            # `let x = atomic ...`: declare the local with the atomic's result
            self.declare(user, Value(call, U32))
            self.declared.add(user)
            return
        name = self.kernel.namer.temporary(result.name_hint or "old")
        self.emit(f"let {name}: u32 = {call};")
        self.values[id(result)] = Value(name, U32, cheap=True)

    @STATEMENT_EMITTERS.on(d.IfOp)
    def if_(self, op: d.IfOp) -> None:
        cond = self.take(op.cond)
        self.flush(lambda v: v.reads_memory)
        if cond.const is not None:
            taken = op.then_block if any(cond.const) else op.else_block
            if taken.ops:
                self.emit("{")
                self.nested(taken)
                self.emit("}")
            return
        self.emit(f"if ({_truthy(cond)}) {{")
        self.nested(op.then_block)
        if op.else_block.ops:
            self.emit("} else {")
            self.nested(op.else_block)
        self.emit("}")

    @STATEMENT_EMITTERS.on(d.LoopOp)
    def loop(self, op: d.LoopOp) -> None:
        lower = _coerce(self.take(op.lower), U32)
        upper = _coerce(self.take(op.upper), U32)
        self.flush(lambda v: v.reads_memory)
        if lower.const is not None and upper.const is not None and lower.const[0] >= upper.const[0]:
            # Constant bounds that give no iteration: nothing to emit. (NVIDIA's driver
            # 580 crashed compiling such an empty loop before a call to a half-word
            # compare-exchange store; the same bits either way.)
            return
        var = self.local(op.var_name.data)
        copies = self.kernel.unroll.get(op)
        if copies is not None:
            self.checked_loop(op, var, lower, upper, copies)
            return
        if upper.reads_memory or not upper.cheap:
            # `to` is evaluated once, before the first iteration
            name = self.kernel.namer.temporary(f"{var}_end")
            self.emit(f"let {name}: u32 = {upper.text};")
            upper = Value(name, U32, cheap=True)
        self.emit(
            f"for (var {var}: u32 = {lower.text}; {var} < {upper.text}; {var} = {var} + 1u) {{"
        )
        self.nested(op.body_block, {op.var_name.data: U32})
        self.emit("}")

    def checked_loop(self, op: d.LoopOp, var: str, lower: Value, upper: Value, copies: int) -> None:
        """The loop for an adapter that stops loops silently (loops.py): `copies`
        bodies per WGSL iteration, each behind the exact exit test, then the
        check that the loop ended by its own condition."""
        self.emit("{")
        self.depth += 1
        end = self.kernel.namer.temporary(f"{var}_end")
        self.emit(f"var {var}: u32 = {lower.text};")
        self.emit(f"let {end}: u32 = {upper.text};")
        self.emit("loop {")
        self.depth += 1
        for _ in range(copies):
            self.emit(f"if ({var} >= {end}) {{")
            self.emit(f"{INDENT}break;")
            self.emit("}")
            self.emit("{")
            self.nested(op.body_block, {op.var_name.data: U32})
            self.emit("}")
            self.emit(f"{var} = {var} + 1u;")
        self.depth -= 1
        self.emit("}")
        for line in self.kernel.guards.loop_check(f"{var} < {end}"):
            self.emit(line)
        self.depth -= 1
        self.emit("}")

    # -- expressions ----------------------------------------------------------

    @EXPRESSION_EMITTERS.on(d.LitU32Op, d.LitI32Op, d.LitBoolOp)
    def literal(self, op: d.LitU32Op | d.LitI32Op | d.LitBoolOp) -> Value:
        return Value.constant(_kind(op.res.type), (op.value.data,))

    @EXPRESSION_EMITTERS.on(d.LitU128Op)
    def literal_u128(self, op: d.LitU128Op) -> Value:
        return Value.constant(U128, u128_lanes(op.value.data))

    @EXPRESSION_EMITTERS.on(d.LitFloatOp)
    def literal_float(self, op: d.LitFloatOp) -> Value:
        return Value.constant(op.float_kind, (op.bits.data,))

    @EXPRESSION_EMITTERS.on(d.LoadOp)
    def load(self, op: d.LoadOp) -> Value:
        index = _coerce(self.take(op.index), U32)
        lane = self.lane
        if lane is not None and (
            op.index in lane.shape.indices
            or (op.buffer.data in lane.shape.periodic and op.index in lane.shape.periodic_indices)
        ):
            element = self.lane_element(lane, op.buffer.data)
            if element is not None:
                return element
        member = self.kernel.combined.loads.get(op)
        if member is not None:
            return self.combined_load(op, *member)
        return self.kernel.guards.load(op.buffer.data, index)

    @EXPRESSION_EMITTERS.on(d.CastOp)
    def cast_value(self, op: d.CastOp) -> Value:
        return lower_cast(self.take(op.value), op.target.data_kind)

    @EXPRESSION_EMITTERS.on(d.BitcastOp)
    def bitcast(self, op: d.BitcastOp) -> Value:
        return lower_bitcast(self.take(op.value), _kind(op.res.type))

    @EXPRESSION_EMITTERS.on(d.BufLenOp)
    def buf_len(self, op: d.BufLenOp) -> Value:
        return self.kernel.guards.length(op.buffer.data)

    @EXPRESSION_EMITTERS.on(d.FloatOp)
    def strict_float(self, op: d.FloatOp) -> Value:
        raise float_arithmetic_error(f"float operation `{op.name}`")

    @EXPRESSION_EMITTERS.on(d.LookupOp)
    def lookup(self, op: d.LookupOp) -> Value:
        index = _coerce(self.take(op.index), U32)
        if index.const is not None:
            words = op.words
            return Value.constant(U32, (words[index.const[0]] if index.const[0] < len(words) else 0,))
        return self.kernel.guards.table_lookup(op.words, index)

    @EXPRESSION_EMITTERS.on(d.InvokeOp)
    def invoke(self, op: d.InvokeOp) -> Value:
        routine = self.kernel.routines[op.callee.data]
        args = [
            _coerce(self.take(arg), _kind(param.type))
            for arg, param in zip(op.args, routine.params, strict=True)
        ]
        text = f"{self.kernel.routine_names[op.callee.data]}({', '.join(a.text for a in args)})"
        return Value.derived(text, _kind(op.res.type), *args)

    @EXPRESSION_EMITTERS.on(d.AtomicOp)
    def atomic_expression(self, op: d.AtomicOp) -> Value:
        raise LoweringError(f"vyre lowering: unexpected expression `{op.name}`")

    def lane_element(self, lane: _Lane, buffer: str) -> Value | None:
        """The lane's element of a vector buffer at idx (None: not one)."""
        signature = lane.signature
        binding = lane.bindings[buffer]
        if buffer in signature.values:
            return Value(signature.values[buffer], binding.element, cheap=True)
        if buffer in signature.pointers:
            text = lane_load(binding, signature.pointers[buffer])
            return Value(text, binding.element, buffers=frozenset({buffer}))
        return None

    @EXPRESSION_EMITTERS.on(d.ApproximateUnaryOp)
    def approximate(self, op: d.ApproximateUnaryOp) -> Value:
        """The native f32 builtin on the word's bits: the one place where a float
        instruction reaches WGSL, for an op declared approximate."""
        operand = self.take(op.operand)
        builtin = op.TOLERANCE.builtin
        text = f"bitcast<u32>({builtin}(bitcast<f32>({operand.operand})))"
        return Value.derived(text, DataTypeKind.F32, operand, atomic=True)

    @EXPRESSION_EMITTERS.on(d.VarOp)
    def var(self, op: d.VarOp) -> Value:
        name = cast(StringAttr, op.properties["name"]).data  # `op.var_name`, without the descriptor
        kind = self.local_type(name)
        const = self.local_const(name)
        if const is not None:
            value = Value.constant(kind, const)
        else:
            value = Value(self.local(name), kind, locals=frozenset({name}), cheap=True)
        (result,) = op.results
        return _coerce(value, _kind(result.type))

    @EXPRESSION_EMITTERS.on(d.InvocationIdOp, d.WorkgroupIdOp, d.LocalIdOp)
    def id(self, op: d.IdOp) -> Value:
        which = _ID_FAMILY[type(op)]
        return Value(f"{self.ids[which]}.{AXES[op.axis.data]}", U32, cheap=True)

    @EXPRESSION_EMITTERS.on(d.BinOp)
    def binop(self, op: d.BinOp) -> Value:
        kind = _BINOP_KINDS[cast(StringAttr, op.properties["kind"]).data]  # `op.op_kind`
        left, right = op.operands
        lhs, rhs = self.take(left), self.take(right)
        if lhs.kind == U128:  # validated: both operands are u128
            return _u128_binop(self.kernel.guards, kind, lhs, _coerce(rhs, U128))
        lhs, rhs = _coerce(lhs, U32), _coerce(rhs, U32)
        if lhs.const is not None and rhs.const is not None:
            return Value.constant(U32, (fold_binop(kind, lhs.const[0], rhs.const[0]),))
        return BINOPS[kind](self.kernel.guards, kind, lhs, rhs)

    @EXPRESSION_EMITTERS.on(d.UnOp)
    def unop(self, op: d.UnOp) -> Value:
        kind = op.op_kind
        operand = self.take(op.operand)
        result = _kind(op.res.type)
        if operand.kind == U128:
            return _u128_unop(self.kernel.guards, kind, operand)
        if LANES.get(operand.kind) != 1:
            raise LoweringError(
                f"vyre lowering: unary {kind.value} of a `{operand.kind.value}` value. "
                "Fix: cast the operand to u32 or i32."
            )
        if operand.const is not None:
            return Value.constant(result, (fold_unop(kind, operand.const[0]),))
        return _coerce(UNOPS[kind](kind, operand, result), result)

    @EXPRESSION_EMITTERS.on(d.CallOp)
    def call(self, op: d.CallOp) -> Value:
        """A Category C intrinsic left as a call by inline-calls: its WGSL builtin."""
        op_id = op.op_id.data
        args = [self.take(arg) for arg in op.args]
        kind = _kind(op.res.type)
        constants = [arg.const for arg in args]
        if op_id in SCALAR and LANES.get(kind) == 1 and all(
            c is not None and len(c) == 1 for c in constants
        ):
            folded = SCALAR[op_id](*(c[0] for c in constants if c is not None))
            return Value.constant(kind, (folded,))
        return self.kernel.guards.intrinsic_call(wgsl_builtin(op_id), args, kind)

    @EXPRESSION_EMITTERS.on(d.SelectOp)
    def select(self, op: d.SelectOp) -> Value:
        cond = self.take(op.cond)
        kind = _kind(op.res.type)
        if_true = _coerce(self.take(op.if_true), kind)
        if_false = _coerce(self.take(op.if_false), kind)
        if cond.const is not None:
            # both arms are evaluated: they are free of effects (atomics run apart)
            return if_true if any(cond.const) else if_false
        lazy = self._lazy_call_arm(op)
        if lazy is not None and LANES.get(kind) == 1:
            return self._call_where_picked(cond, if_true, if_false, lazy, kind)
        text = f"select({if_false.text}, {if_true.text}, {_truthy(cond)})"
        return Value.derived(text, kind, cond, if_true, if_false)

    def _lazy_call_arm(self, op: d.SelectOp) -> bool | None:
        """Which arm of `op` is a routine call made for it alone and not yet
        emitted (True: if_true, False: if_false), or None. Such a call is made
        only where the select picks it: a routine is pure, so skipping it where
        its value is dropped changes nothing, and it saves the whole call on a
        GPU whose lanes all pick the other arm (a fast path and its fallback)."""
        for arm, which in ((op.if_false, False), (op.if_true, True)):
            if is_fallback_call(arm.owner):
                value = self.values.get(id(arm))
                if value is not None and not value.cheap:
                    return which
        return None

    def _call_where_picked(
        self, cond: Value, if_true: Value, if_false: Value, lazy: bool, kind: DataTypeKind
    ) -> Value:
        """`var r = <other arm>; if (<the call's side>) { r = <call>; }`."""
        name = self.kernel.namer.temporary(None)
        eager, call = (if_false, if_true) if lazy else (if_true, if_false)
        test = _truthy(cond) if lazy else f"!({_truthy(cond)})"
        self.emit(f"var {name}: {wgsl_type(kind)} = {eager.text};")
        self.emit(f"if ({test}) {{")
        self.emit(f"{INDENT}{name} = {call.text};")
        self.emit("}")
        return Value(name, kind, cheap=True)


_BinaryEmitter = Callable[[Guards, BinOpKind, Value, Value], Value]
BINOPS: OpTable[BinOpKind, _BinaryEmitter] = OpTable("WGSL binary operators", lambda: BinOpKind)
"""The WGSL of `lhs <kind> rhs` on u32 words (not both constant: those fold)."""


def _operator(symbol: str) -> _BinaryEmitter:
    def emit(guards: Guards, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        return Value.derived(f"{lhs.operand} {symbol} {rhs.operand}", U32, lhs, rhs, atomic=False)

    return emit


def _comparison(symbol: str) -> _BinaryEmitter:
    def emit(guards: Guards, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        test = f"{lhs.operand} {symbol} {rhs.operand}"
        return Value.derived(f"u32({test})", U32, lhs, rhs, condition=test)

    return emit


def _logical(guards: Guards, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
    if lhs.const is not None or rhs.const is not None:
        # And/Or with one constant side: the result is constant or the other side's
        # truth (that side has no effects to keep: atomics are never inlined)
        known, other = (lhs, rhs) if lhs.const is not None else (rhs, lhs)
        assert known.const is not None
        if any(known.const) == (kind == BinOpKind.OR):
            return Value.constant(U32, (int(kind == BinOpKind.OR),))
        test = _truthy(other)
    else:
        symbol = "&" if kind == BinOpKind.AND else "|"
        test = f"({_truthy(lhs)}) {symbol} ({_truthy(rhs)})"
    return Value.derived(f"u32({test})", U32, lhs, rhs, condition=test)


for _kind_, _symbol in (
    (BinOpKind.ADD, "+"), (BinOpKind.SUB, "-"), (BinOpKind.MUL, "*"),
    (BinOpKind.BIT_AND, "&"), (BinOpKind.BIT_OR, "|"), (BinOpKind.BIT_XOR, "^"),
):  # fmt: skip
    BINOPS.add(_kind_, _operator(_symbol))
for _kind_, _symbol in (
    (BinOpKind.EQ, "=="), (BinOpKind.NE, "!="), (BinOpKind.LT, "<"),
    (BinOpKind.GT, ">"), (BinOpKind.LE, "<="), (BinOpKind.GE, ">="),
):  # fmt: skip
    BINOPS.add(_kind_, _comparison(_symbol))
BINOPS.add(BinOpKind.DIV, lambda guards, kind, lhs, rhs: guards.divide(kind, lhs, rhs))
BINOPS.add(BinOpKind.MOD, lambda guards, kind, lhs, rhs: guards.divide(kind, lhs, rhs))
BINOPS.add(BinOpKind.SHL, lambda guards, kind, lhs, rhs: guards.shift(kind, lhs, rhs))
BINOPS.add(BinOpKind.SHR, lambda guards, kind, lhs, rhs: guards.shift(kind, lhs, rhs))
BINOPS.add(BinOpKind.AND, _logical)
BINOPS.add(BinOpKind.OR, _logical)
BINOPS.add(BinOpKind.MUL_HIGH, lambda guards, kind, lhs, rhs: emit_mul_high(guards, lhs, rhs))
BINOPS.add(
    BinOpKind.DOT4_I8,
    lambda guards, kind, lhs, rhs: Value.derived(
        f"bitcast<u32>(dot4I8Packed({lhs.operand}, {rhs.operand}))", U32, lhs, rhs, atomic=False
    ),
)


_UnaryEmitter = Callable[[UnOpKind, Value, DataTypeKind], Value]
UNOPS: OpTable[UnOpKind, _UnaryEmitter] = OpTable("WGSL unary operators", lambda: UnOpKind)
"""The WGSL of `<kind> operand` on a one-lane (u32/i32/bool) value; the result is
coerced to the op's result type after."""


def _word(operand: Value) -> str:
    """The operand's bits as a u32 expression."""
    return f"bitcast<u32>({operand.text})" if operand.kind == I32 else operand.operand


def _negate(kind: UnOpKind, operand: Value, result: DataTypeKind) -> Value:
    if operand.kind == I32:
        text = f"bitcast<i32>(0u - {_word(operand)})"
        return Value.derived(text, operand.kind if result == I32 else U32, operand, atomic=True)
    return Value.derived(f"0u - {operand.operand}", U32, operand, atomic=False)


def _logical_not(kind: UnOpKind, operand: Value, result: DataTypeKind) -> Value:
    zero = "0i" if operand.kind == I32 else "0u"
    test = (
        f"!({operand.condition})"
        if operand.condition is not None
        else f"{operand.operand} == {zero}"
    )
    return Value.derived(f"u32({test})", U32, operand, condition=test)


def _builtin(name: str, on_word: bool) -> _UnaryEmitter:
    def emit(kind: UnOpKind, operand: Value, result: DataTypeKind) -> Value:
        text = f"{name}({_word(operand) if on_word else operand.text})"
        return Value.derived(text, operand.kind if result == I32 else U32, operand, atomic=True)

    return emit


def _bit_not(kind: UnOpKind, operand: Value, result: DataTypeKind) -> Value:
    text = f"~{operand.operand}"
    return Value.derived(text, operand.kind if result == I32 else U32, operand, atomic=False)


UNOPS.add(UnOpKind.NEGATE, _negate)
UNOPS.add(UnOpKind.BIT_NOT, _bit_not)
UNOPS.add(UnOpKind.LOGICAL_NOT, _logical_not)
UNOPS.add(UnOpKind.REVERSE_BITS, _builtin("reverseBits", on_word=False))
UNOPS.add(UnOpKind.POPCOUNT, _builtin("countOneBits", on_word=True))
UNOPS.add(UnOpKind.CLZ, _builtin("countLeadingZeros", on_word=True))
UNOPS.add(UnOpKind.CTZ, _builtin("countTrailingZeros", on_word=True))


_U128Binary = Callable[[Guards, BinOpKind, Value, Value], Value]
U128_BINOPS: OpTable[BinOpKind, _U128Binary] = OpTable(
    "WGSL u128 binary operators", lambda: d.U128_BINOP_KINDS
)
"""The WGSL of `lhs <kind> rhs` on two U128 (`vec4<u32>`) values, not both
constant: component-wise operators or the helpers of u128.py."""


def _u128_binop(guards: Guards, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
    if lhs.const is not None and rhs.const is not None:
        value = fold_u128_binop(kind, u128_value(lhs.const), u128_value(rhs.const))
        if kind in d.U128_COMPARISONS:
            return Value.constant(U32, (value,))
        return Value.constant(U128, u128_lanes(value))
    return U128_BINOPS[kind](guards, kind, lhs, rhs)


def _u128_bitwise(symbol: str) -> _U128Binary:
    def emit(guards: Guards, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        return Value.derived(f"{lhs.operand} {symbol} {rhs.operand}", U128, lhs, rhs, atomic=False)

    return emit


def _u128_arithmetic(what: str, make: Callable[[str, Callable[[str], str]], str]) -> _U128Binary:
    def emit(guards: Guards, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        helper = guards.u128_function(what, make)
        return Value.derived(f"{helper}({lhs.text}, {rhs.text})", U128, lhs, rhs)

    return emit


def _u128_order(swap: bool, negate: bool) -> _U128Binary:
    """`a < b` (swapped: `b < a`; negated: its complement) through the order helper."""

    def emit(guards: Guards, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        helper = guards.u128_function("less", u128.less)
        first, second = (rhs, lhs) if swap else (lhs, rhs)
        test = f"{'!' if negate else ''}{helper}({first.text}, {second.text})"
        return Value.derived(f"u32({test})", U32, lhs, rhs, condition=test)

    return emit


def _u128_equality(equal: bool) -> _U128Binary:
    def emit(guards: Guards, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        test = (
            f"all({lhs.operand} == {rhs.operand})"
            if equal
            else f"any({lhs.operand} != {rhs.operand})"
        )
        return Value.derived(f"u32({test})", U32, lhs, rhs, condition=test)

    return emit


for _kind_, _symbol in ((BinOpKind.BIT_AND, "&"), (BinOpKind.BIT_OR, "|"), (BinOpKind.BIT_XOR, "^")):
    U128_BINOPS.add(_kind_, _u128_bitwise(_symbol))
U128_BINOPS.add(BinOpKind.ADD, _u128_arithmetic("add", u128.add))
U128_BINOPS.add(BinOpKind.SUB, _u128_arithmetic("sub", u128.sub))
U128_BINOPS.add(BinOpKind.MUL, _u128_arithmetic("mul", u128.mul))
U128_BINOPS.add(BinOpKind.DIV, lambda guards, kind, lhs, rhs: guards.divide_u128(kind, lhs, rhs))
U128_BINOPS.add(BinOpKind.MOD, lambda guards, kind, lhs, rhs: guards.divide_u128(kind, lhs, rhs))
U128_BINOPS.add(BinOpKind.SHL, lambda guards, kind, lhs, rhs: guards.shift_u128(kind, lhs, rhs))
U128_BINOPS.add(BinOpKind.SHR, lambda guards, kind, lhs, rhs: guards.shift_u128(kind, lhs, rhs))
U128_BINOPS.add(BinOpKind.EQ, _u128_equality(equal=True))
U128_BINOPS.add(BinOpKind.NE, _u128_equality(equal=False))
U128_BINOPS.add(BinOpKind.LT, _u128_order(swap=False, negate=False))
U128_BINOPS.add(BinOpKind.GT, _u128_order(swap=True, negate=False))
U128_BINOPS.add(BinOpKind.LE, _u128_order(swap=True, negate=True))
U128_BINOPS.add(BinOpKind.GE, _u128_order(swap=False, negate=True))


U128_UNOPS: OpTable[UnOpKind, Callable[[Guards, Value], Value]] = OpTable(
    "WGSL u128 unary operators", lambda: d.U128_UNOP_KINDS
)
"""The WGSL of `<kind> operand` on a U128 value that is not constant."""


def _u128_unop(guards: Guards, kind: UnOpKind, operand: Value) -> Value:
    if operand.const is not None:
        value = fold_u128_unop(kind, u128_value(operand.const))
        if kind == UnOpKind.BIT_NOT:
            return Value.constant(U128, u128_lanes(value))
        return Value.constant(U32, (value,))
    return U128_UNOPS[kind](guards, operand)


def _u128_count(what: str, make: Callable[[str, Callable[[str], str]], str]) -> Callable[[Guards, Value], Value]:
    def emit(guards: Guards, operand: Value) -> Value:
        return Value.derived(f"{guards.u128_function(what, make)}({operand.text})", U32, operand)

    return emit


U128_UNOPS.add(
    UnOpKind.BIT_NOT,
    lambda guards, operand: Value.derived(f"~{operand.operand}", U128, operand, atomic=False),
)
U128_UNOPS.add(UnOpKind.POPCOUNT, _u128_count("popcount", u128.popcount))
U128_UNOPS.add(UnOpKind.CLZ, _u128_count("clz", u128.clz))
U128_UNOPS.add(UnOpKind.CTZ, _u128_count("ctz", u128.ctz))


_BINOP_KINDS: dict[str, BinOpKind] = {kind.value: kind for kind in BinOpKind}


def _use_count(value: SSAValue) -> int:
    """How many operands use `value` (xDSL's `uses.get_length()` without the
    wrapper object)."""
    count = 0
    use = value.first_use
    while use is not None:
        count += 1
        use = use._next_use  # pyright: ignore[reportPrivateUsage]
    return count


def _kind(ty: Any) -> DataTypeKind:
    if not isinstance(ty, d.DataTypeAttr):
        raise LoweringError(f"vyre lowering: `{ty}` is not a vyre data type")
    return ty.data_kind
