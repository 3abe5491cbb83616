"""kubectl-style type arguments resolved against discovery: short names, groups, versions, categories."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.cli.resources import (
    ArgumentError,
    ResourceRequest,
    ResourceTypeNotFound,
    legacy_group_document,
    parse_arguments,
    qualified_kind,
    resolve,
    resource_path,
    resource_types,
)


def entry(resource: str, kind: str, group: str, version: str, **extra: Any) -> dict[str, Any]:
    return {
        "resource": resource,
        "responseKind": {"group": group, "version": version, "kind": kind},
        "scope": extra.pop("scope", "Namespaced"),
        "singularResource": kind.lower(),
        "verbs": ["get", "list"],
        **extra,
    }


CORE = {
    "items": [
        {
            "metadata": {},
            "versions": [
                {
                    "version": "v1",
                    "resources": [
                        entry("pods", "Pod", "", "v1", shortNames=["po"], categories=["all"]),
                        entry("events", "Event", "", "v1", shortNames=["ev"]),
                        entry("namespaces", "Namespace", "", "v1", scope="Cluster", shortNames=["ns"]),
                    ],
                }
            ],
        }
    ]
}
GROUPS = {
    "items": [
        {
            "metadata": {"name": "apps"},
            "versions": [
                {
                    "version": "v1",
                    "resources": [
                        entry(
                            "deployments",
                            "Deployment",
                            "apps",
                            "v1",
                            shortNames=["deploy"],
                            categories=["all"],
                        ),
                        entry("deployments/scale", "Scale", "autoscaling", "v1"),
                    ],
                }
            ],
        },
        {
            "metadata": {"name": "events.k8s.io"},
            "versions": [{"version": "v1", "resources": [entry("events", "Event", "events.k8s.io", "v1")]}],
        },
        {
            "metadata": {"name": "cluster.karmada.io"},
            "versions": [
                {
                    "version": "v1alpha1",
                    "resources": [
                        entry("clusters", "Cluster", "cluster.karmada.io", "v1alpha1", scope="Cluster")
                    ],
                }
            ],
        },
        {
            "metadata": {"name": "policy.karmada.io"},
            "versions": [
                {
                    "version": "v1alpha1",
                    "resources": [
                        entry(
                            "propagationpolicies",
                            "PropagationPolicy",
                            "policy.karmada.io",
                            "v1alpha1",
                            shortNames=["pp"],
                            categories=["karmada-io"],
                        )
                    ],
                }
            ],
        },
    ]
}
AVAILABLE = resource_types([CORE, GROUPS])


def names(argument: str) -> list[str]:
    return [f"{r.plural}.{r.group}" if r.group else r.plural for r in resolve(argument, AVAILABLE)]


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("deploy", "deployments.apps"),
        ("deployments", "deployments.apps"),
        ("deployment", "deployments.apps"),
        ("Deployment", "deployments.apps"),
        ("deployments.apps", "deployments.apps"),
        ("deployments.v1.apps", "deployments.apps"),
        ("clusters", "clusters.cluster.karmada.io"),
        ("clusters.cluster.karmada.io", "clusters.cluster.karmada.io"),
        ("clusters.v1alpha1.cluster.karmada.io", "clusters.cluster.karmada.io"),
        ("pp", "propagationpolicies.policy.karmada.io"),
        ("ns", "namespaces"),
        ("events", "events"),
        ("events.events.k8s.io", "events.events.k8s.io"),
    ],
)
def test_type_arguments_resolve_like_kubectl(argument: str, expected: str) -> None:
    """Short names, plurals, singulars, kinds and group or version qualified names all resolve."""
    assert names(argument) == [expected]


def test_categories_expand_to_every_member_resource() -> None:
    """`all` names every resource listing the category, in discovery order."""
    assert names("all") == ["pods", "deployments.apps"]
    assert names("karmada-io") == ["propagationpolicies.policy.karmada.io"]


def test_unknown_types_and_subresources_do_not_resolve() -> None:
    """An unknown name (or a subresource) raises with kubectl's message."""
    with pytest.raises(ResourceTypeNotFound, match=r'the server doesn\'t have a resource type "foo"'):
        resolve("foo", AVAILABLE)
    with pytest.raises(ResourceTypeNotFound):
        resolve("deployments.v2.apps", AVAILABLE)
    assert all("/" not in r.plural for r in AVAILABLE)


def test_discovery_keeps_scope_short_names_and_categories() -> None:
    """Aggregated discovery entries become resource types with their scope and names."""
    namespaces = next(r for r in AVAILABLE if r.plural == "namespaces")
    assert not namespaces.namespaced and namespaces.short_names == ("ns",)
    deployments = next(r for r in AVAILABLE if r.plural == "deployments")
    assert deployments.namespaced and deployments.categories == ("all",)


def test_legacy_discovery_is_reshaped_like_an_aggregated_group() -> None:
    """An APIResourceList converts to one aggregated group, subresources left out."""
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
    resources = resource_types([{"items": [legacy_group_document("example.com", "v1", listing)]}])
    assert [(r.plural, r.short_names, r.namespaced) for r in resources] == [("widgets", ("wd",), True)]
    assert resolve("wd", resources)[0].kind == "Widget"


def test_paths_and_qualified_kinds() -> None:
    """Paths include the namespace only for namespaced resources and quote names."""
    deployments = resolve("deploy", AVAILABLE)[0]
    namespaces = resolve("ns", AVAILABLE)[0]
    assert resource_path(deployments, "web", "a b") == "/apis/apps/v1/namespaces/web/deployments/a%20b"
    assert resource_path(deployments) == "/apis/apps/v1/deployments"
    assert resource_path(namespaces, "ignored", "kube-system") == "/api/v1/namespaces/kube-system"
    assert (qualified_kind(deployments), qualified_kind(namespaces)) == ("deployment.apps", "namespace")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["deploy"], [ResourceRequest("deploy")]),
        (["deploy", "a", "b"], [ResourceRequest("deploy", ("a", "b"))]),
        (["deploy,svc", "a"], [ResourceRequest("deploy", ("a",)), ResourceRequest("svc", ("a",))]),
        (["deploy/a", "svc/b"], [ResourceRequest("deploy", ("a",)), ResourceRequest("svc", ("b",))]),
        ([], []),
    ],
)
def test_arguments_parse_in_kubectls_forms(arguments: list[str], expected: list[ResourceRequest]) -> None:
    """`TYPE[,TYPE] [NAME…]` and `TYPE/NAME…` both read as requests."""
    assert parse_arguments(arguments) == expected


@pytest.mark.parametrize("arguments", [["deploy", "svc/b"], ["deploy/"], [","]])
def test_mixed_or_empty_argument_forms_are_refused(arguments: list[str]) -> None:
    """A bare type beside TYPE/NAME, an empty name or an empty type list is an error."""
    with pytest.raises(ArgumentError):
        parse_arguments(arguments)
