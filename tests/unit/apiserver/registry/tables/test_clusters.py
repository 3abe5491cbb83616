"""The Cluster table is Karmada's aggregated API server's, cell for cell."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flotilla.apiserver.registry.tables import aggregated_convertor
from flotilla.apiserver.registry.tables.clusters import CLUSTER

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def cluster(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": "member1", "creationTimestamp": "2025-03-01T11:55:00Z"},
        "spec": spec,
        "status": status or {},
    }


def test_the_columns_are_karmadas() -> None:
    """Names, types and priorities of Karmada's `clusterColumnDefinitions`; wide ones at priority 1."""
    assert [(c.name, c.type, c.priority) for c in CLUSTER.columns] == [
        ("Name", "string", 0),
        ("Version", "string", 0),
        ("Mode", "string", 0),
        ("Ready", "string", 0),
        ("Age", "string", 0),
        ("Zones", "string", 1),
        ("Region", "string", 1),
        ("Provider", "string", 1),
        ("API-Endpoint", "string", 1),
        ("Proxy-URL", "string", 1),
    ]
    assert CLUSTER.columns[0].format == "name"


def test_a_full_cluster_prints_every_field() -> None:
    """Zones are joined by commas; the Ready condition's status; the age from creationTimestamp."""
    member = cluster(
        {
            "syncMode": "Push",
            "zones": ["z1", "z2"],
            "region": "r1",
            "provider": "kind",
            "apiEndpoint": "https://10.0.0.1:6443",
            "proxyURL": "http://proxy:3128",
        },
        {"kubernetesVersion": "v1.31.0", "conditions": [{"type": "Ready", "status": "False"}]},
    )
    assert CLUSTER.cells(member, NOW) == [
        "member1",
        "v1.31.0",
        "Push",
        "False",
        "5m",
        "z1,z2",
        "r1",
        "kind",
        "https://10.0.0.1:6443",
        "http://proxy:3128",
    ]


def test_empty_optional_fields_print_none_and_a_missing_ready_prints_unknown() -> None:
    """As Karmada's translateOptionalStringField and translateZones; version and endpoint stay blank."""
    cells = CLUSTER.cells(cluster({"syncMode": "Pull", "zones": [], "proxyURL": ""}), NOW)
    assert cells == ["member1", "", "Pull", "Unknown", "5m", "<none>", "<none>", "<none>", "", "<none>"]


def test_only_karmadas_cluster_gets_the_aggregated_printer() -> None:
    assert aggregated_convertor("cluster.karmada.io", "Cluster") is CLUSTER
    assert aggregated_convertor("cluster.x-k8s.io", "Cluster") is None
    assert aggregated_convertor("policy.karmada.io", "PropagationPolicy") is None
