"""The applied-overrides annotation text, byte for byte as Karmada's Go encoder writes it."""

from __future__ import annotations

from flotilla.overrides.applied import applied_overrides_value, overriders_as_written
from flotilla.overrides.gojson import dumps


def test_overriders_are_written_in_karmadas_field_order_without_empty_fields() -> None:
    """Struct order is Go's, whatever order the policy used; empty lists and values are left out."""
    overriders = {
        "fieldOverrider": [
            {"fieldPath": "/data/a", "yaml": [{"subPath": "/x", "operator": "remove"}], "json": []}
        ],
        "argsOverrider": [{"containerName": "web", "operator": "add", "value": []}],
        "commandOverrider": [],
        "imageOverrider": [
            {"predicate": {"path": "/spec/image"}, "component": "Tag", "operator": "remove", "value": ""}
        ],
        "labelsOverrider": [{"operator": "add", "value": {"z": "1", "a": "2"}}],
    }
    assert list(overriders_as_written(overriders)) == [
        "imageOverrider",
        "argsOverrider",
        "labelsOverrider",
        "fieldOverrider",
    ]
    assert overriders_as_written(overriders) == {
        "imageOverrider": [{"predicate": {"path": "/spec/image"}, "component": "Tag", "operator": "remove"}],
        "argsOverrider": [{"containerName": "web", "operator": "add"}],
        "labelsOverrider": [{"operator": "add", "value": {"a": "2", "z": "1"}}],
        "fieldOverrider": [
            {"fieldPath": "/data/a", "yaml": [{"subPath": "/x", "operator": "remove", "value": None}]}
        ],
    }


def test_json_values_have_their_keys_sorted_as_the_api_server_stores_them() -> None:
    """A plaintext value object comes back from Karmada's store with sorted keys."""
    value = applied_overrides_value(
        [
            (
                "p",
                {
                    "plaintext": [
                        {"path": "/spec/x", "operator": "add", "value": {"b": 1, "a": {"d": 2, "c": 3}}}
                    ]
                },
            )
        ]
    )
    assert value == (
        '[{"policyName":"p","overriders":{"plaintext":'
        '[{"path":"/spec/x","operator":"add","value":{"a":{"c":3,"d":2},"b":1}}]}}]'
    )


def test_items_are_sorted_by_policy_name_keeping_rule_order_within_a_policy() -> None:
    """Two rules of one policy stay in rule order after sorting by name."""
    first = {"labelsOverrider": [{"operator": "add", "value": {"rule": "1"}}]}
    second = {"labelsOverrider": [{"operator": "add", "value": {"rule": "2"}}]}
    other = {"labelsOverrider": [{"operator": "add", "value": {"rule": "0"}}]}
    value = applied_overrides_value([("b", first), ("b", second), ("a", other)])
    assert value is not None
    assert value.index('"rule":"0"') < value.index('"rule":"1"') < value.index('"rule":"2"')


def test_nothing_applied_means_no_annotation() -> None:
    """An empty list is not written at all."""
    assert applied_overrides_value([]) is None


def test_go_escaping_of_html_characters_and_unicode() -> None:
    """Go escapes <, >, & and the line separators, and keeps other non-ASCII text as it is."""
    assert dumps({"v": "a<b>&c\u2028é"}) == '{"v":"a\\u003cb\\u003e\\u0026c\\u2028é"}'
