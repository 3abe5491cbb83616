"""A rule's `fieldPath` (`.spec.replicas`, `.labels['app.kubernetes.io/name']`) checked against the
schema it is declared on and turned into the field path an error reports (`spec.replicas`,
`labels[app.kubernetes.io/name]`), as kube-apiserver's ValidFieldPath does."""

from __future__ import annotations

from flotilla.api import fielderrors
from flotilla.apiserver.registry.schema.model import Schema

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}


def normalize_field_path(json_path: str, schema: Schema) -> tuple[str | None, str | None]:
    """(the path relative to the rule's node, None) or (None, why the path is not valid)."""
    if not json_path:
        return "", None
    path, node, position = "", schema, 0
    while position < len(json_path):
        char = json_path[position]
        if char == ".":
            end = position + 1
            while end < len(json_path) and json_path[end] not in ".[]":
                end += 1
            name = json_path[position + 1 : end]
            if not name:
                return None, "unexpected end of JSON path"
            position = end
        elif char == "[":
            if json_path[position + 1 : position + 2] != "'":
                return None, "expected single quoted string"
            name_chars: list[str] = []
            cursor = position + 2
            while cursor < len(json_path) and json_path[cursor] != "'":
                if json_path[cursor] == "\\" and cursor + 1 < len(json_path):
                    escaped = _ESCAPES.get(json_path[cursor + 1])
                    if escaped is None:
                        return None, f"invalid string literal: invalid escape char \\{json_path[cursor + 1]}"
                    name_chars.append(escaped)
                    cursor += 2
                    continue
                name_chars.append(json_path[cursor])
                cursor += 1
            if json_path[cursor + 1 : cursor + 2] != "]":
                return None, "expected ] but got end of JSON path"
            name = "".join(name_chars)
            position = cursor + 2
        else:
            return None, f"expected [ or . but got: {json_path[position:]}"
        if node.properties:
            found = node.properties.get(name)
            if found is None:
                return None, "does not refer to a valid field"
            path, node = fielderrors.child(path, name), found
        elif node.additional_properties is not None:
            path, node = fielderrors.key(path, name), node.additional_properties
        else:
            return None, "does not refer to a valid field"
    return path, None
