"""Whoever asked for a certificate may read their own request, and nobody else's.

A registering member holds only a bootstrap token, shared by every member an operator hands it to,
and must wait for its CertificateSigningRequest to be answered (a list and a watch selecting it by
name, as client-go's certificate waiter does). kube's `system:node-bootstrapper` role lets a bootstrap
token list every CSR, and with them what other members said of themselves; on a hub that is the
first step of taking over another member's cluster. So the bootstrap tokens' role may only create
requests (`bootstrappolicy.py`), agents likewise, and `RequesterAuthorizer` allows a get, list or
watch of one request, named (by path or `metadata.name` field selector), when the stored request's
`spec.username` is the user asking — what kube's node authorizer does for a kubelet's own objects.
Asking for another's request, or one that does not exist, gets the same 403 as before: a name is
neither confirmed nor denied.
"""

from __future__ import annotations

from flotilla.apiserver.authz import AuthorizationAttributes, Authorizer, Decision
from flotilla.apiserver.certificates.signingrequests import CSR, GROUP
from flotilla.apiserver.context import APIContext

READ_VERBS = frozenset({"get", "list", "watch"})
RESOURCE = "certificatesigningrequests"
REASON = "the requester of a certificate signing request may read it"


class RequesterAuthorizer:
    """Allows a CSR's requester to read it (by name); everything else goes to `inner`."""

    def __init__(self, ctx: APIContext, inner: Authorizer) -> None:
        self.ctx = ctx
        self.inner = inner

    def authorize(self, attributes: AuthorizationAttributes) -> Decision:
        decision = self.inner.authorize(attributes)
        if decision.allowed or not self._own_request(attributes):
            return decision
        return Decision(True, REASON)

    def _own_request(self, attributes: AuthorizationAttributes) -> bool:
        if not (
            attributes.resource_request
            and attributes.verb in READ_VERBS
            and attributes.group == GROUP
            and attributes.resource == RESOURCE
            and not attributes.subresource
            and attributes.name
        ):
            return False
        served = self.ctx.registry.by_kind(CSR)
        stored = self.ctx.store.get(served, "", attributes.name) if served is not None else None
        if stored is None:
            return False
        return str((stored.obj.get("spec") or {}).get("username") or "") == attributes.user.username
