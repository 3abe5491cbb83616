"""The status the cluster controller writes on a Cluster, composed from what it observed.

The controller owns five fields of `Cluster.status` — `kubernetesVersion`, `apiEnablements`,
`nodeSummary`, `resourceSummary` and the conditions `Ready` and `CompleteAPIEnablements` — and
writes them with server-side apply, which removes any owned field an apply leaves out. So every
write carries all five: fresh values when the member could be read, the Cluster's current values
otherwise. As in Karmada, the member is only read while it is Ready: a cluster that is unhealthy,
unreachable, or not yet past its success threshold gets a new Ready condition and keeps the rest.

Collection failures are handled field by field: if discovery fails the enablements are emptied and
`CompleteAPIEnablements` turns False with reason `Empty` (the scheduler then trusts the list no
more); if the version or the node and pod lists cannot be read, the previous values stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flotilla.api.karmada.cluster import APIEnablement, ClusterStatus, NodeSummary, ResourceSummary
from flotilla.api.karmada.constants import CLUSTER_CONDITION_COMPLETE_API_ENABLEMENTS, CLUSTER_CONDITION_READY
from flotilla.api.karmada.model import Condition
from flotilla.controllers.cluster.health import set_condition

OWNED_CONDITIONS = (CLUSTER_CONDITION_READY, CLUSTER_CONDITION_COMPLETE_API_ENABLEMENTS)
OWNED_FIELDS = ("kubernetesVersion", "apiEnablements", "nodeSummary", "resourceSummary", "conditions")


@dataclass(frozen=True, slots=True)
class MemberStatus:
    """What was read from a Ready member; None for each part that could not be read."""

    kubernetes_version: str | None = None
    api_enablements: list[APIEnablement] | None = None
    node_summary: NodeSummary | None = None
    resource_summary: ResourceSummary | None = None


def api_enablements_condition(enablements: list[APIEnablement] | None) -> Condition:
    """`CompleteAPIEnablements`: True when discovery answered, False (`Empty`) when it did not."""
    if enablements:
        return Condition(
            type=CLUSTER_CONDITION_COMPLETE_API_ENABLEMENTS,
            status="True",
            reason="Complete",
            message="collected complete APIEnablements from the cluster",
        )
    return Condition(
        type=CLUSTER_CONDITION_COMPLETE_API_ENABLEMENTS,
        status="False",
        reason="Empty",
        message="collected empty APIEnablements from the cluster",
    )


def desired_status(
    current: ClusterStatus, ready: Condition, member: MemberStatus | None, now: datetime
) -> ClusterStatus:
    """The owned part of the status to apply: `ready`, plus `member` when it was read."""
    conditions = [c for c in current.conditions if c.type in OWNED_CONDITIONS]
    status = ClusterStatus(
        kubernetes_version=current.kubernetes_version,
        api_enablements=list(current.api_enablements),
        node_summary=current.node_summary,
        resource_summary=current.resource_summary,
    )
    if member is not None:
        if member.kubernetes_version is not None:
            status.kubernetes_version = member.kubernetes_version
        status.api_enablements = list(member.api_enablements or [])
        conditions = set_condition(conditions, api_enablements_condition(member.api_enablements), now)
        if member.node_summary is not None:
            status.node_summary = member.node_summary
        if member.resource_summary is not None:
            status.resource_summary = member.resource_summary
    status.conditions = set_condition(conditions, ready, now)
    return status


def owned_fields(status: ClusterStatus) -> dict[str, Any]:
    """The wire form of the fields this controller owns (others' conditions left out)."""
    wire = status.to_object()
    owned = {name: wire[name] for name in OWNED_FIELDS if wire.get(name) not in (None, [], {})}
    conditions = [c for c in owned.get("conditions", []) if c.get("type") in OWNED_CONDITIONS]
    if conditions:
        owned["conditions"] = conditions
    else:
        owned.pop("conditions", None)
    return owned


def status_changed(current: ClusterStatus, desired: ClusterStatus) -> bool:
    """Whether applying `desired` would change the Cluster's status."""
    return owned_fields(current) != owned_fields(desired)
