"""The API fuzzer: the public Python API with wrong arguments.

Each input is a small JSON case: a public callable (by name) and its positional
and keyword arguments drawn, by name, from a pool of plausible and hostile
values (None, wrong types, negative, huge, NaN, empty, nested wrong Exprs,
numpy arrays of odd dtypes and shapes...). Most arguments are kept valid so
that the call gets past the first check.

The oracle: the call returns, or raises `TypeError`/`ValueError` (their
subclasses: `VyreParseError`, `ValidationError`, `WireError`,
`InterpBudgetError`...), or `KeyError` where the API promises it (an unknown
op id). Any other exception (AttributeError, IndexError, AssertionError,
OverflowError, RecursionError...) is a failure.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.testing.fuzz.shrink import ddmin

__all__ = ["ApiFuzzer", "CALLS", "VALUES"]


def _values() -> dict[str, Callable[[], object]]:
    from vyre.ir import BinOp, BufferAccess, BufferDecl, DataType, UnOp
    from vyre.ir import Expr as E
    from vyre.ir import Node as N

    return {
        "none": lambda: None,
        "zero": lambda: 0,
        "one": lambda: 1,
        "minus_one": lambda: -1,
        "huge": lambda: 2**64,
        "u32_max": lambda: 0xFFFF_FFFF,
        "true": lambda: True,
        "float": lambda: 1.5,
        "nan": lambda: math.nan,
        "inf": lambda: math.inf,
        "empty_str": lambda: "",
        "name": lambda: "a",
        "odd_name": lambda: "a b\n\"c",
        "bytes": lambda: b"\x00\xff",
        "empty_list": lambda: [],
        "list_none": lambda: [None],
        "dict": lambda: {},
        "bad_dict": lambda: {1: 2},
        "object": lambda: object(),
        "tuple3": lambda: (1, 1, 1),
        "tuple2": lambda: (1, 1),
        "tuple_neg": lambda: (-1, 1, 1),
        "tuple_float": lambda: (1.5, 1, 1),
        "tuple_huge": lambda: (2**40, 1, 1),
        "dtype_u32": lambda: DataType.U32,
        "dtype_f32": lambda: DataType.F32,
        "dtype_bytes": lambda: DataType.BYTES,
        "access_rw": lambda: BufferAccess.READ_WRITE,
        "binop": lambda: BinOp.ADD,
        "unop": lambda: UnOp.NEGATE,
        "expr": lambda: E.u32(1),
        "expr_f32": lambda: E.f32(1.0),
        "node": lambda: N.return_(),
        "nodes": lambda: [N.store("out", E.u32(0), E.u32(1))],
        "bad_nodes": lambda: [E.u32(1)],
        "decl": lambda: BufferDecl.read_write("out", 0, DataType.U32),
        "decls": lambda: [BufferDecl.read_write("out", 0, DataType.U32)],
        "program": lambda: _program(),
        "program_text": lambda: "vyre.kernel @k workgroup_size(1, 1, 1) {\n}\n",
        "blob": lambda: _program().to_wire(),
        "array_u32": lambda: np.arange(4, dtype=np.uint32),
        "array_f64": lambda: np.arange(4, dtype=np.float64),
        "array_2d": lambda: np.zeros((2, 2), dtype=np.uint32),
        "array_empty": lambda: np.zeros(0, dtype=np.uint32),
        "array_obj": lambda: np.array([None, 1], dtype=object),
        "inputs": lambda: {"out": np.zeros(4, dtype=np.uint32)},
        "bad_inputs": lambda: {"nope": np.zeros(4, dtype=np.uint32)},
        "outputs": lambda: {"out": 4},
        "bad_outputs": lambda: {"out": -4},
        "interp": lambda: "interp",
        "op_id": lambda: "primitive.math.add",
        "bad_op_id": lambda: "primitive.math.nope",
        "args2": lambda: [np.arange(4, dtype=np.uint32), np.arange(4, dtype=np.uint32)],
        "args_ragged": lambda: [np.arange(4, dtype=np.uint32), np.arange(3, dtype=np.uint32)],
        "exprs": lambda: [E.u32(1), E.u32(2)],
        "generic": lambda: True,
    }


def _program() -> Any:
    from vyre.ir import BufferDecl, DataType, Program
    from vyre.ir import Expr as E
    from vyre.ir import Node as N

    return Program(
        [BufferDecl.read_write("out", 0, DataType.U32)],
        (1, 1, 1),
        [N.store("out", E.gid_x(), E.u32(7))],
    )


def _calls() -> dict[str, Callable[..., object]]:
    from vyre import ops, pipeline
    from vyre.ir import parse_ir, print_ir
    from vyre.runtime import api as runtime_api
    from vyre.kernels.evaluate import evaluate
    from vyre.validate import validate
    from vyre.ir import BufferDecl, Program
    from vyre.ir import Expr as E
    from vyre.ir import Node as N

    calls: dict[str, Callable[..., object]] = {
        "vyre.validate": validate,
        "vyre.print_ir": print_ir,
        "vyre.parse_ir": parse_ir,
        "vyre.lower_to_wgsl": pipeline.lower_to_wgsl,
        "vyre.run": lambda *a, **k: runtime_api.run(*a, **{"backend": "interp", **k}),
        "Program": Program,
        "Program.from_wire": Program.from_wire,
        "BufferDecl": BufferDecl,
        "BufferDecl.read": BufferDecl.read,
        "BufferDecl.read_write": BufferDecl.read_write,
        "BufferDecl.uniform": BufferDecl.uniform,
        "BufferDecl.workgroup": BufferDecl.workgroup,
        "BufferDecl.storage": BufferDecl.storage,
        "ops.get": ops.get,
        "ops.evaluate": lambda *a, **k: evaluate(*a, **{"backend": "interp", **k}),
    }
    for name in dir(E):
        member = getattr(E, name)
        if not name.startswith("_") and callable(member):
            calls[f"E.{name}"] = member
    for name in dir(N):
        member = getattr(N, name)
        if not name.startswith("_") and callable(member):
            calls[f"N.{name}"] = member
    return calls


VALUES = cache(_values)
CALLS = cache(_calls)

_TEMPLATES: dict[str, list[str]] = {
    "vyre.validate": ["program"],
    "vyre.print_ir": ["program"],
    "vyre.parse_ir": ["program_text"],
    "vyre.lower_to_wgsl": ["program"],
    "vyre.run": ["program", "inputs"],
    "Program": ["decls", "tuple3", "nodes"],
    "Program.from_wire": ["blob"],
    "BufferDecl": ["name", "zero", "access_rw", "dtype_u32", "zero"],
    "BufferDecl.read": ["name", "zero", "dtype_u32"],
    "BufferDecl.read_write": ["name", "zero", "dtype_u32"],
    "BufferDecl.uniform": ["name", "zero", "dtype_u32"],
    "BufferDecl.workgroup": ["name", "one", "dtype_u32"],
    "BufferDecl.storage": ["name", "zero", "access_rw", "dtype_u32"],
    "ops.get": ["op_id"],
    "ops.evaluate": ["op_id", "args2"],
}
_PARAMETER_VALUES: dict[str, str] = {
    "value": "one", "name": "name", "buf": "name", "var": "name", "axis": "zero",
    "op": "binop", "target": "dtype_u32", "dtype": "dtype_f32", "bits": "zero",
    "then": "nodes", "otherwise": "nodes", "body": "nodes", "args": "exprs",
    "op_id": "op_id", "result": "none", "expected": "none",
}  # fmt: skip
"""A valid value by parameter name (anything else: an Expr)."""


def _template(call: str) -> list[str]:
    """Arguments under which `call` succeeds (most of the time)."""
    if call in _TEMPLATES:
        return list(_TEMPLATES[call])
    import inspect

    parameters = inspect.signature(CALLS()[call]).parameters.values()
    names = [_PARAMETER_VALUES.get(p.name, "expr") for p in parameters if p.default is p.empty]
    if call == "E.unop":
        names[0] = "unop"
    return names

_ALLOWED: tuple[type[BaseException], ...] = (TypeError, ValueError)
_KEY_ERROR_CALLS = frozenset({"ops.get", "ops.evaluate"})


class ApiFuzzer:
    name = "api"
    extension = "json"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def generate(self, index: int) -> bytes:
        rng = random.Random(f"api:{self.seed}:{index}")
        call = rng.choice(sorted(CALLS()))
        names = sorted(VALUES())
        args = _template(call)
        for _ in range(rng.choice((0, 1, 1, 1, 2))):  # most calls get one wrong argument
            if args and rng.random() < 0.85:
                args[rng.randrange(len(args))] = rng.choice(names)
            elif rng.random() < 0.5 and args:
                del args[rng.randrange(len(args))]
            else:
                args.append(rng.choice(names))
        kwargs: dict[str, str] = {}
        if call == "vyre.run":
            kwargs["dispatch"] = rng.choice(("tuple3",) * 4 + ("tuple2", "tuple_neg", "tuple_huge", "none", "tuple_float", "one"))
            if rng.random() < 0.5:
                kwargs["outputs"] = rng.choice(("outputs", "bad_outputs", "dict", "bad_dict", "none", "name"))
        if call == "vyre.print_ir" and rng.random() < 0.3:
            kwargs["generic"] = rng.choice(("generic", "none", "one", "name"))
        return json.dumps({"call": call, "args": args, "kwargs": kwargs}, sort_keys=True).encode()

    def check(self, data: bytes) -> None:
        case = json.loads(data)
        function = CALLS()[case["call"]]
        values = VALUES()
        args = [values[name]() for name in case["args"]]
        kwargs: dict[str, Any] = {key: values[name]() for key, name in case["kwargs"].items()}
        allowed = _ALLOWED + ((KeyError,) if case["call"] in _KEY_ERROR_CALLS else ())
        try:
            function(*args, **kwargs)
        except allowed:
            return

    def shrink(self, data: bytes, still_fails: Callable[[bytes], bool]) -> bytes:
        case = json.loads(data)

        def encode(args: list[str]) -> bytes:
            return json.dumps({**case, "args": args}, sort_keys=True).encode()

        return encode(ddmin(case["args"], lambda args: still_fails(encode(list(args)))))
