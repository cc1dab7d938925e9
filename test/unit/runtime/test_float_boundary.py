"""Strict floats at the boundaries: numpy <-> host words (`vyre.runtime.host`)
and float buffers on the wgpu backend (`lengths`, half-word packing, concurrent
neighbour stores, out of bounds, buf_len).

Floats are bit patterns everywhere: every expectation compares bits, computed
here with numpy integer operations (the packing of two 16-bit elements per word,
element 2k low, is rebuilt independently of the host module's views).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vyre.ir import BufferDecl, DataType as T, Expr as E, Node as N, Program
from vyre.pipeline import prepare
from vyre.runtime.host import (
    PACKED_HALF_TYPES,
    from_words,
    to_words,
    word_count,
    zero_words,
)

GID = E.gid_x()
LID = E.local_id(0)
FLOATS = [T.F32, T.F16, T.BF16]
USER_DTYPE = {T.F32: np.float32, T.F16: np.float16, T.BF16: np.uint16}
BITS_DTYPE = {T.F32: np.uint32, T.F16: np.uint16, T.BF16: np.uint16}
SPECIAL = {  # NaN payloads (quiet and signalling), subnormals, zeros, infinities
    T.F32: [0x7F80_0001, 0xFFC1_2345, 0x7FC0_0000, 0x0000_0001, 0x807F_FFFF, 0x8000_0000,
            0x0000_0000, 0x7F80_0000, 0xFF80_0000, 0x3F80_0000, 0x0080_0000],
    T.F16: [0x7C01, 0xFE01, 0x7E00, 0x0001, 0x83FF, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x3C00],
    T.BF16: [0x7F81, 0xFFC1, 0x7FC0, 0x0001, 0x807F, 0x8000, 0x0000, 0x7F80, 0xFF80, 0x3F80],
}  # fmt: skip


def _bits(dtype: T, n: int, seed: int) -> np.ndarray:
    """n bit patterns of `dtype`: the special values first, then random bits."""
    rng = np.random.default_rng(seed)
    width = BITS_DTYPE[dtype]
    bits = rng.integers(0, np.iinfo(width).max, size=n, dtype=width, endpoint=True)
    special = np.array(SPECIAL[dtype][:n], dtype=width)
    bits[: special.size] = special
    return bits


def _pack(dtype: T, bits: np.ndarray, pad: int = 0) -> np.ndarray:
    """The words of a buffer holding `bits`: F32 one per word; F16/BF16 two per
    word, element 2k in the low half (`pad` fills the upper half of an odd tail)."""
    if dtype is T.F32:
        return bits.astype(np.uint32)
    halves = np.full(2 * ((bits.size + 1) // 2), pad, dtype=np.uint32)
    halves[: bits.size] = bits
    return (halves[0::2] | (halves[1::2] << 16)).astype(np.uint32)


def _user(dtype: T, bits: np.ndarray) -> np.ndarray:
    return bits.view(USER_DTYPE[dtype]) if dtype is not T.BF16 else bits.copy()


def _execute(
    program: Program,
    words: dict[str, np.ndarray],
    dispatch: tuple[int, int, int],
    lengths: dict[str, int] | None = None,
) -> dict[str, np.ndarray]:
    from vyre.runtime.wgpu_backend import execute

    return execute(prepare(program), words, dispatch, lengths=lengths)


# ---------------------------------------------------------------------------
# Host words
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 5, 6, 11])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.value)
def test_host_round_trip_is_bit_exact(dtype: T, n: int) -> None:
    bits = _bits(dtype, n, seed=n)
    words, count = to_words("buf", dtype, _user(dtype, bits))
    assert count == n
    assert words.dtype == np.uint32 and words.ndim == 1 and not words.flags.writeable
    assert words.tolist() == _pack(dtype, bits).tolist()
    assert words.shape[0] == word_count(dtype, n) == (n if dtype is T.F32 else (n + 1) // 2)
    back = from_words("buf", dtype, np.array(words), n)
    assert back.dtype == USER_DTYPE[dtype] and back.shape == (n,)
    assert back.view(BITS_DTYPE[dtype]).tolist() == bits.tolist()  # NaN payloads, subnormals
    zero = zero_words(dtype, n)
    assert zero.shape == (word_count(dtype, n),) and not zero.any()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.value)
def test_host_big_endian_and_strided_inputs_keep_their_bits(dtype: T) -> None:
    bits = _bits(dtype, 7, seed=3)
    user = _user(dtype, bits)
    expected = _pack(dtype, bits).tolist()
    assert to_words("b", dtype, user.astype(user.dtype.newbyteorder(">")))[0].tolist() == expected
    doubled = np.repeat(user, 2)[::2]  # non-contiguous
    assert to_words("b", dtype, doubled)[0].tolist() == expected


def test_host_bf16_from_ml_dtypes_when_installed() -> None:
    bits = _bits(T.BF16, 5, seed=1)
    try:
        import ml_dtypes  # pyright: ignore  # optional
    except ImportError:
        ml_dtypes = None
    if ml_dtypes is not None:
        words, count = to_words("b", T.BF16, bits.view(ml_dtypes.bfloat16))
        assert count == 5 and words.tolist() == _pack(T.BF16, bits).tolist()
    # BF16 results are uint16 bit patterns either way
    back = from_words("b", T.BF16, _pack(T.BF16, bits), 5)
    assert back.dtype == np.uint16 and back.tolist() == bits.tolist()


@pytest.mark.parametrize(
    ("dtype", "value"),
    [
        (T.F32, np.zeros(3, np.float64)),
        (T.F32, np.zeros(3, np.uint32)),
        (T.F32, np.zeros((3, 1), np.float32)),
        (T.F16, np.zeros(3, np.float32)),
        (T.F16, np.zeros(3, np.uint16)),
        (T.F16, np.zeros((2, 2), np.float16)),
        (T.BF16, np.zeros(3, np.float16)),
        (T.BF16, np.zeros(3, np.uint32)),
        (T.BF16, [1, 2, 3]),
    ],
)
def test_host_rejects_other_dtypes_and_shapes_naming_the_buffer(dtype: T, value: Any) -> None:
    with pytest.raises(TypeError, match=rf"input `weights` \({dtype.value}\) must be"):
        to_words("weights", dtype, value)


def test_host_from_words_checks_the_word_count() -> None:
    with pytest.raises(RuntimeError, match=r"buffer `h`.*expected 3 uint32 words"):
        from_words("h", T.F16, np.zeros(2, np.uint32), 5)
    assert PACKED_HALF_TYPES == {T.F16, T.BF16}


# ---------------------------------------------------------------------------
# wgpu: float buffers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.value)
def test_copy_and_select_every_element_by_its_own_invocation(dtype: T, gpu_adapter: Any) -> None:
    """Each element of `out` and `rev` is stored by a different invocation (the
    two halves of every F16/BF16 word by neighbouring invocations, at the same
    time); `out` starts with random words, so a lost half would show. Loads past
    the end read 0, stores past the end (invocations >= n) do nothing: the unused
    upper half of the last word keeps its content. buf_len is the element count."""
    n, m = 1001, 257  # odd: the last word of a half buffer is half used
    i = E.var("i")
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, dtype),
            BufferDecl.uniform("u", 1, dtype),
            BufferDecl.read_write("out", 2, dtype),
            BufferDecl.read_write("rev", 3, dtype),
            BufferDecl.read_write("lens", 4, T.U32),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("i", GID),
            N.store("out", i, E.select(E.eq(E.mod(i, E.u32(3)), E.u32(0)), E.load("u", i), E.load("a", i))),
            N.store("rev", E.sub(E.u32(n - 1), i), E.load("a", E.add(i, E.u32(1)))),
            N.store("lens", E.u32(0), E.buf_len("a")),
            N.store("lens", E.u32(1), E.buf_len("u")),
            N.store("lens", E.u32(2), E.buf_len("out")),
        ],
    )
    a, u, start = _bits(dtype, n, 1), _bits(dtype, m, 2), _bits(dtype, n, 3)
    pad = 0xBEEF
    words = {
        "a": _pack(dtype, a),
        "u": _pack(dtype, u),
        "out": _pack(dtype, start, pad),
        "rev": _pack(dtype, np.zeros(n, BITS_DTYPE[dtype]), pad),
        "lens": np.zeros(3, np.uint32),
    }
    lengths = {"a": n, "u": m, "out": n, "rev": n}
    result = _execute(program, words, (-(-(n + 100) // 64), 1, 1), lengths)

    index = np.arange(n)
    u_ext = np.zeros(n, BITS_DTYPE[dtype])
    u_ext[:m] = u
    a_ext = np.append(a, np.zeros(1, BITS_DTYPE[dtype]))
    expected_out = np.where(index % 3 == 0, u_ext, a)
    expected_rev = a_ext[1:][::-1]  # rev[n-1-i] = a[i+1]; a[n] reads 0
    assert result["out"].tolist() == _pack(dtype, expected_out, pad).tolist()
    assert result["rev"].tolist() == _pack(dtype, expected_rev, pad).tolist()
    assert result["lens"].tolist() == [n, m, n]
    if dtype is not T.F32:
        assert result["out"].shape == ((n + 1) // 2,)
        assert int(result["out"][-1]) >> 16 == pad  # never written: element n is OOB
    back = from_words("out", dtype, result["out"], n)
    assert back.view(BITS_DTYPE[dtype]).tolist() == expected_out.tolist()


def test_bitcasts_and_literals_keep_every_bit(gpu_adapter: Any) -> None:
    n = 37
    i = E.var("i")
    program = Program(
        buffers=[
            BufferDecl.read("f", 0, T.F32),
            BufferDecl.read("h", 1, T.F16),
            BufferDecl.read("w", 2, T.U32),
            BufferDecl.read("s", 3, T.I32),
            BufferDecl.read_write("fu", 4, T.U32),
            BufferDecl.read_write("fs", 5, T.I32),
            BufferDecl.read_write("wf", 6, T.F32),
            BufferDecl.read_write("wh", 7, T.F16),
            BufferDecl.read_write("sb", 8, T.BF16),
            BufferDecl.read_write("lit", 9, T.F32),
        ],
        workgroup_size=(16, 1, 1),
        entry=[
            N.let("i", GID),
            # F32 -> U32 | I32, F16 -> U32 | I32 (zero-extended): two slots each
            N.store("fu", E.mul(i, E.u32(2)), E.bitcast(T.U32, E.load("f", i))),
            N.store("fu", E.add(E.mul(i, E.u32(2)), E.u32(1)), E.bitcast(T.U32, E.load("h", i))),
            N.store("fs", E.mul(i, E.u32(2)), E.bitcast(T.I32, E.load("f", i))),
            N.store("fs", E.add(E.mul(i, E.u32(2)), E.u32(1)), E.bitcast(T.I32, E.load("h", i))),
            # U32 | I32 -> F32, U32 -> F16, I32 -> BF16 (the low 16 bits)
            N.store("wf", E.mul(i, E.u32(2)), E.bitcast(T.F32, E.load("w", i))),
            N.store("wf", E.add(E.mul(i, E.u32(2)), E.u32(1)), E.bitcast(T.F32, E.load("s", i))),
            N.store("wh", i, E.bitcast(T.F16, E.load("w", i))),
            N.store("sb", i, E.bitcast(T.BF16, E.load("s", i))),
            N.if_(
                E.eq(i, E.u32(0)),
                [
                    N.store("lit", E.u32(0), E.float_bits(T.F32, 0x7F80_0001)),
                    N.store("lit", E.u32(1), E.float_bits(T.F32, 0x0000_0001)),
                    N.store("lit", E.u32(2), E.f32(-0.0)),
                    N.store("lit", E.u32(3), E.bitcast(T.F32, E.u32(0x807F_FFFF))),
                ],
            ),
        ],
    )
    f, h = _bits(T.F32, n, 4), _bits(T.F16, n, 5)
    w = _bits(T.F32, n, 6)
    s = _bits(T.F32, n, 7)[::-1].copy()
    words = {
        "f": _pack(T.F32, f),
        "h": _pack(T.F16, h),
        "w": w,
        "s": s,
        "fu": np.zeros(2 * n, np.uint32),
        "fs": np.zeros(2 * n, np.uint32),
        "wf": np.zeros(2 * n, np.uint32),
        "wh": _pack(T.F16, np.zeros(n, np.uint16)),
        "sb": _pack(T.BF16, np.zeros(n, np.uint16)),
        "lit": np.zeros(4, np.uint32),
    }
    lengths = {"h": n, "wh": n, "sb": n}
    result = _execute(program, words, (3, 1, 1), lengths)
    pairs = np.stack([f, h.astype(np.uint32)], axis=1).reshape(-1)
    assert result["fu"].tolist() == pairs.tolist()
    assert result["fs"].tolist() == pairs.tolist()  # i32 words are the same bits
    assert result["wf"].tolist() == np.stack([w, s], axis=1).reshape(-1).tolist()
    assert result["wh"].tolist() == _pack(T.F16, (w & 0xFFFF).astype(np.uint16)).tolist()
    assert result["sb"].tolist() == _pack(T.BF16, (s & 0xFFFF).astype(np.uint16)).tolist()
    assert result["lit"].tolist() == [0x7F80_0001, 0x0000_0001, 0x8000_0000, 0x807F_FFFF]


@pytest.mark.parametrize("dtype", [T.F16, T.BF16], ids=lambda t: t.value)
def test_workgroup_half_arrays_hold_one_element_per_word(dtype: T, gpu_adapter: Any) -> None:
    """Invocations store their element to a workgroup array, then read their
    neighbour's (local id ^ 1) and store it, a different invocation per element."""
    n = 75
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, dtype),
            BufferDecl.read_write("out", 1, dtype),
            BufferDecl.workgroup("tile", 32, dtype),
        ],
        workgroup_size=(32, 1, 1),
        entry=[
            N.store("tile", LID, E.load("a", GID)),
            N.barrier(),
            N.store("out", GID, E.load("tile", E.bitxor(LID, E.u32(1)))),
        ],
    )
    a = _bits(dtype, n, 8)
    result = _execute(
        program,
        {"a": _pack(dtype, a), "out": _pack(dtype, np.zeros(n, np.uint16))},
        (3, 1, 1),
        {"a": n, "out": n},
    )
    a_ext = np.zeros(96, np.uint16)
    a_ext[:n] = a
    expected = a_ext[np.arange(n) ^ 1]
    assert result["out"].tolist() == _pack(dtype, expected).tolist()


