"""kubectl's resource arguments (`TYPE[,TYPE] [NAME…]`, `TYPE/NAME`), paths and printed names."""

from __future__ import annotations

import pytest

from flotilla.cli.arguments.resources import (
    ArgumentError,
    ResourceRequest,
    parse_arguments,
    printed_name,
    printed_object_name,
    qualified_kind,
    resource_path,
)
from flotilla.client.discovery import ResourceInfo

DEPLOYMENTS = ResourceInfo("apps", "v1", "Deployment", "deployments", namespaced=True)
NAMESPACES = ResourceInfo("", "v1", "Namespace", "namespaces", namespaced=False)


def test_paths_and_qualified_kinds() -> None:
    """Paths include the namespace only for namespaced resources and quote names."""
    assert resource_path(DEPLOYMENTS, "web", "a b") == "/apis/apps/v1/namespaces/web/deployments/a%20b"
    assert resource_path(DEPLOYMENTS) == "/apis/apps/v1/deployments"
    assert resource_path(NAMESPACES, "ignored", "kube-system") == "/api/v1/namespaces/kube-system"
    assert (qualified_kind("Deployment", "apps"), qualified_kind("Namespace", "")) == (
        "deployment.apps",
        "namespace",
    )


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
