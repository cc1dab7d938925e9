"""wgpu backend: the whole cast table (docs/semantics.md), on values loaded from buffers
and on constants (folded by the lowering), against a Python oracle."""

from __future__ import annotations

from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.testing.backends import execute_wgpu as execute

M32 = 0xFFFF_FFFF
T = DataType
LANES = {T.U32: 1, T.I32: 1, T.BOOL: 1, T.U64: 2, T.VEC2U32: 2, T.VEC4U32: 4}
TARGETS = [T.U32, T.I32, T.BOOL, T.U64, T.VEC2U32, T.VEC4U32]
SUPPORTED = {
    T.U32: TARGETS,
    T.I32: TARGETS,
    T.BOOL: TARGETS,
    T.U64: [T.U32, T.I32, T.BOOL, T.U64, T.VEC2U32],
    T.VEC2U32: [T.U32, T.I32, T.BOOL, T.U64, T.VEC2U32],
    T.VEC4U32: TARGETS,
}
WORDS = [0, 1, 5, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xDEAD_BEEF, 0x0000_BEEF]
SOURCE_VALUES: dict[DataType, list[tuple[int, ...]]] = {
    T.U32: [(w,) for w in WORDS],
    T.I32: [(w,) for w in WORDS],
    T.BOOL: [(0,), (1,)] * 4,
    T.U64: [(0, 0), (1, 0), (0, 1), (0xDEAD, 0xBEEF), (M32, 0), (M32, M32), (0, 0x8000_0000), (7, 7)],
    T.VEC2U32: [(0, 0), (3, 7), (0, 5), (M32, 0), (1, 1), (0x8000_0000, 2), (9, 0), (M32, M32)],
    T.VEC4U32: [(0, 0, 0, 0), (1, 2, 3, 4), (0, 0, 0, 9), (M32, 0, 0, 0), (0, 6, 0, 0),
                (0x8000_0000, 1, 2, 3), (0, 0, 7, 0), (M32, M32, M32, M32)],
}  # fmt: skip


def cast_oracle(source: DataType, lanes: tuple[int, ...], target: DataType) -> tuple[int, ...]:
    """The cast table, entry by entry."""
    if LANES[source] == 1:
        word = lanes[0]
        if target in (T.U32, T.I32):
            return (word,)  # identity / bitcast / Bool is already 0 or 1
        if target == T.BOOL:
            return (1 if word else 0,)
        if target == T.U64:
            sign_extended = source == T.I32 and word >= 0x8000_0000
            return (word, M32 if sign_extended else 0)
        return (word,) * LANES[target]  # splat
    if target in (T.U32, T.I32):
        return (lanes[0],)  # component 0 / low word
    if target == T.BOOL:
        return (1 if any(lanes) else 0,)
    if target in (T.U64, T.VEC2U32):
        return lanes[:2]
    assert source == T.VEC4U32 and target == T.VEC4U32
    return lanes


def _buffer(kind: DataType) -> str:
    return f"in_{kind.value}"


def _output(kind: DataType) -> str:
    return f"out_{kind.value}"


def _outputs() -> list[BufferDecl]:
    return [BufferDecl.read_write(_output(t), 10 + k, t) for k, t in enumerate(TARGETS)]


def _expected(cases: list[tuple[DataType, tuple[int, ...], DataType]]) -> dict[str, list[int]]:
    expected: dict[str, list[int]] = {_output(t): [] for t in TARGETS}
    for source, lanes, target in cases:
        expected[_output(target)] += list(cast_oracle(source, lanes, target))
    return expected


def test_cast_table_on_loaded_values(gpu_adapter: Any) -> None:
    n = len(WORDS)
    slots = {t: 0 for t in TARGETS}
    body: list[Any] = [N.let("i", E.gid_x())]
    layout: list[tuple[DataType, DataType, int]] = []
    for source, targets in SUPPORTED.items():
        value = E.load(_buffer(source), E.var("i"))
        for target in targets:
            slot = slots[target]
            slots[target] += 1
            layout.append((source, target, slot))
            body.append(N.store(_output(target), E.add(E.var("i"), E.u32(slot * n)), E.cast(target, value)))
    inputs = [BufferDecl.read(_buffer(t), k, t) for k, t in enumerate(SUPPORTED)]
    program = Program(inputs + _outputs(), (n, 1, 1), body)
    words = {
        _buffer(t): np.array([w for lanes in SOURCE_VALUES[t] for w in lanes], dtype=np.uint32)
        for t in SUPPORTED
    }
    for t in TARGETS:
        words[_output(t)] = np.zeros(slots[t] * n * LANES[t], dtype=np.uint32)
    out = execute(program, words, (1, 1, 1))
    for source, target, slot in layout:
        width = LANES[target]
        got = out[_output(target)][slot * n * width : (slot + 1) * n * width].tolist()
        want = [w for lanes in SOURCE_VALUES[source] for w in cast_oracle(source, lanes, target)]
        assert got == want, f"cast {source} -> {target}"


def test_cast_table_on_constants(gpu_adapter: Any) -> None:
    """Literal sources, and vector sources built from literals by a first cast."""
    scalars: list[tuple[DataType, Any, tuple[int, ...]]] = []
    for w in (0, 1, 0x8000_0000, M32):
        scalars.append((T.U32, E.u32(w), (w,)))
        scalars.append((T.I32, E.i32(w - 2**32 if w >= 2**31 else w), (w,)))
    scalars += [(T.BOOL, E.bool_(False), (0,)), (T.BOOL, E.bool_(True), (1,))]
    sources = list(scalars)
    for kind, expr, lanes in scalars:
        for vector in (T.U64, T.VEC2U32, T.VEC4U32):
            sources.append((vector, E.cast(vector, expr), cast_oracle(kind, lanes, vector)))
    cases: list[tuple[DataType, tuple[int, ...], DataType]] = []
    body = []
    slots = {t: 0 for t in TARGETS}
    for source, expr, lanes in sources:
        for target in SUPPORTED[source]:
            body.append(N.store(_output(target), E.u32(slots[target]), E.cast(target, expr)))
            slots[target] += 1
            cases.append((source, lanes, target))
    program = Program(_outputs(), (1, 1, 1), body)
    words = {_output(t): np.zeros(slots[t] * LANES[t], dtype=np.uint32) for t in TARGETS}
    out = execute(program, words, (1, 1, 1))
    for name, want in _expected(cases).items():
        assert out[name].tolist() == want, name
