"""Every kernel op, fuzzed differentially (`test/support/kernel_fuzz.py`) against
the independent oracles of `test/support/kernel_oracles.py` (CPython, numpy,
published hashes; no vyre code): random and adversarial inputs of boundary
lengths through `ops.evaluate`, `ops.evaluate_raw`, `ops.evaluate_many` (mixed
sizes, the batched plan), the single plans' raw outputs, outputs kept on the
device and chained into other ops and `vyre.run`, `vyre.DeviceBuffer` inputs
with 0xFF padding, the interpreter with its lanes reversed, two wgpu runs;
malformed decoder input at every position class; hostile arguments.

The CI budget is small and derandomised (a fixed seed per op). Set
`VYRE_KERNEL_FUZZ=long` for the long mode (more cases, a few MB on wgpu,
three seeds); `python -m vyre.testing.fuzz --only kernel` runs the same checks
case by case under the harness (shrinking, corpus)."""

from __future__ import annotations

import ast
import gc
import os
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import kernel_fuzz as kf
import numpy as np
import pytest
from kernel_oracles import DECODERS, ORACLES, radix_error

from vyre import ops
from vyre.ir import DataType
from vyre.kernels.spec import KernelSpec, OpInputError
from vyre.ops.registry import get_kernel

LONG = os.environ.get("VYRE_KERNEL_FUZZ", "") == "long"
SEEDS = (0, 1, 2) if LONG else (0,)
OPS = kf.kernel_op_ids()

HEAVY = {
    "collection.contains_u32": 2, "collection.unique_u32": 2, "sort.key_value_u32": 3, "sort.u32": 3,
    "compression.deflate_decompress": 3, "compression.gzip_decompress": 3, "compression.zlib_decompress": 3,
    "decode.inflate_stored": 3, "graph.connected_components": 4, "match.find_all": 4,
    "scan.segmented_inclusive_u32": 4, "decode.uleb128_u32": 4, "encode.uleb128_u32": 4,
    "encode.url_percent_encode": 4,
}  # fmt: skip
"""Ops whose plans are long (radix sorts, inflate rounds): fewer CI cases."""


def budget(op_id: str, backend: str) -> int:
    if LONG:
        return 40 if backend == "wgpu" else 16
    return HEAVY.get(op_id, 6) if backend == "wgpu" else max(2, HEAVY.get(op_id, 6) - 2)


def max_length(op_id: str, backend: str) -> int:
    if LONG:
        return 5_000_000 if backend == "wgpu" else 4_200
    if op_id in HEAVY:
        return 1_100 if backend == "wgpu" else 260
    return 17_000 if backend == "wgpu" else 1_100


def _adapter(request: pytest.FixtureRequest, backend: str) -> None:
    """The Vulkan adapter for wgpu cases (skips or fails as conftest says)."""
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")


def _fail(report: kf.Report) -> None:
    if report.failures:
        pytest.fail(f"{len(report.failures)} failure(s):\n" + "\n".join(f[:600] for f in report.failures[:12]))


# ---------------------------------------------------------------------------
# The fuzzer covers every op; its oracles are independent
# ---------------------------------------------------------------------------


def test_every_kernel_op_has_an_oracle_and_a_generator() -> None:
    missing = [op for op in OPS if op not in ORACLES]
    assert not missing, f"kernel ops without an oracle in test/support/kernel_oracles.py: {missing}"
    rng = np.random.default_rng(0)
    for op in OPS:
        for pattern in kf.patterns_of(op):
            case = kf.generate(op, rng, 33, pattern)
            assert not isinstance(kf.expected(case), kf.Refused), f"{op} {pattern}: the generator made refused arguments"


