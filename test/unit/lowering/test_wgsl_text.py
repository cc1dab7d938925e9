"""The WGSL text of the lowering: names, guards, layout, determinism, errors.

Every kernel lowered here is also handed to naga (through wgpu), which must
accept it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

import vyre
from vyre.ir import (
    AtomicOp,
    BufferAccess,
    BufferDecl,
    DataType,
    Expr as E,
    Node as N,
    Program,
)
from vyre.lowering import LoweredKernel
from vyre.pipeline import lower_to_wgsl, lowered as lower
from vyre.lowering.names import RESERVED_IDENTIFIERS

GID = E.gid_x()
Check = Callable[[str], None]


def _entry(wgsl: str) -> str:
    """The text of the entry point function (after `@compute`)."""
    return wgsl.split("@compute", 1)[1]


def _declared_identifiers(wgsl: str) -> list[str]:
    pattern = r"\b(?:var(?:<[^>]*>)?|let|fn|struct)\s+([A-Za-z_][A-Za-z0-9_]*)"
    return re.findall(pattern, wgsl)


def _xor_program() -> Program:
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("idx", GID),
            N.store("out", E.var("idx"), E.bitxor(E.load("a", E.var("idx")), E.load("b", E.var("idx")))),
        ],
    )


def test_xor_kernel_is_readable_and_accepted(naga_accepts: Check) -> None:
    wgsl = lower_to_wgsl(_xor_program())
    naga_accepts(wgsl)
    assert "@compute @workgroup_size(64, 1, 1)" in wgsl
    assert "@group(0) @binding(0) var<storage, read> a: array<u32>;" in wgsl
    assert "@group(0) @binding(2) var<storage, read_write> out: array<u32>;" in wgsl
    assert "let idx: u32 = invocation_id.x;" in wgsl
    assert "vyre_store_out(idx, vyre_load_a(idx) ^ vyre_load_b(idx));" in wgsl
    assert wgsl.count("@compute") == 1


def test_lowering_is_deterministic_and_survives_the_text_round_trip() -> None:
    program = _xor_program()
    first = lower_to_wgsl(program)
    assert lower_to_wgsl(program) == first
    assert lower_to_wgsl(vyre.parse_ir(vyre.print_ir(program))) == first
    assert vyre.lower_to_wgsl(program) == first


def test_invalid_names_are_sanitised_reserved_words_avoided(naga_accepts: Check) -> None:
    program = Program(
        buffers=[
            BufferDecl.read("my-input", 0, DataType.U32),
            BufferDecl.read("loop", 1, DataType.U32),
            BufferDecl.read_write("select", 2, DataType.U32),
            BufferDecl.read_write("2nd", 3, DataType.U32),
            BufferDecl.workgroup("__tile", 4, DataType.U32),
        ],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("let", E.load("my-input", GID)),
            N.let("fn", E.load("loop", GID)),
            N.let("main", E.add(E.var("let"), E.var("fn"))),
            N.store("__tile", E.local_id(0), E.var("main")),
            N.store("select", GID, E.var("main")),
            N.store("2nd", GID, E.load("__tile", E.local_id(0))),
        ],
    )
    kernel = lower(program)
    naga_accepts(kernel.wgsl)
    names = _declared_identifiers(kernel.wgsl)
    for name in names:
        assert name not in RESERVED_IDENTIFIERS and not name.startswith("__"), name
    module_names = re.findall(r"var<[^>]*>\s+([A-Za-z_]\w*)", kernel.wgsl)
    assert len(module_names) == len(set(module_names))
    by_name = {b.name: b.wgsl_name for b in kernel.buffers}
    assert by_name["my-input"] == "my_input"
    assert by_name["loop"] != "loop" and by_name["select"] != "select"
    assert by_name["2nd"][0].isalpha()
    assert kernel.entry_point not in by_name.values()


def test_division_guard(naga_accepts: Check) -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(0), E.div(E.load("a", E.u32(0)), E.load("a", E.u32(1)))),
            N.store("out", E.u32(1), E.mod(E.load("a", E.u32(0)), E.load("a", E.u32(1)))),
            N.store("out", E.u32(2), E.div(E.load("a", E.u32(0)), E.u32(0))),
            N.store("out", E.u32(3), E.mod(E.load("a", E.u32(0)), E.u32(0))),
            N.store("out", E.u32(4), E.div(E.load("a", E.u32(0)), E.u32(7))),
            N.store("out", E.u32(5), E.div(E.u32(9), E.u32(0))),
        ],
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    assert re.search(r"fn vyre_div\((\w+): u32, (\w+): u32\) -> u32 \{\n\s*return select\(\1 / select\(\2, 1u, \2 == 0u\), 0u, \2 == 0u\);", wgsl)
    assert re.search(r"fn vyre_mod\((\w+): u32, (\w+): u32\) -> u32 \{\n\s*return select\(\1 % select\(\2, 1u, \2 == 0u\), 0u, \2 == 0u\);", wgsl)
    body = _entry(wgsl)
    assert "vyre_store_out(2u, 0u);" in body and "vyre_store_out(3u, 0u);" in body
    assert "vyre_store_out(4u, vyre_load_a(0u) / 7u);" in body
    assert "vyre_store_out(5u, 0u);" in body
    assert not re.search(r"[/%]\s*0u", wgsl), "a literal zero divisor reached WGSL"


def test_shift_guard(naga_accepts: Check) -> None:
    x = E.load("a", E.u32(0))
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(0), E.shl(x, E.load("a", E.u32(1)))),
            N.store("out", E.u32(1), E.shr(x, E.u32(35))),
            N.store("out", E.u32(2), E.shl(x, E.u32(32))),
            N.store("out", E.u32(3), E.shl(E.u32(0xFFFFFFFF), E.u32(33))),
            N.store("out", E.u32(4), E.shl(E.u32(1), E.load("a", E.u32(1)))),
        ],
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    body = _entry(wgsl)
    assert "vyre_load_a(0u) << (vyre_load_a(1u) & 31u)" in body
    assert "vyre_store_out(1u, vyre_load_a(0u) >> 3u);" in body
    assert "vyre_store_out(2u, vyre_load_a(0u));" in body
    assert "vyre_store_out(3u, 0xfffffffeu);" in body
    assert "1u << (vyre_load_a(1u) & 31u)" in body
    for amount in re.findall(r"(?:<<|>>)\s*(\d+)u", wgsl):
        assert int(amount) < 32


def test_oob_guards_use_logical_lengths(naga_accepts: Check) -> None:
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U64),
            BufferDecl.uniform("params", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U64),
            BufferDecl.workgroup("tile", 32, DataType.VEC4U32),
        ],
        workgroup_size=(8, 1, 1),
        entry=[
            N.store("out", GID, E.load("a", E.load("params", GID))),
            N.store("tile", GID, E.load("tile", E.add(GID, E.u32(1)))),
            N.store("out", E.u32(0), E.cast(DataType.U64, E.buf_len("out"))),
        ],
    )
    kernel = lower(program)
    naga_accepts(kernel.wgsl)
    wgsl = kernel.wgsl
    assert "if (i < _vyre_meta.len_a) {\n    return a[i];\n  }\n  return vec2<u32>();" in wgsl
    assert "if (i < _vyre_meta.len_params) {\n    return params[i >> 2u][i & 3u];" in wgsl
    assert "if (i < _vyre_meta.len_out) {\n    out[i] = value;" in wgsl
    assert "if (i < 32u) {\n    return tile[i];" in wgsl
    assert "if (i < 32u) {\n    tile[i] = value;" in wgsl
    assert "vec2<u32>(_vyre_meta.len_out, 0u)" in wgsl
    assert "arrayLength" not in wgsl
    # every buffer access in the entry point goes through a guard helper
    for binding in kernel.buffers:
        assert f"{binding.wgsl_name}[" not in _entry(wgsl)
    assert "tile[" not in _entry(wgsl).split("workgroupBarrier();", 1)[1]


def test_layout_and_meta_uniform() -> None:
    program = Program(
        buffers=[
            BufferDecl.read("a", 3, DataType.U32),
            BufferDecl.uniform("u", 0, DataType.VEC4U32),
            BufferDecl.workgroup("w", 4, DataType.U32),
            BufferDecl.read_write("out", 7, DataType.BOOL),
        ],
        workgroup_size=(2, 3, 4),
        entry=[N.store("out", E.u32(0), E.bool_(True))],
    )
    kernel: LoweredKernel = lower(program)
    assert [(b.name, b.binding, b.meta_word) for b in kernel.buffers] == [
        ("a", 3, 3),
        ("u", 0, 4),
        ("out", 7, 5),
    ]
    assert kernel.meta.binding == 8
    assert kernel.workgroup_size == (2, 3, 4)
    assert [a.name for a in kernel.workgroup_arrays] == ["w"]
    assert f"@group(0) @binding(8) var<uniform> {kernel.meta.wgsl_name}: " in kernel.wgsl
    assert "var<uniform> u: array<vec4<u32>, 4096>;" in kernel.wgsl
    words = kernel.meta.pack((5, 6, 7), (10, 11, 12))
    assert words[:6] == [5, 6, 7, 10, 11, 12]
    assert len(words) * 4 == kernel.meta.size_bytes and kernel.meta.size_bytes % 16 == 0


def test_workgroup_memory_is_zeroed_cooperatively(naga_accepts: Check) -> None:
    program = Program(
        buffers=[
            BufferDecl.workgroup("tile", 100, DataType.U32),
            BufferDecl.workgroup("pairs", 7, DataType.U64),
            BufferDecl.read_write("out", 0, DataType.U32),
        ],
        workgroup_size=(8, 2, 1),
        entry=[N.store("out", GID, E.load("tile", GID))],
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    body = _entry(wgsl)
    zeroing = body.split("workgroupBarrier();", 1)[0]
    assert "@builtin(local_invocation_index) local_index: u32" in body
    assert "for (var k: u32 = local_index; k < 100u; k = k + 16u) {\n    tile[k] = 0u;" in zeroing
    assert "for (var k: u32 = local_index; k < 7u; k = k + 16u) {\n    pairs[k] = vec2<u32>();" in zeroing
    assert "vyre_store_out" not in zeroing


def test_atomic_buffers_are_only_touched_atomically(naga_accepts: Check) -> None:
    program = Program(
        buffers=[BufferDecl.read_write("acc", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(4, 1, 1),
        entry=[
            N.store("acc", GID, E.u32(1)),
            N.store("out", GID, E.load("acc", E.u32(2))),
            N.let("old", E.atomic(AtomicOp.MAX, "acc", E.u32(0), GID)),
            N.let("was", E.atomic(AtomicOp.COMPARE_EXCHANGE, "acc", E.u32(1), E.u32(9), E.u32(1))),
            N.store("out", E.add(GID, E.u32(4)), E.add(E.var("old"), E.var("was"))),
        ],
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    assert "var<storage, read_write> acc: array<atomic<u32>>;" in wgsl
    accesses = re.findall(r"(.)acc\[", wgsl)
    assert accesses and all(prefix == "&" for prefix in accesses)
    assert "atomicStore(&acc[i], value);" in wgsl and "return atomicLoad(&acc[i]);" in wgsl
    assert "let old: u32 = vyre_atomic_max_acc(0u, invocation_id.x);" in wgsl
    assert re.search(
        r"loop \{\n\s*let result = atomicCompareExchangeWeak\(&acc\[i\], expected, value\);\n"
        r"\s*old = result.old_value;\n\s*if \(result.exchanged \|\| old != expected\) \{\n\s*break;",
        wgsl,
    )
    assert "var<storage, read_write> out: array<u32>;" in wgsl


def test_a_var_read_before_an_assignment_keeps_the_old_value(naga_accepts: Check) -> None:
    program = vyre.parse_ir(
        """
        vyre.kernel @k workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
          %0 = vyre.lit_u32 1
          vyre.let "x" = %0
          %old = vyre.var "x" : u32
          %five = vyre.lit_u32 5
          vyre.assign "x" = %five
          %zero = vyre.lit_u32 0
          vyre.store @out[%zero] = %old
        }
        """
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    body = _entry(wgsl)
    assert body.index("let old: u32 = x;") < body.index("x = 5u;") < body.index("vyre_store_out(0u, old);")


def test_a_load_before_an_atomic_on_the_same_buffer_is_evaluated_first(naga_accepts: Check) -> None:
    program = Program(
        buffers=[BufferDecl.read_write("acc", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store(
                "acc",
                E.u32(1),
                E.add(E.load("acc", E.u32(0)), E.atomic(AtomicOp.ADD, "acc", E.u32(0), E.u32(5))),
            )
        ],
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    body = _entry(wgsl)
    assert body.index("vyre_load_acc(0u);") < body.index("vyre_atomic_add_acc(0u, 5u)")


def test_loop_upper_bound_is_evaluated_once(naga_accepts: Check) -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.let("n", E.u32(3)),
            N.loop("i", E.u32(0), E.var("n"), [N.assign("n", E.add(E.var("n"), E.u32(1)))]),
            N.loop("j", E.u32(0xFFFFFFFE), E.u32(0xFFFFFFFF), [N.store("out", E.var("j"), E.u32(1))]),
        ],
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    assert "let i_end: u32 = n;\n  for (var i: u32 = 0u; i < i_end; i = i + 1u) {" in wgsl
    assert "for (var j: u32 = 0xfffffffeu; j < 0xffffffffu; j = j + 1u) {" in wgsl


def test_constants_are_folded_with_vyre_semantics(naga_accepts: Check) -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(0), E.add(E.u32(0xFFFFFFFF), E.u32(2))),
            N.store("out", E.u32(1), E.negate(E.u32(1))),
            N.store("out", E.u32(2), E.clz(E.u32(0))),
            N.store("out", E.u32(3), E.cast(DataType.U32, E.negate(E.i32(-(2**31))))),
            N.store("out", E.u32(4), E.select(E.u32(0), E.u32(7), E.u32(8))),
            N.store("out", E.u32(5), E.cast(DataType.U32, E.cast(DataType.U64, E.i32(-1)))),
        ],
    )
    body = _entry(lower_to_wgsl(program))
    assert "vyre_store_out(0u, 1u);" in body
    assert "vyre_store_out(1u, 0xffffffffu);" in body
    assert "vyre_store_out(2u, 32u);" in body
    assert "vyre_store_out(3u, 0x80000000u);" in body
    assert "vyre_store_out(4u, 8u);" in body
    assert "vyre_store_out(5u, 0xffffffffu);" in body


def test_i32_minimum_literal_is_never_spelled_as_a_negative_literal(naga_accepts: Check) -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.I32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store(
                "out",
                E.u32(0),
                E.select(E.load("a", E.u32(0)), E.i32(-(2**31)), E.i32(-5)),
            )
        ],
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    assert "bitcast<i32>(0x80000000u)" in wgsl and "-5i" in wgsl
    assert "2147483648i" not in wgsl


def test_invalid_program_raises_validation_error() -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("a", E.u32(0), E.u32(1)), N.store("nope", E.u32(0), E.u32(1))],
    )
    with pytest.raises(vyre.ValidationError) as info:
        lower_to_wgsl(program)
    rules = {d.rule for d in info.value.diagnostics}
    assert {"V004", "V005"} <= rules


def test_not_a_program_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expects a vyre Program"):
        lower_to_wgsl("vyre.kernel")  # type: ignore[arg-type]


def test_calls_are_inlined_and_intrinsics_map_to_builtins(naga_accepts: Check) -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[
            N.store("out", E.u32(0), E.call("primitive.math.add", [E.load("a", E.u32(0)), E.u32(3)])),
            N.store(
                "out",
                E.u32(1),
                E.call("primitive.bitwise.extract_bits", [E.load("a", E.u32(0)), E.u32(28), E.u32(8)]),
            ),
            N.store(
                "out",
                E.u32(2),
                E.call(
                    "primitive.bitwise.insert_bits",
                    [E.load("a", E.u32(0)), E.u32(1), E.load("a", E.u32(1)), E.u32(40)],
                ),
            ),
        ],
    )
    wgsl = lower_to_wgsl(program)
    naga_accepts(wgsl)
    body = _entry(wgsl)
    assert "vyre_store_out(0u, vyre_load_a(0u) + 3u);" in body
    assert "extractBits(vyre_load_a(0u), 28u, 4u)" in body  # count clamped to 32 - 28
    assert "min(vyre_load_a(1u), 32u)" in body


@pytest.mark.parametrize(
    "dtype", [DataType.U32, DataType.I32, DataType.BOOL, DataType.U64, DataType.VEC2U32, DataType.VEC4U32]
)
@pytest.mark.parametrize(
    "access", [BufferAccess.READ_ONLY, BufferAccess.UNIFORM, BufferAccess.WORKGROUP]
)
def test_every_element_type_in_every_memory_is_accepted(
    dtype: DataType, access: BufferAccess, naga_accepts: Check
) -> None:
    source = BufferDecl("src", 0, access, dtype, 16 if access == BufferAccess.WORKGROUP else 0)
    program = Program(
        buffers=[source, BufferDecl.read_write("out", 1, dtype)],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("v", E.load("src", GID)),
            N.store("out", GID, E.var("v")),
            N.store("out", E.buf_len("src"), E.var("v")),
        ]
        + ([N.store("src", GID, E.var("v"))] if access == BufferAccess.WORKGROUP else []),
    )
    naga_accepts(lower_to_wgsl(program))


LIT_DIR = Path(__file__).resolve().parents[2] / "lit" / "lowering"


@pytest.mark.parametrize(
    "path", sorted(p for p in LIT_DIR.glob("*.mlir") if p.name != "invalid.mlir"), ids=lambda p: p.name
)
def test_lit_examples_are_accepted_by_naga(path: Path, naga_accepts: Check) -> None:
    naga_accepts(lower_to_wgsl(vyre.parse_ir(path.read_text(), str(path))))


def test_a_kernel_name_cannot_inject_wgsl(gpu_adapter) -> None:
    name = "k\nconst junk: u32 = 1u / 0u;\n//"
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, DataType.U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("o", E.u32(0), E.u32(7))],
        name=name,
    )
    assert "const junk" not in "\n".join(
        line for line in vyre.lower_to_wgsl(program).splitlines() if not line.startswith("//")
    )
    for backend in ("interp", "wgpu"):
        out = vyre.run(program, {}, dispatch=(1, 1, 1), outputs={"o": 1}, backend=backend)
        assert out["o"].tolist() == [7]
