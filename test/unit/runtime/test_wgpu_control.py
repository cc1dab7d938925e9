"""wgpu backend: ids in three dimensions, If/Loop/Return/Select/Block, locals and
the order in which reads and writes happen."""

from __future__ import annotations

from typing import Any

import numpy as np

import vyre
from vyre.ir import AtomicOp, BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.testing.backends import execute_wgpu as execute

M32 = 0xFFFF_FFFF
GID = E.gid_x()


def _u32(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.uint32)


def test_ids_in_three_dimensions(gpu_adapter: Any) -> None:
    size = (4, 2, 3)
    groups = (3, 2, 2)
    extent = [s * g for s, g in zip(size, groups)]
    total = extent[0] * extent[1] * extent[2]
    flat = E.add(
        E.invocation_id(0),
        E.mul(E.u32(extent[0]), E.add(E.invocation_id(1), E.mul(E.u32(extent[1]), E.invocation_id(2)))),
    )
    ids = [E.invocation_id(a) for a in range(3)] + [E.workgroup_id(a) for a in range(3)] + [E.local_id(a) for a in range(3)]
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=size,
        entry=[N.let("f", flat)] + [
            N.store("out", E.add(E.mul(E.var("f"), E.u32(9)), E.u32(k)), expr) for k, expr in enumerate(ids)
        ],
    )  # fmt: skip
    out = execute(program, {"out": _u32(np.full(9 * total, M32))}, groups)["out"].reshape(total, 9)
    want = np.zeros((total, 9), dtype=np.uint32)
    for z in range(extent[2]):
        for y in range(extent[1]):
            for x in range(extent[0]):
                g = (x, y, z)
                row = x + extent[0] * (y + extent[1] * z)
                want[row] = [*g, *(c // s for c, s in zip(g, size)), *(c % s for c, s in zip(g, size))]
    np.testing.assert_array_equal(out, want)


def test_if_else_nested_and_select(gpu_adapter: Any) -> None:
    n = 16
    x = E.load("a", GID)
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(n, 1, 1),
        entry=[
            N.let("x", x),
            N.if_(E.bitand(E.var("x"), E.u32(1)), [
                N.if_(E.gt(E.var("x"), E.u32(8)), [N.store("out", GID, E.u32(1))],
                      [N.store("out", GID, E.u32(2))]),
            ], [
                N.store("out", GID, E.select(E.cast(DataType.BOOL, E.bitand(E.var("x"), E.u32(2))),
                                             E.u32(3), E.u32(4))),
            ]),
        ],
    )  # fmt: skip
    values = list(range(n))
    out = execute(program, {"a": _u32(values), "out": _u32([0] * n)}, (1, 1, 1))["out"].tolist()
    assert out == [(1 if v > 8 else 2) if v & 1 else (3 if v & 2 else 4) for v in values]


def test_select_evaluates_both_arms(gpu_adapter: Any) -> None:
    program = Program(
        buffers=[BufferDecl.read_write("acc", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(0), E.select(E.load("acc", E.u32(1)),
                                              E.atomic(AtomicOp.ADD, "acc", E.u32(0), E.u32(1)),
                                              E.atomic(AtomicOp.ADD, "acc", E.u32(0), E.u32(10)))),
        ],
    )  # fmt: skip
    out = execute(program, {"acc": _u32([100, 0]), "out": _u32([0])}, (1, 1, 1))
    assert out["acc"].tolist() == [111, 0]
    assert out["out"].tolist() == [101]  # the false arm's pre-value: 100 + 1


def test_loop_sums_half_open_ranges_with_bounds_evaluated_once(gpu_adapter: Any) -> None:
    program = Program(
        buffers=[BufferDecl.read("bounds", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("lo", E.load("bounds", E.mul(GID, E.u32(2)))),
            N.let("hi", E.load("bounds", E.add(E.mul(GID, E.u32(2)), E.u32(1)))),
            N.let("sum", E.u32(0)),
            N.let("count", E.u32(0)),
            N.loop("i", E.var("lo"), E.var("hi"), [
                N.assign("sum", E.add(E.var("sum"), E.var("i"))),
                N.assign("count", E.add(E.var("count"), E.u32(1))),
                N.assign("hi", E.add(E.var("hi"), E.u32(1))),  # must not extend the loop
            ]),
            N.store("out", E.mul(GID, E.u32(2)), E.var("sum")),
            N.store("out", E.add(E.mul(GID, E.u32(2)), E.u32(1)), E.var("count")),
        ],
    )  # fmt: skip
    bounds = [3, 7, 5, 5, 9, 2, M32 - 2, M32]
    out = execute(program, {"bounds": _u32(bounds), "out": _u32([0] * 8)}, (1, 1, 1))["out"].tolist()
    assert out == [3 + 4 + 5 + 6, 4, 0, 0, 0, 0, (2 * M32 - 3) % 2**32, 2]


def test_return_ends_the_invocation_anywhere(gpu_adapter: Any) -> None:
    n = 8
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(n, 1, 1),
        entry=[
            N.loop("i", E.u32(0), E.u32(10), [
                N.store("out", GID, E.var("i")),
                N.if_(E.eq(E.var("i"), GID), [N.block([N.return_()])]),
            ]),
            N.store("out", GID, E.u32(999)),
        ],
    )  # fmt: skip
    out = execute(program, {"out": _u32([M32] * n)}, (1, 1, 1))["out"].tolist()
    assert out == list(range(n))


def test_reads_keep_the_value_they_had_before_later_writes(gpu_adapter: Any) -> None:
    """A var read before an assignment, and a load before an atomic or a store to
    the same buffer, see the old values even when used after the write."""
    program = vyre.parse_ir(
        """
        vyre.kernel @k workgroup_size(1, 1, 1) buffers(@buf : read_write u32 binding(0)) {
          %c0 = vyre.lit_u32 0
          %c1 = vyre.lit_u32 1
          %c2 = vyre.lit_u32 2
          %c3 = vyre.lit_u32 3
          %c5 = vyre.lit_u32 5
          vyre.let "x" = %c1
          %old_x = vyre.var "x" : u32
          vyre.assign "x" = %c5
          %old_buf0 = vyre.load @buf[%c0] : u32
          vyre.store @buf[%c0] = %c5
          vyre.block {
            vyre.store @buf[%c1] = %old_x
            vyre.store @buf[%c2] = %old_buf0
          }
          %new_x = vyre.var "x" : u32
          %old_buf3 = vyre.load @buf[%c3] : u32
          %pre = vyre.atomic add @buf[%c3], %c5
          %sum = vyre.binop add %old_buf3, %pre
          %both = vyre.binop add %sum, %new_x
          vyre.store @buf[%c3] = %both
        }
        """
    )
    out = execute(program, {"buf": _u32([40, 0, 0, 100])}, (1, 1, 1))["buf"].tolist()
    assert out == [5, 1, 40, 100 + 100 + 5]


def test_same_name_in_sibling_scopes_and_loop_variables(gpu_adapter: Any) -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.block([N.let("t", E.u32(3)), N.store("out", E.u32(0), E.var("t"))]),
            N.block([N.let("t", E.i32(-3)), N.store("out", E.u32(1), E.cast(DataType.U32, E.var("t")))]),
            N.loop("k", E.u32(0), E.u32(2), [N.store("out", E.add(E.u32(2), E.var("k")), E.var("k"))]),
            N.loop("k", E.u32(5), E.u32(6), [N.store("out", E.u32(4), E.var("k"))]),
        ],
    )
    out = execute(program, {"out": _u32([9] * 5)}, (1, 1, 1))["out"].tolist()
    assert out == [3, 2**32 - 3, 0, 1, 5]
