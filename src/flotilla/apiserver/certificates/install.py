"""Wiring the Certificates API into one API server: its admission, its authorizers, the `approval`
subresource and its three controllers."""

from __future__ import annotations

from flotilla.apiserver.certificates import approver, cleaner, signer
from flotilla.apiserver.certificates.admission import APPROVAL, CertificateAdmission
from flotilla.apiserver.certificates.agentbinding import AgentBindingAuthorizer
from flotilla.apiserver.certificates.agentrestriction import AgentRestriction
from flotilla.apiserver.certificates.approval import APPROVAL_HANDLERS
from flotilla.apiserver.certificates.requesters import RESOURCE, RequesterAuthorizer
from flotilla.apiserver.certificates.signingrequests import GROUP
from flotilla.apiserver.context import APIContext


class CertificateControllers:
    """The signer, the agent approver and the cleaner; creating it installs the CSR admission, the
    agents' restriction (their own Cluster's description, their own Lease), and the authorizers that
    let requesters read their own requests and bind agents to their cluster.

    The admission wraps whatever admission the context has at that moment (the webhooks), so
    create this after the context's admission is set.
    """

    def __init__(self, ctx: APIContext) -> None:
        if not isinstance(ctx.admission, CertificateAdmission):
            ctx.admission = CertificateAdmission(ctx, AgentRestriction(ctx.admission))
        ctx.subresource_handlers[(GROUP, RESOURCE, APPROVAL)] = APPROVAL_HANDLERS
        if not isinstance(ctx.authorizer, AgentBindingAuthorizer):
            ctx.authorizer = AgentBindingAuthorizer(ctx, RequesterAuthorizer(ctx, ctx.authorizer))
        self.signer = signer.KubeAPIServerClientSigner(ctx)
        self.approver = approver.AgentCSRApprover(ctx)
        self.cleaner = cleaner.CSRCleaner(ctx)

    def start(self) -> None:
        self.approver.start()
        self.signer.start()
        self.cleaner.start()

    async def stop(self) -> None:
        await self.cleaner.stop()
        await self.signer.stop()
        await self.approver.stop()
