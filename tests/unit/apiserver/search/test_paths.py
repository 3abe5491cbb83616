"""The Kubernetes path below search/cache reads as kube's request parser reads one."""

from __future__ import annotations

import pytest

from flotilla.apiserver import errors
from flotilla.apiserver.search.paths import DiscoveryPath, ResourcePath, parse_native_path


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/api/v1/pods", ResourcePath("", "v1", "", "pods", "")),
        ("/api/v1/namespaces/default/pods/web", ResourcePath("", "v1", "default", "pods", "web")),
        ("/apis/apps/v1/namespaces/x/deployments", ResourcePath("apps", "v1", "x", "deployments", "")),
        ("/api/v1/namespaces/default", ResourcePath("", "v1", "", "namespaces", "default")),
        ("/api", DiscoveryPath("api")),
        ("/api/v1", DiscoveryPath("api", "", "v1")),
        ("/apis/apps", DiscoveryPath("apis", "apps")),
        ("/apis/apps/v1", DiscoveryPath("apis", "apps", "v1")),
    ],
)
def test_paths(path: str, expected: object) -> None:
    assert parse_native_path(path) == expected


@pytest.mark.parametrize("path", ["/", "/x/v1/pods", "/api/v1/namespaces/default/pods/web/log"])
def test_other_paths_are_404(path: str) -> None:
    with pytest.raises(errors.NotFound):
        parse_native_path(path)
