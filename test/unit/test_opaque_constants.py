"""Literals with the bits of ±1.0 are mixed with the meta uniform's opaque zero
(vyre/lowering/opaque_constants.py): Mesa's NIR rewrote a choice between ±1.0
and the other-signed zero into a conversion that stored the wrong zero
(0x80000000 for 0x0 and the reverse). Found by the interp-vs-lavapipe campaign
(test/fuzz_corpus/differential/dea5bbb68fc3e4ae.json). The GPU cases run on the
adapter vyre uses (lavapipe in CI) and compare with the constants themselves."""

from __future__ import annotations

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.lowering.opaque_constants import shield, uses_hazard
from vyre.testing.backends import execute_interp, execute_wgpu

PAIRS = [(0x0, 0xBF80_0000), (0x8000_0000, 0x3F80_0000)]
"""The choices NIR got wrong on lavapipe, each tried in both orders."""

CONDITIONS = np.array([1, 0, 0x8000_0000, 7], np.uint32)
TAKES_TRUE = CONDITIONS != 0


def _program(shape: str, if_false: int, if_true: int, dtype: DataType) -> Program:
    cond = E.ne(E.load("c", E.gid_x()), E.u32(0))
    false_value, true_value = E.u32(if_false), E.u32(if_true)
    if dtype is DataType.F32:
        false_value = E.bitcast(DataType.F32, false_value)
        true_value = E.bitcast(DataType.F32, true_value)
    if shape == "select":
        body = [N.store("out", E.gid_x(), E.select(cond, true_value, false_value))]
    else:
        body = [
            N.let("x", false_value),
            N.if_(cond, [N.assign("x", true_value)]),
            N.store("out", E.gid_x(), E.var("x")),
        ]
    buffers = [BufferDecl.read("c", 0, DataType.U32), BufferDecl.read_write("out", 1, dtype)]
    return Program(buffers, (4, 1, 1), body)


def _expected(if_false: int, if_true: int) -> np.ndarray:
    return np.where(TAKES_TRUE, np.uint32(if_true), np.uint32(if_false)).astype(np.uint32)


def _words(result: dict[str, object]) -> np.ndarray:
    return np.asarray(result["out"]).view(np.uint32).ravel()


CASES = [
    (shape, f, t, dtype)
    for shape in ("select", "if")
    for a, b in PAIRS
    for f, t in ((a, b), (b, a))
    for dtype in (DataType.U32, DataType.F32)
]


@pytest.mark.parametrize(
    ("shape", "if_false", "if_true", "dtype"),
    CASES,
    ids=[f"{s}-{f:#x}-{t:#x}-{d.value}" for s, f, t, d in CASES],
)
def test_choice_between_one_and_zero_keeps_its_bits(
    shape: str, if_false: int, if_true: int, dtype: DataType, gpu_adapter: object
) -> None:
    program = _program(shape, if_false, if_true, dtype)
    inputs = {"c": CONDITIONS, "out": np.full(4, 0x1234_5678, np.uint32)}
    want = _expected(if_false, if_true)
    assert _words(execute_interp(program, inputs, (1, 1, 1))).tolist() == want.tolist()
    assert _words(execute_wgpu(program, inputs, (1, 1, 1))).tolist() == want.tolist()


def test_the_lowering_shields_the_literal_and_adds_the_field() -> None:
    wgsl = vyre.lower_to_wgsl(_program("select", 0x0, 0xBF80_0000, DataType.U32))
    assert "opaque_zero: u32" in wgsl
    assert "(0xbf800000u ^ _vyre_meta.opaque_zero)" in wgsl
    assert "0xbf800000u)" not in wgsl.replace("(0xbf800000u ^", "")


def test_kernels_without_the_literal_are_unchanged() -> None:
    wgsl = vyre.lower_to_wgsl(_program("select", 0x0, 0xBF80_0001, DataType.U32))
    assert "opaque_zero" not in wgsl


def test_shield_forms() -> None:
    zero = "m.z"
    assert shield("a = 0x3f800000u;", zero) == "a = (0x3f800000u ^ m.z);"
    assert shield("a = 3212836864u;", zero) == "a = (3212836864u ^ m.z);"
    assert shield("a = 1065353216i;", zero) == "a = (1065353216i ^ bitcast<i32>(m.z));"
    assert shield("a = (-1082130432i);", zero) == "a = ((-1082130432i ^ bitcast<i32>(m.z)));"
    assert shield("vec2<u32>(0xbf800000u, 1u)", zero) == "vec2<u32>((0xbf800000u ^ m.z), 1u)"
    # other tokens that merely contain the digits are left alone
    for text in ("0x3f8000001u", "x0x3f800000u", "a.0x3f800000u", "10x3f800000u", "0x3f800000", "21065353216i"):
        assert not uses_hazard(text), text
        assert shield(text, zero) == text


def test_vectorised_map_kernels_are_shielded(gpu_adapter: object) -> None:
    """The map shape (load and store at the invocation index) takes the vectorised
    lowering (vector.py): its lane function is shielded too."""
    i = E.var("i")
    cond = E.ne(E.load("c", i), E.u32(0))
    program = Program(
        [BufferDecl.read("c", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (64, 1, 1),
        [N.let("i", E.gid_x()), N.store("out", i, E.select(cond, E.u32(0x3F80_0000), E.u32(0x8000_0000)))],
    )
    conditions = np.tile(CONDITIONS, 33)  # 132 elements: whole vectors and a tail
    want = np.where(conditions != 0, np.uint32(0x3F80_0000), np.uint32(0x8000_0000)).astype(np.uint32)
    result = vyre.run(program, {"c": conditions}, dispatch=(3, 1, 1), outputs={"out": len(conditions)})
    assert result["out"].tolist() == want.tolist()
    assert "opaque_zero" in vyre.lower_to_wgsl(program)


def test_i32_literals_are_shielded(gpu_adapter: object) -> None:
    cond = E.ne(E.load("c", E.gid_x()), E.u32(0))
    minus_one = E.bitcast(DataType.I32, E.u32(0xBF80_0000))
    program = Program(
        [BufferDecl.read("c", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.I32)],
        (4, 1, 1),
        [N.store("out", E.gid_x(), E.select(cond, E.i32(0), minus_one))],
    )
    result = vyre.run(program, {"c": CONDITIONS}, dispatch=(1, 1, 1), outputs={"out": 4})
    want = np.where(TAKES_TRUE, 0, np.int32(-1082130432)).astype(np.int32)
    assert result["out"].tolist() == want.tolist()


def test_constants_through_lets_fold_and_are_shielded(gpu_adapter: object) -> None:
    """`let k = 0xbf800001u; select(k - 1u, 0u, c)`: the driver folds k - 1u into the
    hazard literal itself; the emitter folds it first (a let bound to a constant reads
    as the constant), so the literal is shielded."""
    cond = E.ne(E.load("c", E.gid_x()), E.u32(0))
    program = Program(
        [BufferDecl.read("c", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (4, 1, 1),
        [
            N.let("k", E.u32(0xBF80_0001)),
            N.store("out", E.gid_x(), E.select(cond, E.u32(0), E.sub(E.var("k"), E.u32(1)))),
        ],
    )
    assert "(0xbf800000u ^ _vyre_meta.opaque_zero)" in vyre.lower_to_wgsl(program)
    result = vyre.run(program, {"c": CONDITIONS}, dispatch=(1, 1, 1), outputs={"out": 4})
    assert result["out"].tolist() == _expected(0xBF80_0000, 0x0).tolist()
