"""The u128 fuzzer (test/support/u128_fuzz.py, u128_oracles.py): registered,
deterministic, covering every operator and cast `u128` has, its oracle right
on hand-computed cases, its cases clean on the interpreter and on wgpu, and a
planted wrong result caught and shrunk."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
import u128_fuzz
import u128_oracles as O

from vyre.testing.fuzz import FUZZERS, OracleFailure, get_fuzzer
from vyre.testing.fuzz.base import IN_CHECKOUT, describe, hang_seconds
from vyre.testing.fuzz.harness import CORPUS

MAX = (1 << 128) - 1


def test_the_registry_lists_u128_with_a_corpus_folder() -> None:
    assert "u128" in FUZZERS and IN_CHECKOUT["u128"] == "u128_fuzz.py"
    assert hang_seconds("u128") >= 10 and list((CORPUS / "u128").glob("*.json"))
    assert isinstance(get_fuzzer("u128", 3), u128_fuzz.U128Fuzzer)


def _value(tree: list[Any], inputs: dict[str, list[int]] | None = None, row: int = 0) -> Any:
    return O.evaluate(tree, row, inputs or {"a": [], "b": [], "w": []})


def _lit(value: int) -> list[Any]:
    return ["lit", "u128", value]


@pytest.mark.parametrize(
    ("op", "a", "b", "want"),
    [
        ("mul", MAX, MAX, 1),
        ("add", MAX, 1, 0),
        ("sub", 0, 1, MAX),
        ("div", 7, 0, 0),
        ("mod", 7, 0, 0),
        ("div", MAX, 2**64, 2**64 - 1),
        ("mod", 2**127 + 5, 2**64 + 1, (2**127 + 5) % (2**64 + 1)),
        ("shl", 1, 128, 1),
        ("shl", 1, 129, 2),
        ("shl", 3, 127, 2**127),
        ("shr", 2**127, 255, 1),
        ("shr", MAX, 2**64, MAX),  # the amount's low seven bits: 0
        ("lt", 2**127, 2**127 - 1, 0),
        ("ge", MAX, 0, 1),
    ],
)
def test_the_oracle_gives_the_documented_values(op: str, a: int, b: int, want: int) -> None:
    kind = "u32" if op in O.COMPARISONS else "u128"
    assert _value(["bin", op, _lit(a), _lit(b)]) == (kind, want)


def test_the_oracle_counts_casts_and_refuses_what_the_rules_refuse() -> None:
    assert _value(["un", "clz", _lit(0)]) == ("u32", 128)
    assert _value(["un", "ctz", _lit(0)]) == ("u32", 128)
    assert _value(["un", "ctz", _lit(2**127)]) == ("u32", 127)
    assert _value(["un", "clz", _lit(2**64)]) == ("u32", 63)
    assert _value(["un", "popcount", _lit(MAX)]) == ("u32", 128)
    assert _value(["un", "bit_not", _lit(0)]) == ("u128", MAX)
    assert _value(["cast", "u128", ["cast", "i32", ["lit", "u32", 2**31]]]) == ("u128", MAX - 2**31 + 1)
    assert _value(["cast", "u128", ["cast", "bool", _lit(2**100)]]) == ("u128", 1)
    assert _value(["cast", "u32", _lit(2**32 + 7)]) == ("u32", 7)
    assert _value(["cast", "u128", ["cast", "u64", _lit(MAX)]]) == ("u128", 2**64 - 1)
    assert _value(["cast", "vec2u32", _lit(2**32 * 5 + 3)]) == ("vec2u32", (3, 5))
    assert _value(["cast", "u128", ["cast", "vec4u32", ["lit", "u32", 9]]]) == ("u128", 9 * (1 + 2**32 + 2**64 + 2**96))
    assert _value(["load", "a", 1], {"a": [5, 6], "b": [], "w": []}, row=1) == ("u128", 0)  # past the end
    refused = [
        ["bin", "add", _lit(1), ["lit", "u32", 1]],
        ["bin", "shl", _lit(1), ["lit", "u32", 1]],
        ["bin", "and", _lit(1), _lit(1)],
        ["un", "negate", _lit(1)],
        ["un", "reverse_bits", _lit(1)],
        ["cast", "f32", _lit(1)],
        ["cast", "vec4u32", ["cast", "u64", _lit(1)]],
        ["select", ["lit", "u32", 1], _lit(1), ["lit", "u32", 1]],
    ]
    for tree in refused:
        with pytest.raises(O.Invalid):
            _value(tree)


def test_u128_cases_are_deterministic_and_cover_every_operator_and_cast() -> None:
    fuzzer = u128_fuzz.U128Fuzzer(0)
    assert fuzzer.generate(4) == fuzzer.generate(4) != fuzzer.generate(5)
    assert u128_fuzz.U128Fuzzer(1).generate(4) != fuzzer.generate(4)
    seen: Counter[str] = Counter()
    for index in range(300):
        case = json.loads(fuzzer.generate(index))
        seen["invalid"] += u128_fuzz.oracle_rows(case) is None
        for out in case["outputs"]:
            seen.update(_labels(out["expr"]))
    wanted = {f"bin.{op}" for op in u128_fuzz.VALUE_OPS + O.COMPARISONS}
    wanted |= {f"un.{op}" for op in ("bit_not", *u128_fuzz.COUNTS)}
    wanted |= {f"cast.{t}" for t in (*u128_fuzz.NARROW, "u128")} | {"select", "load", "lit", "invalid"}
    assert wanted <= set(seen), wanted - set(seen)
    assert 10 <= seen["invalid"] <= 60


def _labels(tree: Sequence[Any]) -> list[str]:
    head = str(tree[0])
    if head in ("lit", "load"):
        return [head]
    label = head if head == "select" else f"{head}.{tree[1]}"
    first = 1 if head == "select" else 2
    return [label, *(x for k in range(first, len(tree)) for x in _labels(tree[k]))]


def test_u128_cases_pass_on_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(u128_fuzz, "_have_gpu", lambda: False)
    fuzzer = u128_fuzz.U128Fuzzer(7)
    for index in range(40):
        fuzzer.check(fuzzer.generate(index))


def test_u128_cases_pass_on_the_gpu(gpu_adapter: Any) -> None:
    fuzzer = get_fuzzer("u128", 5)
    for index in range(6):
        fuzzer.check(fuzzer.generate(index))


def test_an_invalid_program_is_refused_with_a_validation_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(u128_fuzz, "_have_gpu", lambda: False)
    case = {"inputs": {"a": [1], "b": [2], "w": [3]},
            "outputs": [{"type": "u128", "expr": ["bin", "mod", ["load", "a", 0], ["load", "w", 0]]}]}  # fmt: skip
    u128_fuzz.check_u128_case(json.dumps(case).encode())
    # an oracle that takes a valid program for an invalid one: the run is reported
    valid = {**case, "outputs": [{"type": "u128", "expr": ["bin", "mod", ["load", "a", 0], ["load", "b", 0]]}]}
    monkeypatch.setattr(u128_fuzz, "oracle_rows", lambda case: None)
    with pytest.raises(OracleFailure, match="an invalid u128 program ran on interp"):
        u128_fuzz.check_u128_case(json.dumps(valid).encode())


def test_a_planted_wrong_result_is_caught_and_shrunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """An oracle whose `mul` wraps at 2^127: some generated case fails, and it
    shrinks to one output, one row and a tree holding the `mul`."""
    monkeypatch.setattr(u128_fuzz, "_have_gpu", lambda: False)
    original = O._u128_binary  # pyright: ignore[reportPrivateUsage]

    def wrong(op: str, a: int, b: int) -> int:
        return a * b % 2**127 if op == "mul" else original(op, a, b)

    monkeypatch.setattr(O, "_u128_binary", wrong)
    fuzzer = u128_fuzz.U128Fuzzer(0)
    failing = next(data for data in map(fuzzer.generate, range(200)) if _failure(fuzzer, data))
    first = _failure(fuzzer, failing)
    assert first is not None and first.startswith("OracleFailure: u128: the interpreter differs from the oracle")
    small = json.loads(fuzzer.shrink(failing, lambda data: _failure(fuzzer, data) == first))
    assert len(small["outputs"]) == 1 and len(small["inputs"]["a"]) == 1
    assert "mul" in _labels_text(small["outputs"][0]["expr"]) and len(json.dumps(small)) < len(failing)


def _labels_text(tree: Sequence[Any]) -> str:
    return " ".join(_labels(tree))


def _failure(fuzzer: u128_fuzz.U128Fuzzer, data: bytes) -> str | None:
    try:
        fuzzer.check(data)
    except OracleFailure as error:
        return describe(error)
    return None


def test_edge_values_hold_the_word_boundaries() -> None:
    rnd = random.Random(0)
    drawn = {u128_fuzz.value128(rnd) for _ in range(2000)}
    assert {0, 1, 2**32 - 1, 2**32, 2**64 - 1, 2**64 + 1, 2**127, MAX} <= drawn
    assert all(0 <= v <= MAX for v in drawn)
