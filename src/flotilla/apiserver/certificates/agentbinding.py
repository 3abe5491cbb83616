"""An agent's certificate works only for the registration it was issued for.

The signer binds every agent certificate it issues on a hub to the UID of the Cluster the agent
registered as (`authn/clusterbinding.py` holds the name it writes); `AgentBindingAuthorizer` refuses
every request of a user named `system:karmada:agent:<cluster>` unless its credential carries the UID
of the Cluster `<cluster>` that exists now. So a certificate outlives neither its cluster's removal
nor the name being registered again by someone else, although certificates cannot be revoked; and
an agent identity reached by any other credential (a static token, impersonation without the extra)
has no rights on a hub. Servers that serve no Cluster (simulated members) are left alone.
"""

from __future__ import annotations

from cryptography import x509
from cryptography.x509.oid import NameOID

from flotilla.api.karmada.agentrbac import cluster_of_agent
from flotilla.api.karmada.constants import CLUSTER
from flotilla.apiserver.authz import AuthorizationAttributes, Authorizer, Decision
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.pki.clusterbinding import CLUSTER_UID_EXTRA, binding_name


def current_cluster_uid(ctx: APIContext, cluster_name: str) -> str | None:
    """The UID of Cluster `cluster_name` now ("" when it does not exist); None on a server without
    Clusters."""
    served = ctx.registry.by_kind(CLUSTER)
    if served is None:
        return None
    current = ctx.store.get(served, "", cluster_name)
    if current is None:
        return ""
    return str((current.obj.get("metadata") or {}).get("uid") or "")


def agent_binding(ctx: APIContext, request: x509.CertificateSigningRequest) -> list[x509.GeneralName]:
    """The names binding the certificate for `request` to its cluster (none unless it is an agent's
    request on a hub whose Cluster exists)."""
    names = request.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    cluster_name = cluster_of_agent(str(names[0].value)) if names else None
    if cluster_name is None:
        return []
    uid = current_cluster_uid(ctx, cluster_name)
    return [binding_name(uid)] if uid else []


class AgentBindingAuthorizer:
    """Refuses agent identities whose credential is not bound to their cluster's current registration."""

    def __init__(self, ctx: APIContext, inner: Authorizer) -> None:
        self.ctx = ctx
        self.inner = inner

    def authorize(self, attributes: AuthorizationAttributes) -> Decision:
        cluster_name = cluster_of_agent(attributes.user.username)
        if cluster_name is not None:
            uid = current_cluster_uid(self.ctx, cluster_name)
            bound = attributes.user.extra.get(CLUSTER_UID_EXTRA) or []
            if uid is not None and (not uid or list(bound) != [uid]):
                return Decision(
                    False,
                    f"the credential of {attributes.user.username} was not issued for the current "
                    f"registration of cluster {cluster_name}; register the member again",
                )
        return self.inner.authorize(attributes)
