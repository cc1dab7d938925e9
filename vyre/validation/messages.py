"""The text of every validation rule, exactly as docs/validation.md writes it.

V001-V025 are vyre 0.4's rules. The type rules beyond them use the codes the
vyre 0.7 validator emits for the same problems:
V027, V029, V045, V057, V058, V099, V121, V122. The strict-float rules are vyre
extensions (no 0.7 code exists for them): V140 (a float operation's operand is
not a float), V141 (a float operation mixes float types), V142 (a bitcast
between types of different widths), V143 (an approximate op on a non-F32
value), V144 (a binary operation mixes `u128` with another type), V145 (an
operator that is not defined on `u128`), V133 (a literal its type cannot hold: the builder and the text
parser refuse one, this catches IR made otherwise), V134 (an op of another
dialect inside a kernel: no backend runs it), V135-V138 (routines: an
unknown routine, arguments that do not match, a routine that invokes itself,
a yielded type that is not the declared one). V130 (a result type annotated
in the text that disagrees with the declaration it reads) has no 0.7
counterpart: the Rust IR infers those types, the textual form spells them.
"""

from __future__ import annotations

from vyre.dialects.vyre import U32_MAX, DataTypeKind

PREFIX = "vyre IR validation: "
MAX_CALL_DEPTH = 32
MAX_NESTING_DEPTH = 64
MAX_NODE_COUNT = 100_000


def _text(problem: str, fix: str) -> str:
    return f"{PREFIX}{problem}. Fix: {fix}."


def duplicate_buffer(name: str) -> str:
    return _text(f"duplicate buffer name `{name}`", "each buffer must have a unique name")


def duplicate_binding(binding: int, name: str) -> str:
    return _text(
        f"duplicate binding slot {binding} (buffer `{name}`)",
        "each buffer must have a unique binding",
    )


def zero_workgroup_axis(axis: int) -> str:
    return _text(f"workgroup_size[{axis}] is 0", "all workgroup dimensions must be >= 1")


def workgroup_axis_too_large(axis: int, size: int) -> str:
    """V003's other bound: a workgroup dimension is a u32 (the builder, the text
    parser and the wire form refuse larger values; this catches IR made otherwise)."""
    return _text(
        f"workgroup_size[{axis}] is {size}, more than a u32 holds",
        f"all workgroup dimensions must be in [1, {U32_MAX}]",
    )


def literal_out_of_range(spelling: str, value: int, low: int, high: int) -> str:
    """V133 (vyre extension): a literal whose value its type cannot hold."""
    return _text(
        f"{spelling} literal {value} is out of range",
        f"a {spelling} literal is in [{low}, {high}]",
    )


def unknown_buffer(use: str, name: str) -> str:
    """`use` is `load from`, `buflen of`, `atomic on` or `store to`."""
    return _text(f"{use} unknown buffer `{name}`", "declare it in Program::buffers")


def store_to_non_writable(name: str) -> str:
    return _text(
        f"store to non-writable buffer `{name}`",
        "declare it with BufferAccess::ReadWrite or BufferAccess::Workgroup",
    )


def undeclared_variable(name: str) -> str:
    return _text(
        f"reference to undeclared variable `{name}`",
        f"add `let {name} = ...;` before this use",
    )


def assignment_to_undeclared(name: str) -> str:
    return _text(
        f"assignment to undeclared variable `{name}`",
        f"add `let {name} = ...;` before this assignment",
    )


def axis_out_of_range(axis: int) -> str:
    return _text(
        f"invocation/workgroup ID axis {axis} out of range", "use 0 (x), 1 (y), or 2 (z)"
    )


def duplicate_local(name: str) -> str:
    return _text(
        f"duplicate local binding `{name}`",
        "choose a unique local name; shadowing is not allowed",
    )


def atomic_on_non_writable(name: str) -> str:
    """V009 and V025 share this text. V025 fires only for a workgroup buffer whose
    element type is not U32 (vyre extends the core rule here: atomics on U32
    workgroup buffers are supported, docs/kernels.md "Workgroup atomics")."""
    return _text(
        f"atomic on non-writable buffer `{name}`", "declare it with BufferAccess::ReadWrite"
    )


def divergent_barrier() -> str:
    return _text(
        "barrier may be reached by only part of a workgroup",
        "move the barrier to uniform control flow",
    )


def assignment_to_loop_variable(name: str) -> str:
    return _text(f"assignment to loop variable `{name}`", "loop variables are immutable")


def unsupported_cast(source: DataTypeKind, target: DataTypeKind) -> str:
    return _text(
        f"unsupported cast from `{source.value}` to `{target.value}`",
        'use a conversion of the cast table (docs/semantics.md, "Casts")',
    )


def bytes_buffer_operation(name: str) -> str:
    return _text(
        f"operation on buffer `{name}` with element type `bytes` is not supported",
        "use a typed buffer",
    )


