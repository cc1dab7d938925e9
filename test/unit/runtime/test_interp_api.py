"""Reference interpreter: the runtime contract (host words in and out, element
types, limits, clear errors)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import types

import numpy as np
import pytest

from vyre import run
from vyre.ir import AtomicOp, BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.interp import InterpError
from vyre.testing.backends import execute_interp as execute
from vyre.testing.backends import execute_interp_unchecked

M = 0xFFFF_FFFF
GID = E.gid_x()


def _words(**arrays: list[int]) -> dict[str, np.ndarray]:
    return {name: np.array(values, dtype=np.uint32) for name, values in arrays.items()}


def _copy_program(dtype: DataType, n: int) -> Program:
    # out[i] = in[n - 1 - i]
    return Program(
        buffers=[BufferDecl.read("a", 0, dtype), BufferDecl.read_write("out", 1, dtype)],
        workgroup_size=(4, 1, 1),
        entry=[N.store("out", GID, E.load("a", E.sub(E.u32(n - 1), GID)))],
    )


@pytest.mark.parametrize(
    "dtype,width",
    [(DataType.U32, 1), (DataType.I32, 1), (DataType.U64, 2), (DataType.VEC2U32, 2), (DataType.VEC4U32, 4)],
)
def test_typed_elements_travel_as_packed_words(dtype: DataType, width: int) -> None:
    n = 8
    a = np.arange(1, n * width + 1, dtype=np.uint32) * 0x01010101
    out = execute(_copy_program(dtype, n), {"a": a, "out": np.zeros(n * width, np.uint32)}, (2, 1, 1))
    assert out["out"].tolist() == a.reshape(n, width)[::-1].ravel().tolist()


def test_bool_loads_normalise_words() -> None:
    program = Program(
        buffers=[BufferDecl.read("flags", 0, DataType.BOOL), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(4, 1, 1),
        entry=[N.store("out", GID, E.cast(DataType.U32, E.load("flags", GID)))],
    )
    out = execute(program, _words(flags=[0, 1, 7, M], out=[9] * 4), (1, 1, 1))["out"]
    assert out.tolist() == [0, 1, 1, 1]


def test_bool_buffer_store_and_u64_arithmetic() -> None:
    program = Program(
        buffers=[
            BufferDecl.read("wide", 0, DataType.U64),
            BufferDecl.read_write("flags", 1, DataType.BOOL),
            BufferDecl.read_write("hi", 2, DataType.U32),
        ],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("v", E.load("wide", GID)),
            N.store("flags", GID, E.cast(DataType.BOOL, E.var("v"))),
            N.store("hi", GID, E.cast(DataType.U32, E.cast(DataType.VEC2U32, E.var("v")))),
        ],
    )
    words = _words(wide=[0, 0, 0, 5, 3, 0, M, M], flags=[9] * 4, hi=[9] * 4)
    out = execute(program, words, (1, 1, 1))
    assert out["flags"].tolist() == [0, 1, 1, 1]
    assert out["hi"].tolist() == [0, 0, 3, M]
    assert set(out) == {"flags", "hi"}  # every read_write buffer, nothing else


def test_buflen_counts_elements_and_bytes_words() -> None:
    names = ["u", "w", "v4", "raw", "tile", "par"]
    program = Program(
        buffers=[
            BufferDecl.read("u", 0, DataType.U32),
            BufferDecl.read("w", 1, DataType.U64),
            BufferDecl.read("v4", 2, DataType.VEC4U32),
            BufferDecl.read_write("raw", 3, DataType.BYTES),
            BufferDecl.workgroup("tile", 37, DataType.VEC2U32),
            BufferDecl.uniform("par", 4, DataType.U32),
            BufferDecl.read_write("out", 5, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(k), E.buf_len(name)) for k, name in enumerate(names)],
    )
    words = _words(u=[0] * 5, w=[0] * 6, v4=[0] * 8, raw=[1, 2, 3, 4, 5], par=[1, 2], out=[0] * 6)
    out = execute(program, words, (1, 1, 1))
    assert out["out"].tolist() == [5, 3, 2, 5, 37, 2]
    assert out["raw"].tolist() == [1, 2, 3, 4, 5]  # Bytes read_write buffer comes back


def test_one_compiled_body_serves_every_buffer_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Buffer lengths are read at run time: a prepared program compiles once, and
    each run sees its own lengths (a loop bounded by buf_len, a packed F16 count,
    a workgroup buffer's declared count, the OOB rule against the new length)."""
    from vyre.fingerprint import LruCache
    from vyre.pipeline import prepare
    from vyre.runtime.interp import engine

    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("h", 1, DataType.F16),
            BufferDecl.workgroup("tile", 5, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[
            N.let("s", E.u32(0)),
            N.loop("i", E.u32(0), E.buf_len("a"), [N.assign("s", E.add(E.var("s"), E.load("a", E.var("i"))))]),
            N.store("out", E.u32(0), E.var("s")),
            N.store("out", E.u32(1), E.buf_len("a")),
            N.store("out", E.u32(2), E.buf_len("h")),
            N.store("out", E.u32(3), E.buf_len("tile")),
            N.store("out", E.u32(4), E.load("a", E.u32(6))),  # 0 past the end
        ],
    )
    prepared = prepare(program)
    compiles: list[int] = []
    real = engine.compile_kernel

    def counting(*args: object) -> object:
        compiles.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "compile_kernel", counting)
    fresh: LruCache[int, object] = LruCache(engine.COMPILED_CAPACITY)
    monkeypatch.setattr(engine, "_COMPILED", fresh)
    for n, halves in [(0, 0), (1, 3), (7, 4), (300, 1), (6, 2)]:
        a = np.arange(1, n + 1, dtype=np.uint32) * 3
        words = {"a": a, "h": np.zeros((halves + 1) // 2, np.uint32), "out": np.zeros(5, np.uint32)}
        out = engine.execute(prepared, words, 1, lengths={"h": halves})["out"]
        past = int(a[6]) if n > 6 else 0
        assert out.tolist() == [int(a.sum()) & M, n, halves, 5, past], n
    assert len(compiles) == 1


def test_uniform_buffer_parameters() -> None:
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.uniform("params", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(4, 1, 1),
        entry=[
            N.if_(
                E.lt(GID, E.load("params", E.u32(1))),
                [N.store("out", GID, E.mul(E.load("a", GID), E.load("params", E.u32(0))))],
            )
        ],
    )
    out = execute(program, _words(a=[1, 2, 3, 4, 5, 6, 7, 8], params=[3, 6], out=[0] * 8), (2, 1, 1))
    assert out["out"].tolist() == [3, 6, 9, 12, 15, 18, 0, 0]


def _busy_program() -> Program:
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.read_write("hist", 2, DataType.U32),
        ],
        workgroup_size=(8, 1, 1),
        entry=[
            N.let("v", E.load("a", GID)),
            N.let("old", E.atomic(AtomicOp.ADD, "hist", E.bitand(E.var("v"), E.u32(3)), E.u32(1))),
            N.store("out", GID, E.add(E.load("out", GID), E.popcount(E.var("v")))),
        ],
    )


