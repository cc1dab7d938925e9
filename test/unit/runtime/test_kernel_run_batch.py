"""`evaluate_many`'s columnar path (`vyre.kernels.run._Columns`, `_evaluate_columns`)
against its general path, on the interpreter and on wgpu.

The columnar path takes a batch whose values all have their port's plain type
(`bytes`, native 1-D arrays, ints); the same values in other forms (bytearray,
int64 arrays, numpy integers) take the general per-evaluation checks. Both must
give the same outputs (every port, dtype and bytes), the same errors, and
agree with CPython's oracles (hashlib, zlib, base64, the UTF-8 codec, numpy).
Real batched ops cover every shape the columnar path handles: Bytes and U32
outputs at a regular stride (digests, checksums), outputs cut to a length
output (decoders), error outputs (`OpInputError`), Bool outputs, array and
scalar inputs with the op's own `check_args`, two Bytes inputs, a re-planning
op (through the general tail), outputs kept on the device, and shared size
mappings."""

from __future__ import annotations

import base64
import hashlib
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from vyre.kernels import run as kernel_run
from vyre.kernels.run import evaluate_kernel_columns, evaluate_kernel_many
from vyre.kernels.spec import NO_ERROR, BatchSizes, OpInputError
from vyre.ops.registry import get_kernel

BACKENDS = ("interp", "wgpu")
RNG = np.random.default_rng(11)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "wgpu":
        request.getfixturevalue("gpu_adapter")
    return request.param


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each evaluate_many call took the columnar path."""
    taken: list[bool] = []
    original = kernel_run._Columns.of  # pyright: ignore[reportPrivateUsage]

    def spy(spec: Any, many: Any) -> Any:
        got = original(spec, many)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(kernel_run._Columns, "of", spy)  # pyright: ignore[reportPrivateUsage]
    return taken


def _messages(lengths: Sequence[int]) -> list[bytes]:
    return [RNG.integers(0, 256, n, dtype=np.uint8).tobytes() for n in lengths]


def _general(value: Any) -> Any:
    """The same value in a form the columnar path does not take."""
    if isinstance(value, bytes):
        return bytearray(value)
    if isinstance(value, np.ndarray):
        return value.astype(np.int64)
    return np.uint32(value)


def _same(a: Sequence[tuple[Any, ...]], b: Sequence[tuple[Any, ...]]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            u, v = np.asarray(u), np.asarray(v)
            assert u.dtype == v.dtype and u.shape == v.shape and u.tobytes() == v.tobytes()


def _both(op_id: str, many: list[list[Any]], backend: str, paths: list[bool]) -> list[tuple[Any, ...]]:
    """The outputs through the columnar path, checked equal to the general path's."""
    spec = get_kernel(op_id)
    fast = evaluate_kernel_many(spec, many, backend)
    general = evaluate_kernel_many(spec, [[_general(v) for v in args] for args in many], backend)
    assert paths[-2:] == [True, False]
    _same(fast, general)
    return fast


LENGTHS = (0, 1, 3, 4, 5, 55, 56, 63, 64, 65, 127)


def test_digests_and_checksums(backend: str, paths: list[bool]) -> None:
    messages = _messages(LENGTHS)
    got = _both("hash.sha256", [[m] for m in messages], backend, paths)
    assert [out.tobytes() for (out,) in got] == [hashlib.sha256(m).digest() for m in messages]
    got = _both("hash.crc32", [[m] for m in messages], backend, paths)
    assert [int(out[0]) for (out,) in got] == [zlib.crc32(m) for m in messages]
    regular = _messages([64] * 5)  # equal outputs at a regular stride: rows of one 2-D view
    assert [o.tobytes() for (o,) in _both("hash.sha256", [[m] for m in regular], backend, paths)] == [
        hashlib.sha256(m).digest() for m in regular
    ]


def test_decoder_outputs_are_cut_to_their_lengths(backend: str, paths: list[bool]) -> None:
    raw = _messages((0, 1, 2, 3, 10, 31))
    encoded = [base64.b64encode(m) for m in raw]
    got = _both("decode.base64", [[m] for m in encoded], backend, paths)
    assert [out.tobytes() for out, *_ in got] == raw
    assert [int(length[0]) for _, length, _, _ in got] == [len(m) for m in raw]
    assert {int(error[0]) for _, _, error, _ in got} == {NO_ERROR}
    values = [np.array(v, dtype=np.uint32) for v in ([], [0], [127, 128, 2**32 - 1], list(range(0, 300, 7)))]
    encoded_u32 = evaluate_kernel_many(get_kernel("encode.uleb128_u32"), [[v] for v in values], backend)
    back = _both("decode.uleb128_u32", [[out.tobytes()] for out, _ in encoded_u32], backend, paths)
    assert [out.tolist() for out, *_ in back] == [v.tolist() for v in values]


