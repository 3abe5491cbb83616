"""What a Pull agent may write, beyond what RBAC can say (as kube's NodeRestriction does for kubelets).

**Its Cluster: what it says of its member, not how the hub reaches it.**
An agent holds `update` and `patch` on its Cluster (Karmada's agent keeps it current). Left at that,
a leaked agent certificate could turn its cluster into a Push cluster whose `apiEndpoint` is the
attacker's and whose `secretRef` names *another* member's credentials — and the hub would send them
there — or drop the taints and finalizers the hub relies on, or rebind the name to another
registration. So on an agent's update of its Cluster only the member's self-description may change:
`spec.provider`, `spec.region`, `spec.zone`, `spec.zones`, labels and annotations other than
the registration's requester. Everything else in `spec` (sync mode, endpoint, credentials,
impersonation, proxy, TLS, id, taints, resource models) and the finalizers are the hub's; a change
to them is 403 with the fields named. The status subresource is the agent's to write.

**Its Lease only.** RBAC cannot limit a create by name (the request has none), so an agent could
create the heartbeat Lease of a cluster not yet registered — or of one whose Lease was just deleted —
and keep it looking alive. An agent may create in `karmada-cluster` only the Lease named after its
own cluster.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.agentrbac import cluster_of_agent
from flotilla.api.karmada.constants import CLUSTER, KARMADA_CLUSTER_NAMESPACE
from flotilla.api.karmada.registration import REQUESTER_ANNOTATION
from flotilla.apiserver import errors
from flotilla.apiserver.admission import Admission, AdmissionAttributes

MEMBER_SPEC_FIELDS = frozenset({"provider", "region", "zone", "zones"})
"""The spec fields an agent may set: what the member says of itself."""


def hub_owned_changes(obj: dict[str, Any], old: dict[str, Any]) -> list[str]:
    """The fields of a Cluster an agent changed but may not (empty: the update is the agent's to make)."""
    spec, old_spec = obj.get("spec") or {}, old.get("spec") or {}
    changed = sorted(
        f"spec.{key}"
        for key in set(spec) | set(old_spec)
        if key not in MEMBER_SPEC_FIELDS and spec.get(key) != old_spec.get(key)
    )
    meta, old_meta = obj.get("metadata") or {}, old.get("metadata") or {}
    if (meta.get("annotations") or {}).get(REQUESTER_ANNOTATION) != (old_meta.get("annotations") or {}).get(
        REQUESTER_ANNOTATION
    ):
        changed.append(f"metadata.annotations[{REQUESTER_ANNOTATION}]")
    if (meta.get("finalizers") or []) != (old_meta.get("finalizers") or []):
        changed.append("metadata.finalizers")
    return changed


LEASE_GROUP = "coordination.k8s.io"


class AgentRestriction:
    """Refuses an agent's changes to the hub-owned fields of its Cluster and its creation of any Lease
    but its own; then the wrapped admission."""

    def __init__(self, inner: Admission) -> None:
        self.inner = inner

    async def mutate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> list[str]:
        return await self.inner.mutate(attributes, obj, old)

    async def validate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> list[str]:
        agent_of = cluster_of_agent(attributes.user.username)
        if (
            agent_of is not None
            and attributes.operation == "CREATE"
            and _is_lease(attributes)
            and attributes.namespace == KARMADA_CLUSTER_NAMESPACE
            and attributes.name != agent_of
        ):
            raise errors.Forbidden(
                f'leases.{LEASE_GROUP} "{attributes.name}" is forbidden: an agent may create only its '
                f'own cluster\'s Lease ("{agent_of}") in {KARMADA_CLUSTER_NAMESPACE}',
                name=attributes.name,
                group=LEASE_GROUP,
                kind="leases",
            )
        if (
            obj is not None
            and old is not None
            and attributes.operation == "UPDATE"
            and not attributes.subresource
            and attributes.resource.type.group == CLUSTER.group
            and attributes.resource.type.kind == CLUSTER.kind
            and agent_of is not None
        ):
            changed = hub_owned_changes(obj, old)
            if changed:
                raise errors.Forbidden(
                    f'clusters.{CLUSTER.group} "{attributes.name}" is forbidden: an agent may change only '
                    f"what its member says of itself (spec.{', spec.'.join(sorted(MEMBER_SPEC_FIELDS))}, "
                    f"labels, annotations); not {', '.join(changed)}",
                    name=attributes.name,
                    group=CLUSTER.group,
                    kind="clusters",
                )
        return await self.inner.validate(attributes, obj, old)


def _is_lease(attributes: AdmissionAttributes) -> bool:
    return attributes.resource.type.group == LEASE_GROUP and attributes.resource.type.kind == "Lease"
