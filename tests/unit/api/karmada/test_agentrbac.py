"""The agent's RBAC objects, judged by the hub's own RBAC rule matching."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.karmada.agentrbac import (
    AGENT_GROUP,
    agent_namespaces,
    agent_rbac_objects,
    agent_user_name,
    cluster_of_agent,
)
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.authz.rbac import build_index
from flotilla.apiserver.authz.rules import allows
from flotilla.apiserver.users import UserInfo


def _allowed(cluster: str, request: dict[str, str]) -> bool:
    objects = agent_rbac_objects(cluster) + agent_rbac_objects("other")
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for item in objects:
        by_kind.setdefault(item["kind"], []).append(item)
    index = build_index(
        by_kind["Role"], by_kind["ClusterRole"], by_kind["RoleBinding"], by_kind["ClusterRoleBinding"]
    )
    user = UserInfo(agent_user_name(cluster), (AGENT_GROUP, "system:authenticated"))
    attributes = AuthorizationAttributes(user=user, resource_request=True, **request)
    return any(
        allows(rule, attributes)
        for grant in index.grants_for(user, attributes.namespace)
        for rule in grant.rules
    )


ALLOWED = [
    {"verb": "get", "group": "cluster.karmada.io", "resource": "clusters", "name": "a"},
    {"verb": "watch", "group": "cluster.karmada.io", "resource": "clusters", "name": "a"},
    {
        "verb": "patch",
        "group": "cluster.karmada.io",
        "resource": "clusters",
        "subresource": "status",
        "name": "a",
    },
    {
        "verb": "update",
        "group": "cluster.karmada.io",
        "resource": "clusters",
        "subresource": "status",
        "name": "a",
    },
    {"verb": "list", "group": "work.karmada.io", "resource": "works", "namespace": "karmada-es-a"},
    {"verb": "watch", "group": "work.karmada.io", "resource": "works", "namespace": "karmada-es-a"},
    {
        "verb": "update",
        "group": "work.karmada.io",
        "resource": "works",
        "namespace": "karmada-es-a",
        "name": "w",
    },
    {
        "verb": "patch",
        "group": "work.karmada.io",
        "resource": "works",
        "subresource": "status",
        "namespace": "karmada-es-a",
        "name": "w",
    },
    {"verb": "create", "group": "coordination.k8s.io", "resource": "leases", "namespace": "karmada-cluster"},
    {
        "verb": "update",
        "group": "coordination.k8s.io",
        "resource": "leases",
        "namespace": "karmada-cluster",
        "name": "a",
    },
    {"verb": "create", "group": "", "resource": "events", "namespace": "karmada-es-a"},
    {"verb": "create", "group": "events.k8s.io", "resource": "events", "namespace": "karmada-cluster"},
    {"verb": "create", "group": "certificates.k8s.io", "resource": "certificatesigningrequests"},
    {
        "verb": "create",
        "group": "certificates.k8s.io",
        "resource": "certificatesigningrequests",
        "subresource": "selfclusteragent",
    },
    {
        "verb": "get",
        "group": "",
        "resource": "configmaps",
        "namespace": "kube-public",
        "name": "cluster-info",
    },
]

REFUSED = [
    {"verb": "create", "group": "", "resource": "events", "namespace": "default"},
    {"verb": "create", "group": "events.k8s.io", "resource": "events", "namespace": "karmada-es-other"},
    # Its own requests it reads through the hub's requester authorizer, not through RBAC.
    {"verb": "list", "group": "certificates.k8s.io", "resource": "certificatesigningrequests"},
    {
        "verb": "get",
        "group": "certificates.k8s.io",
        "resource": "certificatesigningrequests",
        "name": "csr-1",
    },
    {"verb": "get", "group": "cluster.karmada.io", "resource": "clusters", "name": "other"},
    {"verb": "list", "group": "cluster.karmada.io", "resource": "clusters"},
    {"verb": "create", "group": "cluster.karmada.io", "resource": "clusters"},
    {"verb": "delete", "group": "cluster.karmada.io", "resource": "clusters", "name": "a"},
    {"verb": "list", "group": "work.karmada.io", "resource": "works", "namespace": "karmada-es-other"},
    {"verb": "list", "group": "work.karmada.io", "resource": "works"},
    {"verb": "create", "group": "work.karmada.io", "resource": "works", "namespace": "karmada-es-a"},
    {
        "verb": "update",
        "group": "coordination.k8s.io",
        "resource": "leases",
        "namespace": "karmada-cluster",
        "name": "other",
    },
    {"verb": "get", "group": "", "resource": "secrets", "namespace": "karmada-cluster", "name": "a"},
    {
        "verb": "create",
        "group": "certificates.k8s.io",
        "resource": "certificatesigningrequests",
        "subresource": "clusteragent",
    },
    {
        "verb": "update",
        "group": "certificates.k8s.io",
        "resource": "certificatesigningrequests",
        "subresource": "approval",
        "name": "csr-1",
    },
    {"verb": "get", "group": "", "resource": "configmaps", "namespace": "kube-public", "name": "other"},
]


@pytest.mark.parametrize(
    "request_", ALLOWED, ids=lambda r: f"{r['verb']}-{r['resource']}-{r.get('name', '')}"
)
def test_agent_may_do_what_running_its_cluster_needs(request_: dict[str, str]) -> None:
    """The agent of cluster `a` holds every right the agent's loops use for `a`."""
    assert _allowed("a", request_)


@pytest.mark.parametrize(
    "request_", REFUSED, ids=lambda r: f"{r['verb']}-{r['resource']}-{r.get('name', '')}"
)
def test_agent_may_not_touch_other_clusters_or_other_kinds(request_: dict[str, str]) -> None:
    """The agent of cluster `a` gets nothing of another cluster and nothing beyond its own loops."""
    assert not _allowed("a", request_)


def test_objects_are_named_after_the_identity_and_bind_only_it() -> None:
    """Every role and binding carries the agent's user name and binds that user alone."""
    objects = agent_rbac_objects("east")
    assert {item["kind"] for item in objects} == {"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
    assert {item["metadata"]["name"] for item in objects} == {"system:karmada:agent:east"}
    namespaces = {item["metadata"].get("namespace", "") for item in objects if item["kind"] == "Role"}
    assert namespaces == {"karmada-es-east", "karmada-cluster", "kube-public"}
    for binding in (item for item in objects if item["kind"].endswith("Binding")):
        assert binding["subjects"] == [
            {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "system:karmada:agent:east"}
        ]


def test_namespaces_holding_the_roles_are_listed_for_creation() -> None:
    """The execution namespace and the lease namespace are the ones to create before the Roles."""
    assert [item["metadata"]["name"] for item in agent_namespaces("east")] == [
        "karmada-es-east",
        "karmada-cluster",
    ]


def test_cluster_of_agent_reads_the_name_back() -> None:
    """An agent user name gives its cluster; other names give None."""
    assert cluster_of_agent(agent_user_name("east")) == "east"
    assert cluster_of_agent("system:karmada:agent:") is None
    assert cluster_of_agent("system:node:east") is None
