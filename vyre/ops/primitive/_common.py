"""Shared pieces of the primitive families: signatures, numpy helpers, boundaries."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt

from vyre.ir import DataType, Expr
from vyre.ops.laws import Law
from vyre.ops.spec import Boundary, EquivalenceClass, Intrinsic, OpSignature, OpSpec

U32_MAX = 0xFFFF_FFFF
MASK = np.uint64(U32_MAX)

U32_BOUNDARIES: tuple[int, ...] = (0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, U32_MAX)
"""Values every scalar u32 op is exercised at."""

U32Array = npt.NDArray[np.uint32]
"""A column of u32 inputs (or the op's u32 outputs) of a CPU reference."""


def signature(arity: int) -> OpSignature:
    return OpSignature(inputs=[DataType.U32] * arity, output=DataType.U32)


def wide(value: Any) -> np.ndarray:
    """A u32 input as uint64 (room for carries, products and shifts)."""
    return np.asarray(value).astype(np.uint64) & MASK


def narrow(value: Any) -> np.ndarray:
    """Back to u32 (the low 32 bits)."""
    return (np.asarray(value).astype(np.uint64) & MASK).astype(np.uint32)


def truth(value: Any) -> np.ndarray:
    """A boolean array as u32 0/1."""
    return np.asarray(value).astype(np.uint32)


def bit_length(value: np.ndarray) -> np.ndarray:
    """Bit length of each u32 in a uint64 array (0 for 0); exact via frexp."""
    _, exponent = np.frexp(value.astype(np.float64))
    return exponent.astype(np.uint64)


def classes(*entries: tuple[str, Iterable[Iterable[int]]]) -> tuple[EquivalenceClass, ...]:
    return tuple(EquivalenceClass(description, reps) for description, reps in entries)


@overload
def op(
    op_id: str,
    arity: Literal[1],
    reference: Callable[[U32Array], U32Array],
    composition: Callable[[Expr], Expr] | Intrinsic,
    *,
    laws: Iterable[Law] = (),
    equivalence_classes: Iterable[EquivalenceClass] = (),
    boundaries: Iterable[Boundary] = U32_BOUNDARIES,
    summary: str,
) -> OpSpec: ...


@overload
def op(
    op_id: str,
    arity: Literal[2],
    reference: Callable[[U32Array, U32Array], U32Array],
    composition: Callable[[Expr, Expr], Expr] | Intrinsic,
    *,
    laws: Iterable[Law] = (),
    equivalence_classes: Iterable[EquivalenceClass] = (),
    boundaries: Iterable[Boundary] = U32_BOUNDARIES,
    summary: str,
) -> OpSpec: ...


@overload
def op(
    op_id: str,
    arity: Literal[3],
    reference: Callable[[U32Array, U32Array, U32Array], U32Array],
    composition: Callable[[Expr, Expr, Expr], Expr] | Intrinsic,
    *,
    laws: Iterable[Law] = (),
    equivalence_classes: Iterable[EquivalenceClass] = (),
    boundaries: Iterable[Boundary] = U32_BOUNDARIES,
    summary: str,
) -> OpSpec: ...


@overload
def op(
    op_id: str,
    arity: Literal[4],
    reference: Callable[[U32Array, U32Array, U32Array, U32Array], U32Array],
    composition: Callable[[Expr, Expr, Expr, Expr], Expr] | Intrinsic,
    *,
    laws: Iterable[Law] = (),
    equivalence_classes: Iterable[EquivalenceClass] = (),
    boundaries: Iterable[Boundary] = U32_BOUNDARIES,
    summary: str,
) -> OpSpec: ...


def op(
    op_id: str,
    arity: int,
    reference: Callable[..., np.ndarray],
    composition: Callable[..., Expr] | Intrinsic,
    *,
    laws: Iterable[Law] = (),
    equivalence_classes: Iterable[EquivalenceClass] = (),
    boundaries: Iterable[Boundary] = U32_BOUNDARIES,
    summary: str,
) -> OpSpec:
    """A built-in u32 op, version 1; Category C exactly when it is an Intrinsic."""
    return OpSpec(
        id=op_id,
        version=1,
        signature=signature(arity),
        category="C" if isinstance(composition, Intrinsic) else "A",
        reference=reference,
        composition=composition,
        laws=tuple(laws),
        equivalence_classes=tuple(equivalence_classes),
        boundaries=tuple(boundaries),
        summary=summary,
    )
