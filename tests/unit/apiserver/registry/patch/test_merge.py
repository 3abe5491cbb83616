"""JSON merge patch (RFC 7386): the specification's own examples, and that inputs stay untouched."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from flotilla.apiserver.registry.patch import PatchError, apply_merge_patch, deep_copy_json

# RFC 7386 Appendix A, one row per example: original, patch, result.
RFC_EXAMPLES: list[tuple[Any, Any, Any]] = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("original", "patch", "expected"), RFC_EXAMPLES)
def test_merge_patch_matches_rfc_7386_examples(original: Any, patch: Any, expected: Any) -> None:
    """Every example in RFC 7386 Appendix A gives the result the RFC states."""
    assert apply_merge_patch(original, patch) == expected


def test_merge_patch_keeps_list_elements_verbatim() -> None:
    """A list in the patch replaces the target's list as sent, nulls inside it included."""
    result = apply_merge_patch({"spec": {"args": ["a"]}}, {"spec": {"args": [None, {"x": None}]}})

    assert result == {"spec": {"args": [None, {"x": None}]}}


def test_merge_patch_does_not_mutate_its_inputs() -> None:
    """Applying a patch leaves both the target and the patch exactly as they were."""
    target = {"metadata": {"labels": {"app": "web", "tier": "front"}}, "spec": {"ports": [{"port": 80}]}}
    patch = {"metadata": {"labels": {"tier": None, "team": "a"}}, "spec": {"ports": [{"port": 81}]}}
    target_before, patch_before = copy.deepcopy(target), copy.deepcopy(patch)

    apply_merge_patch(target, patch)

    assert target == target_before
    assert patch == patch_before


def test_merge_patch_result_shares_no_containers_with_its_inputs() -> None:
    """Changing the result, even in parts the patch did not touch, changes neither input."""
    target = {"metadata": {"labels": {"app": "web"}}, "spec": {"ports": [{"port": 80}]}}
    patch = {"data": {"k": ["v"]}}

    result = apply_merge_patch(target, patch)
    result["metadata"]["labels"]["app"] = "changed"
    result["spec"]["ports"][0]["port"] = 1
    result["data"]["k"].append("w")

    assert target == {"metadata": {"labels": {"app": "web"}}, "spec": {"ports": [{"port": 80}]}}
    assert patch == {"data": {"k": ["v"]}}


def test_merge_patch_keeps_the_targets_key_order_and_appends_new_keys() -> None:
    """Updated keys stay where they were in the target; keys the patch adds come after them."""
    result = apply_merge_patch({"a": 1, "b": 2, "c": 3}, {"d": 4, "a": 5})

    assert list(result) == ["a", "b", "c", "d"]


def test_merge_patch_too_deeply_nested_is_a_patch_error() -> None:
    """A patch nested past the interpreter's recursion limit is reported, not crashed on."""
    patch: dict[str, Any] = {}
    innermost = patch
    for _ in range(5000):
        innermost["a"] = {}
        innermost = innermost["a"]

    with pytest.raises(PatchError, match="nested too deeply"):
        apply_merge_patch({}, patch)


def test_deep_copy_json_copies_every_container() -> None:
    """The copy is equal to the value yet shares no dict or list with it."""
    value: dict[str, Any] = {"a": [{"b": [1]}], "c": "s"}

    duplicate = deep_copy_json(value)

    assert duplicate == value
    assert duplicate["a"] is not value["a"]
    assert duplicate["a"][0]["b"] is not value["a"][0]["b"]