def test_lengths_give_the_element_count_of_half_buffers(gpu_adapter: Any) -> None:
    """Without `lengths`, an F16 buffer has 2 x words elements; with it, the
    count given (one run setup per count: 5 and 6 elements share 3 words)."""
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, T.F16),
            BufferDecl.read_write("o", 1, T.F16),
            BufferDecl.read_write("lens", 2, T.U32),
        ],
        workgroup_size=(8, 1, 1),
        entry=[
            N.store("o", GID, E.load("a", GID)),
            N.store("lens", E.u32(0), E.buf_len("a")),
            N.store("lens", E.u32(1), E.buf_len("o")),
        ],
    )
    a = np.arange(1, 7, dtype=np.uint16) | 0x3C00
    start = np.full(3, 0xAAAA_AAAA, np.uint32)

    def run(lengths: dict[str, int] | None) -> dict[str, np.ndarray]:
        words = {"a": _pack(T.F16, a), "o": start.copy(), "lens": np.zeros(2, np.uint32)}
        return _execute(program, words, (1, 1, 1), lengths)

    for lengths, count_a, count_o in [
        (None, 6, 6),
        ({"a": 5, "o": 5}, 5, 5),
        ({"a": 6, "o": 5}, 6, 5),
        ({"a": 5}, 5, 6),
        ({"a": 5, "o": 5}, 5, 5),  # the cached setup of the second run
    ]:
        result = run(lengths)
        assert result["lens"].tolist() == [count_a, count_o], lengths
        loaded = np.where(np.arange(6) < count_a, a, 0).astype(np.uint16)
        expected = _pack(T.F16, loaded[:count_o], pad=0xAAAA)
        assert result["o"].tolist() == expected.tolist(), lengths

    empty = _execute(
        program,
        {"a": np.zeros(0, np.uint32), "o": np.zeros(0, np.uint32), "lens": np.zeros(2, np.uint32)},
        (1, 1, 1),
        {"a": 0, "o": 0},
    )
    assert empty["lens"].tolist() == [0, 0] and empty["o"].shape == (0,)


