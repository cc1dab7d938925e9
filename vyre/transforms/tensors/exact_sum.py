"""The kernels of `vtensor.sum(order="exact")` over a float axis, built to be
bound by memory: each element is read once and costs a few dozen integer
operations at most (about ten in the two-kernel form's common case), and two
dispatches at most do the whole sum. Both forms add the elements exactly in
integer digits in units of 2**-149 (the fixed point of
vyre.transforms.tensors.exact) and round once, so the bits are those of one
rounding of the exact sum, whatever the split.

The flags are two maxima kept in registers, over `key` (the element's bits at
the top of the word: `b` for F32, `b << 16` for F16/BF16): `u1 = max(key)`,
`u2 = max(key ^ 2**31)`. With `K` the key of -inf, `u1 > K` or `u2 > K` is a
NaN, `u2 >= K` a +inf (or +NaN), `u1 >= K` a -inf (or -NaN), and `u2 == 0`
means every element was -0.0; they become a flags word of
vyre.transforms.tensors.exact (`NONEMPTY` comes from the axis length). A NaN or
an infinity adds what its bits give to the digits: the flags decide the result
then.

**The one-kernel form** (a static axis of at most `ROW_LIMIT` elements). An
output takes `lanes` invocations (a power of two giving each at most 64
elements, every round of each invocation two runs of 4 consecutive elements),
a workgroup takes `WORKGROUP / lanes` outputs. The accumulator of an
invocation is one column of the workgroup memory `acc` (`ROWS` rows of
`WORKGROUP` words: row k of invocation l is word `k * WORKGROUP + l`, so the
invocations of a warp touch distinct banks whatever rows they pick). Rows
0..12 hold the positive elements, rows 13..25 the negative ones, as 24-bit
digits in u32 words; row 26 is the invocation's flags word. Adding an element
with bits `b`: its exponent field `e`, its significand `m` (the hidden bit
when `e != 0`), its shift `sh = max(e, 1) + base` in units of 2**-149
(`FloatFormat.shift_base`) and `q, r = divmod(sh, 24)`; then `(m << r) & MASK`
is added to digit `q` and `m >> (24 - r)` to digit `q + 1` of the rows of its
sign. Both parts are below 2**24, so a word holds 255 of them on top of a
normalised digit (`normalize` moves the carries up past 256 elements). The
columns of an output are merged digit by digit, in parallel
(`_merge_groups`: two levels, 16 columns then the rest; normalised digits
summed over at most 256 columns stay below 2**32, the flags rows OR-ed); the
first invocations move the carries up, subtract the negative digits from the
positive ones and round once (`exact.round_to`).

**The two-kernel form** (a dynamic axis, or one longer than `ROW_LIMIT`).
`_tiles`: `groups` workgroups per output, each taking `blocks` consecutive
blocks of `BLOCK` elements of the axis (`blocks` grows with the axis so that
`groups` stays at most `GROUPS`), each invocation 256 elements of a block (32
rounds of two runs of 4, the runs of a round strided by the workgroup:
coalesced, and a run is one 16-byte load where the layout allows); the last
block of an axis is guarded. `_merge`: one workgroup per output adds its
`groups` partial sums (14 signed 24-bit digits and a flags word each, in
registers), merges them in workgroup memory and rounds once.

The tiles kernel keeps little workgroup memory, because it decides how many
workgroups an SM holds and so how many loads are in flight (measured on the
H200: a reading loop at 0.87 of torch.sum falls to 0.31 with 27 words of
workgroup memory per invocation, and stays at 0.84 with 7). So an
invocation adds most elements in registers (`_Window`): a window of `WINDOW`
= 16 exponent fields, `base .. base + 15`, and two lanes. An element whose
field `e` lies in the window (a finite, normal element) adds its significand
shifted by `t = e - base`: the low `LOW_BITS` = 16 bits of `m << t` to `low`,
`m >> (16 - t)` to `high`, each multiplied by 1 or -1 (`(0 - sign) | 1`: u32
words, two's complement; the multiply-add is one instruction on NVIDIA GPUs,
where negating and adding took three). A round's elements are tested together
first: when the OR of their places `t` is below `WINDOW`, all of them are in
the window and go to the lanes in straight-line code; only otherwise is each
tested alone (measured on the H200, 2**28 N(0,1) F32 elements, one A/B
run: 0.412 ms before both, 0.386 with the multiply-add, 0.385 with both;
0.378 in a later run of the committed code). Any other element updates the maxima and, if it is finite and
above the window (or the first normal one), moves the window: the lanes
spilled, `base` set to `e - 12` (at least 1, at most the largest field minus
16, so the window never holds inf/NaN), the element added to the lanes.
Otherwise (below the window, subnormal, zero, inf, NaN) it goes to the
shared columns. An element of the lanes always follows one that set the
maxima, so the flags stay exact without work in the window.

The shared columns: `COLUMNS` = 32 columns of `PIECES` = 20 rows of 16-bit
digits (signed u32 words), `SHARE` = 8 invocations per column, added to with
workgroup atomics (2.5 KB in all). An element goes in as three 16-bit
pieces of `m << (sh % 16)` at rows `sh / 16` .. `sh / 16 + 2`, a lane `v` at
bit `p` as `v & 0xFFFF` and `v >> 16` (arithmetic), each shifted by `p % 16`,
in pieces at rows `p / 16` .. `p / 16 + 2`; every piece is below 2**17 in
magnitude. After each block every invocation spills its lanes, and after a
barrier the first 32 invocations move the carries of a column up (digits in
[0, 2**16), the top one signed). Bounds: `high` gets parts below 2**23 and
`low` below 2**16, at most 256 between two spills (256 * (2**23 - 1) < 2**31),
so neither lane wraps; the window only rises, by 4 fields at least (but
once, at the cap), so an invocation moves it at most 62 times; between two
carry passes a word gets at most 8 * (256 + 2 * 62 + 4) pieces, below 2**29
in magnitude. At the
end the maxima are merged with atomics, the first 20 invocations sum one row
of every column (below 2**21), and invocation 0 moves the carries up and
regroups three 16-bit digits into two 24-bit ones.

Every loop runs at most a few thousand iterations per invocation (lavapipe
stops a shader loop after 65,535).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vyre.dialects.symbolic import Sym
from vyre.ir import AtomicOp, DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.transforms.tensors import exact as X
from vyre.transforms.tensors.kernel import KernelBuilder, Leaf, Planned, Reduction, emit

__all__ = [
    "BLOCK",
    "GROUPS",
    "ROUNDS",
    "ROW_LIMIT",
    "WORKGROUP",
    "exact_sum_kernels",
]

WORKGROUP = 256
RUN = 4
"""Consecutive elements an invocation reads together (one 16-byte load)."""
RUNS = 2
"""Runs per invocation per round (all loaded before any is added)."""
ROUNDS = 32
"""Rounds between two carry passes: 256 elements per invocation (16 measured
4 % slower on the H200: 0.430 against 0.411 ms at 2**28 F32 elements)."""
BLOCK = WORKGROUP * RUN * RUNS * ROUNDS
"""Elements of the axis one workgroup adds between two carry passes."""
GROUPS = 2048
"""Most workgroups per output of the two-kernel form (2**28 elements: 2,048
workgroups of two blocks each; 1,024, 1,056, 4,096 measured no faster with
the register window). Measured on the H200 at 2**28 F32 elements, before it:
2,048 workgroups 1.22 ms (880 GB/s), 8,192 1.40 ms; 4 rounds between carry
passes instead of 16: 3.5-3.7 ms. The merge adds at most
`GROUPS / WORKGROUP` = 8 partial sums per invocation (at most 255 keep its
digits below 2**32)."""
ROW_LIMIT = 4096
"""Static axes up to this length are summed and rounded in one kernel."""
WINDOW = 16
"""Exponent fields of an invocation's register window (the two-kernel form)."""
HEADROOM = 4
"""Fields a moved window keeps above the element that moved it."""
LOW_BITS = 16
"""Bits of a windowed significand that go to the low lane."""
SHARE = 8
"""Invocations of the two-kernel form that share one column of `PIECES` rows."""
COLUMNS = WORKGROUP // SHARE
PIECE = 16
"""Bits of a digit of the shared columns."""
PIECES = 20
"""Rows of a shared column: 16-bit digits from 2**-149 (320 bits: 2**32
elements below 2**128, and the sign)."""
SHARED_WORDS = PIECES * COLUMNS + 2
"""The shared columns, then the two maxima of the workgroup."""
ROW_ELEMENTS = 64
"""Most elements per invocation in the one-kernel form (no carry pass inside)."""
UNCARRIED = 256
"""Elements whose digits a column may hold without a carry pass before the
columns of an output are merged (256 additions below 2**24 stay below 2**32)."""

