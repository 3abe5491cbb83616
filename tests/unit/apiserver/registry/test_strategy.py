"""Update validation by endpoint: a built-in kind's status write is checked for its metadata only."""

from __future__ import annotations

from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.resources import ResourceRegistry
from flotilla.apiserver.registry.strategy import Strategy

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")


def _deployment(name: str, replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "uid": "u-1", "resourceVersion": "5"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }


def _strategy() -> Strategy:
    served = ResourceRegistry().by_kind(DEPLOYMENT)
    assert served is not None
    return Strategy(served)


def test_a_main_write_checks_the_spec() -> None:
    """Writing the object itself validates its spec (a negative replica count is refused)."""
    errors = _strategy().validate_update(_deployment("web", -1), _deployment("web", 1))
    assert "spec.replicas" in [e.field for e in errors]


def test_a_status_write_checks_metadata_but_not_the_spec_it_cannot_change() -> None:
    """On /status the spec is the stored one: only metadata rules (immutable name) apply."""
    strategy = _strategy()
    assert strategy.validate_update(_deployment("web", -1), _deployment("web", -1), "status") == []
    renamed = strategy.validate_update(_deployment("other", 1), _deployment("web", 1), "status")
    assert [e.field for e in renamed] == ["metadata.name"]
