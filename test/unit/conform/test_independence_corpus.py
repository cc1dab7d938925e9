"""The independence gate and the regression corpus."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from vyre import conform, ops
from vyre.conform import IndependenceError, check_oracle, corpus, same_function
from vyre.conform.independence import runs_function
from vyre.ir import Expr as E

from .conftest import masked_shl

FAST = {"strength": "fast", "witnesses": 1000, "corpus": None}


# -- independence gate -----------------------------------------------------------------


def test_same_function_sees_through_wrappers() -> None:
    spec = ops.get("primitive.math.add")
    ref = spec.reference
    assert same_function(ref, ref)
    assert same_function(functools.partial(ref), ref)
    assert same_function(functools.wraps(ref)(lambda *a: ref(*a)), ref)
    assert not same_function(lambda a, b: a + b, ref)


def test_runs_function_detects_calls_of_the_reference() -> None:
    ref = ops.get("primitive.math.add").reference
    assert runs_function(lambda: ref(np.array([1], np.uint32), np.array([2], np.uint32)), ref)
    nested = lambda: [ref(np.array([3], np.uint32), np.array([4], np.uint32))]  # noqa: E731
    assert runs_function(nested, ref)
    assert not runs_function(lambda: np.add(1, 2), ref)
    # a C callable is never reported (the backends use numpy themselves)
    assert not runs_function(lambda: np.bitwise_xor(1, 2), np.bitwise_xor)


def test_check_oracle_rejects_the_reference_and_its_callers() -> None:
    spec = ops.get("primitive.math.add")
    probe_args = [np.array([1, 2], np.uint32)] * 2
    with pytest.raises(IndependenceError, match="own CPU reference"):
        check_oracle(spec.id, spec.reference, spec.reference, lambda: spec.reference(*probe_args))
    calling = lambda a, b: spec.reference(a, b)  # noqa: E731
    with pytest.raises(IndependenceError, match="calls the op's own CPU reference"):
        check_oracle(spec.id, calling, spec.reference, lambda: calling(*probe_args))
    honest = lambda a, b: (a.astype(np.uint64) + b) & 0xFFFF_FFFF  # noqa: E731
    check_oracle(spec.id, honest, spec.reference, lambda: honest(*probe_args))


def test_certify_records_rejected_oracles_and_uses_accepted_ones() -> None:
    add = ops.get("primitive.math.add")
    cert = conform.certify(
        backend="interp",
        ops=["primitive.math.add", "primitive.bitwise.xor"],
        checks=["oracle"],
        oracles={"primitive.math.add": add.reference, "primitive.bitwise.xor": lambda a, b: a ^ b},
        **FAST,
    )
    gate = {(e["op"], e["check"]): e["verdict"] for e in cert.data["independence"]}
    assert gate == {("primitive.math.add", "oracle"): "rejected"}
    assert cert.data["checks"]["primitive.bitwise.xor"]["oracle"]["verdict"] == "passed"
    assert "oracle" not in cert.data["checks"]["primitive.math.add"]


def test_a_wrong_oracle_is_reported() -> None:
    cert = conform.certify(
        backend="interp", ops=["primitive.bitwise.xor"], checks=["oracle"],
        oracles={"primitive.bitwise.xor": lambda a, b: a | b}, **FAST,
    )
    (failure,) = cert.failures
    assert failure.check == "oracle" and failure.counterexample == (1, 1)


def test_parity_on_the_reference_interpreter_is_rejected() -> None:
    cert = conform.certify(backend="interp", ops=["primitive.bitwise.xor"], **FAST)
    assert {"op": "*", "check": "parity", "verdict": "rejected"}.items() <= cert.data["independence"][0].items()
    assert "parity" not in cert.data["checks"]["primitive.bitwise.xor"]


class ReferenceRunningInterp(conform.InterpBackend):
    """A backend that 'evaluates' every op by calling its CPU reference."""

    def run(self, program, words, dispatch):
        if "out" not in words:
            return super().run(program, words, dispatch)
        spec = ops.get(self.op_id)
        columns = [words[f"x{j}"] for j in range(spec.signature.arity)]
        return {"out": np.asarray(spec.reference(*columns), dtype=np.uint32)}


def test_reference_check_rejected_when_the_backend_runs_the_reference() -> None:
    backend = ReferenceRunningInterp()
    backend.op_id = "primitive.bitwise.xor"
    cert = conform.certify(backend=backend, ops=[backend.op_id], checks=["reference"], **FAST)
    (entry,) = cert.data["independence"]
    assert entry["check"] == "reference" and "tautological" in entry["reason"]
    assert "reference" not in cert.data["checks"][backend.op_id]


# -- regression corpus -------------------------------------------------------------------


def test_corpus_is_append_only_and_deduplicated(tmp_path) -> None:
    path = tmp_path / "regressions.jsonl"
    first = corpus.Entry(op="a.b", check="reference", target="backend", inputs=(1, 16))
    assert corpus.append(path, [first]) == 1
    before = path.read_text()
    again = corpus.Entry(op="a.b", check="reference", target="backend", inputs=(1, 16), found="later")
    second = corpus.Entry(op="a.b", check="law:Commutative", law="Commutative", target="reference", inputs=(0, 1))
    assert corpus.append(path, [again, second]) == 1
    after = path.read_text()
    assert after.startswith(before) and len(after.splitlines()) == 2
    assert [e.inputs for e in corpus.load(path)] == [(1, 16), (0, 1)]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ('{"op": "a.b", "check": "reference", "target": "backend"}', "missing field"),
        ('{"op": "a.b", "check": "bogus", "target": "backend", "inputs": [1]}', "unknown check"),
        ('{"op": "a.b", "check": "reference", "target": "backend", "inputs": [-1]}', "u32"),
        ('{"op": "a.b", "check": "law:Identity", "target": "backend", "inputs": [1]}', "law"),
    ],
)
def test_malformed_corpus_lines_are_named(tmp_path, line: str, message: str) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("# comment\n" + line + "\n")
    with pytest.raises(corpus.CorpusError, match=message) as error:
        corpus.load(path)
    assert f"{path}:2" in str(error.value)


def test_found_counterexamples_are_recorded_and_replayed(register, tmp_path) -> None:
    path = tmp_path / "regressions.jsonl"
    buggy = register("shl", 2, masked_shl, lambda a, b: E.shl(a, E.bitand(b, E.u32(15))))
    cert = conform.certify(backend="interp", ops=[buggy], strength="fast", witnesses=1000, corpus=path, record=True)
    assert cert.data["run"]["corpus_added"] == 1
    (line,) = path.read_text().splitlines()
    assert json.loads(line)["inputs"] == [1, 16] and json.loads(line)["check"] == "reference"
    # replayed on the next run: the corpus entry fails again
    again = conform.certify(backend="interp", ops=[buggy], strength="fast", witnesses=1000, corpus=path)
    assert again.data["regression_count"] == 1
    assert again.data["checks"][buggy]["regression"] == {"replayed": 1, "violations": 1}
    assert len(path.read_text().splitlines()) == 1  # not recorded twice (record=False)


def test_replayed_entries_of_a_fixed_op_pass(tmp_path) -> None:
    path = tmp_path / "regressions.jsonl"
    corpus.append(
        path,
        [
            corpus.Entry(op="primitive.bitwise.shl", check="reference", target="backend", inputs=(1, 16)),
            corpus.Entry(op="primitive.bitwise.xor", check="law:SelfInverse", law="SelfInverse(0x0)",
                         target="backend", inputs=(0xDEADBEEF,)),
            corpus.Entry(op="primitive.bitwise.xor", check="law:Idempotent", law="Idempotent",
                         target="backend", inputs=(3,)),  # not a law of xor: not replayed
        ],
    )
    cert = conform.certify(
        backend="interp", ops=["primitive.bitwise.shl", "primitive.bitwise.xor"],
        checks=["regression"], corpus=path, strength="fast",
    )
    assert cert.passed and cert.data["regression_count"] == 2
