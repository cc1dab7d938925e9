"""The admission gates (docs/adding-an-op.md), applied to every op before it enters the
registry, and the characterization-collision check of its law sets.

Gate 0 (id) — the id is a dotted name not already registered.
Gate 1 (category) — the category is "A" or "C" and the composition matches it.
Gate 2 (signature) — the signature is well formed and the composition takes one
    argument per input and yields the output type.
Gate 3 (zero overhead) — a Category A composition is a pure expression DAG
    (parameters, literals, BinOp, UnOp, Select, Cast and calls; gate 2 checks the
    node kinds) that is valid vyre IR when written where its call stands: every
    callee is registered, inlinable, Category A or C, no recursion, no call chain
    deeper than 32, every call argument and operator well typed. Inlined, it is
    therefore straight-line code that hand-written code would also have. The
    other half of gate 3 (its lowered WGSL has no loop, helper function or op id)
    needs the lowering, which sits above the library: `vyre-conform` checks it
    (`vyre.conform.zero_overhead`).
Gate 4 (deterministic reference) — the CPU reference returns identical bytes
    when repeated on the witness inputs.
Gate 5 (observable reference) — it returns at least one output byte.
Gate 6 (rule material) — at least one law, equivalence class, boundary or
    alternate; each law fits the op's arity and names known ops.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import permutations
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Block, Operation, Region

from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, Call, DataType, Expr, emit_expr
from vyre.ops import registry
from vyre.ops.float_laws import FloatLaw
from vyre.ops.laws import Law
from vyre.ops.registry import KernelEntry
from vyre.ops.spec import CompositionError, EquivalenceClass, Intrinsic, OpSignature, OpSpec, walk_expr
from vyre.validation.checker import KernelChecker

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "GATES",
    "WITNESS_U32",
    "AdmissionError",
    "admit",
    "characterization_collisions",
    "gate_id",
]

GATES: dict[int, str] = {
    0: "id",
    1: "category",
    2: "signature",
    3: "zero-overhead",
    4: "deterministic reference",
    5: "observable reference",
    6: "rule material",
    10: "kernel ports",
    11: "kernel plan",
    12: "kernel reference",
}

WITNESS_U32: tuple[int, ...] = (
    0,
    1,
    2,
    3,
    0xFFFFFFFF,
    0xFFFFFFFE,
    0x80000000,
    0x7FFFFFFF,
    0xAAAAAAAA,
    0x55555555,
    0xDEADBEEF,
    0xCAFEF00D,
)
"""The fixed head of vyre 0.7's conformance witness set (always tried first)."""

_ID = re.compile(r"[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)+")
_SCALAR_TYPES = {
    DataType.U32: "uint32",
    DataType.I32: "int32",
    DataType.BOOL: "uint32",
    DataType.F32: "float32",
}


class AdmissionError(ValueError):
    """An op spec rejected by an admission gate; the message names the gate and
    ends with the `Fix:` hint."""

    def __init__(self, op_id: str, gate: int, problem: str, fix: str):
        self.op_id = op_id
        self.gate = gate
        self.gate_name = GATES[gate]
        self.problem = problem.rstrip(".")
        self.fix = fix.rstrip(".")
        super().__init__(
            f"op `{op_id}` rejected by admission gate {gate} ({self.gate_name}):"
            f" {self.problem}. Fix: {self.fix}."
        )


Lookup = Callable[[str], "OpSpec | None"]


def admit(
    spec: object,
    *,
    registered: Iterable[str] | None = None,
    lookup: Lookup | None = None,
) -> OpSpec:
    """Run gates 0-6 on `spec`; return it, or raise `AdmissionError`.

    `registered` holds the ids already in the registry (gate 0 rejects a second
    op with one of them; gate 6 accepts laws naming them) and `lookup` resolves
    the ops a composition calls; both default to the registry's."""
    if not isinstance(spec, OpSpec):
        raise TypeError(f"ops.register expects an OpSpec, got {type(spec).__name__}")
    known = set(registry.known_op_ids() if registered is None else registered)
    resolve = registry.resolve if lookup is None else lookup
    gate_id(spec, known)
    _gate_category(spec)
    _gate_signature(spec, resolve)
    _gate_zero_overhead(spec, resolve)
    outputs = _gate_deterministic(spec)
    _gate_observable(spec, outputs)
    _gate_rule_material(spec, known | {spec.id})
    return spec


