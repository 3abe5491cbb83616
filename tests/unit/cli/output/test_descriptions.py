"""The parts of a description: field labels, the generic tree, tables, events and Karmada sections."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from flotilla.cli.commands.describe import Related, is_template, render_description
from flotilla.cli.output.descriptions import Description, body, events_section, header, smart_label
from flotilla.cli.output.karmadadescriptions import propagation_section
from flotilla.client.discovery import ResourceInfo

GOLDEN = Path(__file__).parents[1] / "golden"
"""Answers of a real hub and its members, shared by the tests of `get`, `describe` and the descriptions."""
NOW = datetime(2026, 11, 29, 20, 15, tzinfo=UTC)
CLUSTERS = ResourceInfo("cluster.karmada.io", "v1alpha1", "Cluster", "clusters", namespaced=False)
CONFIGMAPS = ResourceInfo("", "v1", "ConfigMap", "configmaps", namespaced=True)


def lines(description: Description) -> list[str]:
    """The rendered lines with runs of spaces collapsed, so assertions ignore alignment."""
    return [" ".join(line.split()) for line in description.render().splitlines()]


@pytest.mark.parametrize(
    ("field", "label"),
    [
        ("apiVersion", "API Version"),
        ("creationTimestamp", "Creation Timestamp"),
        ("proxyURL", "Proxy URL"),
        ("uid", "UID"),
        ("podIPs", "Pod IPs"),
        ("insecureSkipTLSVerification", "Insecure Skip TLS Verification"),
        ("ephemeral-storage", "Ephemeral-Storage"),
        ("app.kubernetes.io/name", "app.kubernetes.io/name"),
        ("nvidia.com/gpu", "nvidia.com/gpu"),
    ],
)
def test_field_names_read_as_words(field: str, label: str) -> None:
    """camelCase becomes words with kubectl's acronyms; data keys with dots or slashes stay."""
    assert smart_label(field) == label


def test_header_lists_labels_and_annotations_one_per_line_and_hides_last_applied() -> None:
    """Labels and annotations are sorted, continue on aligned lines; the last-applied annotation is hidden."""
    description = Description()
    header(
        description,
        {
            "metadata": {
                "name": "web",
                "labels": {"b": "2", "a": "1"},
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}", "note": "x" * 200},
            }
        },
    )
    rendered = description.render().splitlines()
    assert rendered[0] == "Name:         web"
    assert rendered[1] == "Namespace:    "
    assert rendered[2:4] == ["Labels:       a=1", "              b=2"]
    assert rendered[4].startswith("Annotations:  note: xxx") and rendered[4].endswith("...")
    assert len(rendered[4]) == len("Annotations:  ") + 140
    assert len(rendered) == 5


def test_body_walks_fields_marks_list_items_and_tabulates_conditions() -> None:
    """Nested maps indent, list items start with `- `, empty values read <none>, conditions are a table."""
    obj = {
        "apiVersion": "v1",
        "kind": "Thing",
        "metadata": {"name": "t", "managedFields": [{"manager": "m"}], "uid": "u-1"},
        "spec": {"ports": [{"port": 80, "name": "http"}, {"port": 443}], "hosts": ["a", "b"], "empty": {}},
        "status": {
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "Up",
                    "lastTransitionTime": "2026-11-29T20:10:00Z",
                }
            ],
            "script": "line one\nline two\n",
        },
    }
    description = Description()
    body(description, obj, NOW)
    assert lines(description) == [
        "API Version: v1",
        "Kind: Thing",
        "Metadata:",
        "UID: u-1",
        "Spec:",
        "Empty: <none>",
        "Hosts:",
        "a",
        "b",
        "Ports:",
        "- Name: http",
        "Port: 80",
        "- Port: 443",
        "Status:",
        "Conditions:",
        "Type Status Last Transition Reason Message",
        "---- ------ --------------- ------ -------",
        "Ready True 5m Up",
        "Script:",
        "line one",
        "line two",
    ]
    assert "    - Name:  http\n      Port:  80\n" in description.render()


def test_events_show_repeats_and_sources_oldest_first() -> None:
    """A repeated event reads `<age> (xN over <first>)`; the source joins component and host."""
    events: list[dict[str, Any]] = [
        {
            "type": "Warning",
            "reason": "Late",
            "message": "second",
            "source": {"component": "kubelet", "host": "node-1"},
            "firstTimestamp": "2026-11-29T20:00:00Z",
            "lastTimestamp": "2026-11-29T20:14:00Z",
            "count": 4,
        },
        {"type": "Normal", "reason": "Early", "message": "first", "eventTime": "2026-11-29T20:05:00.000000Z"},
    ]
    description = Description()
    events_section(description, events, NOW)
    assert lines(description)[3:] == [
        "Normal Early 10m first",
        "Warning Late 60s (x4 over 15m) kubelet, node-1 second",
    ]
    empty = Description()
    events_section(empty, [], NOW)
    assert lines(empty) == ["Events: <none>"]


