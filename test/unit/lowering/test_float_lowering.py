"""The WGSL of strict floats: float values are `u32` bit patterns, float buffers
`u32` arrays (F16/BF16 two elements per word, stored by a compare-exchange loop on
the word), and the emitted WGSL contains no float type and no float operation.
Float arithmetic that reaches the emitter (the float-strict pass not run) raises
`LoweringError`.

Programs without float arithmetic are lowered through the pipeline
(`vyre.pipeline.prepare`: validate, inline, canonicalize); programs with float
arithmetic are lowered from their kernel as built, so that no float-strict pass
can remove the operation under test.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from vyre.ir import BufferDecl, DataType as T, Expr as E, Node as N, Program
from vyre.lowering import LoweredKernel, LoweringError, lower
from vyre.pipeline import prepare

Check = Callable[[str], None]
GID = E.gid_x()
FLOAT_TYPE = re.compile(r"\b(?:f16|f32|bf16|f64|vec[234][fh]|mat\dx\d[fh]?|enable)\b")
FLOAT_LITERAL = re.compile(r"(?<![\w.])\d+\.\d*|(?<![\w.])\d+(?:\.\d*)?(?:e[+-]?\d+)?[fh]\b")
FIX = "Fix: run the float-strict pass (vyre.pipeline.prepare does)."


def _lowered(program: Program) -> LoweredKernel:
    return lower(prepare(program).kernel)


def _helper(wgsl: str, prefix: str) -> str:
    """The text of the helper function whose name starts with `prefix`."""
    match = re.search(rf"fn {prefix}\w*\(.*?\n}}\n", wgsl, re.S)
    assert match, f"no helper {prefix} in\n{wgsl}"
    return match.group(0)


def _assert_no_float(wgsl: str) -> None:
    """No float type anywhere (comments included), no float literal in the code."""
    code = re.sub(r"//[^\n]*", "", wgsl)
    found = FLOAT_TYPE.search(wgsl) or FLOAT_LITERAL.search(code)
    assert found is None, f"float token {found.group(0)!r} in the WGSL:\n{wgsl}"


def _every_float_form() -> Program:
    """Float buffers of every type and access, literals (NaN payloads,
    subnormals), let/var/assign, select, bitcasts both ways, loads, stores,
    buf_len, workgroup arrays."""
    i = E.var("i")
    return Program(
        buffers=[
            BufferDecl.read("a32", 0, T.F32),
            BufferDecl.read("a16", 1, T.F16),
            BufferDecl.read("ab", 2, T.BF16),
            BufferDecl.uniform("u16", 3, T.F16),
            BufferDecl.uniform("u32f", 4, T.F32),
            BufferDecl.read_write("o32", 5, T.F32),
            BufferDecl.read_write("o16", 6, T.F16),
            BufferDecl.read_write("ob", 7, T.BF16),
            BufferDecl.read_write("bits", 8, T.U32),
            BufferDecl.read_write("sbits", 9, T.I32),
            BufferDecl.workgroup("w16", 64, T.F16),
            BufferDecl.workgroup("w32", 64, T.F32),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("i", GID),
            N.let("x", E.load("a32", i)),
            N.let("h", E.load("a16", i)),
            N.let("b", E.load("ab", i)),
            N.let("m", E.f32(-1.5)),
            N.assign("m", E.select(E.lt(i, E.u32(7)), E.var("x"), E.load("u32f", i))),
            N.store("w16", E.local_id(0), E.var("h")),
            N.store("w32", E.local_id(0), E.var("m")),
            N.barrier(),
            N.store("o32", i, E.load("w32", E.bitxor(E.local_id(0), E.u32(1)))),
            N.store("o32", E.add(i, E.u32(1)), E.float_bits(T.F32, 0x7F80_0001)),
            N.store("o32", E.add(i, E.u32(2)), E.bitcast(T.F32, E.load("bits", i))),
            N.store("o32", E.add(i, E.u32(3)), E.bitcast(T.F32, E.load("sbits", i))),
            N.store("o16", i, E.select(E.load("bits", i), E.var("h"), E.load("u16", i))),
            N.store("o16", E.add(i, E.u32(1)), E.f16(0.5)),
            N.store("o16", E.add(i, E.u32(2)), E.bitcast(T.F16, E.load("bits", i))),
            N.store("o16", E.add(i, E.u32(3)), E.bitcast(T.F16, E.load("sbits", i))),
            N.store("o16", E.add(i, E.u32(4)), E.load("w16", E.local_id(0))),
            N.store("ob", i, E.var("b")),
            N.store("ob", E.add(i, E.u32(1)), E.bf16(-2.0)),
            N.store("ob", E.add(i, E.u32(2)), E.float_bits(T.BF16, 0x0001)),
            N.store("bits", i, E.bitcast(T.U32, E.var("x"))),
            N.store("bits", E.add(i, E.u32(1)), E.bitcast(T.U32, E.var("h"))),
            N.store("bits", E.add(i, E.u32(2)), E.bitcast(T.U32, E.var("b"))),
            N.store("bits", E.add(i, E.u32(3)), E.buf_len("o16")),
            N.store("sbits", i, E.bitcast(T.I32, E.var("m"))),
            N.store("sbits", E.add(i, E.u32(1)), E.bitcast(T.I32, E.var("h"))),
        ],
    )


def test_no_float_type_or_operation_is_emitted(naga_accepts: Check) -> None:
    wgsl = _lowered(_every_float_form()).wgsl
    naga_accepts(wgsl)
    _assert_no_float(wgsl)


def test_float_buffers_are_u32_arrays_and_halves_are_atomic(naga_accepts: Check) -> None:
    kernel = _lowered(_every_float_form())
    wgsl = kernel.wgsl
    naga_accepts(wgsl)
    declarations = {
        "a32": "var<storage, read> a32: array<u32>;",
        "a16": "var<storage, read> a16: array<u32>;",
        "ab": "var<storage, read> ab: array<u32>;",
        "u16": "var<uniform> u16: array<vec4<u32>, 4096>;",
        "o32": "var<storage, read_write> o32: array<u32>;",
        "o16": "var<storage, read_write> o16: array<atomic<u32>>;",
        "ob": "var<storage, read_write> ob: array<atomic<u32>>;",
    }
    for text in declarations.values():
        assert text in wgsl
    assert "var<workgroup> w16: array<u32, 64>;" in wgsl
    assert "var<workgroup> w32: array<u32, 64>;" in wgsl
    atomic = {b.name: b.atomic for b in kernel.buffers}
    assert atomic == {name: name in ("o16", "ob") for name in atomic}
    packed = {b.name for b in kernel.buffers if b.packed_halves}
    assert packed == {"a16", "ab", "u16", "o16", "ob"}
    # meta counts are element counts; buf_len reads them
    assert "len_o16" in wgsl and "_vyre_meta.len_o16" in _helper(wgsl, "vyre_store_o16")


def test_half_loads_extract_their_half_of_the_word(naga_accepts: Check) -> None:
    wgsl = _lowered(_every_float_form()).wgsl
    naga_accepts(wgsl)
    load = _helper(wgsl, "vyre_load_a16")
    assert re.search(r"if \((\w+) < _vyre_meta\.len_a16\) \{\n\s*return \(a16\[\1 >> 1u\] >> \(\(\1 & 1u\) << 4u\)\) & 0xffffu;", load), load
    assert "return 0u;" in load
    uniform = _helper(wgsl, "vyre_load_u16")
    assert re.search(r"u16\[(\w+) >> 3u\]\[\(\1 >> 1u\) & 3u\] >> \(\(\1 & 1u\) << 4u\)\) & 0xffffu", uniform), uniform
    workgroup = _helper(wgsl, "vyre_load_w16")
    assert re.search(r"return w16\[\w+\];", workgroup), workgroup  # one element per word
    f32_load = _helper(wgsl, "vyre_load_a32")
    assert re.search(r"return a32\[\w+\];", f32_load)


def test_half_stores_use_a_compare_exchange_loop_on_the_word(naga_accepts: Check) -> None:
    wgsl = _lowered(_every_float_form()).wgsl
    naga_accepts(wgsl)
    for name in ("o16", "ob"):
        store = _helper(wgsl, f"vyre_store_{name}")
        i, v = re.findall(rf"fn vyre_store_{name}\w*\((\w+): u32, (\w+): u32\)", store)[0]
        assert f"if ({i} >= _vyre_meta.len_{name}) {{\n    return;" in store  # OOB: no write
        assert f"{i} >> 1u" in store and f"({i} & 1u) << 4u" in store
        assert f"({v} & 0xffffu) <<" in store
        assert f"atomicLoad(&{name}[" in store
        assert re.search(
            rf"loop \{{\n\s*let (\w+) = atomicCompareExchangeWeak\(&{name}\[\w+\], (\w+), \(\2 & \w+\) \| \w+\);"
            rf"\n\s*if \(\1\.exchanged\) \{{\n\s*break;\n\s*\}}\n\s*\2 = \1\.old_value;",
            store,
        ), store
        # the word is never written any other way
        assert "atomicStore" not in store and f"{name}[" not in store.replace(f"&{name}[", "")
    # every access of an atomic half buffer goes through atomics
    assert not re.search(r"(?<!&)\bo16\[", wgsl)
    # a workgroup half array is one element per word: a plain store
    assert re.search(r"w16\[\w+\] = \w+;", _helper(wgsl, "vyre_store_w16"))


def test_literals_are_u32_words_of_their_bits(naga_accepts: Check) -> None:
    program = Program(
        buffers=[
            BufferDecl.read_write("o32", 0, T.F32),
            BufferDecl.read_write("o16", 1, T.F16),
            BufferDecl.read_write("ob", 2, T.BF16),
        ],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("o32", E.u32(0), E.f32(1.0)),
            N.store("o32", E.u32(1), E.float_bits(T.F32, 0x7F80_0001)),  # signalling NaN
            N.store("o32", E.u32(2), E.float_bits(T.F32, 0x0000_0001)),  # subnormal
            N.store("o32", E.u32(3), E.f32(-0.0)),
            N.store("o16", E.u32(0), E.f16(1.5)),
            N.store("o16", E.u32(1), E.float_bits(T.F16, 0xFE01)),
            N.store("ob", E.u32(0), E.bf16(1.0)),
            N.store("ob", E.u32(1), E.bitcast(T.BF16, E.u32(0x1234_5678))),  # low half
            N.store("o16", E.u32(2), E.bitcast(T.F16, E.i32(-1))),
        ],
    )
    wgsl = _lowered(program).wgsl
    naga_accepts(wgsl)
    _assert_no_float(wgsl)
    body = wgsl.split("@compute", 1)[1]
    for call in (
        # ±1.0 bit patterns are mixed with the meta's opaque zero (opaque_constants.py)
        "vyre_store_o32(0u, (0x3f800000u ^ _vyre_meta.opaque_zero));",
        "vyre_store_o32(1u, 0x7f800001u);",
        "vyre_store_o32(2u, 1u);",
        "vyre_store_o32(3u, 0x80000000u);",
        "vyre_store_o16(0u, 15872u);",
        "vyre_store_o16(1u, 65025u);",
        "vyre_store_ob(0u, 16256u);",
        "vyre_store_ob(1u, 22136u);",
        "vyre_store_o16(2u, 65535u);",
    ):
        assert call in body, body


def test_bitcasts(naga_accepts: Check) -> None:
    program = Program(
        buffers=[
            BufferDecl.read("f", 0, T.F32),
            BufferDecl.read("h", 1, T.F16),
            BufferDecl.read("u", 2, T.U32),
            BufferDecl.read("s", 3, T.I32),
            BufferDecl.read_write("ofl", 4, T.F32),
            BufferDecl.read_write("oh", 5, T.BF16),
            BufferDecl.read_write("ou", 6, T.U32),
            BufferDecl.read_write("os", 7, T.I32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("ou", E.u32(0), E.bitcast(T.U32, E.load("f", E.u32(0)))),
            N.store("os", E.u32(0), E.bitcast(T.I32, E.load("f", E.u32(0)))),
            N.store("ofl", E.u32(0), E.bitcast(T.F32, E.load("u", E.u32(0)))),
            N.store("ofl", E.u32(1), E.bitcast(T.F32, E.load("s", E.u32(0)))),
            N.store("oh", E.u32(0), E.bitcast(T.BF16, E.load("u", E.u32(0)))),
            N.store("oh", E.u32(1), E.bitcast(T.BF16, E.load("s", E.u32(0)))),
            N.store("ou", E.u32(1), E.bitcast(T.U32, E.load("h", E.u32(0)))),
            N.store("os", E.u32(1), E.bitcast(T.I32, E.load("h", E.u32(0)))),
            N.store("os", E.u32(2), E.bitcast(T.I32, E.load("u", E.u32(1)))),
            N.store("ou", E.u32(2), E.bitcast(T.U32, E.load("s", E.u32(1)))),
        ],
    )
    wgsl = _lowered(program).wgsl
    naga_accepts(wgsl)
    _assert_no_float(wgsl)
    body = wgsl.split("@compute", 1)[1]
    for call in (
        "vyre_store_ou(0u, vyre_load_f(0u));",  # F32 -> U32: the word
        "vyre_store_os(0u, bitcast<i32>(vyre_load_f(0u)));",
        "vyre_store_ofl(0u, vyre_load_u(0u));",  # U32 -> F32: the word
        "vyre_store_ofl(1u, bitcast<u32>(vyre_load_s(0u)));",
        "vyre_store_oh(0u, vyre_load_u(0u) & 0xffffu);",  # the low 16 bits
        "vyre_store_oh(1u, bitcast<u32>(vyre_load_s(0u)) & 0xffffu);",
        "vyre_store_ou(1u, vyre_load_h(0u));",  # zero-extended already
        "vyre_store_os(1u, bitcast<i32>(vyre_load_h(0u)));",
        "vyre_store_os(2u, bitcast<i32>(vyre_load_u(1u)));",  # integers: as the cast table
        "vyre_store_ou(2u, bitcast<u32>(vyre_load_s(1u)));",
    ):
        assert call in body, body


def _one_float_op(value: E) -> Program:
    return Program(
        buffers=[
            BufferDecl.read("a", 0, T.F32),
            BufferDecl.read("n", 1, T.U32),
            BufferDecl.read_write("out", 2, T.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(0), value)],
    )


_A = E.load("a", E.u32(0))
_B = E.load("a", E.u32(1))
_N = E.load("n", E.u32(0))
FLOAT_ARITHMETIC = {
    "vyre.fadd": E.bitcast(T.U32, E.fadd(_A, _B)),
    "vyre.fsub": E.bitcast(T.U32, E.fsub(_A, _B)),
    "vyre.fmul": E.bitcast(T.U32, E.fmul(_A, _B)),
    "vyre.fdiv": E.bitcast(T.U32, E.fdiv(_A, _B)),
    "vyre.fmin": E.bitcast(T.U32, E.fmin(_A, _B)),
    "vyre.fmax": E.bitcast(T.U32, E.fmax(_A, _B)),
    "vyre.fcmp": E.cast(T.U32, E.flt(_A, _B)),
    "vyre.fma": E.bitcast(T.U32, E.fma(_A, _B, _A)),
    "vyre.fneg": E.bitcast(T.U32, E.fneg(_A)),
    "vyre.fabs": E.bitcast(T.U32, E.fabs(_A)),
    "vyre.fsqrt": E.bitcast(T.U32, E.fsqrt(_A)),
    "vyre.ffloor": E.bitcast(T.U32, E.ffloor(_A)),
    "vyre.fround": E.bitcast(T.U32, E.fround(_A)),
    "vyre.fis_nan": E.cast(T.U32, E.fis_nan(_A)),
    "vyre.fis_inf": E.cast(T.U32, E.fis_inf(_A)),
    "float value cast `vyre.cast` from `f32` to `u32`": E.cast(T.U32, _A),
    "float value cast `vyre.cast` from `u32` to `f32`": E.bitcast(T.U32, E.cast(T.F32, _N)),
    "float value cast `vyre.cast` from `f32` to `f16`": E.bitcast(T.U32, E.cast(T.F16, _A)),
    "float value cast `vyre.cast` from `f32` to `i32`": E.cast(T.U32, E.cast(T.I32, _A)),
}


@pytest.mark.parametrize("what", list(FLOAT_ARITHMETIC))
def test_float_arithmetic_reaching_the_emitter_is_an_error(what: str) -> None:
    program = _one_float_op(FLOAT_ARITHMETIC[what])
    with pytest.raises(LoweringError) as raised:
        lower(program.kernel)  # as built: no pass may rewrite it first
    message = str(raised.value)
    assert what in message and FIX in message, message


def test_a_float_meeting_a_u32_slot_keeps_its_bits(naga_accepts: Check) -> None:
    """After a pass that retypes float values to u32 (float-strict), a u32 value
    stored to a float buffer or a float stored where a u32 is read is a bitcast."""
    program = Program(
        buffers=[
            BufferDecl.read_write("o32", 0, T.F32),
            BufferDecl.read_write("o16", 1, T.F16),
            BufferDecl.read("u", 2, T.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("o32", E.u32(0), E.load("u", E.u32(0))),
            N.store("o16", E.u32(0), E.load("u", E.u32(1))),
        ],
    )
    wgsl = lower(program.kernel).wgsl  # invalid (V121) on purpose: not validated
    naga_accepts(wgsl)
    _assert_no_float(wgsl)
    body = wgsl.split("@compute", 1)[1]
    assert "vyre_store_o32(0u, vyre_load_u(0u));" in body
    assert "vyre_store_o16(0u, vyre_load_u(1u) & 0xffffu);" in body


@pytest.mark.parametrize("dtype", [T.F32, T.F16, T.BF16], ids=lambda t: t.value)
def test_the_pipeline_wgsl_of_float_arithmetic_has_no_float(dtype: T, naga_accepts: Check) -> None:
    """`prepare(program).wgsl` runs float-strict first: every float operation
    becomes integer code, and the WGSL has no float type or operation."""
    a = E.load("a", GID)
    b = E.load("a", E.add(GID, E.u32(1)))
    results = [
        E.fadd(a, b), E.fsub(a, b), E.fmul(a, b), E.fdiv(a, b), E.fmin(a, b), E.fmax(a, b),
        E.fma(a, b, a), E.fneg(a), E.fabs(a), E.fsqrt(a), E.ffloor(a), E.fround(a),
        E.select(E.flt(a, b), a, b), E.select(E.fis_nan(a), b, a),
        E.cast(dtype, E.cast(T.I32, a)), E.cast(dtype, E.load("n", GID)),
    ]  # fmt: skip
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, dtype),
            BufferDecl.read("n", 1, T.U32),
            BufferDecl.read_write("out", 2, dtype),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            N.store("out", E.add(E.mul(GID, E.u32(len(results))), E.u32(k)), value)
            for k, value in enumerate(results)
        ],
    )
    wgsl = prepare(program).wgsl.wgsl
    naga_accepts(wgsl)
    _assert_no_float(wgsl)