def _reject(spec: OpSpec | KernelEntry, gate: int, problem: str, fix: str) -> AdmissionError:
    return AdmissionError(str(spec.id), gate, problem, fix)


# -- gate 0 ------------------------------------------------------------------


def gate_id(spec: OpSpec | KernelEntry, registered: set[str]) -> None:
    """Gate 0, for scalar and kernel ops alike."""
    if not isinstance(spec.id, str) or not _ID.fullmatch(spec.id):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise _reject(
            spec,
            0,
            f"id {spec.id!r} is not a dotted lower-case name",
            'use a dotted id such as "user.math.avg_floor"',
        )
    if spec.id in registered:
        raise _reject(
            spec,
            0,
            "an op with this id is already registered",
            "choose a new id, or unregister the user op first",
        )
    if isinstance(spec.version, bool) or not isinstance(spec.version, int) or spec.version < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise _reject(
            spec, 0, f"version {spec.version!r} is not a positive int", "set version=1 or higher"
        )


# -- gate 1 ------------------------------------------------------------------


def _gate_category(spec: OpSpec) -> None:
    if spec.category not in ("A", "C"):
        raise _reject(
            spec,
            1,
            f"category {spec.category!r} is neither \"A\" (composition) nor \"C\" (intrinsic);"
            " Category B (runtime abstraction overhead) is forbidden",
            'declare category="A" with a composition, or category="C" with an Intrinsic',
        )
    if spec.category == "A" and (
        isinstance(spec.composition, Intrinsic) or not callable(spec.composition)
    ):
        raise _reject(
            spec,
            1,
            "a Category A op needs a composition: a callable from Exprs to an Expr",
            "pass composition=lambda a, b: E.add(a, b) (vyre IR), or declare category=\"C\"",
        )
    if spec.category == "C" and not isinstance(spec.composition, Intrinsic):
        raise _reject(
            spec,
            1,
            "a Category C op declares an Intrinsic (hardware, backends), not a software"
            " composition: there is no fallback",
            "pass composition=Intrinsic(hardware=..., wgsl=...), or declare category=\"A\"",
        )
    if not isinstance(spec.inlinable, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise _reject(spec, 1, "inlinable must be a bool", "pass inlinable=True or False")


# -- gate 2 ------------------------------------------------------------------


def _gate_signature(spec: OpSpec, resolve: Lookup) -> None:
    sig = spec.signature
    if not isinstance(sig, OpSignature):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise _reject(
            spec,
            2,
            f"signature is {type(sig).__name__}, not an OpSignature",
            "pass signature=OpSignature(inputs=[DataType.U32, ...], output=DataType.U32)",
        )
    types = [*sig.inputs, sig.output]
    if not all(isinstance(t, DataType) for t in types):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise _reject(
            spec,
            2,
            f"signature {sig.inputs!r} -> {sig.output!r} holds values that are not DataTypes",
            "use vyre.ir.DataType members for every input and the output",
        )
    if not callable(spec.reference):
        raise _reject(
            spec, 2, "reference is not callable", "pass reference=<numpy function of the inputs>"
        )
    if not _accepts(spec.reference, sig.arity):
        raise _reject(
            spec,
            2,
            f"the reference does not take {sig.arity} argument(s)",
            f"give the reference one parameter per input ({sig.arity})",
        )
    if spec.category != "A":
        return
    composition = spec.composition
    assert callable(composition)
    if not _accepts(composition, sig.arity):
        raise _reject(
            spec,
            2,
            f"the composition does not take {sig.arity} argument(s), one per input",
            f"give the composition one parameter per input ({sig.arity})",
        )
    try:
        tree = spec.composition_tree
        nodes = list(walk_expr(tree))
    except CompositionError as error:
        raise _reject(
            spec, 2, str(error), "build the composition from its arguments with vyre.ir.Expr"
        ) from None
    except Exception as error:  # a user callable may raise anything
        raise _reject(
            spec,
            2,
            f"the composition raised {type(error).__name__}: {error}",
            "make the composition a function of its Expr arguments only",
        ) from None
    del nodes
    result_type = _expr_type(spec, tree, resolve)
    if result_type is not None and result_type != sig.output:
        raise _reject(
            spec,
            2,
            f"the composition yields `{result_type}` but the signature declares `{sig.output}`",
            "cast the result, or fix the declared output type",
        )


def _accepts(fn: Callable[..., object], arity: int) -> bool:
    try:
        inspect.signature(fn).bind(*range(arity))
    except TypeError:
        return False
    except ValueError:  # builtins without a signature: trust them
        return True
    return True


def _with_self(spec: OpSpec, resolve: Lookup) -> Lookup:
    """`resolve`, answering `spec.id` with `spec` (an op being admitted may call
    itself: that is reported as recursion, V017, not as an unknown op)."""

    def lookup(op_id: str) -> OpSpec | None:
        return spec if op_id == spec.id else resolve(op_id)

    return lookup


def _expr_type(spec: OpSpec, tree: Expr, resolve: Lookup) -> DataType | None:
    """The type of the composition's value, read off the IR it becomes (None when
    it depends on an op that is not registered yet)."""
    lookup = _with_self(spec, resolve)

    def call_type(op_id: str) -> DataType | None:
        callee = lookup(op_id)
        return None if callee is None else callee.signature.output

    unknown = any(
        isinstance(node, Call) and node.result is None and lookup(node.op_id) is None
        for node in walk_expr(tree)
    )
    if unknown:
        return None
    params = Block(arg_types=[t.attr for t in spec.signature.inputs])
    _, value = emit_expr(tree, params.args, call_type=call_type)
    return DataType.of(value.type)


# -- gate 3 ------------------------------------------------------------------


def _gate_zero_overhead(spec: OpSpec, resolve: Lookup) -> None:
    if spec.category != "A":
        return
    # A non-inlinable op (a buffer op lowered by its own path) is still checked as
    # if it were expanded: its composition must be overhead-free all the same.
    probe = spec if spec.inlinable else replace(spec, inlinable=True)
    lookup = _with_self(probe, resolve)
    kernel = composition_kernel(spec, lookup)
    diagnostics = KernelChecker.check(kernel, lookup)
    if diagnostics:
        raise _reject(
            spec,
            3,
            "the composition is not valid vyre IR where its call stands: "
            + "; ".join(diagnostic.message for diagnostic in diagnostics),
            "call only registered, inlinable ops, without recursion, with well-typed operands",
        )


def composition_kernel(spec: OpSpec, lookup: Lookup | None = None) -> d.KernelOp:
    """`out[i] = <composition>(in0[i], in1[i], ...)` with the composition written
    out (its calls kept): the kernel gate 3 validates."""
    resolve = registry.resolve if lookup is None else lookup
    sig = spec.signature
    decls = [BufferDecl.read(f"in{i}", i, t) for i, t in enumerate(sig.inputs)]
    decls.append(BufferDecl.read_write("out", len(decls), sig.output))
    index = d.InvocationIdOp(0)
    loads = [d.LoadOp(decl.name, index, decl.dtype.attr) for decl in decls[:-1]]

    def call_type(op_id: str) -> DataType | None:
        callee = resolve(op_id)
        return None if callee is None else callee.signature.output

    ops, value = emit_expr(spec.composition_tree, [load.res for load in loads], call_type=call_type)
    body: list[Operation] = [index, *loads, *ops, d.StoreOp("out", index, value)]
    return d.KernelOp.create(
        properties={
            "sym_name": StringAttr("admission"),
            "workgroup_size": ArrayAttr([IntAttr(64), IntAttr(1), IntAttr(1)]),
            "buffers": ArrayAttr([decl.to_attr() for decl in decls]),
        },
        regions=[Region(Block(body))],
    )


# -- gates 4 and 5 -----------------------------------------------------------


def witness_inputs(signature: OpSignature) -> list[np.ndarray] | None:
    """Equal-length witness arrays for a scalar signature: every combination of
    the witness values for arity <= 4, a deterministic spread beyond."""
    import numpy as np

    dtypes = [_SCALAR_TYPES.get(t) for t in signature.inputs]
    if any(t is None for t in dtypes):
        return None
    values = np.array(WITNESS_U32, dtype=np.uint64)
    n = len(values)
    arity = len(dtypes)
    if arity <= 4:
        grids: Sequence[np.ndarray] = (
            np.meshgrid(*([values] * arity), indexing="ij") if arity else []
        )
        columns = [g.reshape(-1) for g in grids]
    else:
        rows = np.arange(n**3, dtype=np.uint64)
        columns = [values[(rows // n**(k % 3) + k) % n] for k in range(arity)]
    return [
        c.astype(np.uint32).view(np.int32 if t == "int32" else np.float32)
        if t in ("int32", "float32")
        else c.astype(np.uint32)
        for c, t in zip(columns, dtypes, strict=True)
    ]


def _call_reference(spec: OpSpec, inputs: Sequence[np.ndarray]) -> bytes:
    import numpy as np

    result = spec.reference(*[a.copy() for a in inputs])
    if isinstance(result, (bytes, bytearray)):
        return bytes(result)
    return np.ascontiguousarray(np.asarray(result)).tobytes()


def _gate_deterministic(spec: OpSpec) -> bytes:
    import numpy as np

    inputs = witness_inputs(spec.signature)
    if inputs is None:
        witness = np.frombuffer(b"vyre-witness", dtype=np.uint8)
        inputs = [witness.copy() for _ in spec.signature.inputs]
    try:
        first = _call_reference(spec, inputs)
        second = _call_reference(spec, inputs)
    except Exception as error:  # a user reference may raise anything
        raise _reject(
            spec,
            4,
            f"the reference raised {type(error).__name__} on the witness inputs: {error}",
            "make the reference a total numpy function of its inputs",
        ) from None
    if first != second:
        raise _reject(
            spec,
            4,
            "the reference returned different bytes for the same witness input",
            "remove randomness, time and global state from the reference",
        )
    return first


def _gate_observable(spec: OpSpec, output: bytes) -> None:
    if not output:
        raise _reject(
            spec,
            5,
            "the reference produced no output byte for the witness input",
            "return the op's value for every input element",
        )


# -- gate 6 ------------------------------------------------------------------


def _gate_rule_material(spec: OpSpec, known: set[str]) -> None:
    if not (spec.laws or spec.equivalence_classes or spec.boundaries or spec.alternates):
        raise _reject(
            spec,
            6,
            "no law, equivalence class, boundary value or alternate implementation is declared",
            "declare laws=[...] (docs/adding-an-op.md), equivalence_classes or boundaries",
        )
    arity = spec.signature.arity
    for law in spec.laws:
        if not isinstance(law, Law):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise _reject(
                spec, 6, f"{law!r} is not a law", "use the values of vyre.ops.laws"
            )
        if law.arity != arity:
            raise _reject(
                spec,
                6,
                f"{law} is a law of {law.arity}-ary ops but the op takes {arity} input(s)",
                "declare only laws that fit the op's arity",
            )
        words = (*spec.signature.inputs, spec.signature.output)
        if isinstance(law, FloatLaw) and any(t is not DataType.F32 for t in words):
            raise _reject(
                spec,
                6,
                f"{law} is a float law (of F32 ops) but the op's signature is {spec.signature}",
                "declare float laws only on ops of F32 inputs and output (vyre.ops.float_laws)",
            )
        for other in law.referenced_ops():
            if other not in known:
                raise _reject(
                    spec,
                    6,
                    f"{law} names `{other}`, which is not registered",
                    "register that op first or name a registered one",
                )
    for cls in spec.equivalence_classes:
        if not isinstance(cls, EquivalenceClass) or not cls.representatives:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise _reject(
                spec,
                6,
                f"{cls!r} is not an EquivalenceClass with representatives",
                "use EquivalenceClass(description, [(input, ...), ...])",
            )
        for rep in cls.representatives:
            if len(rep) != arity or not all(_is_u32(v) for v in rep):
                raise _reject(
                    spec,
                    6,
                    f"representative {rep!r} of {cls.description!r} is not {arity} u32 value(s)",
                    "give one u32 per input in every representative",
                )
    for boundary in spec.boundaries:
        values = boundary if isinstance(boundary, tuple) else (boundary,)
        if isinstance(boundary, tuple) and len(boundary) != arity:
            raise _reject(
                spec,
                6,
                f"boundary {boundary!r} has {len(boundary)} values for {arity} input(s)",
                "give one u32 (used for every input) or one per input",
            )
        if not all(_is_u32(v) for v in values):
            raise _reject(
                spec, 6, f"boundary {boundary!r} is not a u32", "use values in [0, 2**32)"
            )
    for alternate in spec.alternates:
        if not isinstance(alternate, str) or not alternate.strip():  # pyright: ignore[reportUnnecessaryIsInstance]
            raise _reject(
                spec, 6, "an alternate is not WGSL text", "give alternates as WGSL source strings"
            )


def _is_u32(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFFFFFFFF


# -- characterization collisions ----------------------------------------------


@dataclass(frozen=True)
class Collision:
    """`op` is not distinguished from `peer`: its laws are a subset of (or equal
    to) the peer's, and its other rule material adds nothing the peer lacks."""

    op: str
    peer: str
    identical: bool

    def __str__(self) -> str:
        relation = "the same law set as" if self.identical else "a law subset of"
        return (
            f"characterization collision: `{self.op}` declares {relation} `{self.peer}` and"
            f" no other rule material distinguishes it. Fix: declare a law, equivalence"
            f" class or boundary that separates `{self.op}` from `{self.peer}`."
        )


def characterization_collisions(specs: Iterable[OpSpec] | None = None) -> list[str]:
    """Warnings for ops whose declared rule material does not separate them from
    a peer of the same arity class (law sets are characterization material).

    An op collides with a peer when its law set equals, or is strictly contained
    in, the peer's and every equivalence class, boundary and alternate it
    declares is declared by the peer too."""
    if specs is None:
        specs = [registry.get_scalar(op_id) for op_id in registry.scalar_op_ids()]
    by_arity: dict[tuple[tuple[DataType, ...], DataType], list[OpSpec]] = {}
    for spec in specs:
        key = (spec.signature.inputs, spec.signature.output)
        by_arity.setdefault(key, []).append(spec)
    warnings: list[str] = []
    for peers in by_arity.values():
        for op, peer in permutations(peers, 2):
            laws, peer_laws = set(op.laws), set(peer.laws)
            extra, peer_extra = _extra_material(op), _extra_material(peer)
            if not (laws <= peer_laws and extra <= peer_extra):
                continue
            if laws == peer_laws and extra == peer_extra and op.id > peer.id:
                continue  # the same pair, reported once
            warnings.append(str(Collision(op.id, peer.id, laws == peer_laws)))
    return warnings


def _extra_material(spec: OpSpec) -> set[object]:
    return {*spec.equivalence_classes, *spec.boundaries, *spec.alternates}
