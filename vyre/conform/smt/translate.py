"""Prepared vyre IR (after validation, inline-calls and canonicalize) to `Bits` terms.

What is proved is what runs: an op's composition is placed in a one-lane
program (`out[0] = op(x0[0], ...)`), prepared by `vyre.pipeline.prepare` like
any program, and its dialect ops are translated with the spec's exact
semantics (docs/semantics.md):

- every integer operation acts on 32-bit patterns, wrapping; comparisons and
  logical and/or give 1/0; division and remainder by zero give 0; shift
  amounts are taken & 31;
- negate is (~a) + 1; popcount, clz, ctz (clz(0) = ctz(0) = 32) and
  reverse_bits are WGSL's;
- a value of `n` lanes (U64 and Vec2U32: 2, Vec4U32 and U128: 4) is a list of
  32-bit terms; casts follow the cast table row by row (Bool is 0/1, U32<->I32 keep
  the bits, I32 -> U64 and I32 -> U128 sign-extend, other widenings to U128
  zero-extend, splats and truncations by lane);
- a U128 operation joins the four lanes into one 128-bit term (lane 0 the low
  bits) and acts on it: wrapping arithmetic, /0 and %0 give 0, shift amounts
  are taken & 127, comparisons give 1/0 as 32 bits, popcount/clz/ctz count the
  128 bits (clz(0) = ctz(0) = 128); a U128 input is a 128-bit term;
- `select` picks on a non-zero condition (any lane non-zero);
- the Category C calls that stay calls (extract_bits, insert_bits) are WGSL's
  `extractBits`/`insertBits` on u32, written from the WGSL definition;
- locals (`let`/`assign`/`var`) are straight-line names.

Anything else (loops, ifs, buffers other than the inputs, floats, atomics)
raises `Untranslatable`: the obligation is then not proved, never assumed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.ir import Operation, SSAValue

from vyre.conform.smt.terms import Bits
from vyre.dialects import vyre as d
from vyre.dialects.tables import Dispatch, OpTable
from vyre.dialects.vyre import BinOpKind, DataTypeKind, UnOpKind
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.ops.spec import OpSpec
from vyre.pipeline import Prepared, prepare

__all__ = ["Untranslatable", "lane_program", "translate", "translate_op"]

Lanes = list[Any]

LANES: dict[DataTypeKind, int] = d.LANE_COUNTS
"""32-bit lanes of the integer value types (the fragment's values)."""


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


_BINOP_SPELLINGS = frozenset(kind.value for kind in BinOpKind)
_UNOP_SPELLINGS = frozenset(kind.value for kind in UnOpKind)

TRANSLATIONS: Dispatch[_Translator, [], None] = Dispatch("SMT translation", lambda: ())
"""The bit-vector terms of each op of the loop-free integer fragment (an op
without an entry is `Untranslatable`)."""


class _Translator:
    def __init__(self, B: Bits, inputs: Sequence[Any]):
        self.B = B
        self.inputs = list(inputs)
        self.values: dict[SSAValue, Lanes] = {}
        self.locals: dict[str, Lanes] = {}
        self.result: Lanes | None = None
        self.wholes: dict[tuple[int, ...], tuple[Lanes, Any]] = {}
        """The term each list of lanes `split` made was split from (by the lanes'
        identities; the lanes are kept so the identities stay theirs)."""

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

    def op(self, op: Operation) -> None:
        handler = TRANSLATIONS.get(type(op))
        if handler is None:
            raise Untranslatable(f"`{op.name}` is outside the loop-free integer fragment")
        handler(self, op)

    @TRANSLATIONS.on(d.LitU32Op, d.LitI32Op, d.LitBoolOp)
    def literal(self, op: d.LitU32Op | d.LitI32Op | d.LitBoolOp) -> None:
        self.values[op.res] = [self.c(op.value.data & 0xFFFF_FFFF)]

    @TRANSLATIONS.on(d.LitU128Op)
    def literal_u128(self, op: d.LitU128Op) -> None:
        self.values[op.res] = [self.c(word) for word in d.u128_lanes(op.value.data)]

    @TRANSLATIONS.on(d.LoadOp)
    def load(self, op: d.LoadOp) -> None:
        name = op.buffer.data
        if not (name.startswith("x") and name[1:].isdigit() and int(name[1:]) < len(self.inputs)):
            raise Untranslatable(f"a load from buffer `{name}`")
        term = self.inputs[int(name[1:])]
        lanes = LANES[_kind(op.res)]
        self.values[op.res] = [term] if lanes == 1 else self.split(term, lanes)

    @TRANSLATIONS.on(d.BinOp)
    def binop(self, op: d.BinOp) -> None:
        if _kind(op.lhs) == DataTypeKind.U128:
            a, b = self.join(self.get(op.lhs)), self.join(self.get(op.rhs))
            result = U128_BINOPS[op.op_kind](self, a, b)
            self.values[op.res] = self.split(result, 4) if self.B.width(result) == 128 else [result]
            return
        a, b = self.get(op.lhs)[0], self.get(op.rhs)[0]
        self.values[op.res] = [BINOPS[op.op_kind](self, a, b)]

    @TRANSLATIONS.on(d.UnOp)
    def unop(self, op: d.UnOp) -> None:
        if _kind(op.operand) == DataTypeKind.U128:
            result = U128_UNOPS[op.op_kind](self, self.join(self.get(op.operand)))
            self.values[op.res] = self.split(result, 4) if self.B.width(result) == 128 else [result]
            return
        self.values[op.res] = [UNOPS[op.op_kind](self, self.get(op.operand)[0])]

    def join(self, lanes: Lanes) -> Any:
        """The lanes of a value as one term, lane 0 the low bits: the term they were
        split from when `split` made them (no extract/concat layer for the
        solver's rewriter to take apart)."""
        whole = self.wholes.get(tuple(id(lane) for lane in lanes))
        if whole is not None:
            return whole[1]
        return self.B.concat(list(reversed(lanes)))

    def split(self, term: Any, lanes: int) -> Lanes:
        """A term of `32 * lanes` bits as its lanes, lane 0 the low bits."""
        if self.B.width(term) != 32 * lanes:
            raise Untranslatable(f"a {self.B.width(term)}-bit input for a value of {lanes} lanes")
        parts = [self.B.extract(term, 32 * k + 31, 32 * k) for k in range(lanes)]
        self.wholes[tuple(id(part) for part in parts)] = (parts, term)
        return parts

    @TRANSLATIONS.on(d.SelectOp)
    def select(self, op: d.SelectOp) -> None:
        cond = self.truth(self.get(op.cond))
        x, y = self.get(op.if_true), self.get(op.if_false)
        self.values[op.res] = [self.B.ite(cond, xi, yi) for xi, yi in zip(x, y, strict=True)]

    @TRANSLATIONS.on(d.CastOp)
    def cast_op(self, op: d.CastOp) -> None:
        self.values[op.res] = self.cast(_kind(op.value), self.get(op.value), _kind(op.res))

    @TRANSLATIONS.on(d.CallOp)
    def call_op(self, op: d.CallOp) -> None:
        args = [self.get(a)[0] for a in op.args]
        self.values[op.res] = [self.call(op.op_id.data, args)]

    @TRANSLATIONS.on(d.LetOp, d.AssignOp)
    def bind(self, op: d.LetOp | d.AssignOp) -> None:
        self.locals[op.var_name.data] = self.get(op.value)

    @TRANSLATIONS.on(d.VarOp)
    def var(self, op: d.VarOp) -> None:
        name = op.var_name.data
        if name not in self.locals:
            raise Untranslatable(f"a read of local `{name}` before it is set")
        self.values[op.res] = self.locals[name]

    @TRANSLATIONS.on(d.StoreOp)
    def store(self, op: d.StoreOp) -> None:
        if op.buffer.data != "out":
            raise Untranslatable(f"a store to buffer `{op.buffer.data}`")
        self.result = self.get(op.value)

    def binop_term(self, spelling: str, a: Any, b: Any) -> Any:
        """`a <spelling> b` for an integer binary operator (`add`, ...)."""
        if spelling not in _BINOP_SPELLINGS:
            raise Untranslatable(f"float operator `{spelling}`")
        return BINOPS[BinOpKind(spelling)](self, a, b)

    def unop_term(self, spelling: str, a: Any) -> Any:
        """`<spelling> a` for an integer unary operator (`negate`, ...)."""
        if spelling not in _UNOP_SPELLINGS:
            raise Untranslatable(f"float operator `{spelling}`")
        return UNOPS[UnOpKind(spelling)](self, a)

    def truth(self, lanes: Lanes) -> Any:
        B = self.B
        return B.any_([B.nonzero(x) for x in lanes])

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
            if target in (DataTypeKind.U64, DataTypeKind.U128):
                if source == DataTypeKind.I32:
                    high = B.ite(B.slt(word, self.c(0)), self.c(0xFFFF_FFFF), self.c(0))
                else:
                    high = self.c(0)
                return [word, *[high] * (width - 1)]
            return [word] * width
        if target == DataTypeKind.U128:
            return [*lanes, *[self.c(0)] * (width - len(lanes))]
        if width > len(lanes):
            raise Untranslatable(f"cast {source} -> {target} is not in the cast table")
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

_Binary = Callable[[_Translator, Any, Any], Any]
BINOPS: OpTable[BinOpKind, _Binary] = OpTable("SMT binary operators", lambda: BinOpKind)
"""`a <kind> b` as bit-vector terms, with the spec's semantics (/0 and %0 give 0,
shift amounts masked to 0..31, comparisons and logical ops 0/1)."""


def _zero_or(t: _Translator, b: Any, term: Any) -> Any:
    zero = t.c(0)
    return t.B.ite(t.B.eq(b, zero), zero, term)


BINOPS.add(BinOpKind.ADD, lambda t, a, b: t.B.add(a, b))
BINOPS.add(BinOpKind.SUB, lambda t, a, b: t.B.sub(a, b))
BINOPS.add(BinOpKind.MUL, lambda t, a, b: t.B.mul(a, b))
BINOPS.add(BinOpKind.DIV, lambda t, a, b: _zero_or(t, b, t.B.udiv(a, b)))
BINOPS.add(BinOpKind.MOD, lambda t, a, b: _zero_or(t, b, t.B.urem(a, b)))
BINOPS.add(BinOpKind.BIT_AND, lambda t, a, b: t.B.band(a, b))
BINOPS.add(BinOpKind.BIT_OR, lambda t, a, b: t.B.bor(a, b))
BINOPS.add(BinOpKind.BIT_XOR, lambda t, a, b: t.B.bxor(a, b))
BINOPS.add(BinOpKind.SHL, lambda t, a, b: t.B.shl(a, t.B.band(b, t.c(31))))
BINOPS.add(BinOpKind.SHR, lambda t, a, b: t.B.lshr(a, t.B.band(b, t.c(31))))
BINOPS.add(BinOpKind.EQ, lambda t, a, b: t.B.truth(t.B.eq(a, b)))
BINOPS.add(BinOpKind.NE, lambda t, a, b: t.B.truth(t.B.ne(a, b)))
BINOPS.add(BinOpKind.LT, lambda t, a, b: t.B.truth(t.B.ult(a, b)))
BINOPS.add(BinOpKind.GT, lambda t, a, b: t.B.truth(t.B.ugt(a, b)))
BINOPS.add(BinOpKind.LE, lambda t, a, b: t.B.truth(t.B.ule(a, b)))
BINOPS.add(BinOpKind.GE, lambda t, a, b: t.B.truth(t.B.uge(a, b)))
BINOPS.add(BinOpKind.AND, lambda t, a, b: t.B.truth(t.B.all_([t.B.nonzero(a), t.B.nonzero(b)])))
BINOPS.add(BinOpKind.OR, lambda t, a, b: t.B.truth(t.B.any_([t.B.nonzero(a), t.B.nonzero(b)])))


def _dot4_i8(t: _Translator, a: Any, b: Any) -> Any:
    """The sum of the products of the signed bytes (each sign-extended as
    `(byte ^ 0x80) - 0x80`), wrapping in 32 bits."""
    B = t.B

    def byte(x: Any, lane: int) -> Any:
        return B.sub(B.bxor(B.zext(B.extract(x, 8 * lane + 7, 8 * lane), 24), t.c(0x80)), t.c(0x80))

    total = B.mul(byte(a, 0), byte(b, 0))
    for lane in range(1, 4):
        total = B.add(total, B.mul(byte(a, lane), byte(b, lane)))
    return total


BINOPS.add(BinOpKind.DOT4_I8, _dot4_i8)
BINOPS.add(
    BinOpKind.MUL_HIGH,
    lambda t, a, b: t.B.extract(t.B.mul(t.B.zext(a, 32), t.B.zext(b, 32)), 63, 32),
)


_Unary = Callable[[_Translator, Any], Any]
UNOPS: OpTable[UnOpKind, _Unary] = OpTable("SMT unary operators", lambda: UnOpKind)


def _popcount(t: _Translator, a: Any) -> Any:
    """The SWAR count of WGSL's countOneBits."""
    B, c = t.B, t.c
    x = B.sub(a, B.band(B.lshr(a, c(1)), c(0x5555_5555)))
    x = B.add(B.band(x, c(0x3333_3333)), B.band(B.lshr(x, c(2)), c(0x3333_3333)))
    x = B.band(B.add(x, B.lshr(x, c(4))), c(0x0F0F_0F0F))
    return B.lshr(B.mul(x, c(0x0101_0101)), c(24))


def _clz(t: _Translator, a: Any) -> Any:
    """A binary search on the highest set bit."""
    B, c = t.B, t.c
    count = c(0)
    x = a
    for width in (16, 8, 4, 2, 1):
        empty = B.eq(B.lshr(x, c(32 - width)), c(0))
        count = B.ite(empty, B.add(count, c(width)), count)
        x = B.ite(empty, B.shl(x, c(width)), x)
    return B.ite(B.eq(a, c(0)), c(32), count)


def _ctz(t: _Translator, a: Any) -> Any:
    B, c = t.B, t.c
    count = c(0)
    x = a
    for width in (16, 8, 4, 2, 1):
        empty = B.eq(B.band(x, c((1 << width) - 1)), c(0))
        count = B.ite(empty, B.add(count, c(width)), count)
        x = B.ite(empty, B.lshr(x, c(width)), x)
    return B.ite(B.eq(a, c(0)), c(32), count)


def _reverse_bits(t: _Translator, a: Any) -> Any:
    B, c = t.B, t.c
    x = a
    for shift, mask in ((1, 0x5555_5555), (2, 0x3333_3333), (4, 0x0F0F_0F0F), (8, 0x00FF_00FF)):
        m = c(mask)
        x = B.bor(B.band(B.lshr(x, c(shift)), m), B.shl(B.band(x, m), c(shift)))
    return B.bor(B.lshr(x, c(16)), B.shl(x, c(16)))


UNOPS.add(UnOpKind.NEGATE, lambda t, a: t.B.add(t.B.bnot(a), t.c(1)))
UNOPS.add(UnOpKind.BIT_NOT, lambda t, a: t.B.bnot(a))
UNOPS.add(UnOpKind.LOGICAL_NOT, lambda t, a: t.B.truth(t.B.eq(a, t.c(0))))
UNOPS.add(UnOpKind.POPCOUNT, _popcount)
UNOPS.add(UnOpKind.CLZ, _clz)
UNOPS.add(UnOpKind.CTZ, _ctz)
UNOPS.add(UnOpKind.REVERSE_BITS, _reverse_bits)


U128_BINOPS: OpTable[BinOpKind, _Binary] = OpTable("SMT u128 binary operators", lambda: d.U128_BINOP_KINDS)
"""`a <kind> b` on two 128-bit terms: a 128-bit term, or a 32-bit 1/0 for a
comparison (/0 and %0 give 0, shift amounts masked to 0..127)."""


def _wide(t: _Translator, value: int) -> Any:
    return t.B.const(value, 128)


def _wide_zero_or(t: _Translator, b: Any, term: Any) -> Any:
    return t.B.ite(t.B.eq(b, _wide(t, 0)), _wide(t, 0), term)


U128_BINOPS.add(BinOpKind.ADD, lambda t, a, b: t.B.add(a, b))
U128_BINOPS.add(BinOpKind.SUB, lambda t, a, b: t.B.sub(a, b))
U128_BINOPS.add(BinOpKind.MUL, lambda t, a, b: t.B.mul(a, b))
U128_BINOPS.add(BinOpKind.DIV, lambda t, a, b: _wide_zero_or(t, b, t.B.udiv(a, b)))
U128_BINOPS.add(BinOpKind.MOD, lambda t, a, b: _wide_zero_or(t, b, t.B.urem(a, b)))
U128_BINOPS.add(BinOpKind.BIT_AND, lambda t, a, b: t.B.band(a, b))
U128_BINOPS.add(BinOpKind.BIT_OR, lambda t, a, b: t.B.bor(a, b))
U128_BINOPS.add(BinOpKind.BIT_XOR, lambda t, a, b: t.B.bxor(a, b))
U128_BINOPS.add(BinOpKind.SHL, lambda t, a, b: t.B.shl(a, t.B.band(b, _wide(t, 127))))
U128_BINOPS.add(BinOpKind.SHR, lambda t, a, b: t.B.lshr(a, t.B.band(b, _wide(t, 127))))
U128_BINOPS.add(BinOpKind.EQ, lambda t, a, b: t.B.truth(t.B.eq(a, b)))
U128_BINOPS.add(BinOpKind.NE, lambda t, a, b: t.B.truth(t.B.ne(a, b)))
U128_BINOPS.add(BinOpKind.LT, lambda t, a, b: t.B.truth(t.B.ult(a, b)))
U128_BINOPS.add(BinOpKind.GT, lambda t, a, b: t.B.truth(t.B.ugt(a, b)))
U128_BINOPS.add(BinOpKind.LE, lambda t, a, b: t.B.truth(t.B.ule(a, b)))
U128_BINOPS.add(BinOpKind.GE, lambda t, a, b: t.B.truth(t.B.uge(a, b)))


def _count_bits(t: _Translator, a: Any) -> Any:
    """The set bits of a 128-bit term, as 32 bits: the sum of its bits."""
    B = t.B
    return B.sum([B.zext(B.bit(a, k), 31) for k in range(128)])


def _leading_zeros(t: _Translator, a: Any) -> Any:
    """128 minus the position of the highest set bit plus one (128 for 0)."""
    B, count = t.B, t.c(128)
    for k in range(128):  # the last set bit seen from below decides
        count = B.ite(B.eq(B.bit(a, k), B.const(1, 1)), t.c(127 - k), count)
    return count


def _trailing_zeros(t: _Translator, a: Any) -> Any:
    """The position of the lowest set bit (128 for 0)."""
    B, count = t.B, t.c(128)
    for k in range(127, -1, -1):  # the last set bit seen from above decides
        count = B.ite(B.eq(B.bit(a, k), B.const(1, 1)), t.c(k), count)
    return count


U128_UNOPS: OpTable[UnOpKind, _Unary] = OpTable("SMT u128 unary operators", lambda: d.U128_UNOP_KINDS)
"""`<kind> a` on a 128-bit term: bit_not a 128-bit term, the counts 32 bits."""
U128_UNOPS.add(UnOpKind.BIT_NOT, lambda t, a: t.B.bnot(a))
U128_UNOPS.add(UnOpKind.POPCOUNT, _count_bits)
U128_UNOPS.add(UnOpKind.CLZ, _leading_zeros)
U128_UNOPS.add(UnOpKind.CTZ, _trailing_zeros)


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
