"""Exact accumulation in u32 words and one rounding: the integer core of
`sum(order="exact")` and `matmul(accumulate="exact")`.

Every finite F32, F16 or BF16 value is an integer multiple of 2**-149: its
significand `m` (hidden bit included) shifted left by `sh` in those units
(F32: `sh = max(e, 1) - 1`; F16: `max(e, 1) + 124`; BF16: `max(e, 1) + 15`).
A product of two of them is `ma * mb` shifted by `sha + shb` in units of
2**-298. Sums of such integers are exact in a wide fixed-point accumulator, and
integer addition is associative: any order, any split across invocations,
workgroups and dispatches gives the same integer, so the one rounding at the
end gives the same bits on every device.

The accumulator (Kulisch-style, carry-save): `W` signed digits of 24 bits, each
held in a u32 word with 8 bits of headroom (two's complement), plus a flags
word. A term adds a non-negative part below 2**25 (negated for a negative term)
to two or three neighbouring digits; a digit takes at least 63 such additions
before it could overflow, and `normalize` (the carries moved up, every digit
but the top one back in [0, 2**24)) runs more often than that. W is 14 for
sums (2**-149 .. 2**277, times 2**32 terms) and 26 for products (2**-298 ..
2**554, times 2**32 terms).

The flags record what the digits cannot: a NaN term, +inf and -inf terms, a
term that is not -0.0, any term at all. `round_to` combines them the way the
contract says: NaN if any term is NaN or +inf meets -inf; else an infinity; else
the digits rounded once to nearest-even in the target format (overflow to
+-inf, subnormals exact); an exact zero is -0.0 only when every term is -0.0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.transforms.tensors.kernel import KernelBuilder

__all__ = [
    "FORMATS",
    "FloatFormat",
    "Row",
    "Term",
    "decode",
    "normalize",
    "pick",
    "product",
    "round_row",
    "round_to",
    "signed_shr",
    "word",
    "SUM_DIGITS",
    "PRODUCT_DIGITS",
]

DIGIT = 24
MASK = (1 << DIGIT) - 1
SUM_DIGITS = 14
PRODUCT_DIGITS = 26
SUM_SCALE = 149
PRODUCT_SCALE = 298

NAN, PINF, NINF, NOT_NEGZERO, NONEMPTY = 1, 2, 4, 8, 16


@dataclass(frozen=True)
class FloatFormat:
    dtype: DataType
    width: int
    exp_bits: int
    frac_bits: int
    bias: int
    canonical_nan: int

    @property
    def exp_mask(self) -> int:
        return (1 << self.exp_bits) - 1

    @property
    def precision(self) -> int:
        return self.frac_bits + 1

    @property
    def shift_base(self) -> int:
        """`sh = max(e, 1) + shift_base` in units of 2**-149."""
        return SUM_SCALE - self.bias - self.frac_bits

    @property
    def inf_bits(self) -> int:
        return self.exp_mask << self.frac_bits


FORMATS = {
    DataType.F32: FloatFormat(DataType.F32, 32, 8, 23, 127, 0x7FC0_0000),
    DataType.F16: FloatFormat(DataType.F16, 16, 5, 10, 15, 0x7E00),
    DataType.BF16: FloatFormat(DataType.BF16, 16, 8, 7, 127, 0x7FC0),
}


def word(value: int) -> Expr:
    """The u32 literal of `value` modulo 2**32 (a negative shift base, say)."""
    return E.u32(value & 0xFFFF_FFFF)


def _nz(value: Expr) -> Expr:
    return E.ne(value, E.u32(0))


@dataclass(frozen=True)
class Term:
    """A decoded value: sign (0/1), significand, shift (units 2**-149), the
    special kind (NaN/inf flags) and whether it is a zero."""

    sign: Expr
    significand: Expr
    shift: Expr
    nan: Expr
    inf: Expr
    zero: Expr


def decode(b: KernelBuilder, value: Expr, fmt: FloatFormat) -> Term:
    """The parts of a float `value` of format `fmt` (a special value's
    significand is 0)."""
    bits = b.let(E.bitcast(DataType.U32, value), "bits")
    sign = b.let(E.shr(bits, E.u32(fmt.width - 1)) if fmt.width == 32 else E.bitand(E.shr(bits, E.u32(15)), E.u32(1)), "s")
    exponent = b.let(E.bitand(E.shr(bits, E.u32(fmt.frac_bits)), E.u32(fmt.exp_mask)), "e")
    fraction = b.let(E.bitand(bits, E.u32((1 << fmt.frac_bits) - 1)), "f")
    special = b.let(E.eq(exponent, E.u32(fmt.exp_mask)), "sp")
    normal = E.bitor(fraction, E.u32(1 << fmt.frac_bits))
    significand = b.let(
        E.select(special, E.u32(0), E.select(_nz(exponent), normal, fraction)), "m"
    )
    biased = E.select(_nz(exponent), exponent, E.u32(1))
    shift = b.let(E.add(biased, word(fmt.shift_base)), "sh")
    nan = b.let(E.and_(special, _nz(fraction)), "nan")
    inf = b.let(E.and_(special, E.eq(fraction, E.u32(0))), "inf")
    zero = b.let(E.and_(E.logical_not(special), E.eq(significand, E.u32(0))), "z")
    return Term(sign, significand, shift, nan, inf, zero)


def term_flags(nan: Expr, inf: Expr, zero: Expr, sign: Expr) -> Expr:
    """The flags word of one term."""
    negzero = E.and_(zero, _nz(sign))
    infinity = E.select(_nz(sign), E.u32(NINF), E.u32(PINF))
    return E.bitor(
        E.bitor(E.u32(NONEMPTY), E.select(negzero, E.u32(0), E.u32(NOT_NEGZERO))),
        E.select(nan, E.u32(NAN), E.select(inf, infinity, E.u32(0))),
    )


@dataclass(frozen=True)
class Row:
    """An accumulator in a buffer: digit `k` at word `base + k`, the flags
    word at `base + digits`."""

    buffer: str
    base: Expr
    digits: int

    def at(self, k: Expr | int) -> Expr:
        offset = E.u32(k) if isinstance(k, int) else k
        return E.add(self.base, offset)

    def load(self, k: Expr | int) -> Expr:
        return E.load(self.buffer, self.at(k))

    def store(self, k: Expr | int, value: Expr) -> Node:
        return Node.store(self.buffer, self.at(k), value)

    def add(self, k: Expr | int, value: Expr) -> Node:
        return self.store(k, E.add(self.load(k), value))

    @property
    def flags(self) -> int:
        return self.digits


def clear(b: KernelBuilder, row: Row) -> None:
    k = b.fresh("k")
    b.emit(Node.loop(k, E.u32(0), E.u32(row.digits + 1), [row.store(E.var(k), E.u32(0))]))


def signed_shr(x: Expr, k: int) -> Expr:
    """floor(x / 2**k) of a two's complement word, as a two's complement word
    (an arithmetic shift: biased by 2**31, shifted, the bias taken off)."""
    return E.sub(E.shr(E.add(x, E.u32(0x8000_0000)), E.u32(k)), E.u32(0x8000_0000 >> k))


def normalize(b: KernelBuilder, row: Row) -> None:
    """Carries moved up: digits 0 .. W-2 in [0, 2**24), the top digit signed
    (a loop over the digits, the carry in a local)."""
    carry, k, x = b.fresh("c"), b.fresh("k"), b.fresh("x")
    step = [
        Node.let(x, E.add(row.load(E.var(k)), E.var(carry))),
        row.store(E.var(k), E.bitand(E.var(x), E.u32(MASK))),
        Node.assign(carry, signed_shr(E.var(x), DIGIT)),
    ]
    b.emit(
        Node.let(carry, E.u32(0)),
        Node.loop(k, E.u32(0), E.u32(row.digits - 1), step),
        row.add(row.digits - 1, E.var(carry)),
    )


def combine(b: KernelBuilder, dst: Row, src: Row) -> None:
    """`dst += src` (digits and flags), then normalised."""
    k = b.fresh("k")
    b.emit(
        Node.loop(k, E.u32(0), E.u32(dst.digits), [dst.add(E.var(k), src.load(E.var(k)))]),
        dst.store(dst.flags, E.bitor(dst.load(dst.flags), src.load(src.flags))),
    )
    normalize(b, dst)


def copy(b: KernelBuilder, dst: Row, src: Row) -> None:
    """Every word of `src` (digits and flags) to `dst`."""
    k = b.fresh("k")
    b.emit(Node.loop(k, E.u32(0), E.u32(dst.digits + 1), [dst.store(E.var(k), src.load(E.var(k)))]))


def _signed(sign: Expr, value: Expr) -> Expr:
    return E.select(_nz(sign), E.negate(value), value)


def _or_flags(row: Row, flags: Expr, local: str | None) -> Node:
    """Record a term's flags: in the local `local` (a register, flushed into
    the row by `flush_flags`) or in the row's flags word."""
    if local is not None:
        return Node.assign(local, E.bitor(E.var(local), flags))
    return row.store(row.flags, E.bitor(row.load(row.flags), flags))


