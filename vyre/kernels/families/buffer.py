"""buffer.*: whole-buffer byte and word operations (docs/kernel-library.md).

`Bytes` inputs arrive as packed words (four bytes per u32, little-endian, C1);
the padding bytes of the last word are unspecified, so every kernel masks them
with the byte count (`wordwise.valid_lanes`), never assuming zero.

- `buffer.memchr(data, byte)` (Bytes, U32 -> U32): the first index of `byte`,
  NONE (0xFFFFFFFF) when absent (`bytes.find`, -1 -> NONE). A reduce with min:
  each invocation walks its words grid-stride (UNROLL in flight), finds the
  bytes equal to `byte` in a word with the exact carry-free SWAR zero-byte test
  on `word ^ byte * 0x01010101` and takes the lowest (`ctz`), the workgroup
  keeps the least index in a tree and merges it with `atomicMin` (C4).
- `buffer.byte_count(data, byte)` (Bytes, U32 -> U32): occurrences of `byte`
  (`bytes.count`), the same walk with `popcount` of the match mask and
  `atomicAdd`. `byte` must be in [0, 255] (ValueError naming it, as
  `bytes.find`/`bytes.count` raise for an int outside range(256)).
- `buffer.memcmp(a, b)` (Bytes, Bytes -> Bool): equal length and content. Two
  lengths that differ decide it without a dispatch; otherwise the words are
  compared (padding masked) and any workgroup that sees a difference lowers the
  result from 1 to 0 with `atomicMin`.
- `buffer.byte_swap_u32(data)` (Bytes -> Bytes): every 4-byte group reversed
  (`np.ndarray.byteswap` of the u32 view). The length must be a multiple of 4
  (ValueError naming `data`). A map over words.
- `buffer.compact(values, mask)` (U32[], U32[] -> U32[], U32 count): the values
  where mask != 0, in input order (`values[mask != 0]`); the output's length is
  the `count` output (`Port.length_from`). Scan-based (`compaction`): the mask
  becomes a bitset, tile counts, their exclusive scan, then every kept value is
  written at its rank. The two inputs must have the same length.
- `buffer.gather(src, idx)` (U32[], U32[] -> U32[]): out[i] = src[idx[i]], 0 where
  idx[i] >= len(src). A map over idx.
- `buffer.scatter(dst, idx, values)` (U32[] x3 -> U32[]): dst with dst[idx[i]] =
  values[i] for every i in order (sequential last-write-wins: of several i with
  the same index, the largest wins), indices >= len(dst) dropped; idx and values
  have the same length. Two passes, deterministic: `atomicMax(owner[idx[i]],
  i + 1)` over i, then out[j] = values[owner[j] - 1] where owner[j] != 0, else
  dst[j] (a map over dst).

Empty inputs run no dispatch: memchr NONE, byte_count 0, memcmp of two empty
buffers 1, empty outputs elsewhere (C5).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels import samplers as S
from vyre.kernels.families import compaction as C
from vyre.kernels.families.common import NONE, param, params_buffer
from vyre.kernels.families.wordwise import (
    REPEAT,
    each_params,
    each_program,
    grid_params,
    map_program,
    reduce_program,
    valid_lanes,
    zero_bytes,
)
from vyre.kernels.spec import Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step

__all__ = ["KERNELS"]

Op = Callable[..., tuple[np.ndarray, ...]]


# ---------------------------------------------------------------------------
# memchr, byte_count, memcmp: reductions over words
# ---------------------------------------------------------------------------


def _matches(word: Expr, i: Expr) -> Expr:
    """0x80 in each byte of word i equal to the byte (params[4] = byte * 0x01010101)
    that lies below the byte count (params[3])."""
    return E.bitand(zero_bytes(E.bitxor(word, param(4))), valid_lanes(i, param(3), 0x80))


@cache
def byte_search_program(kind: str) -> Program:
    """memchr (`kind` "first": least matching index, fold min) or byte_count
    ("count": matches, fold add). params = [words, stride, rounds, n, byte * 0x01010101]."""

    def element(i: Expr, s: str) -> tuple[list[Node], Expr]:
        nodes = [Node.let(f"_m{s}", _matches(E.load("data", i), i))]
        m = E.var(f"_m{s}")
        if kind == "count":
            return nodes, E.popcount(m)
        first = E.add(E.shl(i, E.u32(2)), E.shr(E.ctz(m), E.u32(3)))
        return nodes, E.select(E.ne(m, E.u32(0)), first, E.u32(NONE))

    fold = "add" if kind == "count" else "min"
    return reduce_program(f"buffer_{'byte_count' if kind == 'count' else 'memchr'}", ["data"], element, fold)


def _check_byte(op_id: str) -> Callable[[tuple[Any, ...]], None]:
    def check(args: tuple[Any, ...]) -> None:
        byte = int(args[1])
        if not 0 <= byte <= 255:
            raise ValueError(f"input `byte` of `{op_id}` must be a byte value in [0, 255], got {byte}")

    return check


def _byte_plan(kind: str) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n, byte = int(sizes["data"]), int(scalars["byte"]) & 0xFF
        out = Buffer("out", DataType.U32, 1, fill=0 if kind == "count" else NONE)
        if n == 0:
            return KernelPlan((out,), ())
        g, params = grid_params("params", -(-n // 4), n, byte * REPEAT)
        return KernelPlan((out, params), (Step(byte_search_program(kind), g.dispatch),))

    return plan


@cache
def memcmp_program() -> Program:
    """1 where every byte below n agrees, folded with min into out (which starts
    at 1). params = [words, stride, rounds, n]."""

    def element(i: Expr, s: str) -> tuple[list[Node], Expr]:
        diff = E.bitand(E.bitxor(E.load("a", i), E.load("b", i)), valid_lanes(i, param(3), 0xFF))
        return [], E.select(E.eq(diff, E.u32(0)), E.u32(1), E.u32(0))

    return reduce_program("buffer_memcmp", ["a", "b"], element, "min")


def _memcmp_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n, m = int(sizes["a"]), int(sizes["b"])
    if n != m or n == 0:
        return KernelPlan((Buffer("out", DataType.BOOL, 1, fill=int(n == m)),), ())
    g, params = grid_params("params", -(-n // 4), n)
    return KernelPlan((Buffer("out", DataType.BOOL, 1, fill=1), params), (Step(memcmp_program(), g.dispatch),))


# ---------------------------------------------------------------------------
# byte_swap_u32, gather: maps
# ---------------------------------------------------------------------------


def byte_swap(v: Expr) -> Expr:
    """The four bytes of a word reversed."""
    return E.bitor(
        E.bitor(E.shr(v, E.u32(24)), E.bitand(E.shr(v, E.u32(8)), E.u32(0xFF00))),
        E.bitor(E.bitand(E.shl(v, E.u32(8)), E.u32(0xFF_0000)), E.shl(v, E.u32(24))),
    )


@cache
def byte_swap_program() -> Program:
    """out[w] = byte_swap(data[w]) for the whole words; a trailing partial word
    (only reachable below `check_args`, e.g. by the admission gates) is copied.
    params = [words, stride, rounds, n]."""

    def value(i: Expr, s: str) -> tuple[list[Node], Expr]:
        word = E.load("data", i)
        return [], E.select(E.lt(i, E.shr(param(3), E.u32(2))), byte_swap(word), word)

    return map_program("buffer_byte_swap_u32", ["data"], value)


def _byte_swap_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n = int(sizes["data"])
    out = Buffer("out", DataType.BYTES, n)
    if n == 0:
        return KernelPlan((out,), ())
    g, params = grid_params("params", -(-n // 4), n)
    return KernelPlan((out, params), (Step(byte_swap_program(), g.dispatch),))


def _check_multiple_of_4(args: tuple[Any, ...]) -> None:
    n = len(args[0])
    if n % 4:
        raise ValueError(
            f"input `data` of `buffer.byte_swap_u32` has {n} bytes; its length must be a multiple of 4"
        )


@cache
def gather_program() -> Program:
    """out[i] = src[idx[i]] if idx[i] < m else 0. params = [k, stride, rounds, m]."""

    def value(i: Expr, s: str) -> tuple[list[Node], Expr]:
        j = f"_j{s}"
        return [Node.let(j, E.load("idx", i))], E.select(E.lt(E.var(j), param(3)), E.load("src", E.var(j)), E.u32(0))

    return map_program("buffer_gather", ["src", "idx"], value)


def _gather_plan(sizes: Any, scalars: Any) -> KernelPlan:
    m, k = int(sizes["src"]), int(sizes["idx"])
    out = Buffer("out", DataType.U32, k)
    if k == 0:
        return KernelPlan((out,), ())
    g, params = grid_params("params", k, m)
    return KernelPlan((out, params), (Step(gather_program(), g.dispatch),))


# ---------------------------------------------------------------------------
# scatter: atomicMax of the position, then a map over dst
# ---------------------------------------------------------------------------


@cache
def owner_program() -> Program:
    """owner[idx[i]] = max(owner[idx[i]], i + 1) for idx[i] < m. params = [k, stride, iterations, m]."""

    def body(i: Expr) -> list[Node]:
        return [
            Node.let("_j", E.load("idx", i)),
            Node.if_(
                E.lt(E.var("_j"), param(3)),
                [Node.let("_old", E.atomic(AtomicOp.MAX, "owner", E.var("_j"), E.add(i, E.u32(1))))],
            ),
        ]

    buffers = [BufferDecl.read("idx", 0, DataType.U32), BufferDecl.read_write("owner", 1, DataType.U32)]
    return each_program("buffer_scatter_owners", buffers, body)


@cache
def scatter_write_program() -> Program:
    """out[j] = values[owner[j] - 1] where owner[j] != 0, else dst[j]. params = [m, stride, rounds]."""

    def value(j: Expr, s: str) -> tuple[list[Node], Expr]:
        o = f"_o{s}"
        chosen = E.load("values", E.sub(E.var(o), E.u32(1)))
        return [Node.let(o, E.load("owner", j))], E.select(E.ne(E.var(o), E.u32(0)), chosen, E.load("dst", j))

    return map_program("buffer_scatter_write", ["dst", "owner", "values"], value)


def _scatter_plan(sizes: Any, scalars: Any) -> KernelPlan:
    m, k = int(sizes["dst"]), int(sizes["idx"])
    out = Buffer("out", DataType.U32, m)
    if m == 0:
        return KernelPlan((out,), ())
    owner = Buffer("owner", DataType.U32, m)
    write_grid, write_params = grid_params("write_params", m)
    buffers: list[Buffer] = [out, owner, write_params]
    steps: list[Step] = []
    if k:
        owner_grid, owner_params = each_params("owner_params", k, m)
        buffers.append(owner_params)
        steps.append(Step(owner_program(), owner_grid.dispatch, {"params": "owner_params"}))
    steps.append(Step(scatter_write_program(), write_grid.dispatch, {"params": "write_params"}))
    return KernelPlan(tuple(buffers), tuple(steps))


def _check_scatter(args: tuple[Any, ...]) -> None:
    _, idx, values = args
    if len(idx) != len(values):
        raise ValueError(
            f"input `values` of `buffer.scatter` has {len(values)} elements, input `idx` {len(idx)};"
            " they must have the same length"
        )


# ---------------------------------------------------------------------------
# compact: flags -> bits -> scan -> scatter
# ---------------------------------------------------------------------------


def _mask_flag(p: Expr) -> tuple[list[Node], Expr]:
    return [], E.ne(E.load("mask", p), E.u32(0))


@cache
def compact_programs() -> tuple[Program, Program]:
    bits = C.bits_program("compact_flags", ["mask"], _mask_flag)
    scatter = C.scatter_program("compact_scatter", ["values"], lambda p: E.load("values", p))
    return bits, scatter


def _compact_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n = int(sizes["values"])
    out, count = Buffer("out", DataType.U32, n), Buffer("count", DataType.U32, 1)
    if n == 0:
        return KernelPlan((out, count), ())
    bits, scatter = compact_programs()
    buffers, steps = C.compaction_steps(n, scatter, {"values": "values"})
    flags = Step(bits, (C.tiles(n), 1, 1), {"bits": "c_bits", "params": "c_flag_params"})
    extra = [out, count, C.bits_buffer(n), params_buffer("c_flag_params", [n])]
    return KernelPlan((*extra, *buffers), (flags, *steps))


def _check_same_length(op_id: str, first: str, second: str) -> Callable[[tuple[Any, ...]], None]:
    def check(args: tuple[Any, ...]) -> None:
        a, b = args[0], args[1]
        if len(a) != len(b):
            raise ValueError(
                f"input `{second}` of `{op_id}` has {len(b)} elements, input `{first}` {len(a)};"
                " they must have the same length"
            )

    return check


# ---------------------------------------------------------------------------
# References (numpy / CPython)
# ---------------------------------------------------------------------------


def _one(value: int) -> tuple[np.ndarray]:
    return (np.array([value], dtype=np.uint32),)


def _memchr(data: np.ndarray, byte: int) -> tuple[np.ndarray]:
    found = np.asarray(data, dtype=np.uint8).tobytes().find(bytes([int(byte) & 0xFF]))
    return _one(NONE if found < 0 else found)


def _byte_count(data: np.ndarray, byte: int) -> tuple[np.ndarray]:
    return _one(np.asarray(data, dtype=np.uint8).tobytes().count(bytes([int(byte) & 0xFF])))


def _memcmp(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(np.asarray(a, np.uint8).tobytes() == np.asarray(b, np.uint8).tobytes()))


def _byte_swap(data: np.ndarray) -> tuple[np.ndarray]:
    raw = np.asarray(data, dtype=np.uint8)
    whole = len(raw) - len(raw) % 4
    out = raw.copy()
    out[:whole] = raw[:whole].view("<u4").byteswap().view(np.uint8)
    return (out,)


def _compact(values: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    kept = np.asarray(values, dtype=np.uint32)[np.asarray(mask) != 0]
    return kept, np.array([len(kept)], dtype=np.uint32)


def _gather(src: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray]:
    src, idx = np.asarray(src, dtype=np.uint32), np.asarray(idx, dtype=np.uint64)
    inside = idx < len(src)
    out = np.zeros(len(idx), dtype=np.uint32)
    out[inside] = src[idx[inside].astype(np.int64)]
    return (out,)


def _scatter(dst: np.ndarray, idx: np.ndarray, values: np.ndarray) -> tuple[np.ndarray]:
    out = np.asarray(dst, dtype=np.uint32).copy()
    idx, values = np.asarray(idx, dtype=np.uint64), np.asarray(values, dtype=np.uint32)
    inside = np.flatnonzero(idx < len(out))
    # the last occurrence of each index wins: reverse, np.unique keeps the first
    target = idx[inside][::-1].astype(np.int64)
    chosen, first = np.unique(target, return_index=True)
    out[chosen] = values[inside][::-1][first]
    return (out,)


# ---------------------------------------------------------------------------
# Laws
# ---------------------------------------------------------------------------


def _as_bytes(value: Any) -> bytes:
    return np.asarray(value, dtype=np.uint8).tobytes()


class FirstOccurrence(KernelLaw):
    """memchr: NONE, or an index holding the byte with no earlier one; and on a
    split a ‖ b: memchr(a) if found there, else len(a) + memchr(b) (or NONE)."""

    name = "FirstOccurrence"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data, byte = np.asarray(args[0], dtype=np.uint8), int(args[1])
        r = int(op(data, byte)[0][0])
        present = np.flatnonzero(data == byte)
        if r == NONE:
            return None if not present.size else f"NONE, but data[{int(present[0])}] is the byte"
        if r >= len(data) or data[r] != byte:
            return f"index {r} does not hold the byte {byte:#04x}"
        if present.size and present[0] < r:
            return f"data[{int(present[0])}] is an earlier occurrence than {r}"
        k = len(data) // 3
        left = int(op(data[:k], byte)[0][0])
        right = int(op(data[k:], byte)[0][0])
        combined = left if left != NONE else (NONE if right == NONE else k + right)
        if combined != r:
            return f"memchr(a‖b) = {r}, but from the halves (split at {k}) {combined}"
        return None


class CountComplement(KernelLaw):
    """byte_count: complementing every byte and the byte looked for changes
    nothing (count(x, b) = count(~x, 255 - b)), and the count is at most n."""

    name = "CountComplement"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data, byte = np.asarray(args[0], dtype=np.uint8), int(args[1])
        count = int(op(data, byte)[0][0])
        flipped = int(op(np.bitwise_not(data), 255 - byte)[0][0])
        if count != flipped:
            return f"count(x, {byte:#04x}) = {count} but count(~x, {255 - byte:#04x}) = {flipped}"
        if count > len(data):
            return f"count {count} exceeds the {len(data)} bytes"
        return None


class MemcmpReflexiveSymmetric(KernelLaw):
    """memcmp(a, a) = 1, memcmp(a, b) = memcmp(b, a), a one-byte change (the last
    byte, padding's neighbour) gives 0, and a shorter prefix gives 0."""

    name = "ReflexiveSymmetric"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        a, b = np.asarray(args[0], dtype=np.uint8), np.asarray(args[1], dtype=np.uint8)
        if int(op(a, a.copy())[0][0]) != 1:
            return "memcmp(a, a) != 1"
        if int(op(a, b)[0][0]) != int(op(b, a)[0][0]):
            return "memcmp(a, b) != memcmp(b, a)"
        if len(a):
            changed = a.copy()
            changed[-1] ^= 0x01
            if int(op(a, changed)[0][0]) != 0:
                return "a change of the last byte is not seen"
            if int(op(a, a[:-1].copy())[0][0]) != 0:
                return "memcmp(a, a[:-1]) != 0"
        return None


class SwapInvolution(KernelLaw):
    """swap(swap(x)) = x, the length kept, and swap(a ‖ b) = swap(a) ‖ swap(b) at a
    split on a multiple of 4."""

    name = "Involution"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        data = np.asarray(args[0], dtype=np.uint8)
        once = np.asarray(op(data)[0], dtype=np.uint8)
        if once.shape != data.shape:
            return f"{once.size} bytes out for {data.size} in"
        if _as_bytes(op(once)[0]) != data.tobytes():
            return "swap(swap(x)) != x"
        k = (len(data) // 3) & ~3
        parts = _as_bytes(op(data[:k])[0]) + _as_bytes(op(data[k:])[0])
        if parts != once.tobytes():
            return f"swap(a‖b) != swap(a) ‖ swap(b) (split at {k})"
        return None


class CompactLaws(KernelLaw):
    """compact: the count is the number of nonzero mask entries; the output is a
    subsequence of the values in order; compact(v, all ones) = v; compact(a ‖ b)
    = compact(a) ‖ compact(b)."""

    name = "CountOrderSplit"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        values, mask = np.asarray(args[0], dtype=np.uint32), np.asarray(args[1], dtype=np.uint32)
        out, count = (np.asarray(a, dtype=np.uint32) for a in op(values, mask))
        kept = int(np.count_nonzero(mask))
        if int(count[0]) != kept or len(out) != kept:
            return f"count {int(count[0])} (output {len(out)}) for {kept} nonzero mask entries"
        at = 0
        for v in out.tolist():  # a subsequence, in order
            while at < len(values) and int(values[at]) != v:
                at += 1
            if at == len(values):
                return "the output is not a subsequence of the values"
            at += 1
        everything = np.asarray(op(values, np.ones(len(values), dtype=np.uint32))[0], dtype=np.uint32)
        if everything.tobytes() != values.tobytes():
            return "compact(v, all ones) != v"
        k = len(values) // 3
        parts = np.concatenate([op(values[:k], mask[:k])[0], op(values[k:], mask[k:])[0]]).astype(np.uint32)
        if parts.tobytes() != out.tobytes():
            return f"compact(a‖b) != compact(a) ‖ compact(b) (split at {k})"
        return None


class GatherLaws(KernelLaw):
    """gather(src, arange(m)) = src; indices >= m give 0; gather(gather(s, i), j) =
    gather(s, i[j]) for j in range."""

    name = "IdentityOobCompose"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        src, idx = np.asarray(args[0], dtype=np.uint32), np.asarray(args[1], dtype=np.uint32)
        m = len(src)
        if np.asarray(op(src, np.arange(m, dtype=np.uint32))[0], dtype=np.uint32).tobytes() != src.tobytes():
            return "gather(src, arange(m)) != src"
        out = np.asarray(op(src, idx)[0], dtype=np.uint32)
        oob = np.flatnonzero(idx.astype(np.uint64) >= m)
        if oob.size and np.any(out[oob] != 0):
            return f"idx[{int(oob[0])}] = {int(idx[oob[0]])} >= {m} did not give 0"
        if len(idx):
            j = (np.arange(len(idx), dtype=np.uint64) * 7919 % len(idx)).astype(np.uint32)
            twice = np.asarray(op(out, j)[0], dtype=np.uint32)
            once = np.asarray(op(src, idx[j])[0], dtype=np.uint32)
            if twice.tobytes() != once.tobytes():
                return "gather(gather(s, i), j) != gather(s, i[j])"
        return None


class ScatterLaws(KernelLaw):
    """scatter(zeros(k), arange(k), v) = v; scatter(dst, i ‖ i, v ‖ w) =
    scatter(dst, i, w) (the later duplicate wins); out-of-range entries change
    nothing; scatter(dst, a ‖ b) = scatter(scatter(dst, a), b)."""

    name = "LastWinsOobSplit"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        dst, idx, values = (np.asarray(a, dtype=np.uint32) for a in args)
        k, m = len(idx), len(dst)
        direct = np.asarray(op(np.zeros(k, np.uint32), np.arange(k, dtype=np.uint32), values)[0], np.uint32)
        if direct.tobytes() != values.tobytes():
            return "scatter(zeros, arange(k), v) != v"
        out = np.asarray(op(dst, idx, values)[0], dtype=np.uint32)
        other = (values ^ np.uint32(0x5A5A_5A5A)).astype(np.uint32)
        doubled = np.asarray(op(dst, np.concatenate([idx, idx]), np.concatenate([values, other]))[0], np.uint32)
        if doubled.tobytes() != np.asarray(op(dst, idx, other)[0], np.uint32).tobytes():
            return "scatter(dst, i ‖ i, v ‖ w) != scatter(dst, i, w): the later duplicate did not win"
        oob_idx = np.concatenate([idx, np.array([m, 0xFFFF_FFFF], dtype=np.uint32)])
        oob_values = np.concatenate([values, np.array([1, 2], dtype=np.uint32)])
        if np.asarray(op(dst, oob_idx, oob_values)[0], np.uint32).tobytes() != out.tobytes():
            return "out-of-range entries changed the output"
        h = k // 3
        first = np.asarray(op(dst, idx[:h], values[:h])[0], dtype=np.uint32)
        chained = np.asarray(op(first, idx[h:], values[h:])[0], dtype=np.uint32)
        if chained.tobytes() != out.tobytes():
            return f"scatter(dst, a ‖ b) != scatter(scatter(dst, a), b) (split at {h})"
        return None


def _u32_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([(int(a[0]) + int(b[0])) & 0xFFFF_FFFF], dtype=np.uint32)


_BYTE_DATA = Port("data", DataType.BYTES)
_BYTE = Port("byte", DataType.U32, scalar=True)

KERNELS = (
    KernelSpec(
        id="buffer.memchr",
        version=1,
        inputs=(_BYTE_DATA, _BYTE),
        outputs=(Port("out", DataType.U32, scalar=True),),
        kind="reduce",
        reference=_memchr,
        plan=_byte_plan("first"),
        summary="first index of the byte, 0xFFFFFFFF if absent (bytes.find)",
        laws=(FirstOccurrence(), K.EmptyIs(NONE)),
        check_args=_check_byte("buffer.memchr"),
        sample=S.byte_search,
    ),
    KernelSpec(
        id="buffer.byte_count",
        version=1,
        inputs=(_BYTE_DATA, _BYTE),
        outputs=(Port("out", DataType.U32, scalar=True),),
        kind="reduce",
        reference=_byte_count,
        plan=_byte_plan("count"),
        summary="occurrences of the byte (bytes.count)",
        laws=(K.SplitCombine(_u32_sum), CountComplement(), K.EmptyIs(0)),
        check_args=_check_byte("buffer.byte_count"),
        sample=S.byte_search,
    ),
    KernelSpec(
        id="buffer.memcmp",
        version=1,
        inputs=(Port("a", DataType.BYTES), Port("b", DataType.BYTES)),
        outputs=(Port("out", DataType.BOOL, scalar=True),),
        kind="reduce",
        reference=_memcmp,
        plan=_memcmp_plan,
        summary="whether the two byte strings have equal length and content (a == b)",
        laws=(MemcmpReflexiveSymmetric(),),
        sample=S.memcmp,
    ),
    KernelSpec(
        id="buffer.byte_swap_u32",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.BYTES),),
        kind="map",
        reference=_byte_swap,
        plan=_byte_swap_plan,
        summary="every 4-byte group reversed; the length must be a multiple of 4",
        laws=(SwapInvolution(),),
        check_args=_check_multiple_of_4,
        sample=S.byte_words,
    ),
    KernelSpec(
        id="buffer.compact",
        version=1,
        inputs=(Port("values", DataType.U32), Port("mask", DataType.U32)),
        outputs=(Port("out", DataType.U32, length_from="count"), Port("count", DataType.U32, scalar=True)),
        kind="scan-based",
        reference=_compact,
        plan=_compact_plan,
        summary="the values where mask != 0, in input order (values[mask != 0]), and their count",
        laws=(CompactLaws(),),
        check_args=_check_same_length("buffer.compact", "values", "mask"),
        sample=S.compacted,
    ),
    KernelSpec(
        id="buffer.gather",
        version=1,
        inputs=(Port("src", DataType.U32), Port("idx", DataType.U32)),
        outputs=(Port("out", DataType.U32),),
        kind="map",
        reference=_gather,
        plan=_gather_plan,
        summary="out[i] = src[idx[i]], 0 where idx[i] >= len(src)",
        laws=(GatherLaws(),),
        sample=S.gathered,
    ),
    KernelSpec(
        id="buffer.scatter",
        version=1,
        inputs=(Port("dst", DataType.U32), Port("idx", DataType.U32), Port("values", DataType.U32)),
        outputs=(Port("out", DataType.U32),),
        kind="map",
        reference=_scatter,
        plan=_scatter_plan,
        summary="dst with dst[idx[i]] = values[i] in order (a duplicate index: the largest i wins;"
        " indices >= len(dst) dropped)",
        laws=(ScatterLaws(),),
        check_args=_check_scatter,
        sample=S.scattered,
    ),
)
