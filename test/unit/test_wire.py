"""The wire form (vyre.wire): lossless, canonical, and total on hostile input."""

from __future__ import annotations

import hashlib
import random
import struct
import time

import pytest
from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr, UnrealizedConversionCastOp

import vyre
from vyre import wire
from vyre.dialects import vyre as d
from vyre.ir import (
    AtomicOp,
    BinOp,
    BufferAccess,
    BufferDecl,
    DataType,
    Expr as E,
    Node as N,
    Program,
    UnOp,
)
from vyre.wire import WireError
from vyre.ir import INTEGER_BINOPS as INT_BINOPS
from vyre.ir import INTEGER_UNOPS as INT_UNOPS

FLOAT_BINOPS = [op for op in BinOp if op.is_float]
FLOAT_UNOPS = [op for op in UnOp if op.is_float]

HEADER = 44  # magic 4 + version 2 + flags 2 + body length 4 + digest 32


def _digest(prefix: bytes, body: bytes) -> bytes:
    """The checksum as documented: BLAKE2b-256 of the first 12 header bytes and the body."""
    return hashlib.blake2b(prefix + body, digest_size=32).digest()


def _reseal(blob: bytes | bytearray) -> bytes:
    """`blob` with its digest recomputed, so only the structural checks can refuse it."""
    blob = bytearray(blob)
    blob[12:HEADER] = _digest(bytes(blob[:12]), bytes(blob[HEADER:]))
    return bytes(blob)


def _seal(body: bytes, *, version: int = 1, flags: int = 0) -> bytes:
    prefix = b"VYRE" + struct.pack("<HHI", version, flags, len(body))
    return prefix + _digest(prefix, body) + body


# ---------------------------------------------------------------------------
# Sample programs
# ---------------------------------------------------------------------------


def every_op_program() -> Program:
    """Every expression, statement, type, buffer access and operator kind."""
    i = E.var("i")
    stmts = [
        N.let("i", E.gid_x()),
        N.let("w", E.add(E.workgroup_id(1), E.local_id(2))),
        N.let("s", E.negate(E.i32(-7))),
        N.let("b", E.bool_(False)),
        N.store("tile", E.local_id(0), E.load("a", i)),
        N.barrier(),
    ]
    stmts += [N.store("out", E.u32(k), E.binop(op, i, E.u32(k))) for k, op in enumerate(INT_BINOPS)]
    stmts += [N.store("out", E.u32(k), E.unop(op, E.load("a", i))) for k, op in enumerate(INT_UNOPS)]
    stmts += [N.let(f"neg{k}", E.unop(op, E.var("s"))) for k, op in enumerate(INT_UNOPS)]
    for k, op in enumerate(AtomicOp):
        expected = E.u32(3) if op is AtomicOp.COMPARE_EXCHANGE else None
        stmts.append(N.let(f"old{k}", E.atomic(op, "out", i, E.u32(k), expected)))
    stmts += [N.let(f"c_{t.value}", E.cast(t, E.u32(1))) for t in DataType]
    stmts += [
        N.let("fl", E.load("fa", i)),
        N.let("h", E.load("ha", i)),
        N.let("g", E.load("ga", i)),
        N.let("f0", E.f32(1.5)),
        N.let("f1", E.float_bits(DataType.F16, 0x7E01)),
        N.let("f2", E.bf16(-2.0)),
        N.let("fm", E.fma(E.var("g"), E.var("g"), E.var("g"))),
        N.let("bc", E.bitcast(DataType.U32, E.var("fl"))),
    ]
    stmts += [N.let(f"fb{k}", E.binop(op, E.var("fl"), E.f32(2.0))) for k, op in enumerate(FLOAT_BINOPS)]
    stmts += [N.let(f"fu{k}", E.unop(op, E.var("h"))) for k, op in enumerate(FLOAT_UNOPS)]
    stmts += [
        N.let("v64", E.load("wide", i)),
        N.let("v2", E.load("pair", i)),
        N.let("v4", E.load("quad", i)),
        N.let("flag", E.load("flags", i)),
        N.let("n", E.buf_len("raw")),
        N.let("p", E.load("params", E.u32(0))),
        N.let("tab", E.lookup([1, 0xFFFF_FFFE, 7], i)),
        N.let("v128", E.mul(E.load("huge", i), E.u128(2**127 + 5))),
        N.let("n128", E.clz(E.var("v128"))),
        N.let("sel", E.select(E.bool_(True), E.call("primitive.math.add", [i, i]), i)),
        N.if_(
            E.lt(i, E.buf_len("out")),
            [N.assign("w", E.u32(4_294_967_295)), N.block([])],
            [N.return_()],
        ),
        N.if_(E.bool_(True), []),
        N.loop("j", E.u32(0), E.u32(4), [N.store("out", E.var("j"), E.var("j")), N.barrier()]),
        N.block([N.let("inner", E.i32(-(2**31))), N.block([N.return_()])]),
        N.return_(),
    ]
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.I32),
            BufferDecl.read("wide", 3, DataType.U64),
            BufferDecl.read("pair", 4, DataType.VEC2U32),
            BufferDecl.read("quad", 5, DataType.VEC4U32),
            BufferDecl.read("flags", 6, DataType.BOOL),
            BufferDecl.read("raw", 7, DataType.BYTES),
            BufferDecl.workgroup("tile", 64, DataType.U32),
            BufferDecl.read("fa", 8, DataType.F32),
            BufferDecl.read("ha", 9, DataType.F16),
            BufferDecl.read("ga", 10, DataType.BF16),
            BufferDecl.read("huge", 11, DataType.U128),
            BufferDecl(
                "spare", 4_294_967_295, BufferAccess.READ_WRITE, DataType.U32, 4_294_967_295
            ),
        ],
        workgroup_size=(64, 2, 1),
        entry=stmts,
        name="every_op",
    )


