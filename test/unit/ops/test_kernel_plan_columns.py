"""The byte ops' batch planners read their sizes as int64 columns.

`evaluate_many`'s columnar path hands `plan_many` a `BatchSizes` (one int64
column per input); the planners of the checksums (CRC, Adler, the word
hashes), the radix codecs, UTF-8 validation, the same-shape string maps and the
scan kernels (`ScanKernel`: percent codecs, LEB128, split) read it with
`size_column` and lay their jobs out with numpy. The plan from a column equals
the plan from one mapping per evaluation, buffer by buffer and step by step,
splits included, for batches that take every branch (empty inputs, inputs past
the one-invocation walk of the checksums, past one workgroup of a scan
kernel); and a batch run builds no mapping per evaluation.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from vyre.kernels import run as kernel_run
from vyre.kernels.run import evaluate_kernel_many
from vyre.kernels.spec import BatchPlan, BatchSizes
from vyre.ops.registry import get_kernel

PLANNED = (
    "hash.crc32",
    "hash.crc32c",
    "hash.adler32",
    "hash.fnv1a32",
    "hash.murmur3_32",
    "hash.xxhash32",
    "decode.base32",
    "decode.base64",
    "decode.base64url",
    "decode.hex",
    "encode.base32_encode",
    "encode.base64_encode",
    "encode.base64url_encode",
    "encode.hex_encode_lower",
    "decode.utf8_validate",
    "string.ascii_lower",
    "string.ascii_upper",
    "match.byte_class",
    "string.split_offsets",
    "decode.url_percent",
    "encode.url_percent_encode",
    "decode.uleb128_u32",
    "encode.uleb128_u32",
)

LENGTHS: tuple[list[int], ...] = (
    [0, 3, 64, 120, 5, 4097, 0, 1],
    [70_000, 3, 0, 5_000],  # past the checksums' one-invocation walk (65,536 bytes)
    [300_000, 1, 17],  # past one workgroup of a scan kernel
    [],
)


def _forms(op_id: str, lengths: list[int]) -> tuple[list[dict[str, int]], list[dict[str, int]], BatchSizes, BatchSizes]:
    """(sizes, scalars) as one mapping per evaluation and as columns (whose
    sizes fail the test if a planner makes mappings of them)."""
    spec = get_kernel(op_id)
    names = [port.name for port in spec.inputs if not port.scalar]
    extra = {"table": 256} if op_id == "match.byte_class" else {}
    sizes = [{**{name: n for name in names}, **extra} for n in lengths]
    scalars: list[dict[str, int]] = [{"delim": 0x2C} if op_id == "string.split_offsets" else {} for _ in lengths]
    columns = {name: np.array([s[name] for s in sizes], dtype=np.int64) for name in names}
    scalar_columns = {"delim": np.full(len(lengths), 0x2C, dtype=np.int64)} if scalars and scalars[0] else {}

    def no_rows() -> Sequence[Mapping[str, int]]:
        raise AssertionError(f"`{op_id}`'s planner made a mapping per evaluation of its sizes")

    return (
        sizes,
        scalars,
        BatchSizes(columns, len(lengths), no_rows),
        BatchSizes(scalar_columns, len(lengths), lambda: scalars),
    )


def _pairs(splits: Any) -> list[tuple[int, int]]:
    return [(int(first), int(count)) for first, count in splits]


def _same(a: BatchPlan, b: BatchPlan) -> None:
    assert [(x.name, x.dtype, x.count, x.fill) for x in a.plan.buffers] == [
        (x.name, x.dtype, x.count, x.fill) for x in b.plan.buffers
    ]
    for x, y in zip(a.plan.buffers, b.plan.buffers):
        assert (x.words is None) == (y.words is None), x.name
        assert x.words is None or y.words is None or np.array_equal(x.words, y.words), x.name
    assert a.plan.steps == b.plan.steps
    assert a.splits.keys() == b.splits.keys()
    for port in a.splits:
        assert _pairs(a.splits[port]) == _pairs(b.splits[port]), port


@pytest.mark.parametrize("op_id", PLANNED)
def test_a_size_column_plans_as_the_mappings_do(op_id: str) -> None:
    plan_many = get_kernel(op_id).plan_many
    assert plan_many is not None
    for lengths in LENGTHS:
        sizes, scalars, size_columns, scalar_columns = _forms(op_id, lengths)
        _same(plan_many(sizes, scalars), plan_many(size_columns, scalar_columns))


def test_splits_are_where_the_outputs_lie() -> None:
    """An independent count of the splits: base64 output k starts on the word
    after the outputs before it, 4 ceil(n / 3) bytes long; a case map's output
    lies where its input does; a checksum's is word k."""
    lengths = [0, 1, 2, 3, 4, 10, 64, 65]
    columns, scalar_columns = _forms("encode.base64_encode", lengths)[2:]
    got = get_kernel("encode.base64_encode").plan_many
    assert got is not None
    first, expected = 0, list[tuple[int, int]]()
    for n in lengths:
        expected.append((first, 4 * -(-n // 3)))
        first += -(-4 * -(-n // 3) // 4)
    assert _pairs(got(columns, scalar_columns).splits["out"]) == expected
    lower = get_kernel("string.ascii_lower").plan_many
    assert lower is not None
    word, expected = 0, list[tuple[int, int]]()
    for n in lengths:
        expected.append((word, n))
        word += -(-n // 4)
    assert _pairs(lower(*_forms("string.ascii_lower", lengths)[2:]).splits["out"]) == expected
    crc = get_kernel("hash.crc32").plan_many
    assert crc is not None
    assert _pairs(crc(*_forms("hash.crc32", lengths)[2:]).splits["out"]) == [(k, 1) for k in range(len(lengths))]


def test_a_batch_run_makes_no_mapping_per_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The columnar path (uint8 arrays) of the switched planners, on the
    interpreter, against CPython's zlib, base64 and str codecs."""

    def no_rows(*args: Any) -> Any:
        raise AssertionError("a mapping per evaluation was made")

    monkeypatch.setattr(kernel_run, "_rows", no_rows)
    rng = np.random.default_rng(11)
    messages = [rng.integers(0, 256, n, dtype=np.uint8) for n in (0, 1, 5, 64, 67, 300)]
    many = [[m] for m in messages]
    crc = evaluate_kernel_many(get_kernel("hash.crc32"), many, "interp")
    assert [int(out[0]) for (out,) in crc] == [zlib.crc32(m.tobytes()) for m in messages]
    adler = evaluate_kernel_many(get_kernel("hash.adler32"), many, "interp")
    assert [int(out[0]) for (out,) in adler] == [zlib.adler32(m.tobytes()) for m in messages]
    encoded = evaluate_kernel_many(get_kernel("encode.base64_encode"), many, "interp")
    assert [out.tobytes() for (out,) in encoded] == [base64.b64encode(m.tobytes()) for m in messages]
    texts = [np.frombuffer(base64.b32encode(m.tobytes()), dtype=np.uint8) for m in messages]
    decoded = evaluate_kernel_many(get_kernel("decode.base32"), [[t] for t in texts], "interp")
    assert [out.tobytes() for out, *_ in decoded] == [m.tobytes() for m in messages]
    upper = evaluate_kernel_many(get_kernel("string.ascii_upper"), many, "interp")
    assert [out.tobytes() for (out,) in upper] == [m.tobytes().upper() for m in messages]
    valid = evaluate_kernel_many(get_kernel("decode.utf8_validate"), many, "interp")
    assert [bool(out[0]) for out, *_ in valid] == [_is_utf8(m.tobytes()) for m in messages]


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
