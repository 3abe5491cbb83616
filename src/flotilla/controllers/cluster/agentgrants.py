"""What a Pull cluster's agent leaves on the hub, removed when its Cluster is deleted.

Accepting a Pull cluster creates the agent's RBAC objects (`api/karmada/agentrbac.py`: a
ClusterRole and ClusterRoleBinding, a Role and RoleBinding in its execution namespace, in
`karmada-cluster` and in `kube-public`, all labelled `cluster.karmada.io/agent-of=<cluster>`), and
the agent itself creates its heartbeat Lease `karmada-cluster/<cluster>`. Deleting the Cluster must
take the agent's rights with it — a leaked agent certificate must not outlive its cluster — so the
cluster controller, before it removes its finalizer, deletes every object with that label where
`agent_rbac_objects` puts them, and the Lease. Each delete carries the uid it listed, so an object
re-created meanwhile is not deleted by mistake; a repeat finds nothing left and costs a few lists.

`grant_locations` (which kinds in which namespaces to look in) and `agent_selector` are pure.
"""

from __future__ import annotations

from flotilla.api.karmada.agentrbac import CLUSTER_LABEL, agent_rbac_objects
from flotilla.api.karmada.constants import KARMADA_CLUSTER_NAMESPACE
from flotilla.api.scheme import GroupVersion, GroupVersionKind
from flotilla.client.interfaces import ReadWriter
from flotilla.controllers.cluster.lease import LEASE


def agent_selector(cluster_name: str) -> str:
    """The label selector of every RBAC object granting the agent of `cluster_name` its rights."""
    return f"{CLUSTER_LABEL}={cluster_name}"


def grant_locations(cluster_name: str) -> list[tuple[GroupVersionKind, str]]:
    """(kind, namespace) pairs where the agent's RBAC objects live ("" for cluster-scoped ones), in
    the order they are created."""
    locations: list[tuple[GroupVersionKind, str]] = []
    for obj in agent_rbac_objects(cluster_name):
        group_version = GroupVersion.parse(str(obj["apiVersion"]))
        location = (
            GroupVersionKind(group_version.group, group_version.version, str(obj["kind"])),
            str(obj["metadata"].get("namespace") or ""),
        )
        if location not in locations:
            locations.append(location)
    return locations


async def remove_agent_grants(hub: ReadWriter, cluster_name: str) -> list[str]:
    """Delete the agent's RBAC objects and its Lease; `kind namespace/name` of each one deleted."""
    deleted: list[str] = []
    # Bindings before roles (reverse creation order): rights go before the roles they point at.
    for gvk, namespace in reversed(grant_locations(cluster_name)):
        found, _ = await hub.list(gvk, namespace=namespace, label_selector=agent_selector(cluster_name))
        for obj in found:
            metadata = obj.get("metadata") or {}
            name = str(metadata.get("name") or "")
            answer = await hub.delete(gvk, name, namespace=namespace, uid=str(metadata.get("uid") or ""))
            if answer is not None:
                deleted.append(f"{gvk.kind} {namespace}/{name}" if namespace else f"{gvk.kind} {name}")
    if await hub.delete(LEASE, cluster_name, namespace=KARMADA_CLUSTER_NAMESPACE) is not None:
        deleted.append(f"{LEASE.kind} {KARMADA_CLUSTER_NAMESPACE}/{cluster_name}")
    return deleted