def flush_flags(b: KernelBuilder, row: Row, local: str) -> None:
    """The flags gathered in `local` OR-ed into the row's flags word; `local` cleared."""
    b.emit(row.store(row.flags, E.bitor(row.load(row.flags), E.var(local))), Node.assign(local, E.u32(0)))


def add_value(b: KernelBuilder, row: Row, term: Term, flags_local: str | None = None) -> None:
    """Add one decoded value (its shift in units of 2**-149) and its flags."""
    q = b.let(E.div(term.shift, E.u32(DIGIT)), "q")
    r = b.let(E.mod(term.shift, E.u32(DIGIT)), "r")
    low = E.bitand(E.shl(term.significand, r), E.u32(MASK))
    high = E.shr(term.significand, E.sub(E.u32(DIGIT), r))
    b.emit(row.add(q, _signed(term.sign, low)))
    b.emit(row.add(E.add(q, E.u32(1)), _signed(term.sign, high)))
    flags = term_flags(term.nan, term.inf, term.zero, term.sign)
    b.emit(_or_flags(row, flags, flags_local))


def product(b: KernelBuilder, row: Row, x: Term, y: Term, flags_local: str | None = None) -> None:
    """Add the exact product of two decoded values (units of 2**-298) and its flags."""
    mask12 = E.u32(0xFFF)
    a0, a1 = E.bitand(x.significand, mask12), E.shr(x.significand, E.u32(12))
    b0, b1 = E.bitand(y.significand, mask12), E.shr(y.significand, E.u32(12))
    middle = b.let(E.add(E.mul(a1, b0), E.mul(a0, b1)), "p1")
    low_sum = b.let(E.add(E.mul(a0, b0), E.shl(E.bitand(middle, mask12), E.u32(12))), "t")
    low = b.let(E.bitand(low_sum, E.u32(MASK)), "lo")
    high = b.let(
        E.add(E.add(E.mul(a1, b1), E.shr(middle, E.u32(12))), E.shr(low_sum, E.u32(DIGIT))), "hi"
    )
    shift = b.let(E.add(x.shift, y.shift), "sh")
    q = b.let(E.div(shift, E.u32(DIGIT)), "q")
    r = b.let(E.mod(shift, E.u32(DIGIT)), "r")
    back = E.sub(E.u32(DIGIT), r)
    sign = b.let(E.bitxor(x.sign, y.sign), "s")
    d0 = E.bitand(E.shl(low, r), E.u32(MASK))
    d1 = E.add(E.shr(low, back), E.bitand(E.shl(high, r), E.u32(MASK)))
    d2 = E.shr(high, back)
    nan = E.or_(
        E.or_(x.nan, y.nan), E.or_(E.and_(x.inf, y.zero), E.and_(x.zero, y.inf))
    )
    inf = E.or_(x.inf, y.inf)
    zero = E.or_(x.zero, y.zero)
    flags = term_flags(nan, E.and_(inf, E.logical_not(nan)), E.and_(zero, E.logical_not(E.or_(nan, inf))), sign)
    b.emit(
        row.add(q, _signed(sign, d0)),
        row.add(E.add(q, E.u32(1)), _signed(sign, d1)),
        row.add(E.add(q, E.u32(2)), _signed(sign, d2)),
        _or_flags(row, flags, flags_local),
    )


