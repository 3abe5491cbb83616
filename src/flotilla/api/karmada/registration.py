"""Pull-mode registration as data: what a member asks for, and the Cluster the hub accepts it as.

`flotilla register` asks for its agent's certificate with a CertificateSigningRequest and has no
right to create anything else with its bootstrap token. So the member's side of the registration
rides on the CSR as annotations (`registration_annotations`): the cluster's permanent id (the UID
of the member's `kube-system` namespace, as `flotilla join` and Karmada record it) and its
provider, region and zones. The hub accepts the registration — automatically in its approver, or
when an operator runs `flotilla accept` — by creating `pull_cluster(...)` (syncMode Pull, no
endpoint or credentials: the hub never dials a Pull member) and the agent's RBAC objects
(`agentrbac.py`), then approving the CSR.

`registration_conflict` is the one rule both acceptors apply. A cluster name belongs to the identity
that first registered it: the Cluster records its requester (`REQUESTER_ANNOTATION`, the bootstrap
token's user `system:bootstrap:<token-id>`), and a later registration under that name is accepted
only from the same requester with the same cluster id — a member retrying after a crash, or after
losing its data directory, with its token. Anyone else is refused, whatever cluster id they claim:
the id is the UID of the member's `kube-system` namespace, which is no secret, so it proves nothing.
A name taken by a Push cluster or by a cluster being removed is refused too. Refusals never repeat
what the hub recorded of the existing cluster (its id, its requester), so a refused registration
learns nothing it could use for a second try.

The hub operator may release a name for another registration (a reinstalled member with a new
token) by removing the requester annotation; the next registration whose id matches (or any, when
the Cluster records no id) binds the name again. A registration made by the operator's own
credentials (RBAC allows it `certificatesigningrequests/clusteragent`), or accepted with
`flotilla accept`, is the operator's consent and is not held to the requester.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada.constants import CLUSTER, ClusterSyncMode
from flotilla.api.names import dns1123_label_errors

CLUSTER_ID_ANNOTATION = "registration.flotilla.io/cluster-id"
PROVIDER_ANNOTATION = "registration.flotilla.io/cluster-provider"
REGION_ANNOTATION = "registration.flotilla.io/cluster-region"
ZONES_ANNOTATION = "registration.flotilla.io/cluster-zones"
"""Comma-separated."""
REQUESTER_ANNOTATION = "registration.flotilla.io/requester"
"""On a Pull Cluster: the user whose registration created it, the only one who may register it again."""

ACCEPTED_BY_OPERATOR = "AcceptedByOperator"
"""The reason of the Approved condition `flotilla accept` writes."""
REGISTRATION_REFUSED = "ClusterRegistrationRefused"
"""The reason of the Denied condition the approver writes when a registration conflicts."""


class ClusterAcceptance(enum.StrEnum):
    """How a hub accepts Pull registrations (`flotilla apiserver --cluster-acceptance`)."""

    AUTO = "auto"
    """Karmada's behaviour: a valid registration is accepted at once."""
    MANUAL = "manual"
    """OCM's double handshake: bootstrap registrations wait for `flotilla accept`."""


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


def pull_cluster(name: str, annotations: Mapping[str, Any], requester: str = "") -> dict[str, Any]:
    """The Cluster a registration is accepted as: syncMode Pull with what the member said of itself,
    bound to the `requester` who registered it."""
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
    metadata: dict[str, Any] = {"name": name}
    if requester:
        metadata["annotations"] = {REQUESTER_ANNOTATION: requester}
    return {"apiVersion": CLUSTER.api_version, "kind": CLUSTER.kind, "metadata": metadata, "spec": spec}


def recorded_requester(cluster: Mapping[str, Any]) -> str:
    """The user a Pull Cluster is bound to ("" when none is recorded)."""
    annotations = (cluster.get("metadata") or {}).get("annotations") or {}
    return str(annotations.get(REQUESTER_ANNOTATION) or "")


def registration_conflict(
    name: str,
    existing: Mapping[str, Any] | None,
    annotations: Mapping[str, Any],
    requester: str = "",
    *,
    operator: bool = False,
) -> str:
    """Why `requester`'s registration of `name` cannot be accepted given the Cluster already there
    ("" if it can). `operator`: the hub operator consents, so the recorded requester does not bind.
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
    bound_to = recorded_requester(existing)
    existing_id = str(spec.get("id") or "")
    same_requester = operator or not bound_to or bound_to == requester
    if same_requester and (not existing_id or existing_id == requested_cluster_id(annotations)):
        return ""
    return (
        f"cluster {name} is already registered by another member; choose another name. If this member "
        f"is {name} registering again with a new token, the hub operator must release the name first "
        f"(`kubectl annotate cluster {name} {REQUESTER_ANNOTATION}-`) or remove the cluster "
        f"(`flotilla unjoin {name}`)"
    )
