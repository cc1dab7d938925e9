"""compression.deflate_decompress, compression.zlib_decompress,
compression.gzip_decompress and decode.inflate_stored: DEFLATE / zlib / gzip
decompression on the GPU, byte-exact to CPython (docs/compression.md).

Bytes -> Bytes, with the decoder outputs of every strict decoder (`out`,
`length`, `error_offset`, `error_code`, `codec_common.DECODER_OUTPUTS`):

| op | oracle (every accept/reject decision and every output) |
|---|---|
| `compression.deflate_decompress` | `zlib.decompress(data, -15)` (raw RFC 1951) |
| `compression.zlib_decompress` | `zlib.decompress(data)` (RFC 1950, wbits 15) |
| `compression.gzip_decompress` | `gzip.decompress(data)` (RFC 1952, members concatenated) |
| `decode.inflate_stored` | `zlib.decompress(data, -15)` for streams of stored blocks only |

Malformed input raises `vyre.OpInputError` with code 5 (truncated: CPython's
`Error -5` / `EOFError`) or 7 (corrupt: `Error -3`, FDICT's `Error 2`,
`BadGzipFile`), or 6 at byte 0 for an output past `MAX_OUTPUT`, and the offset
`inflate_walk` defines (the byte holding the
first bit of the element that failed); the reference walk and the GPU give the
same. Like CPython, zlib and raw streams ignore bytes after their end, gzip
skips zero bytes between and after members and FHCRC is not checked.

**The GPU plan** (`inflate_program.py`): one invocation per stream, the
streams of an `evaluate_many` laid end to end (`plan_many`), in waves of at
most `WAVE`; a wave's round is one dispatch in which every unfinished stream
takes at most `steps_per_dispatch` state-machine steps, repeated until none is
left (`Repeat` on the wave's count of unfinished streams). The output capacity
of a stream is a guess from its input length (`initial_capacity`); a stream that needs more
reports code 8 and the length it needs, and `replan` runs it again with exactly
that: the output is never truncated, and a stream is decoded at most twice.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vyre.ir import DataType
from vyre.kernels.families import compression_laws as L
from vyre.kernels.families import inflate_format as F
from vyre.kernels.families import inflate_walk as W
from vyre.kernels.families.codec_common import DECODER_OUTPUTS
from vyre.kernels.families.common import params_buffer
from vyre.kernels.families.compression_host import sampler, stdlib, stdlib_code
from vyre.kernels.families.inflate_program import (
    DEFLATE,
    FORMATS,
    GZIP,
    STATE_WORDS,
    STREAM_WORDS,
    WORKGROUP,
    ZLIB,
    crc_table,
    decode_program,
    prepare_program,
    reset_program,
)
from vyre.kernels.spec import NO_ERROR, BatchPlan, Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Repeat, Step, batch_starts

__all__ = [
    "KERNELS",
    "MAX_INPUT",
    "LANE_STEPS",
    "MAX_OUTPUT",
    "STEPS",
    "WAVE",
    "decompress_plan",
    "initial_capacity",
    "max_rounds",
    "steps_per_dispatch",
]

STEPS = 1024
"""The most state-machine steps per stream and dispatch: the one loop of the
decode program runs at most this many iterations (no inner loop runs more than
44), so an invocation takes at most about 1,100 loop back-edges per dispatch,
far below lavapipe's 65,535."""

LANE_STEPS = 1 << 17
"""Streams x steps of one dispatch at most (`steps_per_dispatch`): the
reference interpreter runs a dispatch's lanes in lockstep and charges each
lane its steps; a wave of 512 mixed streams took 1.5e10 work units (its
budget) in 1,024 steps, so a wave of many streams takes fewer steps a round
(a GPU dispatch of 10,000 streams x 64 steps is still some 100 us of work)."""


