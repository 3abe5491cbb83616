"""Wiring the Certificates API into one API server: its admission, its authorizers and its three
controllers.

The controllers are reached through their modules (not imported by name) because they build on
`controllers.base`, whose package imports this module: either side may be imported first.
"""

from __future__ import annotations

from flotilla.apiserver.certificates import approver, cleaner, signer
from flotilla.apiserver.certificates.admission import CertificateAdmission
from flotilla.apiserver.certificates.agentbinding import AgentBindingAuthorizer
from flotilla.apiserver.certificates.requesters import RequesterAuthorizer
from flotilla.apiserver.context import APIContext


class CertificateControllers:
    """The signer, the agent approver and the cleaner; creating it installs the CSR admission and
    the authorizers that let requesters read their own requests and bind agents to their cluster.

    The admission wraps whatever admission the context has at that moment (the webhooks), so
    create this after the context's admission is set.
    """

    def __init__(self, ctx: APIContext) -> None:
        if not isinstance(ctx.admission, CertificateAdmission):
            ctx.admission = CertificateAdmission(ctx, ctx.admission)
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