HALF = 13
"""Digit rows per sign (2**-149 .. 2**163: 2**32 elements below 2**128)."""
FLAGS = 2 * HALF
ROWS = FLAGS + 1
NEGATIVE = HALF
"""The first row of the negative elements' digits."""
DIGITS = X.SUM_DIGITS
SIGN = 0x8000_0000


@dataclass(frozen=True)
class _Acc:
    """The accumulators of a workgroup (see the module doc)."""

    name: str
    local: Expr

    def at(self, row: Expr | int, column: Expr | None = None) -> Expr:
        top = E.u32(row * WORKGROUP) if isinstance(row, int) else E.mul(row, E.u32(WORKGROUP))
        return E.add(top, self.local if column is None else column)

    def load(self, row: Expr | int, column: Expr | None = None) -> Expr:
        return E.load(self.name, self.at(row, column))

    def store(self, row: Expr | int, value: Expr, column: Expr | None = None) -> Node:
        return Node.store(self.name, self.at(row, column), value)


def _max(a: Expr, b: Expr) -> Expr:
    return E.select(E.gt(a, b), a, b)


def _exponent(fmt: X.FloatFormat, bits: Expr) -> Expr:
    """The exponent field of an element's bits."""
    return E.bitand(E.shr(bits, E.u32(fmt.frac_bits)), E.u32(fmt.exp_mask))


def _placed(b: KernelBuilder, fmt: X.FloatFormat, bits: Expr, e: Expr) -> tuple[Expr, Expr]:
    """An element's significand `m` (the hidden bit when its exponent field
    `e` is not 0) and its shift `sh = max(e, 1) + shift_base` in units of
    2**-149, as locals."""
    hidden = b.let(E.select(E.ne(e, E.u32(0)), E.u32(1), E.u32(0)), "h")
    m = b.let(E.bitor(E.bitand(bits, E.u32((1 << fmt.frac_bits) - 1)), E.shl(hidden, E.u32(fmt.frac_bits))), "m")
    base = fmt.shift_base + 1
    return m, b.let(E.sub(e, hidden) if base == 0 else E.add(E.sub(e, hidden), X.word(base)), "sh")


