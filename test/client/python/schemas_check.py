"""Compares mds_client's response TypedDicts with the response schemas of the served OpenAPI document.

Usage: python schemas_check.py <base url>. Prints a JSON list of the
differences (empty when every key, required key, type, nullability and enum
agrees), walking each 200 JSON schema and the error envelope alongside the
TypedDict that mirrors it ($refs resolved, so component names do not matter;
a nullable is `anyOf` with null or a type list with "null").
"""

import json
import sys
import typing
import urllib.request
from typing import Any, List, Literal, Set, Tuple, Union, get_args, get_origin, get_type_hints

import mds_client

OPERATIONS = {
    "/v1/assets": "AssetsResponse",
    "/v1/rates/latest": "RatesLatestResponse",
    "/v1/rates/history": "RatesHistoryResponse",
    "/v1/convert": "ConvertResponse",
    "/v1/market/premium": "MarketPremiumResponse",
    "/v1/market/premium/history": "MarketPremiumHistoryResponse",
    "/v1/gold/latest": "GoldLatestResponse",
    "/v1/gold/history": "GoldHistoryResponse",
    "/v1/me": "MeResponse",
    "/v1/usage/daily": "DailyUsageResponse",
}
PRIMITIVES = {"string": str, "integer": int, "number": float, "null": type(None), "boolean": bool}

doc: Any = json.load(urllib.request.urlopen(sys.argv[1] + "/openapi.json"))
problems: List[str] = []


def resolve(schema: Any) -> Any:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].split("/")[-1]]
    return schema


def enum_values(schema: Any) -> Union[Set[Any], None]:
    """The values of an enum, or of an anyOf of enums; None when the schema is not one."""
    schema = resolve(schema)
    if "enum" in schema:
        return set(schema["enum"])
    if "anyOf" in schema:
        parts = [enum_values(v) for v in schema["anyOf"]]
        if parts and all(p is not None for p in parts):
            return set().union(*[p for p in parts if p is not None])
    return None


def split_optional(hint: Any) -> Tuple[bool, Any]:
    if get_origin(hint) is Union:
        args = get_args(hint)
        rest = tuple(a for a in args if a is not type(None))
        return len(rest) < len(args), (rest[0] if len(rest) == 1 else Union[rest])  # type: ignore[valid-type]
    return False, hint


def compare(schema: Any, hint: Any, where: str, loose_enums: bool) -> None:
    schema = resolve(schema)
    kind = schema.get("type")
    if isinstance(kind, list):
        # A nullable written as a type list (`["string", "null"]`, its enum listing null too).
        others = [t for t in kind if t != "null"]
        nullable, rest = split_optional(hint)
        if nullable != ("null" in kind):
            problems.append(f"{where}: nullable {'null' in kind} but {hint}")
        if len(others) != 1:
            problems.append(f"{where}: type {kind}")
            return
        inner = dict(schema, type=others[0])
        if "enum" in inner:
            inner["enum"] = [v for v in inner["enum"] if v is not None]
        compare(inner, rest, where, loose_enums)
        return
    values = enum_values(schema)
    if values is not None and type(None) not in values:
        if get_origin(hint) is Literal:
            if set(get_args(hint)) != values:
                problems.append(f"{where}: enum {sorted(values)} but Literal{list(get_args(hint))}")
        elif not (loose_enums and hint is str):
            problems.append(f"{where}: enum {sorted(values)} but {hint}")
        return
    if "anyOf" in schema:
        variants = [resolve(v) for v in schema["anyOf"]]
        non_null = [v for v in variants if v.get("type") != "null"]
        nullable, rest = split_optional(hint)
        if nullable != (len(non_null) < len(variants)):
            problems.append(f"{where}: nullable {len(non_null) < len(variants)} but {hint}")
        if len(non_null) != 1:
            # A union of records (a history page's plain records or intervals, docs/decisions.md 133):
            # each of the client's page types holds one of them.
            if all(v.get("type") == "object" and "properties" in v for v in non_null) and not nullable:
                if not any(agrees(v, rest, where, loose_enums) for v in non_null):
                    problems.append(f"{where}: {rest} is none of the anyOf's {len(non_null)} records")
                return
            problems.append(f"{where}: anyOf of {len(non_null)} non-null schemas")
            return
        compare(non_null[0], rest, where, loose_enums)
        return
    kind = schema.get("type")
    if kind == "object":
        if not typing.is_typeddict(hint):
            problems.append(f"{where}: object but {hint}")
            return
        hints = get_type_hints(hint)
        props = schema.get("properties", {})
        if set(props) != set(hints):
            problems.append(f"{where}: keys {sorted(props)} but {sorted(hints)}")
        required = set(schema.get("required", []))
        if required != set(hint.__required_keys__):
            problems.append(f"{where}: required {sorted(required)} but {sorted(hint.__required_keys__)}")
        for key in sorted(set(props) & set(hints)):
            compare(props[key], hints[key], f"{where}.{key}", loose_enums)
    elif kind == "array":
        if get_origin(hint) is not list:
            problems.append(f"{where}: array but {hint}")
            return
        compare(schema["items"], get_args(hint)[0], f"{where}[]", loose_enums)
    elif kind in PRIMITIVES:
        if hint is not PRIMITIVES[kind]:
            problems.append(f"{where}: {kind} but {hint}")
    else:
        problems.append(f"{where}: unknown schema {json.dumps(schema)[:80]}")


def agrees(schema: Any, hint: Any, where: str, loose_enums: bool) -> bool:
    """Whether `hint` mirrors `schema`, without reporting what differs."""
    global problems
    kept, problems = problems, []
    compare(schema, hint, where, loose_enums)
    found, problems = problems, kept
    return not found


# The pages asked with `interval`, beside the plain ones: their records are the union's other branch.
INTERVAL_PAGES = {
    "/v1/rates/history": "RatesIntervalsResponse",
    "/v1/market/premium/history": "PremiumIntervalsResponse",
    "/v1/gold/history": "GoldIntervalsResponse",
}
for path, name in INTERVAL_PAGES.items():
    schema = doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    compare(schema, getattr(mds_client, name), f"{path} interval", False)

for path, name in OPERATIONS.items():
    responses = doc["paths"][path]["get"]["responses"]
    compare(responses["200"]["content"]["application/json"]["schema"], getattr(mds_client, name), path, False)
    # Every error answer is the envelope ErrorResponse mirrors; its code is a str, not each status's enum.
    for status, response in responses.items():
        if status.startswith(("4", "5")):
            schema = response["content"]["application/json"]["schema"]
            compare(schema, mds_client.ErrorResponse, f"{path} {status}", True)

v1 = sorted(p for p, item in doc["paths"].items() if p.startswith("/v1/") and not item["get"].get("deprecated"))
if v1 != sorted(OPERATIONS):
    problems.append(f"operations of the document {v1} but the client covers {sorted(OPERATIONS)}")
print(json.dumps(problems))