def test_repeated_runs_are_identical_and_inputs_untouched() -> None:
    a = np.random.default_rng(3).integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    words = {"a": a, "out": np.arange(64, dtype=np.uint32), "hist": np.zeros(4, np.uint32)}
    before = {name: array.copy() for name, array in words.items()}
    runs = [execute(_busy_program(), words, (8, 1, 1)) for _ in range(3)]
    for name, array in words.items():
        assert array.tolist() == before[name].tolist(), name
    for run in runs[1:]:
        assert {k: v.tolist() for k, v in run.items()} == {k: v.tolist() for k, v in runs[0].items()}
    assert runs[0]["out"].tolist() == [k + bin(int(v)).count("1") for k, v in enumerate(a)]
    assert runs[0]["hist"].tolist() == np.bincount(a & 3, minlength=4).tolist()
    assert runs[0]["out"] is not words["out"]


def test_dispatch_forms() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(2, 1, 1),
        entry=[N.store("out", GID, E.u32(1))],
    )
    assert execute(program, _words(out=[0] * 4), 2)["out"].tolist() == [1] * 4
    assert execute(program, _words(out=[0] * 4), (1,))["out"].tolist() == [1, 1, 0, 0]
    for bad in [(1, 1, 1, 1), (-1, 1, 1), (1.5, 1, 1), ()]:
        with pytest.raises(ValueError, match="dispatch"):
            execute(program, _words(out=[0] * 4), bad)