def small_program() -> Program:
    return Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("idx", E.gid_x()),
            N.if_(
                E.lt(E.var("idx"), E.buf_len("out")),
                [N.store("out", E.var("idx"), E.bitxor(E.load("a", E.var("idx")), E.u32(7)))],
            ),
        ],
        name="xor",
    )


PARSED_TEXTS = {
    # generic form: any names (`odd_program` makes the shapes only the API can:
    # an empty region, a result type the op does not define)
    "generic": """"builtin.module"() ({
  "vyre.kernel"() <{sym_name = "g", workgroup_size = [#builtin.int<1>, #builtin.int<1>, #builtin.int<1>], buffers = []}> ({
    %fancy.name$1 = "vyre.lit_u32"() <{value = #builtin.int<3>}> : () -> !vyre.type<u32>
    %odd = "vyre.binop"(%fancy.name$1, %fancy.name$1) <{kind = "mul"}> : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
    "vyre.block"() ({
    }) : () -> ()
    "vyre.if"(%odd) ({
    }, {
    }) : (!vyre.type<u32>) -> ()
  }) : () -> ()
}) : () -> ()
""",
    "unicode": """vyre.kernel @"k\u00e9rnel \u2603" workgroup_size(4294967295, 0, 7) buffers(@"b \u00fc" : read_write u32 binding(9)) {
  %0 = vyre.lit_u32 0
  vyre.let "\u00e9t\u00e9" = %0
  %1 = vyre.var "\u00e9t\u00e9" : u32
  vyre.store @"b \u00fc"[%0] = %1
  %2 = vyre.call "user.\u03bb"() : vec4u32
}
""",
    "empty": "vyre.kernel @e workgroup_size(1, 1, 1) {\n}\n",
}


