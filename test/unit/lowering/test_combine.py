"""Access combining (vyre/lowering/combine.py): four loads or stores of
consecutive words at a multiple of 4 become one guarded vec4 access. Which
accesses combine, what the WGSL looks like, and that the results are those of
the interpreter (the oracle) and of the uncombined lowering, on every length
around the vec4 boundaries (partial last vec4, buffers shorter than the
dispatch, empty buffers)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vyre.dialects import vyre as d
from vyre.ir import AtomicOp, BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.lowering.combine import combine_accesses
from vyre.lowering.options import LoweringOptions
from vyre.pipeline import prepare
from vyre.runtime.wgpu_backend import execute
from vyre.testing.backends import execute_interp

Q = E.var("q")


def _at(k: int) -> E:
    return E.add(Q, E.u32(k)) if k else Q


def _program(
    entry: list[N],
    *,
    dtype: DataType = DataType.U32,
    extra: list[BufferDecl] | None = None,
    name: str = "combine",
) -> Program:
    return Program(
        [BufferDecl.read("x", 0, dtype), BufferDecl.read_write("out", 1, dtype), *(extra or [])],
        (16, 1, 1),
        entry,
        name=name,
    )


def _sum_and_spread(dtype: DataType = DataType.U32, base: E | None = None) -> Program:
    """Invocation g reads x[8g .. 8g + 7] (two groups), sums them (wrapping) and
    stores out[8g + k] = x[8g + k] + sum (two groups); `s` is assigned between
    the stores' values and the stores."""
    value = lambda k: E.var(f"v{k}")  # noqa: E731
    word = lambda e: e if dtype is DataType.U32 else E.bitcast(DataType.U32, e)  # noqa: E731
    back = lambda e: e if dtype is DataType.U32 else E.bitcast(dtype, e)  # noqa: E731
    entry: list[N] = [N.let("q", base if base is not None else E.mul(E.gid_x(), E.u32(8))), N.let("s", E.u32(0))]
    entry += [N.let(f"v{k}", E.load("x", _at(k))) for k in (2, 0, 1, 3, 4, 5, 7, 6)]  # any order
    entry += [N.assign("s", E.add(E.var("s"), word(value(k)))) for k in range(8)]
    for k in range(8):
        entry.append(N.store("out", _at(k), back(E.add(word(value(k)), E.var("s")))))
        entry.append(N.assign("s", E.add(E.var("s"), E.u32(1))))
    return _program(entry, dtype=dtype, name=f"sum_spread_{dtype.value}")


def _kernel(program: Program) -> d.KernelOp:
    kernel = prepare(program).strict_module.body.block.first_op
    assert isinstance(kernel, d.KernelOp)
    return kernel


def _groups(program: Program) -> tuple[int, int]:
    combined = combine_accesses(_kernel(program))
    return (len({id(g) for g, _ in combined.loads.values()}), len({id(g) for g, _ in combined.stores.values()}))


def test_consecutive_words_at_a_multiple_of_four_combine() -> None:
    assert _groups(_sum_and_spread()) == (2, 2)
    assert _groups(_sum_and_spread(DataType.I32)) == (2, 2)
    assert _groups(_sum_and_spread(DataType.F32)) == (2, 2)
    # bases built from other locals, shifts, masks and sums of multiples of 4
    for base in (
        E.add(E.shl(E.gid_x(), E.u32(3)), E.u32(16)),
        E.bitand(E.gid_x(), E.u32(0xFFFF_FFF0)),
        E.sub(E.mul(E.u32(12), E.gid_x()), E.u32(4)),
    ):
        assert _groups(_sum_and_spread(base=base)) == (2, 2)


def test_indices_through_constant_locals_share_the_base() -> None:
    """`let i0 = q; let i1 = q + 1; let i2 = i1 + 1; ...`: one group."""
    entry: list[N] = [N.let("q", E.mul(E.gid_x(), E.u32(4))), N.let("i0", Q), N.let("i1", E.add(Q, E.u32(1)))]
    entry += [N.let("i2", E.add(E.var("i1"), E.u32(1))), N.let("i3", E.add(E.u32(2), E.var("i1")))]
    entry += [N.let(f"v{k}", E.load("x", E.var(f"i{k}"))) for k in range(4)]
    entry += [N.store("out", E.var(f"i{k}"), E.var(f"v{3 - k}")) for k in range(4)]
    assert _groups(_program(entry)) == (1, 1)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        # the base is not provably a multiple of 4
        ([N.let("q", E.mul(E.gid_x(), E.u32(6)))], "not a multiple of 4"),
        ([N.let("q", E.add(E.mul(E.gid_x(), E.u32(8)), E.u32(2)))], "offset by 2"),
        # the base local changes
        ([N.let("q", E.mul(E.gid_x(), E.u32(8))), N.assign("q", E.var("q"))], "assigned"),
    ],
)
def test_no_group_without_a_fixed_multiple_of_four(entry: list[N], reason: str) -> None:
    body = [*entry, *[N.store("out", _at(k), E.load("x", _at(k))) for k in range(4)]]
    assert _groups(_program(body)) == (0, 0), reason


