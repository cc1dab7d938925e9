"""Unsigned multi-word integers on u32 words, for the inverse trigonometric
functions (atan.py, asin.py).

A value is a tuple of words, most significant first: `(w0, w1)` is
w0 * 2**32 + w1, `(w0, w1, w2)` has 96 bits. Arithmetic wraps modulo 2**(32 n)
(two's complement for signed values), shifts take a word amount that may exceed
the width (everything shifted out), and `mulhi` keeps the high words of a
product. The word count is a Python int, so the loops unroll into straight-line
code.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.fixed import mul32
from vyre.transforms.softfloat.machine import W, sel

__all__ = [
    "Words",
    "add",
    "add_word",
    "clz",
    "const",
    "is_zero",
    "lookup",
    "mul_small",
    "mul_word",
    "mulhi",
    "mulhi_word",
    "neg",
    "negate_if",
    "normalize",
    "select",
    "shl",
    "shr",
    "shr_small",
    "sub",
    "top32",
    "widen",
]

V = TypeVar("V")
Words = tuple[W[V], ...]
MASK = 0xFFFF_FFFF


def const(like: W[V], value: int, n: int) -> Words[V]:
    """The n-word constant `value` (taken modulo 2**(32 n))."""
    return tuple(like.const((value >> (32 * (n - 1 - i))) & MASK) for i in range(n))


def widen(a: Words[V], n: int) -> Words[V]:
    """`a` with zero words appended below (the same fraction, n words)."""
    return a + tuple(a[0].const(0) for _ in range(n - len(a)))


def select(c: W[V], t: Words[V], f: Words[V]) -> Words[V]:
    return tuple(sel(c, x, y) for x, y in zip(t, f, strict=True))


def add(a: Words[V], b: Words[V]) -> Words[V]:
    n = len(a)
    out = [a[n - 1] + b[n - 1]]
    carry = out[0].lt(a[n - 1])
    for i in range(n - 2, -1, -1):
        s = a[i] + b[i]
        if i:
            c = s.lt(a[i])
            s2 = s + carry
            carry = c | s2.lt(s)
            s = s2
        else:
            s = s + carry
        out.append(s)
    return tuple(reversed(out))


def sub(a: Words[V], b: Words[V]) -> Words[V]:
    n = len(a)
    out = [a[n - 1] - b[n - 1]]
    borrow = a[n - 1].lt(b[n - 1])
    for i in range(n - 2, -1, -1):
        d = a[i] - b[i]
        if i:
            bw = a[i].lt(b[i]) | d.lt(borrow)
            d = d - borrow
            borrow = bw
        else:
            d = d - borrow
        out.append(d)
    return tuple(reversed(out))


def add_word(a: Words[V], w: W[V]) -> Words[V]:
    """a + w for one word w."""
    n = len(a)
    low = a[n - 1] + w
    carry = low.lt(w)
    out = [low]
    for i in range(n - 2, -1, -1):
        s = a[i] + carry
        if i:
            carry = s.lt(carry)
        out.append(s)
    return tuple(reversed(out))


def negate_if(c: W[V], a: Words[V]) -> Words[V]:
    """-a where the 0/1 word c is 1, else a (two's complement)."""
    mask = c.const(0) - c
    return add_word(tuple(w ^ mask for w in a), c)


def neg(a: Words[V]) -> Words[V]:
    return sub(const(a[0], 0, len(a)), a)


def is_zero(a: Words[V]) -> W[V]:
    acc = a[0]
    for w in a[1:]:
        acc = acc | w
    return acc.eq(0)


def shr(a: Words[V], s: W[V]) -> Words[V]:
    """a >> s for any word amount s (0 once s >= 32 n)."""
    n = len(a)
    zero = a[0].const(0)
    words = list(a)
    word = s >> 5
    # a whole number of words first: word k of the result is word k - (s >> 5)
    moved = [zero] * n
    for shift in range(n):
        hit = word.eq(shift)
        for k in range(n):
            src = words[k - shift] if k - shift >= 0 else zero
            moved[k] = src if shift == 0 else sel(hit, src, moved[k])
    moved = [sel(word.ge(n), zero, w) for w in moved]
    b = s & 31
    back = 31 - b
    out = [moved[0] >> b]
    for k in range(1, n):
        out.append((moved[k] >> b) | ((moved[k - 1] << back) << 1))
    return tuple(out)


def shr_small(a: Words[V], s: W[V]) -> Words[V]:
    """a >> s for 0 <= s < 32."""
    back = 31 - s
    out = [a[0] >> s]
    for k in range(1, len(a)):
        out.append((a[k] >> s) | ((a[k - 1] << back) << 1))
    return tuple(out)


def shl(a: Words[V], s: W[V]) -> Words[V]:
    """a << s (modulo 2**(32 n)) for any word amount s (0 once s >= 32 n)."""
    n = len(a)
    zero = a[0].const(0)
    word = s >> 5
    moved = [zero] * n
    for shift in range(n):
        hit = word.eq(shift)
        for k in range(n):
            src = a[k + shift] if k + shift < n else zero
            moved[k] = src if shift == 0 else sel(hit, src, moved[k])
    moved = [sel(word.ge(n), zero, w) for w in moved]
    b = s & 31
    back = 31 - b
    out: list[W[V]] = []
    for k in range(n - 1):
        out.append((moved[k] << b) | ((moved[k + 1] >> back) >> 1))
    out.append(moved[n - 1] << b)
    return tuple(out)


def clz(a: Words[V]) -> W[V]:
    """Leading zero bits of the n-word value (32 n for zero)."""
    n = len(a)
    count = a[n - 1].clz() + 32 * (n - 1)
    for k in range(n - 2, -1, -1):
        count = sel(a[k].ne(0), a[k].clz() + 32 * k, count)
    return count


def normalize(a: Words[V]) -> tuple[Words[V], W[V]]:
    """(a << lz, lz): the leading 1 moved to the top bit (a zero stays zero):
    whole words up while the top word is zero, then the bits."""
    zero = a[0].const(0)
    words = list(a)
    lz = zero
    for _ in range(len(a) - 1):
        empty = words[0].eq(0)
        words = [sel(empty, w, v) for v, w in zip(words, words[1:] + [zero], strict=True)]
        lz = lz + (empty << 5)
    b = words[0].clz()
    back = 31 - b
    out = [(words[k] << b) | ((words[k + 1] >> back) >> 1) for k in range(len(a) - 1)]
    return tuple(out) + (words[-1] << b,), lz + b


def mulhi_word(a: W[V], b: W[V]) -> W[V]:
    """floor(a * b / 2**32) or up to two less (three 16-bit products)."""
    al, ah = a & 0xFFFF, a >> 16
    bl, bh = b & 0xFFFF, b >> 16
    return ah * bh + ((al * bh) >> 16) + ((ah * bl) >> 16)


def top32(a: Words[V]) -> W[V]:
    """The top word with every lower bit OR-ed into bit 0 (sticky)."""
    rest = a[1]
    for w in a[2:]:
        rest = rest | w
    return a[0] | rest.ne(0)


def mul_small(a: Words[V], k: W[V]) -> Words[V]:
    """a * k modulo 2**(32 n) for k < 2**16."""
    n = len(a)
    out: list[W[V]] = []
    carry: W[V] | None = None
    for i in range(n - 1, -1, -1):
        w = a[i]
        if i == 0:  # the top word: only its low 32 bits are kept
            top = k * w
            out.append(top if carry is None else top + carry)
            break
        lo = k * (w & 0xFFFF)
        hi = k * (w >> 16)  # < 2**32
        low = lo + (hi << 16)
        up = (hi >> 16) + low.lt(lo)
        if carry is not None:
            low2 = low + carry
            up = up + low2.lt(low)
            low = low2
        out.append(low)
        carry = up
    return tuple(reversed(out))


def mul_word(a: Words[V], w: W[V]) -> Words[V]:
    """The top n words of the (n + 1)-word product a * w (the lowest word of
    the product dropped, truncated)."""
    parts = [mul32(x, w) for x in a]
    highs = tuple(p[0] for p in parts)
    lows = (w.const(0),) + tuple(p[1] for p in parts[:-1])
    return add(highs, lows)


def mulhi(a: Words[V], b: Words[V], n: int, columns_kept: int | None = None) -> Words[V]:
    """The top n words of the product of a and b (fractions of 2**(32 len a)
    and 2**(32 len b)), truncated: the word products whose high word lands in
    the top `columns_kept` (default n) columns are summed (per column, carries
    counted), so the result is at most a few units of word `columns_kept - 1`
    below the exact one. A square (a is b) computes each cross product once."""
    zero = a[0].const(0)
    kept = n if columns_kept is None else columns_kept
    columns: list[list[W[V]]] = [[] for _ in range(n + 1)]
    square = a is b
    for i in range(len(a)):
        for j in range(len(b)):
            if i + j >= kept or (square and j < i):
                continue
            hi, lo = mul32(a[i], b[j])
            copies = 2 if square and i != j else 1
            for _ in range(copies):
                columns[i + j].append(hi)
                if i + j + 1 <= n:
                    columns[i + j + 1].append(lo)
    # sum each column with a count of its carries, then carry upwards
    sums: list[W[V]] = []
    carries: list[W[V]] = []
    for words in columns:
        total, count = (words[0], zero) if words else (zero, zero)
        for w in words[1:]:
            s = total + w
            count = count + s.lt(w)
            total = s
        sums.append(total)
        carries.append(count)
    out: list[W[V]] = []
    carry = carries[n]
    for c in range(n - 1, -1, -1):
        s = sums[c] + carry
        out.append(s)
        if c:
            carry = carries[c] + s.lt(carry)
    return tuple(reversed(out))


def lookup(table: tuple[int, ...], index: W[V], n: int) -> Words[V]:
    """Entry `index` of a table of n-word constants (n word tables)."""
    return tuple(
        index.lookup(tuple((v >> (32 * (n - 1 - i))) & MASK for v in table)) for i in range(n)
    )