def test_kernel_op_and_module_are_accepted() -> None:
    program = _copy_program(DataType.U32, 4)
    words = _words(a=[1, 2, 3, 4], out=[0] * 4)
    assert execute(program.kernel, words, (1, 1, 1))["out"].tolist() == [4, 3, 2, 1]
    assert execute(program.module, words, (1, 1, 1))["out"].tolist() == [4, 3, 2, 1]
    with pytest.raises(TypeError, match="vyre Program"):
        execute("not a program", words, (1, 1, 1))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Bad inputs and limits
# ---------------------------------------------------------------------------


def test_bad_words_name_the_buffer() -> None:
    program = _copy_program(DataType.U64, 2)
    with pytest.raises(ValueError, match="no words given for read_write buffer `out`"):
        execute(program, _words(a=[0] * 4), (1, 1, 1))
    with pytest.raises(ValueError, match="unknown buffer `zzz`"):
        execute(program, _words(a=[0] * 4, out=[0] * 4, zzz=[1]), (1, 1, 1))
    with pytest.raises(ValueError, match="buffer `a`.*multiple of 2"):
        execute(program, _words(a=[0] * 3, out=[0] * 4), (1, 1, 1))
    with pytest.raises(TypeError, match="buffer `a`.*float"):
        execute(program, {"a": np.zeros(4), "out": np.zeros(4, np.uint32)}, (1, 1, 1))
    with pytest.raises(ValueError, match="buffer `a`.*1-D"):
        execute(program, {"a": np.zeros((2, 2), np.uint32), "out": np.zeros(4, np.uint32)}, (1, 1, 1))
    with pytest.raises(ValueError, match="lane_order"):
        execute(program, _words(a=[0] * 4, out=[0] * 4), (1, 1, 1), lane_order="random")
    # plain Python ints are accepted when they fit in 32 bits
    out = execute(program, {"a": [1, 2, 3, 4], "out": [0, 0, 0, 0]}, (1, 1, 1))
    assert out["out"].tolist() == [3, 4, 1, 2]


def test_workgroup_buffers_take_no_words() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32), BufferDecl.workgroup("tile", 4, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(0), E.load("tile", E.u32(0)))],
    )
    with pytest.raises(ValueError, match="workgroup buffer `tile`"):
        execute(program, _words(out=[0], tile=[1, 2, 3, 4]), (1, 1, 1))


