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

On a hub (a server that serves Karmada's Cluster), a request that is not a renewal registers a Pull
cluster, named by the common name after the prefix. Before approving it the approver accepts the
registration (`acceptance.py`): it creates the Cluster, bound to the requester, and the agent's RBAC
objects. A registration whose name is taken by another cluster or belongs to another requester
(`registration_conflict`) is denied, with reason `ClusterRegistrationRefused` and the conflict as
message (which never repeats what the hub knows of the existing cluster), so `flotilla register` can
say why. With
manual acceptance, registrations by bootstrap identities stay pending for `flotilla accept`; those
by users RBAC allows `certificatesigningrequests/clusteragent` are the operator's own consent and are
accepted as in auto mode. Renewals are always approved.
"""

from __future__ import annotations

from typing import Any

import structlog
from cryptography import x509

from flotilla.api.karmada.agentrbac import AGENT_GROUP, AGENT_USER_PREFIX, cluster_of_agent
from flotilla.api.karmada.registration import (
    REGISTRATION_REFUSED,
    ClusterAcceptance,
    cluster_name_problems,
    registration_conflict,
)
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.certificates.acceptance import (
    accept_registration,
    acceptance_mode,
    existing_cluster,
    serves_clusters,
)
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
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import CachedObject, CacheEvent
from flotilla.apiserver.users import UserInfo
from flotilla.apiserver.writes.pipeline import system_options

log = structlog.get_logger("flotilla.apiserver.certificates")

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


class AgentCSRApprover(CacheController):
    NAME = "agent-csr-approving"

    def __init__(self, ctx: APIContext) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx
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
        if current is None:
            return None
        message = approval_message(self.ctx, current.obj)
        if not message:
            return None
        registration = message == AGENT_MESSAGE and serves_clusters(self.ctx)
        if registration and not await self._accept(str(key), current.obj):
            return None
        await self._decide(str(key), APPROVED, REASON, message)
        log.info("certificates.csr.auto_approved", name=str(key), requester=requester(current.obj).username)
        return None

    async def _accept(self, key: str, csr: dict[str, Any]) -> bool:
        """Accept the registration this request makes; False when it is denied or left to an operator."""
        request = parse_request(csr)
        assert request is not None  # approval_message parsed it
        name = cluster_of_agent(common_name(request)) or ""
        annotations = (csr.get("metadata") or {}).get("annotations") or {}
        user = requester(csr)
        problems = cluster_name_problems(name)
        refusal = (
            f"{name!r} cannot name a cluster: {'; '.join(problems)}"
            if problems
            else registration_conflict(
                name,
                existing_cluster(self.ctx, name),
                annotations,
                user.username,
                operator=not is_bootstrapper(user),
            )
        )
        if refusal:
            await self._decide(key, DENIED, REGISTRATION_REFUSED, refusal)
            log.info(
                "certificates.registration.refused",
                name=key,
                cluster=name,
                requester=user.username,
                reason=refusal,
            )
            return False
        if acceptance_mode(self.ctx) is ClusterAcceptance.MANUAL and is_bootstrapper(user):
            log.info("certificates.registration.waiting_for_operator", name=key, cluster=name)
            return False
        await accept_registration(self.ctx, name, annotations, user.username)
        return True

    async def _decide(self, key: str, kind: str, reason: str, message: str) -> None:
        def decided(live: CachedObject) -> dict[str, Any]:
            if not approval_message(self.ctx, live.obj):  # decided by someone else meanwhile
                return live.obj
            added = {"type": kind, "status": "True", "reason": reason, "message": message}
            return {
                **live.obj,
                "status": {**(live.obj.get("status") or {}), "conditions": [*conditions(live.obj), added]},
            }

        await write_approval(self.ctx, self.served, key, self.options, decided)
