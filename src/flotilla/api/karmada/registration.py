"""Pull-mode registration as data: what a member asks for, and the Cluster the hub accepts it as.

`flotilla register` asks for its agent's certificate with a CertificateSigningRequest and has no
right to create anything else with its bootstrap token. So the member's side of the registration
rides on the CSR as annotations (`registration_annotations`): the cluster's permanent id (the UID
of the member's `kube-system` namespace, as `flotilla join` and Karmada record it) and its
provider, region and zones. The hub accepts the registration — automatically in its approver, or
when an operator runs `flotilla accept` — by creating `pull_cluster(...)` (syncMode Pull, no
endpoint or credentials: the hub never dials a Pull member) and the agent's RBAC objects
(`agentrbac.py`), then approving the CSR.

`registration_conflict` is the one rule both acceptors apply: a name already taken by a Push
cluster, by a Pull cluster of another member (a different id), or by a cluster being removed is
refused with a message saying which, so a second member cannot take over an existing cluster's
identity by registering under its name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada.constants import CLUSTER, ClusterSyncMode
from flotilla.api.names import dns1123_label_errors

CLUSTER_ID_ANNOTATION = "registration.flotilla.io/cluster-id"
PROVIDER_ANNOTATION = "registration.flotilla.io/cluster-provider"
REGION_ANNOTATION = "registration.flotilla.io/cluster-region"
ZONES_ANNOTATION = "registration.flotilla.io/cluster-zones"
"""Comma-separated."""

ACCEPTED_BY_OPERATOR = "AcceptedByOperator"
"""The reason of the Approved condition `flotilla accept` writes."""
REGISTRATION_REFUSED = "ClusterRegistrationRefused"
"""The reason of the Denied condition the approver writes when a registration conflicts."""

CLUSTER_NAME_MAX = 48
"""Karmada's limit on cluster names (they become parts of other names)."""


def cluster_name_problems(name: str) -> list[str]:
    """Why `name` cannot name a cluster (empty when it can), in Kubernetes' wording."""
    if len(name) > CLUSTER_NAME_MAX:
        return [f"must be no more than {CLUSTER_NAME_MAX} characters"]
    return dns1123_label_errors(name)


def registration_annotations(cluster_id: str, provider: str, region: str, zones: list[str]) -> dict[str, str]:
    """The annotations a registration's CSR carries (empty values left out)."""
    values = {
        CLUSTER_ID_ANNOTATION: cluster_id,
        PROVIDER_ANNOTATION: provider,
        REGION_ANNOTATION: region,
        ZONES_ANNOTATION: ",".join(zone for zone in zones if zone),
    }
    return {key: value for key, value in values.items() if value}


def requested_cluster_id(annotations: Mapping[str, Any]) -> str:
    return str(annotations.get(CLUSTER_ID_ANNOTATION) or "")


def pull_cluster(name: str, annotations: Mapping[str, Any]) -> dict[str, Any]:
    """The Cluster a registration is accepted as: syncMode Pull with what the member said of itself."""
    spec: dict[str, Any] = {"syncMode": str(ClusterSyncMode.PULL)}
    cluster_id = requested_cluster_id(annotations)
    if cluster_id:
        spec["id"] = cluster_id
    for key, field in ((PROVIDER_ANNOTATION, "provider"), (REGION_ANNOTATION, "region")):
        value = str(annotations.get(key) or "")
        if value:
            spec[field] = value
    zones = [zone for zone in str(annotations.get(ZONES_ANNOTATION) or "").split(",") if zone]
    if zones:
        spec["zones"] = zones
    return {"apiVersion": CLUSTER.api_version, "kind": CLUSTER.kind, "metadata": {"name": name}, "spec": spec}


def registration_conflict(
    name: str, existing: Mapping[str, Any] | None, annotations: Mapping[str, Any]
) -> str:
    """Why the registration of `name` cannot be accepted given the Cluster already there ("" if it can).

    The same member registering again (same id, e.g. after losing its data directory) is accepted;
    a cluster recorded without an id accepts whoever registers under its name.
    """
    if existing is None:
        return ""
    metadata = existing.get("metadata") or {}
    spec = existing.get("spec") or {}
    if metadata.get("deletionTimestamp"):
        return f"cluster {name} is being removed from the hub; register again once it is gone"
    if spec.get("syncMode") != ClusterSyncMode.PULL:
        return (
            f"cluster {name} is already joined in {spec.get('syncMode') or 'Push'} mode; "
            "choose another name or unjoin it first"
        )
    existing_id = str(spec.get("id") or "")
    wanted_id = requested_cluster_id(annotations)
    if existing_id and existing_id != wanted_id:
        return (
            f"cluster {name} is already registered by another member (cluster id {existing_id}, "
            f"this member's id is {wanted_id or 'unknown'}); choose another name or unjoin it first"
        )
    return ""
