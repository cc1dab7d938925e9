"""scan.prefix_sum_inclusive_u32 / _exclusive_u32 against numpy's cumsum in
uint64 reduced mod 2**32 (never the op's reference, never vyre code), on the
interpreter and on wgpu: lengths at every edge of the register block and of
its 2,048-word tiles, wrapping values, 2,050 blocks on wgpu, both steps run
one by one with superblocks of every size (inclusive and exclusive), the plan's
parameters up to 2**32 - 1 elements, dispatches cut into slices as past 65,535
workgroups, and interpreter and lavapipe giving the same bytes."""

from __future__ import annotations

import numpy as np
import pytest

import vyre
from vyre import ops
from vyre.kernels.families import scan

from split_dispatch import run_split

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
BLOCK = scan.REGISTER_BLOCK
TILE = scan.TILE


def inclusive(x: np.ndarray) -> np.ndarray:
    return (np.cumsum(x.astype(np.uint64)) % 2**32).astype(np.uint32)


def exclusive(x: np.ndarray) -> np.ndarray:
    return ((np.cumsum(x.astype(np.uint64)) - x.astype(np.uint64)) % 2**32).astype(np.uint32)


def test_the_register_block_is_four_tiles() -> None:
    assert BLOCK == 4 * TILE == 8192


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_edge_of_blocks_and_tiles(backend: str) -> None:
    rng = np.random.default_rng(11)
    lengths = sorted(
        {1, 2, 7, 8, 9, TILE - 1, TILE, TILE + 1, 3 * TILE + 5, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK, 3 * BLOCK + TILE + 3}
    )
    inputs = [rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) for n in lengths]
    got_in = ops.evaluate_many("scan.prefix_sum_inclusive_u32", [[x] for x in inputs], backend=backend)
    got_ex = ops.evaluate_many("scan.prefix_sum_exclusive_u32", [[x] for x in inputs], backend=backend)
    for x, i, e in zip(inputs, got_in, got_ex):
        assert np.array_equal(np.asarray(i, dtype=np.uint32), inclusive(x)), len(x)
        assert np.array_equal(np.asarray(e, dtype=np.uint32), exclusive(x)), len(x)


def test_wrapping_sums_and_interpreter_equals_lavapipe() -> None:
    x = np.full(5 * BLOCK + 17, 0xFFFF_FFFF, dtype=np.uint32)
    x[::3] = 0x8000_0001
    results = [ops.evaluate("scan.prefix_sum_inclusive_u32", [x], backend=b) for b in BACKENDS]
    assert np.array_equal(np.asarray(results[0], dtype=np.uint32), inclusive(x))
    assert np.asarray(results[0], dtype=np.uint32).tobytes() == np.asarray(results[1], dtype=np.uint32).tobytes()