# ---------------------------------------------------------------------------
# One rounding
# ---------------------------------------------------------------------------


def pick(b: KernelBuilder, digits: Sequence[Expr], index: Expr, hint: str) -> Expr:
    """digits[index] (0 past the end)."""
    picked: Expr = E.u32(0)
    for k, digit in enumerate(digits):
        picked = E.select(E.eq(index, E.u32(k)), digit, picked)
        if k % 8 == 7:
            picked = b.let(picked, hint)
    return b.let(picked, hint)


def _magnitude(b: KernelBuilder, digits: Sequence[Expr], negative: Expr) -> list[Expr]:
    """|value| as digits in [0, 2**24) (the top one non-negative)."""
    out: list[Expr] = []
    carry: Expr = E.u32(0)
    for k, digit in enumerate(digits):
        x = b.let(E.add(E.select(_nz(negative), E.negate(digit), digit), carry), "g")
        if k == len(digits) - 1:
            out.append(x)
            break
        out.append(b.let(E.bitand(x, E.u32(MASK)), "g"))
        carry = b.let(signed_shr(x, DIGIT), "c")
    return out


def _leading(b: KernelBuilder, digits: Sequence[Expr]) -> tuple[Expr, Expr]:
    """(position of the highest set bit, whether any bit is set)."""
    position: Expr = E.u32(0)
    found: Expr = E.u32(0)
    for k, digit in enumerate(digits):
        here = E.sub(E.u32(DIGIT * k + 31), E.clz(digit))
        position = b.let(E.select(_nz(digit), here, position), "pos")
        found = b.let(E.bitor(found, E.select(_nz(digit), E.u32(1), E.u32(0))), "any")
    return position, found


