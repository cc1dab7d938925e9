"""The fuzz targets' registry and the float-functions, tensor and tensor-text
fuzzers (test/support/float_fuzz.py, tensor_fuzz.py, tensor_text_fuzz.py): their inputs are deterministic, they cover
what they claim, their oracles agree with the interpreter on their own and
catch planted wrong results."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import float_fuzz
import float_oracles
import numpy as np
import pytest
import tensor_fuzz

from vyre.dialects import vyre as d
from vyre.ir import DataType
from vyre.runtime.interp import floats
from vyre.testing.fuzz import FUZZERS, OracleFailure, get_fuzzer
from vyre.testing.fuzz.base import IN_CHECKOUT, TARGETS, hang_seconds, weight
from vyre.testing.fuzz.harness import CORPUS
from vyre.testing.random_programs import (
    FLOAT_EDGES,
    FLOAT_FUNCTIONS,
    FLOAT_OP_VARIANTS,
    FUNCTION_EDGES,
    GeneratorConfig,
    random_case,
)

FORMATS = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}


def test_the_registry_names_every_target_once_with_a_corpus_folder() -> None:
    names = [t.name for t in TARGETS]
    assert len(names) == len(set(names)) and list(FUZZERS) == names
    assert {"float-functions", "tensor", "tensor-text"} <= set(names)
    assert set(IN_CHECKOUT) == {"kernel", "float-functions", "tensor", "tensor-text", "u128"}
    for target in TARGETS:
        assert (CORPUS / target.name).is_dir(), target.name
        assert weight(target.name) >= 1 and hang_seconds(target.name) >= 10
    assert weight("no-such-target") == 1 and hang_seconds("no-such-target") == 10


# -- float-functions -------------------------------------------------------------


def test_the_featured_ops_are_every_strict_float_op_of_the_dialect() -> None:
    assert {op for op, _ in FLOAT_OP_VARIANTS} == set(d.STRICT_FLOAT_OPS)
    assert len(FLOAT_OP_VARIANTS) == len(d.STRICT_FLOAT_OPS) - 1 + len(d.FLOAT_PREDICATES)
    assert set(d.ops_of(d.FloatFunctionOp)) < set(FLOAT_FUNCTIONS)
    assert d.FAtan2Op in FLOAT_FUNCTIONS and d.FAddOp not in FLOAT_FUNCTIONS


def test_every_strict_float_op_has_an_independent_oracle() -> None:
    """A function added to the dialect needs an MPFR spelling (float_oracles.MPFR_NAMES)
    when gmpy2 does not name it alike."""
    missing = [op.SHORT_NAME for op in d.STRICT_FLOAT_OPS if not float_oracles.has_oracle(op.SHORT_NAME)]
    assert not missing


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_oracles_agree_with_the_interpreter(fmt: str) -> None:
    """Two independent implementations (numpy/exact/MPFR here, float64 with a
    guard band in the interpreter) on special values and random patterns."""
    rng = random.Random(fmt)
    dtype = FORMATS[fmt]
    pool = FLOAT_EDGES[dtype] + FUNCTION_EDGES[dtype]
    for op, variant in FLOAT_OP_VARIANTS:
        columns = float_fuzz.spot_operands(rng, op.ARITY, fmt, 48)
        columns[0][: len(pool)] = list(pool)[:48]
        want = [float_oracles.evaluate(op.SHORT_NAME, variant, fmt, *row) for row in zip(*columns)]
        got = floats.evaluate(op, fmt, *(np.array(c, dtype=np.uint32) for c in columns), variant=variant)
        assert [int(v) for v in got] == want, (op.SHORT_NAME, variant)


def test_mpfr_gives_the_known_values() -> None:
    assert float_oracles.evaluate("sin", "", "f32", 0x7F7F_FFFF) == 0xBF05_99B3  # sin(FLT_MAX)
    assert float_oracles.evaluate("atan2", "", "f32", 0x8000_0000, 0x8000_0000) == 0xC049_0FDB  # -pi
    assert float_oracles.evaluate("log", "", "f16", 0x8000) == 0xFC00  # log(-0) = -inf
    assert float_oracles.evaluate("exp", "", "bf16", 0x42B2) == 0x7F80  # overflow
    assert float_oracles.evaluate("fma", "", "f32", 0x3F80_0000, 0x8000_0000, 0x8000_0000) == 0x8000_0000


def test_float_inputs_are_deterministic_and_feature_every_op_in_every_format() -> None:
    fuzzer = float_fuzz.FloatFunctionsFuzzer(3)
    n = len(FLOAT_OP_VARIANTS) * 3
    featured = Counter((json.loads(fuzzer.generate(i))["featured"], json.loads(fuzzer.generate(i))["format"]) for i in range(0, n, 7))
    assert len(featured) == len(range(0, n, 7))
    assert fuzzer.generate(5) == fuzzer.generate(5) != fuzzer.generate(6)
    assert float_fuzz.FloatFunctionsFuzzer(4).generate(5) != fuzzer.generate(5)
    seen = {(json.loads(fuzzer.generate(i))["featured"], json.loads(fuzzer.generate(i))["format"]) for i in range(n)}
    assert len(seen) == n  # every op in every format once per round


def test_float_focused_programs_are_floats_with_few_function_calls() -> None:
    ops: Counter[str] = Counter()
    for seed in range(40):
        featured = (FLOAT_OP_VARIANTS[seed % len(FLOAT_OP_VARIANTS)],)
        case = random_case(seed, GeneratorConfig(float_focus=True, featured=featured, max_functions=2))
        calls = [op for op in case.program.kernel.walk() if type(op) in FLOAT_FUNCTIONS]
        assert len(calls) <= 2
        ops.update(op.name for op in case.program.kernel.walk() if isinstance(op, d.FloatOp))
        assert {b.dtype for b in case.program.buffers} >= {DataType.F32, DataType.F16, DataType.BF16}
    assert len(ops) >= 25


def test_the_spot_check_catches_a_wrong_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    columns = [[0x3F80_0000, 0x4000_0000], [0x3F80_0000, 0x3F80_0000]]
    float_fuzz.check_spot("fadd", "f32", columns)
    monkeypatch.setitem(float_oracles.ARITHMETIC, "add", lambda fmt, xs: 0)
    with pytest.raises(OracleFailure, match="fadd f32: the interpreter differs from the exact oracle"):
        float_fuzz.check_spot("fadd", "f32", columns)


def test_a_float_case_shrinks_to_its_failing_element(monkeypatch: pytest.MonkeyPatch) -> None:
    fuzzer = float_fuzz.FloatFunctionsFuzzer(0)
    case = json.loads(fuzzer.generate(0))
    wrong = case["spot"]["operands"][0][17]

    def still_fails(data: bytes) -> bool:
        spot = json.loads(data).get("spot")
        return bool(spot) and wrong in spot["operands"][0]

    small = json.loads(fuzzer.shrink(fuzzer.generate(0), still_fails))
    assert small["program"] is None and small["spot"]["operands"][0] == [wrong]


def test_float_cases_pass_on_the_interpreter_and_the_gpu(gpu_adapter: Any) -> None:
    fuzzer = get_fuzzer("float-functions", 11)
    for index in (0, 28, 70):  # fadd f32, fsin f32, fsub bf16
        fuzzer.check(fuzzer.generate(index))


# -- tensor ------------------------------------------------------------------------


def test_tensor_cases_are_deterministic_and_cover_every_op() -> None:
    fuzzer = tensor_fuzz.TensorFuzzer(0)
    assert fuzzer.generate(3) == fuzzer.generate(3) != fuzzer.generate(4)
    ops: Counter[str] = Counter()
    dims: Counter[str] = Counter()
    for index in range(150):
        case = json.loads(fuzzer.generate(index))
        ops.update(s["op"] for s in case["steps"])
        ops["invalid"] += bool(case["invalid"])
        for step in case["steps"]:
            if step["op"] == "input":
                dims.update("dynamic" if isinstance(x, str) else str(x) for x in step["dims"])
            ops.update(f"{step['op']}.{step.get('order') or step.get('accumulate')}" for _ in [0] if step["op"] in ("sum", "matmul"))
    wanted = {"input", "transpose", "index", "broadcast_to", "reshape", "add", "sub", "mul", "div", "maximum",
              "minimum", "neg", "abs", "sqrt", "exp", "log", "tanh", "erf", "softmax", "layer_norm", "gelu",
              "attention", "sum", "max", "min", "matmul", "invalid", "sum.exact",
              "sum.sequential", "sum.tree", "matmul.exact", "matmul.sequential"}  # fmt: skip
    assert wanted <= set(ops), wanted - set(ops)
    assert dims["0"] and dims["1"] and dims["dynamic"]


def test_a_tensor_case_passes_and_a_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    fuzzer = tensor_fuzz.TensorFuzzer(0)
    data = fuzzer.generate(1)
    fuzzer.check(data)
    case = json.loads(data)
    first = case["steps"][0]
    assert first["op"] == "input"
    original = tensor_fuzz._user_array  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(tensor_fuzz, "_user_array", lambda value: np.zeros_like(original(value)))
    found = [k for k in range(1, 40) if _fails(fuzzer, fuzzer.generate(k))]
    assert found  # zeroed arguments give other results than the oracle's


def _fails(fuzzer: tensor_fuzz.TensorFuzzer, data: bytes) -> bool:
    try:
        fuzzer.check(data)
    except OracleFailure:
        return True
    return False


def test_tensor_cases_pass_on_the_gpu(gpu_adapter: Any) -> None:
    fuzzer = get_fuzzer("tensor", 5)
    for index in range(4):
        fuzzer.check(fuzzer.generate(index))


def test_prune_keeps_the_steps_an_output_needs() -> None:
    case = json.loads(tensor_fuzz.TensorFuzzer(0).generate(2))
    small = tensor_fuzz.prune(case, case["outputs"][:1])
    assert len(small["steps"]) <= len(case["steps"]) and len(small["outputs"]) >= 1
    tensor_fuzz.check_tensor_case(json.dumps(small).encode())


# -- tensor-text -------------------------------------------------------------------


def test_tensor_text_inputs_are_mutated_graphs_and_pass() -> None:
    fuzzer = get_fuzzer("tensor-text", 0)
    texts = [fuzzer.generate(k).decode("utf-8", "replace") for k in range(30)]
    assert fuzzer.generate(7) == fuzzer.generate(7)
    assert sum("vtensor." in t for t in texts) >= 25
    for k in range(30):
        fuzzer.check(fuzzer.generate(k))