COMPACT = """vyre.kernel @c workgroup_size(8, 1, 1) buffers(@a : read_only u64 binding(0), @o : read_write u32 binding(1), @t : workgroup bool[4]) {
  %i = vyre.invocation_id x
  %w = vyre.workgroup_id y
  %l = vyre.local_id z
  %u = vyre.lit_u32 7
  %s = vyre.lit_i32 -3
  %b = vyre.lit_bool true
  vyre.let "x" = %u
  %x = vyre.var "x" : u32
  %ld = vyre.load @a[%i] : u64
  %n = vyre.buf_len @o
  %sum = vyre.binop shl %x, %n
  %neg = vyre.unop negate %s
  %c = vyre.call "primitive.math.add"(%sum, %w) : u32
  %sel = vyre.select %b, %c, %l
  %cv = vyre.cast %ld to vec2u32
  %at = vyre.atomic compare_exchange @o[%i], %sel expected %u
  vyre.assign "x" = %at
  %f = vyre.lit_float 0x3fc00000 : f32
  %f1 = vyre.fadd %f, %f
  %f2 = vyre.fsub %f1, %f
  %f3 = vyre.fmul %f2, %f
  %f4 = vyre.fdiv %f3, %f
  %f5 = vyre.fmin %f4, %f
  %f6 = vyre.fmax %f5, %f
  %f7 = vyre.fcmp le %f6, %f
  %f8 = vyre.fma %f6, %f, %f
  %f9 = vyre.fneg %f8
  %fa = vyre.fabs %f9
  %fb = vyre.fsqrt %fa
  %fc = vyre.ffloor %fb
  %fd = vyre.fceil %fc
  %fe = vyre.fround %fd
  %ff = vyre.ftrunc %fe
  %fg = vyre.fis_nan %ff
  %fh = vyre.fis_inf %ff
  %fi = vyre.bitcast %ff to u32
  %fj = vyre.fsqrt_approx %fa
  %fk = vyre.fexp2_approx %fj
  %fl = vyre.flog2_approx %fk
  %fm = vyre.fsin_approx %fl
  %fn = vyre.fcos_approx %fm
  %fo = vyre.fexp2 %fa
  %fp = vyre.fexp %fo
  %fq = vyre.fexp10 %fp
  %fr = vyre.flog %fq
  %fs = vyre.flog2 %fr
  %ft = vyre.flog10 %fs
  %fu = vyre.fsin %ft
  %fv = vyre.fcos %fu
  %fw = vyre.ftan %fv
  %fx = vyre.fasin %fw
  %fy = vyre.facos %fx
  %fz = vyre.fatan %fy
  %ga = vyre.fatan2 %fz, %fy
  %gb = vyre.ftanh %ga
  %gc = vyre.ferf %gb
  %gd = vyre.fpow %gc, %fy
  %lk = vyre.lookup %i [0x00000001, 0xfffffffe]
  %wd = vyre.lit_u128 340282366920938463463374607431768211455
  vyre.if %b {
    vyre.store @o[%i] = %x
  } else {
    vyre.return
  }
  vyre.loop "j" = %u to %n {
    vyre.barrier
  }
  vyre.block {
  }
}
"""
"""One op of each of the 66 kinds in 1004 bytes: the sample for exhaustive fault injection."""


def sample_programs() -> dict[str, Program]:
    programs = {"every_op": every_op_program(), "small": small_program()}
    programs["compact"] = vyre.parse_ir(COMPACT)
    programs |= {name: vyre.parse_ir(text) for name, text in PARSED_TEXTS.items()}
    programs["odd"] = odd_program()
    return programs


def odd_program() -> Program:
    """The generic text's program with what only the API makes: the binop's
    result typed i32 (V130: the op defines u32) and the block's region empty
    (no block at all). The wire form keeps both."""
    program = vyre.parse_ir(PARSED_TEXTS["generic"])
    binop = next(op for op in program.kernel.walk() if isinstance(op, d.BinOp))
    odd = d.BinOp.create(
        operands=list(binop.operands), result_types=[d.I32], properties=dict(binop.properties)
    )
    odd.results[0].name_hint = "odd"
    block = binop.parent_block()
    assert block is not None
    block.insert_op_before(odd, binop)
    binop.results[0].replace_all_uses_with(odd.results[0])
    block.erase_op(binop)
    holder = next(op for op in program.kernel.walk() if isinstance(op, d.BlockOp))
    holder.regions[0].detach_block(0)
    return program


@pytest.fixture(scope="module")
def sample_blob() -> bytes:
    program = vyre.parse_ir(COMPACT)
    assert {op.name for op in program.kernel.walk()} == {
        op.name for op in (d.KernelOp, *d.EXPRESSION_OPS, *d.STATEMENT_OPS) if op is not d.InvokeOp
    }
    return Program.to_wire(program)


# ---------------------------------------------------------------------------
# Lossless and canonical
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(sample_programs()))
def test_round_trip_is_lossless(name: str) -> None:
    program = sample_programs()[name]
    blob = Program.to_wire(program)
    decoded = Program.from_wire(blob)
    assert vyre.print_ir(decoded) == vyre.print_ir(program)
    assert vyre.print_ir(decoded, generic=True) == vyre.print_ir(program, generic=True)
    assert decoded == program
    assert Program.to_wire(decoded) == blob
    assert Program.from_wire(program.to_wire()) == program


