"""The one typed `anyOf` a structural schema may hold: controller-gen's int-or-string branches."""

from __future__ import annotations

from flotilla.apiserver.registry.schema.structural import structural_errors

ROOT = "spec.versions[0].schema.openAPIV3Schema"
BRANCHES = [{"type": "integer"}, {"type": "string"}]


def _schema(x: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": {"x": x}}}}


def test_a_quantity_as_controller_gen_writes_it_is_structural() -> None:
    """`anyOf: [{type: integer}, {type: string}]` beside `x-kubernetes-int-or-string` (Karmada's CRDs)."""
    quantity = {"anyOf": BRANCHES, "x-kubernetes-int-or-string": True, "pattern": "^[0-9]+$"}
    assert structural_errors(_schema(quantity), ROOT) == []


def test_the_branches_may_also_open_all_of() -> None:
    node = {"allOf": [{"anyOf": BRANCHES}, {"pattern": "^[0-9]+$"}], "x-kubernetes-int-or-string": True}
    assert structural_errors(_schema(node), ROOT) == []


def test_any_other_typed_any_of_is_refused() -> None:
    node = {"anyOf": [{"type": "string"}, {"type": "integer"}], "x-kubernetes-int-or-string": True}
    fields = sorted(error.field for error in structural_errors(_schema(node), ROOT))
    assert fields == [
        f"{ROOT}.properties[spec].properties[x].anyOf[0].type",
        f"{ROOT}.properties[spec].properties[x].anyOf[1].type",
    ]
