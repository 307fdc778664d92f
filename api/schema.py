"""The refusals every operation may answer, added to the generated schema (a drf-spectacular
postprocessing hook) so a client, and a schema fuzzer, know their shapes: ``{"detail": "..."}`` for
401, 403, 404, 413, 415 and 429; for a 400, ``{field: [message, ...]}`` or a ``detail``."""

from __future__ import annotations

ERROR = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
FIELD_ERRORS = {
    "type": "object",
    "description": "Each field refused, with the page's own messages; `non_field_errors` for the whole.",
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}
SAID = {
    "400": "Input refused: each field named with its messages (a `cursor` the API did not give, too), or the body "
    "is not JSON.",
    "401": "No login, or a token that is malformed, unknown or revoked (the detail says which).",
    "403": "Not a researcher's account, a viewer's change, or the session's CSRF check.",
    "404": "Not found, or not yours to see (another researcher's study).",
    "413": "The body is larger than API_MAX_BODY_BYTES.",
    "415": "The body is not JSON.",
    "429": "Too many requests for this token: wait Retry-After seconds.",
}
WRITES = {"post", "put", "patch"}


def _response(code: str) -> dict:
    ref = {"$ref": "#/components/schemas/Error"}
    schema = {"anyOf": [{"$ref": "#/components/schemas/FieldErrors"}, ref]} if code == "400" else ref
    return {"description": SAID[code], "content": {"application/json": {"schema": schema}}}


def add_refusals(result, generator, request, public):
    """Every operation: 401, 403, 429; with an id in its path, 404; with a query (a cursor, a
    page_size, a filter), 400; a write: 400, 413, 415.
    A request body takes only the keys it names (``api.validation.typed`` refuses any other)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in schemas.items():
        if name.endswith("Request") and schema.get("type") == "object" and "properties" in schema:
            schema.setdefault("additionalProperties", False)
    schemas.update(Error=ERROR, FieldErrors=FIELD_ERRORS)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            codes = ["401", "403", "429"]
            if "{" in path:
                codes.append("404")
            if any(p.get("in") == "query" for p in operation.get("parameters", [])):
                codes.append("400")  # a cursor, a page_size or a filter refused, naming it
            if method in WRITES:
                codes += ["413", "415"] + ([] if "400" in codes else ["400"])
            responses = operation.setdefault("responses", {})
            for code in codes:
                responses.setdefault(code, _response(code))
    return result
