from typing import Any

from flotilla.apiserver.registry.schema.model import Schema
from flotilla.apiserver.registry.schema.walk import WalkOptions, walk_object

CHECK = WalkOptions(apply_defaults=True, check_values=True, drop_nulls=False)
METADATA = Schema(types=frozenset({"object"}), any_properties=True)
REPLICAS = Schema(types=frozenset({"integer"}), minimum=0)
NAME = Schema(types=frozenset({"string"}), max_length=3)
ITEM = Schema(types=frozenset({"object"}), properties={"name": NAME}, required=frozenset({"name"}))
SPEC = Schema(
    types=frozenset({"object"}),
    properties={
        "replicas": REPLICAS,
        "paused": Schema(types=frozenset({"boolean"})),
        "items": Schema(types=frozenset({"array"}), items=ITEM),
        "template": Schema(types=frozenset({"object"}), properties={"name": NAME, "size": REPLICAS}),
    },
)
KIND = Schema(types=frozenset({"object"}), properties={"spec": SPEC})


def check(new: dict[str, Any], old: dict[str, Any] | None) -> list[str]:
    return [f"{e.field}: {e.detail}" for e in walk_object(new, KIND, METADATA, CHECK, old).errors]


def test_a_changed_field_is_checked_beside_an_unchanged_invalid_sibling() -> None:
    """Only the changed value is checked: a stored invalid sibling is not reported again."""
    old = {"spec": {"replicas": 1, "template": {"name": "toolong", "size": 1}}}
    new = {"spec": {"replicas": -1, "template": {"name": "toolong", "size": 1}}}
    assert check(new, old) == ["spec.replicas: should be greater than or equal to 0"]
    assert len(check(new, None)) == 2


def test_a_change_deep_in_an_unchanged_parent_is_checked() -> None:
    """A nested change is found however deep, and its unchanged siblings are skipped."""
    old = {"spec": {"template": {"name": "toolong", "size": 1}}}
    new = {"spec": {"template": {"name": "toolong", "size": -5}}}
    assert check(new, old) == ["spec.template.size: should be greater than or equal to 0"]


def test_list_items_are_compared_by_position() -> None:
    """An item equal to the stored item at its index is skipped; a changed or new item is checked."""
    old = {"spec": {"items": [{"name": "longer"}, {"name": "a"}]}}
    new = {"spec": {"items": [{"name": "longer"}, {}, {"name": "also-long"}]}}
    assert check(new, old) == [
        "spec.items[1].name: ",
        "spec.items[2].name: must have at most 3 chars",
    ]


def test_a_value_equal_only_in_python_is_still_checked() -> None:
    """true where 1 was stored (equal in Python, not in JSON) is a changed value and a type error."""
    old = {"spec": {"replicas": 1, "template": {"size": 1}}}
    new = {"spec": {"replicas": True, "template": {"size": 1.0}}}
    result = walk_object(new, KIND, METADATA, CHECK, old)
    assert sorted(e.field for e in result.type_errors) == ["spec.replicas", "spec.template.size"]


def test_without_deep_ratcheting_a_changed_top_level_field_is_walked_whole() -> None:
    """deep=False (an object maybe stored under another schema) checks all of a changed top-level field."""
    old = {"spec": {"replicas": 1, "template": {"name": "toolong", "size": 1}}}
    new = {"spec": {"replicas": -1, "template": {"name": "toolong", "size": 1}}}
    assert len(walk_object(new, KIND, METADATA, CHECK, old, deep=False).errors) == 2
    assert (
        walk_object({"spec": {"replicas": -1}}, KIND, METADATA, CHECK, {"spec": {"replicas": -1}}).errors
        == []
    )
