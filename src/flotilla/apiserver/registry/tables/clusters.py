"""The Cluster table (`cluster.karmada.io`), as Karmada's aggregated API server prints it.

Karmada serves Cluster from karmada-aggregated-apiserver, not as a CRD, and prints it with Go code
(`pkg/printers/internalversion`): `NAME VERSION MODE READY AGE`, and with `-o wide` `ZONES REGION
PROVIDER API-ENDPOINT PROXY-URL`. Printer columns of a CRD cannot say what that code does — the
zones joined by commas, `<none>` for no zones, no region, no provider or no proxy URL, `Unknown`
while there is no Ready condition — since kube's table convertor prints a list as JSON and an
empty or missing value as a blank. So a hub prints its Cluster CRD with this printer rather than
with the CRD's columns (`aggregated_convertor`), and `kubectl get clusters` reads as on a Karmada
control plane.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.api.karmada import constants
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer, TableConvertor
from flotilla.apiserver.registry.tables.objects import created, items, name, objects, text

NONE = "<none>"
"""What Karmada prints for an optional field left empty."""


def _column(column_name: str, description: str, *, priority: int = 0) -> Column:
    return Column(column_name, "string", description=description, priority=priority)


CLUSTER_COLUMNS = (
    NAME,
    _column("Version", "KubernetesVersion represents version of the member cluster."),
    _column("Mode", "SyncMode describes how a cluster sync resources from karmada control plane."),
    _column("Ready", "The aggregate readiness state of this cluster for accepting workloads."),
    AGE,
    _column(
        "Zones",
        "Zones represents the failure zones(also called availability zones) of the member cluster. The "
        "zones are presented as a slice to support the case that cluster runs across multiple failure zones.",
        priority=1,
    ),
    _column("Region", "Region represents the region of the member cluster locate in.", priority=1),
    _column("Provider", "Provider represents the cloud provider name of the member cluster.", priority=1),
    _column("API-Endpoint", "The API endpoint of the member cluster.", priority=1),
    _column("Proxy-URL", "ProxyURL is the proxy URL for the cluster.", priority=1),
)
"""Karmada's column definitions for Cluster: names, types, priorities and descriptions."""


def optional(value: str) -> str:
    """Karmada's `translateOptionalStringField`: an empty string prints `<none>`."""
    return value or NONE


def ready(cluster: dict[str, Any]) -> str:
    """The first Ready condition's status; `Unknown` while there is none."""
    for condition in objects(cluster, "status", "conditions"):
        if condition.get("type") == constants.CLUSTER_CONDITION_READY:
            return text(condition, "status")
    return "Unknown"


def zones(cluster: dict[str, Any]) -> str:
    """The zones joined by commas, `<none>` for none (Karmada's `translateZones`)."""
    return optional(",".join(zone for zone in items(cluster, "spec", "zones") if isinstance(zone, str)))


def cluster_row(cluster: dict[str, Any], now: datetime) -> list[Cell]:
    return [
        name(cluster),
        text(cluster, "status", "kubernetesVersion"),
        text(cluster, "spec", "syncMode"),
        ready(cluster),
        since(created(cluster), now),
        zones(cluster),
        optional(text(cluster, "spec", "region")),
        optional(text(cluster, "spec", "provider")),
        text(cluster, "spec", "apiEndpoint"),
        optional(text(cluster, "spec", "proxyURL")),
    ]


CLUSTER = Printer(CLUSTER_COLUMNS, cluster_row)

AGGREGATED_PRINTERS: dict[tuple[str, str], TableConvertor] = {
    (constants.CLUSTER.group, constants.CLUSTER.kind): CLUSTER,
}
"""Kinds Karmada serves from its aggregated API server with a printer of its own, by (group, kind)."""


def aggregated_convertor(group: str, kind: str) -> TableConvertor | None:
    """The printer Karmada's aggregated API server uses for this kind, None for any other kind."""
    return AGGREGATED_PRINTERS.get((group, kind))
