"""Symbolic sizes: one normal form (equal values compare equal), a text form
that parses back to the same value, evaluation with Python's integer meaning."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest

from vyre.dialects.symbolic import Sym, SymParseError, parse_sym, sym

N, M = sym("n"), sym("m")


def test_the_normal_form_makes_equal_sizes_equal() -> None:
    assert N * 64 == 64 * N
    assert (N * 64) // 64 == N
    assert (N * 64 + 3) - N * 64 == sym(3)
    assert N.max(0) == N and N.min(0) == sym(0)
    assert N.eq(N) == sym(1) and (N + 1).eq(N) == sym(0)
    assert N.ne(1) * N.ne(1) == N.ne(1)


@pytest.mark.parametrize(
    "text",
    ["n*64 + 3", "-2*n + m*n", "max(n - 2, 0)", "n == 1 || m == 1", "(n + 255) // 256", "n*(m != 1)", "-(n % 3)", "n >= 3 && m < 2", "min(n, m)*2"],
)
def test_the_text_form_parses_back(text: str) -> None:
    value = parse_sym(text)
    assert parse_sym(str(value)) == value


_OPS: dict[str, tuple[Callable[[Sym, Sym], Sym], Callable[[int, int], int]]] = {
    "+": (lambda a, b: a + b, lambda a, b: a + b),
    "-": (lambda a, b: a - b, lambda a, b: a - b),
    "*": (lambda a, b: a * b, lambda a, b: a * b),
    "//": (lambda a, b: a // b, lambda a, b: a // b),
    "%": (lambda a, b: a % b, lambda a, b: a % b),
    "min": (Sym.min, min),
    "max": (Sym.max, max),
    "==": (Sym.eq, lambda a, b: int(a == b)),
    "<": (Sym.lt, lambda a, b: int(a < b)),
    "&&": (Sym.and_, lambda a, b: int(bool(a) and bool(b))),
    "||": (Sym.or_, lambda a, b: int(bool(a) or bool(b))),
}


def _random(rng: random.Random, depth: int) -> tuple[Sym, Callable[[dict[str, int]], int]]:
    if depth == 0 or rng.random() < 0.3:
        choice = rng.choice(["c", "n", "m"])
        if choice == "c":
            value = rng.randint(-5, 9)
            return sym(value), lambda env: value
        return sym(choice), lambda env: env[choice]
    (a, fa), (b, fb) = _random(rng, depth - 1), _random(rng, depth - 1)
    name = rng.choice(sorted(_OPS))
    make, apply = _OPS[name]
    if name in ("//", "%") and b.value == 0:
        return a, fa
    try:
        return make(a, b), lambda env: apply(fa(env), fb(env))
    except ZeroDivisionError:
        return a, fa


def test_random_sizes_print_parse_and_evaluate_as_python_does() -> None:
    rng = random.Random(7)
    for _ in range(600):
        value, oracle = _random(rng, 4)
        assert parse_sym(str(value)) == value, str(value)
        for env in ({"n": 7, "m": 1}, {"n": 0, "m": 3}, {"n": 3, "m": 3}):
            try:
                expected = oracle(env)
            except ZeroDivisionError:
                continue
            assert value.evaluate(env) == expected, (str(value), env)


@pytest.mark.parametrize("text", ["", "n +", "(n", "min(n)", "n $ 2", "3 n"])
def test_bad_text_is_a_value_error_naming_it(text: str) -> None:
    with pytest.raises(SymParseError):
        parse_sym(text)


HOSTILE = {
    "nested parentheses": "(" * 300 + "n" + ")" * 300,
    "a chain of signs": "-" * 500 + "n",
    "nested min": "min(" * 100 + "n" + ", 1)" * 100,
    "an exponential expansion": "*".join(["(a+b+c+d+e)"] * 40),
    "a number of 5,000 digits": "9" * 5000,
    "a product of huge numbers": "*".join(["9" * 300] * 20),
}
"""Found by the tensor-text fuzzer: the first three recursed past Python's stack
(vyre-opt reported an unlocated "nested too deeply"), the expansion hung
(20 factors took 5 s, each one more about twice that), the long number raised
int()'s own ValueError."""


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_sizes_are_refused_at_once(text: str) -> None:
    started = time.perf_counter()
    with pytest.raises(SymParseError, match="bad symbolic size"):
        parse_sym(text)
    assert time.perf_counter() - started < 1.0


def test_sizes_within_the_limits_parse() -> None:
    assert str(parse_sym("(" * 60 + "n" + ")" * 60)) == "n"
    assert parse_sym("*".join(["(a+b)"] * 7)).evaluate({"a": 1, "b": 1}) == 2**7
    assert parse_sym("9" * 300).value == int("9" * 300)


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_vyre_opt_locates_a_hostile_size(text: str) -> None:
    from tensor_text_fuzz import run_vyre_opt

    source = f'vtensor.graph @g(%a : !vtensor.tensor<f32["{text}"]>) {{\n  vtensor.output "a" = %a\n}}\n'
    code, _, err = run_vyre_opt(source, [])
    assert code == 1
    assert err.startswith("<stdin>:1:43: error: bad symbolic size")
