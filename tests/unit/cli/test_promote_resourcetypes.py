"""Resolving `promote`'s RESOURCE argument as kubectl does, from aggregated discovery documents."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.cli.resourcetypes import (
    UnknownResourceType,
    printed_name,
    printed_object_name,
    resolve_resource,
    served_resources,
)


def resource(
    name: str, kind: str, singular: str = "", short: tuple[str, ...] = (), scope: str = "Namespaced"
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "resource": name,
        "responseKind": {"kind": kind},
        "scope": scope,
        "singularResource": singular or kind.lower(),
    }
    if short:
        entry["shortNames"] = list(short)
    return entry


def group(name: str, versions: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "versions": [{"version": version, "resources": resources} for version, resources in versions.items()],
    }


DISCOVERY = [
    {
        "kind": "APIGroupDiscoveryList",
        "items": [
            group(
                "",
                {
                    "v1": [
                        resource("events", "Event", short=("ev",)),
                        resource("configmaps", "ConfigMap", short=("cm",)),
                        resource("namespaces", "Namespace", short=("ns",), scope="Cluster"),
                    ]
                },
            )
        ],
    },
    {
        "kind": "APIGroupDiscoveryList",
        "items": [
            group(
                "apps",
                {
                    "v1": [
                        resource("deployments", "Deployment", short=("deploy",)),
                        {"resource": "deployments/scale", "responseKind": {"kind": "Scale"}},
                    ]
                },
            ),
            group("events.k8s.io", {"v1": [resource("events", "Event", short=("ev",))]}),
            group(
                "example.com",
                {
                    "v2": [resource("widgets", "Widget", short=("wd",))],
                    "v1": [resource("widgets", "Widget", short=("wd",))],
                },
            ),
        ],
    },
]
SERVED = served_resources(DISCOVERY)


@pytest.mark.parametrize("argument", ["deployments", "deployment", "Deployment", "deploy", "DEPLOY"])
def test_plural_singular_kind_and_short_names_resolve_case_insensitively(argument: str) -> None:
    """Every name kubectl accepts for Deployments finds apps/v1 deployments."""
    found = resolve_resource(argument, SERVED)
    assert (found.group, found.version, found.plural, found.namespaced) == ("apps", "v1", "deployments", True)


def test_group_and_version_qualified_arguments_resolve() -> None:
    """`deployments.apps` and `deployment.v1.apps` name the group (and version) explicitly."""
    assert resolve_resource("deployments.apps", SERVED).group == "apps"
    assert resolve_resource("deployment.v1.apps", SERVED).version == "v1"
    assert resolve_resource("widgets.v1.example.com", SERVED).version == "v1"


def test_the_first_group_in_discovery_order_wins_a_shared_name() -> None:
    """`events` is the core group's, as in kubectl; `events.events.k8s.io` asks for the other."""
    assert resolve_resource("events", SERVED).group == ""
    assert resolve_resource("ev", SERVED).group == ""
    assert resolve_resource("events.events.k8s.io", SERVED).group == "events.k8s.io"


def test_the_preferred_version_wins_within_a_group() -> None:
    """The first version discovery lists is the preferred one."""
    assert resolve_resource("widgets", SERVED).version == "v2"
    assert resolve_resource("wd.example.com", SERVED).version == "v2"


def test_subresources_are_not_types_and_unknown_names_are_kubectls_error() -> None:
    """`deployments/scale` is not offered; an unknown type gets kubectl's message."""
    assert all("/" not in served.plural for served in SERVED)
    with pytest.raises(UnknownResourceType, match='the server doesn\'t have a resource type "gizmos"'):
        resolve_resource("gizmos", SERVED)
    with pytest.raises(UnknownResourceType):
        resolve_resource("deployments.example.com", SERVED)


def test_cluster_scope_is_read_from_discovery() -> None:
    """Namespaces are cluster-scoped."""
    assert resolve_resource("ns", SERVED).namespaced is False


def test_printed_names_follow_kubectls_name_printer() -> None:
    """Lower-case kind, dotted group for non-core kinds, then the name."""
    assert printed_name("Deployment", "apps", "nginx") == "deployment.apps/nginx"
    assert printed_name("ConfigMap", "", "settings") == "configmap/settings"
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "p"},
    }
    assert printed_object_name(policy) == "propagationpolicy.policy.karmada.io/p"