def test_every_op_kind_and_type_is_in_the_sample() -> None:
    kernel = every_op_program().kernel
    ops = list(kernel.walk())
    names = {op.name for op in ops}
    # a program holds no routine (the wire form is of programs), so no invoke either
    assert names >= {op.name for op in (*d.EXPRESSION_OPS, *d.STATEMENT_OPS) if op is not d.InvokeOp}
    kinds = {(op.name, op.kind.data) for op in ops if isinstance(op, d.BinOp | d.UnOp | d.AtomicOp)}
    assert {k for n, k in kinds if n == "vyre.binop"} == {b.value for b in INT_BINOPS}
    assert {k for n, k in kinds if n == "vyre.unop"} == {u.value for u in INT_UNOPS}
    assert {k for n, k in kinds if n == "vyre.atomic"} == {a.value for a in AtomicOp}
    predicates = {op.predicate.data for op in ops if isinstance(op, d.FCmpOp)}
    assert predicates == set(d.FLOAT_PREDICATES)
    types = {op.results[0].type.kind.data for op in ops if op.results}
    assert types == {t.value for t in DataType}
    assert {b.access for b in every_op_program().buffers} == set(BufferAccess)


def test_encoding_is_deterministic() -> None:
    assert Program.to_wire(every_op_program()) == Program.to_wire(every_op_program())


def test_layout_matches_the_documented_format() -> None:
    program = vyre.parse_ir(
        "vyre.kernel @k workgroup_size(1, 2, 3) buffers(@o : read_write u32 binding(9)) {\n"
        "  %v = vyre.lit_u32 5\n"
        "  vyre.store @o[%v] = %v\n"
        "  vyre.return\n"
        "}\n"
    )

    def text(s: str) -> bytes:
        return struct.pack("<I", len(s.encode())) + s.encode()

    body = (
        text("k")
        + struct.pack("<4I", 3, 1, 2, 3)  # workgroup size arity and components
        + struct.pack("<I", 1) + text("o") + struct.pack("<IBBI", 9, 1, 0, 0)  # one buffer
        + b"\x01" + struct.pack("<I", 3)  # entry region: one block of three ops
        + b"\x00" + struct.pack("<I", 5) + b"\x00" + text("v")  # lit_u32 5 : u32 named v
        + b"\x11" + text("o") + struct.pack("<II", 0, 0)  # store @o[value 0] = value 0
        + b"\x14"  # return
    )  # fmt: skip
    assert Program.to_wire(program) == _seal(body)


def test_header_fields() -> None:
    blob = Program.to_wire(small_program())
    magic, version, flags, length = struct.unpack_from("<4sHHI", blob)
    assert (magic, version, flags, length) == (b"VYRE", 1, 0, len(blob) - HEADER)
    assert blob[12:HEADER] == _digest(blob[:12], blob[HEADER:])


def test_code_tables_cover_every_enum_and_op() -> None:
    assert set(wire.OP_CODES) == {*d.EXPRESSION_OPS, *d.STATEMENT_OPS, d.YieldOp}
    assert {k.value for k in d.DataTypeKind} <= set(wire.DATA_TYPE_CODES)
    assert [a.value for a in d.AccessKind] == list(wire.ACCESS_CODES)
    assert [b.value for b in INT_BINOPS] == list(wire.BINOP_CODES)
    assert [u.value for u in INT_UNOPS] == list(wire.UNOP_CODES)
    assert list(d.FLOAT_PREDICATES) == ["eq", "ne", "lt", "le", "gt", "ge"]
    assert [a.value for a in d.AtomicOpKind] == list(wire.ATOMIC_CODES)


def test_nesting_up_to_the_depth_cap_round_trips_and_beyond_is_refused() -> None:
    def nested(depth: int) -> Program:
        body = [N.return_()]
        for _ in range(depth - 1):
            body = [N.block(body)]
        return Program([], (1, 1, 1), body)

    deepest = nested(wire.MAX_DEPTH)
    assert vyre.print_ir(Program.from_wire(Program.to_wire(deepest))) == vyre.print_ir(deepest)
    with pytest.raises(WireError, match="nested deeper"):
        Program.to_wire(nested(wire.MAX_DEPTH + 1))


# ---------------------------------------------------------------------------
# What the encoder refuses
# ---------------------------------------------------------------------------


