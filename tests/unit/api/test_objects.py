"""Reading the standard parts of objects held as decoded JSON."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.objects import copy_object, metadata_of, spec_of
from flotilla.api.scheme import GroupVersionKind


def test_metadata_and_spec_are_read_when_present() -> None:
    """An object's metadata and spec come back as they are."""
    obj = {"metadata": {"name": "a"}, "spec": {"replicas": 2}}
    assert metadata_of(obj) == {"name": "a"}
    assert spec_of(obj) == {"replicas": 2}


@pytest.mark.parametrize("value", [None, "text", 3, ["a"]])
def test_a_missing_or_malformed_part_reads_as_empty(value: Any) -> None:
    """A part that is absent or not an object is treated as nothing set."""
    assert metadata_of({"metadata": value}) == {}
    assert spec_of({"spec": value}) == {}
    assert metadata_of({}) == {}


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        ("apps/v1", "Deployment", GroupVersionKind("apps", "v1", "Deployment")),
        ("v1", "ConfigMap", GroupVersionKind("", "v1", "ConfigMap")),
        (
            "policy.karmada.io/v1alpha1",
            "PropagationPolicy",
            GroupVersionKind("policy.karmada.io", "v1alpha1", "PropagationPolicy"),
        ),
    ],
)
def test_kinds_are_parsed_from_api_version_and_kind(
    api_version: str, kind: str, expected: GroupVersionKind
) -> None:
    """The group is what precedes the last slash; the core group has none."""
    assert GroupVersionKind.parse(api_version, kind) == expected
    assert GroupVersionKind.of({"apiVersion": api_version, "kind": kind}) == expected


def test_an_object_without_api_version_has_empty_parts() -> None:
    """Missing apiVersion and kind give empty group, version and kind rather than an error."""
    assert GroupVersionKind.of({}) == GroupVersionKind("", "", "")


def test_copy_object_is_deep_and_keeps_json_types() -> None:
    """A copy shares nothing with the original and keeps ints, floats, booleans and nulls apart."""
    original = {"spec": {"replicas": 1, "ratio": 1.0, "paused": True, "note": None, "items": [{"a": 1}]}}
    copied = copy_object(original)
    assert copied == original
    assert [type(v) for v in copied["spec"].values()] == [type(v) for v in original["spec"].values()]
    copied["spec"]["items"][0]["a"] = 2
    copied["spec"]["replicas"] = 3
    assert original["spec"]["items"][0]["a"] == 1
    assert original["spec"]["replicas"] == 1
