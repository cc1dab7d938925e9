"""wgpu backend: buffers of every element type and memory space, BufLen,
out-of-bounds loads/stores/atomics (storage, uniform, workgroup), workgroup
memory zeroing and barriers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vyre.ir import AtomicOp, BufferAccess, BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.testing.backends import execute_wgpu as execute
from vyre.runtime.wgpu_device import gpu_device

M32 = 0xFFFF_FFFF
GID = E.gid_x()
LID = E.local_id(0)
WIDTH = {DataType.U32: 1, DataType.I32: 1, DataType.BOOL: 1, DataType.U64: 2,
         DataType.VEC2U32: 2, DataType.VEC4U32: 4}  # fmt: skip
TYPES = list(WIDTH)


def _u32(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.uint32)


@pytest.mark.parametrize("access", [BufferAccess.READ_ONLY, BufferAccess.UNIFORM])
@pytest.mark.parametrize("dtype", TYPES)
def test_load_every_element_then_out_of_bounds(
    access: BufferAccess, dtype: DataType, gpu_adapter: Any
) -> None:
    """Elements 0..n-1 come back as stored (Bool normalised to 0/1); indices n,
    n + 100 and 0xffffffff read the zero of the type. Uniform buffers exercise
    the packing of four words per vec4."""
    width = WIDTH[dtype]
    n = 5
    words = _u32([7, 0, 0xFFFF_FFFF, 1, 0x8000_0000, 3, 0, 42, 9, 0xABCD, 5, 6, 0, 2, 8, 1, 4, 3, 2, 1][: n * width])
    indices = [*range(n), n, n + 100, M32]
    program = Program(
        buffers=[BufferDecl("src", 0, access, dtype), BufferDecl.read_write("out", 1, dtype)],
        workgroup_size=(len(indices), 1, 1),
        entry=[
            *[N.store("out", E.u32(slot), E.load("src", E.u32(index))) for slot, index in enumerate(indices)],
        ],
    )
    # First a run whose `src` fills the whole allocation with garbage: the pooled
    # buffer is reused below, so an index past the logical count but inside the
    # allocation would read 0xEEEEEEEE without the guard.
    allocated_words = 4 * 4096 if access == BufferAccess.UNIFORM else -(-n * width // 4) * 4
    dirty = _u32([0xEEEE_EEEE] * allocated_words)
    execute(program, {"src": dirty, "out": _u32([0] * len(indices) * width)}, (1, 1, 1))
    out = execute(program, {"src": words, "out": _u32([0xEE] * len(indices) * width)}, (1, 1, 1))["out"]
    want = words.tolist()
    if dtype == DataType.BOOL:
        want = [int(w != 0) for w in want]
    assert out.tolist() == want + [0] * (3 * width)


@pytest.mark.parametrize("dtype", [DataType.U32, DataType.U64, DataType.VEC4U32])
def test_out_of_bounds_stores_to_storage_do_nothing(dtype: DataType, gpu_adapter: Any) -> None:
    width = WIDTH[dtype]
    n = 3
    value = E.cast(dtype, E.u32(0x1234))
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, dtype)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(n), value),
            N.store("out", E.u32(M32), value),
            N.store("out", E.u32(n + 1000), value),
            N.store("out", E.u32(1), value),
        ],
    )
    out = execute(program, {"out": _u32([9] * n * width)}, (1, 1, 1))["out"]
    stored = [0x1234, 0] if dtype == DataType.U64 else [0x1234] * width  # zero-extend / splat
    assert out.tolist() == [9] * width + stored + [9] * width


def test_workgroup_buffers_oob_load_zero_store_noop_no_clamping(gpu_adapter: Any) -> None:
    """naga clamps workgroup indices to the last element; vyre must not."""
    count = 4
    program = Program(
        buffers=[BufferDecl.workgroup("tile", count, DataType.U32), BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("tile", E.u32(count - 1), E.u32(77)),
            N.store("tile", E.u32(count), E.u32(1)),
            N.store("tile", E.u32(M32), E.u32(2)),
            N.store("tile", E.u32(count + 9), E.u32(3)),
            *[N.store("out", E.u32(k), E.load("tile", E.u32(k))) for k in range(count)],
            N.store("out", E.u32(count), E.load("tile", E.u32(count))),
            N.store("out", E.u32(count + 1), E.load("tile", E.u32(M32))),
            N.store("out", E.u32(count + 2), E.buf_len("tile")),
        ],
    )
    out = execute(program, {"out": _u32([0xEE] * (count + 3))}, (1, 1, 1))["out"]
    assert out.tolist() == [0, 0, 0, 77, 0, 0, count]


def test_out_of_bounds_atomics_do_nothing_and_return_zero(gpu_adapter: Any) -> None:
    program = Program(
        buffers=[BufferDecl.read_write("acc", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(0), E.atomic(AtomicOp.ADD, "acc", E.u32(2), E.u32(5))),
            N.store("out", E.u32(1), E.atomic(AtomicOp.EXCHANGE, "acc", E.u32(M32), E.u32(5))),
            N.store("out", E.u32(2), E.atomic(AtomicOp.COMPARE_EXCHANGE, "acc", E.u32(3), E.u32(5), E.u32(0))),
            N.store("out", E.u32(3), E.atomic(AtomicOp.MAX, "acc", E.u32(2), E.u32(5))),
            N.store("out", E.u32(4), E.atomic(AtomicOp.ADD, "acc", E.u32(1), E.u32(5))),
            N.store("out", E.u32(5), E.load("acc", E.u32(2))),
        ],
    )
    result = execute(program, {"acc": _u32([10, 20]), "out": _u32([0xEE] * 6)}, (1, 1, 1))
    assert result["acc"].tolist() == [10, 25]
    assert result["out"].tolist() == [0, 0, 0, 0, 20, 0]


def test_buf_len_is_the_logical_element_count(gpu_adapter: Any) -> None:
    decls = [
        BufferDecl.read("u32s", 0, DataType.U32),
        BufferDecl.read("pairs", 1, DataType.U64),
        BufferDecl.read("quads", 2, DataType.VEC4U32),
        BufferDecl.read("bytes", 3, DataType.BYTES),
        BufferDecl.uniform("params", 4, DataType.VEC2U32),
        BufferDecl.read("empty", 5, DataType.U32),
        BufferDecl.workgroup("tile", 13, DataType.U64),
        BufferDecl.read_write("out", 6, DataType.U32),
    ]
    names = [d.name for d in decls if d.name != "out"]
    program = Program(
        decls, (1, 1, 1), [N.store("out", E.u32(k), E.buf_len(name)) for k, name in enumerate(names)]
        + [N.store("out", E.u32(len(names)), E.load("empty", E.u32(0)))]
    )  # fmt: skip
    words = {
        "u32s": _u32(range(7)),
        "pairs": _u32(range(10)),
        "quads": _u32(range(12)),
        "bytes": _u32([0x64636261, 0x65]),  # b"abcde" as two words
        "params": _u32(range(6)),
        "empty": _u32([]),
        "out": _u32([0xEE] * (len(names) + 1)),
    }
    out = execute(program, words, (1, 1, 1))["out"]
    assert out.tolist() == [7, 5, 3, 2, 3, 0, 13, 0]


def test_bool_buffers_normalise_loads_and_store_zero_or_one(gpu_adapter: Any) -> None:
    program = Program(
        buffers=[BufferDecl.read("flags", 0, DataType.BOOL), BufferDecl.read_write("out", 1, DataType.BOOL)],
        workgroup_size=(4, 1, 1),
        entry=[
            N.store("out", GID, E.load("flags", GID)),
            N.store("out", E.add(GID, E.u32(4)), E.cast(DataType.BOOL, E.mul(GID, E.u32(7)))),
        ],
    )
    out = execute(program, {"flags": _u32([0, 7, 0x8000_0000, 1]), "out": _u32([9] * 8)}, (1, 1, 1))["out"]
    assert out.tolist() == [0, 1, 1, 1, 0, 1, 1, 1]


def test_u64_and_vector_values_round_trip_and_read_write_buffers_start_from_input(gpu_adapter: Any) -> None:
    program = Program(
        buffers=[
            BufferDecl.read("pairs", 0, DataType.U64),
            BufferDecl.read_write("quads", 1, DataType.VEC4U32),
            BufferDecl.read_write("out", 2, DataType.U64),
        ],
        workgroup_size=(2, 1, 1),
        entry=[
            N.store("out", GID, E.load("pairs", E.sub(E.u32(1), GID))),
            N.store("quads", GID, E.cast(DataType.VEC4U32, E.cast(DataType.U32, E.load("pairs", GID)))),
        ],
    )
    pairs = _u32([1, 0xFFFF_FFFF, 0xDEAD, 0xBEEF])
    quads = _u32(list(range(100, 112)))
    out = execute(program, {"pairs": pairs, "quads": quads, "out": _u32([0] * 4)}, (1, 1, 1))
    assert out["out"].tolist() == [0xDEAD, 0xBEEF, 1, 0xFFFF_FFFF]
    assert out["quads"].tolist() == [1, 1, 1, 1, 0xDEAD, 0xDEAD, 0xDEAD, 0xDEAD, 108, 109, 110, 111]


def test_empty_buffers_bind_and_come_back_empty(gpu_adapter: Any) -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.VEC4U32), BufferDecl.read_write("out", 1, DataType.U32),
                 BufferDecl.read_write("none", 2, DataType.U64)],
        workgroup_size=(2, 1, 1),
        entry=[N.store("out", GID, E.cast(DataType.U32, E.load("a", GID))), N.store("none", GID, E.cast(DataType.U64, GID))],
    )  # fmt: skip
    out = execute(program, {"a": _u32([]), "out": _u32([5, 5]), "none": _u32([])}, (1, 1, 1))
    assert out["out"].tolist() == [0, 0]
    assert out["none"].dtype == np.uint32 and out["none"].size == 0


def test_workgroup_memory_is_zero_at_the_start_of_every_workgroup(gpu_adapter: Any) -> None:
    """Each invocation reads its workgroup slots before anyone writes them, then
    fills them with garbage; without zeroing, later workgroups would see it
    (wgpu-native leaves workgroup memory as earlier workgroups left it)."""
    # Leftovers show up at once on lavapipe; on a discrete GPU only across many
    # resident workgroups (4096 x 256 invocations showed them on an H200).
    on_cpu = "CPU" in gpu_device().adapter_name
    size, groups = (32, 512) if on_cpu else (256, 4096)
    program = Program(
        buffers=[
            BufferDecl.workgroup("tile", 2 * size, DataType.U32),
            BufferDecl.workgroup("pairs", size, DataType.U64),
            BufferDecl.read_write("out", 0, DataType.U32),
        ],
        workgroup_size=(size, 1, 1),
        entry=[
            N.let("seen", E.bitor(E.load("tile", LID), E.load("tile", E.add(LID, E.u32(size))))),
            N.let("pair", E.cast(DataType.U32, E.cast(DataType.BOOL, E.load("pairs", LID)))),
            N.store("out", GID, E.bitor(E.var("seen"), E.var("pair"))),
            N.barrier(),
            N.store("tile", LID, E.u32(0xEEEE_EEEE)),
            N.store("tile", E.add(LID, E.u32(size)), E.u32(0xEEEE_EEEE)),
            N.store("pairs", LID, E.cast(DataType.U64, E.u32(0xEEEE_EEEE))),
        ],
    )
    out = execute(program, {"out": _u32(np.full(size * groups, 7))}, (groups, 1, 1))["out"]
    assert np.count_nonzero(out) == 0


def test_barrier_makes_workgroup_writes_visible(gpu_adapter: Any) -> None:
    """Rotate values within each workgroup through workgroup memory, 2-D workgroups."""
    wx, wy = 8, 4
    size = wx * wy
    groups = 6
    local = E.add(E.local_id(0), E.mul(E.local_id(1), E.u32(wx)))
    flat = E.add(E.mul(E.workgroup_id(0), E.u32(size)), E.var("l"))
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.workgroup("tile", size, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
        ],
        workgroup_size=(wx, wy, 1),
        entry=[
            N.let("l", local),
            N.let("g", flat),
            N.store("tile", E.var("l"), E.load("a", E.var("g"))),
            N.barrier(),
            N.store("out", E.var("g"), E.load("tile", E.mod(E.add(E.var("l"), E.u32(1)), E.u32(size)))),
        ],
    )
    a = np.random.default_rng(3).integers(0, 2**32, size * groups, dtype=np.uint32)
    out = execute(program, {"a": a, "out": _u32(np.zeros(size * groups))}, (groups, 1, 1))["out"]
    want = np.roll(a.reshape(groups, size), -1, axis=1).reshape(-1)
    np.testing.assert_array_equal(out, want)
