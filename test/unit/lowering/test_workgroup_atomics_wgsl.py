"""The lowering of atomics on workgroup buffers: `array<atomic<u32>, N>` for the
workgroup arrays an atomic touches (and only those), atomic builtins for every
access to them, the zeroing by `atomicStore`, the OOB guard on the declared
count. Every kernel is also handed to naga, which must accept it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from vyre.ir import AtomicOp, BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.pipeline import lowered as lower

Check = Callable[[str], None]
LOCAL = E.local_id(0)


def _program(op: AtomicOp) -> Program:
    expected = E.u32(0) if op is AtomicOp.COMPARE_EXCHANGE else None
    return Program(
        [
            BufferDecl.read_write("out", 0, DataType.U32),
            BufferDecl.workgroup("counts", 32, DataType.U32),
            BufferDecl.workgroup("scratch", 16, DataType.U32),
            BufferDecl.workgroup("pairs", 4, DataType.U64),
        ],
        (64, 1, 1),
        [
            N.store("scratch", LOCAL, LOCAL),
            N.let("old", E.atomic(op, "counts", E.bitand(LOCAL, E.u32(31)), E.u32(3), expected)),
            N.barrier(),
            N.store("out", E.gid_x(), E.add(E.var("old"), E.load("counts", LOCAL))),
            N.store("counts", E.add(LOCAL, E.u32(1)), E.load("scratch", LOCAL)),
        ],
    )


BUILTINS = {
    AtomicOp.ADD: "atomicAdd",
    AtomicOp.OR: "atomicOr",
    AtomicOp.AND: "atomicAnd",
    AtomicOp.XOR: "atomicXor",
    AtomicOp.MIN: "atomicMin",
    AtomicOp.MAX: "atomicMax",
    AtomicOp.EXCHANGE: "atomicExchange",
    AtomicOp.COMPARE_EXCHANGE: "atomicCompareExchangeWeak",
}


@pytest.mark.parametrize("op", list(AtomicOp), ids=lambda op: op.name)
def test_only_the_atomic_workgroup_array_is_atomic(op: AtomicOp, naga_accepts: Check) -> None:
    kernel = lower(_program(op))
    naga_accepts(kernel.wgsl)
    assert [(a.name, a.atomic, a.wgsl_element_type) for a in kernel.workgroup_arrays] == [
        ("counts", True, "atomic<u32>"),
        ("scratch", False, "u32"),
        ("pairs", False, "vec2<u32>"),
    ]
    wgsl = kernel.wgsl
    assert "var<workgroup> counts: array<atomic<u32>, 32>;" in wgsl
    assert "var<workgroup> scratch: array<u32, 16>;" in wgsl
    assert f"{BUILTINS[op]}(&counts[i], " in wgsl
    # every access to `counts` is an atomic builtin; `scratch` is plain
    assert re.findall(r"(?<![&\w])counts\[", wgsl) == []
    assert "return atomicLoad(&counts[i]);" in wgsl
    assert "atomicStore(&counts[i], value);" in wgsl
    assert "scratch[i] = value;" in wgsl
    assert "atomicStore(&counts[k], 0u);" in wgsl
    assert "scratch[k] = 0u;" in wgsl
    assert "pairs[k] = vec2<u32>();" in wgsl
    # the OOB guards bound by the declared count
    assert wgsl.count("if (i < 32u) {") + wgsl.count("if (i >= 32u) {") == 3


def test_zeroing_comes_before_the_first_statement(naga_accepts: Check) -> None:
    wgsl = lower(_program(AtomicOp.ADD)).wgsl
    naga_accepts(wgsl)
    entry = wgsl.split("@compute", 1)[1]
    zero = entry.index("atomicStore(&counts[k], 0u);")
    barrier = entry.index("workgroupBarrier();")
    first = entry.index("vyre_store_scratch(")
    assert zero < barrier < first


def test_workgroup_atomic_lowering_is_deterministic() -> None:
    assert lower(_program(AtomicOp.MAX)).wgsl == lower(_program(AtomicOp.MAX)).wgsl
