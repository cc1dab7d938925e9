"""What validation needs from an op library: lookups and the callee chain depth.

Validation sits below the op library (`vyre.ops`), which validates compositions
when it admits ops; so the library is not imported here. The caller passes a
lookup (`op id -> spec or None`): `vyre.validate` passes the registry's. Specs are
read by attribute (`signature.inputs`, `signature.output`, `inlinable`,
`callees`), so any object shaped like `vyre.ops.OpSpec` works."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from vyre.dialects.vyre import DataTypeKind

INFINITE_DEPTH = float("inf")

OpLookup = Callable[[str], object | None]
"""Op id -> its spec, or None when no op has that id."""


def no_ops(op_id: str) -> object | None:
    """The lookup of an empty library: every call is of an unknown op (V016)."""
    return None


@dataclass
class OpRegistryView:
    """Memoised answers about op ids for one validation run."""

    lookup: OpLookup = no_ops
    _specs: dict[str, object | None] = field(default_factory=lambda: {})
    _chain_depths: dict[str, float] = field(default_factory=lambda: {})

    def spec(self, op_id: str) -> object | None:
        if op_id not in self._specs:
            self._specs[op_id] = self.lookup(op_id)
        return self._specs[op_id]

    def is_known(self, op_id: str) -> bool:
        return self.spec(op_id) is not None

    def is_inlinable(self, op_id: str) -> bool:
        spec = self.spec(op_id)
        return spec is None or getattr(spec, "inlinable", True) is not False

    def input_kinds(self, op_id: str) -> tuple[DataTypeKind, ...] | None:
        """The declared input types of a registered op, `None` when unknown."""
        inputs = getattr(getattr(self.spec(op_id), "signature", None), "inputs", None)
        if inputs is None:
            return None
        try:
            return tuple(DataTypeKind(getattr(kind, "value", kind)) for kind in inputs)
        except (TypeError, ValueError):
            return None

    def signature_text(self, op_id: str) -> str:
        return str(getattr(self.spec(op_id), "signature", "(...)"))

    def output_kind(self, op_id: str) -> DataTypeKind | None:
        """The declared output type of a registered op, `None` when unknown."""
        spec = self.spec(op_id)
        output = getattr(getattr(spec, "signature", None), "output", None)
        try:
            return DataTypeKind(getattr(output, "value", output))
        except ValueError:
            return None

    def callees(self, op_id: str) -> tuple[str, ...]:
        callees = getattr(self.spec(op_id), "callees", ())
        if not isinstance(callees, (tuple, list, frozenset, set)):
            return ()
        return tuple(c for c in callees if isinstance(c, str))  # pyright: ignore[reportUnknownVariableType]

    def chain_depth(self, op_id: str) -> float:
        """1 + the longest callee chain below `op_id`; infinite through a cycle.

        Iterative depth-first search, so long chains cannot exhaust the stack."""
        if op_id in self._chain_depths:
            return self._chain_depths[op_id]
        stack: list[tuple[str, list[str]]] = [(op_id, list(self.callees(op_id)))]
        on_stack = {op_id}
        while stack:
            node, pending = stack[-1]
            if pending:
                child = pending.pop()
                if child in self._chain_depths:
                    continue
                if child in on_stack:
                    for cyclic, _ in stack:
                        self._chain_depths[cyclic] = INFINITE_DEPTH
                    return INFINITE_DEPTH
                stack.append((child, list(self.callees(child))))
                on_stack.add(child)
                continue
            stack.pop()
            on_stack.discard(node)
            below = (self._chain_depths[c] for c in self.callees(node))
            self._chain_depths[node] = 1 + max(below, default=0)
        return self._chain_depths[op_id]
