"""Symbolic sizes of the tensor level: integer expressions over named dimensions.

A tensor's dimensions, strides and offset, a kernel's grid and the values its
`dims` uniform carries are `Sym`s: integers, or expressions over the dynamic
dimensions (`n`, `batch`) that the host evaluates once the arguments are known.
The same expression is the build-time answer (is this dim 64? are these two
dims equal?) and the run-time value.

A `Sym` is kept in one normal form, a polynomial with integer coefficients over
*atoms*: names, and the operations a polynomial cannot hold (floor division,
remainder, min, max, comparisons and the logical and/or, whose value is 0 or 1).
So `64*n` and `n*64` are the same `Sym`, `(64*n) // 64` is `n`, and equality of
two `Sym`s is structural. Operations on constants fold.

Text form (the dialect's types and schedule, `str(sym)`, `parse_sym(text)`):
integers, names, `+ - * // %` (Python's floor semantics), `min(a, b)`,
`max(a, b)`, `== != < <= > >=`, `&&`, `||` and parentheses. The printed form of
a `Sym` parses back to the same `Sym`. A text nested deeper than `MAX_PARSE_DEPTH`
levels, or whose normal form would hold more than `MAX_PARSE_TERMS` terms, is a
`SymParseError` (the parser recursed past Python's stack at about 140 levels,
and `(a+b+c+d+e)*...` expands exponentially: 20 factors took 5 s).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

__all__ = ["MAX_PARSE_DEPTH", "MAX_PARSE_TERMS", "Sym", "SymParseError", "parse_sym", "sym", "syms"]

MAX_PARSE_DEPTH = 64
"""Parentheses, signs and min/max calls a symbolic size's text nests, at most."""
MAX_PARSE_TERMS = 256
"""Terms of a parsed symbolic size's normal form (and of each part), at most."""
MAX_PARSE_BITS = 1024
"""Bits of a parsed symbolic size's numbers and coefficients, at most."""


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED = frozenset({"min", "max"})
_COMPARISONS = ("==", "!=", "<", "<=")
_INFIX = ("//", "%", "==", "!=", "<", "<=", "&&", "||")


@dataclass(frozen=True)
class _Call:
    """An atom that is an operation a polynomial cannot hold."""

    fn: str
    args: tuple[Sym, ...]

    @cached_property
    def text(self) -> str:
        if self.fn in ("min", "max"):
            return f"{self.fn}({', '.join(str(a) for a in self.args)})"
        left, right = (_operand_text(a) for a in self.args)
        return f"({left} {self.fn} {right})"

    def evaluate(self, env: Mapping[str, int]) -> int:
        values = [arg.evaluate(env) for arg in self.args]
        return _apply(self.fn, values[0], values[1])


_Atom = str | _Call
_Monomial = tuple[_Atom, ...]


def _operand_text(value: Sym) -> str:
    """An operand of an infix atom: bare when it is one term, else in parentheses."""
    text = str(value)
    simple = not value.terms or (
        len(value.terms) == 1
        and value.terms[0][1] > 0
        and (len(value.terms[0][0]) == 0 or (len(value.terms[0][0]) == 1 and value.terms[0][1] == 1))
    )
    return text if simple else f"({text})"


def _atom_key(atom: _Atom) -> tuple[int, str]:
    return (0, atom) if isinstance(atom, str) else (1, atom.text)


def _monomial_key(monomial: _Monomial) -> tuple[int, tuple[tuple[int, str], ...]]:
    return (-len(monomial), tuple(_atom_key(a) for a in monomial))


def _apply(fn: str, a: int, b: int) -> int:
    if fn == "//":
        if b == 0:
            raise ZeroDivisionError("integer division by zero in a symbolic size")
        return a // b
    if fn == "%":
        if b == 0:
            raise ZeroDivisionError("integer remainder by zero in a symbolic size")
        return a % b
    table = {
        "min": min(a, b),
        "max": max(a, b),
        "==": int(a == b),
        "!=": int(a != b),
        "<": int(a < b),
        "<=": int(a <= b),
        "&&": int(bool(a) and bool(b)),
        "||": int(bool(a) or bool(b)),
    }
    return table[fn]


