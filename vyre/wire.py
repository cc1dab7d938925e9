"""The wire form of vyre programs: a versioned, checksummed binary encoding.

Layout (all integers little-endian):

    header  magic b"VYRE" | version u16 | flags u16 | body length u32 | digest[32]
    body    kernel name, workgroup size, buffer declarations, entry region

The digest is BLAKE2b-256 of the first 12 header bytes followed by the body, so
any flipped byte is caught. The body is a pre-order listing of the kernel's ops;
an op operand is the index of an SSA value visible at that point (values of
enclosing regions and earlier ops of the same region, in definition order).
Every code below is part of format version 1: append new codes, never renumber.

The encoding is canonical: `encode(decode(blob)) == blob` for every blob that
decodes, and `decode` refuses everything else with a `WireError`, checking each
count against the bytes that remain so that no input makes it allocate more
than the blob's size or nest deeper than `MAX_DEPTH` (both directions walk
the regions with a stack, not recursion).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from vyre.context import MAX_NESTING, bulk_ir
from vyre.dialects import vyre as d

__all__ = ["FORMAT_VERSION", "MAGIC", "MAX_DEPTH", "WireError", "decode", "encode"]

MAGIC = b"VYRE"
FORMAT_VERSION = 1
MAX_DEPTH = MAX_NESTING
"""Deepest region nesting (kernel body = 1) the wire form holds: the one limit of
the text form and program equality (`vyre.context.MAX_NESTING`)."""

_HEADER = struct.Struct("<4sHHI")
_DIGEST_SIZE = 32
HEADER_SIZE = _HEADER.size + _DIGEST_SIZE

# Stable wire codes (format version 1). Planned types keep their reserved codes.
DATA_TYPE_CODES: tuple[str, ...] = (
    "u32", "i32", "u64", "vec2u32", "vec4u32", "bool", "bytes",
    "f32", "f16", "bf16", "u128",
)  # fmt: skip
ACCESS_CODES: tuple[str, ...] = ("read_only", "read_write", "uniform", "workgroup")
BINOP_CODES: tuple[str, ...] = tuple(kind.value for kind in d.BinOpKind)
"""The kinds of `vyre.binop`, in their (append-only) declaration order."""
UNOP_CODES: tuple[str, ...] = tuple(kind.value for kind in d.UnOpKind)
ATOMIC_CODES: tuple[str, ...] = tuple(kind.value for kind in d.AtomicOpKind)

OP_CODES: tuple[type[Operation], ...] = d.OPERATIONS
"""An op's code is its position in the dialect's (append-only) op list."""
_OP_CODE: dict[type[Operation], int] = {op_type: code for code, op_type in enumerate(OP_CODES)}

U32_MAX = 0xFFFF_FFFF


class WireError(ValueError):
    """Bytes that are not a vyre wire blob, or a program the wire form cannot hold."""

    def __init__(self, message: str):
        super().__init__(f"vyre wire: {message}")


# ---------------------------------------------------------------------------
# Field schema: what each op holds besides its operands and result
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Field:
    """One property of an op: its name and how its value travels."""

    prop: str
    kind: str
    """`str`, `u32`, `i32`, `bool`, `u128` (four u32 words, least significant
    first), `u32s`, or `enum:<table>`."""


_ENUM_TABLES: dict[str, tuple[str, ...]] = {
    "binop": BINOP_CODES,
    "unop": UNOP_CODES,
    "atomic": ATOMIC_CODES,
    "fcmp": d.FLOAT_PREDICATES,
}


@dataclass(frozen=True)
class _Shape:
    """The wire shape of one op type."""

    fields: tuple[_Field, ...] = ()
    operands: int = 0
    """Fixed operand count; -1 for a counted list, -2 for 2 or 3 (atomic)."""
    has_result: bool = False
    regions: int = 0


_SHAPES: dict[type[Operation], _Shape] = {
    d.LitU32Op: _Shape((_Field("value", "u32"),), has_result=True),
    d.LitI32Op: _Shape((_Field("value", "i32"),), has_result=True),
    d.LitBoolOp: _Shape((_Field("value", "bool"),), has_result=True),
    d.VarOp: _Shape((_Field("name", "str"),), has_result=True),
    d.LoadOp: _Shape((_Field("buffer", "str"),), operands=1, has_result=True),
    d.BufLenOp: _Shape((_Field("buffer", "str"),), has_result=True),
    d.InvocationIdOp: _Shape((_Field("axis", "u32"),), has_result=True),
    d.WorkgroupIdOp: _Shape((_Field("axis", "u32"),), has_result=True),
    d.LocalIdOp: _Shape((_Field("axis", "u32"),), has_result=True),
    d.BinOp: _Shape((_Field("kind", "enum:binop"),), operands=2, has_result=True),
    d.UnOp: _Shape((_Field("kind", "enum:unop"),), operands=1, has_result=True),
    d.CallOp: _Shape((_Field("op_id", "str"),), operands=-1, has_result=True),
    d.SelectOp: _Shape(operands=3, has_result=True),
    d.CastOp: _Shape(operands=1, has_result=True),
    d.AtomicOp: _Shape(
        (_Field("kind", "enum:atomic"), _Field("buffer", "str")), operands=-2, has_result=True
    ),
    d.LetOp: _Shape((_Field("name", "str"),), operands=1),
    d.AssignOp: _Shape((_Field("name", "str"),), operands=1),
    d.StoreOp: _Shape((_Field("buffer", "str"),), operands=2),
    d.IfOp: _Shape(operands=1, regions=2),
    d.LoopOp: _Shape((_Field("var", "str"),), operands=2, regions=1),
    d.ReturnOp: _Shape(),
    d.BlockOp: _Shape(regions=1),
    d.BarrierOp: _Shape(),
    d.LitFloatOp: _Shape((_Field("bits", "u32"),), has_result=True),
    **{op: _Shape(operands=op.ARITY, has_result=True) for op in d.FLOAT_OPS},
    d.FCmpOp: _Shape((_Field("predicate", "enum:fcmp"),), operands=2, has_result=True),
    d.InvokeOp: _Shape((_Field("callee", "str"),), operands=-1, has_result=True),
    d.LookupOp: _Shape((_Field("table", "u32s"),), operands=1, has_result=True),
    d.YieldOp: _Shape(operands=1),
    d.BitcastOp: _Shape(operands=1, has_result=True),
    d.LitU128Op: _Shape((_Field("value", "u128"),), has_result=True),
}


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _OpenRegion:
    region: Region
    owner: Operation
    depth: int


@dataclass
class _WriteOps:
    ops: Iterator[Operation]
    mark: int
    depth: int


_WriteStep = _OpenRegion | _WriteOps | SSAValue
"""Encoding work left: open a region, write a block's next op, or define a
value (an op's result becomes visible after its regions)."""


@dataclass
class _Writer:
    out: bytearray = field(default_factory=bytearray)
    visible: list[SSAValue] = field(default_factory=list[SSAValue])
    index_of: dict[SSAValue, int] = field(default_factory=dict[SSAValue, int])

    def u8(self, value: int) -> None:
        self.out.append(value)

    def u32(self, value: int, what: str) -> None:
        if not 0 <= value <= U32_MAX:
            raise WireError(f"cannot encode {what} = {value}: not a u32")
        self.out += value.to_bytes(4, "little")

    def i32(self, value: int, what: str) -> None:
        if not -(2**31) <= value < 2**31:
            raise WireError(f"cannot encode {what} = {value}: not an i32")
        self.out += value.to_bytes(4, "little", signed=True)

    def text(self, value: str, what: str) -> None:
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError:
            raise WireError(f"cannot encode {what} {value!r}: not valid Unicode") from None
        self.u32(len(data), f"length of {what}")
        self.out += data

    def code(self, table: Sequence[str], value: str, what: str) -> None:
        try:
            self.u8(table.index(value))
        except ValueError:
            raise WireError(f"cannot encode {what} `{value}`: not a known code") from None

    def data_type(self, attr: Attribute, what: str) -> None:
        if not isinstance(attr, d.DataTypeAttr):
            raise WireError(f"cannot encode {what} {attr}: not a vyre data type")
        self.code(DATA_TYPE_CODES, attr.kind.data, what)

    def value(self, value: SSAValue, op: Operation) -> None:
        index = self.index_of.get(value)
        if index is None or index >= len(self.visible) or self.visible[index] is not value:
            raise WireError(f"cannot encode {op.name}: an operand is not defined before it")
        self.u32(index, "an SSA reference")

    def define(self, value: SSAValue) -> None:
        self.index_of[value] = len(self.visible)
        self.visible.append(value)

    def body(self, kernel: d.KernelOp) -> None:
        """The kernel's region, nested regions included, with a stack."""
        stack: list[_WriteStep] = [_OpenRegion(kernel.body, kernel, 1)]
        while stack:
            step = stack.pop()
            if isinstance(step, _OpenRegion):
                ops = self.open_region(step)
                if ops is not None:
                    stack.append(_WriteOps(iter(ops), len(self.visible), step.depth))
            elif isinstance(step, _WriteOps):
                op = next(step.ops, None)
                if op is None:
                    for value in self.visible[step.mark :]:
                        del self.index_of[value]
                    del self.visible[step.mark :]
                    continue
                stack.append(step)
                if self.op(op):
                    stack.append(op.results[0])  # defined after its regions
                stack.extend(_OpenRegion(r, op, step.depth + 1) for r in reversed(op.regions))
            else:
                self.define(step)

    def open_region(self, step: _OpenRegion) -> list[Operation] | None:
        """The region's marker and op count; its ops (None: no block)."""
        if step.depth > MAX_DEPTH:
            raise WireError(f"cannot encode regions nested deeper than {MAX_DEPTH}")
        region, owner = step.region, step.owner
        if len(region.blocks) > 1:
            raise WireError(f"cannot encode {owner.name}: a region holds several blocks")
        block = region.blocks.first
        if block is None:
            self.u8(0)
            return None
        if block.args:
            raise WireError(f"cannot encode {owner.name}: a region block has arguments")
        self.u8(1)
        ops = list(block.ops)
        self.u32(len(ops), "op count")
        return ops

    def op(self, op: Operation) -> bool:
        """Everything of `op` before its regions; whether it has a result."""
        shape = _SHAPES.get(type(op))
        if shape is None:
            raise WireError(f"cannot encode op {op.name}: not a vyre statement or expression")
        if op.attributes:
            names = ", ".join(sorted(op.attributes))
            raise WireError(f"cannot encode {op.name}: discardable attributes {{{names}}}")
        expected_props = {f.prop for f in shape.fields}
        if set(op.properties) != expected_props:
            raise WireError(
                f"cannot encode {op.name}: properties {sorted(op.properties)},"
                f" expected {sorted(expected_props)}"
            )
        if len(op.regions) != shape.regions or len(op.results) != int(shape.has_result):
            raise WireError(f"cannot encode {op.name}: unexpected regions or results")
        self.u8(_OP_CODE[type(op)])
        for f in shape.fields:
            self.prop(op, f)
        self.operands(op, shape)
        if shape.has_result:
            result = op.results[0]
            self.data_type(result.type, f"result type of {op.name}")
            self.text(result.name_hint or "", "SSA name hint")
        return shape.has_result

    def prop(self, op: Operation, f: _Field) -> None:
        attr = op.properties[f.prop]
        what = f"{op.name} {f.prop}"
        if f.kind == "u32s":
            words: tuple[Attribute, ...] | None = (
                cast("ArrayAttr[Attribute]", attr).data if isinstance(attr, ArrayAttr) else None
            )
            if words is None or not all(isinstance(w, IntAttr) for w in words):
                raise WireError(f"cannot encode {what} {attr}: not a list of integers")
            self.u32(len(words), f"length of {what}")
            for w in words:
                self.u32(cast("IntAttr[int]", w).data, what)
            return
        if f.kind == "str" or f.kind.startswith("enum:"):
            if not isinstance(attr, StringAttr):
                raise WireError(f"cannot encode {what} {attr}: not a string")
            if f.kind == "str":
                self.text(attr.data, what)
            else:
                self.code(_ENUM_TABLES[f.kind[5:]], attr.data, what)
            return
        if not isinstance(attr, IntAttr):
            raise WireError(f"cannot encode {what} {attr}: not an integer")
        number = cast("IntAttr[int]", attr).data
        if f.kind == "u128":
            if not 0 <= number < 1 << 128:
                raise WireError(f"cannot encode {what} = {number}: not a u128")
            for shift in (0, 32, 64, 96):
                self.u32((number >> shift) & U32_MAX, what)
        elif f.kind == "u32":
            self.u32(number, what)
        elif f.kind == "i32":
            self.i32(number, what)
        elif number in (0, 1):
            self.u8(number)
        else:
            raise WireError(f"cannot encode {what} = {number}: not 0 or 1")

    def operands(self, op: Operation, shape: _Shape) -> None:
        count = len(op.operands)
        if shape.operands == -1:
            self.u32(count, f"operand count of {op.name}")
        elif shape.operands == -2:
            if count not in (2, 3):
                raise WireError(f"cannot encode {op.name} with {count} operands")
            self.u8(count - 2)
        elif count != shape.operands:
            raise WireError(f"cannot encode {op.name} with {count} operands")
        for operand in op.operands:
            self.value(operand, op)


def encode(module: ModuleOp) -> bytes:
    """The wire form of a module holding one `vyre.kernel`; raises `WireError`
    for IR it cannot hold (`Program.to_wire` is the public spelling)."""
    if not isinstance(module, ModuleOp):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"encode expects a vyre Program's module, got {type(module).__name__}")
    if module.attributes or module.properties:
        raise WireError("cannot encode attributes of the builtin.module")
    ops = list(module.ops)
    if any(isinstance(op, d.RoutineOp) for op in ops):
        raise WireError(
            "a wire blob holds a program (one vyre.kernel); this module holds routines"
            " (float-strict output): encode the program before the pass"
        )
    if len(ops) != 1 or not isinstance(ops[0], d.KernelOp):
        raise WireError(f"a wire blob holds exactly one vyre.kernel, the module has {len(ops)} op(s)")
    kernel = ops[0]
    if kernel.attributes:
        names = ", ".join(sorted(kernel.attributes))
        raise WireError(f"cannot encode vyre.kernel: discardable attributes {{{names}}}")
    _check_kernel_properties(kernel)
    writer = _Writer()
    writer.text(kernel.sym_name.data, "kernel name")
    sizes = kernel.workgroup_size.data
    writer.u32(len(sizes), "workgroup size arity")
    for axis, size in enumerate(sizes):
        writer.u32(size.data, f"workgroup_size[{axis}]")
    decls = kernel.buffers.data
    writer.u32(len(decls), "buffer count")
    for decl in decls:
        name = decl.buffer_name.data
        writer.text(name, "buffer name")
        writer.u32(decl.binding.data, f"binding of buffer `{name}`")
        writer.code(ACCESS_CODES, decl.access.data, f"access of buffer `{name}`")
        writer.data_type(decl.element, f"element type of buffer `{name}`")
        writer.u32(decl.count.data, f"count of buffer `{name}`")
    writer.body(kernel)
    body = bytes(writer.out)
    if len(body) > U32_MAX:
        raise WireError(f"program too large: {len(body)} body bytes")
    prefix = _HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(body))
    return prefix + _digest(prefix, body) + body


