"""wgpu backend: large and split dispatches, repeated runs, argument checks,
device limits and readable shader errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.pipeline import lowered as lower
from vyre.testing.backends import execute_wgpu as execute
from vyre.runtime.wgpu_device import gpu_device

M32 = 0xFFFF_FFFF
GID = E.gid_x()


def _u32(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.uint32)


def _id_program(size: tuple[int, int, int], extent: tuple[int, int, int]) -> Program:
    """out[flat(invocation id)] = (workgroup id x, y, z) packed 10 bits each, + 1."""
    flat = E.add(
        E.invocation_id(0),
        E.mul(E.u32(extent[0]), E.add(E.invocation_id(1), E.mul(E.u32(extent[1]), E.invocation_id(2)))),
    )
    packed = E.bitor(
        E.workgroup_id(0), E.bitor(E.shl(E.workgroup_id(1), E.u32(10)), E.shl(E.workgroup_id(2), E.u32(20)))
    )
    return Program(
        [BufferDecl.read_write("out", 0, DataType.U32)], size, [N.store("out", flat, E.add(packed, E.u32(1)))]
    )


def _id_oracle(size: tuple[int, int, int], groups: tuple[int, int, int]) -> np.ndarray:
    ex, ey, ez = (s * g for s, g in zip(size, groups))
    z, y, x = np.meshgrid(np.arange(ez), np.arange(ey), np.arange(ex), indexing="ij")
    wx, wy, wz = x // size[0], y // size[1], z // size[2]
    return (wx | (wy << 10) | (wz << 20)).reshape(-1).astype(np.uint32) + 1


def test_more_than_65535_workgroups_on_an_axis(gpu_adapter: Any) -> None:
    groups = 65_535 + 300
    program = Program(
        [BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1), [N.store("out", GID, E.add(GID, E.u32(1)))]
    )
    out = execute(program, {"out": _u32(np.zeros(groups))}, (groups, 1, 1))["out"]
    np.testing.assert_array_equal(out, np.arange(1, groups + 1, dtype=np.uint32))


def test_split_dispatch_in_three_dimensions_gives_exact_ids(gpu_adapter: Any) -> None:
    size, groups = (2, 2, 2), (5, 3, 2)
    extent = tuple(s * g for s, g in zip(size, groups))
    program = _id_program(size, extent)  # type: ignore[arg-type]
    total = int(np.prod(extent))
    whole = execute(program, {"out": _u32(np.zeros(total))}, groups)["out"]
    split = execute(program, {"out": _u32(np.zeros(total))}, groups, max_workgroups_per_axis=2)["out"]
    np.testing.assert_array_equal(whole, _id_oracle(size, groups))
    np.testing.assert_array_equal(split, whole)


def test_repeated_runs_are_identical_and_buffers_are_reused(gpu_adapter: Any) -> None:
    program = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (64, 1, 1),
        [N.store("out", GID, E.bitxor(E.mul(E.load("a", GID), E.u32(2654435761)), E.load("out", GID)))],
    )
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2**32, 1024, dtype=np.uint32)
    start = rng.integers(0, 2**32, 1024, dtype=np.uint32)
    want = ((a.astype(np.uint64) * 2654435761) % 2**32).astype(np.uint32) ^ start
    a_before = a.copy()
    results = []
    for small in (False, True, False, True, False):
        if small:  # another shape in between: its buffers must not leak into the next run
            given = start[:64].copy()
            other = execute(program, {"a": a[:64], "out": given}, (1, 1, 1))["out"]
            np.testing.assert_array_equal(other, want[:64])
            np.testing.assert_array_equal(given, start[:64])
            continue
        given = start.copy()
        results.append(execute(program, {"a": a, "out": given}, (16, 1, 1))["out"])
        np.testing.assert_array_equal(given, start)  # the read_write input is not modified in place
    for result in results:
        np.testing.assert_array_equal(result, want)
    np.testing.assert_array_equal(a, a_before)  # nor the read-only one


def test_zero_workgroups_returns_the_inputs(gpu_adapter: Any) -> None:
    program = Program([BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1), [N.store("out", GID, E.u32(1))])
    out = execute(program, {"out": _u32([4, 5])}, (0, 1, 1))["out"]
    assert out.tolist() == [4, 5]


def test_programs_with_calls_run(gpu_adapter: Any) -> None:
    program = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (4, 1, 1),
        [
            N.store("out", GID, E.call("primitive.math.add", [E.load("a", GID), E.u32(10)])),
            N.store(
                "out",
                E.add(GID, E.u32(4)),
                E.call("primitive.bitwise.extract_bits", [E.load("a", GID), E.load("a", E.u32(3)), E.u32(40)]),
            ),
        ],
    )
    a = [0xF0F0_F0F0, 0xFFFF_FFFF, 7, 28]
    out = execute(program, {"a": _u32(a), "out": _u32([0] * 8)}, (1, 1, 1))["out"].tolist()
    assert out == [(v + 10) % 2**32 for v in a] + [v >> 28 for v in a]


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def _copy_program() -> Program:
    return Program(
        [BufferDecl.read("a", 0, DataType.U64), BufferDecl.uniform("u", 1, DataType.U32),
         BufferDecl.read_write("out", 2, DataType.U32)],
        (1, 1, 1),
        [N.store("out", GID, E.cast(DataType.U32, E.load("a", GID)))],
    )  # fmt: skip


@pytest.mark.parametrize(
    "words,dispatch,error,match",
    [
        ({"a": _u32([1, 2])}, (1, 1, 1), ValueError, "no words given for buffer `u`"),
        ({"a": _u32([1, 2]), "u": _u32([]), "out": _u32([0]), "tile": _u32([])}, (1, 1, 1), ValueError,
         "`tile`, which is not a storage or uniform buffer"),
        ({"a": _u32([1, 2, 3]), "u": _u32([]), "out": _u32([0])}, (1, 1, 1), ValueError,
         "buffer `a` holds u64 elements of 2 words, but 3 words were given"),
        ({"a": np.array([1, 2], np.int64), "u": _u32([]), "out": _u32([0])}, (1, 1, 1), TypeError,
         "words of buffer `a` must be a 1-D numpy uint32 array, got a 1-D int64 array"),
        ({"a": [1, 2], "u": _u32([]), "out": _u32([0])}, (1, 1, 1), TypeError, "got list"),
        ({"a": _u32([1, 2]), "u": _u32(np.zeros(20000)), "out": _u32([0])}, (1, 1, 1), ValueError,
         "uniform buffer `u` holds at most 16384 words"),
        ({"a": _u32([1, 2]), "u": _u32([]), "out": _u32([0])}, (1, 1), TypeError, "dispatch must be three ints"),
        ({"a": _u32([1, 2]), "u": _u32([]), "out": _u32([0])}, (1, -1, 1), ValueError, "dispatch counts"),
    ],
)  # fmt: skip
def test_bad_arguments_are_clear_errors(
    words: dict[str, Any], dispatch: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match.replace("(", r"\(").replace("[", r"\[")):
        execute(_copy_program(), words, dispatch)


def test_invalid_program_raises_validation_error() -> None:
    program = Program([BufferDecl.read("a", 0, DataType.U32)], (1, 1, 1), [N.store("a", GID, E.u32(1))])
    with pytest.raises(vyre.ValidationError, match="store to non-writable buffer `a`"):
        execute(program, {"a": _u32([0])}, (1, 1, 1))


def test_device_limits_are_clear_errors(gpu_adapter: Any) -> None:
    limits = gpu_device().limits
    too_wide = Program(
        [BufferDecl.read_write("out", 0, DataType.U32)],
        (limits["max-compute-workgroup-size-x"] + 1, 1, 1),
        [N.store("out", GID, E.u32(1))],
    )
    with pytest.raises(ValueError, match=r"workgroup_size .* exceeds the adapter limit max-compute-workgroup-size-x"):
        execute(too_wide, {"out": _u32([0])}, (1, 1, 1))
    words = limits["max-compute-workgroup-storage-size"] // 4 + 1
    too_much_shared = Program(
        [BufferDecl.workgroup("tile", words, DataType.U32), BufferDecl.read_write("out", 0, DataType.U32)],
        (1, 1, 1),
        [N.store("out", GID, E.load("tile", GID))],
    )
    with pytest.raises(ValueError, match=r"workgroup buffers `tile` \(\d+ B\).* max-compute-workgroup-storage-size"):
        execute(too_much_shared, {"out": _u32([0])}, (1, 1, 1))


def test_rejected_wgsl_is_a_runtime_error_citing_the_line(gpu_adapter: Any) -> None:
    kernel = lower(_copy_program())
    broken = kernel.wgsl.replace("return a[i];", "return a[i] + 1i;")
    line = next(k for k, text in enumerate(broken.splitlines(), 1) if "1i;" in text)
    with pytest.raises(RuntimeError) as info:
        gpu_device().pipeline(dataclasses.replace(kernel, wgsl=broken), "kernel @broken")
    message = str(info.value)
    assert message.startswith("vyre wgpu backend: wgpu/naga rejected the WGSL of kernel @broken")
    assert f"WGSL line {line}: return a[i] + 1i;" in message
    assert "Traceback" not in message


# ---------------------------------------------------------------------------
# Grids of 2^32 workgroups or more
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "groups,limit,most",
    [((65_535, 65_535, 2), 65_535, M32), ((65_535, 65_535, 65_535), 65_535, M32), ((7, 5, 3), 4, 6),
     ((9, 1, 4), 3, 2), ((5, 6, 7), 100, 11)],
)  # fmt: skip
def test_each_dispatch_slice_holds_fewer_than_2_32_workgroups(
    groups: tuple[int, int, int], limit: int, most: int
) -> None:
    """Drivers count a dispatch's workgroups in 32 bits (lavapipe ran the product
    mod 2^32 of a bigger grid, silently): slices are cut by the product too, and
    still tile the grid exactly."""
    from vyre.runtime.wgpu_backend import _slices  # pyright: ignore[reportPrivateUsage]

    slices = _slices(groups, limit, most)
    assert all(x * y * z <= most and max(x, y, z) <= limit for _, (x, y, z) in slices)
    assert sum(x * y * z for _, (x, y, z) in slices) == groups[0] * groups[1] * groups[2]
    if groups[0] * groups[1] * groups[2] < 10_000:  # every workgroup id exactly once
        seen = [
            (ox + i, oy + j, oz + k)
            for (ox, oy, oz), (x, y, z) in slices
            for i in range(x) for j in range(y) for k in range(z)
        ]  # fmt: skip
        assert sorted(seen) == [(i, j, k) for i in range(groups[0]) for j in range(groups[1]) for k in range(groups[2])]


def test_a_split_by_the_product_gives_exact_ids(gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The slices of a grid cut by the product (here at most 5 workgroups each)
    run with the ids one big dispatch gives."""
    from vyre.runtime import wgpu_backend

    size, groups = (2, 1, 1), (3, 4, 2)
    extent = tuple(s * g for s, g in zip(size, groups))
    program = _id_program(size, extent)  # type: ignore[arg-type]
    real = wgpu_backend._slices  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(wgpu_backend, "_slices", lambda g, limit: real(g, limit, 5))
    total = int(np.prod(extent))
    out = execute(program, {"out": _u32(np.zeros(total))}, groups, max_workgroups_per_axis=3)["out"]
    np.testing.assert_array_equal(out, _id_oracle(size, groups))


