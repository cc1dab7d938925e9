"""The one path every program takes: validate -> passes -> target.

```
Program | builtin.module ──► vyre.validate ──► inline-calls ──► canonicalize ──► Prepared
                                                                                   │
   reference interpreter (vyre.runtime.interp) runs `Prepared.kernel` ◄────────────┤
                                                                                   │
   Prepared.wgsl: float-strict ──► canonicalize ──► vyre.lowering (WGSL) ◄──────────┘
```

`prepare(program)` validates the program (raising `vyre.ValidationError` with
every diagnostic), clones its module and runs the pipeline's passes on the clone:
`inline-calls` expands every library call (Category C intrinsics that stay calls
are mapped 1:1 by the targets) and `canonicalize` folds every operation whose
operands are literals through the ops' own folders and removes dead pure ops.
The result, a `Prepared`, is cached by the program's structural fingerprint
(`vyre.fingerprint`), so a program is validated and transformed once however
often it runs; a program changed in place, or an op re-registered, has a new
fingerprint. Targets hang off the prepared program and are computed once too
(`Prepared.wgsl`). The lowering and the interpreter take a prepared kernel and
never run a pass or the validator themselves.

Strict floats differ per target on purpose: the WGSL target first runs
`float-strict`, which rewrites every float operation into integer soft-float
(no GPU float unit may decide a result bit), then folds again; the reference
interpreter computes the float operations of `Prepared.kernel` with its own
exact implementation. So every interp-versus-GPU comparison checks the
soft-float rewrite against an independent oracle.

A prepared module belongs to the cache: read it, never change it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from vyre.context import bulk_ir, vyre_context
from vyre.dialects import vyre as d
from vyre.fingerprint import Fingerprint, LruCache, fingerprint
from vyre.ir import BufferDecl, Program
from vyre.lowering.options import LoweringOptions
from vyre.progress import stage
from vyre.lowering.wgsl import LoweredKernel, lower
from vyre.transforms.clone import clone_module
from vyre.transforms.float_strict import float_strict, has_float_arithmetic
from vyre.transforms.fold import canonicalize
from vyre.transforms.inline_calls import inline_module
from vyre.validate import ValidationError, validate

__all__ = ["PREPARED_CAPACITY", "Prepared", "lower_to_wgsl", "lowered", "prepare"]

PREPARED_CAPACITY = 256
"""Prepared programs kept, most recently used first."""


@dataclass(frozen=True, eq=False)
class Prepared:
    """A validated program after the pipeline's passes: what every target reads.
    Compared and hashed by identity (it is a cache key of the targets' caches)."""

    module: ModuleOp
    fingerprint: Fingerprint | None
    """The fingerprint of the program it was prepared from (None: not cached)."""

    @cached_property
    def kernel(self) -> d.KernelOp:
        return d.kernel_of(self.module)

    @cached_property
    def name(self) -> str:
        return self.kernel.sym_name.data

    @cached_property
    def buffers(self) -> tuple[BufferDecl, ...]:
        return tuple(BufferDecl.from_attr(attr) for attr in self.kernel.buffer_decls)

    @cached_property
    def strict_module(self) -> ModuleOp:
        """The module after `float-strict` and a second `canonicalize`: integer IR
        only (float values travel as bit patterns). What the WGSL target lowers.
        The prepared module itself when it holds no float operation (the pass
        would change nothing and it is canonical already)."""
        if not has_float_arithmetic(self.module):
            return self.module
        with bulk_ir(), stage(f"float-strict on kernel @{self.name}"):
            module = clone_module(self.module)
            float_strict(module)
            canonicalize(module, _context())
        return module

    @cached_property
    def strict_kernel(self) -> d.KernelOp:
        """The kernel of `strict_module`: what every WGSL lowering lowers."""
        return d.kernel_of(self.strict_module)

    @cached_property
    def wgsl(self) -> LoweredKernel:
        """The WGSL lowering (text and binding layout), computed on first use."""
        return self.lowered_for(LoweringOptions())

    @cached_property
    def _lowerings(self) -> dict[LoweringOptions, LoweredKernel]:
        return {}

    def lowered_for(self, options: LoweringOptions) -> LoweredKernel:
        """The WGSL lowering for a target's `options` (vyre.lowering.options: the
        vectorised map entry, loops checked on adapters that stop them), once
        per distinct options."""
        lowered = self._lowerings.get(options)
        if lowered is None:
            strict = self.strict_kernel
            with stage(f"lowering kernel @{self.name} to WGSL"):
                lowered = lower(strict, options)
            self._lowerings[options] = lowered
        return lowered


_PREPARED: LruCache[Fingerprint, Prepared] = LruCache(PREPARED_CAPACITY)


def _as_program(program: object) -> Program:
    if isinstance(program, Program):
        return program
    if isinstance(program, ModuleOp):
        return Program.from_module(program)
    if isinstance(program, d.KernelOp):
        # the routines beside it come along: its invokes name them
        routines = [routine.clone() for routine in d.routines_of(program).values()]
        return Program.from_module(ModuleOp([program.clone(), *routines]))
    raise TypeError(
        f"the pipeline expects a vyre Program (or its builtin.module), got {type(program).__name__}"
    )


def prepare(
    program: Program | ModuleOp | d.KernelOp, key: Fingerprint | None = None
) -> Prepared:
    """`program` validated, inlined and canonicalized, cached by its fingerprint
    (`key` when the caller computed it already). Raises `vyre.ValidationError`."""
    program = _as_program(program)
    if key is None:
        key = fingerprint(program)
    prepared = _PREPARED.get(key) if key is not None else None
    if prepared is not None:
        return prepared
    diagnostics = validate(program)
    if diagnostics:
        raise ValidationError(diagnostics)
    prepared = Prepared(transformed(program), key)
    if key is not None:
        _PREPARED.put(key, prepared)
    return prepared


def transformed(program: Program) -> ModuleOp:
    """A copy of the validated `program`'s module after the pipeline's passes
    (what `prepare` caches; uncached)."""
    with bulk_ir(), stage(f"preparing kernel @{program.name}"):
        module = clone_module(program.module)
        run_passes(module)
    return module


def run_passes(module: ModuleOp) -> None:
    """The pipeline's passes on a validated module, in place: inline-calls, then
    canonicalize (`vyre.transforms.fold`: xDSL's canonicalize in one walk)."""
    with bulk_ir():
        inline_module(module)
        canonicalize(module, _context())


@cache
def _context() -> Context:
    return vyre_context()


def lowered(program: Program | ModuleOp | d.KernelOp) -> LoweredKernel:
    """The WGSL lowering of `program` (prepared first); `vyre.ValidationError`
    when it is invalid."""
    return prepare(program).wgsl


def lower_to_wgsl(program: Program | ModuleOp | d.KernelOp) -> str:
    """The WGSL source of `program`; raises `vyre.ValidationError` when invalid."""
    return prepare(program).wgsl.wgsl