@dataclass(frozen=True)
class Sym:
    """An integer expression in normal form (see the module doc). Build with
    `sym(5)`, `sym("n")`, `parse_sym("n*64 + 1")` and the operators."""

    terms: tuple[tuple[_Monomial, int], ...] = ()
    """(monomial, nonzero coefficient), sorted; the constant is the empty monomial."""
    _text: list[str] = field(default_factory=lambda: [], compare=False, hash=False, repr=False)

    # -- construction -----------------------------------------------------------

    @staticmethod
    def const(value: int) -> Sym:
        return Sym((((), int(value)),)) if value else Sym()

    @staticmethod
    def name(name: str) -> Sym:
        if not _NAME.fullmatch(name) or name in _RESERVED:
            raise ValueError(f"a dimension name must be an identifier (not min/max), got {name!r}")
        return Sym((((name,), 1),))

    @staticmethod
    def _of(terms: Mapping[_Monomial, int]) -> Sym:
        kept = sorted(((m, c) for m, c in terms.items() if c), key=lambda t: _monomial_key(t[0]))
        return Sym(tuple(kept))

    @staticmethod
    def _atom(atom: _Call) -> Sym:
        return Sym((((atom,), 1),))

    # -- facts ------------------------------------------------------------------

    @property
    def value(self) -> int | None:
        """The integer this is, or None when it depends on a dimension."""
        if not self.terms:
            return 0
        if len(self.terms) == 1 and self.terms[0][0] == ():
            return self.terms[0][1]
        return None

    @property
    def is_const(self) -> bool:
        return self.value is not None

    @property
    def plain_name(self) -> str | None:
        """The dimension name when this is exactly one name, else None."""
        if len(self.terms) == 1 and self.terms[0][1] == 1:
            monomial = self.terms[0][0]
            if len(monomial) == 1 and isinstance(monomial[0], str):
                return monomial[0]
        return None

    def names(self) -> frozenset[str]:
        """The dimension names the value depends on."""
        found: set[str] = set()
        for monomial, _ in self.terms:
            for atom in monomial:
                if isinstance(atom, str):
                    found.add(atom)
                else:
                    for arg in atom.args:
                        found |= arg.names()
        return frozenset(found)

    def evaluate(self, env: Mapping[str, int]) -> int:
        """The value with every name bound by `env` (KeyError for a missing one)."""
        total = 0
        for monomial, coeff in self.terms:
            product = coeff
            for atom in monomial:
                product *= env[atom] if isinstance(atom, str) else atom.evaluate(env)
            total += product
        return total

    # -- arithmetic -------------------------------------------------------------

    def __add__(self, other: Sym | int) -> Sym:
        terms = dict(self.terms)
        for monomial, coeff in sym(other).terms:
            terms[monomial] = terms.get(monomial, 0) + coeff
        return Sym._of(terms)

    __radd__ = __add__

    def __neg__(self) -> Sym:
        return Sym(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: Sym | int) -> Sym:
        return self + -sym(other)

    def __rsub__(self, other: int) -> Sym:
        return sym(other) - self

    def __mul__(self, other: Sym | int) -> Sym:
        terms: dict[_Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in sym(other).terms:
                monomial = _idempotent(tuple(sorted(m1 + m2, key=_atom_key)))
                terms[monomial] = terms.get(monomial, 0) + c1 * c2
        return Sym._of(terms)

    __rmul__ = __mul__

    def __floordiv__(self, other: Sym | int) -> Sym:
        b = sym(other)
        divisor = b.value
        if divisor == 1:
            return self
        if divisor is not None and divisor != 0:
            if self.value is not None:
                return Sym.const(self.value // divisor)
            if all(c % divisor == 0 for _, c in self.terms):
                return Sym(tuple((m, c // divisor) for m, c in self.terms))
        return _call("//", self, b)

    def __mod__(self, other: Sym | int) -> Sym:
        b = sym(other)
        divisor = b.value
        if divisor is not None and divisor != 0:
            if self.value is not None:
                return Sym.const(self.value % divisor)
            if all(c % divisor == 0 for _, c in self.terms):
                return Sym()
        return _call("%", self, b)

    def min(self, other: Sym | int) -> Sym:
        b = sym(other)
        difference = (self - b).value
        if difference is not None:
            return self if difference <= 0 else b
        if (b.value == 0 and self.nonnegative) or (self.value == 0 and b.nonnegative):
            return Sym()
        return _call("min", self, b)

    def max(self, other: Sym | int) -> Sym:
        b = sym(other)
        difference = (self - b).value
        if difference is not None:
            return self if difference >= 0 else b
        if b.value == 0 and self.nonnegative:
            return self
        if self.value == 0 and b.nonnegative:
            return b
        return _call("max", self, b)

    @property
    def nonnegative(self) -> bool:
        """Provably >= 0 (names are dims or repeat counts, never negative)."""
        return all(c > 0 and all(_atom_nonnegative(a) for a in m) for m, c in self.terms)

    def eq(self, other: Sym | int) -> Sym:
        return _compare("==", self, sym(other))

    def ne(self, other: Sym | int) -> Sym:
        return _compare("!=", self, sym(other))

    def lt(self, other: Sym | int) -> Sym:
        return _compare("<", self, sym(other))

    def le(self, other: Sym | int) -> Sym:
        return _compare("<=", self, sym(other))

    def and_(self, other: Sym | int) -> Sym:
        b = sym(other)
        for x, y in ((self, b), (b, self)):
            if x.value is not None:
                return Sym() if x.value == 0 else _truth(y)
        return _call("&&", self, b)

    def or_(self, other: Sym | int) -> Sym:
        b = sym(other)
        for x, y in ((self, b), (b, self)):
            if x.value is not None:
                return Sym.const(1) if x.value != 0 else _truth(y)
        return _call("||", self, b)

    # -- text -------------------------------------------------------------------

    def __str__(self) -> str:
        if not self._text:
            self._text.append(_format(self))
        return self._text[0]

    def __repr__(self) -> str:
        return f"Sym({str(self)!r})"


_BOOLEAN = frozenset({*_COMPARISONS, "&&", "||"})


def _atom_nonnegative(atom: _Atom) -> bool:
    if isinstance(atom, str) or atom.fn in _BOOLEAN:
        return True
    left, right = atom.args
    if atom.fn == "max":
        return left.nonnegative or right.nonnegative
    if atom.fn == "min":
        return left.nonnegative and right.nonnegative
    if atom.fn in ("//", "%"):
        return left.nonnegative and right.nonnegative and (right.value or 0) > 0
    return False


def _idempotent(monomial: _Monomial) -> _Monomial:
    """A 0/1 atom (a comparison, and, or) times itself is itself."""
    out: list[_Atom] = []
    for atom in monomial:
        if out and atom == out[-1] and isinstance(atom, _Call) and atom.fn in _BOOLEAN:
            continue
        out.append(atom)
    return tuple(out)


def _truth(value: Sym) -> Sym:
    """`value` as 0/1 (comparisons and logic already are)."""
    if value.value is not None:
        return Sym.const(int(value.value != 0))
    if len(value.terms) == 1 and value.terms[0][1] == 1 and len(value.terms[0][0]) == 1:
        atom = value.terms[0][0][0]
        if isinstance(atom, _Call) and atom.fn in (*_COMPARISONS, "&&", "||"):
            return value
    return _compare("!=", value, Sym())


def _call(fn: str, a: Sym, b: Sym) -> Sym:
    if a.value is not None and b.value is not None:
        return Sym.const(_apply(fn, a.value, b.value))
    if fn in ("min", "max") and _atom_key_of(b) < _atom_key_of(a):
        a, b = b, a
    return Sym._atom(_Call(fn, (a, b)))  # pyright: ignore[reportPrivateUsage]


def _atom_key_of(value: Sym) -> str:
    return str(value)


def _compare(fn: str, a: Sym, b: Sym) -> Sym:
    difference = (a - b).value
    if difference is not None:
        return Sym.const(_apply(fn, difference, 0))
    if fn in ("==", "!=") and _atom_key_of(b) < _atom_key_of(a):
        a, b = b, a
    return Sym._atom(_Call(fn, (a, b)))  # pyright: ignore[reportPrivateUsage]


def sym(value: Sym | int | str) -> Sym:
    """`value` as a `Sym`: an int, a dimension name, or a `Sym` (unchanged)."""
    if isinstance(value, Sym):
        return value
    if isinstance(value, bool):
        raise TypeError("a size must be an int or a dimension name, not a bool")
    if isinstance(value, int):
        return Sym.const(value)
    if isinstance(value, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        return Sym.name(value)
    raise TypeError(f"a size must be an int or a dimension name, got {value!r}")


def _format(value: Sym) -> str:
    if not value.terms:
        return "0"
    parts: list[str] = []
    for monomial, coeff in value.terms:
        factors = [a if isinstance(a, str) else a.text for a in monomial]
        magnitude = abs(coeff)
        if not factors:
            text = str(magnitude)
        elif magnitude == 1:
            text = "*".join(factors)
        else:
            text = "*".join([str(magnitude), *factors])
        if not parts:
            parts.append(text if coeff > 0 else f"-{text}")
        else:
            parts.append(f"{'+' if coeff > 0 else '-'} {text}")
    return " ".join(parts)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


class SymParseError(ValueError):
    """Text that is not a symbolic size; names the text and the position."""


_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(//|==|!=|<=|>=|&&|\|\||[-+*%<>(),]))")


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    at = 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = _TOKEN.match(text, at)
        if match is None:
            raise SymParseError(f"bad symbolic size {text!r} at position {at}")
        out.append(match.group(match.lastindex or 0))
        at = match.end()
    return out


@dataclass
class _Parser:
    text: str
    tokens: list[str]
    at: int = 0
    depth: int = 0

    def bounded(self, value: Sym) -> Sym:
        """`value`, unless its normal form is too large (`MAX_PARSE_TERMS` terms,
        numbers of `MAX_PARSE_BITS`)."""
        if len(value.terms) > MAX_PARSE_TERMS:
            raise SymParseError(
                f"bad symbolic size {self.text!r}: more than {MAX_PARSE_TERMS} terms once expanded"
            )
        if any(abs(c).bit_length() > MAX_PARSE_BITS for _, c in value.terms):
            raise SymParseError(f"bad symbolic size {self.text!r}: a number of more than {MAX_PARSE_BITS} bits")
        return value

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            want = f"`{expected}`" if expected else "more"
            raise SymParseError(f"bad symbolic size {self.text!r}: expected {want}")
        self.at += 1
        return token

    def binary(self, level: int) -> Sym:
        levels: tuple[tuple[str, ...], ...] = (
            ("||",),
            ("&&",),
            ("==", "!=", "<", "<=", ">", ">="),
            ("+", "-"),
            ("*", "//", "%"),
        )
        if level == len(levels):
            return self.unary()
        left = self.binary(level + 1)
        while (token := self.peek()) in levels[level]:
            self.take()
            right = self.binary(level + 1)
            if token in ("//", "%") and right.value == 0:
                raise SymParseError(f"bad symbolic size {self.text!r}: `{token}` by zero")
            left = self.bounded(_combine(token, left, right))
            if level == 2:  # comparisons do not chain
                break
        return left

    def unary(self) -> Sym:
        token = self.take()
        if token == "-" or token == "(" or token in _RESERVED:
            self.depth += 1
            if self.depth > MAX_PARSE_DEPTH:
                raise SymParseError(f"bad symbolic size {self.text!r}: nested more than {MAX_PARSE_DEPTH} levels")
            try:
                return self.nested(token)
            finally:
                self.depth -= 1
        if token.isdigit():
            if len(token) > MAX_PARSE_BITS // 3:  # past MAX_PARSE_BITS: refused before int() reads it
                raise SymParseError(f"bad symbolic size {self.text!r}: a number of more than {MAX_PARSE_BITS} bits")
            return self.bounded(Sym.const(int(token)))
        if _NAME.fullmatch(token):
            return Sym.name(token)
        raise SymParseError(f"bad symbolic size {self.text!r}: unexpected `{token}`")

    def nested(self, token: str) -> Sym:
        """What follows a sign, an opening parenthesis or min/max."""
        if token == "-":
            return -self.unary()
        if token == "(":
            inner = self.binary(0)
            self.take(")")
            return inner
        self.take("(")
        a = self.binary(0)
        self.take(",")
        b = self.binary(0)
        self.take(")")
        return self.bounded(a.min(b) if token == "min" else a.max(b))


def _combine(token: str | None, a: Sym, b: Sym) -> Sym:
    table = {
        "||": Sym.or_,
        "&&": Sym.and_,
        "==": Sym.eq,
        "!=": Sym.ne,
        "<": Sym.lt,
        "<=": Sym.le,
        "+": Sym.__add__,
        "-": Sym.__sub__,
        "*": Sym.__mul__,
        "//": Sym.__floordiv__,
        "%": Sym.__mod__,
    }
    if token == ">":
        return b.lt(a)
    if token == ">=":
        return b.le(a)
    return table[str(token)](a, b)


def parse_sym(text: str) -> Sym:
    """The `Sym` a text form spells (`SymParseError`, a ValueError, otherwise)."""
    parser = _Parser(text, _tokens(text))
    if not parser.tokens:
        raise SymParseError("an empty symbolic size")
    value = parser.binary(0)
    if parser.peek() is not None:
        raise SymParseError(f"bad symbolic size {text!r}: unexpected `{parser.peek()}`")
    return value


def syms(values: Iterable[Sym | int | str]) -> tuple[Sym, ...]:
    return tuple(sym(v) for v in values)
