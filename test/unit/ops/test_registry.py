"""The registry: lazy loading, lookups with suggestions, the twelve laws as values."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from vyre import ops
from vyre.ops import laws


def test_importing_vyre_ops_builds_no_spec() -> None:
    code = (
        "import vyre, vyre.ops, vyre.ops.registry as r, sys;"
        "assert r._builtins is None, 'built-ins loaded at import';"
        "assert 'vyre.ops.primitive.math' not in sys.modules;"
        "vyre.ops.get('primitive.math.add');"
        "assert r._builtins is not None"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_known_op_ids_is_sorted_and_holds_the_families() -> None:
    ids = ops.known_op_ids()
    assert list(ids) == sorted(ids)
    families = {op_id.rsplit(".", 1)[0] for op_id in ids}
    assert {"primitive.math", "primitive.bitwise", "primitive.compare",
            "primitive.logical", "primitive.float"} <= families
    primitives = [i for i in ids if i.startswith("primitive.") and not i.startswith("primitive.float.")]
    assert len(primitives) == 53  # the library promises at least 50
    floats = {i.removeprefix("primitive.float.") for i in ids if i.startswith("primitive.float.")}
    functions = set("exp exp2 exp10 log log2 log10 sin cos tan asin acos atan tanh erf pow atan2".split())
    assert len(floats - functions) == 14  # the float arithmetic (docs/floats.md)
    assert floats & functions >= set("exp exp2 exp10 log log2 log10 sin cos tan asin acos atan atan2 tanh erf".split())


def test_get_unknown_names_close_matches() -> None:
    with pytest.raises(KeyError) as caught:
        ops.get("primitive.math.ad")
    message = str(caught.value)
    assert message.startswith("unknown op `primitive.math.ad`; did you mean")
    assert "`primitive.math.add`" in message
    with pytest.raises(KeyError, match="unknown op `zzz`") as caught:
        ops.get("zzz")
    assert "did you mean" not in str(caught.value)


def test_get_rejects_non_string_ids_cleanly() -> None:
    with pytest.raises(KeyError, match="unknown op `42`"):
        ops.get(42)  # type: ignore[arg-type]


def test_spec_surface_of_python_api() -> None:
    spec = ops.get("primitive.math.add")
    assert spec.id == "primitive.math.add" and spec.version == 1
    assert str(spec.signature) == "(u32, u32) -> u32"
    assert spec.category == "A" and spec.inlinable is True
    assert laws.Identity(0) in spec.laws
    assert spec.equivalence_classes and spec.boundaries
    assert spec.alternates == ()


def test_the_twelve_laws_are_frozen_hashable_values() -> None:
    values = [
        laws.Commutative(), laws.Associative(), laws.Identity(0), laws.SelfInverse(0),
        laws.Idempotent(), laws.Absorbing(0), laws.Involution(),
        laws.DeMorgan("primitive.bitwise.and", "primitive.bitwise.or"), laws.Monotone(),
        laws.Bounded(0, 32), laws.Complement("primitive.bitwise.not", 0xFFFFFFFF),
        laws.DistributiveOver("primitive.math.add"),
    ]
    assert [type(v) for v in values] == list(laws.ALL_LAWS)
    assert len(set(values)) == 12
    assert laws.Identity(0) == laws.Identity(0) != laws.Identity(1)
    assert {v.name for v in values} == {cls.__name__ for cls in laws.ALL_LAWS}
    arities = {type(v).__name__: v.arity for v in values}
    assert {n for n, a in arities.items() if a == 1} == {
        "Involution", "DeMorgan", "Monotone", "Bounded", "Complement"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        laws.Identity(0).e = 1  # type: ignore[misc]
    assert str(laws.Identity(0xFFFFFFFF)) == "Identity(0xffffffff)"
    assert laws.DeMorgan("x.a", "x.b").referenced_ops() == ("x.a", "x.b")


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: laws.Identity(-1), ValueError),
        (lambda: laws.Identity(2**32), ValueError),
        (lambda: laws.Absorbing("0"), TypeError),
        (lambda: laws.SelfInverse(True), TypeError),
        (lambda: laws.Bounded(5, 1), ValueError),
        (lambda: laws.DistributiveOver(""), TypeError),
        (lambda: laws.DeMorgan("a.b", 3), TypeError),
        (lambda: laws.Complement("a.b", -2), ValueError),
    ],
)
def test_law_parameters_are_checked(make: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        make()  # type: ignore[operator]
