"""Merging exports into a ServiceImport: validity, union of ports, oldest export wins, conflict reasons."""

from __future__ import annotations

from typing import Any

from flotilla.api.multicluster import ExportReason
from flotilla.controllers.mcs.exports import ClusterExport, merge_exports, union_ports, validity


def service(*ports: dict[str, Any], headless: bool = False, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"ports": list(ports), **spec}
    if headless:
        body["clusterIP"] = "None"
    return {"metadata": {"name": "web", "namespace": "demo"}, "spec": body}


def export(created: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "web", "namespace": "demo", "creationTimestamp": created}, "spec": spec}


HTTP = {"name": "http", "port": 80, "protocol": "TCP"}
METRICS = {"name": "metrics", "port": 9090, "protocol": "TCP"}


def test_a_missing_service_and_an_external_name_service_are_not_valid() -> None:
    assert validity(None).reason == ExportReason.NO_SERVICE
    external = validity({"spec": {"type": "ExternalName", "externalName": "example.com"}})
    assert (external.valid, external.reason) == (False, ExportReason.INVALID_SERVICE_TYPE)
    assert validity(service(HTTP)).valid


def test_no_valid_export_means_no_import() -> None:
    external = {"spec": {"type": "ExternalName"}}
    assert merge_exports([ClusterExport("a", export("2026-01-01T00:00:00Z"), external)]) is None
    assert merge_exports([ClusterExport("a", export("2026-01-01T00:00:00Z"), None)]) is None
    assert merge_exports([]) is None


def test_identical_exports_merge_without_conflict_into_a_clusterset_ip_import() -> None:
    merged = merge_exports(
        [
            ClusterExport("b", export("2026-01-02T00:00:00Z"), service(HTTP)),
            ClusterExport("a", export("2026-01-01T00:00:00Z"), service(HTTP)),
        ]
    )
    assert merged is not None
    assert merged.spec["type"] == "ClusterSetIP"
    assert merged.spec["ports"] == [HTTP]
    assert merged.spec["sessionAffinity"] == "None"
    assert merged.clusters == ("a", "b")
    assert merged.conflicts == ()


def test_ports_are_the_union_and_raise_a_port_conflict() -> None:
    merged = merge_exports(
        [
            ClusterExport("a", export("2026-01-01T00:00:00Z"), service(HTTP)),
            ClusterExport("b", export("2026-01-02T00:00:00Z"), service(HTTP, METRICS)),
        ]
    )
    assert merged is not None
    assert merged.spec["ports"] == [HTTP, METRICS]
    assert merged.conflicts == (ExportReason.PORT_CONFLICT,)
    assert merged.conflicting_clusters == ("b",)


def test_a_port_name_taken_by_an_older_export_keeps_the_older_port() -> None:
    other_http = {"name": "http", "port": 8080, "protocol": "TCP"}
    ports, conflict = union_ports([[HTTP], [other_http]])
    assert (ports, conflict) == ([HTTP], True)
    renamed = {"name": "web", "port": 80, "protocol": "TCP"}
    assert union_ports([[HTTP], [renamed]]) == ([HTTP], True)


def test_headlessness_follows_the_oldest_export_with_a_type_conflict() -> None:
    merged = merge_exports(
        [
            ClusterExport("new", export("2026-01-03T00:00:00Z"), service(HTTP)),
            ClusterExport("old", export("2026-01-01T00:00:00Z"), service(HTTP, headless=True)),
        ]
    )
    assert merged is not None
    assert merged.spec["type"] == "Headless"
    assert "sessionAffinity" not in merged.spec
    assert ExportReason.TYPE_CONFLICT in merged.conflicts


def test_only_the_oldest_exports_exported_labels_and_annotations_are_used() -> None:
    merged = merge_exports(
        [
            ClusterExport(
                "a",
                export(
                    "2026-01-01T00:00:00Z", exportedLabels={"tier": "web"}, exportedAnnotations={"x": "1"}
                ),
                service(HTTP),
            ),
            ClusterExport("b", export("2026-01-02T00:00:00Z", exportedLabels={"tier": "api"}), service(HTTP)),
        ]
    )
    assert merged is not None
    assert (merged.labels, merged.annotations) == ({"tier": "web"}, {"x": "1"})
    assert set(merged.conflicts) == {ExportReason.LABELS_CONFLICT, ExportReason.ANNOTATIONS_CONFLICT}


def test_session_affinity_and_traffic_policy_follow_the_oldest() -> None:
    merged = merge_exports(
        [
            ClusterExport("a", export("2026-01-01T00:00:00Z"), service(HTTP, sessionAffinity="ClientIP")),
            ClusterExport("b", export("2026-01-02T00:00:00Z"), service(HTTP, internalTrafficPolicy="Local")),
        ]
    )
    assert merged is not None
    assert merged.spec["sessionAffinity"] == "ClientIP"
    assert merged.spec["internalTrafficPolicy"] == "Cluster"
    assert set(merged.conflicts) == {
        ExportReason.SESSION_AFFINITY_CONFLICT,
        ExportReason.INTERNAL_TRAFFIC_POLICY_CONFLICT,
    }


def test_equal_creation_times_are_ordered_by_cluster_name() -> None:
    same = "2026-01-01T00:00:00Z"
    merged = merge_exports(
        [
            ClusterExport("z", export(same), service(HTTP, headless=True)),
            ClusterExport("a", export(same), service(HTTP)),
        ]
    )
    assert merged is not None and merged.spec["type"] == "ClusterSetIP"


def test_an_invalid_export_does_not_count() -> None:
    merged = merge_exports(
        [
            ClusterExport("a", export("2026-01-01T00:00:00Z"), None),
            ClusterExport("b", export("2026-01-02T00:00:00Z"), service(METRICS)),
        ]
    )
    assert merged is not None and merged.clusters == ("b",) and merged.spec["ports"] == [METRICS]
