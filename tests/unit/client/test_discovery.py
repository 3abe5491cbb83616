"""The REST mapper: kinds to resources, and kubectl-style names (short, singular, qualified, categories)."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.client.discovery import RESTMapper, UnknownResourceType, legacy_document


def entry(resource: str, kind: str, short: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    return {
        "resource": resource,
        "responseKind": {"kind": kind},
        "scope": extra.pop("scope", "Namespaced"),
        "singularResource": kind.lower(),
        "verbs": ["get", "list"],
        "shortNames": list(short),
        **extra,
    }


def group(name: str, versions: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "versions": [{"version": version, "resources": resources} for version, resources in versions.items()],
    }


CORE = {
    "kind": "APIGroupDiscoveryList",
    "items": [
        group(
            "",
            {
                "v1": [
                    entry("pods", "Pod", ("po",), categories=["all"]),
                    entry("events", "Event", ("ev",)),
                    entry("configmaps", "ConfigMap", ("cm",)),
                    entry("namespaces", "Namespace", ("ns",), scope="Cluster"),
                ]
            },
        )
    ],
}
GROUPS = {
    "kind": "APIGroupDiscoveryList",
    "items": [
        group(
            "apps",
            {
                "v1": [
                    entry("deployments", "Deployment", ("deploy",), categories=["all"]),
                    {"resource": "deployments/scale", "responseKind": {"kind": "Scale"}},
                ]
            },
        ),
        group("events.k8s.io", {"v1": [entry("events", "Event", ("ev",))]}),
        group("cluster.karmada.io", {"v1alpha1": [entry("clusters", "Cluster", scope="Cluster")]}),
        group(
            "policy.karmada.io",
            {
                "v1alpha1": [
                    entry("propagationpolicies", "PropagationPolicy", ("pp",), categories=["karmada-io"])
                ]
            },
        ),
        group(
            "example.com",
            {
                "v2": [entry("widgets", "Widget", ("wd",), categories=["all"])],
                "v1": [entry("widgets", "Widget", ("wd",), categories=["all"])],
            },
        ),
        group("short.example.com", {"v1": [entry("gadgets", "Gadget", ("pods",))]}),
    ],
}


def mapper(*documents: dict[str, Any]) -> RESTMapper:
    loaded = RESTMapper()
    loaded.load(list(documents or (CORE, GROUPS)))
    return loaded


def named(argument: str) -> str:
    found = mapper().resource_for(argument)
    return (
        f"{found.plural}.{found.version}.{found.group}" if found.group else f"{found.plural}.{found.version}"
    )


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("deploy", "deployments.v1.apps"),
        ("deployments", "deployments.v1.apps"),
        ("deployment", "deployments.v1.apps"),
        ("Deployment", "deployments.v1.apps"),
        ("DEPLOY", "deployments.v1.apps"),
        ("deployments.apps", "deployments.v1.apps"),
        ("deployments.v1.apps", "deployments.v1.apps"),
        ("deployment.v1.apps", "deployments.v1.apps"),
        ("clusters", "clusters.v1alpha1.cluster.karmada.io"),
        ("clusters.cluster.karmada.io", "clusters.v1alpha1.cluster.karmada.io"),
        ("clusters.v1alpha1.cluster.karmada.io", "clusters.v1alpha1.cluster.karmada.io"),
        ("pp", "propagationpolicies.v1alpha1.policy.karmada.io"),
        ("ns", "namespaces.v1"),
    ],
)
def test_names_resolve_like_kubectl(argument: str, expected: str) -> None:
    """Short names, plurals, singulars, kinds and group or version qualified names, in any case."""
    assert named(argument) == expected


def test_the_first_group_in_discovery_order_wins_a_shared_name() -> None:
    """`events` and `ev` are the core group's, as in kubectl; `events.events.k8s.io` asks for the other."""
    assert named("events") == "events.v1"
    assert named("ev") == "events.v1"
    assert named("events.events.k8s.io") == "events.v1.events.k8s.io"


def test_the_preferred_version_wins_within_a_group() -> None:
    """The first version discovery lists is the preferred one; a version can still be asked for."""
    assert named("widgets") == "widgets.v2.example.com"
    assert named("wd.example.com") == "widgets.v2.example.com"
    assert named("widgets.v1.example.com") == "widgets.v1.example.com"


def test_a_full_name_wins_over_another_resources_short_name() -> None:
    """kubectl does not expand a short name that is some resource's plural or singular."""
    assert named("pods") == "pods.v1"
    assert named("pods.short.example.com") == "gadgets.v1.short.example.com"


def test_unknown_names_and_subresources_do_not_resolve() -> None:
    """An unknown name, a wrong version or group, or a subresource gets kubectl's message."""
    for argument in ("gizmos", "deployments.v2.apps", "deployments.example.com", "scale", ""):
        with pytest.raises(
            UnknownResourceType, match=f'the server doesn\'t have a resource type "{argument}"'
        ):
            mapper().resource_for(argument)


def test_categories_expand_to_one_version_of_every_member() -> None:
    """`all` names every resource listing the category, in discovery order, each once."""
    assert [r.plural for r in mapper().resources_for("all")] == ["pods", "deployments", "widgets"]
    assert [r.version for r in mapper().resources_for("all")][-1] == "v2"
    assert [r.plural for r in mapper().resources_for("karmada-io")] == ["propagationpolicies"]
    assert [r.plural for r in mapper().resources_for("deploy")] == ["deployments"]
    with pytest.raises(UnknownResourceType):
        mapper().resource_for("all")


def test_discovery_keeps_scope_names_and_categories() -> None:
    """Scope, singular, short names and categories come from the discovery entries."""
    namespaces = mapper().resource_for("ns")
    assert (
        not namespaces.namespaced and namespaces.short_names == ("ns",) and namespaces.singular == "namespace"
    )
    deployments = mapper().resource_for("deploy")
    assert deployments.namespaced and deployments.categories == ("all",)
    assert (deployments.api_version, str(deployments.group_resource)) == ("apps/v1", "deployments.apps")


def test_legacy_discovery_is_reshaped_with_names_and_subresources() -> None:
    """APIResourceLists become one aggregated document: names kept, subresources under their parent."""
    listing = {
        "resources": [
            {
                "name": "widgets",
                "singularName": "widget",
                "kind": "Widget",
                "namespaced": True,
                "shortNames": ["wd"],
            },
            {"name": "widgets/status", "kind": "Widget", "namespaced": True},
        ]
    }
    legacy = mapper(legacy_document([("example.com", "v1", listing)]))
    widgets = legacy.resource_for("wd")
    assert (widgets.kind, widgets.singular, widgets.subresources) == ("Widget", "widget", ("status",))
    assert [info.plural for info in legacy.kinds()] == ["widgets"]
