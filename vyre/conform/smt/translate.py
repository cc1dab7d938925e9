"""Prepared vyre IR (after validation, inline-calls and canonicalize) to `Bits` terms.

What is proved is what runs: an op's composition is placed in a one-lane
program (`out[0] = op(x0[0], ...)`), prepared by `vyre.pipeline.prepare` like
any program, and its dialect ops are translated with the spec's exact
semantics (conform.md "Binary Operations", casts.md):

- every integer operation acts on 32-bit patterns, wrapping; comparisons and
  logical and/or give 1/0; division and remainder by zero give 0; shift
  amounts are taken & 31;
- negate is (~a) + 1; popcount, clz, ctz (clz(0) = ctz(0) = 32) and
  reverse_bits are WGSL's;
- a value of `n` lanes (U64 and Vec2U32: 2, Vec4U32: 4) is a list of 32-bit
  terms; casts follow casts.md row by row (Bool is 0/1, U32<->I32 keep the
  bits, I32 -> U64 sign-extends, splats and truncations by lane);
- `select` picks on a non-zero condition (any lane non-zero);
- the Category C calls that stay calls (extract_bits, insert_bits) are WGSL's
  `extractBits`/`insertBits` on u32, written from the WGSL definition;
- locals (`let`/`assign`/`var`) are straight-line names.

Anything else (loops, ifs, buffers other than the inputs, floats, atomics)
raises `Untranslatable`: the obligation is then not proved, never assumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.ir import Operation, SSAValue

from vyre.conform.smt.terms import Bits
from vyre.dialects import vyre as d
from vyre.dialects.vyre import BinOpKind, DataTypeKind, UnOpKind
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.ops.spec import OpSpec
from vyre.pipeline import Prepared, prepare

__all__ = ["Untranslatable", "lane_program", "translate", "translate_op"]

Lanes = list[Any]

LANES: dict[DataTypeKind, int] = {
    DataTypeKind.U32: 1,
    DataTypeKind.I32: 1,
    DataTypeKind.BOOL: 1,
    DataTypeKind.U64: 2,
    DataTypeKind.VEC2U32: 2,
    DataTypeKind.VEC4U32: 4,
}


class Untranslatable(ValueError):
    """IR outside the loop-free integer fragment the prover translates."""


def lane_program(spec: OpSpec) -> Program:
    """`out[0] = op(x0[0], ..)`: the op's composition as a program of one lane."""
    inputs = [BufferDecl.read(f"x{j}", j, t) for j, t in enumerate(spec.signature.inputs)]
    out = BufferDecl.read_write("out", len(inputs), spec.signature.output)
    return Program(
        buffers=[*inputs, out],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(0), E.call(spec.id, [E.load(b.name, E.u32(0)) for b in inputs]))],
        name="smt_lane",
    )


def _kind(value: SSAValue) -> DataTypeKind:
    ty = value.type
    if not isinstance(ty, d.DataTypeAttr):
        raise Untranslatable(f"a value of type {ty} is not a vyre data type")
    kind = ty.data_kind
    if kind not in LANES:
        raise Untranslatable(f"values of type {kind} are outside the integer fragment")
    return kind