def _check_kernel_properties(kernel: d.KernelOp) -> None:
    props = kernel.properties
    if set(props) != {"sym_name", "workgroup_size", "buffers"}:
        raise WireError(f"cannot encode vyre.kernel with properties {sorted(props)}")
    sizes = props["workgroup_size"]
    decls = props["buffers"]
    if (
        not isinstance(props["sym_name"], StringAttr)
        or not isinstance(sizes, ArrayAttr)
        or not all(isinstance(size, IntAttr) for size in cast("ArrayAttr[Attribute]", sizes).data)
        or not isinstance(decls, ArrayAttr)
        or not all(
            isinstance(decl, d.BufferDeclAttr) for decl in cast("ArrayAttr[Attribute]", decls).data
        )
    ):
        raise WireError("cannot encode vyre.kernel: malformed properties")
    if len(kernel.regions) != 1 or kernel.results or kernel.operands:
        raise WireError("cannot encode vyre.kernel: unexpected operands, results or regions")


def _digest(prefix: bytes, body: bytes) -> bytes:
    hasher = hashlib.blake2b(digest_size=_DIGEST_SIZE)
    hasher.update(prefix)
    hasher.update(body)
    return hasher.digest()


# ---------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------


@dataclass
class _ReadRegion:
    """A region being decoded: its block, ops left, the visible values when it
    opened, its depth, and the list its owner collects regions in."""

    block: Block
    remaining: int
    mark: int
    depth: int
    into: list[Region]


