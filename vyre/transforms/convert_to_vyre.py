"""`convert-to-vyre`: MLIR's standard dialects (`func`, `scf`, `memref`, `arith`)
into vyre kernels.

Every `func.func` with a body becomes a `vyre.kernel` of the same name, in its
place. The function takes 1-D memrefs of `i32` or `f32` (static or dynamic
size), returns nothing, and runs one 1-D `scf.parallel` from 0 with step 1:

    func.func @add(%a: memref<?xi32>, %b: memref<?xi32>, %out: memref<?xi32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %out, %c0 : memref<?xi32>
      "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
      ^bb0(%i: index):
        ...memref.load / arith / scf.for / scf.if / memref.store...
        scf.reduce
      }) : (index, index, index) -> ()
      func.return
    }

- Buffers: one per argument, in order, binding = the argument's position, named
  after the argument's SSA name (`%a` -> `a`; `arg0`, `arg1`, ... when the
  source does not name it). Element type `u32` for `i32`, `f32` for `f32`. A
  buffer the function stores to is `read_write`, every other one `read_only`.
- The parallel index is the global invocation id x, under a guard
  `if id < upper bound`: dispatch ceil(n / workgroup_size) workgroups (the
  pass option `workgroup-size`, 64 by default) and the extra invocations do
  nothing. The upper bound is any value the function computes (usually
  `memref.dim`, which becomes `vyre.buf_len`, the bound buffer's length). When
  the bound is the length of the one buffer the body stores to, at the index,
  and the body has no loop, the guard is left out: vyre's store past the end
  does nothing, so the effect is the same, and the kernel is then exactly the
  elementwise map one writes by hand (its vectorised lowering reads only the
  inputs).
- Values: `i32` and `index` are `u32` words (vyre's index is 32 bits: MLIR lets
  the target choose the width of `index`), `i1` is a `u32` 0 or 1, `f32` is a
  strict `f32`. Ops before the `scf.parallel` run in every invocation (they
  must be pure: no memref.load/store there); only `func.return` may follow it.
- `scf.for` becomes a `vyre.loop` over its trip count (MLIR compares the
  bounds as signed integers; the trip count is computed so, and the induction
  variable is `lb + k * step`); loop-carried values (`iter_args`) and the
  results of `scf.if` become vyre locals (`let` before, `assign` at the
  `scf.yield`, `var` after). `scf.if` becomes `vyre.if`.

Semantics (exact where MLIR defines a result; where MLIR leaves it undefined
or poison, vyre's defined result is one of the results MLIR allows):

- `addi subi muli andi ori xori divui remui shli shrui cmpi(eq ne ult ule ugt
  uge) select maxui minui constant` map to vyre's u32 ops directly (wrapping;
  `nsw`/`nuw` flags, under which overflow is poison, get the wrapped value).
- Signed ops have no vyre op of their own and are built from u32 ops over the
  same 32 bits: `divsi`/`remsi` divide the magnitudes and restore the sign
  (truncating toward zero; the remainder has the dividend's sign); `shrsi` is
  `((a ^ m) >> s) ^ m` with `m` all ones for a negative `a`; `cmpi slt sle sgt
  sge`, `maxsi`, `minsi` compare with the sign bit flipped.
- Division by zero (`divui divsi remui remsi`, undefined behaviour in MLIR)
  gives 0, vyre's defined result. `divsi` of INT_MIN by -1 (undefined in MLIR)
  gives INT_MIN (the wrapped quotient), and `remsi` of it gives 0.
- Shifts by 32 or more (`shli shrui shrsi`: poison in MLIR) shift by the amount
  modulo 32, as vyre's `shl`/`shr` mask it.
- `extui` i1->i32, `extsi` i1->i32 (0 or -1), `trunci` i32->i1 (the low bit),
  `index_cast` between i32 and index (32-bit index: no change).
- Floats are vyre's strict IEEE ops: `addf subf mulf divf` (round to nearest
  even, subnormals kept, no contraction; `fastmath` flags are ignored: strict
  results are among those they allow), `negf`, `maxnumf`/`minnumf` (vyre's
  maximumNumber/minimumNumber), `maximumf`/`minimumf` (NaN if either operand
  is NaN), every `cmpf` predicate (ordered ones false on NaN, unordered ones
  true), `sitofp uitofp` (round to nearest even), `fptosi fptoui` (truncate;
  out of range, poison in MLIR, saturates; NaN gives 0), `bitcast` i32<->f32.
  Every NaN a float op produces is the canonical quiet NaN 0x7FC00000 (MLIR
  does not specify NaN payloads).
- `memref.load`/`memref.store` out of bounds (undefined in MLIR) read 0 and
  store nothing, vyre's guarded access.

Anything else (another element type or rank, other ops, scalar arguments,
results, several `scf.parallel`, reductions) is a `ConversionError` naming the op
and its `file:line:col`. See MLIR's
[arith](https://mlir.llvm.org/docs/Dialects/ArithOps/) dialect.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    FileLineColLoc,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import PassFailedException

from vyre.dialects import vyre as d

__all__ = ["ConversionError", "ConvertToVyrePass", "FuncToKernel", "convert_function"]

U32 = d.U32
F32 = d.data_type(d.DataTypeKind.F32)
I32 = d.I32
SIGN_BIT = 0x8000_0000
CANONICAL_NAN_F32 = 0x7FC0_0000

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ConversionError(PassFailedException):
    """An op (or a function) convert-to-vyre cannot translate. `op` is where it is,
    `reason` what is wrong; the message puts its `file:line:col` first when the
    op has a location."""

    def __init__(self, op: Operation, reason: str):
        self.op = op
        self.reason = f"convert-to-vyre: {reason}"
        location = op.location
        where = (
            f"{location.filename.data}:{location.line.data}:{location.column.data}: "
            if isinstance(location, FileLineColLoc)
            else ""
        )
        super().__init__(f"{where}error: {self.reason}")


# ---------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FuncToKernel(RewritePattern):
    """One `func.func` (with a body) -> one `vyre.kernel`, in its place."""

    workgroup_size: int = 64

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        if op.is_declaration:
            return
        rewriter.replace(op, convert_function(op, self.workgroup_size), [])


@dataclass(frozen=True)
class ConvertToVyrePass(ModulePass):
    """`-p convert-to-vyre{workgroup-size=64}`: every function of the module
    becomes a vyre kernel (see the module doc)."""

    name = "convert-to-vyre"

    workgroup_size: int = 64
    """Invocations per workgroup (x); dispatch ceil(n / workgroup_size) groups."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if isinstance(self.workgroup_size, bool) or not 1 <= self.workgroup_size <= d.U32_MAX:
            raise PassFailedException(
                f"convert-to-vyre: workgroup-size must be in [1, {d.U32_MAX}], got"
                f" {self.workgroup_size}"
            )
        walker = PatternRewriteWalker(
            GreedyRewritePatternApplier([FuncToKernel(self.workgroup_size)], dce_enabled=False),
            apply_recursively=False,
        )
        walker.rewrite_module(op)


