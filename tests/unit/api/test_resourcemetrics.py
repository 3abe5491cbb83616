"""Decoding a PodMetricsList into per-pod usage, as the FederatedHPA controller reads it."""

from __future__ import annotations

from fractions import Fraction

from flotilla.api.resourcemetrics import QUERY_FROM_CLUSTER_ANNOTATION, pod_usages


def item(name: str, cluster: str, *usages: tuple[str, str]) -> dict[str, object]:
    return {
        "metadata": {
            "name": name,
            "namespace": "shop",
            "annotations": {QUERY_FROM_CLUSTER_ANNOTATION: cluster},
        },
        "timestamp": "2026-01-01T00:00:00Z",
        "window": "15s",
        "containers": [
            {"name": f"c{i}", "usage": {"cpu": c, "memory": m}} for i, (c, m) in enumerate(usages)
        ],
    }


def test_containers_are_summed_per_pod_and_the_cluster_is_kept() -> None:
    listed = {
        "items": [
            item("web-1", "m1", ("250m", "64Mi"), ("333333333n", "1Ki")),
            item("web-1", "m2", ("1", "1Gi")),
        ]
    }
    first, second = pod_usages(listed)
    assert (first.name, first.cluster, second.cluster) == ("web-1", "m1", "m2")
    assert first.cpu == Fraction(250, 1000) + Fraction(333333333, 10**9)
    assert first.cpu_millis == 584
    assert first.memory_bytes == 64 * 2**20 + 1024
    assert second.cpu_millis == 1000 and second.window == "15s"


def test_an_unreadable_quantity_counts_as_zero() -> None:
    (usage,) = pod_usages([item("p", "", ("lots", "1Mi"))])
    assert usage.cpu == 0 and usage.memory_bytes == 2**20