@pytest.mark.parametrize("dispatch", [(32_768, 32_768, 4), (65_535, 65_535, 65_535)])
def test_a_cpu_adapter_refuses_2_32_workgroups(gpu_adapter: Any, dispatch: tuple[int, int, int]) -> None:
    """On lavapipe, `out[workgroup_id.z] = 1` over (32768, 32768, 4) returned
    [0 0 0 0] in a second; (65535, 65535, 65535) [1 0 0 0]. A CPU adapter now
    refuses such a grid (it would run for many minutes), naming the limit."""
    gpu = gpu_device()
    if not gpu.cpu:
        pytest.skip(f"{gpu.adapter_name} is a GPU: it runs the grid in slices")
    program = Program([BufferDecl.read_write("out", 0, DataType.U32)], (1, 1, 1),
                      [N.store("out", E.workgroup_id(2), E.u32(1))])  # fmt: skip
    with pytest.raises(vyre.DeviceLimitError, match=r"workgroups\) exceeds the limit of 4,294,967,295 workgroups per dispatch on .*CPU"):
        vyre.run(program, {"out": _u32(np.zeros(4))}, dispatch=dispatch)
    with pytest.raises(vyre.DeviceLimitError, match="workgroups per dispatch"):
        execute(program, {"out": _u32(np.zeros(4))}, dispatch)
    assert vyre.run(program, {"out": _u32(np.zeros(4))}, dispatch=(1, 1, 4))["out"].tolist() == [1, 1, 1, 1]
