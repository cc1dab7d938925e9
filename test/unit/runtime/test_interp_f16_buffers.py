"""F16/BF16 buffers on the reference interpreter: two elements per word.

Element 2k lives in bits 0-15 of word k, element 2k+1 in bits 16-31; n elements
take ceil(n/2) words and `execute(..., lengths={name: n})` gives n (missing: 2 x
words). `buf_len` is n; a load at index >= n gives +0.0 and a store there does
nothing; a store writes only its element's half, never the neighbour's (even
when adjacent lanes store both halves of a word at once). F16 workgroup arrays
hold one element per word, zeroed. The oracle is plain Python on the words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from vyre.ir import BinOp, BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.pipeline import prepare
from vyre.runtime.interp import InterpError, execute
from vyre.testing.backends import execute_interp_unchecked

F32, F16, BF16, U32 = DataType.F32, DataType.F16, DataType.BF16, DataType.U32
HALVES = [F16, BF16]


def pack(halves: Sequence[int]) -> np.ndarray:
    padded = list(halves) + [0] * (len(halves) % 2)
    return np.array(
        [padded[k] | (padded[k + 1] << 16) for k in range(0, len(padded), 2)], dtype=np.uint32
    )


def run(program: Program, words: dict[str, np.ndarray], dispatch: int, **kwargs: object) -> dict[str, np.ndarray]:
    return execute(prepare(program), words, (dispatch, 1, 1), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("t", HALVES, ids=str)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8, 9])
def test_loads_read_the_halves_and_buf_len_is_the_element_count(t: DataType, n: int) -> None:
    """out[i] = bitcast<u32>(a[i]) for i < n + 2 (two reads past the end), out[n+2] = buf_len(a)."""
    elements = [0x1000 + 0x0101 * k for k in range(n)]
    words = pack(elements)
    # the unused high half of an odd-length buffer holds junk: it must never be read
    if n % 2:
        words[-1] |= np.uint32(0xABCD_0000)
    program = Program(
        buffers=[BufferDecl.read("a", 0, t), BufferDecl.read_write("out", 1, U32)],
        workgroup_size=(16, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(
                E.lt(E.var("i"), E.u32(n + 2)),
                [N.store("out", E.var("i"), E.bitcast(U32, E.load("a", E.var("i"))))],
            ),
            N.if_(E.eq(E.var("i"), E.u32(0)), [N.store("out", E.u32(n + 2), E.buf_len("a"))]),
        ],
    )
    out = run(program, {"a": words, "out": np.zeros(n + 3, np.uint32)}, 1, lengths={"a": n})["out"]
    assert out.tolist() == elements + [0, 0, n]


@pytest.mark.parametrize("t", HALVES, ids=str)
@pytest.mark.parametrize("lane_order", ["forward", "reversed"])
def test_stores_write_one_half_and_keep_the_neighbour(t: DataType, lane_order: str) -> None:
    """Even lanes and lanes >= n store element i (odd ones keep the initial
    halves); lanes >= n, the high half of the last word among them, are out of
    bounds and store nothing."""
    n = 7
    initial = [0x7000 + k for k in range(n)]
    words = pack(initial)
    words[-1] |= np.uint32(0x5A5A_0000)  # the half past the end is never touched
    program = Program(
        buffers=[BufferDecl.read_write("h", 0, t)],
        workgroup_size=(16, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(
                E.binop(
                    BinOp.OR,
                    E.eq(E.binop(BinOp.BIT_AND, E.var("i"), E.u32(1)), E.u32(0)),
                    E.ge(E.var("i"), E.u32(n)),
                ),
                [N.store("h", E.var("i"), E.bitcast(t, E.add(E.var("i"), E.u32(0xFFFF_0100))))],
            ),
        ],
    )
    out = run(program, {"h": words}, 1, lengths={"h": n}, lane_order=lane_order)["h"]
    want = [0x0100 + k if k % 2 == 0 else initial[k] for k in range(n)]
    assert len(out) == (n + 1) // 2
    assert out.tolist() == pack(want).tolist()[:-1] + [want[-1] | 0x5A5A_0000]


@pytest.mark.parametrize("lane_order", ["forward", "reversed"])
def test_adjacent_lanes_store_both_halves_of_a_word(lane_order: str) -> None:
    n = 10
    program = Program(
        buffers=[BufferDecl.read("a", 0, F32), BufferDecl.read_write("h", 1, F16)],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.store("h", E.var("i"), E.cast(F16, E.load("a", E.var("i")))),
        ],
    )
    values = np.linspace(-3, 3, n).astype(np.float32)
    padded = np.concatenate([values, np.zeros(2, np.float32)])
    out = run(
        program,
        {"a": padded.view(np.uint32), "h": np.full(5, 0xFFFF_FFFF, np.uint32)},
        3,
        lengths={"h": n},
        lane_order=lane_order,
    )["h"]
    assert out.view(np.float16).tolist() == values.astype(np.float16).tolist()


def test_last_lane_wins_per_element_and_halves_stay_apart() -> None:
    """All lanes store to elements 2 and 3 (one word): the last lane in lane order wins each."""
    program = Program(
        buffers=[BufferDecl.read_write("h", 0, BF16)],
        workgroup_size=(8, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.store("h", E.add(E.u32(2), E.binop(BinOp.BIT_AND, E.var("i"), E.u32(1))), E.bitcast(BF16, E.var("i"))),
        ],
    )
    words = {"h": np.zeros(2, np.uint32)}
    forward = run(program, words, 1)["h"]
    backward = run(program, words, 1, lane_order="reversed")["h"]
    assert forward.tolist() == [0, 6 | (7 << 16)]
    assert backward.tolist() == [0, 0 | (1 << 16)]
    assert words["h"].tolist() == [0, 0]  # the caller's words are not modified


def test_uniform_f16_buffer_and_default_length() -> None:
    program = Program(
        buffers=[BufferDecl.uniform("u", 0, F16), BufferDecl.read_write("out", 1, F32)],
        workgroup_size=(8, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(
                E.lt(E.var("i"), E.buf_len("u")),
                [N.store("out", E.var("i"), E.cast(F32, E.load("u", E.var("i"))))],
            ),
        ],
    )
    halves = np.array([1.5, -2.0, 65504.0, 2.0**-24], np.float16)
    words = {"u": pack(halves.view(np.uint16).tolist()), "out": np.zeros(4, np.uint32)}
    out = run(program, words, 1)["out"]  # no lengths: 2 x words = 4 elements
    assert out.view(np.float32).tolist() == halves.astype(np.float32).tolist()


def test_f16_arithmetic_on_packed_buffers_unprepared() -> None:
    """The interpreter's own fadd on F16 loads and stores (no lengths: even counts)."""
    a = np.array([1.0, 2.0, -0.5, 65504.0], np.float16)
    b = np.array([0.5, 1e-3, 0.5, 65504.0], np.float16)
    program = Program(
        buffers=[BufferDecl.read("a", 0, F16), BufferDecl.read("b", 1, F16), BufferDecl.read_write("c", 2, F16)],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.store("c", E.var("i"), E.fadd(E.load("a", E.var("i")), E.load("b", E.var("i")))),
        ],
    )
    words = {
        "a": pack(a.view(np.uint16).tolist()),
        "b": pack(b.view(np.uint16).tolist()),
        "c": np.zeros(2, np.uint32),
    }
    out = execute_interp_unchecked(program, words, 1)["c"]
    with np.errstate(over="ignore"):
        assert out.view(np.float16).tolist() == (a + b).tolist()


