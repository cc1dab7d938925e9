"""Caches of `vyre.run` stay exact: structural fingerprints, the validation and
lowering caches they key, and the wgpu backend's reuse of buffers, bind groups,
meta uniforms and device-side zeroing.

Oracles are numpy expressions and plain Python written here; every program is
mutated in place between runs to check that no cache answers for the old one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Operation

import vyre
from vyre import ops
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.ops import OpSignature, OpSpec, laws
from vyre import fingerprint as fp
from vyre.runtime.host import is_zero_fill, zero_words
from vyre.runtime.wgpu_device import GpuDevice

WG = 4
I = E.var("i")


@pytest.fixture(params=["interp", "wgpu"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "wgpu":
        request.getfixturevalue("gpu_adapter")
    return request.param


def binop_program(kind: str = "bit_xor") -> Program:
    """out[i] = a[i] <kind> b[i] (built through the xor/and/add builders)."""
    make = {"bit_xor": E.bitxor, "bit_and": E.bitand, "add": E.add}[kind]
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(WG, 1, 1),
        entry=[N.let("i", E.gid_x()), N.store("out", I, make(E.load("a", I), E.load("b", I)))],
    )


def only(program: Program, kind: type[Operation]) -> Operation:
    found = [op for op in program.kernel.walk() if isinstance(op, kind)]
    assert len(found) == 1, found
    return found[0]


RNG = np.random.default_rng(7)
A = RNG.integers(0, 2**32, 10, dtype=np.uint32)
B = RNG.integers(0, 2**32, 10, dtype=np.uint32)


def run(program: Program, backend: str, n: int = 10) -> np.ndarray:
    return vyre.run(
        program,
        {"a": A[:n], "b": B[:n]},
        dispatch=(-(-n // WG), 1, 1),
        outputs={"out": n},
        backend=backend,
    )["out"]


# ---------------------------------------------------------------------------
# Fingerprints
# ---------------------------------------------------------------------------


def test_equal_programs_built_twice_have_equal_fingerprints() -> None:
    first, second = fp.fingerprint(binop_program()), fp.fingerprint(binop_program())
    assert first is not None and first == second and hash(first) == hash(second)
    assert first != fp.fingerprint(binop_program("bit_and"))


def test_parsed_text_round_trip_keeps_the_fingerprint() -> None:
    program = binop_program()
    assert fp.fingerprint(vyre.parse_ir(str(program))) == fp.fingerprint(program)


def _mutations() -> Iterator[tuple[str, Any]]:
    def binop_kind(p: Program) -> None:
        only(p, d.BinOp).properties["kind"] = StringAttr("bit_and")

    def swap_operands(p: Program) -> None:
        op = only(p, d.BinOp)
        op.operands = [op.operands[1], op.operands[0]]

    def store_buffer(p: Program) -> None:
        only(p, d.StoreOp).properties["buffer"] = StringAttr("a")

    def axis(p: Program) -> None:
        only(p, d.InvocationIdOp).properties["axis"] = IntAttr(1)

    def workgroup(p: Program) -> None:
        wider = Program(buffers=[], workgroup_size=(8, 1, 1), entry=[])
        p.kernel.properties["workgroup_size"] = wider.kernel.properties["workgroup_size"]

    def name_hint(p: Program) -> None:
        only(p, d.BinOp).results[0].name_hint = "renamed"

    def attribute(p: Program) -> None:
        only(p, d.BinOp).attributes["note"] = StringAttr("x")

    def move_op(p: Program) -> None:
        loads = [op for op in p.kernel.walk() if isinstance(op, d.LoadOp)]
        loads[1].detach()
        loads[0].parent_block().insert_op_before(loads[1], loads[0])  # type: ignore[union-attr]

    def erase_store(p: Program) -> None:
        store = only(p, d.StoreOp)
        store.parent_block().erase_op(store)  # type: ignore[union-attr]

    yield from {
        "binop kind": binop_kind,
        "swapped operands": swap_operands,
        "store buffer": store_buffer,
        "id axis": axis,
        "workgroup size": workgroup,
        "name hint": name_hint,
        "attribute": attribute,
        "op moved": move_op,
        "op erased": erase_store,
    }.items()


@pytest.mark.parametrize(("what", "mutate"), list(_mutations()), ids=[m[0] for m in _mutations()])
def test_every_in_place_change_changes_the_fingerprint(what: str, mutate: Any) -> None:
    program = binop_program()
    before = fp.fingerprint(program)
    assert fp.fingerprint(program) is before  # the snapshot answers for an unchanged module
    mutate(program)
    after = fp.fingerprint(program)
    assert after is not None and after != before, what
    # the new fingerprint is that of the mutated IR, computed from scratch
    assert after == fp.fingerprint(Program.from_module(program.module.clone()))


def test_snapshot_reads_the_fields_xdsl_keeps() -> None:
    """The snapshot compares each IR object's `__dict__`: xDSL must keep the
    fields behind the public properties there (a field still at its class
    default appears when first set, which the comparison sees too)."""
    program = binop_program()
    region = program.kernel.regions[0]
    block = region.first_block
    assert block is not None and vars(region)["_first_block"] is block
    assert vars(block)["_args"] is block.args and vars(block)["_first_op"] is block.first_op
    op = block.first_op
    assert op is not None and vars(op)["_next_op"] is op.next_op and vars(op)["results"] is op.results
    binop = only(program, d.BinOp)
    fields = vars(binop)
    assert fields["_operands"] == tuple(binop.operands) and fields["regions"] == binop.regions
    assert fields["properties"] is binop.properties and fields["attributes"] is binop.attributes
    result = binop.results[0]
    assert vars(result)["_type"] is result.type
    before = dict(vars(result))
    result.name_hint = "hint"
    assert vars(result) != before and vars(result)["_name"] == "hint"


def test_the_snapshot_check_sees_each_change_and_only_changes() -> None:
    program = binop_program()
    assert fp.fingerprint(program) is not None
    known = fp.remembered(program.module)
    assert known is not None and known.still_valid() and known.fingerprint == fp.fingerprint(program)
    op = only(program, d.BinOp)
    kind = op.properties["kind"]
    op.properties["kind"] = StringAttr("bit_and")
    assert not known.still_valid()
    op.properties["kind"] = kind  # changed back: the snapshot holds again
    assert known.still_valid() and fp.fingerprint(program) is known.fingerprint
    result = only(program, d.InvocationIdOp).results[0]
    result.name_hint = "moved"  # a field set for the first time
    assert not known.still_valid()
    assert fp.remembered(Program.from_module(program.module.clone()).module) is None  # never fingerprinted


@pytest.mark.parametrize(("what", "mutate"), list(_mutations()), ids=[m[0] for m in _mutations()])
def test_the_hot_paths_check_sees_every_change_that_runs_differently(what: str, mutate: Any) -> None:
    """`runs_the_same` (vyre.run's per-call check) reads ops, regions and
    blocks only: every change but a value's name hint makes it False."""
    program = binop_program()
    assert fp.fingerprint(program) is not None
    known = fp.remembered(program.module)
    assert known is not None and known.runs_the_same() and known.still_valid()
    mutate(program)
    assert not known.still_valid(), what
    assert known.runs_the_same() is (what == "name hint"), what


def test_a_use_of_a_foreign_value_is_not_fingerprinted() -> None:
    program, other = binop_program(), binop_program()
    foreign = only(other, d.InvocationIdOp).results[0]
    op = only(program, d.BinOp)
    op.operands = [foreign, op.operands[1]]
    assert fp.fingerprint(program) is None


def test_lru_cache_keeps_the_most_recently_used() -> None:
    cache: fp.LruCache[str, int] = fp.LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the least recently used
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2
    with pytest.raises(ValueError, match="capacity of at least 1"):
        fp.LruCache[str, int](0)


def test_the_caches_are_bounded() -> None:
    from vyre import pipeline
    from vyre.runtime import api, wgpu_backend, wgpu_device

    for cache in (
        pipeline._PREPARED,  # pyright: ignore[reportPrivateUsage]
        api._TABLES,  # pyright: ignore[reportPrivateUsage]
        fp._KNOWN,  # pyright: ignore[reportPrivateUsage]
        wgpu_backend._PLANS,  # pyright: ignore[reportPrivateUsage]
        wgpu_backend._SHAPES,  # pyright: ignore[reportPrivateUsage]
    ):
        assert isinstance(cache, fp.LruCache) and 1 <= cache.capacity <= 1024
    assert wgpu_device.PIPELINE_CAPACITY <= 1024 and wgpu_device.BIND_GROUP_CAPACITY <= 4096


# ---------------------------------------------------------------------------
# vyre.run after in-place mutation
# ---------------------------------------------------------------------------


def test_a_program_changed_in_place_runs_as_changed(backend: str) -> None:
    program = binop_program()
    assert run(program, backend).tolist() == (A ^ B).tolist()
    only(program, d.BinOp).properties["kind"] = StringAttr("bit_and")
    assert run(program, backend).tolist() == (A & B).tolist()
    op = only(program, d.BinOp)
    op.properties["kind"] = StringAttr("sub")
    op.operands = [op.operands[1], op.operands[0]]  # b - a now
    assert run(program, backend).tolist() == (B - A).tolist()


def _outcome(program: Program) -> tuple[str, str]:
    try:
        return ("ok", run(program, "wgpu").tobytes().hex())
    except Exception as error:  # the same error type and text
        return (type(error).__name__, str(error))


@pytest.fixture(params=["as the adapter is", "without a loop status word"])
def hot_check(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """vyre.run's hot path on the adapter present, and as on GPU adapters,
    whose runs report no loop status word (lavapipe's loop limit dropped for
    the test)."""
    request.getfixturevalue("gpu_adapter")
    if request.param == "without a loop status word":
        from vyre.runtime.wgpu_device import gpu_device

        monkeypatch.setattr(gpu_device(), "loop_limit", None)
    return request.param


@pytest.mark.parametrize(("what", "mutate"), list(_mutations()), ids=[m[0] for m in _mutations()])
def test_the_hot_path_sees_every_in_place_change(what: str, mutate: Any, hot_check: str) -> None:
    """vyre.run's hot path (a kept entry per module) answers for the mutated
    program exactly as a fresh copy of it is answered."""
    program = binop_program()
    run(program, "wgpu")
    run(program, "wgpu")  # the second call goes through the kept entry
    mutate(program)
    fresh = Program.from_module(program.module.clone())
    assert _outcome(program) == _outcome(fresh), what
    assert _outcome(program) == _outcome(fresh), what  # and again, once its entry is rebuilt


def test_an_in_place_change_that_makes_it_invalid_raises(backend: str) -> None:
    program = binop_program()
    run(program, backend)
    only(program, d.StoreOp).properties["buffer"] = StringAttr("a")
    with pytest.raises(vyre.ValidationError, match="store to non-writable buffer `a`"):
        run(program, backend)
    with pytest.raises(vyre.ValidationError):  # and again: invalid results are never cached
        run(program, backend)
    only(program, d.StoreOp).properties["buffer"] = StringAttr("out")
    assert run(program, backend).tolist() == (A ^ B).tolist()


def test_the_hot_path_never_compiles_an_invalid_change(hot_check: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module made invalid in place after its hot entry exists raises the
    validation error, and no shader of the invalid program is ever made."""
    from vyre.runtime.wgpu_device import gpu_device

    program = binop_program()
    run(program, "wgpu")
    run(program, "wgpu")
    only(program, d.StoreOp).properties["buffer"] = StringAttr("a")
    device = gpu_device().device
    made: list[str] = []
    real = type(device).create_shader_module

    def spy(self: Any, **kwargs: Any) -> Any:
        made.append(kwargs["code"])
        return real(self, **kwargs)

    monkeypatch.setattr(type(device), "create_shader_module", spy)
    with pytest.raises(vyre.ValidationError, match="store to non-writable buffer `a`"):
        run(program, "wgpu")
    assert made == []


def test_argument_checks_run_on_every_cached_call(backend: str) -> None:
    program = binop_program()
    run(program, backend)
    with pytest.raises(TypeError, match="input `a`"):
        vyre.run(program, {"a": A.astype(np.int64), "b": B}, dispatch=(3, 1, 1), outputs={"out": 10}, backend=backend)
    with pytest.raises(ValueError, match="dispatch"):
        vyre.run(program, {"a": A, "b": B}, dispatch=(0, 1, 1), outputs={"out": 10}, backend=backend)
    with pytest.raises(ValueError, match="no size"):
        vyre.run(program, {"a": A, "b": B}, dispatch=(3, 1, 1), backend=backend)


@pytest.fixture
def registry_guard() -> Iterator[None]:
    before = set(ops.known_op_ids())
    yield
    for op_id in set(ops.known_op_ids()) - before:
        ops.unregister(op_id)


def _user_op(composition: Any, reference: Any) -> OpSpec:
    return OpSpec(
        id="user.test.cached_pair",
        version=1,
        signature=OpSignature(inputs=[DataType.U32, DataType.U32], output=DataType.U32),
        category="A",
        reference=reference,
        composition=composition,
        laws=(laws.Commutative(),),
    )


def test_a_changed_registry_is_seen_by_a_cached_program(backend: str, registry_guard: None) -> None:
    _registry_case(backend)


def test_the_hot_path_sees_a_changed_registry(hot_check: str, registry_guard: None) -> None:
    _registry_case("wgpu")


def _registry_case(backend: str) -> None:
    ops.register(_user_op(E.bitxor, lambda a, b: a ^ b))
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(WG, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.store("out", I, E.call("user.test.cached_pair", [E.load("a", I), E.load("b", I)])),
        ],
    )
    assert run(program, backend).tolist() == (A ^ B).tolist()
    ops.unregister("user.test.cached_pair")
    ops.register(_user_op(E.bitand, lambda a, b: a & b))
    assert run(program, backend).tolist() == (A & B).tolist()
    ops.unregister("user.test.cached_pair")
    with pytest.raises(vyre.ValidationError, match="user.test.cached_pair"):
        run(program, backend)


# ---------------------------------------------------------------------------
# wgpu backend reuse
# ---------------------------------------------------------------------------


def test_fresh_outputs_start_zeroed_in_a_reused_buffer(gpu_adapter: object) -> None:
    """A buffer the pool hands out again held 0xffffffff words; the next run's
    fresh output must still read as zeros where the kernel does not store."""
    n = 64
    fill = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(WG, 1, 1),
        entry=[N.store("out", E.gid_x(), E.u32(0xFFFF_FFFF))],
    )
    first_only = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(WG, 1, 1),
        entry=[N.if_(E.eq(E.gid_x(), E.u32(0)), [N.store("out", E.gid_x(), E.u32(7))])],
    )
    for _ in range(2):
        filled = vyre.run(fill, {}, dispatch=(n // WG, 1, 1), outputs={"out": n}, backend="wgpu")
        assert filled["out"].tolist() == [0xFFFF_FFFF] * n
        out = vyre.run(first_only, {}, dispatch=(n // WG, 1, 1), outputs={"out": n}, backend="wgpu")
        assert out["out"].tolist() == [7] + [0] * (n - 1)


def test_results_own_their_memory_across_runs(gpu_adapter: object) -> None:
    program = binop_program()
    first = run(program, "wgpu")
    second = vyre.run(
        program, {"a": B, "b": B}, dispatch=(3, 1, 1), outputs={"out": 10}, backend="wgpu"
    )["out"]
    assert first.tolist() == (A ^ B).tolist() and second.tolist() == [0] * 10
    assert first.flags.owndata and first.flags.writeable and not np.shares_memory(first, second)


def test_changing_sizes_reuses_nothing_stale(gpu_adapter: object) -> None:
    """The meta uniform (logical counts) follows the sizes of every call."""
    program = binop_program("add")
    for n in (10, 3, 10, 1, 7):
        assert run(program, "wgpu", n).tolist() == (A[:n] + B[:n]).tolist()


class _Queue:
    def __init__(self) -> None:
        self.writes: list[tuple[object, bytes]] = []

    def write_buffer(self, buffer: object, offset: int, data: bytes) -> None:
        self.writes.append((buffer, bytes(data)))


class _Buffer:
    def __init__(self, size: int) -> None:
        self.size = size


class _Device:
    def __init__(self) -> None:
        self.queue = _Queue()
        self.created = 0

    def create_buffer(self, *, size: int, usage: int) -> _Buffer:
        self.created += 1
        return _Buffer(size)


def test_self_written_uniforms_are_uploaded_only_when_their_content_changes() -> None:
    device = _Device()
    gpu = GpuDevice(adapter=None, device=device, limits={}, adapter_name="fake")
    first = gpu.acquire_written(1, b"A" * 16)
    gpu.release_written(1, first, b"A" * 16)
    again = gpu.acquire_written(1, b"A" * 16)
    assert again is first and len(device.queue.writes) == 1  # same content: no upload
    gpu.release_written(1, again, b"A" * 16)
    other = gpu.acquire_written(1, b"B" * 16)
    assert device.queue.writes[-1] == (other, b"B" * 16) and len(device.queue.writes) == 2
    gpu.release_written(1, other, b"B" * 16)
    assert gpu.acquire_written(1, b"A" * 16) is first  # each content keeps its buffer


def test_content_pool_is_bounded_and_returns_buffers_to_the_plain_pool() -> None:
    from vyre.runtime.wgpu_device import CONTENT_POOL_CAPACITY

    device = _Device()
    gpu = GpuDevice(adapter=None, device=device, limits={}, adapter_name="fake")
    for k in range(CONTENT_POOL_CAPACITY + 5):
        content = k.to_bytes(16, "little")
        gpu.release_written(1, gpu.acquire_written(1, content), content)
    assert len(gpu.free_by_content) == CONTENT_POOL_CAPACITY
    # past the bound, an evicted buffer goes back to the plain pool and is rewritten
    assert device.created == CONTENT_POOL_CAPACITY + 1
    oldest = (0).to_bytes(16, "little")
    buffer = gpu.acquire_written(1, oldest)  # evicted: written again
    assert device.queue.writes[-1] == (buffer, oldest)


def test_zero_words_are_a_recognisable_zero_fill() -> None:
    zeros = zero_words(DataType.VEC2U32, 3)
    assert zeros.tolist() == [0] * 6 and not zeros.flags.writeable and is_zero_fill(zeros)
    assert is_zero_fill(zero_words(DataType.U32, 0))
    seven = np.ndarray((4,), np.uint32, np.array([7], dtype=np.uint32), 0, (0,))
    assert seven.tolist() == [7] * 4 and not is_zero_fill(seven)
    assert not is_zero_fill(np.zeros(4, dtype=np.uint32))  # ordinary words are uploaded
