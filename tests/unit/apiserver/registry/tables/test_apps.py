from datetime import UTC, datetime
from typing import Any

from flotilla.apiserver.registry.tables.apps import (
    CONTROLLER_REVISION,
    DAEMON_SET,
    DEPLOYMENT,
    REPLICA_SET,
    STATEFUL_SET,
)

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
TEMPLATE = {
    "metadata": {"labels": {"app": "web"}},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
}


def workload(spec: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "creationTimestamp": "2025-03-01T11:57:30Z"},
        "spec": spec,
        "status": status,
    }


def test_deployment_row() -> None:
    """A deployment prints READY as ready/desired, up-to-date, available and a selector string."""
    deployment = workload(
        {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE},
        {"replicas": 3, "readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
    )
    assert DEPLOYMENT.cells(deployment, NOW) == ["web", "2/3", 3, 2, "2m30s", "web", "nginx:1.27", "app=web"]


def test_deployment_defaults_and_selector_edge_cases() -> None:
    """Unset replicas mean 1; a missing selector prints empty and an invalid one `<invalid>`."""
    assert DEPLOYMENT.cells(workload({}, {}), NOW)[1:4] == ["0/1", 0, 0]
    assert DEPLOYMENT.cells(workload({}, {}), NOW)[7] == ""
    invalid = workload({"selector": {"matchExpressions": [{"key": "a", "operator": "Is"}]}}, {})
    assert DEPLOYMENT.cells(invalid, NOW)[7] == "<invalid>"


def test_replica_set_and_stateful_set_rows() -> None:
    """ReplicaSets print integer replica columns; StatefulSets print ready/desired."""
    replica_set = workload(
        {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web", "pod-template-hash": "7d9"}},
            "template": TEMPLATE,
        },
        {"replicas": 2, "readyReplicas": 1},
    )
    assert REPLICA_SET.cells(replica_set, NOW) == [
        "web",
        2,
        2,
        1,
        "2m30s",
        "web",
        "nginx:1.27",
        "app=web,pod-template-hash=7d9",
    ]
    stateful_set = workload({"replicas": 3, "template": TEMPLATE}, {"readyReplicas": 3})
    assert STATEFUL_SET.cells(stateful_set, NOW) == ["web", "3/3", "2m30s", "web", "nginx:1.27"]


def test_daemon_set_row_shows_node_selector() -> None:
    """DaemonSets print scheduling counts and the template's node selector (`<none>` when unset)."""
    template = {
        "spec": {
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "containers": [{"name": "agent", "image": "agent:2"}],
        }
    }
    daemon_set = workload(
        {"selector": {"matchLabels": {"app": "agent"}}, "template": template},
        {
            "desiredNumberScheduled": 3,
            "currentNumberScheduled": 3,
            "numberReady": 2,
            "updatedNumberScheduled": 3,
            "numberAvailable": 2,
        },
    )
    assert DAEMON_SET.cells(daemon_set, NOW) == [
        "web",
        3,
        3,
        2,
        3,
        2,
        "kubernetes.io/os=linux",
        "2m30s",
        "agent",
        "agent:2",
        "app=agent",
    ]


def test_controller_revision_names_its_controller_with_group() -> None:
    """CONTROLLER is `kind.group/name` of the controlling owner, lower-cased; `<none>` without one."""
    revision = {
        "metadata": {
            "name": "web-6b7f",
            "creationTimestamp": "2025-03-01T11:00:00Z",
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Pod", "name": "other"},
                {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "controller": True},
            ],
        },
        "revision": 2,
    }
    assert CONTROLLER_REVISION.cells(revision, NOW) == ["web-6b7f", "statefulset.apps/web", 2, "60m"]
    orphan = {"metadata": {"name": "x"}, "revision": 1}
    assert CONTROLLER_REVISION.cells(orphan, NOW)[1] == "<none>"
