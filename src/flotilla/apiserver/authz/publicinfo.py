"""Anyone may read `kube-public/cluster-info`: the one object anonymous requests reach.

A member given only a bootstrap token fetches it over unverified TLS to learn the hub's CA (see
`authn/clusterinfo.py`); kubeadm grants it with a Role, which an operator may remove. The server
keeps it readable regardless, by wrapping its authorizer in `PublicClusterInfo`.
"""

from __future__ import annotations

from flotilla.apiserver.authz import AuthorizationAttributes, Authorizer, Decision

CLUSTER_INFO_NAMESPACE = "kube-public"
CLUSTER_INFO_NAME = "cluster-info"


def cluster_info_is_public(attributes: AuthorizationAttributes) -> bool:
    """Whether the request is the anonymous-readable GET of kube-public/configmaps/cluster-info."""
    return (
        attributes.resource_request
        and attributes.verb == "get"
        and attributes.group == ""
        and attributes.resource == "configmaps"
        and not attributes.subresource
        and attributes.namespace == CLUSTER_INFO_NAMESPACE
        and attributes.name == CLUSTER_INFO_NAME
    )


class PublicClusterInfo:
    """An authorizer that also lets anyone read cluster-info (until RBAC grants it by a Role)."""

    def __init__(self, inner: Authorizer) -> None:
        self.inner = inner

    def authorize(self, attributes: AuthorizationAttributes) -> Decision:
        decision = self.inner.authorize(attributes)
        if decision.allowed or not cluster_info_is_public(attributes):
            return decision
        return Decision(True, "cluster-info is public")
