"""A stand-in op registry for the rules that consult `vyre.ops` (V016/V017/V020)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from vyre.ir import DataType


@dataclass(frozen=True)
class FakeSignature:
    inputs: tuple[DataType, ...] | None  # None: arguments unchecked (a stand-in op)
    output: DataType

    def __str__(self) -> str:
        return f"({', '.join(t.value for t in self.inputs or ())}) -> {self.output.value}"


@dataclass(frozen=True)
class FakeSpec:
    id: str
    signature: FakeSignature = field(default_factory=lambda: FakeSignature((), DataType.U32))
    inlinable: bool = True
    callees: tuple[str, ...] = ()


@dataclass
class FakeRegistry:
    specs: dict[str, FakeSpec] = field(default_factory=lambda: {})

    def add(
        self,
        op_id: str,
        *,
        output: DataType = DataType.U32,
        inputs: tuple[DataType, ...] | None = None,
        inlinable: bool = True,
        callees: tuple[str, ...] = (),
    ) -> FakeSpec:
        spec = FakeSpec(op_id, FakeSignature(inputs, output), inlinable, callees)
        self.specs[op_id] = spec
        return spec

    def lookup(self, op_id: str) -> FakeSpec | None:
        return self.specs.get(op_id)

    def output(self, op_id: str) -> DataType | None:
        spec = self.specs.get(op_id)
        return None if spec is None else spec.signature.output


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRegistry]:
    """Replace the op registry, as the builder (call types) and the validator
    (call checks) see it, by a registry the test fills."""
    fake = FakeRegistry()
    # `vyre.validate` is also the function: take the module itself
    monkeypatch.setattr(sys.modules["vyre.validate"], "resolve", fake.lookup)
    monkeypatch.setattr(sys.modules["vyre.ir"], "_call_typer", fake.output)
    yield fake