@pytest.mark.parametrize("t", HALVES, ids=str)
def test_workgroup_arrays_of_halves(t: DataType) -> None:
    """Each lane stores its element, the workgroup syncs, each lane reads its
    neighbour's element (the last lane reads an unwritten, zeroed slot) and an
    out-of-bounds slot (0)."""
    size = 8
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, t),
            BufferDecl.read_write("next", 1, t),
            BufferDecl.read_write("oob", 2, U32),
            BufferDecl.workgroup("tile", size + 1, t),
        ],
        workgroup_size=(size, 1, 1),
        entry=[
            N.let("l", E.local_id(0)),
            N.let("g", E.gid_x()),
            N.store("tile", E.var("l"), E.load("a", E.var("g"))),
            N.store("tile", E.u32(size + 5), E.load("a", E.var("g"))),  # out of bounds: no-op
            N.barrier(),
            N.store("next", E.var("g"), E.load("tile", E.add(E.var("l"), E.u32(1)))),
            N.store("oob", E.var("g"), E.bitcast(U32, E.load("tile", E.u32(size + 5)))),
        ],
    )
    groups = 3
    n = groups * size
    elements = [0x3000 + 17 * k for k in range(n)]
    out = run(
        program,
        {"a": pack(elements), "next": np.zeros(n // 2, np.uint32), "oob": np.zeros(n, np.uint32)},
        groups,
    )
    want = [0 if k % size == size - 1 else elements[k + 1] for k in range(n)]
    assert out["next"].tolist() == pack(want).tolist()
    assert out["oob"].tolist() == [0] * n


# ---------------------------------------------------------------------------
# The lengths argument
# ---------------------------------------------------------------------------


def _copy_program() -> Program:
    return Program(
        buffers=[
            BufferDecl.read("a", 0, F16),
            BufferDecl.read("w", 1, U32),
            BufferDecl.read_write("out", 2, BF16),
            BufferDecl.workgroup("tile", 4, F16),
        ],
        workgroup_size=(4, 1, 1),
        entry=[N.let("i", E.gid_x()), N.store("out", E.var("i"), E.bitcast(BF16, E.bitcast(U32, E.load("a", E.var("i")))))],
    )


def test_lengths_give_the_counts_and_results_keep_the_word_count() -> None:
    words = {"a": pack([1, 2, 3]), "w": np.zeros(3, np.uint32), "out": pack([9, 9, 9])}
    out = run(_copy_program(), words, 1, lengths={"a": 3, "out": 3, "w": 3})["out"]
    assert out.tolist() == pack([1, 2, 3]).tolist()
    out = run(_copy_program(), words, 1, lengths={"a": 3})["out"]  # out: 4 elements, a[3] OOB -> 0
    assert out.tolist() == [1 | 2 << 16, 3]


@pytest.mark.parametrize(
    ("lengths", "error", "message"),
    [
        ({"a": 5}, ValueError, "needs 3 words"),
        ({"a": 2}, ValueError, "needs 1 words"),
        ({"w": 4}, ValueError, "length 4 given for buffer `w`"),
        ({"nope": 1}, ValueError, "not a storage or uniform buffer"),
        ({"tile": 4}, ValueError, "not a storage or uniform buffer"),
        ({"a": -1}, ValueError, "negative"),
        ({"a": True}, TypeError, "must be an int"),
        ({"a": 3.0}, TypeError, "must be an int"),
        ([("a", 3)], TypeError, "lengths must map"),
    ],
)
def test_bad_lengths(lengths: object, error: type[Exception], message: str) -> None:
    words = {"a": pack([1, 2, 3]), "w": np.zeros(3, np.uint32), "out": pack([9, 9, 9])}
    with pytest.raises(error, match=message):
        run(_copy_program(), words, 1, lengths=lengths)


def test_packed_memory_refuses_a_wrong_word_count() -> None:
    from vyre.runtime.interp.memory import BufferInfo, storage_memory
    from vyre.dialects.vyre import AccessKind, DataTypeKind

    info = BufferInfo("h", AccessKind.READ_WRITE, DataTypeKind.F16, 0)
    assert storage_memory(info, np.zeros(3, np.uint32)).count == 6
    assert storage_memory(info, np.zeros(3, np.uint32), 5).count == 5
    with pytest.raises(InterpError, match="needs 2 words"):
        storage_memory(info, np.zeros(3, np.uint32), 4)
