"""Table rows as the server sends them: cells, and the row conditions kube adds for finished pods."""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.apiserver.http.views import table_row
from flotilla.apiserver.registry.tables import builtin_convertor
from flotilla.apiserver.store.watchcache import CachedObject

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _pod(phase: str) -> CachedObject:
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "creationTimestamp": "2025-12-31T23:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": phase},
    }
    return CachedObject("/registry/pods/default/p", "default", "p", 5, obj)


def test_a_succeeded_pod_row_is_marked_completed() -> None:
    """A Succeeded pod's row carries the Completed condition kube-apiserver puts there."""
    convertor = builtin_convertor("", "Pod")
    row = table_row(convertor, _pod("Succeeded"), NOW, "None", "v1")
    assert row["conditions"] == [
        {
            "type": "Completed",
            "status": "True",
            "reason": "Succeeded",
            "message": "The pod has completed successfully.",
        }
    ]


def test_a_running_pod_row_has_no_conditions() -> None:
    """Only finished pods are marked."""
    convertor = builtin_convertor("", "Pod")
    row = table_row(convertor, _pod("Running"), NOW, "None", "v1")
    assert "conditions" not in row
    assert row["cells"][0] == "p"