def _below(b: KernelBuilder, digits: Sequence[Expr], index: Expr) -> Expr:
    """Whether any digit below `index` is non-zero (0/1)."""
    any_set: Expr = E.u32(0)
    for k, digit in enumerate(digits):
        hit = E.and_(E.lt(E.u32(k), index), _nz(digit))
        any_set = E.bitor(any_set, E.select(hit, E.u32(1), E.u32(0)))
        if k % 8 == 7:
            any_set = b.let(any_set, "st")
    return b.let(any_set, "st")


def round_to(b: KernelBuilder, digits: Sequence[Expr], flags: Expr, scale: int, fmt: FloatFormat) -> Expr:
    """The bits (u32; a 16-bit format in the low half) of the accumulated value
    `sum(digits[k] * 2**(24k)) * 2**-scale` rounded once to `fmt` (see the
    module doc for the special values)."""
    p = fmt.precision
    emin = 1 - fmt.bias
    negative = b.let(E.shr(digits[-1], E.u32(31)), "neg")
    mag = _magnitude(b, digits, negative)
    position, found = _leading(b, mag)
    low_bound = scale + emin - (p - 1)
    normal = b.let(E.ge(position, E.u32(scale + emin)), "nrm")
    lsb = b.let(E.select(normal, E.sub(position, E.u32(p - 1)), E.u32(low_bound)), "L")
    at = b.let(E.div(lsb, E.u32(DIGIT)), "a")
    shift = b.let(E.mod(lsb, E.u32(DIGIT)), "b")
    first = pick(b, mag, at, "d")
    second = pick(b, mag, E.add(at, E.u32(1)), "d")
    kept = E.bitor(E.shr(first, shift), E.shl(second, E.sub(E.u32(DIGIT), shift)))
    significand = b.let(E.bitand(kept, E.u32((1 << p) - 1)), "m")
    round_at = b.let(E.sub(lsb, E.u32(1)), "R")
    r_digit = b.let(E.div(round_at, E.u32(DIGIT)), "ra")
    r_shift = b.let(E.mod(round_at, E.u32(DIGIT)), "rb")
    r_word = pick(b, mag, r_digit, "rd")
    round_bit = E.bitand(E.shr(r_word, r_shift), E.u32(1))
    sticky_here = E.bitand(r_word, E.sub(E.shl(E.u32(1), r_shift), E.u32(1)))
    sticky = E.or_(_nz(sticky_here), _nz(_below(b, mag, r_digit)))
    has_round = _nz(lsb)
    up = b.let(
        E.and_(E.and_(has_round, _nz(round_bit)), E.or_(sticky, _nz(E.bitand(significand, E.u32(1))))),
        "up",
    )
    rounded = b.let(E.add(significand, E.select(up, E.u32(1), E.u32(0))), "mr")
    return _finish_bits(b, fmt, scale, position, normal, rounded, negative, found, flags)