def test_bool_outputs(backend: str, paths: list[bool]) -> None:
    texts = ["plain".encode(), "é中𝄞".encode(), b"\xff", b"\xe2\x82", b"", b"ok\xc0\xafno"]
    got = _both("decode.utf8_validate", [[t] for t in texts], backend, paths)
    want = []
    for t in texts:
        try:
            t.decode("utf-8")
            want.append(1)
        except UnicodeDecodeError:
            want.append(0)
    assert [int(valid[0]) for valid, *_ in got] == want


def test_array_and_scalar_inputs_with_the_ops_checks(backend: str, paths: list[bool]) -> None:
    graphs = [np.array(o, dtype=np.uint32) for o in ([0], [0, 2, 2, 5], [0, 0, 0], [0, 1, 2, 3, 10])]
    got = _both("graph.csr_out_degree", [[g] for g in graphs], backend, paths)
    assert [out.tolist() for (out,) in got] == [np.diff(g.astype(np.int64)).tolist() for g in graphs]
    texts = [b"a,b,,c", b"", b",,", b"no delimiter"]
    got = _both("string.split_offsets", [[t, ord(",")] for t in texts], backend, paths)
    for text, (starts, ends, k) in zip(texts, got):
        parts = [text[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
        assert parts == text.split(b",") and int(k[0]) == len(parts)


def test_two_bytes_inputs(backend: str, paths: list[bool]) -> None:
    table = bytes((b * 7) % 5 for b in range(256))
    data = _messages((0, 5, 9, 64))
    got = _both("match.byte_class", [[d, table] for d in data], backend, paths)
    assert [out.tolist() for (out,) in got] == [[table[b] for b in d] for d in data]


def test_a_replanning_op_goes_through_the_general_tail(backend: str, paths: list[bool]) -> None:
    raw = [b"", b"x" * 40, RNG.integers(0, 4, 300, dtype=np.uint8).tobytes()]
    got = _both("compression.zlib_decompress", [[zlib.compress(m)] for m in raw], backend, paths)
    assert [out.tobytes() for out, *_ in got] == raw


def _malformed_batch() -> Iterator[tuple[list[list[Any]], int, int]]:
    good = [base64.b64encode(m) for m in _messages((3, 4, 5))]
    yield [[good[0]], [b"QUJD*A=="], [good[1]]], 1, 4
    yield [[good[0]], [good[1]], [good[2]], [b"AB=C"]], 3, 3


@pytest.mark.parametrize("case", list(range(2)))
def test_malformed_input_is_named_with_its_argument_list(case: int, backend: str, paths: list[bool]) -> None:
    many, position, offset = list(_malformed_batch())[case]
    spec = get_kernel("decode.base64")
    errors: list[OpInputError] = []
    for form in (many, [[_general(v) for v in args] for args in many]):
        with pytest.raises(OpInputError) as caught:
            evaluate_kernel_many(spec, form, backend)
        errors.append(caught.value)
    assert paths == [True, False]
    fast, general = errors
    assert str(fast) == str(general) and (fast.offset, fast.code) == (general.offset, general.code)
    assert fast.offset == offset and f"argument list {position} of {len(many)}" in str(fast)
    single = pytest.raises(OpInputError, evaluate_kernel_many, spec, [many[position]], backend).value
    assert (single.offset, single.code) == (fast.offset, fast.code) and "argument list" not in str(single)
    kept = evaluate_kernel_many(spec, many, backend, raise_errors=False)  # the error outputs themselves
    assert int(kept[position][2][0]) == offset


def _error(call: Callable[[], object]) -> tuple[type[BaseException], str]:
    with pytest.raises((TypeError, ValueError)) as caught:
        call()
    return type(caught.value), str(caught.value)


def test_argument_errors_name_the_argument_list(paths: list[bool]) -> None:
    spec = get_kernel("graph.csr_out_degree")
    bad = [[np.array([0, 2], dtype=np.uint32)], [np.array([0, 3, 1], dtype=np.uint32)]]
    fast = _error(lambda: evaluate_kernel_many(spec, bad, "interp"))
    general = _error(lambda: evaluate_kernel_many(spec, [[args[0].astype(np.int64)] for args in bad], "interp"))
    assert paths == [True, False] and fast == general
    assert fast[0] is ValueError and "non-decreasing" in fast[1] and fast[1].endswith("(argument list 1 of 2 in ops.evaluate_many)")
    sha = get_kernel("hash.sha256")
    kind, text = _error(lambda: evaluate_kernel_many(sha, [[b"a"], ["text"]], "interp"))
    assert kind is TypeError and "must be bytes" in text and "(argument list 1 of 2" in text
    kind, text = _error(lambda: evaluate_kernel_many(sha, [[b"a"], [b"b", b"c"]], "interp"))
    assert kind is ValueError and "takes 1 input" in text and "(argument list 1 of 2" in text
    kind, text = _error(lambda: evaluate_kernel_many(sha, [["text"]], "interp"))
    assert "argument list" not in text  # a single evaluation: the message as it is


def test_columns_by_port_and_outputs_on_the_device(gpu_adapter: object, paths: list[bool]) -> None:
    raw = _messages((1, 2, 30))
    many = [[base64.b64encode(m)] for m in raw]
    spec = get_kernel("decode.base64")
    columns = evaluate_kernel_columns(spec, many, "wgpu")
    assert [len(c) for c in columns] == [3, 3, 3, 3] and [o.tobytes() for o in columns[0]] == raw
    device = evaluate_kernel_many(spec, many, "wgpu", on_device=True)
    assert [out.numpy().tobytes() for out, *_ in device] == raw and paths == [True, True]


def test_equal_sizes_share_one_read_only_mapping(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = get_kernel("hash.sha256")
    seen: list[Any] = []
    assert spec.plan_many is not None
    original = spec.plan_many

    def spy(sizes: Any, scalars: Any) -> Any:
        seen.extend([sizes, scalars])
        return original(sizes, scalars)

    import dataclasses

    spied = dataclasses.replace(spec, plan_many=spy)
    messages = _messages([8] * 6 + [3])
    got = evaluate_kernel_many(spied, [[m] for m in messages], "interp")
    assert [o.tobytes() for (o,) in got] == [hashlib.sha256(m).digest() for m in messages]
    sizes, scalars = seen
    assert [dict(s) for s in sizes] == [{"data": len(m)} for m in messages]
    assert sizes[0] is sizes[5] and sizes[0] is not sizes[6] and all(dict(s) == {} for s in scalars)
    with pytest.raises(TypeError):
        sizes[0]["data"] = 9  # shared, so read-only
    monkeypatch.setattr(kernel_run, "SHARED_ROWS", 1)  # many distinct rows: a dict each
    seen.clear()
    evaluate_kernel_many(spied, [[m] for m in messages], "interp")
    assert [s for s in seen[0]] == [{"data": len(m)} for m in messages] and seen[0][0] is not seen[0][1]


def test_a_split_array_is_taken_as_it_is_and_checked(paths: list[bool]) -> None:
    import dataclasses

    from vyre.kernels.spec import BatchPlan

    spec = get_kernel("hash.sha256")
    assert spec.plan_many is not None
    original = spec.plan_many

    def as_array(sizes: Any, scalars: Any) -> BatchPlan:
        batch = original(sizes, scalars)
        return BatchPlan(batch.plan, {"out": np.array(batch.splits["out"], dtype=np.int64)})

    def too_short(sizes: Any, scalars: Any) -> BatchPlan:
        batch = original(sizes, scalars)
        return BatchPlan(batch.plan, {"out": np.zeros((len(sizes), 1), dtype=np.int64)})

    messages = _messages((1, 70, 3))
    got = evaluate_kernel_many(dataclasses.replace(spec, plan_many=as_array), [[m] for m in messages], "interp")
    assert [o.tobytes() for (o,) in got] == [hashlib.sha256(m).digest() for m in messages]
    with pytest.raises(RuntimeError, match="not \\(3, 2\\) \\(a library bug\\)"):
        evaluate_kernel_many(dataclasses.replace(spec, plan_many=too_short), [[m] for m in messages], "interp")


def test_uint8_array_slices_take_the_columnar_path(backend: str, paths: list[bool]) -> None:
    """Messages as 1-D uint8 arrays (slices of one array, strided ones, mixed with
    bytes): the columnar path, digests equal to hashlib's."""
    blob = RNG.integers(0, 256, 70 * 64, dtype=np.uint8)
    lengths = [*LENGTHS, *range(20)]
    many: list[list[Any]] = [[blob[i * 64 : i * 64 + n]] for i, n in enumerate(lengths)]
    many[3] = [blob[::2][:40]]  # strided
    many[5] = [bytes(blob[:17])]  # bytes beside arrays
    got = evaluate_kernel_many(get_kernel("hash.sha256"), many, backend)
    assert paths[-1] is True
    assert [out.tobytes() for (out,) in got] == [hashlib.sha256(bytes(m)).digest() for (m,) in many]


def _array_batches(blob: np.ndarray) -> Iterator[list[list[Any]]]:
    """Batches of uint8 arrays for each way `_laid_bytes` joins them: whole
    words, no copy; padded (lengths not multiples of 4, empty messages); a
    strided or reversed array among whole words, among padded ones, beside
    bytes (copied before the join)."""
    yield [[blob[i * 64 : i * 64 + 4 * (i % 17)]] for i in range(33)]
    yield [[blob[i * 64 : i * 64 + (i * 7) % 70]] for i in range(33)]
    words = [[blob[i * 64 : i * 64 + 4 * (i % 5)]] for i in range(33)]
    words[4], words[9] = [blob[::2][:24]], [blob[::-1][:8]]
    yield words
    mixed: list[list[Any]] = [[blob[i * 64 : i * 64 + i % 9]] for i in range(33)]
    mixed[1], mixed[2], mixed[3] = [bytes(blob[:5])], [blob[1::3][:13]], [b""]
    mixed[6], mixed[7] = [blob[::-1][:3]], [np.zeros(0, dtype=np.uint8)[::2]]
    yield mixed


def test_uint8_arrays_are_joined_as_they_are(backend: str, paths: list[bool]) -> None:
    """Every `_laid_bytes` branch: digests equal hashlib's one by one, and the
    user's arrays are left as they were (the pads are never added to them)."""
    blob = RNG.integers(0, 256, 40 * 64, dtype=np.uint8)
    kept = blob.copy()
    spec = get_kernel("hash.sha256")
    for many in _array_batches(blob):
        before = [bytes(m) for (m,) in many]
        got = evaluate_kernel_many(spec, many, backend)
        assert paths[-1] is True
        assert [out.tobytes() for (out,) in got] == [hashlib.sha256(m).digest() for m in before]
        assert [bytes(m) for (m,) in many] == before
    assert np.array_equal(blob, kept)


def test_the_digest_planner_reads_size_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A million-message batch builds no mapping per message: the digest
    planner reads the sizes as a column (`size_column`) and splits its output
    with an array, equal to the pairs of the planner given plain mappings."""
    spec = get_kernel("hash.sha256")
    assert spec.plan_many is not None
    lengths = [0, 3, 64, 120, 5]
    plain = spec.plan_many([{"data": n} for n in lengths], [{}] * len(lengths))
    columns = spec.plan_many(
        BatchSizes({"data": np.array(lengths, dtype=np.int64)}, len(lengths), lambda: pytest.fail("rows made")),
        BatchSizes({}, len(lengths), lambda: pytest.fail("rows made")),
    )
    for batch in (plain, columns):
        splits = batch.splits["out"]
        assert isinstance(splits, np.ndarray) and splits.tolist() == [[8 * k, 32] for k in range(len(lengths))]
    assert [b.name for b in plain.plan.buffers] == [b.name for b in columns.plan.buffers]
    assert plain.plan.steps == columns.plan.steps
    for a, b in zip(plain.plan.buffers, columns.plan.buffers):
        assert a.count == b.count and (a.words is None) == (b.words is None)
        assert a.words is None or b.words is None or np.array_equal(a.words, b.words)

    def no_rows(*args: Any) -> Any:
        raise AssertionError("a mapping per evaluation was made")

    monkeypatch.setattr(kernel_run, "_rows", no_rows)
    messages = _messages([3, 64, 0, 9])
    got = evaluate_kernel_many(spec, [[m] for m in messages], "interp")
    assert [o.tobytes() for (o,) in got] == [hashlib.sha256(m).digest() for m in messages]


def test_malformed_arrays_are_named_as_bytes_are(backend: str, paths: list[bool]) -> None:
    """A decoder's error for a batch of uint8 arrays (the user's arrays reach
    the error's description) is the one for the same bytes."""
    many, position, offset = next(_malformed_batch())
    spec = get_kernel("decode.base64")
    errors: list[OpInputError] = []
    for form in (many, [[np.frombuffer(m, dtype=np.uint8)] for (m,) in many]):
        with pytest.raises(OpInputError) as caught:
            evaluate_kernel_many(spec, form, backend)
        errors.append(caught.value)
    assert paths == [True, True]
    assert str(errors[0]) == str(errors[1]) and errors[1].offset == offset
    assert f"argument list {position} of {len(many)}" in str(errors[1])


@pytest.mark.parametrize("wrong", [np.zeros((2, 4), np.uint8), np.zeros(8, np.uint16)], ids=["2-D", "uint16"])
def test_arrays_of_another_dtype_or_shape_take_the_general_path(wrong: np.ndarray, paths: list[bool]) -> None:
    many: list[list[Any]] = [[np.zeros(8, np.uint8)] for _ in range(40)]
    many[7] = [wrong]
    with pytest.raises(TypeError, match=r"input `data` of `hash.sha256`.*argument list 7 of 40"):
        evaluate_kernel_many(get_kernel("hash.sha256"), many, "interp")
    assert paths[-1] is False