@dataclass
class _ReadOp:
    """An op whose regions are being decoded."""

    block: Block
    depth: int
    op_type: type[Operation]
    shape: _Shape
    properties: dict[str, Attribute]
    operands: list[SSAValue]
    result_types: list[Attribute]
    name_hint: str | None
    regions: list[Region] = field(default_factory=list[Region])


@dataclass
class _Reader:
    blob: bytes
    pos: int
    visible: list[SSAValue] = field(default_factory=list[SSAValue])

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if end > len(self.blob):
            raise WireError(
                f"truncated at byte {len(self.blob)}: {size} more bytes needed at byte"
                f" {self.pos}"
            )
        data = self.blob[self.pos : end]
        self.pos = end
        return data

    def u8(self) -> int:
        return self.take(1)[0]

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "little")

    def i32(self) -> int:
        return int.from_bytes(self.take(4), "little", signed=True)

    def count(self, item_size: int, what: str) -> int:
        """A count of items of at least `item_size` bytes each, bounded by the rest."""
        at = self.pos
        value = self.u32()
        if value * item_size > len(self.blob) - self.pos:
            raise WireError(
                f"{what} {value} at byte {at} exceeds the {len(self.blob) - self.pos}"
                " bytes that remain"
            )
        return value

    def text(self, what: str) -> str:
        at = self.pos
        data = self.take(self.count(1, f"length of {what}"))
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise WireError(f"{what} at byte {at} is not valid UTF-8") from None

    def code(self, table: Sequence[str], what: str) -> str:
        at = self.pos
        value = self.u8()
        if value >= len(table):
            raise WireError(f"unknown {what} code {value} at byte {at}")
        return table[value]

    def data_type(self, what: str) -> d.DataTypeAttr:
        at = self.pos
        kind = self.code(DATA_TYPE_CODES, what)
        attr = _data_type_attr(kind)
        if attr is None:
            raise WireError(f"{what} `{kind}` at byte {at} is not supported by this vyre")
        return attr

    def value(self) -> SSAValue:
        at = self.pos
        index = self.u32()
        if index >= len(self.visible):
            raise WireError(
                f"SSA reference {index} at byte {at} names no visible value"
                f" ({len(self.visible)} visible)"
            )
        return self.visible[index]

    def body(self) -> Region:
        """The kernel's region, nested regions included, with a stack."""
        kernel_regions: list[Region] = []
        stack: list[_ReadRegion | _ReadOp] = []
        self.open_region(1, kernel_regions, stack)
        while stack:
            top = stack[-1]
            if isinstance(top, _ReadRegion):
                if top.remaining == 0:
                    stack.pop()
                    del self.visible[top.mark :]
                    top.into.append(Region(top.block))
                else:
                    top.remaining -= 1
                    self.op(top.block, top.depth, stack)
            elif len(top.regions) < top.shape.regions:
                self.open_region(top.depth + 1, top.regions, stack)
            else:
                stack.pop()
                self.finish(top)
        return kernel_regions[0]

    def open_region(
        self, depth: int, into: list[Region], stack: list[_ReadRegion | _ReadOp]
    ) -> None:
        if depth > MAX_DEPTH:
            raise WireError(f"regions nested deeper than {MAX_DEPTH} at byte {self.pos}")
        at = self.pos
        has_block = self.u8()
        if has_block == 0:
            into.append(Region())
            return
        if has_block != 1:
            raise WireError(f"bad region marker {has_block} at byte {at}")
        count = self.count(1, "op count")
        stack.append(_ReadRegion(Block(), count, len(self.visible), depth, into))

    def op(self, block: Block, depth: int, stack: list[_ReadRegion | _ReadOp]) -> None:
        """Read one op up to its regions: finish it now, or after its regions."""
        at = self.pos
        code = self.u8()
        if code >= len(OP_CODES):
            raise WireError(f"unknown op code {code} at byte {at}")
        op_type = OP_CODES[code]
        shape = _SHAPES[op_type]
        properties = {f.prop: self.prop(f, op_type.name) for f in shape.fields}
        operands = self.operands(shape, op_type.name)
        result_types: list[Attribute] = []
        name_hint: str | None = None
        if shape.has_result:
            result_types.append(self.data_type(f"result type of {op_type.name}"))
            name_hint = self.name_hint()
        pending = _ReadOp(block, depth, op_type, shape, properties, operands, result_types, name_hint)
        if shape.regions:
            stack.append(pending)
        else:
            self.finish(pending)

    def finish(self, pending: _ReadOp) -> None:
        op = pending.op_type.__new__(pending.op_type)
        d._init_op(  # pyright: ignore[reportPrivateUsage]  # the dialect's fast constructor
            op,
            operands=pending.operands,
            result_types=pending.result_types,
            properties=pending.properties,
            regions=pending.regions,
        )
        pending.block.add_op(op)
        if pending.shape.has_result:
            op.results[0].name_hint = pending.name_hint
            self.visible.append(op.results[0])

    def name_hint(self) -> str | None:
        at = self.pos
        text = self.text("SSA name hint")
        if not text:
            return None
        if not SSAValue.is_valid_name(text) or SSAValue.extract_valid_name(text) != text:
            raise WireError(f"SSA name hint {text!r} at byte {at} is not canonical")
        return text

    def prop(self, f: _Field, op_name: str) -> Attribute:
        what = f"{op_name} {f.prop}"
        if f.kind == "str":
            return _string_attr(self.text(what))
        if f.kind.startswith("enum:"):
            return _string_attr(self.code(_ENUM_TABLES[f.kind[5:]], what))
        if f.kind == "u32":
            return _int_attr(self.u32())
        if f.kind == "u128":
            return _int_attr(sum(self.u32() << shift for shift in (0, 32, 64, 96)))
        if f.kind == "u32s":
            count = self.count(4, f"length of {what}")
            return ArrayAttr([_int_attr(self.u32()) for _ in range(count)])
        if f.kind == "i32":
            return _int_attr(self.i32())
        at = self.pos
        flag = self.u8()
        if flag > 1:
            raise WireError(f"{what} at byte {at} is {flag}, not 0 or 1")
        return _int_attr(flag)

    def operands(self, shape: _Shape, op_name: str) -> list[SSAValue]:
        count = shape.operands
        if count == -1:
            count = self.count(4, f"operand count of {op_name}")
        elif count == -2:
            at = self.pos
            extra = self.u8()
            if extra > 1:
                raise WireError(f"bad operand marker {extra} of {op_name} at byte {at}")
            count = 2 + extra
        return [self.value() for _ in range(count)]


