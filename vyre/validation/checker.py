"""One walk over a kernel that checks every rule except V010 (see uniformity.py).

The walk visits the ops of each statement list in order, so an expression op
is checked where it is evaluated: a `vyre.var` placed before the `vyre.let` of
its name reads an undeclared variable. Scopes: a Let is visible until the end
of its statement list; If branches, Loop bodies and Block bodies open scopes;
a loop variable is visible in its body.

Types are tracked per SSA value; a value whose type cannot be trusted (it
reads an unknown buffer or variable, a bytes buffer, an unknown op...) has type
`None` and no type rule fires on it, so one mistake gives one diagnostic.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import cast

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue

from vyre.dialects import vyre as d
from vyre.dialects.vyre import AccessKind, DataTypeKind
from vyre.dialects.tables import Dispatch
from vyre.validation import messages as m
from vyre.validation.casts import rejected_cast_rule
from vyre.validation.diagnostic import Diagnostic
from vyre.validation.registry import OpLookup, OpRegistryView, no_ops
from vyre.validation.uniformity import UniformityAnalysis

U32 = DataTypeKind.U32
U128 = DataTypeKind.U128
_CONDITION_TYPES = frozenset({DataTypeKind.U32, DataTypeKind.BOOL})
_UNARY_OPERAND_TYPES = frozenset({DataTypeKind.U32, DataTypeKind.I32, DataTypeKind.BOOL})
_WRITABLE = frozenset({AccessKind.READ_WRITE.value, AccessKind.WORKGROUP.value})
_KERNEL_ORDER = -1
_NESTING_OPS = frozenset({d.IfOp, d.LoopOp, d.BlockOp})
# Programs whose regions nest deeper than this get only the kernel-level and
# size findings (V001-V003, V018, V019, V024): the rule walks recurse once per
# level and such a program is far over the V018 limit anyway.
MAX_WALK_DEPTH = 128


_KINDS: dict[Attribute, DataTypeKind | None] = {}


def _spelling(ty: Attribute) -> str:
    return ty.kind.data if isinstance(ty, d.DataTypeAttr) else str(ty)


def _kind(attr: Attribute) -> DataTypeKind | None:
    """The vyre type an attribute names, `None` for anything else (memoised)."""
    if attr in _KINDS:
        return _KINDS[attr]
    kind = None
    if isinstance(attr, d.DataTypeAttr):
        try:
            kind = DataTypeKind(attr.kind.data)
        except ValueError:
            kind = None
    _KINDS[attr] = kind
    return kind


@dataclass(frozen=True)
class KernelShape:
    """Sizes measured without recursion: node count (V019), If/Loop/Block
    nesting (V018) with the first op at the deepest level and its program-order
    index, and the depth of regions of any kind (bounds the recursive walks)."""

    node_count: int
    nesting: int
    deepest: tuple[int, Operation] | None
    region_depth: int

    @classmethod
    def measure(cls, kernel: d.KernelOp) -> KernelShape:
        count, nesting, region_depth = 0, 0, 0
        deepest: tuple[int, Operation] | None = None
        stack: list[tuple[Iterator[Operation], int, int]] = [(_ops_of(kernel), 0, 0)]
        while stack:
            ops, op_nesting, op_region_depth = stack[-1]
            op = next(ops, None)
            if op is None:
                stack.pop()
                continue
            count += 1
            if not op.regions:
                continue
            inner_nesting = op_nesting + (type(op) in _NESTING_OPS)
            if inner_nesting > nesting:
                nesting, deepest = inner_nesting, (count, op)
            region_depth = max(region_depth, op_region_depth + 1)
            stack.append((_ops_of(op), inner_nesting, op_region_depth + 1))
        return cls(count, nesting, deepest, region_depth)


def _ops_of(op: Operation) -> Iterator[Operation]:
    return chain.from_iterable(block.ops for region in op.regions for block in region.blocks)


def walk_ops(op: Operation) -> Iterator[Operation]:
    """`op` and every op nested in it, in program order, without recursion."""
    yield op
    stack = [_ops_of(op)]
    while stack:
        nested = next(stack[-1], None)
        if nested is None:
            stack.pop()
            continue
        yield nested
        if nested.regions:
            stack.append(_ops_of(nested))


@dataclass(frozen=True)
class _Local:
    """A live local: its declaring op (a `vyre.let` or `vyre.loop`) and type."""

    decl: Operation
    kind: DataTypeKind | None

    @property
    def is_loop_variable(self) -> bool:
        return isinstance(self.decl, d.LoopOp)


VISITORS: Dispatch[KernelChecker, [], None] = Dispatch("validation visitors", lambda: d.OPERATIONS)
"""The checker's visit of each op class (the rules of docs/validation.md it checks)."""


