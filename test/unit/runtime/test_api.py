"""`vyre.run`: round trips of every dtype on both backends, the
start content of read_write inputs, and every argument error with its message.

Oracles are numpy expressions written here."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime import api

WG = 4


@pytest.fixture(params=["interp", "wgpu"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "wgpu":
        request.getfixturevalue("gpu_adapter")
    return request.param


def groups(n: int) -> tuple[int, int, int]:
    return (max(1, -(-n // WG)), 1, 1)


def program(buffers: list[BufferDecl], *body: N) -> Program:
    return Program(buffers=buffers, workgroup_size=(WG, 1, 1), entry=[N.let("i", E.gid_x()), *body])


I = E.var("i")


def copy_program(dtype: DataType) -> Program:
    return program(
        [BufferDecl.read("src", 0, dtype), BufferDecl.read_write("dst", 1, dtype)],
        N.store("dst", I, E.load("src", I)),
    )


SAMPLES: dict[DataType, np.ndarray] = {
    DataType.U32: np.array([0, 1, 0xFFFF_FFFF, 0x8000_0000, 12345, 7], dtype=np.uint32),
    DataType.BOOL: np.array([0, 1, 1, 0, 1], dtype=np.uint32),
    DataType.I32: np.array([-1, 0, -(2**31), 2**31 - 1, 42], dtype=np.int32),
    DataType.U64: np.array([0x0123_4567_89AB_CDEF, 2**64 - 1, 0, 2**32], dtype=np.uint64),
    DataType.VEC2U32: np.array([[1, 2], [0xFFFF_FFFF, 0], [5, 6]], dtype=np.uint32),
    DataType.VEC4U32: np.arange(20, dtype=np.uint32).reshape(5, 4) * 0x0101_0101,
}


@pytest.mark.parametrize("dtype", list(SAMPLES), ids=lambda t: t.value)
def test_copy_round_trip(backend: str, dtype: DataType) -> None:
    data = SAMPLES[dtype]
    n = data.shape[0]
    out = vyre.run(copy_program(dtype), {"src": data}, dispatch=groups(n), outputs={"dst": n}, backend=backend)
    assert list(out) == ["dst"]
    assert out["dst"].dtype == data.dtype and out["dst"].shape == data.shape
    assert np.array_equal(out["dst"], data)


@pytest.mark.parametrize(
    ("dtype", "oracle"),
    [
        (DataType.U64, lambda a: (a & 0xFFFF_FFFF).astype(np.uint32)),  # lane 0 = low word
        (DataType.I32, lambda a: a.view(np.uint32)),                     # same bits
        (DataType.VEC2U32, lambda a: a[:, 0].copy()),                    # component x
        (DataType.VEC4U32, lambda a: a[:, 0].copy()),
        (DataType.BOOL, lambda a: a.copy()),
    ],
    ids=lambda v: getattr(v, "value", ""),
)
def test_element_layout(backend: str, dtype: DataType, oracle: Any) -> None:
    """Casting each element to u32 on the device exposes its first word."""
    data = SAMPLES[dtype]
    n = data.shape[0]
    prog = program(
        [BufferDecl.read("src", 0, dtype), BufferDecl.read_write("dst", 1, DataType.U32)],
        N.store("dst", I, E.cast(DataType.U32, E.load("src", I))),
    )
    out = vyre.run(prog, {"src": data}, dispatch=groups(n), outputs={"dst": n}, backend=backend)
    assert np.array_equal(out["dst"], oracle(data))


def test_u64_and_vector_outputs_are_built_in_user_form(backend: str) -> None:
    src = np.array([0, 1, 0xFFFF_FFFF], dtype=np.uint32)
    prog = program(
        [
            BufferDecl.read("src", 0, DataType.U32),
            BufferDecl.read_write("wide", 1, DataType.U64),
            BufferDecl.read_write("neg", 2, DataType.U64),
            BufferDecl.read_write("quad", 3, DataType.VEC4U32),
        ],
        N.store("wide", I, E.cast(DataType.U64, E.load("src", I))),
        N.store("neg", I, E.cast(DataType.U64, E.i32(-2))),
        N.store("quad", I, E.cast(DataType.VEC4U32, E.load("src", I))),
    )
    out = vyre.run(prog, {"src": src}, dispatch=(1, 1, 1), outputs={"wide": 3, "neg": 3, "quad": 3}, backend=backend)
    assert out["wide"].tolist() == [0, 1, 0xFFFF_FFFF]
    assert out["neg"].tolist() == [2**64 - 2] * 3
    assert out["quad"].shape == (3, 4)
    assert out["quad"].tolist() == [[v] * 4 for v in src.tolist()]


def test_read_write_input_starts_with_its_content(backend: str) -> None:
    prog = program(
        [BufferDecl.read_write("acc", 0, DataType.U32)],
        N.store("acc", I, E.add(E.load("acc", I), E.u32(1))),
    )
    start = np.array([10, 20, 0xFFFF_FFFF, 5, 6], dtype=np.uint32)
    out = vyre.run(prog, {"acc": start}, dispatch=groups(5), backend=backend)
    assert out["acc"].tolist() == [11, 21, 0, 6, 7]
    assert start.tolist() == [10, 20, 0xFFFF_FFFF, 5, 6]


def test_outputs_start_zeroed_and_every_read_write_buffer_returns(backend: str) -> None:
    prog = program(
        [
            BufferDecl.read_write("written", 0, DataType.U32),
            BufferDecl.read_write("untouched", 1, DataType.I32),
            BufferDecl.read("unused", 2, DataType.U32),
        ],
        N.if_(E.eq(E.mod(I, E.u32(2)), E.u32(0)), [N.store("written", I, E.add(I, E.u32(100)))]),
    )
    out = vyre.run(
        prog,
        {"unused": np.zeros(1, dtype=np.uint32)},
        dispatch=(2, 1, 1),
        outputs={"written": 8, "untouched": 3},
        backend=backend,
    )
    assert sorted(out) == ["untouched", "written"]
    assert out["written"].tolist() == [100, 0, 102, 0, 104, 0, 106, 0]
    assert out["untouched"].dtype == np.int32 and out["untouched"].tolist() == [0, 0, 0]


def test_inputs_are_not_mutated(backend: str) -> None:
    prog = program(
        [BufferDecl.read_write("a", 0, DataType.U32), BufferDecl.read_write("b", 1, DataType.U64)],
        N.store("a", I, E.u32(7)),
        N.store("b", I, E.cast(DataType.U64, E.u32(9))),
    )
    a = np.array([1, 2, 3, 4], dtype=np.uint32)
    b = np.array([5, 6, 7, 8], dtype=np.uint64)
    out = vyre.run(prog, {"a": a, "b": b}, dispatch=(1, 1, 1), backend=backend)
    assert out["a"].tolist() == [7] * 4 and out["b"].tolist() == [9] * 4
    assert a.tolist() == [1, 2, 3, 4] and b.tolist() == [5, 6, 7, 8]
    out["a"][0] = 1234  # results are fresh arrays, not views of anything reused
    again = vyre.run(prog, {"a": a, "b": b}, dispatch=(1, 1, 1), backend=backend)
    assert again["a"].tolist() == [7] * 4


def test_bytes_buffers(backend: str) -> None:
    """A Bytes element count is its number of bytes; BufLen counts words."""
    prog = program(
        [
            BufferDecl.read("blob", 0, DataType.BYTES),
            BufferDecl.read_write("kept", 1, DataType.BYTES),
            BufferDecl.read_write("fresh", 2, DataType.BYTES),
            BufferDecl.read_write("lens", 3, DataType.U32),
        ],
        N.if_(
            E.eq(I, E.u32(0)),
            [
                N.store("lens", E.u32(0), E.buf_len("blob")),
                N.store("lens", E.u32(1), E.buf_len("kept")),
                N.store("lens", E.u32(2), E.buf_len("fresh")),
            ],
        ),
    )
    out = vyre.run(
        prog,
        {"blob": b"hello", "kept": np.frombuffer(b"abcdefghi", dtype=np.uint8)},
        dispatch=(1, 1, 1),
        outputs={"fresh": 6, "lens": 3},
        backend=backend,
    )
    assert out["lens"].tolist() == [2, 3, 2]
    assert out["kept"].dtype == np.uint8 and out["kept"].tobytes() == b"abcdefghi"
    assert out["fresh"].tobytes() == b"\0" * 6


def test_empty_buffers(backend: str) -> None:
    """Zero-element inputs and outputs: loads read 0, stores do nothing, BufLen is 0."""
    prog = program(
        [
            BufferDecl.read("nothing", 0, DataType.U64),
            BufferDecl.read_write("void", 1, DataType.VEC4U32),
            BufferDecl.read_write("o", 2, DataType.U32),
        ],
        N.store("void", I, E.cast(DataType.VEC4U32, E.u32(5))),
        N.store("o", I, E.add(E.buf_len("nothing"), E.add(E.buf_len("void"),
                                                         E.cast(DataType.U32, E.load("nothing", I))))),
    )
    out = vyre.run(
        prog,
        {"nothing": np.zeros(0, dtype=np.uint64)},
        dispatch=(1, 1, 1),
        outputs={"void": 0, "o": 2},
        backend=backend,
    )
    assert out["void"].shape == (0, 4) and out["void"].dtype == np.uint32
    assert out["o"].tolist() == [0, 0]


def test_multi_dimensional_dispatch(backend: str) -> None:
    prog = Program(
        buffers=[BufferDecl.read_write("o", 0, DataType.U32)],
        workgroup_size=(2, 2, 1),
        entry=[
            N.let("x", E.invocation_id(0)),
            N.let("y", E.invocation_id(1)),
            N.let("z", E.invocation_id(2)),
            N.store(
                "o",
                E.add(E.add(E.var("x"), E.mul(E.var("y"), E.u32(4))), E.mul(E.var("z"), E.u32(24))),
                E.add(E.mul(E.var("x"), E.u32(100)), E.add(E.mul(E.var("y"), E.u32(10)), E.var("z"))),
            ),
        ],
    )
    out = vyre.run(prog, {}, dispatch=(2, 3, 2), outputs={"o": 48}, backend=backend)
    x, y, z = np.meshgrid(np.arange(4), np.arange(6), np.arange(2), indexing="ij")
    expected = np.zeros(48, dtype=np.uint32)
    expected[x + 4 * y + 24 * z] = 100 * x + 10 * y + z
    assert np.array_equal(out["o"], expected)


# ---------------------------------------------------------------------------
# Errors (no backend work happens: the interpreter suffices)
# ---------------------------------------------------------------------------

XOR = program(
    [
        BufferDecl.read("a", 0, DataType.U32),
        BufferDecl.read_write("out", 1, DataType.U32),
        BufferDecl.uniform("params", 2, DataType.U32),
        BufferDecl.workgroup("tile", 4, DataType.U32),
    ],
    N.store("out", I, E.bitxor(E.load("a", I), E.load("params", E.u32(0)))),
)
A = np.arange(4, dtype=np.uint32)
P = np.array([1], dtype=np.uint32)


def run_xor(**changes: Any) -> dict[str, np.ndarray]:
    arguments: dict[str, Any] = {
        "inputs": {"a": A, "params": P},
        "dispatch": (1, 1, 1),
        "outputs": {"out": 4},
        "backend": "interp",
    }
    arguments.update(changes)
    return vyre.run(XOR, arguments.pop("inputs"), **arguments)


def test_reference_run_of_the_error_kernel() -> None:
    assert run_xor()["out"].tolist() == (A ^ 1).tolist()


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"inputs": {"a": A, "params": P, "nope": A}}, ValueError,
         r"input `nope` is not a buffer of this program \(buffers: `a`, `out`, `params`, `tile`\)"),
        ({"outputs": {"out": 4, "ghost": 1}}, ValueError, r"output `ghost` is not a buffer of this program"),
        ({"inputs": {"params": P}}, ValueError, r"missing input for read_only buffer `a` \(u32\)"),
        ({"inputs": {"a": A}}, ValueError, r"missing input for uniform buffer `params` \(u32\)"),
        ({"outputs": {}}, ValueError, r"read_write buffer `out` has no size: give its element count in outputs"),
        ({"outputs": None}, ValueError, r"read_write buffer `out` has no size"),
        ({"outputs": {"out": 4, "a": 4}}, ValueError,
         r"output `a` is a read_only buffer; outputs name read_write buffers only"),
        ({"outputs": {"out": 4, "tile": 4}}, ValueError, r"output `tile` is a workgroup buffer"),
        ({"inputs": {"a": A, "params": P, "tile": A}}, ValueError,
         r"input `tile` is a workgroup buffer; workgroup memory starts zeroed"),
        ({"inputs": {"a": A, "params": P, "out": A}}, ValueError,
         r"buffer `out` is given both as an input and as an output size"),
        ({"outputs": {"out": -1}}, ValueError, r"size of output `out` is negative \(-1\)"),
        ({"outputs": {"out": 4.0}}, TypeError, r"size of output `out` must be an int"),
        ({"outputs": {"out": True}}, TypeError, r"size of output `out` must be an int"),
        ({"outputs": {"out": "4"}}, TypeError, r"size of output `out` must be an int"),
        ({"inputs": {"a": A.astype(np.int64), "params": P}}, TypeError,
         r"input `a` \(u32\) must be a 1-D numpy array of dtype uint32, got a numpy array of dtype int64"),
        ({"inputs": {"a": A.reshape(2, 2), "params": P}}, TypeError, r"input `a` \(u32\).*shape \(2, 2\)"),
        ({"inputs": {"a": [0, 1, 2, 3], "params": P}}, TypeError, r"input `a` \(u32\).*type list"),
        ({"inputs": [("a", A)]}, TypeError, r"inputs must be a dict"),
        ({"outputs": [("out", 4)]}, TypeError, r"outputs must be a dict"),
        ({"backend": "cuda"}, ValueError, r"unknown backend 'cuda'; choose one of: 'interp', 'wgpu'"),
        ({"backend": None}, ValueError, r"unknown backend None"),
    ],
)
def test_argument_errors(changes: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        run_xor(**changes)


@pytest.mark.parametrize(
    "dispatch",
    [(1, 1), (1, 1, 1, 1), (0, 1, 1), (1, -1, 1), (1.0, 1, 1), (True, 1, 1), "111", 4, None, (1, "1", 1)],
)
def test_dispatch_must_be_three_positive_ints(dispatch: object) -> None:
    with pytest.raises(ValueError, match=r"dispatch must be 3 positive ints \(workgroup counts along x, y, z\), got"):
        run_xor(dispatch=dispatch)


def test_dispatch_accepts_numpy_ints_and_lists() -> None:
    assert run_xor(dispatch=[np.int64(1), 1, np.uint32(1)])["out"].tolist() == (A ^ 1).tolist()


def test_bool_input_values() -> None:
    prog = program(
        [BufferDecl.read("flags", 0, DataType.BOOL), BufferDecl.read_write("o", 1, DataType.U32)],
        N.store("o", I, E.cast(DataType.U32, E.load("flags", I))),
    )
    with pytest.raises(ValueError, match=r"input `flags` \(bool\) holds 3 at index 2; Bool elements must be 0 or 1"):
        vyre.run(prog, {"flags": np.array([0, 1, 3], dtype=np.uint32)}, dispatch=(1, 1, 1), outputs={"o": 3}, backend="interp")
    with pytest.raises(TypeError, match=r"input `flags` \(bool\) must be a 1-D numpy array of dtype uint32 holding 0 or 1"):
        vyre.run(prog, {"flags": np.array([True, False])}, dispatch=(1, 1, 1), outputs={"o": 3}, backend="interp")


def test_not_a_program() -> None:
    with pytest.raises(TypeError, match=r"vyre.run expects a vyre.ir.Program, got str"):
        vyre.run("builtin.module {}", {}, dispatch=(1, 1, 1))  # type: ignore[arg-type]


def test_invalid_program_raises_before_any_backend_work(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def spy(*args: object) -> dict[str, np.ndarray]:
        calls.append("called")
        return {}

    monkeypatch.setitem(api.BACKENDS, "wgpu", spy)
    bad = program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read("b", 0, DataType.U32)],
        N.store("a", I, E.var("nowhere")),
    )
    with pytest.raises(vyre.ValidationError) as info:
        vyre.run(bad, {"a": A, "b": A}, dispatch=(1, 1, 1), backend="wgpu")
    rules = {d.rule for d in info.value.diagnostics}
    assert {"V002", "V005", "V006"} <= rules
    assert "duplicate binding slot 0 (buffer `b`)" in str(info.value)
    assert calls == []
    # validation comes first, even when the arguments are wrong too
    with pytest.raises(vyre.ValidationError):
        vyre.run(bad, {"zzz": A}, dispatch=(0, 0, 0), backend="wgpu")
    assert calls == []


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_uniform_buffers_hold_at_most_64_kib_on_every_backend(backend: str, gpu_adapter) -> None:
    program = Program(
        buffers=[BufferDecl.uniform("u", 0, DataType.U32), BufferDecl.read_write("o", 1, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("o", E.u32(0), E.buf_len("u"))],
    )
    fits = vyre.run(program, {"u": np.zeros(16384, np.uint32)}, dispatch=(1, 1, 1),
                    outputs={"o": 1}, backend=backend)
    assert fits["o"].tolist() == [16384]
    with pytest.raises(ValueError, match="uniform buffer `u` holds 65540 bytes"):
        vyre.run(program, {"u": np.zeros(16385, np.uint32)}, dispatch=(1, 1, 1),
                 outputs={"o": 1}, backend=backend)