def test_encode_refuses_what_it_cannot_hold() -> None:
    program = small_program()
    program.kernel.entry.first_op.attributes["note"] = StringAttr("x")
    with pytest.raises(WireError, match=r"discardable attributes \{note\}"):
        Program.to_wire(program)

    program = small_program()
    lit = program.kernel.entry.first_op
    foreign = UnrealizedConversionCastOp.get([lit.results[0]], [d.U32])
    program.kernel.entry.add_op(foreign)
    with pytest.raises(WireError, match="not a vyre statement or expression"):
        Program.to_wire(program)

    program = Program([], (1, 1, 1), [])
    program.kernel.entry.add_op(d.LitU32Op.create(properties={"value": IntAttr(-1)}, result_types=[d.U32]))
    with pytest.raises(WireError, match="not a u32"):
        Program.to_wire(program)

    with pytest.raises(TypeError):
        wire.encode(b"not a program")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Hostile input: truncation, corruption, random bytes
# ---------------------------------------------------------------------------


def test_truncation_at_every_offset(sample_blob: bytes) -> None:
    for size in range(len(sample_blob)):
        with pytest.raises(WireError, match="truncated at byte"):
            Program.from_wire(sample_blob[:size])


def test_every_single_byte_corruption_is_refused(sample_blob: bytes) -> None:
    started = time.perf_counter()
    for offset in range(len(sample_blob)):
        corrupted = bytearray(sample_blob)
        original = corrupted[offset]
        for value in range(256):
            if value == original:
                continue
            corrupted[offset] = value
            try:
                Program.from_wire(bytes(corrupted))
            except WireError:
                continue
            pytest.fail(f"byte {offset} set to {value:#04x} was accepted")
    assert time.perf_counter() - started < 20


def test_corruption_with_a_recomputed_checksum_meets_the_structural_checks(
    sample_blob: bytes,
) -> None:
    """With the digest resealed, every flip either fails a structural check or
    yields a program whose canonical encoding is exactly the flipped blob."""
    rng = random.Random(2)
    refused: set[str] = set()
    accepted = 0
    offsets = [*range(12), *range(HEADER, len(sample_blob))]
    for offset in offsets:
        for mask in (0x01, 0xFF, rng.randrange(2, 255)):
            corrupted = bytearray(sample_blob)
            corrupted[offset] ^= mask
            blob = _reseal(corrupted)
            try:
                program = Program.from_wire(blob)
            except WireError as error:
                refused.add(str(error).split(" at ")[0].split(" (")[0][:40])
                continue
            accepted += 1
            assert Program.to_wire(program) == blob
            vyre.print_ir(program)
    assert accepted > 0
    for expected in (
        "vyre wire: unknown op code",
        "vyre wire: SSA reference",
        "vyre wire: unsupported format version",
        "vyre wire: truncated",
    ):
        assert any(message.startswith(expected) for message in refused), (expected, refused)


def test_header_faults_have_clear_messages(sample_blob: bytes) -> None:
    body = sample_blob[HEADER:]
    with pytest.raises(WireError, match=r"^vyre wire: unsupported format version 7 \(this vyre reads 1\)$"):
        Program.from_wire(_seal(body, version=7))
    with pytest.raises(WireError, match="unsupported flags"):
        Program.from_wire(_seal(body, flags=1))
    with pytest.raises(WireError, match="^vyre wire: checksum mismatch"):
        Program.from_wire(sample_blob[:-1] + bytes([sample_blob[-1] ^ 1]))
    with pytest.raises(WireError, match="bad magic"):
        Program.from_wire(b"MLIR" + sample_blob[4:])
    with pytest.raises(WireError, match="trailing bytes"):
        Program.from_wire(sample_blob + b"\x00")
    with pytest.raises(WireError, match="stray bytes after the program"):
        Program.from_wire(_seal(body + b"\x00"))
    with pytest.raises(TypeError):
        Program.from_wire("VYRE")  # type: ignore[arg-type]
    assert Program.from_wire(bytearray(sample_blob)) == Program.from_wire(memoryview(sample_blob))