@dataclass
class KernelChecker:
    """Collects the diagnostics of one kernel; use `KernelChecker.check`."""

    kernel: d.KernelOp
    buffers: dict[str, d.BufferDeclAttr] = field(default_factory=lambda: {})
    registry: OpRegistryView = field(default_factory=OpRegistryView)
    # (program-order index of the op, emission sequence, diagnostic)
    _found: list[tuple[int, int, Diagnostic]] = field(default_factory=lambda: [])
    _order: int = 0
    _types: dict[SSAValue, DataTypeKind | None] = field(default_factory=lambda: {})
    _call_depths: dict[SSAValue, float] = field(default_factory=lambda: {})
    _live: dict[str, _Local] = field(default_factory=lambda: {})
    _scopes: list[list[str]] = field(default_factory=lambda: [[]])
    bindings: dict[Operation, Operation] = field(default_factory=lambda: {})
    routines: dict[str, d.RoutineOp] = field(default_factory=lambda: {})
    _barrier_orders: dict[Operation, int] = field(default_factory=lambda: {})

    @classmethod
    def check(cls, kernel: d.KernelOp, lookup: OpLookup = no_ops) -> list[Diagnostic]:
        """Every diagnostic of `kernel`; calls are checked against `lookup`."""
        checker = cls(kernel, registry=OpRegistryView(lookup), routines=d.routines_of(kernel))
        checker._check_kernel_header()
        shape = KernelShape.measure(kernel)
        if shape.region_depth <= MAX_WALK_DEPTH:
            for region in kernel.regions:
                for block in region.blocks:
                    checker._walk(block)
            barriers = UniformityAnalysis.run(kernel, checker.bindings, shape.node_count)
            for barrier in barriers:
                order = checker._barrier_orders.get(barrier, shape.node_count)
                checker._report_at(order, "V010", m.divergent_barrier(), barrier)
        checker._check_limits(shape)
        checker._check_routines()
        checker._found.sort(key=lambda entry: (entry[0], entry[1]))
        return [diagnostic for _, _, diagnostic in checker._found]

    # -- reporting ------------------------------------------------------------
    def _report_at(self, order: int, rule: str, message: str, op: Operation) -> None:
        self._found.append((order, len(self._found), Diagnostic(rule, message, op)))

    def _report(self, rule: str, message: str, op: Operation) -> None:
        self._report_at(self._order, rule, message, op)

    # -- kernel-level rules ---------------------------------------------------
    def _check_kernel_header(self) -> None:
        kernel = self.kernel
        if len(kernel.workgroup_size.data) != 3:
            raise ValueError(
                f"malformed vyre IR: 'vyre.kernel' workgroup_size has"
                f" {len(kernel.workgroup_size.data)} components; a kernel has exactly 3"
            )
        for axis, size in enumerate(kernel.workgroup_size.data):
            if size.data == 0:
                self._report_at(_KERNEL_ORDER, "V003", m.zero_workgroup_axis(axis), kernel)
            elif size.data > d.U32_MAX:
                message = m.workgroup_axis_too_large(axis, size.data)
                self._report_at(_KERNEL_ORDER, "V003", message, kernel)
        bindings: set[int] = set()
        for decl in kernel.buffer_decls:
            name = decl.buffer_name.data
            if name in self.buffers:
                self._report_at(_KERNEL_ORDER, "V001", m.duplicate_buffer(name), kernel)
            else:
                self.buffers[name] = decl
            is_workgroup = decl.access.data == AccessKind.WORKGROUP.value
            if not is_workgroup:
                binding = decl.binding.data
                if binding in bindings:
                    self._report_at(
                        _KERNEL_ORDER, "V002", m.duplicate_binding(binding, name), kernel
                    )
                bindings.add(binding)
            if is_workgroup and decl.count.data == 0:
                self._report_at(
                    _KERNEL_ORDER, "V024", m.zero_count_workgroup_buffer(name), kernel
                )

    def _check_routines(self) -> None:
        """The routines beside the kernel: each body's type rules (V021, V029,
        V099, V136, V138, ...) and no routine reaching itself (V137)."""
        order = self._order
        for routine in self.routines.values():
            self._order += 1
            self._walk(routine.entry)
        for name, routine in self.routines.items():
            if _reaches(self.routines, name, name):
                self._report_at(order, "V137", m.recursive_routine(name), routine)

    def _check_limits(self, shape: KernelShape) -> None:
        if shape.nesting > m.MAX_NESTING_DEPTH and shape.deepest is not None:
            order, op = shape.deepest
            self._report_at(order, "V018", m.nesting_depth_exceeded(shape.nesting), op)
        if shape.node_count > m.MAX_NODE_COUNT:
            self._report_at(_KERNEL_ORDER, "V019", m.node_count_exceeded(), self.kernel)

    # -- scopes -----------------------------------------------------------------
    def _declare(self, name: str, local: _Local, op: Operation) -> None:
        if name in self._live:
            self._report("V008", m.duplicate_local(name), op)
            return
        self._live[name] = local
        self._scopes[-1].append(name)

    def _walk_scope(
        self, blocks: Iterable[Block], loop: tuple[str, _Local, Operation] | None = None
    ) -> None:
        self._scopes.append([])
        if loop is not None:
            self._declare(*loop)
        for block in blocks:
            self._walk(block)
        for name in self._scopes.pop():
            del self._live[name]

    # -- the walk ---------------------------------------------------------------
    def _walk(self, block: Block) -> None:
        for op in block.ops:
            self._order += 1
            visit = VISITORS.get(type(op))
            if visit is None:
                self._foreign(op)
                continue
            visit(self, op)
            if isinstance(op, d.ExprOp):
                self._check_inferred_type(op)

    def _check_inferred_type(self, op: d.ExprOp) -> None:
        """The result type an op defines itself must be the one it carries (only the
        API or the wire can make them differ); later rules see the defined one."""
        inferred = op.inferred_type()
        found = op.results[0].type
        if inferred is None or found == inferred:
            return
        message = m.inferred_result_type(op.name, _spelling(found), _spelling(inferred))
        self._report("V130", message, op)
        self._set_type(op, _kind(inferred))

    def _type(self, value: SSAValue) -> DataTypeKind | None:
        if value in self._types:
            return self._types[value]
        return _kind(value.type)

    def _set_type(self, op: Operation, kind: DataTypeKind | None) -> None:
        self._types[op.results[0]] = kind

    def _propagate_call_depth(self, op: Operation) -> float:
        depth = max((self._call_depths.get(v, 0) for v in op.operands), default=0)
        if depth and op.results:
            self._call_depths[op.results[0]] = depth
        return depth

    def _foreign(self, op: Operation) -> None:
        """An op of another dialect (V134): no backend runs it; its results are
        untyped and what it holds is not checked further."""
        self._report("V134", m.foreign_op_in_kernel(op.name, self.kernel.sym_name.data), op)
        for result in op.results:
            self._types[result] = None

    # -- expressions ------------------------------------------------------------
    @VISITORS.on(d.LitU32Op, d.LitI32Op, d.LitBoolOp, d.LitFloatOp, d.LitU128Op)
    def visit_literal(self, op: d.ExprOp) -> None:
        self._set_type(op, _kind(op.results[0].type))
        problem = literal_range_problem(op)
        if problem is not None:
            self._report("V133", problem, op)

    @VISITORS.on(d.VarOp)
    def visit_var(self, op: d.VarOp) -> None:
        name = op.var_name.data
        local = self._live.get(name)
        if local is None:
            self._report("V006", m.undeclared_variable(name), op)
            self._set_type(op, None)
            return
        self.bindings[op] = local.decl
        found = _kind(op.results[0].type)
        if local.kind is not None and found is not None and found != local.kind:
            self._report("V130", m.variable_read_type(name, found, local.kind), op)
            self._set_type(op, None)
            return
        self._set_type(op, local.kind)

    def _buffer(self, name: str, use: str, op: Operation) -> d.BufferDeclAttr | None:
        decl = self.buffers.get(name)
        if decl is None:
            self._report("V004", m.unknown_buffer(use, name), op)
        return decl

    def _index(self, value: SSAValue, rule: str, use: str, op: Operation) -> None:
        kind = self._type(value)
        if kind is not None and kind != U32:
            self._report(rule, m.index_not_u32(use, kind), op)

    @VISITORS.on(d.LoadOp)
    def visit_load(self, op: d.LoadOp) -> None:
        self._propagate_call_depth(op)
        name = op.buffer.data
        decl = self._buffer(name, "load from", op)
        result: DataTypeKind | None = None
        if decl is not None:
            element = _kind(decl.element)
            found = _kind(op.results[0].type)
            if element == DataTypeKind.BYTES:
                self._report("V013", m.bytes_buffer_operation(name), op)
            elif element is not None and found is not None and found != element:
                self._report("V130", m.load_result_type(name, found, element), op)
            else:
                result = element
        self._index(op.operands[0], "V122", "load", op)
        self._set_type(op, result)

    @VISITORS.on(d.BufLenOp)
    def visit_buf_len(self, op: d.BufLenOp) -> None:
        self._buffer(op.buffer.data, "buflen of", op)
        self._set_type(op, U32)

    @VISITORS.on(d.InvocationIdOp, d.WorkgroupIdOp, d.LocalIdOp)
    def visit_id(self, op: d.IdOp) -> None:
        if not 0 <= op.axis.data <= 2:
            self._report("V007", m.axis_out_of_range(op.axis.data), op)
        self._set_type(op, U32)

    @VISITORS.on(d.BinOp)
    def visit_binop(self, op: d.BinOp) -> None:
        _check_kind(op, op.kind.data, _BINOP_KINDS)
        self._propagate_call_depth(op)
        lhs, rhs = op.operands
        kinds = (self._type(lhs), self._type(rhs))
        if U128 in kinds:
            self._u128_binop(op, kinds)
            return
        for side, kind in zip(("left", "right"), kinds):
            if kind is not None and kind != U32:
                self._report("V021", m.binary_operand_not_u32(side, kind), op)
        self._set_type(op, U32)

    def _u128_binop(self, op: d.BinOp, kinds: tuple[DataTypeKind | None, ...]) -> None:
        """V144/V145 for a binary operation with a `u128` operand."""
        spelling = op.kind.data
        if spelling not in _U128_BINOP_KINDS:
            if spelling in _BINOP_KINDS:
                self._report("V145", m.u128_operator_undefined(spelling), op)
            self._set_type(op, U32)
            return
        other = next((kind for kind in kinds if kind is not None and kind != U128), None)
        if other is not None:
            self._report("V144", m.u128_operand_mix(spelling, other), op)
        self._set_type(op, _kind(d.binop_result_type(spelling, d.U128, d.U128)))

    @VISITORS.on(d.UnOp)
    def visit_unop(self, op: d.UnOp) -> None:
        _check_kind(op, op.kind.data, _UNOP_KINDS)
        self._propagate_call_depth(op)
        kind = self._type(op.operands[0])
        if kind == U128:
            if op.kind.data in _UNOP_KINDS and op.kind.data not in _U128_UNOP_KINDS:
                self._report("V145", m.u128_operator_undefined(op.kind.data), op)
        elif kind is not None and kind not in _UNARY_OPERAND_TYPES:
            self._report("V099", m.unary_operand_type(kind), op)
        self._set_type(op, None if kind is None else _kind(op.results[0].type))

    @VISITORS.on(d.SelectOp)
    def visit_select(self, op: d.SelectOp) -> None:
        self._propagate_call_depth(op)
        cond_value, true_value, false_value = op.operands
        cond = self._type(cond_value)
        if cond is not None and cond not in _CONDITION_TYPES:
            self._report("V029", m.select_condition_type(cond), op)
        if_true, if_false = self._type(true_value), self._type(false_value)
        if if_true is not None and if_false is not None and if_true != if_false:
            self._report("V029", m.select_arm_types(if_true, if_false), op)
        self._set_type(op, None if if_true is None else _kind(op.results[0].type))

    @VISITORS.on(d.CastOp)
    def visit_cast(self, op: d.CastOp) -> None:
        self._propagate_call_depth(op)
        source, target = self._type(op.operands[0]), _kind(op.results[0].type)
        if source is not None and target is not None:
            rule = rejected_cast_rule(source, target)
            if rule == "V023":
                self._report("V023", m.cast_to_bytes(), op)
            elif rule == "V012":
                self._report("V012", m.unsupported_cast(source, target), op)
        self._set_type(op, target)

    def _float_operands(self, op: Operation, spelling: str) -> DataTypeKind | None:
        """V140/V141 over the operands of a float op; their one float type, if any."""
        first: DataTypeKind | None = None
        ok = True
        for position, operand in enumerate(op.operands):
            kind = self._type(operand)
            if kind is None:
                ok = False
            elif not kind.is_float:
                self._report("V140", m.float_operand_not_float(spelling, position, kind), op)
                ok = False
            elif first is None:
                first = kind
            elif kind != first:
                self._report("V141", m.float_operand_types_differ(spelling, first, kind), op)
                ok = False
        return first if ok else None

    @VISITORS.on(d.FloatBinaryOp, d.FmaOp, d.FloatUnaryOp)
    def visit_float_arithmetic(self, op: d.FloatBinaryOp | d.FmaOp | d.FloatUnaryOp) -> None:
        self._propagate_call_depth(op)
        kind = self._float_operands(op, op.name.removeprefix("vyre."))
        if op.RESULT is not None:
            self._set_type(op, _kind(op.RESULT))
            return
        if isinstance(op, d.ApproximateUnaryOp) and kind is not None and kind is not DataTypeKind.F32:
            self._report("V143", m.approximate_operand_not_f32(op.name.removeprefix("vyre."), kind), op)
        self._set_type(op, kind)

    @VISITORS.on(d.FCmpOp)
    def visit_fcmp(self, op: d.FCmpOp) -> None:
        _check_kind(op, op.predicate, _FCMP_KINDS)
        self._propagate_call_depth(op)
        self._float_operands(op, "f" + op.predicate.data)
        self._set_type(op, DataTypeKind.BOOL)

    @VISITORS.on(d.BitcastOp)
    def visit_bitcast(self, op: d.BitcastOp) -> None:
        self._propagate_call_depth(op)
        source, target = self._type(op.operands[0]), _kind(op.results[0].type)
        if source is not None and target is not None and not d.bitcast_defined(source, target):
            self._report("V142", m.undefined_bitcast(source, target), op)
        self._set_type(op, target)

    @VISITORS.on(d.AtomicOp)
    def visit_atomic(self, op: d.AtomicOp) -> None:
        _check_kind(op, op.kind.data, _ATOMIC_KINDS)
        self._propagate_call_depth(op)
        name = op.buffer.data
        decl = self._buffer(name, "atomic on", op)
        if decl is not None:
            access = decl.access.data
            element = _kind(decl.element)
            if access == AccessKind.WORKGROUP.value:
                # Workgroup atomics are supported on U32 arrays (docs/kernels.md,
                # "Workgroup atomics": relaxed, per-workgroup, OOB index = no-op
                # returning 0). V025 now rejects only the workgroup buffers of other
                # element types, with its text and beside V014, as before.
                if element is not None and element != U32:
                    self._report("V025", m.atomic_on_non_writable(name), op)
            elif access != AccessKind.READ_WRITE.value:
                self._report("V009", m.atomic_on_non_writable(name), op)
            if element == DataTypeKind.BYTES:
                self._report("V013", m.bytes_buffer_operation(name), op)
            elif element is not None and element != U32:
                self._report("V014", m.atomic_non_u32_element(name, element), op)
        index, value, *expected = op.operands
        self._index(index, "V027", "atomic", op)
        value_kind = self._type(value)
        if value_kind is not None and value_kind != U32:
            self._report("V057", m.atomic_value_not_u32(value_kind), op)
        for operand in expected:
            expected_kind = self._type(operand)
            if expected_kind is not None and expected_kind != U32:
                self._report("V058", m.atomic_expected_not_u32(expected_kind), op)
        self._set_type(op, U32)

    @VISITORS.on(d.CallOp)
    def visit_call(self, op: d.CallOp) -> None:
        op_id = op.op_id.data
        argument_depth = max((self._call_depths.get(v, 0) for v in op.operands), default=0)
        registry = self.registry
        result: DataTypeKind | None = None
        if not registry.is_known(op_id):
            self._report("V016", m.unknown_op(op_id), op)
        elif not registry.is_inlinable(op_id):
            # the call itself must go (a kernel op is a whole pipeline): its
            # arguments and result type would only add noise to V020
            self._report("V020", m.non_inlinable_call(op_id), op)
        else:
            self._check_call_arguments(op, op_id)
            output, found = registry.output_kind(op_id), _kind(op.results[0].type)
            if output is not None and found is not None and found != output:
                self._report("V130", m.call_result_type(op_id, found, output), op)
            else:
                result = output
        total = argument_depth + registry.chain_depth(op_id)
        if total > m.MAX_CALL_DEPTH >= argument_depth:
            self._report("V017", m.call_depth_exceeded(), op)
        self._call_depths[op.results[0]] = total
        self._set_type(op, result)

    def _check_call_arguments(self, op: d.CallOp, op_id: str) -> None:
        inputs = self.registry.input_kinds(op_id)
        if inputs is None:
            return
        if len(op.operands) != len(inputs):
            signature = self.registry.signature_text(op_id)
            self._report(
                "V131", m.call_argument_count(op_id, len(op.operands), len(inputs), signature), op
            )
            return
        for position, (operand, expected) in enumerate(zip(op.operands, inputs, strict=True)):
            found = self._type(operand)
            if found is not None and found != expected:
                self._report("V132", m.call_argument_type(op_id, position, expected, found.value), op)

    # -- statements ---------------------------------------------------------------
    @VISITORS.on(d.LookupOp)
    def visit_lookup(self, op: d.LookupOp) -> None:
        self._propagate_call_depth(op)
        self._index(op.index, "V122", "lookup", op)
        self._set_type(op, U32)

    @VISITORS.on(d.InvokeOp)
    def visit_invoke(self, op: d.InvokeOp) -> None:
        name = op.callee.data
        routine = self.routines.get(name)
        if routine is None:
            self._report("V135", m.unknown_routine(name), op)
            self._set_type(op, None)
            return
        found = [self._type(arg) for arg in op.args]
        expected = [_kind(param.type) for param in routine.params]
        if found != expected and None not in found:
            self._report(
                "V136",
                m.routine_arguments(name, _kinds(found), _kinds(expected)),
                op,
            )
        self._set_type(op, _kind(routine.result_type))

    @VISITORS.on(d.YieldOp)
    def visit_yield(self, op: d.YieldOp) -> None:
        routine = op.parent_op()
        found = self._type(op.value)
        if isinstance(routine, d.RoutineOp) and found is not None:
            declared = _kind(routine.result_type)
            if declared is not None and found != declared:
                self._report(
                    "V138", m.routine_result(routine.sym_name.data, found.value, declared.value), op
                )

    @VISITORS.on(d.LetOp)
    def visit_let(self, op: d.LetOp) -> None:
        name = op.var_name.data
        self._declare(name, _Local(op, self._type(op.operands[0])), op)

    @VISITORS.on(d.AssignOp)
    def visit_assign(self, op: d.AssignOp) -> None:
        name = op.var_name.data
        local = self._live.get(name)
        if local is None:
            self._report("V006", m.assignment_to_undeclared(name), op)
            return
        self.bindings[op] = local.decl
        if local.is_loop_variable:
            self._report("V011", m.assignment_to_loop_variable(name), op)
            return
        found = self._type(op.operands[0])
        if local.kind is not None and found is not None and found != local.kind:
            self._report("V045", m.assign_type(name, found, local.kind), op)

    @VISITORS.on(d.StoreOp)
    def visit_store(self, op: d.StoreOp) -> None:
        name = op.buffer.data
        decl = self._buffer(name, "store to", op)
        element: DataTypeKind | None = None
        if decl is not None:
            if decl.access.data not in _WRITABLE:
                self._report("V005", m.store_to_non_writable(name), op)
            element = _kind(decl.element)
            if element == DataTypeKind.BYTES:
                self._report("V013", m.bytes_buffer_operation(name), op)
                element = None
        index, value_operand = op.operands
        self._index(index, "V122", "store", op)
        value = self._type(value_operand)
        if element is not None and value is not None and value != element:
            self._report("V121", m.store_value_type(name, value, element), op)

    @VISITORS.on(d.IfOp)
    def visit_if(self, op: d.IfOp) -> None:
        cond = self._type(op.operands[0])
        if cond is not None and cond not in _CONDITION_TYPES:
            self._report("V022", m.if_condition_type(cond), op)
        for region in op.regions:
            self._walk_scope(region.blocks)

    @VISITORS.on(d.LoopOp)
    def visit_loop(self, op: d.LoopOp) -> None:
        for bound in op.operands:
            kind = self._type(bound)
            if kind is not None and kind != U32:
                self._report("V015", m.loop_bound_not_u32(kind), op)
        name = op.var_name.data
        self._walk_scope(op.regions[0].blocks, (name, _Local(op, U32), op))

    @VISITORS.on(d.BlockOp)
    def visit_block(self, op: d.BlockOp) -> None:
        self._walk_scope(op.regions[0].blocks)

    @VISITORS.on(d.BarrierOp)
    def visit_barrier(self, op: d.BarrierOp) -> None:
        self._barrier_orders[op] = self._order

    @VISITORS.on(d.ReturnOp)
    def visit_return(self, op: d.ReturnOp) -> None:
        pass


