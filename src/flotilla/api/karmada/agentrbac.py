"""What a Pull cluster's agent may do on the hub: its identity and the RBAC objects that grant it.

A Pull member's agent talks to the hub with a client certificate for the user
`system:karmada:agent:<cluster>` in the group `system:karmada:agents`, issued through a CSR. The
hub must let that identity run one cluster and nothing more (OCM's and Karmada's agents are scoped
the same way), so a leaked agent credential cannot read or change another member's workloads:

- its own Cluster and `clusters/status`: get/list/watch/update/patch, by resource name (a list or
  watch is allowed only when it selects that name with `fieldSelector=metadata.name=<cluster>`);
- the Works of its execution namespace `karmada-es-<cluster>` and their status, nothing elsewhere;
- `clusters/tunnel` of its own Cluster: the WebSocket that carries the hub's cluster-proxy
  requests to a member behind NAT (the hub also checks that only that cluster's agent opens it);
- its heartbeat Lease `karmada-cluster/<cluster>` (`coordination.k8s.io`): create in that namespace
  (a create request carries no name for RBAC to match), get/list/watch/update/patch by name;
- events (create/patch/update) in those two namespaces only, about its Works and its Cluster;
- CSRs: create, and `certificatesigningrequests/selfclusteragent`, which lets the hub's approver
  renew its own certificate without a human. It reads its own requests (to wait for the certificate)
  as every requester does, through the hub's requester authorizer, never another's;
- `kube-public/cluster-info`, to re-check the hub's CA;
- ResourceInterpreterCustomizations and ResourceInterpreterWebhookConfigurations (`config.karmada.io`):
  get/list/watch, so the agent interprets its cluster's objects (Retain, InterpretStatus,
  InterpretHealth) as the hub's controllers do. They are cluster-wide configuration, not any
  member's workloads.

`agent_rbac_objects` returns the ClusterRole/ClusterRoleBinding pair (cluster-scoped rules) and one
Role/RoleBinding pair per namespace it needs; all are named after the identity, so applying them
again (server-side apply) is idempotent and removing a cluster's grants is deleting those names.
Roles can only be created in existing namespaces: `agent_namespaces` lists the ones to create first.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.config import (
    CONFIG_GROUP,
    RESOURCE_INTERPRETER_CUSTOMIZATIONS,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATIONS,
)
from flotilla.api.karmada.constants import CLUSTER_GROUP, KARMADA_CLUSTER_NAMESPACE, WORK_GROUP
from flotilla.api.karmada.names import execution_namespace

AGENT_GROUP = "system:karmada:agents"
"""The group (certificate organization) of every agent identity."""
AGENT_USER_PREFIX = "system:karmada:agent:"
"""An agent's user name (certificate common name) is this prefix and the cluster's name."""

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_API_VERSION = f"{RBAC_GROUP}/v1"
COORDINATION_GROUP = "coordination.k8s.io"
CERTIFICATES_GROUP = "certificates.k8s.io"
EVENTS_GROUP = "events.k8s.io"
CLUSTER_INFO_NAMESPACE = "kube-public"
CLUSTER_INFO_NAME = "cluster-info"

CLUSTER_LABEL = "cluster.karmada.io/agent-of"
"""Marks every object granting an agent's rights with its cluster: `kubectl get clusterroles -l …`."""

_READ = ("get", "list", "watch")
_INTERPRETER_CONFIGURATIONS = (
    RESOURCE_INTERPRETER_CUSTOMIZATIONS.resource,
    RESOURCE_INTERPRETER_WEBHOOK_CONFIGURATIONS.resource,
)
_READ_WRITE = (*_READ, "patch", "update")


def agent_user_name(cluster_name: str) -> str:
    """The user name of the agent of `cluster_name`."""
    return AGENT_USER_PREFIX + cluster_name


def cluster_of_agent(user_name: str) -> str | None:
    """The cluster whose agent `user_name` is, or None when it is no agent's name."""
    if not user_name.startswith(AGENT_USER_PREFIX) or user_name == AGENT_USER_PREFIX:
        return None
    return user_name[len(AGENT_USER_PREFIX) :]


def agent_namespaces(cluster_name: str) -> list[dict[str, Any]]:
    """The Namespaces the agent's Roles live in (besides `kube-public`, which every hub has)."""
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        for name in (execution_namespace(cluster_name), KARMADA_CLUSTER_NAMESPACE)
    ]


def agent_rbac_objects(cluster_name: str) -> list[dict[str, Any]]:
    """The ClusterRole, ClusterRoleBinding, Roles and RoleBindings giving the agent exactly its rights."""
    name = agent_user_name(cluster_name)
    labels = {CLUSTER_LABEL: cluster_name}
    cluster_rules = [
        _rule(_READ_WRITE, CLUSTER_GROUP, ("clusters", "clusters/status"), (cluster_name,)),
        _rule(("get",), CLUSTER_GROUP, ("clusters/tunnel",), (cluster_name,)),
        _rule(("create",), CERTIFICATES_GROUP, ("certificatesigningrequests",)),
        _rule(("create",), CERTIFICATES_GROUP, ("certificatesigningrequests/selfclusteragent",)),
        _rule(_READ, CONFIG_GROUP, _INTERPRETER_CONFIGURATIONS),
    ]
    namespaced_rules = {
        execution_namespace(cluster_name): [
            _rule(_READ_WRITE, WORK_GROUP, ("works", "works/status")),
            *_event_rules(),
        ],
        KARMADA_CLUSTER_NAMESPACE: [
            _rule(("create",), COORDINATION_GROUP, ("leases",)),
            _rule(_READ_WRITE, COORDINATION_GROUP, ("leases",), (cluster_name,)),
            *_event_rules(),
        ],
        CLUSTER_INFO_NAMESPACE: [
            _rule(("get",), "", ("configmaps",), (CLUSTER_INFO_NAME,)),
        ],
    }
    objects: list[dict[str, Any]] = [
        {
            "apiVersion": RBAC_API_VERSION,
            "kind": "ClusterRole",
            "metadata": {"name": name, "labels": labels},
            "rules": cluster_rules,
        },
        _binding("ClusterRoleBinding", "ClusterRole", name, "", labels),
    ]
    for namespace, rules in namespaced_rules.items():
        objects.append(
            {
                "apiVersion": RBAC_API_VERSION,
                "kind": "Role",
                "metadata": {"name": name, "namespace": namespace, "labels": labels},
                "rules": rules,
            }
        )
        objects.append(_binding("RoleBinding", "Role", name, namespace, labels))
    return objects


def _event_rules() -> list[dict[str, Any]]:
    return [
        _rule(("create", "patch", "update"), "", ("events",)),
        _rule(("create", "patch", "update"), EVENTS_GROUP, ("events",)),
    ]


def _rule(
    verbs: tuple[str, ...], group: str, resources: tuple[str, ...], names: tuple[str, ...] = ()
) -> dict[str, Any]:
    body: dict[str, Any] = {"apiGroups": [group], "resources": list(resources), "verbs": sorted(verbs)}
    if names:
        body["resourceNames"] = list(names)
    return body


def _binding(kind: str, role_kind: str, name: str, namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "labels": labels}
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": kind,
        "metadata": metadata,
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": name},
        "subjects": [{"kind": "User", "apiGroup": RBAC_GROUP, "name": name}],
    }
