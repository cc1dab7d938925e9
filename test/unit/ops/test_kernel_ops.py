"""Kernel ops (whole-buffer kernels): every op against numpy on the interpreter
and on wgpu, at the boundary lengths, on random and adversarial data; the
evaluate API (evaluate, evaluate_raw, evaluate_many, device buffers); errors.

The expected values are computed here with numpy directly (never the op's own
reference, never vyre code)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import vyre
from vyre import ops
from vyre.kernels.spec import BOUNDARY_LENGTHS, KernelSpec

pytestmark = pytest.mark.usefixtures("gpu_adapter")

NONE = 0xFFFF_FFFF
BACKENDS = ("interp", "wgpu")


def _u32(values: object) -> np.ndarray:
    return np.asarray(values, dtype=np.uint32)


def _first_index(x: np.ndarray, fn: Callable[[np.ndarray], int]) -> int:
    return int(fn(x)) if len(x) else NONE


ORACLES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "reductions.reduce_sum_u32": lambda x: _u32([int(x.astype(np.uint64).sum()) % 2**32]),
    "reductions.reduce_min_u32": lambda x: _u32([x.min() if len(x) else NONE]),
    "reductions.reduce_max_u32": lambda x: _u32([x.max() if len(x) else 0]),
    "reductions.argmin_u32": lambda x: _u32([_first_index(x, np.argmin)]),
    "reductions.argmax_u32": lambda x: _u32([_first_index(x, np.argmax)]),
    "reductions.reduce_count": lambda x: _u32([np.count_nonzero(x)]),
    "reductions.reduce_any": lambda x: _u32([np.any(x)]),
    "reductions.reduce_all": lambda x: _u32([np.all(x)]),
    "scan.prefix_sum_inclusive_u32": lambda x: (np.cumsum(x.astype(np.uint64)) % 2**32).astype(np.uint32),
    "scan.prefix_sum_exclusive_u32": lambda x: (
        (np.cumsum(x.astype(np.uint64)) - x.astype(np.uint64)) % 2**32
    ).astype(np.uint32),
}


def _data(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "random": rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),
        "sparse": (rng.random(n) < 0.1).astype(np.uint32) * rng.integers(1, 9, n).astype(np.uint32),
        "all 0xFFFFFFFF": np.full(n, NONE, dtype=np.uint32),
        "all zero": np.zeros(n, dtype=np.uint32),
        "sorted": np.sort(rng.integers(0, 1000, n).astype(np.uint32)),
        "reversed": np.sort(rng.integers(0, 1000, n).astype(np.uint32))[::-1].copy(),
    }


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", sorted(ORACLES))
def test_integer_kernel_ops_match_numpy(op_id: str, backend: str) -> None:
    oracle = ORACLES[op_id]
    lengths = BOUNDARY_LENGTHS + ((70_001, 600_000) if backend == "wgpu" else ())
    for n in lengths:
        for label, x in _data(n, n).items():
            got = ops.evaluate(op_id, [x], backend=backend)
            expected = oracle(x)
            assert got.dtype == np.uint32, op_id
            assert got.tobytes() == expected.tobytes(), f"{op_id} n={n} {label}: {got[:8]} != {expected[:8]}"


def test_argmin_ties_go_to_the_first_occurrence() -> None:
    x = np.full(10_000, 7, dtype=np.uint32)
    x[[4321, 9000, 5000]] = 3
    for backend in BACKENDS:
        assert ops.evaluate("reductions.argmin_u32", [x], backend=backend)[0] == 4321
        assert ops.evaluate("reductions.argmax_u32", [x], backend=backend)[0] == 0


# ---------------------------------------------------------------------------
# F32 sums
# ---------------------------------------------------------------------------


def _f32_add(a: np.float32, b: np.float32) -> np.float32:
    with np.errstate(all="ignore"):
        total = np.float32(a) + np.float32(b)
    return np.uint32(0x7FC0_0000).view(np.float32) if np.isnan(total) else total


def strict_sum(x: np.ndarray) -> np.float32:
    """Strictly left to right: ((a0 + a1) + a2) + ..., one rounding per addition."""
    if len(x) == 0:
        return np.float32(0.0)
    acc = x[0]
    for value in x[1:]:
        acc = _f32_add(acc, value)
    return acc


def tree_sum(x: np.ndarray) -> np.float32:
    """The canonical tree: split at the largest power of two below n."""
    if len(x) == 0:
        return np.float32(0.0)
    if len(x) == 1:
        return x[0]
    mid = 1 << ((len(x) - 1).bit_length() - 1)
    return _f32_add(tree_sum(x[:mid]), tree_sum(x[mid:]))


def _floats(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return {
        "normal": rng.standard_normal(n).astype(np.float32),
        "cancelling": (rng.standard_normal(n) * 1e30).astype(np.float32)
        * np.where(np.arange(n) % 2, 1, -1).astype(np.float32),
        "subnormal": (bits & np.uint32(0x807F_FFFF)).view(np.float32),
        "any bits": bits.view(np.float32),
        "wide range": (rng.standard_normal(n) * 10.0 ** rng.integers(-38, 38, n)).astype(np.float32),
    }


SUMS = {"reductions.f32_sum_strict": strict_sum, "reductions.f32_sum_tree": tree_sum}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", sorted(SUMS))
def test_f32_sums_are_bit_exact(op_id: str, backend: str) -> None:
    oracle = SUMS[op_id]
    for n in (0, 1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1023, 1024, 1025, 2049, 5000):
        for label, x in _floats(n, n).items():
            got = ops.evaluate(op_id, [x], backend=backend)
            expected = np.array([oracle(x)], dtype=np.float32)
            assert got.dtype == np.float32
            assert got.view(np.uint32).tolist() == expected.view(np.uint32).tolist(), (
                f"{op_id} n={n} {label}"
            )


@pytest.mark.parametrize("op_id", sorted(SUMS))
def test_f32_sums_on_large_inputs(op_id: str) -> None:
    """Past a tile of tiles (tree: three passes) and past lavapipe's per-invocation
    loop limit (strict: several dispatches carry the running sum)."""
    n = 1_100_000 if op_id.endswith("tree") else 200_000
    x = _floats(n, 7)["wide range"]
    got = ops.evaluate(op_id, [x], backend="wgpu")
    if op_id.endswith("strict"):
        with np.errstate(all="ignore"):
            expected = np.add.accumulate(x, dtype=np.float32)[-1:]
    else:
        expected = np.array([tree_sum(x)], dtype=np.float32)
    assert got.view(np.uint32).tolist() == expected.view(np.uint32).tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_f32_sum_special_values(backend: str) -> None:
    def bits(*words: int) -> np.ndarray:
        return np.array(words, dtype=np.uint32).view(np.float32)

    cases = [
        (bits(0x7F80_0001), 0x7F80_0001),  # n == 1: a0 unchanged, signalling payload kept
        (bits(0x8000_0000, 0x8000_0000), 0x8000_0000),  # -0 + -0 = -0
        (bits(0x8000_0000, 0x0000_0000), 0x0000_0000),  # -0 + +0 = +0
        (bits(0x7F80_0000, 0xFF80_0000), 0x7FC0_0000),  # inf - inf: canonical NaN
        (bits(0x7F7F_FFFF, 0x7F7F_FFFF), 0x7F80_0000),  # overflow to inf
        (bits(0x0000_0001, 0x0000_0001, 0x0000_0001), 0x0000_0003),  # subnormals kept
        (bits(0xFFC1_2345, 0x3F80_0000), 0x7FC0_0000),  # NaN operand: canonical
    ]
    for op_id in SUMS:
        for x, expected in cases:
            got = ops.evaluate(op_id, [x], backend=backend)
            assert int(got.view(np.uint32)[0]) == expected, (op_id, x.view(np.uint32))


def test_f32_sum_orders_differ_where_they_should() -> None:
    x = np.array([1e8, 1.0, -1e8, 1.0], dtype=np.float32)
    # strict: ((1e8 + 1) - 1e8) + 1 = 0 + 1 = 1; tree: (1e8 + 1) + (-1e8 + 1) = 0
    assert ops.evaluate("reductions.f32_sum_strict", [x], backend="wgpu")[0] == 1.0
    assert ops.evaluate("reductions.f32_sum_tree", [x], backend="wgpu")[0] == 0.0


# ---------------------------------------------------------------------------
# The evaluate API
# ---------------------------------------------------------------------------


def test_specs_describe_the_kernel_ops() -> None:
    kernel_ids = set(ops.kernel_op_ids())
    assert set(ORACLES) | set(SUMS) <= kernel_ids
    assert kernel_ids <= set(ops.known_op_ids())
    spec = ops.get("scan.prefix_sum_inclusive_u32")
    assert isinstance(spec, KernelSpec)
    assert str(spec.signature) == "(u32[]) -> u32[]"
    assert str(ops.get("reductions.reduce_any").signature) == "(u32[]) -> bool"
    assert not spec.inlinable and spec.kind == "scan-based"


def test_evaluate_many_and_raw() -> None:
    rng = np.random.default_rng(3)
    inputs = [rng.integers(0, 100, n).astype(np.uint32) for n in (0, 1, 1000, 5000, 3)]
    for backend in BACKENDS:
        sums = ops.evaluate_many("reductions.reduce_sum_u32", [[x] for x in inputs], backend=backend)
        assert [int(s[0]) for s in sums] == [int(x.sum()) for x in inputs]
        scans = ops.evaluate_many("scan.prefix_sum_exclusive_u32", [[x] for x in inputs], backend=backend)
        for x, s in zip(inputs, scans):
            assert s.tolist() == (np.cumsum(x) - x).tolist()
    raw = ops.evaluate_raw("reductions.argmax_u32", [np.array([1, 5, 5], dtype=np.uint32)])
    assert list(raw) == ["out"] and raw["out"].tolist() == [1]


def test_device_buffers_are_inputs_without_upload() -> None:
    x = np.arange(10_000, dtype=np.uint32)
    device = vyre.to_device(x)
    assert ops.evaluate("reductions.reduce_max_u32", [device])[0] == 9_999
    assert ops.evaluate("scan.prefix_sum_inclusive_u32", [device])[-1] == int(x.sum())
    assert ops.evaluate("reductions.reduce_min_u32", [device], backend="interp")[0] == 0
    np.testing.assert_array_equal(device.numpy(), x)  # inputs are never written


def test_python_lists_and_other_integer_dtypes_are_accepted() -> None:
    assert ops.evaluate("reductions.reduce_sum_u32", [[1, 2, 3]])[0] == 6
    assert ops.evaluate("reductions.reduce_sum_u32", [np.array([1, 2], dtype=np.int64)])[0] == 3
    assert ops.evaluate("reductions.f32_sum_tree", [np.array([0.5, 0.25], dtype=np.float32)])[0] == 0.75


@pytest.mark.parametrize(
    ("op_id", "args", "error", "needle"),
    [
        ("reductions.reduce_sum_u32", np.arange(3, dtype=np.uint32), TypeError, "must be a list of 1"),
        ("reductions.reduce_sum_u32", [], ValueError, "takes 1 input"),
        ("reductions.reduce_sum_u32", [np.array([-1])], ValueError, "holds -1, outside"),
        ("reductions.reduce_sum_u32", [np.array([2**32])], ValueError, "outside"),
        ("reductions.reduce_sum_u32", [np.array([1.5])], TypeError, "must be an integer array"),
        ("reductions.reduce_sum_u32", [np.zeros((2, 2), dtype=np.uint32)], TypeError, "1-D"),
        ("reductions.reduce_sum_u32", [b"abc"], TypeError, "must be a 1-D array"),
        ("reductions.f32_sum_tree", [np.array([1, 2])], TypeError, "must be a float array"),
        (
            "reductions.reduce_sum_u32",
            [vyre.to_device(np.zeros(2, dtype=np.float32))],
            TypeError,
            "DeviceBuffer of f32",
        ),
    ],
)
def test_bad_arguments_are_clear_errors(op_id: str, args: object, error: type, needle: str) -> None:
    with pytest.raises(error, match=needle):
        ops.evaluate(op_id, args)  # type: ignore[arg-type]


def test_kernel_and_scalar_ids_are_told_apart() -> None:
    with pytest.raises(KeyError, match="is a scalar op, not a kernel op"):
        ops.evaluate_raw("primitive.math.add", [[1], [2]])
    with pytest.raises(KeyError, match="unknown op"):
        ops.evaluate("reductions.reduce_sum_u33", [[1]])
    with pytest.raises(ValueError, match="unknown backend"):
        ops.evaluate("reductions.reduce_sum_u32", [[1]], backend="cuda")
    with pytest.raises(TypeError, match="list of argument lists"):
        ops.evaluate_many("reductions.reduce_sum_u32", np.zeros(3))  # type: ignore[arg-type]


def test_a_kernel_op_cannot_be_called_inside_a_program() -> None:
    from vyre.ir import DataType, Expr as E, Node as N, Program

    program = Program([], (1, 1, 1), [N.let("r", E.call("reductions.reduce_sum_u32", [E.u32(1)]))])
    assert [d.rule for d in vyre.validate(program)] == ["V020"]
    del DataType


def test_builtin_kernel_ops_cannot_be_unregistered() -> None:
    with pytest.raises(ValueError, match="built-in op"):
        ops.unregister("scan.prefix_sum_inclusive_u32")


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_of_block_sums_over_several_rounds(backend: str) -> None:
    """Step 2 of the scans (one workgroup, 2,048 sums per round with a carry)
    past one round: reached by inputs above 32 Mi elements, run here directly."""
    from vyre.kernels.families.scan import scan_sums_program

    rng = np.random.default_rng(5)
    sums = rng.integers(0, 2**32, 5000, dtype=np.uint64).astype(np.uint32)
    params = np.array([5000, 3], dtype=np.uint32)
    out = vyre.run(
        scan_sums_program(), {"sums": sums, "params": params}, dispatch=(1, 1, 1), backend=backend
    )["sums"]
    expected = (np.cumsum(sums.astype(np.uint64)) - sums.astype(np.uint64)) % 2**32
    assert (out == expected.astype(np.uint32)).all()