@lru_cache(maxsize=4096)
def _string_attr(text: str) -> StringAttr:
    """Attributes are immutable: the names and kinds a program repeats are shared."""
    return StringAttr(text)


@lru_cache(maxsize=4096)
def _int_attr(value: int) -> IntAttr:
    return IntAttr(value)


@cache
def _data_type_attr(kind: str) -> d.DataTypeAttr | None:
    """The (immutable, shared) attribute of a type this vyre knows, else None."""
    if kind not in {k.value for k in d.DataTypeKind}:
        return None
    return d.DataTypeAttr(kind)


def decode(blob: bytes) -> ModuleOp:
    """The module (one `vyre.kernel`) a wire blob holds; raises `WireError` for
    anything else (`Program.from_wire` is the public spelling)."""
    if not isinstance(blob, bytes | bytearray | memoryview):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"Program.from_wire: `blob` must be bytes, got {type(blob).__name__}")
    blob = bytes(blob)
    if len(blob) < HEADER_SIZE:
        if blob and not MAGIC.startswith(blob[: len(MAGIC)]):
            raise WireError("not a vyre wire blob (bad magic)")
        raise WireError(
            f"truncated at byte {len(blob)}: the header needs {HEADER_SIZE} bytes"
        )
    magic, version, flags, body_length = _HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise WireError(f"not a vyre wire blob (bad magic {magic!r})")
    if version != FORMAT_VERSION:
        raise WireError(
            f"unsupported format version {version} (this vyre reads {FORMAT_VERSION})"
        )
    if flags != 0:
        raise WireError(f"unsupported flags {flags:#06x} (format version 1 defines none)")
    present = len(blob) - HEADER_SIZE
    if present < body_length:
        raise WireError(
            f"truncated at byte {len(blob)}: the body declares {body_length} bytes,"
            f" {present} present"
        )
    if present > body_length:
        raise WireError(f"{present - body_length} trailing bytes after the body")
    digest = blob[_HEADER.size : HEADER_SIZE]
    if _digest(blob[: _HEADER.size], blob[HEADER_SIZE:]) != digest:
        raise WireError("checksum mismatch (the blob is corrupted)")
    with bulk_ir():
        return _decode_body(_Reader(blob, HEADER_SIZE))