def atomic_non_u32_element(name: str, element: DataTypeKind) -> str:
    return _text(
        f"atomic on buffer `{name}` with non-u32 element type `{element.value}`",
        "atomics only support U32 elements",
    )


def loop_bound_not_u32(found: DataTypeKind) -> str:
    return _text(
        f"loop bound expression must be `u32`, got `{found.value}`",
        "ensure `from` and `to` are U32",
    )


def unknown_op(op_id: str) -> str:
    return _text(
        f"V016: unknown op `{op_id}`",
        "use a registered op id or add the op to core::ops::*",
    )


def call_depth_exceeded() -> str:
    return _text(
        f"V017: call depth exceeds maximum of {MAX_CALL_DEPTH}",
        "reduce call nesting or mutually recursive operations",
    )


def nesting_depth_exceeded(depth: int) -> str:
    return _text(
        f"V018: program nesting depth {depth} exceeds max {MAX_NESTING_DEPTH}",
        "flatten nested If/Loop/Block structures or split the program before lowering",
    )


def node_count_exceeded() -> str:
    return _text(
        f"V019: program has more than {MAX_NODE_COUNT} statement nodes",
        "split the program into smaller kernels or run an optimization pass before lowering",
    )


def non_inlinable_call(op_id: str) -> str:
    return _text(
        f"V020: call to non-inlinable op `{op_id}` is rejected by validation",
        "lower this operation through its dedicated backend path or rewrite the caller"
        " with explicit IR",
    )


def binary_operand_not_u32(side: str, found: DataTypeKind) -> str:
    """`side` is `left` or `right`."""
    return _text(
        f"binary operation {side} operand must be `u32`, got `{found.value}`",
        "cast or rewrite the operand to produce U32",
    )


def if_condition_type(found: DataTypeKind) -> str:
    return _text(
        f"if condition must be `u32` or `bool`, got `{found.value}`",
        "cast or rewrite the condition to produce U32 or Bool",
    )


def cast_to_bytes() -> str:
    return _text(
        "V023: cast to Bytes is unsupported in WGSL lowering",
        "use buffer load/store directly for byte data",
    )


def zero_count_workgroup_buffer(name: str) -> str:
    return _text(
        f"workgroup buffer `{name}` has count 0", "declare a positive element count"
    )


# -- type rules beyond V001-V025 (0.7 codes) --------------------------------


def index_not_u32(use: str, found: DataTypeKind) -> str:
    """`use` is `load`, `store` (V122) or `atomic` (V027)."""
    return _text(
        f"{use} index must be `u32`, got `{found.value}`", "cast the index to U32"
    )


def store_value_type(name: str, found: DataTypeKind, element: DataTypeKind) -> str:
    return _text(
        f"store value type `{found.value}` does not match element type `{element.value}`"
        f" of buffer `{name}`",
        f"cast the stored value to `{element.value}`",
    )


def atomic_value_not_u32(found: DataTypeKind) -> str:
    return _text(f"atomic value must be `u32`, got `{found.value}`", "cast the value to U32")


def atomic_expected_not_u32(found: DataTypeKind) -> str:
    return _text(
        f"compare-exchange expected value must be `u32`, got `{found.value}`",
        "cast the expected value to U32",
    )


def select_condition_type(found: DataTypeKind) -> str:
    return _text(
        f"select condition must be `u32` or `bool`, got `{found.value}`",
        "cast or rewrite the condition to produce U32 or Bool",
    )


def select_arm_types(if_true: DataTypeKind, if_false: DataTypeKind) -> str:
    return _text(
        f"select arms must have the same type, got `{if_true.value}` and `{if_false.value}`",
        "cast one arm to the type of the other",
    )


def assign_type(name: str, found: DataTypeKind, declared: DataTypeKind) -> str:
    return _text(
        f"assignment to `{name}` has type `{found.value}` but the variable is declared"
        f" `{declared.value}`",
        f"cast the assigned value to `{declared.value}`",
    )


def unary_operand_type(found: DataTypeKind) -> str:
    return _text(
        f"unary operation operand must be `u32`, `i32` or `bool`, got `{found.value}`",
        "cast the operand to U32 or I32",
    )


def variable_read_type(name: str, found: DataTypeKind, declared: DataTypeKind) -> str:
    return _text(
        f"variable `{name}` is read as `{found.value}` but has type `{declared.value}`",
        f"read it as `{declared.value}`",
    )


def load_result_type(name: str, found: DataTypeKind, element: DataTypeKind) -> str:
    return _text(
        f"load from buffer `{name}` yields `{found.value}` but its element type is"
        f" `{element.value}`",
        f"load it as `{element.value}`",
    )