def test_propagation_reports_a_member_that_failed_to_apply() -> None:
    """A cluster whose Work failed shows Applied false and the apply message instead of a status."""
    binding = json.loads((GOLDEN / "resourcebinding.json").read_text())
    binding["status"]["aggregatedStatus"][1] = {
        "clusterName": "member2",
        "applied": False,
        "appliedMessage": "Deployment default/nginx already exists in cluster member2",
    }
    binding["spec"]["clusters"].append({"name": "member3", "replicas": 0})
    description = Description()
    propagation_section(description, binding, "default/nginx-deployment")
    rendered = lines(description)
    assert "member2 1 false Deployment default/nginx already exists in cluster member2" in rendered
    assert "member3 0" in rendered
    assert "Policy: PropagationPolicy default/nginx-propagation" in rendered


def test_cluster_description_summarises_status_instead_of_listing_it() -> None:
    """A Cluster shows version, conditions, nodes and a resource table, and counts its API enablements."""
    cluster: dict[str, Any] = json.loads((GOLDEN / "cluster.json").read_text())
    rendered = [
        " ".join(line.split()) for line in render_description(CLUSTERS, cluster, Related(), NOW).splitlines()
    ]
    assert "Resource Models: 3 grades (cpu, memory)" in rendered
    assert "Kubernetes Version: v1.32.4" in rendered
    assert "Nodes: 2 ready of 2" in rendered
    assert "cpu 16 0 0" in rendered
    assert "API Enablements: 3 group versions, 8 resources" in rendered
    assert any(line.startswith("- Effect: NoSchedule") for line in rendered)
    assert not any("Group Version" in line or "Grade" in line for line in rendered)


@pytest.mark.parametrize(
    ("resource", "namespace", "expected"),
    [
        (CONFIGMAPS, "default", True),
        (CONFIGMAPS, "kube-system", False),
        (CONFIGMAPS, "karmada-es-member1", False),
        (CLUSTERS, "", False),
        (ResourceInfo("", "v1", "Event", "events", namespaced=True), "default", False),
        (
            ResourceInfo("coordination.k8s.io", "v1", "Lease", "leases", namespaced=True),
            "default",
            False,
        ),
    ],
)
def test_only_resource_templates_get_a_propagation_section(
    resource: ResourceInfo, namespace: str, expected: bool
) -> None:
    """Karmada's own kinds, events, leases and objects of reserved namespaces are not templates."""
    assert is_template(resource, {"metadata": {"name": "x", "namespace": namespace}}) is expected


@pytest.mark.parametrize(
    ("name", "expected"), [("shop", True), ("kube-system", False), ("karmada-es-m1", False)]
)
def test_a_namespace_is_a_template_unless_the_detector_skips_it(name: str, expected: bool) -> None:
    """As for the detector, a Namespace may be propagated unless it is reserved or `kube-*`."""
    namespaces = ResourceInfo("", "v1", "Namespace", "namespaces", namespaced=False)
    assert is_template(namespaces, {"metadata": {"name": name}}) is expected


def test_propagation_lists_pending_eviction_tasks_with_their_deadline() -> None:
    """`flotilla describe` of a failed-over template: where the replicas are now, and for each cluster
    being evicted from who evicted it, why, how long ago and when its old copy goes (golden text)."""
    binding = json.loads((GOLDEN / "resourcebinding.json").read_text())
    binding["spec"]["clusters"] = [{"name": "member1", "replicas": 2}]
    binding["spec"]["gracefulEvictionTasks"] = [
        {
            "fromCluster": "member2",
            "producer": "TaintManager",
            "reason": "TaintUntolerated",
            "message": "taint cluster.karmada.io/unreachable:NoExecute is not tolerated",
            "purgeMode": "Gracefully",
            "replicas": 1,
            "creationTimestamp": "2026-11-29T20:13:00Z",
        },
        {
            "fromCluster": "member3",
            "producer": "resource-binding-application-failover-controller",
            "reason": "ApplicationFailure",
            "purgeMode": "Never",
            "suppressDeletion": True,
            "creationTimestamp": "2026-11-29T19:15:00Z",
        },
        {
            "fromCluster": "member4",
            "producer": "resource-binding-application-failover-controller",
            "reason": "ApplicationFailure",
            "purgeMode": "Gracefully",
            "gracePeriodSeconds": 60,
            "creationTimestamp": "2026-11-29T20:10:00Z",
        },
    ]
    description = Description()
    propagation_section(description, binding, "default/nginx-deployment", NOW)
    assert description.render() == (GOLDEN / "describe_eviction_tasks.txt").read_text()