def test_huge_counts_and_deep_nesting_are_refused_quickly() -> None:
    def text(s: str) -> bytes:
        return struct.pack("<I", len(s)) + s.encode()

    prelude = text("k") + struct.pack("<4I", 3, 1, 1, 1) + struct.pack("<I", 0)
    cases = {
        "op count": prelude + b"\x01" + struct.pack("<I", 0xFFFF_FFFF),
        "length of kernel name": struct.pack("<I", 0xFFFF_FFFF),
        "workgroup size arity": text("k") + struct.pack("<I", 0x4000_0000),
        "buffer count": text("k") + struct.pack("<5I", 3, 1, 1, 1, 0xFFFF_FFFF),
        # 10,000 nested vyre.block ops (code 21), each holding one op
        "nested deeper": prelude + (b"\x01" + struct.pack("<I", 1) + b"\x15") * 10_000,
    }
    for words, body in cases.items():
        started = time.perf_counter()
        with pytest.raises(WireError, match=words):
            Program.from_wire(_seal(body))
        assert time.perf_counter() - started < 1.0


def test_random_blobs_are_refused() -> None:
    rng = random.Random(1234)
    started = time.perf_counter()
    for _ in range(3000):
        blob = rng.randbytes(rng.randrange(0, 120))
        if rng.random() < 0.5:
            blob = b"VYRE" + blob
        with pytest.raises(WireError):
            Program.from_wire(blob)
    assert time.perf_counter() - started < 10


def test_random_bodies_behind_a_valid_header_decode_canonically_or_are_refused() -> None:
    rng = random.Random(99)
    prefix = struct.pack("<I", 1) + b"k" + struct.pack("<4I", 3, 1, 1, 1)
    started = time.perf_counter()
    accepted = 0
    for trial in range(3000):
        tail = rng.randbytes(rng.randrange(0, 60))
        if trial % 2:
            # a plausible start: no buffers, one block, a small op count
            tail = struct.pack("<I", 0) + b"\x01" + struct.pack("<I", rng.randrange(4)) + tail
        blob = _seal(prefix + tail)
        try:
            program = Program.from_wire(blob)
        except WireError:
            continue
        accepted += 1
        assert Program.to_wire(program) == blob
    assert time.perf_counter() - started < 20


def test_a_workgroup_size_of_two_components_is_refused_by_the_wire_and_validation() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("o", 0, DataType.U32)],
        workgroup_size=(4, 1, 1),
        entry=[N.store("o", E.gid_x(), E.u32(1))],
    )
    program.kernel.properties["workgroup_size"] = ArrayAttr([IntAttr(4), IntAttr(1)])
    with pytest.raises(WireError, match="exactly 3"):
        Program.from_wire(program.to_wire())
    with pytest.raises(ValueError, match="exactly 3"):
        vyre.validate(program)


def test_the_wire_codes_of_version_1_are_pinned() -> None:
    """Codes are positions in the dialect's append-only lists: these are the
    codes every blob of format version 1 was written with."""
    assert [op.name for op in wire.OP_CODES[:47]] == [
        "vyre.lit_u32", "vyre.lit_i32", "vyre.lit_bool", "vyre.var", "vyre.load", "vyre.buf_len",
        "vyre.invocation_id", "vyre.workgroup_id", "vyre.local_id", "vyre.binop", "vyre.unop",
        "vyre.call", "vyre.select", "vyre.cast", "vyre.atomic", "vyre.let", "vyre.assign",
        "vyre.store", "vyre.if", "vyre.loop", "vyre.return", "vyre.block", "vyre.barrier",
        "vyre.lit_float", "vyre.fadd", "vyre.fsub", "vyre.fmul", "vyre.fdiv", "vyre.fmin",
        "vyre.fmax", "vyre.fcmp", "vyre.fma", "vyre.fneg", "vyre.fabs", "vyre.fsqrt",
        "vyre.ffloor", "vyre.fceil", "vyre.fround", "vyre.ftrunc", "vyre.fis_nan", "vyre.fis_inf",
        "vyre.bitcast", "vyre.fsqrt_approx", "vyre.fexp2_approx", "vyre.flog2_approx",
        "vyre.fsin_approx", "vyre.fcos_approx",
    ]  # fmt: skip
    assert list(wire.BINOP_CODES[:18]) == [
        "add", "sub", "mul", "div", "mod", "bit_and", "bit_or", "bit_xor", "shl", "shr",
        "eq", "ne", "lt", "gt", "le", "ge", "and", "or",
    ]  # fmt: skip
    assert list(wire.UNOP_CODES[:7]) == [
        "negate", "bit_not", "logical_not", "popcount", "clz", "ctz", "reverse_bits",
    ]  # fmt: skip
    assert list(wire.ATOMIC_CODES[:8]) == [
        "add", "or", "and", "xor", "min", "max", "exchange", "compare_exchange",
    ]  # fmt: skip