def _maxima(b: KernelBuilder, fmt: X.FloatFormat, bits: Expr, u1: str, u2: str) -> Expr:
    """The two flag maxima `u1`, `u2` (see the module doc) updated with an
    element; its key (its bits at the top of the word)."""
    key = bits if fmt.width == 32 else b.let(E.shl(bits, E.u32(16)), "key")
    b.emit(Node.assign(u1, _max(E.var(u1), key)), Node.assign(u2, _max(E.var(u2), E.bitxor(key, E.u32(SIGN)))))
    return key


# ---------------------------------------------------------------------------
# One invocation's accumulator
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Adder:
    """Adds elements of format `fmt` to the column of `acc`; `u1`, `u2` are
    the locals of the two maxima (see the module doc)."""

    b: KernelBuilder
    acc: _Acc
    fmt: X.FloatFormat
    u1: str
    u2: str

    @staticmethod
    def start(b: KernelBuilder, acc: _Acc, fmt: X.FloatFormat) -> _Adder:
        """The column cleared and the maxima declared (wgpu-native does not
        zero workgroup memory)."""
        k = b.fresh("k")
        b.emit(Node.loop(k, E.u32(0), E.u32(ROWS), [acc.store(E.var(k), E.u32(0))]))
        adder = _Adder(b, acc, fmt, b.fresh("u1"), b.fresh("u2"))
        b.emit(Node.let(adder.u1, E.u32(0)), Node.let(adder.u2, E.u32(0)))
        return adder

    def add(self, bits: Expr) -> None:
        """Add the element whose bits (u32; a 16-bit format in the low half)
        are the local `bits`."""
        b, fmt = self.b, self.fmt
        key = _maxima(b, fmt, bits, self.u1, self.u2)
        e = b.let(_exponent(fmt, bits), "e")
        m, sh = _placed(b, fmt, bits, e)
        q = b.let(E.div(sh, E.u32(X.DIGIT)), "q")
        r = b.let(E.mod(sh, E.u32(X.DIGIT)), "r")
        row = E.add(q, E.mul(E.shr(key, E.u32(31)), E.u32(NEGATIVE)))
        at = b.let(self.acc.at(row), "a")
        high_at = E.add(at, E.u32(WORKGROUP))
        low = E.bitand(E.shl(m, r), E.u32(X.MASK))
        high = E.shr(m, E.sub(E.u32(X.DIGIT), r))
        b.emit(
            Node.store(self.acc.name, at, E.add(E.load(self.acc.name, at), low)),
            Node.store(self.acc.name, high_at, E.add(E.load(self.acc.name, high_at), high)),
        )

    def normalize(self) -> None:
        """Carries moved up in both signs' rows: digits 0..11 in [0, 2**24)."""
        b, acc = self.b, self.acc
        k, cp, cn = b.fresh("k"), b.fresh("cp"), b.fresh("cn")
        body: list[Node] = []
        for carry, offset in ((cp, 0), (cn, NEGATIVE)):
            row = E.var(k) if offset == 0 else E.add(E.var(k), E.u32(offset))
            x = b.fresh("x")
            body += [
                Node.let(x, E.add(acc.load(row), E.var(carry))),
                acc.store(row, E.bitand(E.var(x), E.u32(X.MASK))),
                Node.assign(carry, E.shr(E.var(x), E.u32(X.DIGIT))),
            ]
        b.emit(Node.let(cp, E.u32(0)), Node.let(cn, E.u32(0)), Node.loop(k, E.u32(0), E.u32(HALF - 1), body))
        for carry, offset in ((cp, 0), (cn, NEGATIVE)):
            b.emit(acc.store(HALF - 1 + offset, E.add(acc.load(HALF - 1 + offset), E.var(carry))))

    def flush(self) -> None:
        """The maxima as a flags word in the flags row."""
        self.b.emit(self.acc.store(FLAGS, _flags_word(self.fmt, E.var(self.u1), E.var(self.u2))))


def _flags_word(fmt: X.FloatFormat, u1: Expr, u2: Expr) -> Expr:
    """The flags word (exact.py, without NONEMPTY) of the two maxima."""
    limit = E.u32(((1 << (fmt.width - 1)) | fmt.inf_bits) << (32 - fmt.width))

    def bit(cond: Expr, flag: int) -> Expr:
        return E.select(cond, E.u32(flag), E.u32(0))

    nan = E.or_(E.gt(u1, limit), E.gt(u2, limit))
    return E.bitor(
        E.bitor(bit(nan, X.NAN), bit(E.ge(u2, limit), X.PINF)),
        E.bitor(bit(E.ge(u1, limit), X.NINF), bit(E.ne(u2, E.u32(0)), X.NOT_NEGZERO)),
    )