def _magnitude_in_place(b: KernelBuilder, row: Row, negative: Expr) -> None:
    """The row's digits replaced by those of |value| (each in [0, 2**24), the
    top one non-negative): a loop over the digits, the carry in a local."""
    carry, k, x = b.fresh("c"), b.fresh("k"), b.fresh("x")
    top = E.u32(row.digits - 1)
    digit = row.load(E.var(k))
    step = [
        Node.let(x, E.add(E.select(_nz(negative), E.negate(digit), digit), E.var(carry))),
        row.store(E.var(k), E.select(E.eq(E.var(k), top), E.var(x), E.bitand(E.var(x), E.u32(MASK)))),
        Node.assign(carry, signed_shr(E.var(x), DIGIT)),
    ]
    b.emit(Node.let(carry, E.u32(0)), Node.loop(k, E.u32(0), E.u32(row.digits), step))


def _row_digit(row: Row, index: Expr) -> Expr:
    """Digit `index` of the row (0 past the top)."""
    inside = E.lt(index, E.u32(row.digits))
    clamped = E.select(inside, index, E.u32(row.digits - 1))
    return E.select(inside, row.load(clamped), E.u32(0))


def round_row(b: KernelBuilder, row: Row, scale: int, fmt: FloatFormat) -> Expr:
    """`round_to` of a normalised accumulator held in a writable buffer, in
    loops over its words instead of one expression per digit: the same bits,
    a tenth of the code. The digits are left holding the magnitude."""
    p = fmt.precision
    emin = 1 - fmt.bias
    negative = b.let(E.shr(row.load(row.digits - 1), E.u32(31)), "neg")
    flags = b.let(row.load(row.flags), "fl")
    _magnitude_in_place(b, row, negative)
    top, found, k = b.fresh("top"), b.fresh("any"), b.fresh("k")
    nonzero = _nz(row.load(E.var(k)))
    b.emit(
        Node.let(top, E.u32(0)),
        Node.let(found, E.u32(0)),
        Node.loop(k, E.u32(0), E.u32(row.digits), [
            Node.if_(nonzero, [Node.assign(top, E.var(k)), Node.assign(found, E.u32(1))]),
        ]),
    )
    leading = E.sub(E.add(E.mul(E.var(top), E.u32(DIGIT)), E.u32(31)), E.clz(row.load(E.var(top))))
    position = b.let(E.select(_nz(E.var(found)), leading, E.u32(0)), "pos")
    low_bound = scale + emin - (p - 1)
    normal = b.let(E.ge(position, E.u32(scale + emin)), "nrm")
    lsb = b.let(E.select(normal, E.sub(position, E.u32(p - 1)), E.u32(low_bound)), "L")
    at = b.let(E.div(lsb, E.u32(DIGIT)), "a")
    shift = b.let(E.mod(lsb, E.u32(DIGIT)), "b")
    first = b.let(_row_digit(row, at), "d")
    second = b.let(_row_digit(row, E.add(at, E.u32(1))), "d")
    kept = E.bitor(E.shr(first, shift), E.shl(second, E.sub(E.u32(DIGIT), shift)))
    significand = b.let(E.bitand(kept, E.u32((1 << p) - 1)), "m")
    round_at = b.let(E.sub(lsb, E.u32(1)), "R")
    r_digit = b.let(E.div(round_at, E.u32(DIGIT)), "ra")
    r_shift = b.let(E.mod(round_at, E.u32(DIGIT)), "rb")
    r_word = b.let(_row_digit(row, r_digit), "rd")
    below, j = b.fresh("st"), b.fresh("j")
    b.emit(
        Node.let(below, E.u32(0)),
        Node.loop(j, E.u32(0), E.u32(row.digits), [
            Node.if_(E.and_(E.lt(E.var(j), r_digit), _nz(row.load(E.var(j)))), [Node.assign(below, E.u32(1))]),
        ]),
    )
    round_bit = E.bitand(E.shr(r_word, r_shift), E.u32(1))
    sticky_here = E.bitand(r_word, E.sub(E.shl(E.u32(1), r_shift), E.u32(1)))
    sticky = E.or_(_nz(sticky_here), _nz(E.var(below)))
    has_round = _nz(lsb)
    up = b.let(
        E.and_(E.and_(has_round, _nz(round_bit)), E.or_(sticky, _nz(E.bitand(significand, E.u32(1))))),
        "up",
    )
    rounded = b.let(E.add(significand, E.select(up, E.u32(1), E.u32(0))), "mr")
    return _finish_bits(b, fmt, scale, position, normal, rounded, negative, E.var(found), flags)


