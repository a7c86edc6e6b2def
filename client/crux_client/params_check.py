"""A job's params checked locally against the server's published schema (``JobStart``: one
typed alternative per kind, made from the kind's declared parameters), before anything is sent:
an unknown parameter, a wrong type, a value out of bounds or not among the choices."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crux_client.errors import ParamsRefused

JSON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "string": (str,),
    "array": (list, tuple),
    "null": (type(None),),
}


def kind_schemas(openapi: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each startable kind's ``params`` schema, from the OpenAPI document."""
    start = openapi["components"]["schemas"]["JobStart"]
    return {
        alternative["title"]: alternative["properties"].get("params") or {}
        for alternative in start.get("oneOf", [])
    }


def check_params(kind: str, params: Mapping[str, Any], schemas: Mapping[str, Any]) -> None:
    """Refuse (``ParamsRefused``, naming the parameter) what the server's schema refuses."""
    if kind not in schemas:
        raise ParamsRefused("kind", f"{kind!r} cannot be started; kinds: {', '.join(schemas)}")
    schema = schemas[kind]
    properties = schema.get("properties", {})
    for name, value in params.items():
        if name not in properties:
            raise ParamsRefused(
                name, f"unknown parameter of {kind}; it takes {', '.join(properties)}"
            )
        _check(name, value, properties[name])
    for name in schema.get("required", []):
        if name not in params:
            raise ParamsRefused(name, f"{kind} needs {name!r}")


def _is(value: Any, json_type: str) -> bool:
    if json_type in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, JSON_TYPES[json_type])


def _check(name: str, value: Any, schema: Mapping[str, Any]) -> None:
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else list(types)
    if types and not any(_is(value, t) for t in types):
        raise ParamsRefused(name, f"must be {' or '.join(types)}, got {value!r}")
    if value is None:
        return
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(str(c) for c in schema["enum"])
        raise ParamsRefused(name, f"must be one of {choices}, got {value!r}")
    if isinstance(value, list | tuple):
        if len(value) < schema.get("minItems", 0):
            raise ParamsRefused(name, f"needs at least {schema['minItems']} item(s)")
        for item in value:
            _check(name, item, schema.get("items", {}))
        return
    if isinstance(value, str) and len(value) > schema.get("maxLength", len(value)):
        raise ParamsRefused(name, f"is longer than {schema['maxLength']} characters")
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ParamsRefused(name, f"must be in {low}..{high}, got {value!r}")
        step = schema.get("multipleOf")
        if step is not None and abs(round(value / step) * step - value) > 1e-9:
            raise ParamsRefused(name, f"must be a multiple of {step}, got {value!r}")