def foreign_op_in_kernel(op_name: str, kernel: str) -> str:
    """V134 (vyre extension): an op of another dialect inside a kernel's body."""
    return _text(
        f"`{op_name}` inside kernel `{kernel}` is not a vyre operation",
        "convert it to vyre ops (vyre-opt -p convert-to-vyre converts func/scf/arith/memref "
        "kernels) or move it out of the kernel",
    )


def inferred_result_type(op_name: str, found: str, inferred: str) -> str:
    """V130: an op whose result type it defines itself carries another one."""
    return _text(
        f"`{op_name}` yields `{found}` but the op defines its result as `{inferred}`",
        f"build the op with its own result type `{inferred}`",
    )


def call_argument_count(op_id: str, found: int, arity: int, signature: str) -> str:
    """V131 (vyre extension): a call passes the wrong number of arguments."""
    return _text(
        f"call to `{op_id}` passes {found} argument(s) but the op takes {arity}",
        f"call it as {op_id}{signature}",
    )


def call_argument_type(op_id: str, position: int, expected: DataTypeKind, found: str) -> str:
    """V132 (vyre extension): a call argument of the wrong type (`found` as spelled)."""
    return _text(
        f"argument {position} of the call to `{op_id}` must be `{expected.value}`, got `{found}`",
        f"cast the argument to {expected.value}",
    )


def call_result_type(op_id: str, found: DataTypeKind, output: DataTypeKind) -> str:
    return _text(
        f"call to `{op_id}` yields `{found.value}` but the op returns `{output.value}`",
        f"declare the call's result as `{output.value}`",
    )


def float_operand_not_float(operation: str, position: int, found: DataTypeKind) -> str:
    """V140; `operation` is the op's spelling (`fadd`, `flt`, `fma`, `fsqrt`, ...)."""
    return _text(
        f"float operation `{operation}` operand {position} must be `f32`, `f16` or `bf16`,"
        f" got `{found.value}`",
        "convert it with E.cast(DataType.F32, x) or reinterpret its bits with E.bitcast",
    )


def float_operand_types_differ(operation: str, first: DataTypeKind, other: DataTypeKind) -> str:
    """V141."""
    return _text(
        f"float operation `{operation}` mixes `{first.value}` and `{other.value}` operands",
        f"cast the `{other.value}` operand to `{first.value}` so all operands have one float type",
    )


def undefined_bitcast(source: DataTypeKind, target: DataTypeKind) -> str:
    """V142."""
    return _text(
        f"bitcast from `{source.value}` to `{target.value}` is not defined",
        "bitcast between f32, u32 and i32, or between f16/bf16 and u32/i32 (the low 16"
        " bits); convert values with a cast",
    )


def approximate_operand_not_f32(operation: str, found: DataTypeKind) -> str:
    """V143."""
    return _text(
        f"approximate operation `{operation}` takes `f32`, got `{found.value}`",
        "cast the operand to f32 (approximate operations run on the native f32 unit)",
    )


def unknown_routine(name: str) -> str:
    """V135 (vyre extension): an invoke of a routine the module does not define."""
    return _text(
        f"invoke of unknown routine `@{name}`",
        f"define `vyre.routine @{name}` beside the kernel, or call a library op instead",
    )


def routine_arguments(name: str, found: str, expected: str) -> str:
    """V136 (vyre extension): an invoke whose arguments do not match the routine's parameters."""
    return _text(
        f"invoke of `@{name}` passes ({found}) but the routine takes ({expected})",
        f"pass one argument of each parameter's type to `@{name}`",
    )


def recursive_routine(name: str) -> str:
    """V137 (vyre extension): a routine that invokes itself, directly or through others."""
    return _text(
        f"routine `@{name}` invokes itself",
        "routines are straight-line code: write the repetition as a loop in the kernel",
    )


def routine_result(name: str, found: str, declared: str) -> str:
    """V138 (vyre extension): a routine yields a value of another type than it declares."""
    return _text(
        f"routine `@{name}` yields a `{found}` value but declares `{declared}`",
        f"yield a `{declared}` value (cast it) or declare the routine `-> {found}`",
    )


def u128_operand_mix(operation: str, found: DataTypeKind) -> str:
    """V144 (vyre extension): a binary operation with a `u128` operand and an operand
    of another type (`operation` is the operator's spelling)."""
    return _text(
        f"binary operation `{operation}` mixes `u128` and `{found.value}` operands",
        f"cast the `{found.value}` operand to u128 (both operands of a u128 operation are"
        " `u128`, the shift amount too)",
    )


def u128_operator_undefined(operation: str) -> str:
    """V145 (vyre extension): an operator that `u128` does not have (`and`, `or`,
    `dot4_i8`, `mul_high`, `negate`, `logical_not`, `reverse_bits`)."""
    return _text(
        f"operation `{operation}` is not defined on `u128`",
        "use the arithmetic, bitwise, shift and comparison operators or bit_not, popcount,"
        " clz and ctz (a negation is a sub from 0, a truth value a ne with 0)",
    )