def _finish_bits(
    b: KernelBuilder, fmt: FloatFormat, scale: int, position: Expr, normal: Expr, rounded: Expr,
    negative: Expr, found: Expr, flags: Expr,
) -> Expr:
    """The rounded significand assembled with its exponent and sign, overflow,
    the zero's sign and the special values of the flags."""
    p = fmt.precision
    exponent_part = E.shl(E.add(position, word(fmt.bias - 1 - scale)), E.u32(p - 1))
    bits = b.let(E.select(normal, E.add(exponent_part, rounded), rounded), "bits")
    overflow = E.or_(E.gt(position, E.u32(scale + fmt.bias)), E.ge(bits, E.u32(fmt.inf_bits)))
    finite = b.let(E.select(overflow, E.u32(fmt.inf_bits), bits), "fin")
    sign_bit = E.u32(1 << (fmt.width - 1))
    signed = E.bitor(finite, E.select(_nz(negative), sign_bit, E.u32(0)))
    all_negzero = E.and_(_nz(E.bitand(flags, E.u32(NONEMPTY))), E.eq(E.bitand(flags, E.u32(NOT_NEGZERO)), E.u32(0)))
    zero = E.select(all_negzero, sign_bit, E.u32(0))
    value = b.let(E.select(_nz(found), signed, zero), "val")
    is_nan = E.or_(
        _nz(E.bitand(flags, E.u32(NAN))),
        E.eq(E.bitand(flags, E.u32(PINF | NINF)), E.u32(PINF | NINF)),
    )
    infinity = E.select(
        _nz(E.bitand(flags, E.u32(PINF))),
        E.u32(fmt.inf_bits),
        E.select(_nz(E.bitand(flags, E.u32(NINF))), E.u32(fmt.inf_bits | (1 << (fmt.width - 1))), value),
    )
    return b.let(E.select(is_nan, E.u32(fmt.canonical_nan), infinity), "res")