def test_groups_need_all_four_lanes_in_one_block_and_a_clean_store_run() -> None:
    let_q = N.let("q", E.mul(E.gid_x(), E.u32(4)))
    three = [let_q, *[N.store("out", _at(k), E.load("x", _at(k))) for k in range(3)]]
    assert _groups(_program(three)) == (0, 0)
    split = [let_q, *[N.store("out", _at(k), E.u32(k)) for k in range(2)],
             N.if_(E.gid_x(), [N.store("out", _at(k), E.u32(k)) for k in range(2, 4)])]
    assert _groups(_program(split)) == (0, 0)
    for between in (
        N.barrier(),
        N.let("peek", E.load("out", E.u32(0))),
        N.if_(E.gid_x(), [N.return_()]),
        N.store("out", E.u32(0), E.u32(9)),
    ):
        body = [let_q, N.store("out", Q, E.u32(1)), between, *[N.store("out", _at(k), E.u32(k)) for k in range(1, 4)]]
        assert _groups(_program(body))[1] == 0, between
    twice = [let_q, *[N.store("out", _at(k), E.u32(k)) for k in (0, 1, 2, 3, 3)]]
    assert _groups(_program(twice))[1] == 0


def test_only_plain_one_word_buffers_combine() -> None:
    let_q = N.let("q", E.mul(E.gid_x(), E.u32(4)))
    loads = [N.let(f"v{k}", E.load("out", _at(k))) for k in range(4)]  # read_write: not combined
    assert _groups(_program([let_q, *loads, N.store("out", Q, E.var("v0"))])) == (0, 0)
    atomic = [let_q, *[N.store("out", _at(k), E.u32(k)) for k in range(4)],
              N.let("old", E.atomic(AtomicOp.ADD, "out", E.u32(0), E.u32(1)))]
    assert _groups(_program(atomic)) == (0, 0)
    for dtype in (DataType.BOOL, DataType.F16, DataType.U64):
        body = [let_q, *[N.let(f"v{k}", E.load("x", _at(k))) for k in range(4)]]
        assert _groups(_program([*body, N.store("out", E.u32(0), E.var("v0"))], dtype=dtype)) == (0, 0), dtype


def test_the_wgsl_has_guarded_vec4_accesses_and_the_option_turns_them_off(naga_accepts: Any) -> None:
    prepared = prepare(_sum_and_spread())
    wgsl = prepared.wgsl.wgsl
    assert "var<storage, read> x: array<vec4<u32>>;" in wgsl
    assert "var<storage, read_write> out: array<vec4<u32>>;" in wgsl
    assert wgsl.count("vyre_load4_x(q") == 2 and wgsl.count("vyre_store4_out(q") == 2
    assert "if (i + 3u < _vyre_meta.len_x) {" in wgsl
    naga_accepts(wgsl)
    plain = prepared.lowered_for(LoweringOptions(combine=False)).wgsl
    assert "vec4" not in plain and "vyre_load4" not in plain
    for dtype in (DataType.I32, DataType.F32):
        naga_accepts(prepare(_sum_and_spread(dtype)).wgsl.wgsl)
    with pytest.raises(TypeError, match="combine"):
        LoweringOptions(combine=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", [DataType.U32, DataType.I32, DataType.F32])
def test_combined_kernels_agree_with_the_interpreter(dtype: DataType, gpu_adapter: Any) -> None:
    """Every length 0..20 and around 64 for `x` and `out`, dispatches covering
    more or fewer elements than the buffers hold."""
    program = _sum_and_spread(dtype)
    prepared = prepare(program)
    rng = np.random.default_rng(5)
    cases = [(n, n, 1) for n in range(21)] + [(n, 20 - n, 2) for n in range(0, 21, 3)] + [
        (63, 64, 1), (64, 61, 1), (125, 128, 1), (128, 130, 2), (7, 100, 1), (100, 7, 1),
    ]
    for x_len, out_len, groups in cases:
        words = {
            "x": rng.integers(0, 2**32, x_len, dtype=np.uint32),
            "out": rng.integers(0, 2**32, out_len, dtype=np.uint32),
        }
        copy = lambda: {k: v.copy() for k, v in words.items()}  # noqa: E731
        want = execute_interp(program, copy(), (groups, 1, 1))
        got = execute(prepared, copy(), (groups, 1, 1))
        assert np.array_equal(got["out"], want["out"]), (dtype, x_len, out_len, groups)
