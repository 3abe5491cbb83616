"""Auto-approval of Karmada agent certificates asked for by bootstrap identities (agentcsrapproving).

Pull-mode registration creates, with a bootstrap token, CSRs for the agent's identity
(`system:karmada:agent:<cluster>` in group `system:karmada:agents`) and waits for the certificate;
karmada-controller-manager approves them without a human. So does this controller, for a request that
is an agent request and comes from someone entitled to one:

- an agent request: signer `kubernetes.io/kube-apiserver-client`; subject organization exactly
  `system:karmada:agents`, common name starting `system:karmada:agent:`; no DNS, email, IP or URI
  names; usages exactly digital signature, key encipherment and client auth (key encipherment may
  be left out);
- entitled: the requester is a bootstrap identity (group `system:bootstrappers` or one of its
  `system:bootstrappers:*` subgroups) or RBAC allows it `create` on
  `certificatesigningrequests/clusteragent` (Karmada's permission); or the agent renews its own
  certificate — the requester's name is the request's common name — and RBAC allows it `create`
  on `certificatesigningrequests/selfclusteragent`.

It approves through the `approval` subresource with reason `AutoApproved`, as the server's own user.
Requests it does not recognise, or from someone not entitled, are left for a human (`kubectl
certificate approve`); the signer (`signer.py`) then issues the approved ones.
"""

from __future__ import annotations

from typing import Any

import structlog
from cryptography import x509

from flotilla.apiserver.admission import UserInfo
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.certificates.approval import write_approval
from flotilla.apiserver.certificates.signingrequests import (
    APPROVED,
    CSR,
    DENIED,
    GROUP,
    KUBE_APISERVER_CLIENT,
    certificate,
    common_name,
    conditions,
    has_condition,
    organizations,
    parse_request,
    requester,
    signer_name,
    usages,
)
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.controllers.base import InProcessController
from flotilla.apiserver.pipeline import system_options
from flotilla.apiserver.watchcache import CachedObject, CacheEvent

log = structlog.get_logger("flotilla.apiserver.certificates")

AGENT_GROUP = "system:karmada:agents"
AGENT_USER_PREFIX = "system:karmada:agent:"
BOOTSTRAPPERS = "system:bootstrappers"
AGENT_USAGES = frozenset({"digital signature", "key encipherment", "client auth"})
AGENT_USAGES_WITHOUT_KEY_ENCIPHERMENT = frozenset({"digital signature", "client auth"})
REASON = "AutoApproved"
AGENT_MESSAGE = "Auto approving karmada agent certificate after SubjectAccessReview."
SELF_AGENT_MESSAGE = "Auto approving self karmada agent certificate after SubjectAccessReview."


def agent_request_problem(request: x509.CertificateSigningRequest, requested_usages: list[str]) -> str:
    """Why this is not a Karmada agent certificate request ("" when it is), in Karmada's words."""
    if organizations(request) != [AGENT_GROUP]:
        return f"subject organization is not {AGENT_GROUP}"
    try:
        names = request.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        names = None
    if names is not None:
        for kind, label in (
            (x509.DNSName, "DNS"),
            (x509.RFC822Name, "email"),
            (x509.IPAddress, "IP"),
            (x509.UniformResourceIdentifier, "URI"),
        ):
            if names.get_values_for_type(kind):
                return f"{label} subjectAltNames are not allowed"
    if not common_name(request).startswith(AGENT_USER_PREFIX):
        return f"subject common name does not begin with {AGENT_USER_PREFIX} prefix"
    if set(requested_usages) not in (AGENT_USAGES, AGENT_USAGES_WITHOUT_KEY_ENCIPHERMENT):
        return f"usages did not match {sorted(AGENT_USAGES)}"
    return ""


def is_bootstrapper(user: UserInfo) -> bool:
    return any(group == BOOTSTRAPPERS or group.startswith(f"{BOOTSTRAPPERS}:") for group in user.groups)


def may_create(ctx: APIContext, user: UserInfo, subresource: str) -> bool:
    """The SubjectAccessReview Karmada's approver asks: `create` on `certificatesigningrequests/<sub>`."""
    attributes = AuthorizationAttributes(
        user=user,
        verb="create",
        resource_request=True,
        group=GROUP,
        version="*",
        resource="certificatesigningrequests",
        subresource=subresource,
    )
    return ctx.authorizer.authorize(attributes).allowed


def approval_message(ctx: APIContext, csr: dict[str, Any]) -> str:
    """Why this request is approved automatically ("" when it is not)."""
    if signer_name(csr) != KUBE_APISERVER_CLIENT or certificate(csr):
        return ""
    if has_condition(csr, APPROVED) or has_condition(csr, DENIED):
        return ""
    request = parse_request(csr)
    if request is None or agent_request_problem(request, usages(csr)):
        return ""
    user = requester(csr)
    if user.username == common_name(request) and may_create(ctx, user, "selfclusteragent"):
        return SELF_AGENT_MESSAGE
    if is_bootstrapper(user) or may_create(ctx, user, "clusteragent"):
        return AGENT_MESSAGE
    return ""


class AgentCSRApprover(InProcessController):
    NAME = "agent-csr-approving"

    def __init__(self, ctx: APIContext) -> None:
        super().__init__(ctx)
        self.options = system_options("agent-csr-approving-controller")
        served = ctx.registry.by_kind(CSR)
        assert served is not None
        self.served = served

    def start(self) -> None:
        for item in self.ctx.cache.list(self.served.storage_prefix):
            self.queue.add(item.name)
        super().start()

    def keys_for(self, event: CacheEvent) -> list[Any]:
        item = event.object
        if event.type == "DELETED" or not item.key.startswith(self.served.storage_prefix):
            return []
        return [item.name] if signer_name(item.obj) == KUBE_APISERVER_CLIENT else []

    async def reconcile(self, key: Any) -> float | None:
        current = self.ctx.store.get(self.served, "", str(key))
        if current is None or not approval_message(self.ctx, current.obj):
            return None

        def approve(live: CachedObject) -> dict[str, Any]:
            message = approval_message(self.ctx, live.obj)
            if not message:  # decided by someone else meanwhile: leave it as it is
                return live.obj
            added = {"type": APPROVED, "status": "True", "reason": REASON, "message": message}
            return {
                **live.obj,
                "status": {**(live.obj.get("status") or {}), "conditions": [*conditions(live.obj), added]},
            }

        await write_approval(self.ctx, self.served, str(key), self.options, approve)
        log.info("certificates.csr.auto_approved", name=str(key), requester=requester(current.obj).username)
        return None