def convert_function(function: func.FuncOp, workgroup_size: int = 64) -> d.KernelOp:
    """The vyre kernel of one function; `ConversionError` when it does not fit."""
    return _FunctionConverter(function, workgroup_size).convert()


# ---------------------------------------------------------------------------
# The translation
# ---------------------------------------------------------------------------


@dataclass
class _Buffer:
    name: str
    element: d.DataTypeAttr
    stored: bool = False


_DIRECT_BINOPS: dict[str, d.BinOpKind] = {
    "arith.addi": d.BinOpKind.ADD,
    "arith.subi": d.BinOpKind.SUB,
    "arith.muli": d.BinOpKind.MUL,
    "arith.divui": d.BinOpKind.DIV,
    "arith.remui": d.BinOpKind.MOD,
    "arith.andi": d.BinOpKind.BIT_AND,
    "arith.ori": d.BinOpKind.BIT_OR,
    "arith.xori": d.BinOpKind.BIT_XOR,
    "arith.shli": d.BinOpKind.SHL,
    "arith.shrui": d.BinOpKind.SHR,
}
_I1_BINOPS: dict[str, d.BinOpKind] = {
    "arith.andi": d.BinOpKind.BIT_AND,
    "arith.ori": d.BinOpKind.BIT_OR,
    "arith.xori": d.BinOpKind.BIT_XOR,
    "arith.addi": d.BinOpKind.BIT_XOR,
    "arith.subi": d.BinOpKind.BIT_XOR,
    "arith.muli": d.BinOpKind.BIT_AND,
}
_UNSIGNED_COMPARE: dict[str, d.BinOpKind] = {
    "eq": d.BinOpKind.EQ,
    "ne": d.BinOpKind.NE,
    "ult": d.BinOpKind.LT,
    "ule": d.BinOpKind.LE,
    "ugt": d.BinOpKind.GT,
    "uge": d.BinOpKind.GE,
    "slt": d.BinOpKind.LT,
    "sle": d.BinOpKind.LE,
    "sgt": d.BinOpKind.GT,
    "sge": d.BinOpKind.GE,
}
_FLOAT_BINOPS: dict[str, type[d.FloatBinaryOp]] = {
    "arith.addf": d.FAddOp,
    "arith.subf": d.FSubOp,
    "arith.mulf": d.FMulOp,
    "arith.divf": d.FDivOp,
    "arith.maxnumf": d.FMaxOp,
    "arith.minnumf": d.FMinOp,
}
_ORDERED: dict[str, str] = {
    "oeq": "eq",
    "ogt": "gt",
    "oge": "ge",
    "olt": "lt",
    "ole": "le",
    "une": "ne",
}
_UNORDERED: dict[str, str] = {"ugt": "le", "uge": "lt", "ult": "ge", "ule": "gt"}
"""An unordered predicate is the negation of the ordered one beside it."""

SUPPORTED_OPS = (
    "arith: addi subi muli divui divsi remui remsi andi ori xori shli shrui shrsi cmpi"
    " select constant maxui minui maxsi minsi mului_extended mulsi_extended extui extsi trunci index_cast"
    " addf subf mulf divf negf maxnumf minnumf maximumf minimumf cmpf sitofp uitofp"
    " fptosi fptoui bitcast; memref: load store dim; scf: parallel for if yield reduce;"
    " func: return"
)


