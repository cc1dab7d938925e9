"""The WGSL of U128 arithmetic: helper functions over `vec4<u32>` values.

A U128 value is a `vec4<u32>`, `x` the least significant word (values.py). The
bitwise operators, `bit_not`, `eq` and `ne` are WGSL's component-wise vector
operators; every other operator is one of the helper functions below, emitted
once per kernel that uses it (guards.py registers them, wgsl.py calls them).
Each helper is straight-line code without a loop: lavapipe counts the loop
back-edges of an invocation, helper functions included, and stops its loops
silently past 65,535 (loops.py), so a loop here inside a long kernel loop could
be cut short without a trace.

- `add`, `sub`: component-wise sums (differences) and the carry (borrow) out of
  each word, propagated upwards; a word produces a carry either by its own sum or
  by the incoming carry, never both.
- `mul`: the low 128 bits of the product from 16-bit digits: each product of two
  digits is below 2**32; column k sums the low halves of the products of digits
  i + j = k and the high halves of those of i + j = k - 1 (at most 15 terms below
  2**16, so a column stays below 2**20), then the columns are carried.
- `less`: the order of the highest differing word.
- `shl`, `shr`: by `n & 127`: whole words first (`n >> 5`), then the bits
  (`n & 31`) across word boundaries; a bit shift of 0 returns the moved words (a
  WGSL shift by 32 would be taken as a shift by 0).
- `clz`, `ctz`, `popcount`: the counts of the words, combined (0..128).
- `divmod` (divisor non-zero; guards.py returns 0 for a zero divisor, as u32
  division does): Knuth's algorithm D (TAOCP vol. 2, 4.3.1) in base 2**16, so
  every two-digit estimate and digit product fits a u32. Both operands are
  first shifted left by `s = clz(divisor)`, which makes the divisor a full eight
  digits with its top digit at least 2**15 (the estimate's precondition) and the
  dividend at most 16 digits; the quotient is unchanged and the remainder is the
  final one shifted back by `s`. With the divisor always eight digits long the
  algorithm's shape is fixed: eight quotient digits, each estimated from the top
  two digits of the running remainder, corrected at most twice against the
  divisor's second digit, multiplied and subtracted, and added back once when
  the estimate was still one too large. Everything unrolls.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "WORK",
    "add",
    "clz",
    "ctz",
    "divmod_core",
    "less",
    "mul",
    "popcount",
    "shift_left",
    "shift_right",
    "sub",
]

VEC = "vec4<u32>"
DIGIT = 0x10000
"""The base of the digits of `mul` and `divmod` (16 bits)."""

Claim = Callable[[str], str]
"""Gives the function-local name to use for a wanted one (never a module-scope name)."""

_WORDS = "xyzw"

WORK: dict[str, int] = {"div": 1200, "mod": 1200, "mul": 130, "popcount": 8, "clz": 8, "ctz": 8}
"""About how many WGSL operations one u128 operator costs (8 where not listed: a
vector operation, a sum with carries, a shift, the order): what a map's element
costs when the lowering decides whether vectorising it pays."""


def _function(name: str, params: str, result: str, comment: str, body: list[str]) -> str:
    lines = [f"// {line}" for line in comment.splitlines()]
    lines.append(f"fn {name}({params}) -> {result} {{")
    lines += [f"  {line}" for line in body]
    lines.append("}")
    return "\n".join(lines)


def add(name: str, claim: Claim) -> str:
    """`a + b` modulo 2**128."""
    a, b, s, c, y, cy, z, cz = map(claim, ("a", "b", "s", "c", "y", "cy", "z", "cz"))
    return _function(
        name, f"{a}: {VEC}, {b}: {VEC}", VEC,
        "U128 addition modulo 2**128: word sums, carries propagated upwards.",
        [
            f"let {s} = {a} + {b};",
            f"let {c} = {VEC}({s} < {a});",
            f"let {y} = {s}.y + {c}.x;",
            f"let {cy} = {c}.y | u32({y} < {c}.x);",
            f"let {z} = {s}.z + {cy};",
            f"let {cz} = {c}.z | u32({z} < {cy});",
            f"return {VEC}({s}.x, {y}, {z}, {s}.w + {cz});",
        ],
    )  # fmt: skip


def sub(name: str, claim: Claim) -> str:
    """`a - b` modulo 2**128."""
    a, b, d, c, y, cy, z, cz = map(claim, ("a", "b", "d", "c", "y", "cy", "z", "cz"))
    return _function(
        name, f"{a}: {VEC}, {b}: {VEC}", VEC,
        "U128 subtraction modulo 2**128: word differences, borrows propagated upwards.",
        [
            f"let {d} = {a} - {b};",
            f"let {c} = {VEC}({a} < {b});",
            f"let {y} = {d}.y - {c}.x;",
            f"let {cy} = {c}.y | u32({d}.y < {c}.x);",
            f"let {z} = {d}.z - {cy};",
            f"let {cz} = {c}.z | u32({d}.z < {cy});",
            f"return {VEC}({d}.x, {y}, {z}, {d}.w - {cz});",
        ],
    )  # fmt: skip


def _digit(word: str, k: int) -> str:
    """Digit k (16 bits) of a vec4<u32> named `word`."""
    part = f"{word}.{_WORDS[k // 2]}"
    return f"({part} & 0xffffu)" if k % 2 == 0 else f"({part} >> 16u)"


def mul(name: str, claim: Claim) -> str:
    """The low 128 bits of `a * b`, from the 36 products of 16-bit digits that reach them."""
    a, b, t = claim("a"), claim("b"), claim("t")
    p = {(i, j): claim(f"p{i}{j}") for i in range(8) for j in range(8 - i)}
    col = [claim(f"c{k}") for k in range(8)]
    body = [f"let {p[i, j]} = {_digit(a, i)} * {_digit(b, j)};" for i, j in p]
    for k in range(8):
        terms = [f"({p[i, k - i]} & 0xffffu)" for i in range(k + 1)]
        terms += [f"({p[i, k - 1 - i]} >> 16u)" for i in range(k)]
        if k:
            terms.append(f"({col[k - 1]} >> 16u)")  # the carry of the column below
        body.append(f"let {col[k]} = {' + '.join(terms)};")
    words = [f"({col[2 * w]} & 0xffffu) | ({col[2 * w + 1]} << 16u)" for w in range(4)]
    body.append(f"let {t} = {VEC}({', '.join(words)});")
    body.append(f"return {t};")
    return _function(
        name, f"{a}: {VEC}, {b}: {VEC}", VEC,
        "U128 multiplication modulo 2**128: 16-bit digit products summed by columns\n"
        "(each column below 2**20), then carried.",
        body,
    )  # fmt: skip


def less(name: str, claim: Claim) -> str:
    """`a < b`, unsigned, as a WGSL bool."""
    a, b = claim("a"), claim("b")
    test = f"{a}.x < {b}.x"
    for w in "yzw":
        test = f"select({test}, {a}.{w} < {b}.{w}, {a}.{w} != {b}.{w})"
    return _function(
        name, f"{a}: {VEC}, {b}: {VEC}", "bool",
        "U128 unsigned order: decided by the highest word that differs.",
        [f"return {test};"],
    )  # fmt: skip


def _moved(a: str, k: int, up: bool) -> str:
    """`a` moved by k whole words towards the high (`up`) or low end, zeros coming in."""
    words = [f"{a}.{w}" for w in _WORDS]
    if up:
        words = ["0u"] * k + words[: 4 - k]
    else:
        words = words[k:] + ["0u"] * k
    return f"{VEC}({', '.join(words)})"


def _shift(name: str, claim: Claim, up: bool) -> str:
    a, n, s, w, b, m = map(claim, ("a", "n", "s", "w", "b", "m"))
    moved = a
    for k in (1, 2, 3):
        moved = f"select({moved}, {_moved(a, k, up)}, {s} >> 5u == {k}u)"
    near, far = ("<<", ">>") if up else (">>", "<<")
    neighbour = _moved(w, 1, up)
    what = "left" if up else "right (logical)"
    return _function(
        name, f"{a}: {VEC}, {n}: u32", VEC,
        f"U128 shift {what} by n & 127: whole words, then bits across words.",
        [
            f"let {s} = {n} & 127u;",
            f"let {w} = {moved};",
            f"let {b} = {s} & 31u;",
            f"if ({b} == 0u) {{",
            f"  return {w};",
            "}",
            f"let {m} = {VEC}({b});",
            f"return ({w} {near} {m}) | ({neighbour} {far} ({VEC}(32u) - {m}));",
        ],
    )  # fmt: skip


def shift_left(name: str, claim: Claim) -> str:
    """`a << (n & 127)`, `n` the low word of the amount."""
    return _shift(name, claim, up=True)


def shift_right(name: str, claim: Claim) -> str:
    """`a >> (n & 127)` (logical), `n` the low word of the amount."""
    return _shift(name, claim, up=False)


def clz(name: str, claim: Claim) -> str:
    """Leading zero bits of a U128 (128 for 0)."""
    a, c = claim("a"), claim("c")
    count = f"96u + {c}.x"
    for k, w in ((2, "y"), (1, "z"), (0, "w")):
        count = f"select({count}, {f'{32 * k}u + ' if k else ''}{c}.{w}, {a}.{w} != 0u)"
    return _function(
        name, f"{a}: {VEC}", "u32", "U128 leading zero bits: the highest non-zero word's, plus the words above it.",
        [f"let {c} = countLeadingZeros({a});", f"return {count};"],
    )  # fmt: skip


def ctz(name: str, claim: Claim) -> str:
    """Trailing zero bits of a U128 (128 for 0)."""
    a, c = claim("a"), claim("c")
    count = f"96u + {c}.w"
    for k, w in ((2, "z"), (1, "y"), (0, "x")):
        count = f"select({count}, {f'{32 * k}u + ' if k else ''}{c}.{w}, {a}.{w} != 0u)"
    return _function(
        name, f"{a}: {VEC}", "u32", "U128 trailing zero bits: the lowest non-zero word's, plus the words below it.",
        [f"let {c} = countTrailingZeros({a});", f"return {count};"],
    )  # fmt: skip


def popcount(name: str, claim: Claim) -> str:
    """Set bits of a U128 (0..128)."""
    a, c = claim("a"), claim("c")
    return _function(
        name, f"{a}: {VEC}", "u32", "U128 set bits: the sum of the words' counts.",
        [f"let {c} = countOneBits({a});", f"return {c}.x + {c}.y + {c}.z + {c}.w;"],
    )  # fmt: skip


def _digits(target: str, vector: str, first: int) -> list[str]:
    """Statements storing the eight 16-bit digits of `vector` in target[first..first + 7]."""
    return [f"{target}[{first + k}] = {_digit(vector, k)};" for k in range(8)]


def _quotient_digit(j: int, n: dict[str, str]) -> list[str]:
    """Steps D3-D6 for quotient digit j: the running remainder is u[j .. j + 8]."""
    u, v, qhat, rhat = n["u"], n["v"], n["qhat"], n["rhat"]
    num, p, t, borrow, carry = n["num"], n["p"], n["t"], n["borrow"], n["carry"]
    # the estimate's refinement test (D3): qhat >= b or qhat v6 > b rhat + u[j+6];
    # b rhat + u[j+6] is formed only while rhat < b, so it fits a u32
    too_big = f"{qhat} >= {DIGIT:#x}u || {qhat} * {v}[6] > (({rhat} << 16u) | {u}[{j + 6}])"
    lines = [
        f"// quotient digit {j}",
        f"{num} = ({u}[{j + 8}] << 16u) | {u}[{j + 7}];",
        f"{qhat} = {num} / {v}[7];",
        f"{rhat} = {num} % {v}[7];",
        f"if ({too_big}) {{",
        f"  {qhat} = {qhat} - 1u;",
        f"  {rhat} = {rhat} + {v}[7];",
        f"  if ({rhat} < {DIGIT:#x}u && ({too_big})) {{",
        f"    {qhat} = {qhat} - 1u;",
        "  }",
        "}",
        f"{borrow} = 0u;",
        f"{carry} = 0u;",
    ]
    for i in range(8):  # D4: u[j .. j + 8] -= qhat * v
        lines += [
            f"{p} = {qhat} * {v}[{i}] + {carry};",
            f"{carry} = {p} >> 16u;",
            f"{t} = {u}[{i + j}] + {DIGIT:#x}u - ({p} & 0xffffu) - {borrow};",
            f"{u}[{i + j}] = {t} & 0xffffu;",
            f"{borrow} = 1u - ({t} >> 16u);",
        ]
    lines += [
        f"{t} = {u}[{j + 8}] + {DIGIT:#x}u - {carry} - {borrow};",
        f"{u}[{j + 8}] = {t} & 0xffffu;",
        f"if ({t} >> 16u == 0u) {{",  # D6: negative, qhat was one too large: add v back
        f"  {qhat} = {qhat} - 1u;",
        f"  {carry} = 0u;",
    ]
    for i in range(8):
        lines += [
            f"  {t} = {u}[{i + j}] + {v}[{i}] + {carry};",
            f"  {u}[{i + j}] = {t} & 0xffffu;",
            f"  {carry} = {t} >> 16u;",
        ]
    lines += [f"  {u}[{j + 8}] = ({u}[{j + 8}] + {carry}) & 0xffffu;", "}", f"{n['q']}[{j}] = {qhat};"]
    return lines


def _word_of_digits(array: str, k: int) -> str:
    """Word k of a value held as 16-bit digits in `array`."""
    return f"{array}[{2 * k}] | ({array}[{2 * k + 1}] << 16u)"


def divmod_core(name: str, claim: Claim, shl: str, shr: str, leading: str) -> str:
    """(a / b, a % b) for b != 0, as `array<vec4<u32>, 2>`; `shl`, `shr` and
    `leading` name the shift and clz helpers."""
    a, b, s, lo, hi, vn = claim("a"), claim("b"), claim("s"), claim("lo"), claim("hi"), claim("vn")
    n = {key: claim(key) for key in ("u", "v", "q", "qhat", "rhat", "num", "p", "t", "borrow", "carry")}
    u, q = n["u"], n["q"]
    body = [
        f"let {s} = {leading}({b});",
        f"let {lo} = {shl}({a}, {s});",
        f"let {hi} = select({shr}({a}, 128u - {s}), {VEC}(), {s} == 0u);",
        f"let {vn} = {shl}({b}, {s});",
        f"var {u}: array<u32, 16>;",
        f"var {n['v']}: array<u32, 8>;",
        f"var {q}: array<u32, 8>;",
        *_digits(u, lo, 0),
        *_digits(u, hi, 8),
        *_digits(n["v"], vn, 0),
        *(f"var {n[key]}: u32;" for key in ("qhat", "rhat", "num", "p", "t", "borrow", "carry")),
    ]
    for j in range(7, -1, -1):
        body += _quotient_digit(j, n)
    quotient = ", ".join(_word_of_digits(q, k) for k in range(4))
    remainder = ", ".join(_word_of_digits(u, k) for k in range(4))
    body.append(
        f"return array<{VEC}, 2>({VEC}({quotient}), {shr}({VEC}({remainder}), {s}));"
    )
    return _function(
        name, f"{a}: {VEC}, {b}: {VEC}", f"array<{VEC}, 2>",
        "U128 quotient and remainder, divisor non-zero: Knuth's algorithm D in 16-bit\n"
        "digits on both operands shifted left by clz(divisor), so the divisor has\n"
        "eight digits and a top digit >= 2**15; unrolled, no loop.",
        body,
    )  # fmt: skip
