"""A CRD's status.storedVersions, kept as kube keeps it: the storage version joins, none leaves by itself."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flotilla.api.scheme import GroupResource, GroupVersionKind
from flotilla.apiserver.registry.resources import ResourceRegistry
from flotilla.apiserver.registry.strategy import Strategy, StrategyEnv, strategy_for
from flotilla.apiserver.registry.validation.apiextensions import stored_versions_errors

CRD = GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")


def no_objects(resource: GroupResource, namespace: str) -> list[dict[str, Any]]:
    """CRD preparation reads no other object."""
    del resource, namespace
    return []


ENV = StrategyEnv(list_objects=no_objects, clock=lambda: datetime(2026, 1, 1, tzinfo=UTC))


def strategy() -> Strategy:
    served = ResourceRegistry().by_kind(CRD)
    assert served is not None
    return strategy_for(served)


def crd(storage: str, *names: str, stored: list[str] | None = None) -> dict[str, Any]:
    versions = [{"name": name, "served": True, "storage": name == storage} for name in names]
    body: dict[str, Any] = {"metadata": {"name": "gizmos.example.com"}, "spec": {"versions": versions}}
    if stored is not None:
        body["status"] = {"storedVersions": stored}
    return body


def test_a_new_crd_stores_its_storage_version() -> None:
    """Created, a CRD's storedVersions is its storage version, whatever the client sent."""
    created = crd("v1", "v1", "v2", stored=["v9"])
    strategy().prepare_create(created, ENV)
    assert created["status"]["storedVersions"] == ["v1"]


def test_a_new_storage_version_joins_the_stored_ones() -> None:
    """Moving storage to v2 keeps v1 (objects may still be stored there) and adds v2."""
    old = crd("v1", "v1", "v2", stored=["v1"])
    new = crd("v2", "v1", "v2", stored=["v1"])
    strategy().prepare_update(new, old, ENV)
    assert new["status"]["storedVersions"] == ["v1", "v2"]


def test_a_version_objects_may_be_stored_at_cannot_leave_the_spec() -> None:
    """kube's messages: every stored version must appear in spec.versions."""
    errors = stored_versions_errors(crd("v2", "v2", stored=["v1", "v2"]))
    assert [str(error) for error in errors] == [
        'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions'
    ]


def test_stored_versions_must_hold_the_storage_version_and_not_be_empty() -> None:
    """A status write trimming the storage version, or everything, is refused."""
    assert [str(e) for e in stored_versions_errors(crd("v2", "v1", "v2", stored=["v1"]))] == [
        'status.storedVersions: Invalid value: "v2": must have the storage version v2'
    ]
    assert [e.detail for e in stored_versions_errors(crd("v1", "v1", stored=[]))] == [
        "must have at least one stored version"
    ]
    assert stored_versions_errors(crd("v2", "v1", "v2", stored=["v1", "v2"])) == []