def test_input_larger_than_64_mib_is_refused() -> None:
    program = _copy_program(DataType.U32, 1)
    big = np.zeros((64 << 20) // 4 + 1, dtype=np.uint32)
    with pytest.raises(ValueError, match=r"buffer `a`.*64 MiB"):
        execute(program, {"a": big, "out": np.zeros(1, np.uint32)}, (1, 1, 1))
    exactly = np.zeros((64 << 20) // 4, dtype=np.uint32)
    out = execute(program, {"a": exactly, "out": np.ones(1, np.uint32)}, (0, 1, 1))
    assert out["out"].tolist() == [1]


def test_workgroup_memory_larger_than_64_mib_is_refused() -> None:
    def program(*tiles: BufferDecl) -> Program:
        return Program(
            buffers=[BufferDecl.read_write("out", 0, DataType.U32), *tiles],
            workgroup_size=(1, 1, 1),
            entry=[N.store("out", E.u32(0), E.u32(1))],
        )

    huge = BufferDecl.workgroup("huge", (64 << 20) // 16 + 1, DataType.VEC4U32)
    with pytest.raises(ValueError, match=r"workgroup buffer `huge`.*64 MiB"):
        execute(program(huge), _words(out=[0]), (1, 1, 1))
    half = (32 << 20) // 4
    pair = (BufferDecl.workgroup("t1", half, DataType.U32), BufferDecl.workgroup("t2", half + 1, DataType.U32))
    with pytest.raises(ValueError, match=r"`t1`, `t2`.*64 MiB"):
        execute(program(*pair), _words(out=[0]), (1, 1, 1))


def test_broken_invariants_give_clear_errors() -> None:
    def run(entry, buffers=()):
        program = Program(
            buffers=[BufferDecl.read("ro", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32), *buffers],
            workgroup_size=(1, 1, 1),
            entry=entry,
        )
        words = _words(ro=[1], out=[0])
        words.update({b.name: np.zeros(4, np.uint32) for b in buffers})
        return execute_interp_unchecked(program, words, (1, 1, 1))

    with pytest.raises(InterpError, match="unknown buffer `nope`.*V004"):
        run([N.store("out", E.u32(0), E.load("nope", E.u32(0)))])
    with pytest.raises(InterpError, match="non-writable buffer `ro`.*V005"):
        run([N.store("ro", E.u32(0), E.u32(1))])
    with pytest.raises(InterpError, match="undeclared variable `ghost`"):
        run([N.store("out", E.u32(0), E.var("ghost"))])
    with pytest.raises(InterpError, match="atomic on buffer `ro`"):
        run([N.let("x", E.atomic(AtomicOp.ADD, "ro", E.u32(0), E.u32(1)))])
    with pytest.raises(InterpError, match="bytes.*V013"):
        run([N.let("x", E.load("raw", E.u32(0)))], [BufferDecl.read("raw", 2, DataType.BYTES)])
    with pytest.raises(InterpError, match="V021"):
        run([N.let("x", E.add(E.cast(DataType.U64, E.u32(1)), E.u32(1)))])
    with pytest.raises(InterpError, match="axis 3.*V007"):
        run([N.store("out", E.u32(0), E.local_id(3))])
    with pytest.raises(InterpError, match="store of a `u64` value into buffer `out`"):
        run([N.store("out", E.u32(0), E.cast(DataType.U64, E.u32(1)))])
    assert issubclass(InterpError, ValueError)


def test_broken_declarations_give_clear_errors() -> None:
    entry = [N.store("out", E.u32(0), E.u32(1))]
    zero = Program([BufferDecl.read_write("out", 0, DataType.U32)], (4, 0, 1), entry)
    with pytest.raises(InterpError, match="workgroup_size.*V003"):
        execute_interp_unchecked(zero, _words(out=[0]), (1, 1, 1))
    twice = Program(
        [BufferDecl.read_write("out", 0, DataType.U32), BufferDecl.read("out", 1, DataType.U32)],
        (1, 1, 1),
        entry,
    )
    with pytest.raises(InterpError, match="duplicate buffer name `out`"):
        execute_interp_unchecked(twice, _words(out=[0]), (1, 1, 1))


def _call_program() -> Program:
    return Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(0), E.call("primitive.math.add", [E.u32(2), E.u32(3)]))],
    )


def test_calls_left_in_an_unprepared_kernel_are_refused() -> None:
    """The interpreter runs prepared kernels; a Category A call left in a kernel
    is a clear error, not a crash."""
    with pytest.raises(InterpError, match="survived inlining"):
        execute_interp_unchecked(_call_program(), _words(out=[0]), (1, 1, 1))


def test_calls_with_the_real_inline_calls_pass() -> None:
    assert execute(_call_program(), _words(out=[0]), (1, 1, 1))["out"].tolist() == [5]


def test_the_interpreter_refuses_absurd_workgroups_with_a_clear_error() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, DataType.U32)],
        workgroup_size=(0xFFFFFFFF, 1, 1),
        entry=[N.store("o", E.u32(0), E.u32(1))],
    )
    with pytest.raises(ValueError, match="at most 65536"):
        run(program, {}, dispatch=(1, 1, 1), outputs={"o": 1}, backend="interp")
