"""kubectl's resource arguments (`TYPE[,TYPE] [NAME…]`, `TYPE/NAME`) and the paths they read."""

from __future__ import annotations

import pytest

from flotilla.cli.arguments.resources import ArgumentError, ResourceRequest, parse_arguments, resource_path
from flotilla.client.discovery import ResourceInfo

DEPLOYMENTS = ResourceInfo("apps", "v1", "Deployment", "deployments", namespaced=True)
NAMESPACES = ResourceInfo("", "v1", "Namespace", "namespaces", namespaced=False)


def test_paths_include_the_namespace_only_when_namespaced() -> None:
    """Paths include the namespace only for namespaced resources and quote names."""
    assert resource_path(DEPLOYMENTS, "web", "a b") == "/apis/apps/v1/namespaces/web/deployments/a%20b"
    assert resource_path(DEPLOYMENTS) == "/apis/apps/v1/deployments"
    assert resource_path(NAMESPACES, "ignored", "kube-system") == "/api/v1/namespaces/kube-system"


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