@pytest.mark.parametrize(
    ("lengths", "error", "pattern"),
    [
        ({"a": 7}, ValueError, r"buffer `a` of 7 f16 elements needs 4 words"),
        ({"a": 4}, ValueError, r"buffer `a` of 4 f16 elements needs 2 words"),
        ({"lens": 3}, ValueError, r"length 3 given for buffer `lens`"),
        ({"nope": 1}, ValueError, r"length given for `nope`"),
        ({"a": -1}, ValueError, r"length of buffer `a` is negative"),
        ({"a": 5.0}, TypeError, r"length of buffer `a` must be an int"),
    ],
)
def test_lengths_are_checked(
    lengths: dict[str, Any], error: type[Exception], pattern: str, gpu_adapter: Any
) -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, T.F16), BufferDecl.read_write("lens", 1, T.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("lens", E.u32(0), E.buf_len("a"))],
    )
    words = {"a": np.zeros(3, np.uint32), "lens": np.zeros(2, np.uint32)}
    with pytest.raises(error, match=pattern):
        _execute(program, words, (1, 1, 1), lengths)


@pytest.mark.parametrize("dtype", [T.F32, T.F16], ids=lambda t: t.value)
def test_arithmetic_on_float_buffers_through_the_pipeline(dtype: T, gpu_adapter: Any) -> None:
    """`prepared.wgsl` (after float-strict) adds float buffers elementwise: each
    sum is rounded once, to nearest even (computed here in float64, where the
    sum of two F32/F16 values is exact, then rounded by numpy)."""
    n = 301
    i = E.var("i")
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, dtype),
            BufferDecl.read("b", 1, dtype),
            BufferDecl.read_write("o", 2, dtype),
        ],
        workgroup_size=(64, 1, 1),
        entry=[N.let("i", GID), N.store("o", i, E.fadd(E.load("a", i), E.load("b", i)))],
    )
    user = USER_DTYPE[dtype]
    rng = np.random.default_rng(9)
    a = (rng.standard_normal(n) * 100).astype(user)
    b = rng.standard_normal(n).astype(user)
    b[:3] = [np.finfo(user).smallest_subnormal, -a[1], 0.0]  # subnormal, exact zero
    expected = (a.astype(np.float64) + b.astype(np.float64)).astype(user)
    bits = BITS_DTYPE[dtype]
    words = {
        "a": _pack(dtype, a.view(bits)),
        "b": _pack(dtype, b.view(bits)),
        "o": zero_words(dtype, n),  # cleared on the device
    }
    lengths = {name: n for name in words} if dtype in PACKED_HALF_TYPES else None
    result = _execute(program, words, (5, 1, 1), lengths)
    assert result["o"].tolist() == _pack(dtype, expected.view(bits)).tolist()