# ---------------------------------------------------------------------------
# The two-kernel form's accumulator: a register window and shared columns
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Window:
    """Adds elements of format `fmt` for the two-kernel form (see the module
    doc): the register window (`base`, lanes `low` and `high`, u32 words
    holding signed sums), the maxima `u1`, `u2`, and the shared columns of
    `acc` (word `row * COLUMNS + column`; invocation `l` adds to column
    `l / SHARE` with workgroup atomics)."""

    b: KernelBuilder
    acc: str
    local: Expr
    column: Expr
    fmt: X.FloatFormat
    u1: str
    u2: str
    base: str
    low: str
    high: str

    @staticmethod
    def start(b: KernelBuilder, fmt: X.FloatFormat) -> _Window:
        """The shared words cleared (wgpu-native does not zero workgroup
        memory), a barrier, the locals declared (the window unset)."""
        acc = b.workgroup_buffer("acc", SHARED_WORDS)
        local = b.let(E.local_id(0), "l")
        k = b.fresh("k")
        with b.block() as clear:
            at = b.let(E.add(E.mul(E.var(k), E.u32(WORKGROUP)), local), "at")
            b.emit(Node.if_(E.lt(at, E.u32(SHARED_WORDS)), [Node.store(acc, at, E.u32(0))]))
        b.emit(Node.loop(k, E.u32(0), E.u32(-(-SHARED_WORDS // WORKGROUP)), clear), Node.barrier())
        window = _Window(
            b, acc, local, b.let(E.div(local, E.u32(SHARE)), "col"), fmt,
            b.fresh("u1"), b.fresh("u2"), b.fresh("wb"), b.fresh("lo"), b.fresh("hi"),
        )
        b.emit(
            Node.let(window.u1, E.u32(0)),
            Node.let(window.u2, E.u32(0)),
            Node.let(window.base, E.u32(fmt.exp_mask + 1)),
            Node.let(window.low, E.u32(0)),
            Node.let(window.high, E.u32(0)),
        )
        return window

    def _add_to(self, row: Expr, value: Expr) -> None:
        at = E.add(E.mul(row, E.u32(COLUMNS)), self.column)
        self.b.emit(Node.let(self.b.fresh("old"), E.atomic(AtomicOp.ADD, self.acc, at, value)))

    def add_all(self, elements: Sequence[Expr]) -> None:
        """Add the elements whose bits are the locals `elements`: when every
        one lies in the window (the OR of their places below `WINDOW`: the
        common case), all of them to the lanes, straight-line; otherwise each
        by `add`."""
        b = self.b
        places = [b.let(E.sub(_exponent(self.fmt, bits), E.var(self.base)), "t") for bits in elements]
        combined = places[0]
        for t in places[1:]:
            combined = E.bitor(combined, t)
        with b.block() as fast:
            for bits, t in zip(elements, places):
                self._lanes(bits, t)
        with b.block() as each:
            for bits in elements:
                self.add(bits)
        b.emit(Node.if_(E.lt(combined, E.u32(WINDOW)), fast, each))

    def add(self, bits: Expr) -> None:
        """Add the element whose bits (u32; a 16-bit format in the low half)
        are the local `bits`."""
        b, fmt = self.b, self.fmt
        e = b.let(_exponent(fmt, bits), "e")
        t = b.let(E.sub(e, E.var(self.base)), "t")
        with b.block() as fast:
            self._lanes(bits, t)
        with b.block() as slow:
            _maxima(b, fmt, bits, self.u1, self.u2)
            cap = fmt.exp_mask - WINDOW
            finite = E.and_(E.ne(e, E.u32(0)), E.lt(e, E.u32(fmt.exp_mask)))
            above = E.or_(E.ge(e, E.add(E.var(self.base), E.u32(WINDOW))), E.gt(E.var(self.base), E.u32(fmt.exp_mask)))
            with b.block() as move:
                self.spill()
                lifted = b.let(E.select(E.gt(e, E.u32(WINDOW - HEADROOM)), E.sub(e, E.u32(WINDOW - HEADROOM)), E.u32(1)), "nb")
                b.emit(Node.assign(self.base, E.select(E.lt(lifted, E.u32(cap)), lifted, E.u32(cap))))
                self._lanes(bits, b.let(E.sub(e, E.var(self.base)), "t"))
            with b.block() as pieces:
                self._pieces(bits, e)
            b.emit(Node.if_(E.and_(finite, above), move, pieces))
        b.emit(Node.if_(E.lt(t, E.u32(WINDOW)), fast, slow))

    def _lanes(self, bits: Expr, t: Expr) -> None:
        """A finite element of exponent field `base + t` (t < WINDOW) added to
        the lanes: its significand shifted by `t`, the low `LOW_BITS` bits to
        `low`, the rest to `high`, each multiplied by 1 or -1 (the sign)."""
        b, fmt = self.b, self.fmt
        m = b.let(E.bitor(E.bitand(bits, E.u32((1 << fmt.frac_bits) - 1)), E.u32(1 << fmt.frac_bits)), "m")
        low = E.bitand(E.shl(m, t), E.u32((1 << LOW_BITS) - 1))
        high = E.shr(m, E.sub(E.u32(LOW_BITS), t))
        unit = b.let(E.bitor(E.sub(E.u32(0), E.shr(bits, E.u32(fmt.width - 1))), E.u32(1)), "x")  # 1 or -1
        b.emit(
            Node.assign(self.low, E.add(E.var(self.low), E.mul(low, unit))),
            Node.assign(self.high, E.add(E.var(self.high), E.mul(high, unit))),
        )

    def _pieces(self, bits: Expr, e: Expr) -> None:
        """The element (exponent field `e`) added to the invocation's shared
        column: its significand at bit `sh` as three 16-bit pieces at rows
        `sh / 16` and the two above, negated for a set sign bit (nothing for a
        zero)."""
        b, fmt = self.b, self.fmt
        m, sh = _placed(b, fmt, bits, e)
        with b.block() as add:
            row = b.let(E.shr(sh, E.u32(4)), "row")
            c = b.let(E.bitand(sh, E.u32(PIECE - 1)), "c")
            neg = b.let(E.sub(E.u32(0), E.shr(bits, E.u32(fmt.width - 1))), "x")
            up = E.sub(E.u32(PIECE), c)
            parts = [
                E.bitand(E.shl(m, c), E.u32(0xFFFF)),
                E.bitand(E.shr(m, up), E.u32(0xFFFF)),
                E.shr(E.shr(m, E.u32(PIECE)), up),
            ]
            for k, part in enumerate(parts):
                self._add_to(row if k == 0 else E.add(row, E.u32(k)), E.sub(E.bitxor(part, neg), neg))
        b.emit(Node.if_(E.ne(m, E.u32(0)), add))

    def spill(self) -> None:
        """The lanes added to the invocation's shared column and cleared
        (nothing while the window is unset): a lane `v` at bit `p` as
        `v & 0xFFFF` and `v >> 16` (arithmetic) each shifted by `p % 16`, in
        16-bit pieces at rows `p / 16` .. `p / 16 + 2`."""
        b = self.b
        with b.block() as body:
            for lane, offset in ((self.low, 0), (self.high, LOW_BITS)):
                v = b.let(E.var(lane), "v")
                p = b.let(E.add(E.var(self.base), X.word(self.fmt.shift_base + offset)), "p")
                row = b.let(E.shr(p, E.u32(4)), "row")
                c = b.let(E.bitand(p, E.u32(PIECE - 1)), "c")
                low = b.let(E.shl(E.bitand(v, E.u32(0xFFFF)), c), "q")
                high = b.let(E.shl(X.signed_shr(v, PIECE), c), "s")
                self._add_to(row, E.bitand(low, E.u32(0xFFFF)))
                self._add_to(E.add(row, E.u32(1)), E.add(E.shr(low, E.u32(PIECE)), E.bitand(high, E.u32(0xFFFF))))
                self._add_to(E.add(row, E.u32(2)), X.signed_shr(high, PIECE))
            b.emit(Node.assign(self.low, E.u32(0)), Node.assign(self.high, E.u32(0)))
        b.emit(Node.if_(E.le(E.var(self.base), E.u32(self.fmt.exp_mask - WINDOW)), body))

    def normalize(self) -> None:
        """Every invocation's lanes spilled; a barrier; the first `COLUMNS`
        invocations move the carries of one column each up (digits 0..18 in
        [0, 2**16), the top one signed); a barrier."""
        b = self.b
        self.spill()
        b.emit(Node.barrier())
        with b.block() as carry_pass:
            carry, k = b.fresh("cy"), b.fresh("k")
            with b.block() as body:
                at = b.let(E.add(E.mul(E.var(k), E.u32(COLUMNS)), self.local), "at")
                v = b.let(E.add(E.load(self.acc, at), E.var(carry)), "v")
                b.emit(Node.store(self.acc, at, E.bitand(v, E.u32(0xFFFF))), Node.assign(carry, X.signed_shr(v, PIECE)))
            top = E.add(E.u32((PIECES - 1) * COLUMNS), self.local)
            b.emit(
                Node.let(carry, E.u32(0)),
                Node.loop(k, E.u32(0), E.u32(PIECES - 1), body),
                Node.store(self.acc, top, E.add(E.load(self.acc, top), E.var(carry))),
            )
        b.emit(Node.if_(E.lt(self.local, E.u32(COLUMNS)), carry_pass), Node.barrier())

    def finish(self, target: str, count: Expr, group: Expr) -> None:
        """The workgroup's sum written as `DIGITS` signed 24-bit digits and the
        flags word at `target[k * count + group]` (after `normalize`): the
        maxima merged with atomics; the first `PIECES` invocations sum one row
        of every column each (below 2**21) into its first column; invocation
        0 moves the carries up and regroups the 16-bit digits into 24-bit ones."""
        b = self.b
        for word, local in ((PIECES * COLUMNS, self.u1), (PIECES * COLUMNS + 1, self.u2)):
            b.emit(Node.let(b.fresh("old"), E.atomic(AtomicOp.MAX, self.acc, E.u32(word), E.var(local))))
        b.emit(Node.barrier())
        with b.block() as rows:
            total, k = b.fresh("sum"), b.fresh("k")
            first = b.let(E.mul(self.local, E.u32(COLUMNS)), "at")
            b.emit(
                Node.let(total, E.u32(0)),
                Node.loop(k, E.u32(0), E.u32(COLUMNS), [Node.assign(total, E.add(E.var(total), E.load(self.acc, E.add(first, E.var(k)))))]),
                Node.store(self.acc, first, E.var(total)),
            )
        b.emit(Node.if_(E.lt(self.local, E.u32(PIECES)), rows), Node.barrier())
        with b.block() as write:
            digits: list[Expr] = []
            carry: Expr = E.u32(0)
            for k in range(PIECES):
                v = b.let(E.add(E.load(self.acc, E.u32(k * COLUMNS)), carry), "v")
                if k == PIECES - 1:
                    digits.append(v)
                    break
                digits.append(b.let(E.bitand(v, E.u32(0xFFFF)), "d"))
                carry = b.let(X.signed_shr(v, PIECE), "cy")
            words: list[Expr] = []
            for i in range(PIECES // 3):
                d0, d1, d2 = digits[3 * i : 3 * i + 3]
                words.append(E.bitor(d0, E.shl(E.bitand(d1, E.u32(0xFF)), E.u32(16))))
                words.append(E.bitor(E.shr(d1, E.u32(8)), E.shl(d2, E.u32(8))))
            last, top = digits[PIECES - 2], digits[PIECES - 1]
            words.append(E.bitor(last, E.shl(E.bitand(top, E.u32(0xFF)), E.u32(16))))
            words.append(X.signed_shr(top, 8))
            flags = _flags_word(
                self.fmt,
                E.load(self.acc, E.u32(PIECES * COLUMNS)),
                E.load(self.acc, E.u32(PIECES * COLUMNS + 1)),
            )
            for k, word in enumerate([*words, flags]):
                b.emit(Node.store(target, E.add(E.mul(E.u32(k), count), group), word))
        b.emit(Node.if_(E.eq(self.local, E.u32(0)), write))


# ---------------------------------------------------------------------------
# Merging a workgroup's accumulators and finishing one
# ---------------------------------------------------------------------------


def _merge_level(b: KernelBuilder, acc: _Acc, rows: int, count: int, stride: int, group: int) -> None:
    """For every row and every aligned group of `group` columns: the `count`
    columns `c0 + i + j * stride` (j < count) summed into column `c0 + i`, for
    `i < stride` (the last row OR-ed: flags)."""
    per_row = WORKGROUP // group * stride
    items = rows * per_row
    k = b.fresh("k")
    passes = -(-items // WORKGROUP)
    with b.block() as body:
        item = acc.local if passes == 1 else b.let(E.add(E.mul(E.var(k), E.u32(WORKGROUP)), acc.local), "it")
        with b.block() as work:
            row = b.let(E.div(item, E.u32(per_row)), "row")
            within = b.let(E.mod(item, E.u32(per_row)), "w")
            if group == WORKGROUP:
                column = within
            elif stride == 1:
                column = b.let(E.mul(within, E.u32(group)), "col")
            else:
                column = b.let(E.add(E.mul(E.div(within, E.u32(stride)), E.u32(group)), E.mod(within, E.u32(stride))), "col")
            words = [b.let(acc.load(row, column if j == 0 else E.add(column, E.u32(j * stride))), "w") for j in range(count)]
            total, either = words[0], words[0]
            for word in words[1:]:
                total, either = E.add(total, word), E.bitor(either, word)
            b.emit(Node.if_(E.lt(row, E.u32(rows - 1)), [acc.store(row, total, column)], [acc.store(row, either, column)]))
        b.emit(Node.if_(E.lt(item, E.u32(items)), work))
    b.emit(Node.barrier(), *(body if passes == 1 else [Node.loop(k, E.u32(0), E.u32(passes), body)]))


def _merge_groups(b: KernelBuilder, acc: _Acc, rows: int, lanes: int) -> None:
    """The columns of every `lanes` neighbouring invocations (a power of two)
    summed into the first of them, row by row (the last row, the flags,
    OR-ed), then a barrier. Each row of a column holds a digit below 2**24 (or
    a small signed top digit), so no sum of at most 256 of them wraps."""
    first = min(lanes, 16)
    if lanes > 1:
        _merge_level(b, acc, rows, first, lanes // first, lanes)
    if lanes > 16:
        _merge_level(b, acc, rows, lanes // 16, 1, lanes)
    b.emit(Node.barrier())


def _carried(b: KernelBuilder, digits: Sequence[Expr]) -> list[Expr]:
    """Digits of non-negative sums below 2**32 (the top one signed) with the
    carries moved up: all but the top one in [0, 2**24)."""
    out: list[Expr] = []
    carry: Expr = E.u32(0)
    for digit in digits[:-1]:
        x = b.let(E.add(digit, carry), "x")
        out.append(b.let(E.bitand(x, E.u32(X.MASK)), "d"))
        carry = b.let(E.shr(x, E.u32(X.DIGIT)), "c")
    out.append(b.let(E.add(digits[-1], carry), "d"))
    return out


def _difference(b: KernelBuilder, positive: Sequence[Expr], negative: Sequence[Expr]) -> list[Expr]:
    """The `DIGITS` signed digits (exact.py's form) of positive - negative
    (both carried, `HALF` digits each)."""
    out: list[Expr] = []
    carry: Expr = E.u32(0)
    for p, n in zip(positive, negative):
        x = b.let(E.add(E.sub(p, n), carry), "x")
        out.append(b.let(E.bitand(x, E.u32(X.MASK)), "d"))
        carry = b.let(X.signed_shr(x, X.DIGIT), "c")
    out.append(carry)
    return out + [E.u32(0)] * (DIGITS - len(out))


def _column_digits(b: KernelBuilder, acc: _Acc, column: Expr) -> tuple[list[Expr], Expr]:
    """The signed digits and the flags word of a merged column of the adding
    kernels (positive and negative rows)."""
    words = [b.let(acc.load(k, column), "w") for k in range(ROWS)]
    positive = _carried(b, words[:HALF])
    negative = _carried(b, words[NEGATIVE:FLAGS])
    return _difference(b, positive, negative), words[FLAGS]


def _rounded(b: KernelBuilder, digits: Sequence[Expr], flags: Expr, nonempty: Expr | bool, fmt: X.FloatFormat) -> Expr:
    """The value of the digits and flags rounded once (`nonempty`: the axis
    holds an element)."""
    if isinstance(nonempty, bool):
        all_flags = E.bitor(flags, E.u32(X.NONEMPTY)) if nonempty else flags
    else:
        all_flags = E.bitor(flags, E.select(nonempty, E.u32(X.NONEMPTY), E.u32(0)))
    return E.bitcast(fmt.dtype, X.round_to(b, digits, b.let(all_flags, "fl"), X.SUM_SCALE, fmt))


# ---------------------------------------------------------------------------
# Reading the axis
# ---------------------------------------------------------------------------


def _run(b: KernelBuilder, red: Reduction, out_idx: Sequence[Expr], start: Expr) -> list[Expr]:
    """Elements `start .. start + RUN - 1` of the axis (`start` a local): from a
    contiguous axis of a buffer, loads at `base + c` from one local `base` (the
    lowering reads four of them at once when it can prove `base` a multiple of
    4); otherwise each element as any kernel reads it."""
    source = red.source
    idx = list(out_idx)
    if isinstance(source, Leaf) and source.layout.strides[red.axis].value == 1:
        idx.insert(red.axis, start)
        index = b.index(source.layout, idx)
        base = index if index is start else b.let(index, "at")
        local = b.buffer(source.buffer, source.dtype)
        b.accesses.append((source.buffer, source.layout))
        return [E.load(local, base if c == 0 else E.add(base, E.u32(c))) for c in range(RUN)]
    values: list[Expr] = []
    for c in range(RUN):
        at = list(out_idx)
        at.insert(red.axis, start if c == 0 else E.add(start, E.u32(c)))
        values.append(emit(b, source, at))
    return values


def _round_of(
    b: KernelBuilder,
    adder: _Adder | _Window,
    red: Reduction,
    out_idx: Sequence[Expr],
    runs: Sequence[tuple[Expr, Expr]],
    bound: Expr | None,
) -> None:
    """One round: the runs (a local position on the axis, and the same as an
    offset that `bound` limits) read first, then added. With a `bound`, an
    element at offset `bound` or later is replaced by -0.0, which changes
    neither digits nor flags."""
    loaded: list[tuple[Expr, Expr]] = []
    for start, offset in runs:
        for c, value in enumerate(_run(b, red, out_idx, start)):
            bits = b.let(E.bitcast(DataType.U32, value), "v")
            loaded.append((bits, offset if c == 0 else E.add(offset, E.u32(c))))
    negative_zero = E.u32(1 << (adder.fmt.width - 1))
    elements = [
        bits if bound is None else b.let(E.select(E.lt(offset, bound), bits, negative_zero), "v")
        for bits, offset in loaded
    ]
    if isinstance(adder, _Window):
        adder.add_all(elements)
    else:
        for bits in elements:
            adder.add(bits)


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


def _row_lanes(length: int) -> int:
    """Invocations per output of the one-kernel form: a power of two giving
    each at most `ROW_ELEMENTS` elements (at most `WORKGROUP`)."""
    lanes = 1
    while lanes < WORKGROUP and lanes * ROW_ELEMENTS < length:
        lanes *= 2
    return lanes


def _row_kernel(name: str, red: Reduction, out: str) -> Planned:
    """A static axis of at most `ROW_LIMIT` elements: `lanes` invocations per
    output, each run `lane + lanes * j` of the axis; merged, carried, rounded."""
    length = red.length.value or 0
    fmt = X.FORMATS[red.dtype]
    lanes = _row_lanes(length)
    per_group = WORKGROUP // lanes
    b = KernelBuilder(name, WORKGROUP)
    local = b.let(E.local_id(0), "l")
    acc = _Acc(b.workgroup_buffer("acc", ROWS * WORKGROUP), local)
    slot = b.let(E.div(local, E.u32(lanes)), "slot")
    lane = b.let(E.mod(local, E.u32(lanes)), "lane")
    o = b.let(E.add(E.mul(E.workgroup_id(0), E.u32(per_group)), slot), "o")
    outputs = b.param(red.outputs)
    adder = _Adder.start(b, acc, fmt)
    step = RUN * RUNS * lanes
    rounds = -(-length // step)
    with b.block() as reading:
        out_idx = b.unflatten(o, red.out_shape)
        rnd = b.fresh("rnd")
        with b.block() as body:
            starts = [
                b.let(E.add(E.mul(E.var(rnd), E.u32(step)), E.mul(E.add(lane, E.u32(v * lanes)), E.u32(RUN))), "k")
                for v in range(RUNS)
            ]
            bound = None if length % step == 0 else E.u32(length)
            _round_of(b, adder, red, out_idx, [(k, k) for k in starts], bound)
        b.emit(Node.loop(rnd, E.u32(0), E.u32(rounds), body))
        if length > UNCARRIED:
            adder.normalize()
        adder.flush()
    b.emit(Node.if_(E.lt(o, outputs), reading))
    _merge_groups(b, acc, ROWS, lanes)
    with b.block() as finish:
        head = b.let(E.add(E.mul(E.workgroup_id(0), E.u32(per_group)), local), "o")
        with b.block() as write:
            digits, flags = _column_digits(b, acc, b.let(E.mul(local, E.u32(lanes)), "col"))
            value = _rounded(b, digits, flags, length > 0, fmt)
            b.emit(Node.store(b.buffer(out, red.dtype, write=True), head, value))
        b.emit(Node.if_(E.lt(head, outputs), write))
    b.emit(Node.if_(E.lt(local, E.u32(per_group)), finish))
    return Planned(b, (red.outputs + (per_group - 1)) // per_group)


@dataclass(frozen=True)
class _Split:
    """How the two-kernel form splits an axis: `groups` workgroups per output,
    each `blocks` blocks of `BLOCK` elements."""

    blocks: Sym
    groups: Sym

    @staticmethod
    def of(length: Sym) -> _Split:
        blocks = ((length + (BLOCK * GROUPS - 1)) // (BLOCK * GROUPS)).max(1)
        span = blocks * BLOCK
        return _Split(blocks, (length + (span - 1)) // span)


def _tiles_kernel(name: str, red: Reduction, split: _Split, partials: str) -> Planned:
    """Workgroup w adds its blocks of output w // groups: the full blocks,
    then the guarded rest of the axis (in the last workgroup), each block
    closed by a carry pass of the shared columns; written as 14 digits and
    the flags word at `partials[k * count + w]`."""
    fmt = X.FORMATS[red.dtype]
    b = KernelBuilder(name, WORKGROUP)
    adder = _Window.start(b, fmt)
    group = b.let(E.workgroup_id(0), "g")
    groups, blocks, length = b.param(split.groups), b.param(split.blocks), b.param(red.length)
    o = b.let(E.div(group, groups), "o")
    first = b.let(E.mul(E.mul(E.mod(group, groups), blocks), E.u32(BLOCK)), "first")
    left = b.let(E.sub(length, first), "left")
    full = b.let(E.select(E.lt(E.div(left, E.u32(BLOCK)), blocks), E.div(left, E.u32(BLOCK)), blocks), "full")
    out_idx = b.unflatten(o, red.out_shape)
    lane = b.let(E.mul(adder.local, E.u32(RUN)), "lane")

    def block(start: Expr, rounds: Expr, rest: Expr | None) -> None:
        rnd = b.fresh("rnd")
        with b.block() as body:
            round_start = E.mul(E.var(rnd), E.u32(RUN * RUNS * WORKGROUP))
            offsets = [
                b.let(E.add(round_start, lane if v == 0 else E.add(lane, E.u32(v * RUN * WORKGROUP))), "k")
                for v in range(RUNS)
            ]
            runs = [(b.let(E.add(start, k), "k"), k) for k in offsets]
            _round_of(b, adder, red, out_idx, runs, rest)
        b.emit(Node.loop(rnd, E.u32(0), rounds, body))
        adder.normalize()

    blk = b.fresh("blk")
    with b.block() as full_body:
        block(b.let(E.add(first, E.mul(E.var(blk), E.u32(BLOCK))), "bs"), E.u32(ROUNDS), None)
    b.emit(Node.loop(blk, E.u32(0), full, full_body))
    with b.block() as tail:
        start = b.let(E.add(first, E.mul(full, E.u32(BLOCK))), "bs")
        rest = b.let(E.sub(left, E.mul(full, E.u32(BLOCK))), "rest")
        step = RUN * RUNS * WORKGROUP
        block(start, E.div(E.add(rest, E.u32(step - 1)), E.u32(step)), rest)
    has_tail = E.and_(E.lt(full, blocks), E.lt(E.mul(full, E.u32(BLOCK)), left))
    b.emit(Node.if_(has_tail, tail))
    target = b.buffer(partials, DataType.U32, write=True)
    adder.finish(target, b.param(red.outputs * split.groups), group)
    return Planned(b, red.outputs * split.groups)


def _merge_kernel(name: str, red: Reduction, split: _Split, partials: str, out: str) -> Planned:
    """Workgroup o adds the `groups` partial sums of output o (each invocation
    at most GROUPS / WORKGROUP of them, in registers), merges and rounds."""
    fmt = X.FORMATS[red.dtype]
    b = KernelBuilder(name, WORKGROUP)
    local = b.let(E.local_id(0), "l")
    acc = _Acc(b.workgroup_buffer("acc", (DIGITS + 1) * WORKGROUP), local)
    o = b.let(E.workgroup_id(0), "o")
    groups, count = b.param(split.groups), b.param(red.outputs * split.groups)
    source = b.buffer(partials, DataType.U32)
    sums = [b.fresh("s") for _ in range(DIGITS + 1)]
    b.emit(*[Node.let(s, E.u32(0)) for s in sums])
    j = b.fresh("j")
    with b.block() as body:
        p = b.let(E.add(E.mul(E.var(j), E.u32(WORKGROUP)), local), "p")
        with b.block() as add:
            at = b.let(E.add(E.mul(o, groups), p), "at")
            words = [b.let(E.load(source, E.add(E.mul(E.u32(k), count), at)), "w") for k in range(DIGITS + 1)]
            for s, word in zip(sums[:DIGITS], words):
                b.emit(Node.assign(s, E.add(E.var(s), word)))
            b.emit(Node.assign(sums[DIGITS], E.bitor(E.var(sums[DIGITS]), words[DIGITS])))
        b.emit(Node.if_(E.lt(p, groups), add))
    b.emit(Node.loop(j, E.u32(0), E.div(E.add(groups, E.u32(WORKGROUP - 1)), E.u32(WORKGROUP)), body))
    carried = _carried(b, [E.var(s) for s in sums[:DIGITS]])
    b.emit(*[acc.store(k, word) for k, word in enumerate([*carried, E.var(sums[DIGITS])])])
    _merge_groups(b, acc, DIGITS + 1, WORKGROUP)
    with b.block() as write:
        words = [b.let(acc.load(k, E.u32(0)), "w") for k in range(DIGITS + 1)]
        digits = _carried(b, words[:DIGITS])
        value = _rounded(b, digits, words[DIGITS], E.gt(b.param(red.length), E.u32(0)), fmt)
        b.emit(Node.store(b.buffer(out, red.dtype, write=True), o, value))
    b.emit(Node.if_(E.eq(local, E.u32(0)), write))
    return Planned(b, red.outputs)


def exact_sum_kernels(name: str, red: Reduction, out: str, scratch: Callable[[DataType, Sym], str]) -> list[Planned]:
    """The kernels of the exact sum of a float axis into buffer `out`;
    `scratch(dtype, count)` names a new zeroed buffer."""
    length = red.length.value
    if length is not None and length <= ROW_LIMIT:
        return [_row_kernel(name, red, out)]
    split = _Split.of(red.length)
    partials = scratch(DataType.U32, red.outputs * split.groups * (DIGITS + 1))
    return [
        _tiles_kernel(f"{name}_tiles", red, split, partials),
        _merge_kernel(f"{name}_merge", red, split, partials, out),
    ]


