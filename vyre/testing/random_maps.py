"""Random elementwise map programs (the shape the vectorised lowering handles).

`random_map_case(seed)` builds a valid program whose read_write buffers are
accessed only at its element index `idx` (`let i = invocation_id.x`, or the 2-D
form `i = id.y * row + id.x` that `vyre.ops.evaluate` uses), with inputs and a
dispatch that covers each index once, so the runtime runs it vectorised
(vyre/lowering/map_shape.py, vector.py). Everything else a map may do is drawn:

- buffers of every vectorisable type (U32, I32, Bool, F32, F16, BF16), read-only
  and read_write, with lengths around the number of invocations n (shorter,
  equal, longer, empty), so the fast path, the scalar tail, OOB loads and stores
  and odd F16/BF16 lengths all occur; read_write buffers start with content;
- loads at `i` (direct, through the let, or through a second let bound to it),
  gathers from read-only buffers at other indices, a uniform buffer, `buf_len`;
- stores at `i`: unconditional, conditional, repeated, read-modify-write, none;
  `return` under a condition; a small loop; every integer operator and
  strict float arithmetic on float elements;
- the index itself used as a value.

Both backends must give the same words (tests compare the interpreter, the
vectorised and the scalar lowering).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from vyre.ir import BinOp, BufferAccess, BufferDecl, DataType, Expr as E, Node as N, Program, print_ir
from vyre.testing.random_programs import FLOAT_EDGES, U32_EDGES
from vyre.validate import validate
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS

__all__ = ["MapCase", "random_map_case"]

_T = TypeVar("_T")

KINDS = (DataType.U32, DataType.I32, DataType.BOOL, DataType.F32, DataType.F16, DataType.BF16)
FLOAT_OPS = (BinOp.FADD, BinOp.FSUB, BinOp.FMUL, BinOp.FMIN, BinOp.FMAX)
WORKGROUPS = (1, 4, 8, 13, 32, 64, 256)


@dataclass(frozen=True)
class MapCase:
    seed: int
    program: Program
    words: dict[str, np.ndarray]
    dispatch: tuple[int, int, int]
    lengths: dict[str, int] = field(default_factory=lambda: {})
    """Element counts of the F16/BF16 buffers (the backends' `lengths`)."""
    invocations: int = 0
    """n: the number of (virtual) invocations, one per index."""

    def describe(self) -> str:
        lines = [f"seed={self.seed} dispatch={self.dispatch} n={self.invocations}", print_ir(self.program)]
        for name, words in self.words.items():
            lines.append(f"{name} = {[hex(int(w)) for w in words[:64]]}{' ...' if len(words) > 64 else ''}")
        return "\n".join(lines)


def random_map_case(seed: int, *, max_invocations: int = 2100, float_ops: bool = True) -> MapCase:
    """The map case of `seed` (deterministic). AssertionError when the program
    it built is invalid (a generator bug)."""
    case = _Generator(random.Random(seed), max_invocations, float_ops).case(seed)
    diagnostics = validate(case.program)
    assert not diagnostics, "\n".join(d.message for d in diagnostics) + "\n" + print_ir(case.program)
    return case


@dataclass
class _Buf:
    name: str
    dtype: DataType
    access: BufferAccess
    length: int


class _Generator:
    def __init__(self, rng: random.Random, max_invocations: int, float_ops: bool):
        self.rng = rng
        self.max_invocations = max_invocations
        self.float_ops = float_ops
        self.counter = 0
        self.values: list[E] = []
        """u32 expressions usable in the current scope."""

    def pick(self, items: Sequence[_T]) -> _T:
        return items[self.rng.randrange(len(items))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- shape --------------------------------------------------------------------

    def case(self, seed: int) -> MapCase:
        rng = self.rng
        workgroup = self.pick(WORKGROUPS)
        target = self.pick((1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 511, 512, 513, 1000)) if self.chance(0.5) else rng.randint(1, self.max_invocations)
        groups = max(1, -(-target // workgroup))
        two_d = self.chance(0.4) and groups > 1
        if two_d:
            gx = self.pick([g for g in (1, 2, 3, 5, 8) if g <= groups] or [1])
            gy = -(-groups // gx)
            dispatch = (gx, gy, 1)
        else:
            dispatch = (groups, 1, 1)
        n = dispatch[0] * dispatch[1] * workgroup
        self.n = n
        buffers = self._buffers(n)
        self.buffers = buffers
        gid = E.invocation_id(0)
        if two_d:
            row = E.u32(dispatch[0] * workgroup)
            parts = [E.mul(E.invocation_id(1), row), E.invocation_id(0)]
            if self.chance(0.5):
                parts = [E.mul(row, E.invocation_id(1)), E.invocation_id(0)]
            index = E.add(*parts) if self.chance(0.5) else E.add(parts[1], parts[0])
            body = [N.let("i", index)]
            self.index = E.var("i")
        elif self.chance(0.3):
            body = []
            self.index = gid
        else:
            body = [N.let("i", gid)]
            self.index = E.var("i")
        if self.chance(0.3) and body:
            body.append(N.let("j", self.index))
            self.index = E.var("j")
        self.values = [self.index, E.u32(self.pick(U32_EDGES))]
        body += self._statements(self.rng.randint(2, 7), depth=0)
        program = Program(
            buffers=[BufferDecl(b.name, k, b.access, b.dtype) for k, b in enumerate(buffers)],
            workgroup_size=(workgroup, 1, 1),
            entry=body,
            name=f"map_{seed}",
        )
        words, lengths = self._inputs(buffers)
        return MapCase(seed, program, words, dispatch, lengths, n)

    def _buffers(self, n: int) -> list[_Buf]:
        buffers: list[_Buf] = []
        for k in range(self.rng.randint(1, 3)):
            buffers.append(_Buf(f"in{k}", self.pick(KINDS), BufferAccess.READ_ONLY, self._length(n)))
        for k in range(self.rng.randint(1, 3)):
            buffers.append(_Buf(f"out{k}", self.pick(KINDS), BufferAccess.READ_WRITE, self._length(n)))
        if self.chance(0.25):
            buffers.append(_Buf("par", DataType.U32, BufferAccess.UNIFORM, self.pick((1, 4, 9))))
        self.rng.shuffle(buffers)
        return buffers

    def _length(self, n: int) -> int:
        roll = self.rng.random()
        if roll < 0.5:
            return n
        if roll < 0.6:
            return 0
        return max(0, n + self.pick((-9, -8, -7, -3, -1, 1, 2, 8, 33)))

    def _inputs(self, buffers: list[_Buf]) -> tuple[dict[str, np.ndarray], dict[str, int]]:
        words: dict[str, np.ndarray] = {}
        lengths: dict[str, int] = {}
        for buf in buffers:
            if buf.dtype in (DataType.F16, DataType.BF16):
                halves = [self._float(buf.dtype) for _ in range(buf.length)] + [0] * (buf.length % 2)
                if buf.length % 2 and self.chance(0.5):
                    halves[-1] = self.rng.getrandbits(16)  # padding half: must be kept
                packed = [lo | hi << 16 for lo, hi in zip(halves[::2], halves[1::2], strict=True)]
                words[buf.name] = np.array(packed, dtype=np.uint32)
                lengths[buf.name] = buf.length
            elif buf.dtype is DataType.F32:
                words[buf.name] = np.array([self._float(DataType.F32) for _ in range(buf.length)], dtype=np.uint32)
            elif buf.dtype is DataType.BOOL:
                words[buf.name] = np.array([self.pick((0, 1, 1, 2, 0xFFFF_FFFF)) for _ in range(buf.length)], dtype=np.uint32)
            else:
                values = [self.pick(U32_EDGES) if self.chance(0.3) else self.rng.getrandbits(32) for _ in range(buf.length)]
                words[buf.name] = np.array(values, dtype=np.uint32)
        return words, lengths

    def _float(self, dtype: DataType) -> int:
        if self.chance(0.5):
            return self.pick(FLOAT_EDGES[dtype])
        return self.rng.getrandbits(32 if dtype is DataType.F32 else 16)

    # -- statements ---------------------------------------------------------------

    def _statements(self, count: int, depth: int) -> list[N]:
        nodes: list[N] = []
        for _ in range(count):
            nodes += self._statement(depth)
        return nodes

    def _statement(self, depth: int) -> list[N]:
        roll = self.rng.random()
        outputs = [b for b in self.buffers if b.access is BufferAccess.READ_WRITE]
        if roll < 0.35:
            buf = self.pick(outputs)
            return [N.store(buf.name, self.index, self._typed(buf.dtype, 2))]
        if roll < 0.6:
            name = self.fresh("v")
            node = N.let(name, self._u32(2))
            self.values.append(E.var(name))
            return [node]
        if roll < 0.7 and depth < 2:
            then = self._scoped(lambda: self._statements(self.rng.randint(1, 3), depth + 1))
            otherwise = self._scoped(lambda: self._statements(self.rng.randint(0, 2), depth + 1))
            return [N.if_(self._u32(1), then, otherwise)]
        if roll < 0.75:
            return [N.if_(E.eq(E.bitand(self._u32(1), E.u32(3)), E.u32(0)), [N.return_()])]
        if roll < 0.74 and depth < 2 and self.chance(0.2):
            acc = self.fresh("acc")
            var = self.fresh("k")
            upper = E.bitand(self._u32(1), E.u32(7))
            saved = list(self.values)
            self.values.append(E.var(var))
            body = [N.assign(acc, E.add(E.var(acc), self._u32(1)))]
            self.values = saved
            self.values.append(E.var(acc))
            return [N.let(acc, E.u32(0)), N.loop(var, E.u32(0), upper, body)]
        buf = self.pick(outputs)  # read-modify-write of the own element
        return [N.store(buf.name, self.index, self._typed(buf.dtype, 1, read=buf))]

    def _scoped(self, build: Callable[[], list[N]]) -> list[N]:
        saved = list(self.values)
        try:
            return build()
        finally:
            self.values = saved

    # -- expressions --------------------------------------------------------------

    def _load(self, buf: _Buf, at_index: bool = True) -> E:
        if at_index or buf.access is not BufferAccess.READ_ONLY and buf.access is not BufferAccess.UNIFORM:
            return E.load(buf.name, self.index)
        index = self.pick((E.u32(0), E.add(self.index, E.u32(1)), E.bitand(self._u32(1), E.u32(15)), E.u32(buf.length)))
        return E.load(buf.name, index)

    def _as_u32(self, value: E, dtype: DataType) -> E:
        if dtype is DataType.U32:
            return value
        if dtype in (DataType.I32, DataType.BOOL):
            return E.cast(DataType.U32, value)
        return E.bitcast(DataType.U32, value)

    def _from_u32(self, value: E, dtype: DataType) -> E:
        if dtype is DataType.U32:
            return value
        if dtype in (DataType.I32, DataType.BOOL):
            return E.cast(dtype, value)
        return E.bitcast(dtype, value)

    def _typed(self, dtype: DataType, depth: int, read: _Buf | None = None) -> E:
        """A value of `dtype` to store; `read`: built from that buffer's own element."""
        if read is not None:
            own = self._as_u32(E.load(read.name, self.index), read.dtype)
            return self._from_u32(E.binop(self.pick(list(INT_BINOPS)), own, self._u32(depth)), dtype)
        floats = [b for b in self.buffers if b.dtype is dtype and b.access is not BufferAccess.UNIFORM]
        if self.float_ops and dtype in (DataType.F32, DataType.F16, DataType.BF16) and floats and self.chance(0.5):
            a = self._load(self.pick(floats), self.chance(0.8))
            b = self._load(self.pick(floats), self.chance(0.8)) if self.chance(0.7) else self._from_u32(self._u32(1), dtype)
            return E.binop(self.pick(FLOAT_OPS), a, b)
        return self._from_u32(self._u32(depth), dtype)

    def _u32(self, depth: int) -> E:
        roll = self.rng.random()
        if depth <= 0 or roll < 0.3:
            return self._leaf()
        if roll < 0.75:
            op = self.pick(list(INT_BINOPS))
            return E.binop(op, self._u32(depth - 1), self._u32(depth - 1))
        if roll < 0.85:
            return E.unop(self.pick(list(INT_UNOPS)), self._u32(depth - 1))
        if roll < 0.95:
            return E.select(self._u32(depth - 1), self._u32(depth - 1), self._u32(depth - 1))
        return E.cast(DataType.U32, E.cast(DataType.I32, self._u32(depth - 1)))

    def _leaf(self) -> E:
        roll = self.rng.random()
        if roll < 0.45:
            buf = self.pick(self.buffers)
            at_index = buf.access is not BufferAccess.UNIFORM and self.chance(0.8)
            return self._as_u32(self._load(buf, at_index), buf.dtype)
        if roll < 0.8:
            return self.pick(self.values)
        if roll < 0.9:
            return E.buf_len(self.pick(self.buffers).name)
        return E.u32(self.pick(U32_EDGES))