def steps_per_dispatch(streams: int) -> int:
    """Steps a round of a wave of `streams` streams runs: LANE_STEPS / streams
    within [64, STEPS]."""
    return max(64, min(STEPS, LANE_STEPS // max(1, streams)))

WAVE = 16_384
"""Streams decoded at once: a batch of more goes in waves that reuse the state
rows and the table regions (4.8 KB a stream: 78 MB a wave)."""

MAX_INPUT = (1 << 29) - 1
"""Bit positions of one stream are u32."""

MAX_OUTPUT = 0xFFFF_0000
"""The longest output of one evaluation (counts are u32, C5): a
longer one (a decompression bomb) fails with code 6 (overflow) at byte 0, on
the GPU and in the reference alike."""

STEPS_PER_BIT = 40
"""An upper bound on the steps a stream takes per input bit (a match of 2 bits
copies 258 bytes in at most 34 steps; a dynamic block's tables take at most
about 1,100 steps and its header is at least 40 bits), for `Repeat.max_rounds`."""


def initial_capacity(n: int) -> int:
    """The output bytes the first run of a stream of n input bytes may write:
    8n + 1 KiB (text and source code compress 3-5x; a stream that needs more
    is decoded again with its exact length, so a ratio past 8 costs a second
    run, a smaller guess memory only)."""
    return 8 * n + 1024


def max_rounds(longest: int, steps: int) -> int:
    """A bound on the rounds of the longest stream (the plan fails loudly past it)."""
    return -(-(STEPS_PER_BIT * 8 * longest + 4096) // steps) + 2


_CONSTANTS: dict[str, np.ndarray] = {}


def _constant(name: str) -> np.ndarray:
    if name not in _CONSTANTS:
        _CONSTANTS[name] = {"symtab": F.symtab, "fixed": F.fixed_tables, "crct": crc_table}[name]()
    return _CONSTANTS[name]


def decompress_plan(
    fmt: str, lengths: Sequence[int], capacities: Sequence[int], stored_only: bool = False
) -> tuple[KernelPlan, list[int]]:
    """The plan decoding streams of `lengths` bytes laid end to end in `data`
    (each on a word, `batch_starts`), stream k into `capacities[k]` bytes of
    `out` from word `first[k]`; returns (plan, first). Streams go in waves of
    at most `WAVE` (one `Repeat` each), which share the state rows and table
    regions."""
    streams = len(lengths)
    starts = batch_starts(DataType.BYTES, lengths)
    first: list[int] = []
    at = 0
    for cap in capacities:
        first.append(at)
        at += -(-cap // 4)
    table = np.zeros(STREAM_WORDS * streams, dtype=np.uint32)
    table[0::STREAM_WORDS] = starts[:-1]
    table[1::STREAM_WORDS] = lengths
    table[2::STREAM_WORDS] = first
    table[3::STREAM_WORDS] = capacities
    width = min(streams, WAVE)
    buffers = [
        Buffer("out", DataType.BYTES, 4 * at),
        Buffer("length", DataType.U32, streams),
        Buffer("error_offset", DataType.U32, streams),
        Buffer("error_code", DataType.U32, streams),
        Buffer("streams", DataType.U32, len(table), words=table),
        Buffer("symtab", DataType.U32, len(_constant("symtab")), words=_constant("symtab")),
        Buffer("fixed", DataType.U32, F.FIXED_WORDS, words=_constant("fixed")),
        Buffer("state", DataType.U32, STATE_WORDS * width),
        Buffer("tables", DataType.U32, F.FIXED_WORDS + F.REGION * width),
        Buffer("crct", DataType.U32, 1024, words=_constant("crct")),
    ]
    steps = [Step(prepare_program(), (-(-F.FIXED_WORDS // WORKGROUP), 1, 1))]
    repeats: list[Repeat] = []
    waves = range(0, streams, WAVE)
    buffers.append(Buffer("left", DataType.U32, max(1, len(waves)), words=np.array(
        [min(WAVE, streams - begin) for begin in waves] or [0], dtype=np.uint32)))
    for wave, begin in enumerate(waves):
        count = min(WAVE, streams - begin)
        params = f"params{wave}"
        per_round = steps_per_dispatch(count)
        buffers.append(params_buffer(params, [count, per_round, FORMATS[fmt], int(stored_only), begin, wave, MAX_OUTPUT]))
        rounds = max_rounds(max(lengths[begin : begin + count]), per_round)
        if begin:  # the rows of the wave before
            steps.append(Step(reset_program(), (-(-count * STATE_WORDS // WORKGROUP), 1, 1), {"params": params}))
        # a round: every unfinished stream of the wave takes up to `per_round`
        # steps; one that finishes takes itself off `left`, the wave's flag
        repeats.append(Repeat(len(steps), len(steps) + 1, until="left", word=wave, max_rounds=rounds, rounds_per_check=2))
        steps.append(Step(decode_program(), (-(-count // WORKGROUP), 1, 1), {"params": params}))
    return KernelPlan(tuple(buffers), tuple(steps), repeats=tuple(repeats)), first


def _reference(fmt: str, stored_only: bool) -> Callable[[np.ndarray], tuple[np.ndarray, ...]]:
    """CPython's output, or the reference walk's offset and code where CPython
    rejects the stream (the walk must reject it with the code CPython's error
    means: a disagreement is a library bug, never a silent answer). Stored
    blocks only: the walk decides, and its output is CPython's."""

    def reference(data: np.ndarray) -> tuple[np.ndarray, ...]:
        raw = np.asarray(data, dtype=np.uint8).tobytes()
        if stored_only:
            try:
                out = W.walk_stored(raw, MAX_OUTPUT)
            except W.Failure as failure:
                return _failed(failure)
            if out != zlib.decompress(raw, -15):
                raise RuntimeError("the stored-block walk disagrees with zlib.decompress (a library bug)")
            return _decoded(out)
        try:
            out = stdlib(fmt, raw)
        except (zlib.error, EOFError, gzip.BadGzipFile) as error:
            code = stdlib_code(error)
            try:
                W.walk(raw, fmt, MAX_OUTPUT)
            except W.Failure as failure:
                if failure.code == W.OVERFLOW:
                    return _failed(failure)  # the output passes MAX_OUTPUT before CPython's error
                if failure.code != code:
                    raise RuntimeError(
                        f"the reference walk of `{fmt}` fails with code {failure.code} where CPython's"
                        f" {error!r} means {code} (a library bug)"
                    ) from None
                return _failed(failure)
            raise RuntimeError(f"the reference walk of `{fmt}` accepts what CPython rejects: {error!r} (a library bug)") from None
        if len(out) > MAX_OUTPUT:
            return _failed(W.Failure(W.OVERFLOW, 0, f"the output passes {MAX_OUTPUT} bytes"))
        return _decoded(out)

    return reference


def _failed(failure: W.Failure) -> tuple[np.ndarray, ...]:
    return np.zeros(0, dtype=np.uint8), _word(0), _word(failure.offset), _word(failure.code)


def _decoded(out: bytes) -> tuple[np.ndarray, ...]:
    return np.frombuffer(out, dtype=np.uint8).copy(), _word(len(out)), _word(NO_ERROR), _word(0)


def _word(value: int) -> np.ndarray:
    return np.array([value], dtype=np.uint32)


def _describe(fmt: str, stored_only: bool) -> Callable[[tuple[Any, ...], int], str]:
    def describe(args: tuple[Any, ...], offset: int) -> str:
        raw = np.asarray(args[0], dtype=np.uint8).tobytes()
        try:
            W.walk_stored(raw, MAX_OUTPUT) if stored_only else W.walk(raw, fmt, MAX_OUTPUT)
        except W.Failure as failure:
            return failure.why
        return "(the reference walk accepts the stream)"

    return describe


def _planners(fmt: str, stored_only: bool) -> tuple[Any, Any, Any]:
    def capacity(n: int) -> int:
        return n if stored_only else initial_capacity(n)

    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n = int(sizes["data"])
        return decompress_plan(fmt, [n], [capacity(n)], stored_only)[0]

    def plan_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
        lengths = [int(s["data"]) for s in sizes]
        caps = [capacity(n) for n in lengths]
        built, first = decompress_plan(fmt, lengths, caps, stored_only)
        one = tuple((k, 1) for k in range(len(lengths)))
        return BatchPlan(
            built,
            {"out": tuple(zip(first, caps)), "length": one, "error_offset": one, "error_code": one},
        )

    def replan(sizes: Any, scalars: Any, outputs: Any) -> KernelPlan | None:
        if int(outputs["error_code"]) != 8:
            return None
        return decompress_plan(fmt, [int(sizes["data"])], [int(outputs["length"])], stored_only)[0]

    return plan, plan_many, replan


BOUNDARIES = (0, 1, 2, 3, 5, 18, 64, 258, 1000, 4097)
"""Input lengths of the boundary cases (the sampler makes streams of exactly
that many bytes): empty; 1-5, shorter than a zlib stream (8) and 1-3 not a
word; 18, shorter than a gzip member (20); word and block edges."""


def _laws(fmt: str, stored_only: bool) -> tuple[KernelLaw, ...]:
    laws: list[KernelLaw] = [L.DecompressesCompression(fmt, stored_only), L.PrefixIsTruncated(fmt)]
    laws.append(L.Members() if fmt == GZIP else L.TrailingDataIgnored(fmt))
    laws.append(L.CorruptIffCPython(fmt, stored_only))
    return tuple(laws)


def _spec(op_id: str, fmt: str, summary: str, stored_only: bool = False) -> KernelSpec:
    plan, plan_many, replan = _planners(fmt, stored_only)
    return KernelSpec(
        id=op_id,
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=DECODER_OUTPUTS,
        kind="batch",
        reference=_reference(fmt, stored_only),
        plan=plan,
        plan_many=plan_many,
        replan=replan,
        summary=summary,
        laws=_laws(fmt, stored_only),
        boundaries=BOUNDARIES,
        sample=sampler(fmt, stored_only),
        max_length=MAX_INPUT,
        error_from="error_offset",
        code_from="error_code",
        describe_error=_describe(fmt, stored_only),
    )


KERNELS = (
    _spec("compression.deflate_decompress", DEFLATE, "raw DEFLATE (RFC 1951) decompression (zlib.decompress(data, -15))"),
    _spec("compression.zlib_decompress", ZLIB, "zlib (RFC 1950) decompression (zlib.decompress)"),
    _spec("compression.gzip_decompress", GZIP, "gzip (RFC 1952) decompression, members concatenated (gzip.decompress)"),
    _spec("decode.inflate_stored", DEFLATE, "raw DEFLATE of stored blocks only (level 0; zlib.decompress(data, -15))", True),
)
