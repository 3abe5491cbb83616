"""A CRD schema's `pattern` must compile as Go's regexp does, wherever it appears."""

from __future__ import annotations

from flotilla.apiserver.registry.schema.structural import structural_errors

ROOT = "spec.versions[0].schema.openAPIV3Schema"


def _schema(x: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": {"x": x}}}}


def test_an_unbalanced_pattern_is_refused_with_kubes_message() -> None:
    found = structural_errors(_schema({"type": "string", "pattern": "(("}), ROOT)
    assert [str(e) for e in found] == [
        f'{ROOT}.properties[spec].properties[x].pattern: Invalid value: "((": must be a valid regular '
        "expression, but isn't: error parsing regexp: missing closing ): `((`"
    ]


def test_lookahead_and_backreferences_are_refused() -> None:
    for pattern in ("^(?=a)a$", "(a)\\1"):
        found = structural_errors(_schema({"type": "string", "pattern": pattern}), ROOT)
        assert [e.field for e in found] == [f"{ROOT}.properties[spec].properties[x].pattern"]


def test_a_pattern_inside_items_and_value_validations_is_checked() -> None:
    schema = _schema(
        {
            "type": "array",
            "items": {"type": "string", "pattern": "(("},
            "allOf": [{"items": {"pattern": "[z-a]"}}],
        }
    )
    fields = sorted(e.field for e in structural_errors(schema, ROOT))
    assert fields == [
        f"{ROOT}.properties[spec].properties[x].allOf[0].items.pattern",
        f"{ROOT}.properties[spec].properties[x].items.pattern",
    ]


def test_catastrophic_but_valid_patterns_are_accepted() -> None:
    assert structural_errors(_schema({"type": "string", "pattern": "^(a+)+$"}), ROOT) == []