def test_many_blocks_on_wgpu() -> None:
    n = 2049 * BLOCK + 300  # 2,050 block sums
    x = np.random.default_rng(12).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    got = ops.evaluate("scan.prefix_sum_exclusive_u32", [x], backend="wgpu")
    assert np.array_equal(np.asarray(got, dtype=np.uint32), exclusive(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_block_sums_with_superblocks(backend: str) -> None:
    x = np.random.default_rng(13).integers(0, 2**32, 3 * BLOCK + 1000, dtype=np.uint64).astype(np.uint32)
    out = vyre.run(
        scan.block_sums_program(scan.REGISTER_SUBTILES, superblocks=True),
        {"x": x, "sums": np.zeros(4, np.uint32), "supers": np.zeros(1, np.uint32), "params": np.array([64], np.uint32)},
        dispatch=(4, 1, 1),
        backend=backend,
    )
    expected = [int(x[b * BLOCK : (b + 1) * BLOCK].astype(np.uint64).sum()) % 2**32 for b in range(4)]
    assert out["sums"].tolist() == expected
    assert out["supers"].tolist() == [sum(expected) % 2**32]


def _run_gathered(x: np.ndarray, per_super: int, backend: str, exclusive_form: bool = False) -> np.ndarray:
    """Step 1 then step 2 of the scan run directly with superblocks of `per_super` blocks."""
    blocks = -(-len(x) // BLOCK)
    supers = -(-blocks // per_super)
    step1 = vyre.run(
        scan.block_sums_program(scan.REGISTER_SUBTILES, superblocks=True),
        {
            "x": x,
            "sums": np.zeros(blocks, np.uint32),
            "supers": np.zeros(supers, np.uint32),
            "params": np.array([per_super], np.uint32),
        },
        dispatch=(blocks, 1, 1),
        backend=backend,
    )
    expected_sums = [int(x[b * BLOCK : (b + 1) * BLOCK].astype(np.uint64).sum()) % 2**32 for b in range(blocks)]
    assert step1["sums"].tolist() == expected_sums
    expected_supers = [sum(expected_sums[k * per_super : (k + 1) * per_super]) % 2**32 for k in range(supers)]
    assert step1["supers"].tolist() == expected_supers
    step3 = vyre.run(
        scan.scan_registers_program(exclusive_form, scan.REGISTER_SUBTILES),
        {
            "x": x,
            "out": np.zeros(len(x), np.uint32),
            "sums": step1["sums"],
            "supers": step1["supers"],
            "params": np.array([per_super, -(-per_super // 256)], np.uint32),
        },
        dispatch=(blocks, 1, 1),
        backend=backend,
    )
    return step3["out"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("per_super", [1, 3, 257])
def test_superblocks_of_every_size(backend: str, per_super: int) -> None:
    """Superblocks of 1 block, of 3 (several superblocks, a partial last one)
    and of 257 (two rounds of the gather loop): what inputs of 64 Mi to 4 Gi
    elements would take, at sizes lavapipe binds."""
    blocks = 3 * per_super + 2 if per_super < 100 else per_super + 5
    x = np.random.default_rng(per_super).integers(0, 2**32, blocks * BLOCK - 77, dtype=np.uint64).astype(np.uint32)
    assert np.array_equal(_run_gathered(x, per_super, backend), inclusive(x))
    assert np.array_equal(_run_gathered(x, per_super, backend, exclusive_form=True), exclusive(x))


def test_superblock_size() -> None:
    assert scan.superblock(1) == scan.superblock(16384) == 64
    assert scan.superblock(16385) == 65 and -(-16385 // 65) <= 256
    assert scan.superblock(2**32 // BLOCK) == 2048


@pytest.mark.parametrize(
    ("n", "per_super", "rounds", "supers"),
    [
        (1, 64, 1, 1),
        (64 * BLOCK, 64, 1, 1),
        (64 * BLOCK + 1, 64, 1, 2),
        (16384 * BLOCK, 64, 1, 256),
        (16385 * BLOCK, 65, 1, 253),
        (2**32 - 1, 2048, 8, 256),
    ],
)
def test_the_plan_at_every_scale(n: int, per_super: int, rounds: int, supers: int) -> None:
    """The plan's buffers and parameters up to 2**32 - 1 elements (sizes no
    test device binds): superblocks of SB blocks, at most 256 of them, and the
    gather's ceil(SB / 256) rounds."""
    from vyre.kernels.spec import KernelSpec

    for op in ("scan.prefix_sum_inclusive_u32", "scan.prefix_sum_exclusive_u32"):
        spec = ops.get(op)
        assert isinstance(spec, KernelSpec)
        plan = spec.plan({"x": n}, {})
        blocks = -(-n // BLOCK)
        buffers = {b.name: b for b in plan.buffers}
        assert buffers["out"].count == n and buffers["sums"].count == blocks and buffers["supers"].count == supers
        params = buffers["params"].words
        assert params is not None and params.tolist() == [per_super, rounds]
        assert [step.dispatch for step in plan.steps] == [(blocks, 1, 1)] * 2
    assert scan.superblock(-(-n // BLOCK)) == per_super


@pytest.mark.parametrize("op", ["scan.prefix_sum_inclusive_u32", "scan.prefix_sum_exclusive_u32"])
def test_dispatches_cut_into_slices(op: str) -> None:
    """Both steps with every dispatch cut into slices of 3 workgroups (the
    runtime's splitting past 65,535 a dispatch, at a size lavapipe runs): the
    workgroup ids of later slices carry their offset into the block, superblock
    and gather indices."""
    x = np.random.default_rng(14).integers(0, 2**32, 70 * BLOCK + 5, dtype=np.uint64).astype(np.uint32)
    state = run_split(op, [x], limit=3)
    expected = inclusive(x) if op.endswith("inclusive_u32") else exclusive(x)
    assert np.array_equal(state["out"][: len(x)], expected)
