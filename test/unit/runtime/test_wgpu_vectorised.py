"""Vectorised maps on the wgpu backend: byte-identical to the scalar lowering and
to the interpreter (the oracle), on random map programs and on every boundary
of the fast path and the scalar tail."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vyre
from vyre import ops
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.pipeline import prepare
from vyre.runtime.wgpu_backend import execute, lowering_for
from vyre.runtime.wgpu_device import gpu_device
from vyre.testing.backends import execute_interp
from vyre.testing.random_maps import random_map_case

I = E.var("i")


def _ran_vectorised(
    program: Program,
    words: dict[str, np.ndarray],
    dispatch: tuple[int, int, int],
    lengths: dict[str, int] | None = None,
) -> bool:
    """Whether the runtime runs this call through the vectorised lowering."""
    return lowering_for(prepare(program), words, dispatch, lengths=lengths).vector is not None


FOUND = (470,)
"""Seeds local campaigns found mismatches at (kept forever). 470: an output
shorter than n, overwritten then read: the scalar tail's lane variable, a
`var` without initializer in a loop body, kept the previous lane's value
(naga does not zero it again per iteration); now every lane variable is
initialised."""


@pytest.mark.parametrize("seed", [*range(12), *FOUND])
def test_random_maps_agree_with_the_scalar_lowering_and_the_interpreter(seed: int, gpu_adapter: Any) -> None:
    case = random_map_case(seed)
    prepared = prepare(case.program)
    words = lambda: {k: v.copy() for k, v in case.words.items()}  # noqa: E731
    want = execute_interp(case.program, words(), case.dispatch, lengths=case.lengths)
    vectorised = execute(prepared, words(), case.dispatch, lengths=case.lengths)
    scalar = execute(prepared, words(), case.dispatch, lengths=case.lengths, vectorize=False)
    if gpu_device().loop_limit is None or not any(op.name == "vyre.loop" for op in prepared.kernel.walk()):
        assert _ran_vectorised(case.program, words(), case.dispatch, case.lengths), case.describe()
    for name, expected in want.items():
        assert np.array_equal(vectorised[name], expected), f"vectorised `{name}` differs\n{case.describe()}"
        assert np.array_equal(scalar[name], expected), f"scalar `{name}` differs\n{case.describe()}"


KINDS = {
    DataType.U32: np.uint32,
    DataType.I32: np.int32,
    DataType.BOOL: np.uint32,
    DataType.F32: np.float32,
    DataType.F16: np.float16,
}


def _copy_plus_one(dtype: DataType) -> Program:
    """`out[i] = f(a[i])` for a buffer pair of one type; `mark[i] = 1` shows
    which indices ran; `a` may be shorter than the dispatch (reads 0 past it)."""
    value: E
    if dtype in (DataType.F32, DataType.F16, DataType.BF16):
        value = E.fneg(E.load("a", I))
    elif dtype is DataType.BOOL:
        value = E.cast(DataType.BOOL, E.bitxor(E.cast(DataType.U32, E.load("a", I)), E.u32(1)))
    elif dtype is DataType.I32:
        value = E.cast(DataType.I32, E.add(E.cast(DataType.U32, E.load("a", I)), E.u32(1)))
    else:
        value = E.add(E.load("a", I), E.u32(1))
    return Program(
        [
            BufferDecl.read("a", 0, dtype),
            BufferDecl.read_write("out", 1, dtype),
            BufferDecl.read_write("mark", 2, DataType.U32),
        ],
        (32, 1, 1),
        [N.let("i", E.gid_x()), N.store("out", I, value), N.store("mark", I, E.u32(1))],
        name=f"copy_{dtype.value}",
    )


@pytest.mark.parametrize("dtype", list(KINDS) + [DataType.BF16])
def test_every_length_around_the_vector_boundaries(dtype: DataType, gpu_adapter: Any) -> None:
    """Lengths 0..17 and around 64 and 512 for the input, the output and the
    dispatch, against the interpreter: full vectors, the partial last vector,
    lengths not a multiple of 4 or 8, empty buffers, odd F16/BF16 lengths
    (whose padding half must survive)."""
    program = _copy_plus_one(dtype)
    rng = np.random.default_rng(7)
    cases = [(n, n, n) for n in range(18)] + [
        (63, 64, 64), (64, 63, 96), (511, 512, 513), (513, 511, 512), (0, 9, 64), (9, 0, 17),
        # the second chunk of an invocation starts 1,024 elements after its first
        # (vector.py); a workgroup covers 2,048
        (1023, 1024, 1025), (1025, 1030, 1024), (1027, 1027, 2048),
        (2047, 2048, 2049), (2049, 2047, 2048), (3000, 4100, 4103),
    ]
    for a_len, out_len, invocations in cases:
        groups = max(1, -(-invocations // 32))
        half = dtype in (DataType.F16, DataType.BF16)
        words = {
            "a": rng.integers(0, 2**32, (a_len + 1) // 2 if half else a_len, dtype=np.uint32),
            "out": rng.integers(0, 2**32, (out_len + 1) // 2 if half else out_len, dtype=np.uint32),
            "mark": np.zeros(out_len, dtype=np.uint32),
        }
        lengths = {"a": a_len, "out": out_len} if half else None
        copy = lambda: {k: v.copy() for k, v in words.items()}  # noqa: E731
        want = execute_interp(program, copy(), (groups, 1, 1), lengths=lengths)
        got = execute(prepare(program), copy(), (groups, 1, 1), lengths=lengths)
        assert _ran_vectorised(program, copy(), (groups, 1, 1), lengths)
        for name in want:
            assert np.array_equal(got[name], want[name]), (dtype, a_len, out_len, invocations, name)


def test_evaluate_runs_vectorised_and_exact(gpu_adapter: Any) -> None:
    rng = np.random.default_rng(3)
    for n in (1, 7, 8, 9, 511, 4099):
        a = rng.integers(0, 2**32, n, dtype=np.uint32)
        b = rng.integers(0, 2**32, n, dtype=np.uint32)
        assert np.array_equal(ops.evaluate("primitive.math.add", [a, b]), a + b)
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        got = np.asarray(ops.evaluate("primitive.float.add", [x, y]), dtype=np.float32)
        assert np.array_equal(got.view(np.uint32), (x + y).view(np.uint32))


def test_a_dispatch_that_repeats_indices_runs_the_program_as_written(gpu_adapter: Any) -> None:
    """`out[gid.x] += 1` with dispatch y = 3: each index is run 3 times, which
    no coarsening may merge (here: read-modify-write by three invocations is a
    race in the program, so the check is only that the scalar kernel runs)."""
    program = Program(
        [BufferDecl.read_write("out", 0, DataType.U32)],
        (16, 1, 1),
        [N.let("i", E.gid_x()), N.store("out", I, E.u32(5))],
        name="repeat",
    )
    words = {"out": np.zeros(40, dtype=np.uint32)}
    assert not _ran_vectorised(program, words, (3, 3, 1))
    assert _ran_vectorised(program, words, (3, 1, 1))
    got = vyre.run(program, {}, dispatch=(3, 3, 1), outputs={"out": 40})["out"]
    assert list(got) == [5] * 40


def test_split_dispatches_of_a_vectorised_kernel(gpu_adapter: Any) -> None:
    """More real workgroups than the split limit: the slices' offsets must give
    every element once."""
    program = _copy_plus_one(DataType.U32)
    n = 9000  # 5 real workgroups of 2,048 elements, in slices of 3
    words = {
        "a": np.arange(n, dtype=np.uint32),
        "out": np.zeros(n, dtype=np.uint32),
        "mark": np.zeros(n, dtype=np.uint32),
    }
    got = execute(prepare(program), words, (-(-n // 32), 1, 1), max_workgroups_per_axis=3)
    assert np.array_equal(got["out"], np.arange(n, dtype=np.uint32) + 1)
    assert np.array_equal(got["mark"], np.ones(n, dtype=np.uint32))


def test_fresh_outputs_read_zero_wherever_the_kernel_does_not_write(gpu_adapter: Any) -> None:
    """A fresh output is left uncleared only when the vectorised map writes
    every element of it before reading it. A run shape keeps its buffers
    between calls, so each case runs twice with different inputs: what the
    first call wrote must not show through in the second."""
    overwrite = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (64, 1, 1),
        [N.let("i", E.gid_x()), N.store("out", I, E.load("a", I))],
        name="overwrite",
    )
    conditional = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (64, 1, 1),
        [N.let("i", E.gid_x()), N.if_(E.bitand(E.load("a", I), E.u32(1)), [N.store("out", I, E.load("a", I))])],
        name="conditional",
    )
    first = np.arange(1, 301, dtype=np.uint32) | 1
    second = np.arange(0, 600, 2, dtype=np.uint32)
    for program, size, groups in ((overwrite, 256, 4), (overwrite, 300, 4), (conditional, 256, 4)):
        for a in (first, second):
            got = vyre.run(program, {"a": a}, dispatch=(groups, 1, 1), outputs={"out": size})["out"]
            want = vyre.run(program, {"a": a}, dispatch=(groups, 1, 1), outputs={"out": size}, backend="interp")["out"]
            assert np.array_equal(got, want), (program.name, size)


@pytest.mark.parametrize("period", [4, 12, 1024, "and 7"])
def test_a_periodic_operand_agrees_with_the_interpreter_at_every_boundary(period: int | str, gpu_adapter: Any) -> None:
    """`out[i] = a[i] + b[i mod C]` (a broadcast operand, read as vec4 chunks at
    `chunk mod C / 4` on the fast path): n around the vector boundaries, `b`
    at, above and below C (shorter: every lane guarded, reading 0 past its end)."""
    c = 8 if period == "and 7" else int(period)
    index = E.bitand(I, E.u32(7)) if period == "and 7" else E.mod(I, E.u32(c))
    program = Program(
        [
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.read("b", 2, DataType.U32),
        ],
        (32, 1, 1),
        [N.let("i", E.gid_x()), N.let("j", index), N.store("out", I, E.add(E.load("a", I), E.load("b", E.var("j"))))],
        name=f"periodic_{c}",
    )
    lowered = prepare(program).lowered_for(vyre.lowering.options.LoweringOptions(vectorize=True))
    assert lowered.vector is not None and lowered.vector.periodic == (("b", c),)
    rng = np.random.default_rng(c)
    for n in (1, 7, 8, 9, 63, 2048, 2049, 4099):
        for b_len in sorted({c, c + 5, max(c - 1, 0), 3 * c}):
            groups = -(-n // 32)
            words = {
                "a": rng.integers(0, 2**32, n, dtype=np.uint32),
                "out": np.zeros(n, dtype=np.uint32),
                "b": rng.integers(0, 2**32, b_len, dtype=np.uint32),
            }
            copy = lambda: {k: v.copy() for k, v in words.items()}  # noqa: E731
            want = execute_interp(program, copy(), (groups, 1, 1))["out"]
            assert _ran_vectorised(program, copy(), (groups, 1, 1))
            got = execute(prepare(program), copy(), (groups, 1, 1))["out"]
            assert np.array_equal(got, want), (c, n, b_len)
            b = np.concatenate([words["b"], np.zeros(max(0, c - b_len), dtype=np.uint32)])
            assert np.array_equal(want, words["a"] + b[np.arange(n) % c]), (c, n, b_len)  # numpy, independently
