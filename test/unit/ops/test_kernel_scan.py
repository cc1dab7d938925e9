"""scan.prefix_sum_inclusive_u32 / _exclusive_u32 against numpy's cumsum in
uint64 reduced mod 2**32 (never the op's reference, never vyre code), on the
interpreter and on wgpu: lengths at every edge of the register block and of
its 2,048-word tiles, wrapping values, a block-sums scan over several rounds
(more than 2,048 blocks) on wgpu, and interpreter and lavapipe giving the
same bytes."""

from __future__ import annotations

import numpy as np
import pytest

from vyre import ops
from vyre.kernels.families import scan

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


def test_more_than_one_round_of_block_sums_on_wgpu() -> None:
    n = 2049 * BLOCK + 300  # 2,050 block sums: the offsets scan takes two rounds of 2,048
    x = np.random.default_rng(12).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    got = ops.evaluate("scan.prefix_sum_exclusive_u32", [x], backend="wgpu")
    assert np.array_equal(np.asarray(got, dtype=np.uint32), exclusive(x))