def test_the_oracles_import_nothing_from_vyre() -> None:
    import kernel_oracles as module

    tree = ast.parse(Path(module.__file__).read_text())
    imported = [
        alias.name if isinstance(node, ast.Import) else (node.module or "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert not [name for name in imported if name.split(".")[0] == "vyre"], imported


def test_the_oracles_reproduce_published_vectors() -> None:
    """The oracles themselves, on RFC 4648 §10, the check values of the CRC
    catalogue, SMHasher/xxHash/FNV reference values and DWARF's LEB128 table."""
    b64 = ORACLES["decode.base64"]
    for text, plain in ((b"", b""), (b"Zg==", b"f"), (b"Zm8=", b"fo"), (b"Zm9v", b"foo"), (b"Zm9vYmFy", b"foobar")):
        assert b64(text)["out"] == plain
    assert ORACLES["decode.base32"](b"MZXW6YQ=")["out"] == b"foob"
    assert radix_error(b"Zm9v=", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 4, (2, 3)) == (4, 3)
    assert radix_error(b"Zg=a", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 4, (2, 3)) == (3, 3)
    assert radix_error(b"Zm9", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 4, (2, 3)) == (3, 2)
    # after a padded group: a symbol or a pad is bad padding, any other byte an invalid symbol
    assert radix_error(b"Zg==Z", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 4, (2, 3)) == (4, 3)
    assert radix_error(b"Zg==!", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 4, (2, 3)) == (4, 1)
    check = b"123456789"
    assert ORACLES["hash.crc32"](check)["out"] == 0xCBF43926
    assert ORACLES["hash.crc32c"](check)["out"] == 0xE3069283
    assert ORACLES["hash.adler32"](b"Wikipedia")["out"] == 0x11E60398
    assert ORACLES["hash.fnv1a32"](b"a")["out"] == 0xE40C292C
    assert ORACLES["hash.murmur3_32"](b"")["out"] == 0 and ORACLES["hash.murmur3_32"](b"test")["out"] == 0xBA6BD213
    assert ORACLES["hash.xxhash32"](b"")["out"] == 0x02CC5D05
    assert ORACLES["encode.uleb128_u32"](np.array([2, 127, 128, 129, 130, 12857], np.uint32))["out"] == bytes(
        [2, 127, 0x80, 1, 0x81, 1, 0x82, 1, 0xB9, 0x64]
    )
    assert ORACLES["decode.uleb128_u32"](b"\x80\x80\x80\x80\x10")["error_code"] == 6
    assert ORACLES["decode.url_percent"](b"a%4")["error_code"] == 5
    assert ORACLES["reductions.f32_sum_tree"](np.array([1e8, 1, -1e8, 1], np.float32))["out"] == 0  # (1e8 + 1) + (-1e8 + 1)
    assert ORACLES["reductions.f32_sum_strict"](np.array([1e8, 1, -1e8, 1], np.float32))["out"] == 0x3F80_0000
    assert ORACLES["reductions.f32_sum_strict"](np.array([-0.0], np.float32))["out"] == 0x8000_0000


# ---------------------------------------------------------------------------
# Differential: every op, every entry point, both backends
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("op_id", OPS)
def test_kernel_op_on_the_interpreter(op_id: str) -> None:
    """evaluate_many (mixed sizes), raw single evaluations, evaluate/evaluate_raw,
    the op's reference, malformed decoder input; then the same cases with the
    interpreter's lanes in reversed order."""
    for seed in SEEDS:
        cases = kf.op_cases(op_id, seed, "interp", budget=budget(op_id, "interp"), long=LONG,
                            max_length=max_length(op_id, "interp"))  # fmt: skip
        report = kf.check_cases(op_id, cases, "interp")
        kf.check_cases(op_id, cases, "interp", reversed_lanes=True, report=report)
        _fail(report)


@pytest.mark.usefixtures("gpu_adapter")
@pytest.mark.parametrize("op_id", OPS)
def test_kernel_op_on_wgpu(op_id: str) -> None:
    """The interpreter's entry points on lavapipe, plus outputs on the device
    (read back, chained into another op and into vyre.run), DeviceBuffer inputs
    with 0xFF padding bytes, and two runs compared word for word."""
    for seed in SEEDS:
        cases = kf.op_cases(op_id, seed, "wgpu", budget=budget(op_id, "wgpu"), long=LONG,
                            max_length=max_length(op_id, "wgpu"))  # fmt: skip
        _fail(kf.check_cases(op_id, cases, "wgpu", twice=True))


DECODER_LENGTHS = (0, 1, 5, 64, 257, 1025)


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
@pytest.mark.parametrize("op_id", sorted(DECODERS))
def test_decoder_rejects_malformed_input_at_every_position_class(op_id: str, backend: str, request: pytest.FixtureRequest) -> None:
    """Malformed input (one defect at the first byte, the last, the middle, the
    final group, the padding, after it, truncated, odd length, bad escapes,
    LEB128 overflow/truncation, corrupt or cut streams) raises OpInputError with
    the oracle's offset and code from evaluate and from evaluate_many (beside
    valid inputs), and the raw outputs carry no partial result."""
    _adapter(request, backend)
    lengths = DECODER_LENGTHS[:4] if op_id.startswith(("compression.", "decode.inflate")) else DECODER_LENGTHS
    bad = kf.decoder_error_cases(op_id, 11, lengths)
    rng = np.random.default_rng(5)
    good = [kf.generate(op_id, rng, n, "random") for n in (0, 3, 17, 64, 100)]
    report = kf.check_cases(op_id, [*good, *bad], backend, single=False, device=False)
    errors = sum(1 for c in bad if kf.is_error(kf.expected(c)))  # pyright: ignore[reportArgumentType]
    assert errors >= len(bad) // 2, "the malformed generator made mostly valid input"
    _fail(report)


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_evaluate_many_names_the_malformed_argument_list(backend: str, request: pytest.FixtureRequest) -> None:
    _adapter(request, backend)
    with pytest.raises(OpInputError) as caught:
        ops.evaluate_many("decode.base64", [[b"Zm9v"], [b"Zg=="], [b"Zm9v!!!!"], [b""]], backend=backend)
    assert (caught.value.offset, caught.value.code) == (4, 1)
    assert "argument list 2 of 4" in str(caught.value)


# ---------------------------------------------------------------------------
# Hostile arguments
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("op_id", OPS)
def test_hostile_arguments(op_id: str) -> None:
    """Wrong types, shapes, dtypes, ranges and the op's own refusals in every
    argument position: TypeError/ValueError naming the input (never another
    exception, never malformed-input errors for argument errors); accepted
    forms (bytearray, memoryview, strided, big-endian, int64, lists, numpy
    scalars) give the oracle's result. evaluate_many gets the hostile list
    alone (with a valid one beside it: `test_hostile_argument_in_a_batch`)."""
    _fail(kf.check_hostile(op_id, "interp", beside_valid=False, accepted_entries=("evaluate",)))


@pytest.mark.parametrize("op_id", OPS)
def test_hostile_argument_in_a_batch(op_id: str) -> None:
    """The refused hostile values in evaluate_many beside a valid argument list."""
    report = kf.check_hostile(op_id, "interp", entries=("evaluate_many",), accepted=False)
    _fail(report)


@pytest.mark.usefixtures("gpu_adapter")
def test_hostile_device_buffers_and_options() -> None:
    """DeviceBuffers of the wrong element type, a DeviceBuffer for a scalar, bad
    `on_device`/`backend` values: TypeError/ValueError naming the thing."""
    import vyre

    u32 = vyre.to_device(np.arange(8, dtype=np.uint32))
    f32 = vyre.to_device(np.ones(8, np.float32))
    raw = vyre.to_device(b"abcdefgh")
    problems: list[str] = []
    for op in OPS:
        spec = get_kernel(op)
        base = kf.generate(op, np.random.default_rng(1), 9, kf.patterns_of(op)[0]).args
        for k, port in enumerate(spec.inputs):
            wrong = [u32, f32] if port.dtype is DataType.BYTES else [raw, f32] if port.dtype is DataType.U32 else [u32, raw]
            for value in wrong if not port.scalar else [u32]:
                args = [*base[:k], value, *base[k + 1 :]]
                try:
                    ops.evaluate(op, args, backend="wgpu")
                    problems.append(f"{op} `{port.name}` = {value!r}: accepted")
                except TypeError as error:
                    if f"`{port.name}`" not in str(error):
                        problems.append(f"{op} `{port.name}` = {value!r}: {error}")
                except Exception as error:  # noqa: BLE001 - a finding
                    problems.append(f"{op} `{port.name}` = {value!r}: {type(error).__name__}: {error}")
    op, args = "hash.crc32", [b"abc"]
    for call, error in (
        (lambda: ops.evaluate(op, args, backend="interp", on_device=True), ValueError),
        (lambda: ops.evaluate(op, args, backend="wgpu", on_device="yes"), TypeError),  # pyright: ignore[reportArgumentType]
        (lambda: ops.evaluate(op, args, backend="cuda"), ValueError),
        (lambda: ops.evaluate_many(op, [args], backend=None), ValueError),  # pyright: ignore[reportArgumentType]
        (lambda: ops.evaluate_raw(op, args, backend="wgpu", on_device=1), TypeError),  # pyright: ignore[reportArgumentType]
    ):
        try:
            call()
            problems.append(f"{error.__name__} expected")
        except error:
            pass
        except Exception as other:  # noqa: BLE001 - a finding
            problems.append(f"{type(other).__name__}: {other}")
    assert not problems, problems


@pytest.mark.parametrize("many", [None, 5, "abc", b"abc", np.zeros(3), {"a": 1}, [None], [5], [[b"a"], 7], [[b"a", b"b"]]])
def test_evaluate_many_rejects_what_is_not_a_list_of_argument_lists(many: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as caught:
        ops.evaluate_many("hash.crc32", many, backend="interp")
    assert "hash.crc32" in str(caught.value) or "argument list" in str(caught.value)


def test_evaluate_many_of_nothing_is_nothing() -> None:
    """An empty list of argument lists is no evaluation (a map over nothing),
    on both backends and on the device."""
    assert ops.evaluate_many("hash.crc32", [], backend="interp") == []
    assert ops.evaluate_many("sort.u32", (), backend="interp") == []


@pytest.mark.parametrize("op_id", OPS)
def test_wrong_arity_names_the_op(op_id: str) -> None:
    spec: KernelSpec = get_kernel(op_id)
    base = list(kf.generate(op_id, np.random.default_rng(0), 4, kf.patterns_of(op_id)[0]).args)
    for args in ([], base[:-1], [*base, base[-1]], None, b"abc", np.zeros(2, np.uint32)):
        if isinstance(args, list) and len(args) == len(spec.inputs):
            continue
        with pytest.raises((TypeError, ValueError)) as caught:
            ops.evaluate(op_id, args, backend="interp")  # pyright: ignore[reportArgumentType]
        assert op_id in str(caught.value)


# ---------------------------------------------------------------------------
# Regressions of what the fuzzer found
# ---------------------------------------------------------------------------


def _fake_device_buffer(dtype: DataType, count: int) -> Any:
    """A DeviceBuffer that claims `count` elements and holds no device memory:
    only the host-side checks may look at it."""
    from vyre.runtime import host
    from vyre.runtime.device_buffer import DeviceBuffer
    from vyre.runtime.wgpu_device import Resident

    resident = object.__new__(Resident)
    for name, value in (("gpu", None), ("buffer", None), ("words", host.word_count(dtype, count))):
        object.__setattr__(resident, name, value)
    return DeviceBuffer(resident, dtype, count)


_OVERFLOWING = {
    "encode.url_percent_encode": 0xFFFF_FFFF // 3 + 1,
    "encode.hex_encode_lower": 0xFFFF_FFFF // 2 + 1,
    "encode.base64_encode": 3 * (0xFFFF_FFFF // 4) + 1,
    "encode.base64url_encode": 3 * (0xFFFF_FFFF // 4) + 1,
    "encode.base32_encode": 5 * (0xFFFF_FFFF // 8) + 1,
    "encode.uleb128_u32": 0xFFFF_FFFF // 5 + 1,
    "string.split_offsets": 0xFFFF_FFFF,
    "match.find_all": 0xFFFF_FFFF,
}
"""The shortest input whose output (or output count) would pass 2^32 - 1."""


@pytest.mark.usefixtures("gpu_adapter")
@pytest.mark.parametrize("op_id", sorted(_OVERFLOWING))
def test_inputs_whose_output_would_overflow_u32_are_refused(op_id: str) -> None:
    """Regression: the encoders' and split_offsets' max_length was 2^32 - 1, so an
    input of 1.43 GB to url_percent_encode (3 bytes a byte) passed the checks and
    its u32 `length` would wrap (on wgpu a DeviceLimitError not naming the input
    stood in the way, on the interpreter nothing). The check must name the input
    before any device work (the DeviceBuffer here holds no memory)."""
    spec: KernelSpec = get_kernel(op_id)
    first = spec.inputs[0]
    value = _fake_device_buffer(first.dtype, _OVERFLOWING[op_id])
    args = [value, *(1 if p.scalar else b"ab" for p in spec.inputs[1:])]
    with pytest.raises(ValueError, match=rf"input `{first.name}` of `{op_id}` has \d+ elements; .* at most"):
        ops.evaluate(op_id, args, backend="wgpu")
    assert spec.max_length == _OVERFLOWING[op_id] - 1


@pytest.mark.parametrize(("op_id", "digest"), [("hash.md5_batch", 16), ("hash.sha1_batch", 20), ("hash.sha256_batch", 32)])
def test_digest_batches_whose_output_would_overflow_u32_are_refused(op_id: str, digest: int) -> None:
    """Regression: (2^32 - 1) // 32 + 1 SHA-256 messages have more than 2^32 - 1
    digest bytes; the check refuses them from the offsets' length alone (a
    zero-stride array: no memory is touched)."""
    most = 0xFFFF_FFFF // digest
    check = get_kernel(op_id).check_args
    assert check is not None
    offsets = np.broadcast_to(np.uint32(0), (most + 2,))
    with pytest.raises(ValueError, match=rf"input `offsets` of `{op_id}` has {most + 2} entries"):
        check((np.zeros(0, np.uint8), offsets))


def test_out_degree_check_does_not_allocate_the_edges() -> None:
    """Regression: graph.csr_out_degree checked its offsets by making a zeroed
    targets array of offsets[n] words and scanning it, so offsets = [0, 2**32 - 1]
    (a valid one-node graph) allocated and read 16 GiB before answering."""
    tracemalloc.start()
    try:
        started = time.perf_counter()
        got = ops.evaluate("graph.csr_out_degree", [np.array([0, 1 << 31, 0xFFFF_FFFF], np.uint32)], backend="interp")
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got.tolist() == [1 << 31, 0xFFFF_FFFF - (1 << 31)]
    assert peak < 64 << 20, f"{peak} bytes allocated"
    assert seconds < 20


# ---------------------------------------------------------------------------
# Device-resident paths the differential cases do not reach
# ---------------------------------------------------------------------------


@pytest.mark.usefixtures("gpu_adapter")
def test_one_device_buffer_as_several_inputs_and_mixed_with_host_arrays() -> None:
    import vyre

    rng = np.random.default_rng(3)
    a = rng.integers(0, 1 << 32, 3000, dtype=np.uint32)
    b = rng.integers(0, 1 << 32, 3000, dtype=np.uint32)
    dev = vyre.to_device(a)
    for op in ("bitset.and_not", "buffer.compact", "scan.segmented_inclusive_u32", "sort.key_value_u32", "collection.contains_u32"):
        for args in ([dev, dev], [dev, b], [b, dev]):
            host = [a if x is dev else x for x in args]
            spec = get_kernel(op)
            problem = kf.compare(spec, ORACLES[op](*host), [ops.evaluate(op, args, backend="wgpu")], [spec.outputs[0].name])
            assert problem is None, (op, problem)
    text = rng.integers(0, 4, 5000, dtype=np.uint8).tobytes()
    padded = kf.poisoned(text, DataType.BYTES)
    assert ops.evaluate("buffer.memcmp", [padded, padded], backend="wgpu").tolist() == [1]
    assert ops.evaluate("match.find_all", [padded, padded], backend="wgpu").tolist() == [0]
    table = kf.poisoned(bytes(range(256)), DataType.BYTES)
    assert bytes(ops.evaluate("match.byte_class", [table, table], backend="wgpu")) == bytes(range(256))
    got = ops.evaluate_many("bitset.xor", [[dev, b], [b, b], [a, dev]], backend="wgpu")
    assert [g.tolist() for g in got] == [(a ^ b).tolist(), [0] * 3000, [0] * 3000]


@pytest.mark.usefixtures("gpu_adapter")
def test_outputs_on_the_device_outlive_their_inputs_and_pool_reuse() -> None:
    import vyre

    rng = np.random.default_rng(4)
    x = rng.integers(0, 1 << 32, 3000, dtype=np.uint32)
    text = rng.integers(0, 256, 7001, dtype=np.uint8).tobytes()
    dev, dtext = vyre.to_device(x), vyre.to_device(text)
    kept = [
        ops.evaluate("sort.u32", [dev], backend="wgpu", on_device=True),
        ops.evaluate("buffer.compact", [dev, dev], backend="wgpu", on_device=True),
        ops.evaluate("encode.base64_encode", [dtext], backend="wgpu", on_device=True),
    ]
    decoded = ops.evaluate("decode.base64", [kept[2]], backend="wgpu", on_device=True)
    del dev, dtext
    gc.collect()
    for _ in range(2):
        junk = [vyre.to_device(np.full(3000, 0xDEADBEEF, np.uint32)) for _ in range(16)]
        ops.evaluate_many("sort.u32", [[np.full(3000, 7, np.uint32)]] * 2, backend="wgpu")
        del junk
        gc.collect()
    assert kept[0].numpy().tolist() == sorted(x.tolist())
    assert kept[1].numpy().tolist() == x[x != 0].tolist()
    assert bytes(kept[2].numpy()) == __import__("base64").b64encode(text)
    assert bytes(decoded.numpy()) == text
    assert ops.evaluate("hash.crc32", [decoded], backend="wgpu").tolist() == [zlib.crc32(text)]


@pytest.mark.usefixtures("gpu_adapter")
@pytest.mark.parametrize("op_id", [op for op in OPS if get_kernel(op).plan_many is not None])
def test_thousands_of_tiny_evaluations_in_one_batch(op_id: str) -> None:
    """The batched plans with 600 inputs of 0-5 bytes/elements (and one of
    2,000): job tables, binary searches over evaluation starts, empty jobs."""
    rng = np.random.default_rng(9)
    count = 100 if op_id.startswith(("compression.", "decode.inflate")) and not LONG else 600
    count = count * 5 if LONG else count
    cases = [kf.generate(op_id, rng, int(rng.integers(0, 6)), "random") for _ in range(count)]
    cases.insert(count // 2, kf.generate(op_id, rng, 2_000, "random"))
    _fail(kf.check_cases(op_id, cases, "wgpu", single=False, device=False))


def _empty_args(op_id: str) -> list[Any]:
    spec: KernelSpec = get_kernel(op_id)
    args: list[Any] = []
    for port in spec.inputs:
        if port.scalar:
            args.append(1)
        elif port.dtype is DataType.BYTES:
            args.append(bytes(256) if port.name == "table" else b"")
        elif port.dtype is DataType.F32:
            args.append(np.zeros(0, np.float32))
        else:
            args.append(np.zeros(1 if port.name == "offsets" else 0, np.uint32))
    return args


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_batches_of_only_empty_inputs(backend: str, request: pytest.FixtureRequest) -> None:
    """Every op on batches of 1 and 3 empty inputs (no dispatch at all in
    most plans), and on the device."""
    _adapter(request, backend)
    problems: list[str] = []
    for op_id in OPS:
        args = _empty_args(op_id)
        cases = [kf.Case(op_id, tuple(args), "empty")]
        want = kf.expected(cases[0])
        if isinstance(want, kf.Refused) or kf.is_error(want):
            continue
        for count in (1, 3):
            report = kf.check_cases(op_id, cases * count, backend, single=count == 1, device=backend == "wgpu")
            problems += report.failures
    assert not problems, problems[:10]


# ---------------------------------------------------------------------------
# The harness's fuzzer
# ---------------------------------------------------------------------------


def test_kernel_fuzzer_generates_checks_and_shrinks() -> None:
    from vyre.testing.fuzz.base import OracleFailure

    fuzzer = kf.KernelFuzzer(seed=3)
    for index in (0, 17, 40):
        data = fuzzer.generate(index)
        assert data == kf.KernelFuzzer(seed=3).generate(index)
        assert kf.case_json(kf.case_from_json(data)) == data
        assert kf.case_from_json(data).op in OPS
    planted = kf.case_json(kf.Case("hash.crc32", (b"x" * 100,), "planted"))

    def still_fails(blob: bytes) -> bool:
        return b"78" in bytes.fromhex(str(__import__("json").loads(blob)["args"][0]["bytes"])).hex().encode()

    shrunk = kf.case_from_json(fuzzer.shrink(planted, still_fails))
    assert shrunk.args[0] == b"x"
    with pytest.raises(OracleFailure):
        fuzzer.check(kf.case_json(kf.Case("no.such_op", (b"",), "unknown")))
