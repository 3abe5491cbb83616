"""Shared informers scoped for an agent: a kind asked for across namespaces is served from its scope."""

from __future__ import annotations

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, ClusterConfig
from flotilla.runtime.informers import InformerScope, SharedInformers

SECRET = GroupVersionKind("", "v1", "Secret")


def informers(**scopes: InformerScope) -> SharedInformers:
    client = Client(ClusterConfig(server="http://127.0.0.1:1"))
    by_kind = {constants.WORK: scopes["work"], constants.CLUSTER: scopes["cluster"]} if scopes else None
    return SharedInformers(client, scopes=by_kind)


def test_a_scoped_kind_lists_only_its_scope() -> None:
    """Works across namespaces mean the execution namespace; Clusters mean the one selected by name."""
    shared = informers(
        work=InformerScope(namespace="karmada-es-a"),
        cluster=InformerScope(field_selector="metadata.name=a"),
    )
    works = shared.get(constants.WORK)
    clusters = shared.get(constants.CLUSTER)
    assert (works.namespace, works.field_selector) == ("karmada-es-a", "")
    assert (clusters.namespace, clusters.field_selector) == ("", "metadata.name=a")
    assert shared.get(constants.WORK) is works


def test_an_unscoped_kind_or_an_explicit_namespace_is_served_as_asked() -> None:
    """Kinds without a scope, and requests naming a namespace, are not narrowed."""
    shared = informers(
        work=InformerScope(namespace="karmada-es-a"),
        cluster=InformerScope(field_selector="metadata.name=a"),
    )
    assert shared.get(SECRET).namespace == ""
    assert shared.get(constants.WORK, "karmada-es-b").namespace == "karmada-es-b"


def test_without_scopes_every_kind_sees_every_namespace() -> None:
    """The controller manager's factory lists whole kinds."""
    shared = informers()
    assert shared.get(constants.WORK).namespace == ""
    assert shared.get(constants.CLUSTER).field_selector == ""
