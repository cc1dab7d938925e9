"""Random valid, race-free vyre programs with their inputs (seeded, deterministic).

`random_case(seed)` builds a program, host words for each of its storage and
uniform buffers and a dispatch. Every program passes `vyre.validate` and has
one defined result: both backends must agree on it byte for byte.

How the programs stay race-free:
- Every invocation gets a dense linear number `gl` (computed from invocation
  ids, or from workgroup and local ids) and owns the slots
  `[gl*K, gl*K + K)` of each per-invocation ("owned") read_write buffer.
  It stores only to its own slots or out of bounds (a no-op), and loads its own
  slots, the tail slots past `T*K` (never written: they keep their input) or
  out of bounds (zero).
- The `own` buffer takes atomics of every kind, on own slots only, so the
  values they return are defined too.
- The `acc` buffer is shared by all invocations: each location takes a single
  commutative, associative atomic kind (add, or, and, xor, min, max), so its
  final value does not depend on the order; the values those atomics return
  are bound to locals that are never read.
- Workgroup buffers: each lane owns `[ll*M, ll*M + M)` (`ll` = linear local id).
  Barriers split the body into phases; write phases touch only own slots, read
  phases read any slot and write none. A barrier sits at the top level, in a
  top-level block, or in pairs inside a workgroup-uniform If or Loop (the phase
  flips and flips back, so it is the same on every path and every iteration).
  `return` appears only after the last barrier, so every barrier stays in
  uniform control flow.

The values are biased to the edges: divisors 0/1/0xFFFFFFFF, shift amounts
near 31/32/33, indices at both ends of buffers and out of bounds, and every
BinOp, UnOp, AtomicOp, cast and id op is drawn. U128 values come from buffers,
literals, casts and every u128 operator (comparisons and counts inside u32
expressions), biased to word boundaries: carries across words, divisors of one
to four words, shift amounts near 32, 64, 96 and 128.

`GeneratorConfig(float_focus=True)` makes float programs (the float-functions
fuzzer's): a buffer of every float format in and out, most values floats, every
strict float op of the dialect drawn alike (the correctly rounded functions
included, at most `max_functions` calls a program: GPU compilers inline each
call, so a program's compile time grows with them), the ops of `featured` half of the time, and
float values that also hit the functions' edges (`FUNCTION_EDGES`: overflow and
underflow thresholds, multiples of pi, huge arguments, the ends of the inverse
functions' domains). Programs of the default configuration are unchanged.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TypeVar

import numpy as np

from vyre.dialects import vyre as d
from vyre.ir import (
    AtomicOp,
    BinOp,
    BufferAccess,
    BufferDecl,
    DataType,
    Expr as E,
    Node as N,
    Program,
    UnOp,
    float_bits,
    float_op_expr,
    print_ir,
    public_member,
)
from vyre.validate import validate
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS

__all__ = ["GeneratorConfig", "RandomCase", "random_case"]

U32_EDGES = (
    0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF,
    0x10000, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF,
)
I32_EDGES = (0, 1, -1, 2, -2, 31, 32, 33, -31, -32, -33, 2**31 - 1, -(2**31), -(2**31) + 1)
DIVISORS = (0, 0, 1, 0xFFFF_FFFF, 2, 3, 0x8000_0000, 7)
SHIFTS = (31, 32, 33, 0, 1, 30, 63, 64, 0xFFFF_FFFF, 0x8000_0000 + 1)
COMMUTATIVE_ATOMICS = (
    AtomicOp.ADD, AtomicOp.OR, AtomicOp.AND, AtomicOp.XOR, AtomicOp.MIN, AtomicOp.MAX,
)
SCALARS = tuple(t for t in DataType if t.is_scalar)
VECTORS = tuple(t for t in DataType if t.lanes > 1 and t is not DataType.U128)
U128 = DataType.U128
U128_EDGES = (
    0, 1, 2, 0xFFFF, 0x1_0000, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1, 2**64, 2**64 + 1,
    2**96 - 1, 2**96, 2**127 - 1, 2**127, 2**128 - 2, 2**128 - 1, 0xFFFF_0000_FFFF_0000_FFFF_0000_FFFF_0000,
)
U128_DIVISORS = (0, 0, 1, 3, 0xFFFF, 2**32 - 1, 2**32 + 1, 2**64 - 1, 2**64, 2**96 + 7, 2**127, 2**128 - 1)
U128_SHIFTS = (0, 1, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129, 255, 2**32 + 5, 2**100 + 3)
U128_BINOPS = tuple(BinOp(kind.value) for kind in d.U128_BINOP_KINDS)
U128_COMPARISONS = tuple(BinOp(kind.value) for kind in d.U128_BINOP_KINDS if kind in d.U128_COMPARISONS)
U128_ARITHMETIC = tuple(op for op in U128_BINOPS if op not in U128_COMPARISONS)
U128_COUNTS = (UnOp.POPCOUNT, UnOp.CLZ, UnOp.CTZ)
FLOATS = tuple(t for t in DataType if t.is_float)
WORDS = {t: t.facts.words for t in DataType if not t.facts.half}
"""Words per element (F16/BF16 buffers hold two elements per word)."""
CASTS_TO: dict[DataType, tuple[DataType, ...]] = {
    DataType.U32: (*SCALARS, *VECTORS, U128, *FLOATS),
    DataType.I32: (*SCALARS, *VECTORS, U128, *FLOATS),
    DataType.BOOL: (*SCALARS, *VECTORS, U128),
    DataType.U64: (*SCALARS, DataType.U64, DataType.VEC2U32, U128),
    DataType.VEC2U32: (*SCALARS, DataType.U64, DataType.VEC2U32, U128),
    DataType.VEC4U32: (*SCALARS, *VECTORS, U128),
    DataType.F32: (DataType.U32, DataType.I32, *FLOATS),
    DataType.F16: (DataType.U32, DataType.I32, *FLOATS),
    DataType.BF16: (DataType.U32, DataType.I32, *FLOATS),
    U128: (*SCALARS, *VECTORS, U128),
}
"""Source -> the targets the cast table defines for it (docs/semantics.md;
docs/floats.md for floats; Bytes casts only to itself)."""

FLOAT_EDGES: dict[DataType, tuple[int, ...]] = {
    DataType.F32: (
        0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x007F_FFFF, 0x0080_0000, 0x0080_0001,
        0x3F80_0000, 0xBF80_0000, 0x3FC0_0000, 0x3F00_0000, 0x4B00_0000, 0x4EFF_FFFF, 0x4F00_0000,
        0xCF00_0000, 0x4F80_0000, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000,
        0x7FC0_0000, 0xFFC0_0001, 0x7F80_0001, 0x3EAA_AAAB, 0x3F7F_FFFF,
    ),
    DataType.F16: (
        0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3E00, 0x3800,
        0x6400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x7C01, 0x3555, 0x3BFF,
    ),
    DataType.BF16: (
        0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3FC0, 0x3F00,
        0x4B00, 0x4F00, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x3EAB,
    ),
}  # fmt: skip
"""Bit patterns the float values are drawn from half of the time: signed zeros,
subnormals, the normal boundary, ties, integer thresholds, max finite,
infinities and NaNs with payloads."""

FLOAT_BINARY: tuple[BinOp | UnOp, ...] = tuple(
    public_member(op) for op in d.STRICT_FLOAT_OPS if issubclass(op, d.FloatBinaryOp)
)
FLOAT_COMPARE: tuple[BinOp | UnOp, ...] = tuple(public_member(d.FCmpOp, p) for p in d.FLOAT_PREDICATES)
FLOAT_UNARY: tuple[BinOp | UnOp, ...] = tuple(
    public_member(op)
    for op in d.STRICT_FLOAT_OPS
    if issubclass(op, d.FloatUnaryOp) and not issubclass(op, d.FloatClassifyOp)
)
FLOAT_CLASSIFY: tuple[BinOp | UnOp, ...] = tuple(public_member(op) for op in d.ops_of(d.FloatClassifyOp))
"""Every strict float op of the dialect, as the public members the builder takes."""

IEEE_BINARY: tuple[type[d.FloatOp], ...] = (d.FAddOp, d.FSubOp, d.FMulOp, d.FDivOp, d.FMinOp, d.FMaxOp)
"""The binary operations IEEE 754 requires of every format; any other binary
float op of the dialect is a function (atan2)."""
FLOAT_FUNCTIONS: tuple[type[d.FloatOp], ...] = tuple(
    op
    for op in d.STRICT_FLOAT_OPS
    if issubclass(op, d.FloatFunctionOp) or (issubclass(op, d.FloatBinaryOp) and op not in IEEE_BINARY)
)
"""The correctly rounded functions, derived from the dialect: every
`FloatFunctionOp` and every binary float op beyond IEEE's (a function added to
the dialect is drawn without a change here)."""
FLOAT_OP_VARIANTS: tuple[tuple[type[d.FloatOp], str], ...] = tuple(
    (op, variant) for op in d.STRICT_FLOAT_OPS for variant in d.float_op_variants(op)
)
"""Every strict float op with each of its variants (the comparison's predicates)."""


def _function_edges(dtype: DataType) -> tuple[int, ...]:
    """Bit patterns where the functions turn: the overflow and underflow
    thresholds of exp/exp2/exp10 (and their neighbours), logs of the extremes,
    multiples of pi/4 and huge arguments (argument reduction), the ends of the
    inverse functions' domains, tiny arguments, near-overflow values."""
    width = 32 if dtype is DataType.F32 else 16
    largest = {DataType.F32: 3.4028234663852886e38, DataType.F16: 65504.0, DataType.BF16: 3.3895313892515355e38}[dtype]
    smallest = {DataType.F32: 2.0**-149, DataType.F16: 2.0**-24, DataType.BF16: 2.0**-133}[dtype]
    pi = 3.141592653589793
    values = [
        math.log(largest), math.log2(largest), math.log10(largest), math.log(smallest), math.log2(smallest),
        math.log10(smallest), math.log(smallest / 2), math.log2(smallest / 2),
        pi / 4, pi / 2, pi, 1.5 * pi, 2 * pi, 100 * pi, 1e4, 1e5 * pi, largest, largest / 2, 2.0**60, 2.0**100,
        1.0, 0.5, 0.7071067811865476, 0.8660254037844386, 1e-4, 2.0**-12, 2.0**-60, 10.0, 1000.0,
    ]  # fmt: skip
    patterns: set[int] = set()
    top = 1 << (width - 1)
    for value in values:
        bits = float_bits(dtype, min(value, largest))
        for near in (bits, bits + 1, bits - 1):
            if 0 <= near < top:
                patterns |= {near, near | top}
    return tuple(sorted(patterns))


FUNCTION_EDGES: dict[DataType, tuple[int, ...]] = {dtype: _function_edges(dtype) for dtype in FLOATS}
"""Float patterns at the correctly rounded functions' edges (both signs, and
the neighbours of each): drawn beside `FLOAT_EDGES` by float-focused programs."""

_T = TypeVar("_T")

MAX_STORAGE_BUFFERS = 8
"""WebGPU's default `maxStorageBuffersPerShaderStage`."""


@dataclass(frozen=True)
class GeneratorConfig:
    """What the generator may draw; switch features off to narrow a search."""

    max_statements: int = 8
    """Top-level statements per phase, at most."""
    max_depth: int = 3
    """Nesting of if/loop/block statements."""
    max_body_statements: int = 3
    """Statements in one if/loop/block body, at most."""
    max_expr_depth: int = 3
    max_workgroup_invocations: int = 16
    max_workgroups: int = 4
    vectors: bool = True
    atomics: bool = True
    workgroup: bool = True
    uniform: bool = True
    bytes_buffers: bool = True
    returns: bool = True
    empty_buffers: bool = True
    """Allow read-only buffers with no elements."""
    floats: bool = True
    """F32/F16/BF16 buffers, locals and every float operation."""
    u128: bool = True
    """U128 buffers, locals, literals, casts and every u128 operator."""
    float_focus: bool = False
    """Float programs (the module doc): every float format in and out, most
    values floats, every strict float op alike, the functions' edge values."""
    featured: tuple[tuple[type[d.FloatOp], str], ...] = ()
    """(float op class, variant) drawn half of the time a float op is drawn,
    with `float_focus` (a comparison's variant is its predicate, else "")."""
    max_functions: int = 2
    """With `float_focus`: calls of correctly rounded functions in one program,
    at most (GPU compilers inline each call: a program's compile time grows
    with them); the featured ones count too."""
    float_formats: tuple[DataType, ...] = ()
    """With `float_focus`: the float types of the values (empty: all three; the
    others still come through casts and loads of their buffers)."""


@dataclass(frozen=True)
class RandomCase:
    """A generated program, its inputs as host words, and its dispatch."""

    seed: int
    program: Program
    words: dict[str, np.ndarray]
    dispatch: tuple[int, int, int]
    lengths: dict[str, int] = field(default_factory=lambda: {})
    """Element counts of the F16/BF16 buffers (two elements per word): the
    backends' `lengths` argument."""

    def describe(self) -> str:
        """Everything needed to reproduce a mismatch: seed, dispatch, program, inputs."""
        lines = [f"seed={self.seed} dispatch={self.dispatch}", print_ir(self.program)]
        for name, words in self.words.items():
            lines.append(f"{name} = {[hex(int(w)) for w in words]}")
        return "\n".join(lines)


def random_case(seed: int, config: GeneratorConfig = GeneratorConfig()) -> RandomCase:
    """The case of `seed`: same seed and config, same program and inputs.

    Raises AssertionError (with the program text) if the program it built does
    not pass `vyre.validate`: that is a bug of the generator or the validator."""
    case = _Generator(seed, config).case()
    diagnostics = validate(case.program)
    assert not diagnostics, (
        f"random program of seed {seed} is invalid:\n"
        + "\n".join(d.message for d in diagnostics)
        + "\n"
        + print_ir(case.program)
    )
    return case


class Role(Enum):
    INPUT = "input"          # read_only/uniform: any index may be read
    OWNED = "owned"          # read_write, per-invocation slots + read-only tail
    SHARED = "shared"        # read_write u32, commutative atomics only
    PASS = "pass"            # read_write bytes: only its length is read
    TILE = "tile"            # workgroup, per-lane slots + phases


@dataclass
class _Buffer:
    decl: BufferDecl
    role: Role
    length: int
    """Logical element count (words for bytes)."""
    slots: int = 0
    """Owned slots per invocation (per lane for tiles)."""
    owned: int = 0
    """Elements in the owned region (T*K, or W*M for tiles)."""
    atomic_kinds: tuple[AtomicOp, ...] = ()
    """SHARED: the kind of location j is atomic_kinds[j % len(atomic_kinds)]."""

    @property
    def name(self) -> str:
        return self.decl.name

    @property
    def dtype(self) -> DataType:
        return self.decl.dtype


@dataclass
class _Local:
    name: str
    dtype: DataType
    mutable: bool


@dataclass
class _Generator:
    seed: int
    config: GeneratorConfig
    rng: random.Random = field(init=False)
    buffers: list[_Buffer] = field(default_factory=lambda: [])
    scopes: list[list[_Local]] = field(default_factory=lambda: [[]])
    counter: int = 0
    phase_writes_tiles: bool = True
    returns_allowed: bool = False
    loop_depth: int = 0
    function_calls: int = 0
    """Calls of correctly rounded functions drawn so far (float_focus: at most
    `max_functions`)."""

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    # -- randomness helpers --------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, items: Sequence[_T]) -> _T:
        return items[self.rng.randrange(len(items))]

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- shape of the dispatch and the buffers --------------------------------
    def _dims(self, limit: int) -> tuple[int, int, int]:
        while True:
            dims = (self.pick((1, 1, 2, 3, 4, 8, 16)), self.pick((1, 1, 1, 2, 3)), self.pick((1, 1, 1, 2)))
            if dims[0] * dims[1] * dims[2] <= limit:
                return dims

    def case(self) -> RandomCase:
        cfg = self.config
        self.workgroup_size = self._dims(cfg.max_workgroup_invocations)
        self.dispatch = self._dims(cfg.max_workgroups)
        self.lanes = int(np.prod(self.workgroup_size))
        self.invocations = self.lanes * int(np.prod(self.dispatch))
        self._declare_buffers()
        body = self._body()
        program = Program(
            buffers=[b.decl for b in self.buffers],
            workgroup_size=self.workgroup_size,
            entry=body,
            name=f"random_{self.seed}",
        )
        lengths = {
            b.name: b.length
            for b in self.buffers
            if b.dtype in (DataType.F16, DataType.BF16) and b.role is not Role.TILE
        }
        return RandomCase(self.seed, program, self._inputs(), self.dispatch, lengths)

    def _declare_buffers(self) -> None:
        cfg = self.config
        rng = self.rng
        specs: list[tuple[str, BufferAccess, DataType, Role]] = [
            ("ru", BufferAccess.READ_ONLY, DataType.U32, Role.INPUT),
            ("out", BufferAccess.READ_WRITE, DataType.U32, Role.OWNED),
        ]
        optional: list[tuple[str, BufferAccess, DataType, Role]] = [
            ("ri", BufferAccess.READ_ONLY, DataType.I32, Role.INPUT),
            ("rb", BufferAccess.READ_ONLY, DataType.BOOL, Role.INPUT),
            ("oi", BufferAccess.READ_WRITE, DataType.I32, Role.OWNED),
            ("ob", BufferAccess.READ_WRITE, DataType.BOOL, Role.OWNED),
        ]
        if cfg.vectors:
            optional += [
                ("r64", BufferAccess.READ_ONLY, DataType.U64, Role.INPUT),
                ("rv2", BufferAccess.READ_ONLY, DataType.VEC2U32, Role.INPUT),
                ("rv4", BufferAccess.READ_ONLY, DataType.VEC4U32, Role.INPUT),
                ("o64", BufferAccess.READ_WRITE, DataType.U64, Role.OWNED),
                ("ov2", BufferAccess.READ_WRITE, DataType.VEC2U32, Role.OWNED),
                ("ov4", BufferAccess.READ_WRITE, DataType.VEC4U32, Role.OWNED),
            ]
        if cfg.atomics:
            optional += [
                ("own", BufferAccess.READ_WRITE, DataType.U32, Role.OWNED),
                ("acc", BufferAccess.READ_WRITE, DataType.U32, Role.SHARED),
            ]
        if cfg.floats:
            optional += [
                ("rf", BufferAccess.READ_ONLY, DataType.F32, Role.INPUT),
                ("rh", BufferAccess.READ_ONLY, DataType.F16, Role.INPUT),
                ("rg", BufferAccess.READ_ONLY, DataType.BF16, Role.INPUT),
                ("of", BufferAccess.READ_WRITE, DataType.F32, Role.OWNED),
                ("oh", BufferAccess.READ_WRITE, DataType.F16, Role.OWNED),
                ("og", BufferAccess.READ_WRITE, DataType.BF16, Role.OWNED),
            ]
        if cfg.u128:
            optional += [
                ("r128", BufferAccess.READ_ONLY, U128, Role.INPUT),
                ("o128", BufferAccess.READ_WRITE, U128, Role.OWNED),
            ]
        if cfg.bytes_buffers:
            optional += [
                ("rbytes", BufferAccess.READ_ONLY, DataType.BYTES, Role.INPUT),
                ("obytes", BufferAccess.READ_WRITE, DataType.BYTES, Role.PASS),
            ]
        rng.shuffle(optional)
        for spec in optional:
            if len(specs) < MAX_STORAGE_BUFFERS and self.chance(0.45):
                specs.append(spec)
        if cfg.float_focus:  # every float format in and out, in place of the rest
            specs = specs[:2] + [s for s in optional if s[2] in FLOATS]
        rng.shuffle(specs)
        if cfg.uniform and self.chance(0.4):
            specs.insert(rng.randrange(len(specs) + 1), ("par", BufferAccess.UNIFORM, DataType.U32, Role.INPUT))
        bindings = sorted(rng.sample(range(len(specs) + 3), len(specs)))
        slots = self.pick((1, 1, 2, 3, 4))
        for (name, access, dtype, role), binding in zip(specs, bindings, strict=True):
            decl = BufferDecl(name, binding, access, dtype)
            if role is Role.INPUT:
                low = 0 if cfg.empty_buffers else 1
                length = self.pick((low, 1, 2, 3, 5, 8, 16, 33, 64))
                if cfg.float_focus and dtype in FLOATS:
                    length = self.pick((low, 16, 33, 64, 64))
                if access is BufferAccess.UNIFORM:
                    length = self.pick((1, 2, 4, 5, 8))
                self.buffers.append(_Buffer(decl, role, length))
            elif role is Role.OWNED:
                owned = self.invocations * slots
                tail = self.pick((0, 0, 1, 2, 3))
                self.buffers.append(_Buffer(decl, role, owned + tail, slots, owned))
            elif role is Role.SHARED:
                kinds = tuple(self.pick(COMMUTATIVE_ATOMICS) for _ in range(self.pick((1, 2, 3, 4))))
                length = len(kinds) * self.pick((1, 2, 3))
                self.buffers.append(_Buffer(decl, role, length, atomic_kinds=kinds))
            else:
                self.buffers.append(_Buffer(decl, role, self.pick((1, 2, 5))))
        if cfg.workgroup and self.chance(0.6):
            for _ in range(self.pick((1, 1, 2))):
                dtype = self.pick(
                    (DataType.U32, DataType.U32, DataType.I32, DataType.BOOL,
                     *(VECTORS if cfg.vectors else ()), *(FLOATS if cfg.floats else ()),
                     *((U128,) if cfg.u128 else ()))
                )  # fmt: skip
                per_lane = self.pick((1, 1, 2))
                owned = self.lanes * per_lane
                count = max(1, owned + self.pick((-1, 0, 0, 0, 1, 3)))
                decl = BufferDecl.workgroup(self.fresh("tile"), count, dtype)
                self.buffers.append(_Buffer(decl, Role.TILE, count, per_lane, owned))

    def _inputs(self) -> dict[str, np.ndarray]:
        words: dict[str, np.ndarray] = {}
        for buf in self.buffers:
            if buf.role is Role.TILE:
                continue
            if buf.dtype in (DataType.F16, DataType.BF16):
                halves = [self.float_pattern(buf.dtype) for _ in range(buf.length)]
                halves += [0] * (len(halves) % 2)
                packed = [lo | hi << 16 for lo, hi in zip(halves[::2], halves[1::2], strict=True)]
                words[buf.name] = np.array(packed, dtype=np.uint32)
                continue
            if buf.dtype is DataType.F32:
                values = [self.float_pattern(DataType.F32) for _ in range(buf.length)]
                words[buf.name] = np.array(values, dtype=np.uint32)
                continue
            if buf.dtype is U128:
                wide = [self.u128_value(U128_EDGES) for _ in range(buf.length)]
                words[buf.name] = np.array([d.u128_lanes(v) for v in wide], dtype=np.uint32).reshape(-1)
                continue
            values = [self._input_word(buf) for _ in range(buf.length * WORDS[buf.dtype])]
            if buf.role is Role.SHARED:
                values = [self.pick((0, 0, 0xFFFF_FFFF, 1, 0x8000_0000)) for _ in values]
            words[buf.name] = np.array(values, dtype=np.uint32)
        return words

    def _input_word(self, buf: _Buffer) -> int:
        if buf.dtype is DataType.BOOL:
            return self.pick((0, 1, 0, 1, 2, 0xFFFF_FFFF, 0x8000_0000))
        if self.chance(0.5):
            return self.pick(U32_EDGES)
        return self.rng.getrandbits(32)

    def buffers_of(self, *roles: Role) -> list[_Buffer]:
        return [b for b in self.buffers if b.role in roles]

    # -- statements -----------------------------------------------------------
    def _body(self) -> list[N]:
        """Preamble (linear ids), then phases split by barriers. A phase may also
        hold a uniform if/loop whose body flips the phase twice (so it ends
        where it began); `return` appears only in the last phase."""
        body = self._preamble()
        tiles = self.buffers_of(Role.TILE)
        if not self.config.workgroup:
            barriers = 0
        elif tiles:
            barriers = self.pick((0, 1, 1, 2, 3))
        else:
            barriers = self.pick((0, 0, 1))
        for phase in range(barriers + 1):
            self.phase_writes_tiles = phase % 2 == 0
            last = phase == barriers
            pair = self.config.workgroup and self.chance(0.4 if tiles else 0.15)
            self.returns_allowed = last and not pair and self.config.returns
            count = self.rng.randint(1, self.config.max_statements)
            body += self.statements(count, depth=0)
            if pair:
                body.append(self.uniform_barrier_pair())
            if not last:
                body += self.phase_flip()
        return body

    def phase_flip(self) -> list[N]:
        """A barrier that ends the current phase: bare, or inside a block."""
        if self.chance(0.7):
            self.phase_writes_tiles = not self.phase_writes_tiles
            return [N.barrier()]

        def build() -> list[N]:
            nodes = self.statements(self.rng.randint(0, 3), depth=1)
            nodes.append(N.barrier())
            self.phase_writes_tiles = not self.phase_writes_tiles
            return nodes + self.statements(self.rng.randint(0, 3), depth=1)

        return [N.block(self.nested(build))]

    def uniform_barrier_pair(self) -> N:
        """A workgroup-uniform If or Loop whose body holds two barriers: the
        phase flips and flips back, so it is the same after the statement, on
        every path and after every iteration."""
        start = self.phase_writes_tiles

        def build() -> list[N]:
            nodes = self.statements(self.rng.randint(0, 3), depth=1)
            nodes.append(N.barrier())
            self.phase_writes_tiles = not start
            nodes += self.statements(self.rng.randint(0, 3), depth=1)
            nodes.append(N.barrier())
            self.phase_writes_tiles = start
            return nodes + self.statements(self.rng.randint(0, 2), depth=1)

        if self.chance(0.5):
            cond = self.uniform_u32(2)
            then = self.nested(build)
            otherwise = self.nested(build) if self.chance(0.5) else []
            return N.if_(cond, then, otherwise)
        var = self.fresh("i")
        lower = E.u32(self.pick((0, 1))) if self.chance(0.6) else E.mod(self.uniform_u32(1), E.u32(2))
        upper = E.u32(self.pick((0, 1, 2, 3))) if self.chance(0.6) else E.mod(self.uniform_u32(1), E.u32(4))
        self.loop_depth += 1
        try:
            body = self.nested(build, _Local(var, DataType.U32, mutable=False))
        finally:
            self.loop_depth -= 1
        return N.loop(var, lower, upper, body)

    def uniform_u32(self, depth: int) -> E:
        """A u32 that every invocation of a workgroup computes alike."""
        inputs = [b for b in self.buffers_of(Role.INPUT) if b.dtype is DataType.U32]
        match self.rng.randrange(5 if depth > 0 else 4):
            case 0:
                return E.u32(self.pick(U32_EDGES))
            case 1:
                return E.workgroup_id(self.rng.randrange(3))
            case 2:
                return E.buf_len(self.pick([b.name for b in self.buffers]))
            case 3 if inputs:
                buf = self.pick(inputs)
                return E.load(buf.name, E.u32(self.rng.randrange(buf.length + 1)))
            case 3:
                return E.workgroup_id(0)
            case _:
                op = self.pick(list(INT_BINOPS))
                return E.binop(op, self.uniform_u32(depth - 1), self.uniform_u32(depth - 1))

    def _preamble(self) -> list[N]:
        wx, wy, _ = self.workgroup_size
        dx, dy, _ = self.dispatch
        nx, ny = dx * wx, dy * wy
        if self.chance(0.5):
            linear = E.add(
                E.add(E.mul(E.invocation_id(2), E.u32(nx * ny)), E.mul(E.invocation_id(1), E.u32(nx))),
                E.invocation_id(0),
            )
        else:
            group = E.add(
                E.mul(E.add(E.mul(E.workgroup_id(2), E.u32(dy)), E.workgroup_id(1)), E.u32(dx)),
                E.workgroup_id(0),
            )
            linear = E.add(E.mul(group, E.u32(self.lanes)), self._local_linear())
        nodes = [N.let("gl", linear), N.let("ll", self._local_linear())]
        self.declare("gl", DataType.U32, mutable=False)
        self.declare("ll", DataType.U32, mutable=False)
        return nodes

    def _local_linear(self) -> E:
        wx, wy, _ = self.workgroup_size
        return E.add(
            E.add(E.mul(E.local_id(2), E.u32(wx * wy)), E.mul(E.local_id(1), E.u32(wx))),
            E.local_id(0),
        )

    def declare(self, name: str, dtype: DataType, *, mutable: bool) -> None:
        self.scopes[-1].append(_Local(name, dtype, mutable))

    def locals_of(self, dtype: DataType, *, mutable: bool = False) -> list[_Local]:
        return [
            local
            for scope in self.scopes
            for local in scope
            if local.dtype is dtype and (local.mutable or not mutable)
        ]

    def nested(self, build: Callable[[], list[N]], extra: _Local | None = None) -> list[N]:
        self.scopes.append([] if extra is None else [extra])
        try:
            return build()
        finally:
            self.scopes.pop()

    def body_size(self) -> int:
        return self.rng.randint(0, self.config.max_body_statements)

    def statements(self, count: int, depth: int) -> list[N]:
        nodes: list[N] = []
        for _ in range(count):
            nodes += self.statement(depth)
        return nodes

    def statement(self, depth: int) -> list[N]:
        kinds: list[tuple[str, int]] = [("let", 6), ("store", 6), ("assign", 2)]
        if depth < self.config.max_depth:
            kinds += [("if", 2), ("block", 1)]
            if self.loop_depth < 2:
                kinds += [("loop", 2)]
        if self.buffers_of(Role.SHARED):
            kinds.append(("shared_atomic", 2))
        if self.returns_allowed and depth > 0:
            kinds.append(("return", 1))
        names, weights = zip(*kinds, strict=True)
        kind = self.rng.choices(names, weights)[0]
        match kind:
            case "let":
                dtype = self.value_type()
                value = self.expr(dtype, self.config.max_expr_depth)
                name = self.fresh("v")
                self.declare(name, dtype, mutable=True)
                return [N.let(name, value)]
            case "assign":
                dtype = self.value_type()
                targets = self.locals_of(dtype, mutable=True)
                if not targets:
                    return []
                return [N.assign(self.pick(targets).name, self.expr(dtype, self.config.max_expr_depth))]
            case "store":
                return self.store()
            case "if":
                cond = self.expr(self.pick((DataType.U32, DataType.BOOL)), 2)
                then = self.nested(lambda: self.statements(self.body_size(), depth + 1))
                otherwise = (
                    self.nested(lambda: self.statements(max(1, self.body_size()), depth + 1))
                    if self.chance(0.5)
                    else []
                )
                return [N.if_(cond, then, otherwise)]
            case "block":
                return [N.block(self.nested(lambda: self.statements(self.body_size(), depth + 1)))]
            case "loop":
                return [self.loop(depth)]
            case "shared_atomic":
                return [self.shared_atomic()]
            case _:
                return [N.return_()]

    def value_type(self) -> DataType:
        if self.config.float_focus:
            if self.chance(0.7):
                return self.pick(self.config.float_formats or FLOATS)
            return self.pick((DataType.U32, DataType.U32, DataType.I32, DataType.BOOL))
        if self.config.u128 and self.chance(0.1):
            return U128
        if self.config.vectors and self.chance(0.2):
            return self.pick(VECTORS)
        if self.config.floats and self.chance(0.25):
            return self.pick(FLOATS)
        return self.pick((DataType.U32, DataType.U32, DataType.U32, DataType.I32, DataType.BOOL))

    def loop(self, depth: int) -> N:
        var = self.fresh("i")
        if self.chance(0.15):
            start = self.pick((0xFFFF_FFFD, 0xFFFF_FFFE, 0xFFFF_FFFF))
            lower, upper = E.u32(start), E.u32(0xFFFF_FFFF)
        else:
            lower = E.u32(self.pick((0, 0, 1, 2, 5))) if self.chance(0.7) else E.mod(self.expr(DataType.U32, 1), E.u32(3))
            upper = E.u32(self.pick((0, 1, 2, 3, 4))) if self.chance(0.7) else E.mod(self.expr(DataType.U32, 1), E.u32(5))
        self.loop_depth += 1
        try:
            body = self.nested(
                lambda: self.statements(max(1, self.body_size()), depth + 1),
                _Local(var, DataType.U32, mutable=False),
            )
        finally:
            self.loop_depth -= 1
        return N.loop(var, lower, upper, body)

    def store(self) -> list[N]:
        targets = self.buffers_of(Role.OWNED)
        if self.phase_writes_tiles:
            targets += self.buffers_of(Role.TILE)
        if not targets:
            return []
        buf = self.pick(targets)
        index = self.own_index(buf, write=True)
        return [N.store(buf.name, index, self.expr(buf.dtype, self.config.max_expr_depth))]

    def shared_atomic(self) -> N:
        buf = self.pick(self.buffers_of(Role.SHARED))
        kinds = buf.atomic_kinds
        groups = buf.length // len(kinds)
        value = self.expr(DataType.U32, 2)
        if self.chance(0.15):
            index = self.pick((E.u32(buf.length), E.u32(0xFFFF_FFFF), E.bitor(self.expr(DataType.U32, 1), E.u32(0x8000_0000))))
            op = self.pick(list(AtomicOp))
            expected = self.expr(DataType.U32, 1) if op is AtomicOp.COMPARE_EXCHANGE else None
            return N.let(self.fresh("d"), E.atomic(op, buf.name, index, value, expected))
        j = self.rng.randrange(len(kinds))
        if groups > 1 and self.chance(0.5):
            group = E.mod(self.expr(DataType.U32, 1), E.u32(groups))
            index = E.add(E.mul(group, E.u32(len(kinds))), E.u32(j))
        else:
            index = E.u32(j + len(kinds) * self.rng.randrange(groups))
        # the returned value depends on the order of invocations: never read it
        return N.let(self.fresh("d"), E.atomic(kinds[j], buf.name, index, value))

    # -- indices -------------------------------------------------------------
    def any_index(self, buf: _Buffer) -> E:
        """An index for a buffer nobody writes (or a tile in a read phase)."""
        n = buf.length
        match self.rng.randrange(7):
            case 0:
                return E.u32(self.pick((0, 1, max(n - 1, 0), n, n + 1, 0xFFFF_FFFF, 0x8000_0000)))
            case 1:
                return E.sub(E.buf_len(buf.name), E.u32(self.pick((0, 1, 2))))
            case 2:
                return E.mod(self.expr(DataType.U32, 1), E.u32(n + 2))
            case 3:
                return E.add(E.var(self.pick(("gl", "ll"))), E.u32(self.pick((0, 1, 0xFFFF_FFFF))))
            case 4:
                loop_vars = [v for v in self.locals_of(DataType.U32) if v.name.startswith("i")]
                if loop_vars:
                    return E.var(self.pick(loop_vars).name)
                return E.u32(self.rng.randrange(n + 2))
            case 5:
                return self.expr(DataType.U32, 1)
            case _:
                return E.u32(self.rng.randrange(n + 2))

    def own_index(self, buf: _Buffer, *, write: bool) -> E:
        """An index of one of this invocation's (lane's) slots, a never-written
        tail slot (reads only) or out of bounds."""
        owner = "ll" if buf.role is Role.TILE else "gl"
        base = E.mul(E.var(owner), E.u32(buf.slots))
        roll = self.rng.random()
        if roll < 0.7:
            if self.chance(0.6):
                return E.add(base, E.u32(self.rng.randrange(buf.slots)))
            return E.add(base, E.mod(self.expr(DataType.U32, 1), E.u32(buf.slots)))
        tail = buf.length - buf.owned
        if roll < 0.8 and not write and tail > 0:
            if self.chance(0.5):
                return E.u32(buf.owned + self.rng.randrange(tail))
            return E.sub(E.buf_len(buf.name), E.u32(1 + self.rng.randrange(tail)))
        match self.rng.randrange(4):
            case 0:
                return E.u32(buf.length + self.pick((0, 1, 7)))
            case 1:
                return E.u32(self.pick((0xFFFF_FFFF, 0x8000_0000)))
            case 2:
                return E.bitor(self.expr(DataType.U32, 1), E.u32(0x8000_0000))
            case _:
                return E.add(E.buf_len(buf.name), E.mod(self.expr(DataType.U32, 1), E.u32(4)))

    def load(self, dtype: DataType) -> E | None:
        candidates = [
            b for b in self.buffers if b.dtype is dtype and b.role in (Role.INPUT, Role.OWNED, Role.TILE)
        ]
        if not candidates:
            return None
        buf = self.pick(candidates)
        if buf.role is Role.INPUT or (buf.role is Role.TILE and not self.phase_writes_tiles):
            return E.load(buf.name, self.any_index(buf))
        return E.load(buf.name, self.own_index(buf, write=False))

    # -- expressions ------------------------------------------------------------
    def expr(self, dtype: DataType, depth: int) -> E:
        for _ in range(8):
            built = self._expr(dtype, depth)
            if built is not None:
                return built
        return self.literal(dtype)

    def literal(self, dtype: DataType) -> E:
        match dtype:
            case DataType.U32:
                if self.chance(0.6):
                    return E.u32(self.pick(U32_EDGES))
                return E.u32(self.rng.getrandbits(32))
            case DataType.I32:
                if self.chance(0.6):
                    return E.i32(self.pick(I32_EDGES))
                return E.i32(self.rng.getrandbits(32) - 2**31)
            case DataType.BOOL:
                return E.bool_(self.chance(0.5))
            case DataType.F32 | DataType.F16 | DataType.BF16:
                return E.float_bits(dtype, self.float_pattern(dtype))
            case DataType.U128:
                return E.u128(self.u128_value(U128_EDGES))
            case _:
                return E.cast(dtype, self.literal(self.pick(SCALARS)))

    def u128_value(self, edges: Sequence[int]) -> int:
        """A 128-bit value: an edge, an edge plus or minus a little, or random
        bits of one to four words."""
        roll = self.rng.random()
        if roll < 0.5:
            return self.pick(edges)
        if roll < 0.65:
            return (self.pick(edges) + self.rng.randrange(-3, 4)) % 2**128
        return self.rng.getrandbits(self.pick((8, 32, 64, 96, 128)))

    def float_pattern(self, dtype: DataType) -> int:
        """A bit pattern of `dtype`: an edge, near one, or any."""
        roll = self.rng.random()
        if self.config.float_focus and roll < 0.35:
            return self.pick(FUNCTION_EDGES[dtype])
        if roll < 0.5:
            return self.pick(FLOAT_EDGES[dtype])
        width = 32 if dtype is DataType.F32 else 16
        if roll < 0.7:  # close to 1.0 and to each other: ties, cancellation
            one = {DataType.F32: 0x3F80_0000, DataType.F16: 0x3C00, DataType.BF16: 0x3F80}[dtype]
            return (one + self.rng.randrange(-64, 64)) & ((1 << width) - 1) | (self.rng.getrandbits(1) << (width - 1))
        return self.rng.getrandbits(width)

    def _expr(self, dtype: DataType, depth: int) -> E | None:
        if depth <= 0 or self.chance(0.2):
            return self.leaf(dtype)
        roll = self.rng.random()
        if roll < 0.15:
            return E.select(
                self.expr(self.pick((DataType.U32, DataType.BOOL)), depth - 1),
                self.expr(dtype, depth - 1),
                self.expr(dtype, depth - 1),
            )
        if roll < 0.3:
            sources = [s for s, targets in CASTS_TO.items() if dtype in targets]
            if not self.config.vectors:
                sources = [s for s in sources if s not in VECTORS]
            if not self.config.floats:
                sources = [s for s in sources if s not in FLOATS]
            if not self.config.u128:
                sources = [s for s in sources if s is not U128]
            return E.cast(dtype, self.expr(self.pick(sources), depth - 1))
        if dtype in FLOATS:
            return self.float_expr(dtype, roll, depth)
        if dtype is U128:
            return self.u128_expr(roll, depth)
        if dtype is DataType.BOOL and self.config.float_focus and roll < 0.7:
            return self.focused_bool_expr(depth)
        if dtype is DataType.BOOL and self.config.floats and roll < 0.55:
            operand = self.pick(FLOATS)
            if roll < 0.45:
                left, right = self.expr(operand, depth - 1), self.expr(operand, depth - 1)
                compare = self.pick(FLOAT_COMPARE)
                assert isinstance(compare, BinOp)
                return E.binop(compare, left, right)
            test = self.pick(FLOAT_CLASSIFY)
            assert isinstance(test, UnOp)
            return E.unop(test, self.expr(operand, depth - 1))
        if dtype is DataType.U32 and self.config.floats and roll < 0.36:
            return E.bitcast(DataType.U32, self.expr(self.pick(FLOATS), depth - 1))
        if dtype is DataType.U32 and self.config.u128 and roll < 0.4:
            return self.u128_to_u32(depth)
        if dtype is DataType.U32:
            if roll < 0.65:
                return self.binop(depth)
            if roll < 0.9 or not self.config.atomics:
                return self.unop_u32(depth)
            return self.own_atomic(depth)
        if dtype is DataType.I32 and roll < 0.7:
            op = self.pick((UnOp.NEGATE, UnOp.BIT_NOT, UnOp.REVERSE_BITS))
            return E.unop(op, self.expr(DataType.I32, depth - 1))
        return self.leaf(dtype)

    def u128_expr(self, roll: float, depth: int) -> E | None:
        """A U128: an arithmetic, bitwise or shift operator (divisors and shift
        amounts at the edges half of the time), or bit_not."""
        if roll < 0.85:
            op = self.pick(U128_ARITHMETIC)
            left = self.expr(U128, depth - 1)
            if op in (BinOp.DIV, BinOp.MOD) and self.chance(0.5):
                right = E.u128(self.u128_value(U128_DIVISORS))
            elif op in (BinOp.SHL, BinOp.SHR) and self.chance(0.6):
                right = E.u128(self.pick(U128_SHIFTS))
            else:
                right = self.expr(U128, depth - 1)
            return E.binop(op, left, right)
        if roll < 0.95:
            return E.bitnot(self.expr(U128, depth - 1))
        return self.leaf(U128)

    def u128_to_u32(self, depth: int) -> E:
        """A u32 from U128 operands: a comparison or a count."""
        if self.chance(0.6):
            op = self.pick(U128_COMPARISONS)
            return E.binop(op, self.expr(U128, depth - 1), self.expr(U128, depth - 1))
        return E.unop(self.pick(U128_COUNTS), self.expr(U128, depth - 1))

    def float_expr(self, dtype: DataType, roll: float, depth: int) -> E | None:
        """A float of `dtype`: an arithmetic op, a rounding op, fma, or a bitcast."""
        if self.config.float_focus and roll < 0.85:
            return self.focused_float_expr(dtype, depth)
        if roll < 0.6:
            op = self.pick(FLOAT_BINARY)
            assert isinstance(op, BinOp)
            return E.binop(op, self.expr(dtype, depth - 1), self.expr(dtype, depth - 1))
        if roll < 0.75:
            unary = self.pick(FLOAT_UNARY)
            assert isinstance(unary, UnOp)
            return E.unop(unary, self.expr(dtype, depth - 1))
        if roll < 0.85:
            a, b, c = (self.expr(dtype, depth - 1) for _ in range(3))
            return E.fma(a, b, c)
        if roll < 0.9:
            return E.bitcast(dtype, self.expr(self.pick((DataType.U32, DataType.I32)), depth - 1))
        return self.leaf(dtype)

    def focused_float_expr(self, dtype: DataType, depth: int) -> E:
        """A strict float op of result type `dtype` (float_focus): a featured op
        half of the time, else any, a function only while `max_functions` allows."""
        choices = [(op, v) for op, v in FLOAT_OP_VARIANTS if op.RESULT is None]
        featured = [(op, v) for op, v in self.config.featured if op.RESULT is None]
        op, variant = self.pick(featured) if featured and self.chance(0.5) else self.pick(choices)
        if op in FLOAT_FUNCTIONS:
            if self.function_calls >= self.config.max_functions:
                op, variant = self.pick([(o, v) for o, v in choices if o not in FLOAT_FUNCTIONS])
            else:
                self.function_calls += 1
        return float_op_expr(op, [self.expr(dtype, depth - 1) for _ in range(op.ARITY)], variant)

    def focused_bool_expr(self, depth: int) -> E:
        """A comparison or a classification of floats (float_focus), featured
        ones half of the time."""
        choices = [(op, v) for op, v in FLOAT_OP_VARIANTS if op.RESULT is not None]
        featured = [(op, v) for op, v in self.config.featured if op.RESULT is not None]
        op, variant = self.pick(featured) if featured and self.chance(0.5) else self.pick(choices)
        operand = self.pick(self.config.float_formats or FLOATS)
        return float_op_expr(op, [self.expr(operand, depth - 1) for _ in range(op.ARITY)], variant)

    def leaf(self, dtype: DataType) -> E | None:
        match self.rng.randrange(5 if dtype is DataType.U32 else 4):
            case 0:
                return self.literal(dtype)
            case 1:
                names = self.locals_of(dtype)
                return E.var(self.pick(names).name) if names else None
            case 2 | 3:
                return self.load(dtype)
            case _:
                return self.u32_leaf()

    def u32_leaf(self) -> E:
        match self.rng.randrange(4):
            case 0:
                return E.invocation_id(self.rng.randrange(3))
            case 1:
                return E.workgroup_id(self.rng.randrange(3))
            case 2:
                return E.local_id(self.rng.randrange(3))
            case _:
                return E.buf_len(self.pick([b.name for b in self.buffers]))

    def binop(self, depth: int) -> E:
        op = self.pick(list(INT_BINOPS))
        left = self.expr(DataType.U32, depth - 1)
        if op in (BinOp.DIV, BinOp.MOD) and self.chance(0.5):
            right = E.u32(self.pick(DIVISORS))
        elif op in (BinOp.SHL, BinOp.SHR) and self.chance(0.6):
            right = E.u32(self.pick(SHIFTS))
        else:
            right = self.expr(DataType.U32, depth - 1)
        return E.binop(op, left, right)

    def unop_u32(self, depth: int) -> E:
        op = self.pick(list(INT_UNOPS))
        unsigned_result = op in (UnOp.LOGICAL_NOT, UnOp.POPCOUNT, UnOp.CLZ, UnOp.CTZ)
        operand_type = DataType.I32 if unsigned_result and self.chance(0.3) else DataType.U32
        return E.unop(op, self.expr(operand_type, depth - 1))

    def own_atomic(self, depth: int) -> E | None:
        owned = [b for b in self.buffers_of(Role.OWNED) if b.name == "own"]
        if not owned:
            return None
        buf = owned[0]
        op = self.pick(list(AtomicOp))
        index = self.own_index(buf, write=True)
        value = self.expr(DataType.U32, depth - 1)
        expected = None
        if op is AtomicOp.COMPARE_EXCHANGE:
            if self.chance(0.5):
                expected = E.load(buf.name, index)
            else:
                expected = self.expr(DataType.U32, depth - 1)
        return E.atomic(op, buf.name, index, value, expected)