class _Translator:
    def __init__(self, B: Bits, inputs: Sequence[Any]):
        self.B = B
        self.inputs = list(inputs)
        self.values: dict[SSAValue, Lanes] = {}
        self.locals: dict[str, Lanes] = {}
        self.result: Lanes | None = None

    def c(self, value: int) -> Any:
        return self.B.const(value, 32)

    def run(self, block_ops: Sequence[Operation]) -> Lanes:
        for op in block_ops:
            self.op(op)
        if self.result is None:
            raise Untranslatable("the program stores no result to `out`")
        return self.result

    def get(self, value: SSAValue) -> Lanes:
        found = self.values.get(value)
        if found is None:
            raise Untranslatable(f"a value used before its definition ({value})")
        return found

    def op(self, op: Operation) -> None:  # noqa: C901 - one case per dialect op
        B = self.B
        match op:
            case d.LitU32Op() | d.LitI32Op() | d.LitBoolOp():
                self.values[op.res] = [self.c(op.value.data & 0xFFFF_FFFF)]
            case d.LoadOp():
                name = op.buffer.data
                if not (name.startswith("x") and name[1:].isdigit() and int(name[1:]) < len(self.inputs)):
                    raise Untranslatable(f"a load from buffer `{name}`")
                self.values[op.res] = [self.inputs[int(name[1:])]]
            case d.BinOp():
                a, b = self.get(op.lhs)[0], self.get(op.rhs)[0]
                self.values[op.res] = [self.binop(op.op_kind, a, b)]
            case d.UnOp():
                self.values[op.res] = [self.unop(op.op_kind, self.get(op.operand)[0])]
            case d.SelectOp():
                cond = self.truth(self.get(op.cond))
                x, y = self.get(op.if_true), self.get(op.if_false)
                self.values[op.res] = [B.ite(cond, xi, yi) for xi, yi in zip(x, y, strict=True)]
            case d.CastOp():
                self.values[op.res] = self.cast(_kind(op.value), self.get(op.value), _kind(op.res))
            case d.CallOp():
                args = [self.get(a)[0] for a in op.args]
                self.values[op.res] = [self.call(op.op_id.data, args)]
            case d.LetOp() | d.AssignOp():
                self.locals[op.var_name.data] = self.get(op.value)
            case d.VarOp():
                name = op.var_name.data
                if name not in self.locals:
                    raise Untranslatable(f"a read of local `{name}` before it is set")
                self.values[op.res] = self.locals[name]
            case d.StoreOp():
                if op.buffer.data != "out":
                    raise Untranslatable(f"a store to buffer `{op.buffer.data}`")
                self.result = self.get(op.value)
            case _:
                raise Untranslatable(f"`{op.name}` is outside the loop-free integer fragment")

    def truth(self, lanes: Lanes) -> Any:
        B = self.B
        return B.any_([B.nonzero(x) for x in lanes])

    def binop(self, kind: BinOpKind, a: Any, b: Any) -> Any:
        B = self.B
        zero = self.c(0)
        match kind:
            case BinOpKind.ADD:
                return B.add(a, b)
            case BinOpKind.SUB:
                return B.sub(a, b)
            case BinOpKind.MUL:
                return B.mul(a, b)
            case BinOpKind.DIV:
                return B.ite(B.eq(b, zero), zero, B.udiv(a, b))
            case BinOpKind.MOD:
                return B.ite(B.eq(b, zero), zero, B.urem(a, b))
            case BinOpKind.BIT_AND:
                return B.band(a, b)
            case BinOpKind.BIT_OR:
                return B.bor(a, b)
            case BinOpKind.BIT_XOR:
                return B.bxor(a, b)
            case BinOpKind.SHL:
                return B.shl(a, B.band(b, self.c(31)))
            case BinOpKind.SHR:
                return B.lshr(a, B.band(b, self.c(31)))
            case BinOpKind.EQ:
                return B.truth(B.eq(a, b))
            case BinOpKind.NE:
                return B.truth(B.ne(a, b))
            case BinOpKind.LT:
                return B.truth(B.ult(a, b))
            case BinOpKind.GT:
                return B.truth(B.ugt(a, b))
            case BinOpKind.LE:
                return B.truth(B.ule(a, b))
            case BinOpKind.GE:
                return B.truth(B.uge(a, b))
            case BinOpKind.AND:
                return B.truth(B.all_([B.nonzero(a), B.nonzero(b)]))
            case BinOpKind.OR:
                return B.truth(B.any_([B.nonzero(a), B.nonzero(b)]))
            case _:
                raise Untranslatable(f"float operator `{kind.value}`")

    def unop(self, kind: UnOpKind, a: Any) -> Any:
        B = self.B
        match kind:
            case UnOpKind.NEGATE:
                return B.add(B.bnot(a), self.c(1))
            case UnOpKind.BIT_NOT:
                return B.bnot(a)
            case UnOpKind.LOGICAL_NOT:
                return B.truth(B.eq(a, self.c(0)))
            case UnOpKind.POPCOUNT:
                # the SWAR count of WGSL's countOneBits
                x = B.sub(a, B.band(B.lshr(a, self.c(1)), self.c(0x5555_5555)))
                x = B.add(B.band(x, self.c(0x3333_3333)), B.band(B.lshr(x, self.c(2)), self.c(0x3333_3333)))
                x = B.band(B.add(x, B.lshr(x, self.c(4))), self.c(0x0F0F_0F0F))
                return B.lshr(B.mul(x, self.c(0x0101_0101)), self.c(24))
            case UnOpKind.CLZ:
                # binary search on the highest set bit
                count = self.c(0)
                x = a
                for width in (16, 8, 4, 2, 1):
                    empty = B.eq(B.lshr(x, self.c(32 - width)), self.c(0))
                    count = B.ite(empty, B.add(count, self.c(width)), count)
                    x = B.ite(empty, B.shl(x, self.c(width)), x)
                return B.ite(B.eq(a, self.c(0)), self.c(32), count)
            case UnOpKind.CTZ:
                count = self.c(0)
                x = a
                for width in (16, 8, 4, 2, 1):
                    empty = B.eq(B.band(x, self.c((1 << width) - 1)), self.c(0))
                    count = B.ite(empty, B.add(count, self.c(width)), count)
                    x = B.ite(empty, B.lshr(x, self.c(width)), x)
                return B.ite(B.eq(a, self.c(0)), self.c(32), count)
            case UnOpKind.REVERSE_BITS:
                x = a
                for shift, mask in ((1, 0x5555_5555), (2, 0x3333_3333), (4, 0x0F0F_0F0F), (8, 0x00FF_00FF)):
                    m = self.c(mask)
                    x = B.bor(B.band(B.lshr(x, self.c(shift)), m), B.shl(B.band(x, m), self.c(shift)))
                return B.bor(B.lshr(x, self.c(16)), B.shl(x, self.c(16)))
            case _:
                raise Untranslatable(f"float operator `{kind.value}`")

    def cast(self, source: DataTypeKind, lanes: Lanes, target: DataTypeKind) -> Lanes:
        B = self.B
        if source == target:
            return lanes
        if target == DataTypeKind.BOOL:
            return [B.truth(self.truth(lanes))]
        scalar = (DataTypeKind.U32, DataTypeKind.I32, DataTypeKind.BOOL)
        width = LANES[target]
        if source in scalar:
            word = lanes[0]
            if target in (DataTypeKind.U32, DataTypeKind.I32):
                return [word]
            if target == DataTypeKind.U64:
                if source == DataTypeKind.I32:
                    high = B.ite(B.slt(word, self.c(0)), self.c(0xFFFF_FFFF), self.c(0))
                else:
                    high = self.c(0)
                return [word, high]
            return [word] * width
        if width > len(lanes):
            raise Untranslatable(f"cast {source} -> {target} is not in casts.md")
        return lanes[:width]

    def call(self, op_id: str, args: Sequence[Any]) -> Any:
        B = self.B
        if op_id == "primitive.bitwise.extract_bits":
            e, offset, count = args
            o = B.ite(B.ult(offset, self.c(32)), offset, self.c(32))
            room = B.sub(self.c(32), o)
            c = B.ite(B.ult(count, room), count, room)
            # WGSL: c == 0 gives 0; else (e << (32 - c - o)) >> (32 - c)
            shifted = B.lshr(B.shl(e, B.sub(room, c)), B.sub(self.c(32), c))
            return B.ite(B.eq(c, self.c(0)), self.c(0), shifted)
        if op_id == "primitive.bitwise.insert_bits":
            e, newbits, offset, count = args
            o = B.ite(B.ult(offset, self.c(32)), offset, self.c(32))
            room = B.sub(self.c(32), o)
            c = B.ite(B.ult(count, room), count, room)
            mask = B.shl(B.sub(B.shl(self.c(1), c), self.c(1)), o)
            return B.bor(B.band(e, B.bnot(mask)), B.band(B.shl(newbits, o), mask))
        raise Untranslatable(f"a call of `{op_id}` left by inline-calls (a hardware intrinsic with no SMT semantics)")


def translate(prepared: Prepared, B: Bits, inputs: Sequence[Any]) -> Lanes:
    """The lanes stored to `out[0]` by a prepared one-lane program."""
    return _Translator(B, inputs).run(list(prepared.kernel.entry.ops))


def translate_op(spec: OpSpec, B: Bits, inputs: Sequence[Any]) -> Any:
    """The op's composition, as prepared by the pipeline, on `inputs` (one 32-bit term each)."""
    for t in (*spec.signature.inputs, spec.signature.output):
        if t not in (DataType.U32, DataType.I32, DataType.BOOL):
            raise Untranslatable(f"`{spec.id}` has a {t} input or output: only 32-bit integer words are translated")
    prepared = prepare(lane_program(spec))
    return translate(prepared, B, inputs)[0]
