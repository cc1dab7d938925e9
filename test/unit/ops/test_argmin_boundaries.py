"""argmin/argmax at every boundary of their two passes, against numpy.

Pass 1 runs one workgroup per partial, each invocation walking rounds of
ARG_UNROLL strided elements (stride = groups x WORKGROUP), the full rounds
unguarded and one guarded round for the rest; pass 2 reduces the partials in
one workgroup. The sizes here sit on each side of every edge of that structure
(a workgroup, the grid reaching MAX_GROUPS workgroups, a round, two rounds)
and the data puts equal extremes in different invocations, workgroups and
rounds, where the first occurrence is not the first one any invocation meets.

The op level uses the real plan; the program level runs the two programs over
a grid of 1-3 workgroups (the stride follows the length of `pv`), which reaches
several rounds at a few thousand elements. Expected values come from
`np.argmin`/`np.argmax` only (first occurrence; NONE when empty)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest

import vyre
from vyre import ops
from vyre.kernels.families.common import MAX_GROUPS, WORKGROUP as WG
from vyre.kernels.families.reductions import ARG_UNROLL as ROUND
from vyre.kernels.families.reductions import arg_final_program, arg_partials_program

pytestmark = pytest.mark.usefixtures("gpu_adapter")

NONE = 0xFFFF_FFFF
BACKENDS = ("interp", "wgpu")
GRID = MAX_GROUPS * WG
"""The stride of pass 1 once the grid reaches its MAX_GROUPS workgroups (the
sizes below come from the structure's constants; the answers only from numpy)."""
OPS: dict[str, Callable[[np.ndarray], int]] = {
    "reductions.argmin_u32": lambda x: int(np.argmin(x)),
    "reductions.argmax_u32": lambda x: int(np.argmax(x)),
}


def _expected(op_id: str, x: np.ndarray) -> int:
    return OPS[op_id](x) if len(x) else NONE


def _tie_sets(n: int, stride: int) -> list[list[int]]:
    """Positions given the extreme value: the first occurrence in a later
    workgroup than another (stride + 5 is met by workgroup 0, 300 by workgroup
    1), in another invocation of the same workgroup, met by one invocation
    before equal ones in its later rounds, and on the edges of a stride and of
    a round."""
    sets = [
        [stride + 5, 300],
        [stride + 1, 7],
        [2 * ROUND * stride + 3, ROUND * stride + 3, stride + 3],
        [stride - 1, stride, ROUND * stride - 1, ROUND * stride, n - 1],
        [ROUND * stride, 2 * ROUND * stride - 1, n - 1],
    ]
    return [[p for p in positions if 0 <= p < n] for positions in sets]


def _cases(n: int, stride: int, seed: int) -> Iterator[tuple[str, np.ndarray]]:
    """Arrays for argmin (argmax gets their complements: same positions)."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(10, 2**32, n, dtype=np.uint64).astype(np.uint32)
    yield "random", noise
    for value in (NONE, 0, 7):
        yield f"all {value}", np.full(n, value, dtype=np.uint32)
    for where in (0, n - 1, n // 2):
        x = noise.copy()
        if n:
            x[where] = 3
        yield f"unique extreme at {where}", x
    for k, positions in enumerate(_tie_sets(n, stride)):
        x = noise.copy()
        x[positions] = 3
        yield f"ties {k} at {positions}", x
    for other in (5, NONE - 1):
        x = np.full(n, NONE, dtype=np.uint32)
        x[[p for p in (n - 1, stride + 1) if 0 <= p < n]] = other
        yield f"all the start value but two {other}", x


def _check(got: int, op_id: str, x: np.ndarray, label: str) -> None:
    assert got == _expected(op_id, x), f"{op_id} n={len(x)} {label}: {got} != {_expected(op_id, x)}"


def _data(op_id: str, x: np.ndarray) -> np.ndarray:
    return x if op_id.endswith("argmin_u32") else ~x


OP_SIZES = (
    0, 1, 2, ROUND - 1, ROUND, ROUND + 1, WG - 1, WG, WG + 1, 2 * WG - 1, 2 * WG, 2 * WG + 1,
    (MAX_GROUPS - 1) * WG, (MAX_GROUPS - 1) * WG + 1,
)
"""Within one workgroup, one or two, and where the grid reaches MAX_GROUPS."""
OP_SIZES_LARGE = (GRID + 1, ROUND * GRID + 1, 2 * ROUND * GRID + 3 * GRID + 7)
"""Past the grid's cap: one element more than a stride, one full round and one
element of the guarded round, two full rounds and a partial one."""
FEW = ("all the start value but two 4294967294", "ties 0", "ties 2", "ties 4")
"""The cases run at sizes of millions (each takes the interpreter ~0.3 s; the
program-level test below runs every case at every round boundary)."""


def _op_cases(n: int, stride: int) -> Iterator[tuple[str, np.ndarray]]:
    for label, x in _cases(n, stride, n):
        if n <= 4096 or label.startswith(FEW) or label == f"unique extreme at {n - 1}":
            yield label, x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", sorted(OPS))
def test_op_at_the_workgroup_and_grid_boundaries(op_id: str, backend: str) -> None:
    for n in OP_SIZES:
        stride = min(MAX_GROUPS, max(1, -(-n // WG))) * WG
        for label, x in _op_cases(n, stride):
            x = _data(op_id, x)
            _check(int(ops.evaluate(op_id, [x], backend=backend)[0]), op_id, x, label)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", sorted(OPS))
def test_op_at_the_round_boundaries_of_the_full_grid(op_id: str, backend: str) -> None:
    for n in OP_SIZES_LARGE:
        for label, x in _op_cases(n, GRID):
            x = _data(op_id, x)
            _check(int(ops.evaluate(op_id, [x], backend=backend)[0]), op_id, x, label)


def _two_passes(kind: str, x: np.ndarray, groups: int, backend: str) -> int:
    """The op's two programs over `groups` workgroups (stride groups x WG)."""
    partials = vyre.run(
        arg_partials_program(kind), {"x": x}, dispatch=(groups, 1, 1),
        outputs={"pv": groups, "pi": groups}, backend=backend,
    )
    final = vyre.run(
        arg_final_program(kind), {"pv": partials["pv"], "pi": partials["pi"]}, dispatch=(1, 1, 1),
        outputs={"out": 1}, backend=backend,
    )
    return int(final["out"][0])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("groups", [1, 3])
def test_programs_at_the_round_boundaries_of_a_small_grid(groups: int, backend: str) -> None:
    stride = groups * WG
    sizes = sorted({
        m * stride + d
        for m in (1, ROUND - 1, ROUND, ROUND + 1, 2 * ROUND + 3)
        for d in (-1, 0, 1)
    })
    for n in sizes:
        for label, x in _cases(n, stride, n + groups):
            for kind, op_id in (("argmin", "reductions.argmin_u32"), ("argmax", "reductions.argmax_u32")):
                data = _data(op_id, x)
                _check(_two_passes(kind, data, groups, backend), op_id, data, f"{groups} groups, {label}")


def test_the_final_pass_takes_the_least_index_among_equal_partials() -> None:
    """Partials not in index order, the extreme at several of them, one
    partial per position of a full round of pass 2."""
    rng = np.random.default_rng(5)
    count = MAX_GROUPS
    pv = rng.integers(10, 1000, count).astype(np.uint32)
    pi = rng.permutation(count * 97)[:count].astype(np.uint32)
    at = [0, WG - 1, WG, 1000, count - 1]
    pv[at] = 2
    for backend in BACKENDS:
        for kind, values in (("argmin", pv), ("argmax", ~pv)):
            program = arg_final_program(kind)
            out = vyre.run(program, {"pv": values, "pi": pi}, dispatch=(1, 1, 1), outputs={"out": 1}, backend=backend)
            assert int(out["out"][0]) == int(pi[at].min()), (kind, backend)