def _decode_body(reader: _Reader) -> ModuleOp:
    name = reader.text("kernel name")
    arity = reader.count(4, "workgroup size arity")
    if arity != 3:
        raise WireError(f"workgroup size has {arity} components; a vyre kernel has exactly 3")
    sizes = [reader.u32() for _ in range(arity)]
    decls: list[d.BufferDeclAttr] = []
    for _ in range(reader.count(14, "buffer count")):
        decls.append(_buffer_decl(reader))
    body = reader.body()
    if reader.pos != len(reader.blob):
        raise WireError(f"{len(reader.blob) - reader.pos} stray bytes after the program")
    kernel = d.KernelOp.create(
        properties={
            "sym_name": StringAttr(name),
            "workgroup_size": ArrayAttr([IntAttr(v) for v in sizes]),
            "buffers": ArrayAttr(decls),
        },
        regions=[body],
    )
    return ModuleOp([kernel])


def _buffer_decl(reader: _Reader) -> d.BufferDeclAttr:
    name = reader.text("buffer name")
    binding = reader.u32()
    access = reader.code(ACCESS_CODES, f"access of buffer `{name}`")
    element = reader.data_type(f"element type of buffer `{name}`")
    count = reader.u32()
    return d.BufferDeclAttr(name, binding, access, element, count)

