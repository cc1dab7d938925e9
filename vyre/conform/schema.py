"""JSON Schemas of the conformance files, and the small validator that checks them.

The schemas are JSON Schema documents (draft 2020-12 keywords): `CERTIFICATE`,
`CHECKPOINT_HEADER`, `CHECKPOINT_RECORD`, `CORPUS_ENTRY`, `FLOAT_CHUNK` (a
line of a float campaign's checkpoint), `FLOAT_TRUTH_HEADER` and
`FLOAT_TRUTH_CHUNK` (the lines of a float campaign's truth file) and `SHARD`
(what `merge` reads of a shard certificate beyond `CERTIFICATE`). vyre checks
them with its own validator of the keywords they use (type, required,
properties, additionalProperties, items, enum, pattern, minimum, maximum,
minLength, minItems, maxItems) rather than depend on `jsonschema` at run time;
`problems()` returns every violation as "<json pointer>: <what>", and
`parse_line` reads one JSON line against a schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, cast

from vyre.conform.kinds import Level, ObligationStrength, Target

__all__ = [
    "CERTIFICATE", "CHECKPOINT_HEADER", "CHECKPOINT_RECORD", "CORPUS_ENTRY", "FLOAT_CHUNK",
    "FLOAT_TRUTH_CHUNK", "FLOAT_TRUTH_HEADER", "SHARD", "first_problem", "parse_line", "problems",
]

Schema = Mapping[str, Any]

_U32 = {"type": "integer", "minimum": 0, "maximum": 0xFFFF_FFFF}
_U32_LIST = {"type": "array", "items": _U32}
_STR = {"type": "string"}
_HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_NULL_STR = {"type": ["string", "null"]}
_TARGET = {"enum": [t.value for t in Target]}

_RESULT = {
    "type": "object",
    "required": ["check"],
    "properties": {
        "check": _STR, "law": _NULL_STR, "target": _TARGET, "domain": _STR,
        "cases": {"type": "integer", "minimum": 0}, "violations": {"type": "integer", "minimum": 0},
        "first": {"type": ["integer", "null"]},
        "counterexample": {"type": ["array", "null"], "items": {"type": "integer"}},
        "raw": {"type": ["array", "null"], "items": {"type": "integer"}},
        "detail": _NULL_STR, "error": _NULL_STR, "proof": {"type": "object"},
    },
}

CHECKPOINT_HEADER: Schema = {
    "type": "object",
    "required": ["format", "plan"],
    "properties": {"format": {"enum": ["vyre-conform-checkpoint/1"]}, "plan": _HEX64},
}

CHECKPOINT_RECORD: Schema = {
    "type": "object",
    "required": ["key", "results"],
    "properties": {"key": {"type": "string", "minLength": 1}, "results": {"type": "array", "items": _RESULT}},
}

CORPUS_ENTRY: Schema = {
    "type": "object",
    "required": ["op", "check", "target", "inputs"],
    "properties": {
        "op": {"type": "string", "minLength": 1},
        "check": {"type": "string", "pattern": r"^(reference|parity|determinism|oracle|law:[A-Za-z]+)$"},
        "target": {"enum": ["reference", "backend"]},
        "inputs": {"type": "array", "minItems": 1, "items": _U32},
        "law": _NULL_STR,
        "op_version": {"type": "integer", "minimum": 1},
        "backend": _STR, "suite_version": _STR, "found": _STR,
    },
}

_COUNT = {"type": "integer", "minimum": 0}

FLOAT_CHUNK: Schema = {
    "type": "object",
    "required": ["campaign", "start", "length", "mismatches", "first", "seconds"],
    "properties": {
        "campaign": {"type": "string", "minLength": 1}, "start": _COUNT, "length": _COUNT,
        "mismatches": _COUNT, "first": {"type": "array", "items": _U32_LIST},
        "seconds": {"type": "number", "minimum": 0}, "device": _STR,
    },
}

FLOAT_TRUTH_HEADER: Schema = {
    "type": "object",
    "required": ["truth", "campaign", "scheme", "oracle", "vyre", "commit", "digest"],
    "properties": {
        "truth": {"enum": ["vyre-float-truth/1"]}, "campaign": {"type": "string", "minLength": 1},
        "scheme": {"type": "string", "minLength": 1}, "oracle": _STR, "vyre": _STR, "commit": _STR,
        "digest": _HEX64,
    },
    "additionalProperties": False,
}

FLOAT_TRUTH_CHUNK: Schema = {
    "type": "object",
    "required": ["campaign", "start", "length", "sums", "digest"],
    "properties": {
        "campaign": {"type": "string", "minLength": 1}, "start": _COUNT, "length": {"type": "integer", "minimum": 1},
        "sums": {**_U32_LIST, "minItems": 2, "maxItems": 2},
        "digest": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
    },
    "additionalProperties": False,
}

_FAILURE = {
    "type": "object",
    "required": ["op_id", "check", "target", "counterexample", "fix"],
    "properties": {
        "op_id": _STR, "check": _STR, "law": _NULL_STR, "target": _TARGET, "domain": _STR,
        "counterexample": {"type": "array", "items": {"type": "integer"}},
        "raw_counterexample": {"type": "array", "items": {"type": "integer"}},
        "violations": {"type": "integer", "minimum": 0}, "cases": {"type": "integer", "minimum": 0},
        "detail": _STR, "fix": {"type": "string", "pattern": "^Fix: "},
    },
}

_OBLIGATION = {
    "type": "object",
    "required": ["op_id", "check", "strength", "detail"],
    "properties": {
        "op_id": _STR, "check": _STR, "detail": _STR, "holds": {"type": "boolean"},
        "strength": {"enum": [s.value for s in ObligationStrength]},
    },
}

_LEVEL = {"enum": [level.value for level in Level]}

CERTIFICATE: Schema = {
    "type": "object",
    "required": [
        "format", "suite_version", "backend", "level", "strength", "ops", "registry",
        "failures", "content_digest",
    ],
    "properties": {
        "format": {"enum": ["vyre-conform-certificate/1", "vyre-conform-shard/1"]},
        "suite_version": _STR,
        "backend": {"type": "object", "required": ["id"], "properties": {"id": _STR}},
        "level": _LEVEL,
        "strength": {"type": "object", "required": ["name"], "properties": {"name": _STR}},
        "seeds": {"type": "object"},
        "checks_run": {"type": "array", "items": _STR},
        "ops": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "outcome", "level"],
                "properties": {"id": _STR, "version": {"type": "integer"}, "outcome": _STR, "level": _LEVEL,
                               "reason": _STR, "category": _STR, "signature": _STR},
            },
        },
        "unsupported_ops": {"type": "array", "items": _STR},
        "registry": {
            "type": "object", "required": ["ops", "hash"],
            "properties": {"ops": {"type": "array", "items": _STR}, "hash": _HEX64},
        },
        "coverage": {"type": "array", "items": {"type": "object"}},
        "law_results": {"type": "array", "items": {"type": "object", "required": ["op", "law", "verdict"]}},
        "checks": {"type": "object"},
        "independence": {"type": "array", "items": {"type": "object"}},
        "failures": {"type": "array", "items": _FAILURE},
        "obligations": {"type": "array", "items": _OBLIGATION},
        "regression_count": {"type": "integer", "minimum": 0},
        "plan": {"type": "object"},
        "content_digest": _HEX64,
        "run": {"type": "object"},
    },
}

SHARD: Schema = {
    "type": "object",
    "required": ["shard", "plan_full", "units", "run"],
    "properties": {
        "shard": {
            "type": "object", "required": ["index", "count"],
            "properties": {"index": {"type": "integer", "minimum": 0}, "count": {"type": "integer", "minimum": 1}},
        },
        "plan_full": {
            "type": "object", "required": ["digest", "units"],
            "properties": {"digest": _HEX64, "units": {"type": "array", "items": {"type": "array"}}},
        },
        "units": {"type": "object"},
        "run": {
            "type": "object", "required": ["duration_s"],
            "properties": {"duration_s": {"type": "number", "minimum": 0}},
        },
    },
}

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "integer": (int,), "number": (int, float),
    "boolean": (bool,), "null": (type(None),),
}


def _is(value: object, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[name])


def problems(value: object, schema: Schema, where: str = "") -> list[str]:
    """Every way `value` breaks `schema` ([] when it conforms)."""
    found: list[str] = []
    here = where or "/"
    kinds = schema.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else list(cast("list[str]", kinds))
        if not any(_is(value, n) for n in names):
            return [f"{here}: expected {' or '.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{here}: {value!r} is not one of {list(schema['enum'])}")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            found.append(f"{here}: {value[:60]!r} does not match {schema['pattern']}")
        if len(value) < int(schema.get("minLength", 0)):
            found.append(f"{here}: shorter than {schema['minLength']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            found.append(f"{here}: {value} is below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            found.append(f"{here}: {value} is above {schema['maximum']}")
    if isinstance(value, dict):
        document = cast("dict[str, Any]", value)
        for key in schema.get("required", ()):
            if key not in document:
                found.append(f"{here}: missing `{key}`")
        properties: Mapping[str, Any] = schema.get("properties", {})
        for key, item in document.items():
            if key in properties:
                found.extend(problems(item, properties[key], f"{where}/{key}"))
            elif schema.get("additionalProperties") is False:
                found.append(f"{here}: unexpected `{key}`")
    if isinstance(value, list):
        items = cast("list[Any]", value)
        if len(items) < int(schema.get("minItems", 0)):
            found.append(f"{here}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(items) > int(schema["maxItems"]):
            found.append(f"{here}: more than {schema['maxItems']} items")
        if "items" in schema:
            for index, item in enumerate(items):
                found.extend(problems(item, schema["items"], f"{where}/{index}"))
    return found


def first_problem(value: object, schema: Schema) -> str | None:
    found = problems(value, schema)
    return found[0] + (f" (and {len(found) - 1} more)" if len(found) > 1 else "") if found else None


def parse_line(line: str, schema: Schema) -> dict[str, Any] | str:
    """The JSON object of one line of a JSON-lines file, checked against `schema`,
    or what is wrong with it."""
    try:
        value: object = json.loads(line)
    except json.JSONDecodeError as error:
        return f"not JSON ({error.msg} at column {error.colno})"
    problem = first_problem(value, schema)
    if problem is not None:
        return problem
    return cast("dict[str, Any]", value)
