"""The vectorised lowering of elementwise maps (vyre/lowering/map_shape.py,
vector.py): which kernels are maps, what the WGSL looks like, and that naga
accepts it for every element type. The results are compared with the
interpreter and the scalar lowering in test/unit/runtime/test_wgpu_vectorised.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vyre.dialects import vyre as d
from vyre.ir import AtomicOp, BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.lowering.map_shape import MapShape, map_shape
from vyre.lowering.options import LoweringOptions
from vyre.lowering.vector import VectorLayout
from vyre.pipeline import prepare
from vyre.ops.registry import get
from vyre.ops.spec import OpSpec
from vyre.kernels.evaluate import elementwise_program
from vyre.testing.random_maps import random_map_case

Check = Callable[[str], None]
I = E.var("i")


def _kernel(program: Program) -> d.KernelOp:
    kernel = prepare(program).strict_module.body.block.first_op
    assert isinstance(kernel, d.KernelOp)
    return kernel


def _program(entry: list[N], *, out: DataType = DataType.U32, extra: list[BufferDecl] = ()) -> Program:  # type: ignore[assignment]
    return Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, out), *extra],
        (64, 1, 1),
        entry,
        name="m",
    )


def _shape(program: Program) -> MapShape | str:
    return map_shape(_kernel(program))


def test_the_evaluate_program_is_a_two_d_map() -> None:
    spec = get("primitive.math.add")
    assert isinstance(spec, OpSpec)
    shape = _shape(elementwise_program(spec, 100))
    assert isinstance(shape, MapShape)
    assert shape.row == 6400 and shape.vector_buffers == ("in0", "in1", "out")
    assert shape.written == {"out"} and shape.overwritten == {"out"}


def test_one_d_maps_with_the_id_or_a_let() -> None:
    direct = _program([N.store("out", E.gid_x(), E.load("a", E.gid_x()))])
    through = _program([N.let("i", E.gid_x()), N.let("j", I), N.store("out", E.var("j"), E.load("a", I))])
    for program in (direct, through):
        shape = _shape(program)
        assert isinstance(shape, MapShape) and shape.row is None
        assert shape.vector_buffers == ("a", "out")


def test_the_index_may_be_used_as_a_value_and_read_only_buffers_gathered() -> None:
    program = _program(
        [
            N.let("i", E.gid_x()),
            N.store("out", I, E.add(I, E.load("a", E.add(I, E.u32(1))))),
        ]
    )
    shape = _shape(program)
    assert isinstance(shape, MapShape)
    assert shape.vector_buffers == ("out",)  # `a` is only gathered


@pytest.mark.parametrize(
    ("entry", "extra", "reason"),
    [
        ([N.let("i", E.gid_x()), N.store("out", E.add(I, E.u32(1)), E.u32(1))], [], "read_write buffer `out` at another index"),
        ([N.let("i", E.gid_x()), N.store("out", I, E.load("out", E.u32(0)))], [], "read_write buffer `out` at another index"),
        ([N.let("i", E.gid_x()), N.barrier(), N.store("out", I, E.u32(1))], [], "vyre.barrier"),
        ([N.let("i", E.gid_x()), N.store("out", I, E.workgroup_id(0))], [], "vyre.workgroup_id"),
        ([N.let("i", E.gid_x()), N.store("out", I, E.local_id(0))], [], "vyre.local_id"),
        ([N.let("i", E.gid_x()), N.store("out", I, E.invocation_id(1))], [], "invocation_id y or z"),
        (
            [N.let("i", E.add(E.mul(E.invocation_id(1), E.u32(64)), E.invocation_id(0))), N.store("out", I, E.gid_x())],
            [],
            "outside its index expression",
        ),
        (
            [N.let("i", E.gid_x()), N.let("x", E.atomic(AtomicOp.ADD, "out", I, E.u32(1)))],
            [],
            "vyre.atomic",
        ),
        ([N.let("i", E.gid_x()), N.store("out", I, E.u32(1))], [BufferDecl.workgroup("t", 4, DataType.U32)], "workgroup memory"),
        ([N.store("out", E.u32(0), E.u32(1))], [], "never reads invocation_id"),
        (
            [N.let("i", E.gid_x()), N.assign("i", E.u32(3)), N.store("out", I, E.u32(1))],
            [],
            "read_write buffer `out` at another index",
        ),
    ],
)
def test_what_is_not_a_map(entry: list[N], extra: list[BufferDecl], reason: str) -> None:
    shape = _shape(_program(entry, extra=extra))
    assert isinstance(shape, str) and reason in shape


def test_a_u64_output_is_not_vectorised() -> None:
    shape = _shape(_program([N.let("i", E.gid_x()), N.store("out", I, E.cast(DataType.U64, E.load("a", I)))], out=DataType.U64))
    assert isinstance(shape, str) and "u64" in shape


@pytest.mark.parametrize(
    ("entry", "overwritten"),
    [
        ([N.let("i", E.gid_x()), N.store("out", I, E.load("a", I))], True),
        ([N.let("i", E.gid_x()), N.store("out", I, E.add(E.load("out", I), E.u32(1)))], False),
        ([N.let("i", E.gid_x()), N.if_(E.load("a", I), [N.return_()]), N.store("out", I, E.u32(1))], False),
        ([N.let("i", E.gid_x()), N.if_(E.load("a", I), [N.store("out", I, E.u32(2))])], False),
        ([N.let("i", E.gid_x()), N.store("out", I, E.u32(1)), N.if_(E.load("a", I), [N.return_()])], True),
    ],
)
def test_overwritten_outputs_are_not_read(entry: list[N], overwritten: bool) -> None:
    program = _program(entry)
    shape = _shape(program)
    assert isinstance(shape, MapShape) and (shape.overwritten == {"out"}) is overwritten
    wgsl = prepare(program).lowered_for(LoweringOptions(vectorize=True)).wgsl
    fast_path = wgsl.split("vector_end >> 2u)) {", 1)[1].split("return;", 1)[0]
    assert ("out[chunk]" in fast_path.split("vyre_lane(")[0]) is not overwritten


def test_virtual_counts_cover_each_index_once() -> None:
    one_d = VectorLayout(None, (64, 1, 1), ("out",))
    assert one_d.virtual_count((3, 1, 1)) == 192
    assert one_d.virtual_count((3, 2, 1)) is None  # each index twice
    assert VectorLayout(None, (8, 2, 1), ("out",)).virtual_count((3, 1, 1)) is None
    two_d = VectorLayout(640, (64, 1, 1), ("out",))
    assert two_d.virtual_count((10, 7, 1)) == 4480
    assert two_d.virtual_count((9, 7, 1)) is None  # row != groups_x * 64
    assert two_d.virtual_count((10, 7, 2)) is None
    assert VectorLayout(640, (64, 2, 1), ("out",)).virtual_count((10, 3, 1)) == 3840
    assert two_d.groups(4480) == 3  # 2,048 elements per workgroup
    assert two_d.groups(4096) == 2 and two_d.groups(4097) == 3


@pytest.mark.parametrize("dtype", [DataType.U32, DataType.I32, DataType.BOOL, DataType.F32, DataType.F16, DataType.BF16])
def test_vectorised_wgsl_is_accepted_for_every_element_type(dtype: DataType, naga_accepts: Check) -> None:
    program = Program(
        [BufferDecl.read("a", 0, dtype), BufferDecl.read_write("out", 1, dtype), BufferDecl.read_write("acc", 2, dtype)],
        (32, 1, 1),
        [
            N.let("i", E.gid_x()),
            N.store("out", I, E.load("a", I)),
            N.store("acc", I, E.load("out", I)),
            N.if_(E.lt(I, E.u32(5)), [N.store("acc", I, E.load("a", E.u32(0)))]),
        ],
        name="kinds",
    )
    lowered = prepare(program).lowered_for(LoweringOptions(vectorize=True))
    assert lowered.vector is not None and lowered.workgroup_size == (256, 1, 1)
    wgsl = lowered.wgsl
    element = {DataType.I32: "vec4<i32>", DataType.F16: "vec2<u32>", DataType.BF16: "vec2<u32>"}.get(dtype, "vec4<u32>")
    assert f"var<storage, read_write> out: array<{element}>;" in wgsl
    assert "atomic" not in wgsl  # F16/BF16 words are owned by one invocation
    assert "virtual_count: u32," in wgsl and "vector_end: u32," in wgsl
    naga_accepts(wgsl)


def test_random_maps_lower_and_are_accepted(naga_accepts: Check) -> None:
    for seed in range(6):
        case = random_map_case(seed)
        lowered = prepare(case.program).lowered_for(LoweringOptions(vectorize=True))
        assert lowered.vector is not None, case.describe()
        naga_accepts(lowered.wgsl)


def test_loops_are_not_vectorised_where_the_adapter_stops_them() -> None:
    program = _program(
        [
            N.let("i", E.gid_x()),
            N.let("s", E.u32(0)),
            N.loop("k", E.u32(0), E.load("a", I), [N.assign("s", E.add(E.var("s"), E.var("k")))]),
            N.store("out", I, E.var("s")),
        ]
    )
    prepared = prepare(program)
    assert prepared.lowered_for(LoweringOptions(vectorize=True)).vector is not None
    capped = prepared.lowered_for(LoweringOptions(vectorize=True, loop_limit=65_535))
    assert capped.vector is None and capped.status_binding is not None


def _periodic_program(index: E, dtype: DataType = DataType.U32, value: E | None = None) -> Program:
    """`out[i] = a[i] ^ b[j]`, j = `index` (a form of i mod C or not), or `value`."""
    read = E.bitxor(E.load("a", I), E.cast(DataType.U32, E.load("b", E.var("j"))))
    return Program(
        [
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.read("b", 2, dtype),
        ],
        (64, 1, 1),
        [N.let("i", E.gid_x()), N.let("j", index), N.store("out", I, read if value is None else value)],
        name="periodic",
    )


@pytest.mark.parametrize(
    ("index", "period"),
    [
        (E.mod(I, E.u32(1024)), 1024),
        (E.mod(I, E.u32(12)), 12),
        (E.mod(I, E.u32(4)), 4),
        (E.bitand(I, E.u32(7)), 8),
        (E.mod(I, E.u32(6)), None),  # not a multiple of 4: chunks would straddle the period
        (E.bitand(I, E.u32(5)), None),  # not 2^k - 1
        (E.bitand(I, E.u32(1)), None),  # a period of 2
        (E.mod(E.add(I, E.u32(1)), E.u32(8)), None),  # not idx itself
        (E.div(I, E.u32(8)), None),
    ],
)
def test_a_buffer_read_at_the_index_mod_a_literal_is_periodic(index: E, period: int | None) -> None:
    shape = _shape(_periodic_program(index))
    assert isinstance(shape, MapShape)
    assert shape.periodic == ({} if period is None else {"b": period})
    assert shape.vector_buffers == ("a", "out")


def test_a_buffer_also_read_elsewhere_is_not_periodic() -> None:
    j = E.var("j")
    gathered = _periodic_program(E.mod(I, E.u32(8)), value=E.add(E.load("b", j), E.load("b", E.u32(3))))
    two = _periodic_program(E.mod(I, E.u32(8)), value=E.add(E.load("b", j), E.load("b", E.mod(I, E.u32(16)))))
    for program in (gathered, two):
        shape = _shape(program)
        assert isinstance(shape, MapShape) and shape.periodic == {}
    half = _shape(_periodic_program(E.mod(I, E.u32(8)), DataType.F16))  # two elements a word: not chunked so
    assert isinstance(half, MapShape) and half.periodic == {}


def test_the_vectorised_kernel_reads_a_periodic_buffer_as_chunks(naga_accepts: Check) -> None:
    lowered = prepare(_periodic_program(E.mod(I, E.u32(1024)))).lowered_for(LoweringOptions(vectorize=True))
    assert lowered.vector is not None and lowered.vector.periodic == (("b", 1024),)
    assert "% 256u)]" in lowered.wgsl  # chunk mod C / 4
    naga_accepts(lowered.wgsl)