_BINOP_KINDS = frozenset(kind.value for kind in d.BinOpKind)
_UNOP_KINDS = frozenset(kind.value for kind in d.UnOpKind)
_U128_BINOP_KINDS = frozenset(kind.value for kind in d.U128_BINOP_KINDS)
_U128_UNOP_KINDS = frozenset(kind.value for kind in d.U128_UNOP_KINDS)
_FCMP_KINDS = frozenset(d.FLOAT_PREDICATES)
_ATOMIC_KINDS = frozenset(kind.value for kind in d.AtomicOpKind)


def _kinds(kinds: list[DataTypeKind | None]) -> str:
    return ", ".join("?" if kind is None else kind.value for kind in kinds)


def _reaches(routines: dict[str, d.RoutineOp], start: str, target: str) -> bool:
    """Whether routine `start` invokes `target`, directly or through others."""
    seen: set[str] = set()
    pending = [start]
    while pending:
        routine = routines.get(pending.pop())
        if routine is None:
            continue
        for op in routine.entry.ops:
            if isinstance(op, d.InvokeOp):
                callee = op.callee.data
                if callee == target:
                    return True
                if callee not in seen:
                    seen.add(callee)
                    pending.append(callee)
    return False


def _check_kind(op: Operation, kind: object, known: frozenset[str]) -> None:
    """A kind the op does not have is malformed IR (only the generic form or
    `Operation.create` can make one): a ValueError naming it, as `validate` says."""
    spelling = kind.data if isinstance(kind, StringAttr) else kind
    if spelling not in known:
        raise ValueError(
            f"malformed vyre IR: '{op.name}' op: `{spelling}` is not one of its kinds"
            f" ({', '.join(sorted(known))})"
        )


_LITERAL_RANGES: dict[type[Operation], tuple[str, int, int]] = {
    d.LitU32Op: ("u32", 0, d.U32_MAX),
    d.LitI32Op: ("i32", -(2**31), 2**31 - 1),
    d.LitBoolOp: ("bool", 0, 1),
    d.LitU128Op: ("u128", 0, d.U128_MAX),
}


def literal_range_problem(op: Operation) -> str | None:
    """The V133 message of a literal its type cannot hold, else None."""
    found = _LITERAL_RANGES.get(type(op))
    if found is not None:
        spelling, low, high = found
        value = cast("d.LitU32Op", op).value.data
    elif isinstance(op, d.LitFloatOp) and isinstance(ty := op.results[0].type, d.DataTypeAttr):
        kind = _kind(ty)
        if kind is None or kind not in d.FLOAT_BITS:
            return None
        spelling, low, high = f"{kind.value} bit-pattern", 0, (1 << d.FLOAT_BITS[kind]) - 1
        value = op.bits.data
    else:
        return None
    return None if low <= value <= high else m.literal_out_of_range(spelling, value, low, high)

