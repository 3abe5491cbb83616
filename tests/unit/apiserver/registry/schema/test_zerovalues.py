"""The zero object of a built-in status: what Go encodes for a struct nobody set (its required fields)."""

from __future__ import annotations

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.schema.builtin import builtin_schemas
from flotilla.apiserver.registry.schema.model import Schema
from flotilla.apiserver.registry.schema.zerovalues import zero_object


@pytest.mark.parametrize(
    ("group", "kind", "expected"),
    [
        ("apps", "Deployment", {}),
        ("apps", "ReplicaSet", {"replicas": 0}),
        (
            "apps",
            "DaemonSet",
            {
                "currentNumberScheduled": 0,
                "desiredNumberScheduled": 0,
                "numberMisscheduled": 0,
                "numberReady": 0,
            },
        ),
        ("batch", "Job", {}),
    ],
)
def test_a_new_objects_status_is_its_required_fields_at_zero(
    group: str, kind: str, expected: dict[str, int]
) -> None:
    """kube serves a ReplicaSet nobody reported on with `status: {replicas: 0}`, a Deployment with `{}`."""
    schema = builtin_schemas().for_kind(GroupVersionKind(group, "v1", kind))
    assert schema is not None
    assert zero_object(schema.property("status")) == expected


def test_nested_structs_strings_and_booleans_get_their_zeros_and_maps_lists_none() -> None:
    """A required struct is filled in; a required map or list is left out (Go would encode null)."""
    schema = Schema(
        types=frozenset({"object"}),
        required=frozenset({"name", "ready", "inner", "labels", "items"}),
        properties={
            "name": Schema(types=frozenset({"string"})),
            "ready": Schema(types=frozenset({"boolean"})),
            "inner": Schema(
                types=frozenset({"object"}),
                required=frozenset({"count"}),
                properties={"count": Schema(types=frozenset({"integer"}))},
            ),
            "labels": Schema(
                types=frozenset({"object"}), additional_properties=Schema(types=frozenset({"string"}))
            ),
            "items": Schema(types=frozenset({"array"}), items=Schema(types=frozenset({"string"}))),
        },
    )
    assert zero_object(schema) == {"name": "", "ready": False, "inner": {"count": 0}}
    assert zero_object(None) == {}