class _FunctionConverter:
    def __init__(self, function: func.FuncOp, workgroup_size: int):
        self.function = function
        self.workgroup_size = workgroup_size
        self.values: dict[SSAValue, SSAValue] = {}
        self.constants: dict[SSAValue, int] = {}
        self.buffers: dict[SSAValue, _Buffer] = {}
        self.locals: set[str] = set()
        self.block = Block()
        self.literals: list[dict[int, SSAValue]] = [{}]
        """The literals of each block under construction, innermost last (a
        literal of an enclosing block is visible in the nested ones)."""
        self.source: Operation = function
        self.in_parallel = False

    # -- entry ------------------------------------------------------------------

    def convert(self) -> d.KernelOp:
        function = self.function
        if function.function_type.outputs.data:
            raise ConversionError(
                function,
                f"@{function.sym_name.data} returns values; a kernel returns nothing (store results into a memref argument)",
            )
        body = function.body
        if len(body.blocks) != 1:
            raise ConversionError(
                function,
                f"@{function.sym_name.data} has {len(body.blocks)} blocks; only structured control flow (scf) converts",
            )
        self._declare_buffers(body.blocks[0])
        parallel = self._body(body.blocks[0])
        if parallel is None:
            raise ConversionError(
                function,
                f"@{function.sym_name.data} has no scf.parallel: nothing to run on the GPU",
            )
        buffers = [
            d.BufferDeclAttr(
                buffer.name,
                binding,
                d.AccessKind.READ_WRITE if buffer.stored else d.AccessKind.READ_ONLY,
                buffer.element,
            )
            for binding, buffer in enumerate(self.buffers.values())
        ]
        body = Region(self.block)
        region_dce(body)  # the index constants of bounds, folded signs, ...
        kernel = d.KernelOp(function.sym_name.data, (self.workgroup_size, 1, 1), buffers, body)
        kernel.location = function.location
        return kernel

    def _declare_buffers(self, entry: Block) -> None:
        taken: set[str] = set()
        for position, arg in enumerate(entry.args):
            ty = arg.type
            element = _buffer_element(ty)
            if element is None:
                shown = f"%{arg.name_hint}" if arg.name_hint else f"#{position}"
                raise ConversionError(
                    self.function,
                    f"argument {shown} of @{self.function.sym_name.data} has type {ty}; kernels"
                    " take 1-D memrefs of i32 or f32 (memref<?xi32>, memref<?xf32>) with the"
                    " default layout",
                )
            name = _buffer_name(arg.name_hint, position, taken)
            taken.add(name)
            self.buffers[arg] = _Buffer(name, element)
        self.locals |= taken  # a local never takes a buffer's name (one WGSL scope)

    def _body(self, entry: Block) -> scf.ParallelOp | None:
        parallel: scf.ParallelOp | None = None
        for op in entry.ops:
            if isinstance(op, func.ReturnOp):
                if op.operands:
                    raise ConversionError(op, "func.return with values: a kernel returns nothing")
                continue
            if parallel is not None:
                raise ConversionError(
                    op, f"'{op.name}' after the scf.parallel: only func.return may follow it"
                )
            if isinstance(op, scf.ParallelOp):
                self._parallel(op)
                parallel = op
                continue
            self._op(op)
        return parallel

    # -- emission ---------------------------------------------------------------

    def emit(self, op: Operation) -> SSAValue | None:
        op.location = self.source.location
        self.block.add_op(op)
        return op.results[0] if op.results else None

    def value(self, op: Operation) -> SSAValue:
        result = self.emit(op)
        assert result is not None
        return result

    def lit(self, word: int) -> SSAValue:
        word &= d.U32_MAX
        for scope in reversed(self.literals):
            if word in scope:
                return scope[word]
        value = self.value(d.LitU32Op(word))
        self.constants[value] = word
        self.literals[-1][word] = value
        return value

    def binop(self, kind: d.BinOpKind, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        a, b = self.constants.get(lhs), self.constants.get(rhs)
        if a is not None and b is not None:
            return self.lit(d.fold_binop(kind, a, b))
        return self.value(d.BinOp(kind, lhs, rhs))

    def negate(self, operand: SSAValue) -> SSAValue:
        word = self.constants.get(operand)
        if word is not None:
            return self.lit(-word)
        return self.value(d.UnOp(d.UnOpKind.NEGATE, operand))

    def select(self, cond: SSAValue, if_true: SSAValue, if_false: SSAValue) -> SSAValue:
        word = self.constants.get(cond)
        if word is not None:
            return if_true if word else if_false
        return self.value(d.SelectOp(cond, if_true, if_false))

    def to_word(self, boolean: SSAValue) -> SSAValue:
        """A vyre bool as the u32 0/1 that stands for an i1."""
        return self.value(d.CastOp(boolean, U32))

    def fresh_local(self, hint: str | None, fallback: str) -> str:
        base = hint if hint is not None and _IDENTIFIER.fullmatch(hint) else fallback
        name, suffix = base, 0
        while name in self.locals:
            suffix += 1
            name = f"{base}_{suffix}"
        self.locals.add(name)
        return name

    def nested(self, build: Callable[[], None]) -> Block:
        """Run `build` with a fresh block as the insertion point; return the block."""
        outer, self.block = self.block, Block()
        self.literals.append({})
        try:
            build()
            return self.block
        finally:
            self.block = outer
            self.literals.pop()

    # -- values -----------------------------------------------------------------

    def get(self, value: SSAValue, user: Operation) -> SSAValue:
        converted = self.values.get(value)
        if converted is not None:
            return converted
        if value in self.buffers:
            raise ConversionError(
                user,
                f"'{user.name}' uses memref %{self.buffers[value].name}; a memref converts only as the operand of memref.load, memref.store or memref.dim",
            )
        raise ConversionError(user, f"'{user.name}' uses a value defined outside what converts")

    def define(self, source: SSAValue, value: SSAValue) -> None:
        """`source` (an MLIR value) is `value` from now on; the vyre value takes
        the source's SSA name when it has none."""
        self.values[source] = value
        if value.name_hint is None and source.name_hint is not None:
            value.name_hint = source.name_hint

    def define_result(self, source: SSAValue, value: SSAValue) -> None:
        """A result of scf.for/scf.if: read from its local, named as in the source."""
        if source.name_hint is not None:
            value.name_hint = source.name_hint
        self.define(source, value)

    def buffer(self, value: SSAValue, user: Operation) -> _Buffer:
        buffer = self.buffers.get(value)
        if buffer is None:
            raise ConversionError(
                user,
                f"'{user.name}' on a memref that is not an argument of the function (only argument memrefs become buffers)",
            )
        return buffer

    def index(self, indices: Sequence[SSAValue], user: Operation) -> SSAValue:
        if len(indices) != 1:
            raise ConversionError(
                user, f"'{user.name}' with {len(indices)} indices; buffers are 1-D"
            )
        return self.get(indices[0], user)

    # -- ops ----------------------------------------------------------------------

    def _op(self, op: Operation) -> None:
        self.source = op
        handler = _HANDLERS.get(op.name)
        if handler is None:
            raise ConversionError(op, f"'{op.name}' is not supported (supported: {SUPPORTED_OPS})")
        handler(self, op)

    def _ops(self, block: Block, terminator: type[Operation]) -> Operation | None:
        """Convert a region's block up to its terminator (returned, unconverted)."""
        end: Operation | None = None
        for op in block.ops:
            if isinstance(op, terminator):
                end = op
                break
            self._op(op)
        return end

    def _result_type(self, op: Operation) -> str:
        return _scalar(op.results[0].type, op)

    def convert_constant(self, op: Operation) -> None:
        constant = cast(arith.ConstantOp, op)
        attr = constant.value
        kind = self._result_type(op)
        if kind == "f32" and isinstance(attr, FloatAttr):
            bits = struct.unpack(
                "<I", struct.pack("<f", cast("FloatAttr[Float32Type]", attr).value.data)
            )[0]
            self.define(op.results[0], self.value(d.LitFloatOp(bits, F32)))
            return
        if isinstance(attr, IntegerAttr):
            number = cast("IntegerAttr[IntegerType]", attr).value.data
            self.define(op.results[0], self.lit(number & (1 if kind == "i1" else d.U32_MAX)))
            return
        raise ConversionError(
            op, f"arith.constant {attr} is not a scalar i1, i32, index or f32 constant"
        )

    def _integer_operands(self, op: Operation) -> tuple[str, SSAValue, SSAValue]:
        kinds = {_scalar(operand.type, op) for operand in op.operands}
        if kinds & {"f32"}:
            raise ConversionError(op, f"'{op.name}' on f32 operands")
        lhs, rhs = (self.get(operand, op) for operand in op.operands[:2])
        return kinds.pop(), lhs, rhs

    def convert_direct(self, op: Operation) -> None:
        kind, lhs, rhs = self._integer_operands(op)
        if kind == "i1":
            i1_kind = _I1_BINOPS.get(op.name)
            if i1_kind is None:
                raise ConversionError(op, f"'{op.name}' on i1 is not supported")
            self.define(op.results[0], self.binop(i1_kind, lhs, rhs))
            return
        self.define(op.results[0], self.binop(_DIRECT_BINOPS[op.name], lhs, rhs))

    def _signed_parts(
        self, a: SSAValue, b: SSAValue
    ) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
        """(sign of a, sign of b, |a|, |b|) as u32 words (|INT_MIN| = 2^31)."""
        thirty_one = self.lit(31)
        sign_a = self.binop(d.BinOpKind.SHR, a, thirty_one)
        sign_b = self.binop(d.BinOpKind.SHR, b, thirty_one)
        return (
            sign_a,
            sign_b,
            self.select(sign_a, self.negate(a), a),
            self.select(sign_b, self.negate(b), b),
        )

    def convert_divsi(self, op: Operation) -> None:
        kind, a, b = self._integer_operands(op)
        self._not_i1(op, kind)
        sign_a, sign_b, mag_a, mag_b = self._signed_parts(a, b)
        quotient = self.binop(d.BinOpKind.DIV, mag_a, mag_b)
        negative = self.binop(d.BinOpKind.BIT_XOR, sign_a, sign_b)
        self.define(op.results[0], self.select(negative, self.negate(quotient), quotient))

    def convert_remsi(self, op: Operation) -> None:
        kind, a, b = self._integer_operands(op)
        self._not_i1(op, kind)
        sign_a, _, mag_a, mag_b = self._signed_parts(a, b)
        remainder = self.binop(d.BinOpKind.MOD, mag_a, mag_b)
        self.define(op.results[0], self.select(sign_a, self.negate(remainder), remainder))

    def convert_shrsi(self, op: Operation) -> None:
        kind, a, amount = self._integer_operands(op)
        self._not_i1(op, kind)
        fill = self.negate(self.binop(d.BinOpKind.SHR, a, self.lit(31)))
        shifted = self.binop(d.BinOpKind.SHR, self.binop(d.BinOpKind.BIT_XOR, a, fill), amount)
        self.define(op.results[0], self.binop(d.BinOpKind.BIT_XOR, shifted, fill))

    def _not_i1(self, op: Operation, kind: str) -> None:
        if kind == "i1":
            raise ConversionError(op, f"'{op.name}' on i1 is not supported")

    def compare(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        """`cmpi <predicate>` as a u32 0/1; signed predicates flip the sign bits."""
        if predicate.startswith("s"):
            flip = self.lit(SIGN_BIT)
            a = self.binop(d.BinOpKind.BIT_XOR, a, flip)
            b = self.binop(d.BinOpKind.BIT_XOR, b, flip)
        return self.binop(_UNSIGNED_COMPARE[predicate], a, b)

    def convert_cmpi(self, op: Operation) -> None:
        compare = cast(arith.CmpiOp, op)
        kind, a, b = self._integer_operands(op)
        predicate = arith.CMPI_COMPARISON_OPERATIONS[compare.predicate.value.data]
        if kind == "i1" and predicate not in ("eq", "ne"):
            raise ConversionError(
                op, f"arith.cmpi {predicate} on i1 is not supported (eq and ne are)"
            )
        self.define(op.results[0], self.compare(predicate, a, b))

    def convert_min_max(self, op: Operation) -> None:
        kind, a, b = self._integer_operands(op)
        self._not_i1(op, kind)
        signed = op.name.endswith("si")
        less = self.compare("slt" if signed else "ult", a, b)
        wants_max = op.name.startswith("arith.max")
        self.define(
            op.results[0], self.select(less, b, a) if wants_max else self.select(less, a, b)
        )

    def convert_mul_extended(self, op: Operation) -> None:
        """`arith.mului_extended` / `mulsi_extended`: the low word is `mul`, the
        high word `mul_high`, less (for the signed product) b where a < 0 and a
        where b < 0 (mod 2^32: a = a_u - 2^32 [a < 0])."""
        kind, a, b = self._integer_operands(op)
        if kind != "i32":  # MLIR's verifier takes no index here; i1 would need its own rules
            raise ConversionError(op, f"'{op.name}' on {kind} is not supported (i32 is)")
        high = self.binop(d.BinOpKind.MUL_HIGH, a, b)
        if op.name == "arith.mulsi_extended":
            zero, thirty_one = self.lit(0), self.lit(31)
            less_b = self.select(self.binop(d.BinOpKind.SHR, a, thirty_one), b, zero)
            less_a = self.select(self.binop(d.BinOpKind.SHR, b, thirty_one), a, zero)
            high = self.binop(
                d.BinOpKind.SUB, self.binop(d.BinOpKind.SUB, high, less_b), less_a
            )
        self.define(op.results[0], self.binop(d.BinOpKind.MUL, a, b))
        self.define(op.results[1], high)

    def convert_select(self, op: Operation) -> None:
        select = cast(arith.SelectOp, op)
        _scalar(select.result.type, op)
        cond = self.get(select.cond, op)
        self.define(
            select.result, self.select(cond, self.get(select.lhs, op), self.get(select.rhs, op))
        )

    def convert_int_cast(self, op: Operation) -> None:
        source, target = _scalar(op.operands[0].type, op), self._result_type(op)
        value = self.get(op.operands[0], op)
        if op.name == "arith.index_cast" and {source, target} <= {"i32", "index"}:
            self.define(op.results[0], value)
        elif op.name == "arith.extui" and (source, target) == ("i1", "i32"):
            self.define(op.results[0], value)
        elif op.name == "arith.extsi" and (source, target) == ("i1", "i32"):
            self.define(op.results[0], self.negate(value))
        elif op.name == "arith.trunci" and (source, target) == ("i32", "i1"):
            self.define(op.results[0], self.binop(d.BinOpKind.BIT_AND, value, self.lit(1)))
        else:
            raise ConversionError(
                op,
                f"'{op.name}' from {source} to {target} is not supported (vyre's integers are 32 bits: i1<->i32 and i32<->index convert)",
            )

    # floats

    def _float_operands(self, op: Operation) -> list[SSAValue]:
        if any(_scalar(operand.type, op) != "f32" for operand in op.operands):
            raise ConversionError(op, f"'{op.name}' on operands that are not f32")
        return [self.get(operand, op) for operand in op.operands]

    def convert_float_binop(self, op: Operation) -> None:
        lhs, rhs = self._float_operands(op)
        self.define(op.results[0], self.value(_FLOAT_BINOPS[op.name](lhs, rhs)))

    def convert_nan_propagating(self, op: Operation) -> None:
        lhs, rhs = self._float_operands(op)
        combined = d.FMaxOp(lhs, rhs) if op.name == "arith.maximumf" else d.FMinOp(lhs, rhs)
        number = self.value(combined)
        nan = self.binop(
            d.BinOpKind.OR,
            self.to_word(self.value(d.FIsNanOp(lhs))),
            self.to_word(self.value(d.FIsNanOp(rhs))),
        )
        quiet_nan = self.value(d.LitFloatOp(CANONICAL_NAN_F32, F32))
        self.define(op.results[0], self.select(nan, quiet_nan, number))

    def convert_negf(self, op: Operation) -> None:
        (operand,) = self._float_operands(op)
        self.define(op.results[0], self.value(d.FNegOp(operand)))

    def fcmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.to_word(self.value(d.FCmpOp(predicate, a, b)))

    def convert_cmpf(self, op: Operation) -> None:
        compare = cast(arith.CmpfOp, op)
        a, b = self._float_operands(op)
        predicate = arith.CMPF_COMPARISON_OPERATIONS[compare.predicate.value.data]
        if predicate in ("false", "true"):
            result = self.lit(int(predicate == "true"))
        elif predicate in _ORDERED:
            result = self.fcmp(_ORDERED[predicate], a, b)
        elif predicate in _UNORDERED:
            result = self.value(
                d.UnOp(d.UnOpKind.LOGICAL_NOT, self.fcmp(_UNORDERED[predicate], a, b))
            )
        elif predicate in ("one", "ueq"):
            differ = self.binop(d.BinOpKind.OR, self.fcmp("lt", a, b), self.fcmp("gt", a, b))
            result = (
                differ if predicate == "one" else self.value(d.UnOp(d.UnOpKind.LOGICAL_NOT, differ))
            )
        else:  # ord, uno
            nan = self.binop(
                d.BinOpKind.OR,
                self.to_word(self.value(d.FIsNanOp(a))),
                self.to_word(self.value(d.FIsNanOp(b))),
            )
            result = nan if predicate == "uno" else self.value(d.UnOp(d.UnOpKind.LOGICAL_NOT, nan))
        self.define(op.results[0], result)

    def convert_float_cast(self, op: Operation) -> None:
        source, target = _scalar(op.operands[0].type, op), self._result_type(op)
        value = self.get(op.operands[0], op)
        name = op.name
        if name == "arith.bitcast" and {source, target} == {"i32", "f32"}:
            result = self.value(d.BitcastOp(value, F32 if target == "f32" else U32))
        elif name == "arith.bitcast" and source == target:
            result = value
        elif name == "arith.uitofp" and (source, target) == ("i32", "f32"):
            result = self.value(d.CastOp(value, F32))
        elif name == "arith.sitofp" and (source, target) == ("i32", "f32"):
            result = self.value(d.CastOp(self.value(d.CastOp(value, I32)), F32))
        elif name == "arith.fptoui" and (source, target) == ("f32", "i32"):
            result = self.value(d.CastOp(value, U32))
        elif name == "arith.fptosi" and (source, target) == ("f32", "i32"):
            result = self.value(d.CastOp(self.value(d.CastOp(value, I32)), U32))
        else:
            raise ConversionError(op, f"'{name}' from {source} to {target} is not supported")
        self.define(op.results[0], result)

    # memory

    def convert_load(self, op: Operation) -> None:
        load = cast(memref.LoadOp, op)
        self._inside_parallel(op)
        buffer = self.buffer(load.memref, op)
        index = self.index(load.indices, op)
        self.define(load.res, self.value(d.LoadOp(buffer.name, index, buffer.element)))

    def convert_store(self, op: Operation) -> None:
        store = cast(memref.StoreOp, op)
        self._inside_parallel(op)
        buffer = self.buffer(store.memref, op)
        index = self.index(store.indices, op)
        buffer.stored = True
        self.emit(d.StoreOp(buffer.name, index, self.get(store.value, op)))

    def _inside_parallel(self, op: Operation) -> None:
        if not self.in_parallel:
            raise ConversionError(
                op,
                f"'{op.name}' outside the scf.parallel: it would run once per invocation, not once",
            )

    def convert_dim(self, op: Operation) -> None:
        dim = cast(memref.DimOp, op)
        buffer = self.buffer(dim.source, op)
        if self.constants.get(self.get(dim.index, op)) != 0:
            raise ConversionError(
                op, "memref.dim of a dimension other than the constant 0 (buffers are 1-D)"
            )
        self.define(dim.result, self.value(d.BufLenOp(buffer.name)))

    # structure

    def _parallel(self, op: scf.ParallelOp) -> None:
        self.source = op
        if len(op.lowerBound) != 1:
            raise ConversionError(
                op,
                f"scf.parallel over {len(op.lowerBound)} dimensions; convert-to-vyre takes 1-D loops",
            )
        if op.initVals or op.res:
            raise ConversionError(
                op,
                "scf.parallel with reductions (init values and scf.reduce regions) is not supported",
            )
        lower, step = (self.constants.get(self.get(v[0], op)) for v in (op.lowerBound, op.step))
        if lower != 0 or step != 1:
            raise ConversionError(
                op,
                "scf.parallel must run from the constant 0 with the constant step 1 (the invocation id is the index)",
            )
        upper = self.get(op.upperBound[0], op)
        invocation = self.value(d.InvocationIdOp(0))
        in_bounds = self.binop(d.BinOpKind.LT, invocation, upper)
        body = op.body.block
        self.define(body.args[0], invocation)

        def build() -> None:
            self.in_parallel = True
            end = self._ops(body, scf.ReduceOp)
            if end is not None and (end.operands or end.regions):
                raise ConversionError(end, "scf.reduce with operands is not supported")

        then_block = self.nested(build)
        self.source = op
        if _guard_is_implied(then_block, upper, invocation):
            for inner in list(then_block.ops):  # the body, unguarded (`in_bounds` is dead)
                inner.detach()
                self.block.add_op(inner)
            return
        self.emit(d.IfOp(in_bounds, Region(then_block), None))

    def convert_for(self, op: Operation) -> None:
        loop = cast(scf.ForOp, op)
        kind = _scalar(loop.lb.type, op)
        if kind not in ("index", "i32"):
            raise ConversionError(op, f"scf.for over {kind}; index and i32 loops convert")
        lower, upper, step = (self.get(v, op) for v in (loop.lb, loop.ub, loop.step))
        count = self.trip_count(lower, upper, step)
        body = loop.body.block
        induction = body.args[0]
        direct = self.constants.get(lower) == 0 and self.constants.get(step) == 1
        hint = induction.name_hint
        counter = self.fresh_local(hint if direct or hint is None else f"{hint}_trip", "k")
        carried = self.carry_in(loop.iter_args, body.args[1:], op)

        def build() -> None:
            self.source = op
            k = self.value(d.VarOp(counter, U32))
            offset = k if self.constants.get(step) == 1 else self.binop(d.BinOpKind.MUL, k, step)
            value = (
                offset
                if self.constants.get(lower) == 0
                else self.binop(d.BinOpKind.ADD, lower, offset)
            )
            self.define(induction, value)
            for name, arg in carried:
                self.define(arg, self.value(d.VarOp(name, _vyre_type(arg.type, op))))
            end = self._ops(body, scf.YieldOp)
            self.carry_out(carried, end, op)

        loop_block = self.nested(build)
        self.source = op
        self.emit(d.LoopOp(counter, self.lit(0), count, Region(loop_block)))
        for (name, arg), result in zip(carried, loop.res, strict=True):
            self.define_result(result, self.value(d.VarOp(name, _vyre_type(arg.type, op))))

    def trip_count(self, lower: SSAValue, upper: SSAValue, step: SSAValue) -> SSAValue:
        """How many times `scf.for lower to upper step step` runs: 0 unless
        lower < upper as signed integers, else ceil((upper - lower) / step)."""
        distance = self.binop(d.BinOpKind.SUB, upper, lower)
        if self.constants.get(step) != 1:
            last = self.binop(
                d.BinOpKind.DIV, self.binop(d.BinOpKind.SUB, distance, self.lit(1)), step
            )
            distance = self.binop(d.BinOpKind.ADD, last, self.lit(1))
        return self.select(self.compare("slt", lower, upper), distance, self.lit(0))

    def carry_in(
        self, inits: Sequence[SSAValue], args: Sequence[SSAValue], op: Operation
    ) -> list[tuple[str, SSAValue]]:
        carried: list[tuple[str, SSAValue]] = []
        for init, arg in zip(inits, args, strict=True):
            name = self.fresh_local(arg.name_hint, "carried")
            self.emit(d.LetOp(name, self.get(init, op)))
            carried.append((name, arg))
        return carried

    def carry_out(
        self, carried: Sequence[tuple[str, SSAValue]], end: Operation | None, op: Operation
    ) -> None:
        yielded = list(end.operands) if end is not None else []
        if len(yielded) != len(carried):
            raise ConversionError(
                end or op, f"scf.yield of {len(yielded)} values for {len(carried)} results"
            )
        values = [self.get(value, end or op) for value in yielded]
        for (name, _), value in zip(carried, values, strict=True):
            self.source = end or op
            self.emit(d.AssignOp(name, value))

    def convert_if(self, op: Operation) -> None:
        branch = cast(scf.IfOp, op)
        cond = self.get(branch.cond, op)
        results: list[tuple[str, SSAValue]] = []
        for result in branch.output:
            name = self.fresh_local(result.name_hint, "branch")
            self.emit(d.LetOp(name, self.zero(result.type, op)))
            results.append((name, result))

        def region(source: Region) -> Block:
            def build() -> None:
                end = self._ops(source.blocks[0], scf.YieldOp) if source.blocks else None
                if results or (end is not None and end.operands):
                    self.carry_out(results, end, op)

            return self.nested(build)

        then_block = region(branch.true_region)
        else_block = region(branch.false_region)
        self.source = op
        self.emit(d.IfOp(cond, Region(then_block), Region(else_block)))
        for name, result in results:
            self.define_result(result, self.value(d.VarOp(name, _vyre_type(result.type, op))))

    def zero(self, ty: Attribute, op: Operation) -> SSAValue:
        if _vyre_type(ty, op) == F32:
            return self.value(d.LitFloatOp(0, F32))
        return self.lit(0)

    def convert_nested_parallel(self, op: Operation) -> None:
        raise ConversionError(
            op,
            "scf.parallel inside the function's scf.parallel (or after other ops): one 1-D scf.parallel per function",
        )


def _guard_is_implied(body: Block, upper: SSAValue, index: SSAValue) -> bool:
    """Whether `if index < upper` can be left out without changing what the body
    does: the bound is the length of a buffer B and the body's only effects are
    stores to B at `index` (vyre's store past the end does nothing), with no loop
    (an invocation past the end would run it for nothing). The store is then
    unconditional, and an elementwise kernel lowers exactly as one written by
    hand (the vectorised map need not load B to keep the lanes it skips)."""
    length = upper.owner
    if not isinstance(length, d.BufLenOp):
        return False
    for op in body.walk():
        if isinstance(op, d.LoopOp | d.AtomicOp | d.BarrierOp | d.ReturnOp):
            return False
        if isinstance(op, d.StoreOp) and (op.buffer.data != length.buffer.data or op.index != index):
            return False
    return True


def _scalar(ty: Attribute, op: Operation) -> str:
    """'i1', 'i32', 'index' or 'f32'; a ConversionError for any other type."""
    if isinstance(ty, IndexType):
        return "index"
    if isinstance(ty, IntegerType) and ty.bitwidth in (1, 32):
        return f"i{ty.bitwidth}"
    if isinstance(ty, Float32Type):
        return "f32"
    raise ConversionError(op, f"'{op.name}' on {ty}: vyre converts i1, i32, index and f32 values")


def _vyre_type(ty: Attribute, op: Operation) -> d.DataTypeAttr:
    return F32 if _scalar(ty, op) == "f32" else U32


def _buffer_element(ty: Attribute) -> d.DataTypeAttr | None:
    if not isinstance(ty, MemRefType) or len(ty.shape.data) != 1:
        return None
    memref_type = cast("MemRefType[Attribute]", ty)
    layout = memref_type.layout
    if not isinstance(layout, NoneAttr) and not (
        isinstance(layout, StridedLayoutAttr)
        and layout.get_strides() == (1,)
        and layout.get_offset() in (0, None)
    ):
        return None
    if not isinstance(memref_type.memory_space, NoneAttr):
        return None
    element = memref_type.element_type
    if isinstance(element, IntegerType) and element.bitwidth == 32:
        return U32
    if isinstance(element, Float32Type):
        return F32
    return None


def _buffer_name(hint: str | None, position: int, taken: set[str]) -> str:
    name = hint if hint is not None and _IDENTIFIER.fullmatch(hint) else f"arg{position}"
    base, suffix = name, 0
    while name in taken:
        suffix += 1
        name = f"{base}_{suffix}"
    return name


_Handler = Callable[[_FunctionConverter, Operation], None]
_HANDLERS: dict[str, _Handler] = {
    **dict.fromkeys(_DIRECT_BINOPS, _FunctionConverter.convert_direct),
    "arith.constant": _FunctionConverter.convert_constant,
    "arith.divsi": _FunctionConverter.convert_divsi,
    "arith.remsi": _FunctionConverter.convert_remsi,
    "arith.shrsi": _FunctionConverter.convert_shrsi,
    "arith.cmpi": _FunctionConverter.convert_cmpi,
    **dict.fromkeys(
        ("arith.maxui", "arith.minui", "arith.maxsi", "arith.minsi"),
        _FunctionConverter.convert_min_max,
    ),
    "arith.select": _FunctionConverter.convert_select,
    "arith.mului_extended": _FunctionConverter.convert_mul_extended,
    "arith.mulsi_extended": _FunctionConverter.convert_mul_extended,
    **dict.fromkeys(
        ("arith.extui", "arith.extsi", "arith.trunci", "arith.index_cast"),
        _FunctionConverter.convert_int_cast,
    ),
    **dict.fromkeys(_FLOAT_BINOPS, _FunctionConverter.convert_float_binop),
    "arith.maximumf": _FunctionConverter.convert_nan_propagating,
    "arith.minimumf": _FunctionConverter.convert_nan_propagating,
    "arith.negf": _FunctionConverter.convert_negf,
    "arith.cmpf": _FunctionConverter.convert_cmpf,
    **dict.fromkeys(
        ("arith.bitcast", "arith.uitofp", "arith.sitofp", "arith.fptoui", "arith.fptosi"),
        _FunctionConverter.convert_float_cast,
    ),
    "memref.load": _FunctionConverter.convert_load,
    "memref.store": _FunctionConverter.convert_store,
    "memref.dim": _FunctionConverter.convert_dim,
    "scf.for": _FunctionConverter.convert_for,
    "scf.if": _FunctionConverter.convert_if,
    "scf.parallel": _FunctionConverter.convert_nested_parallel,
}
