"""The `kubernetes.io/kube-apiserver-client` signer: approved requests get their certificate.

kube-controller-manager's csrsigning controller, inside the API server (which holds the CA). A
request of this signer that is approved, not denied, not failed and not yet issued is signed
(`signing.py`) and its certificate written through the `status` subresource, as the server's own
user (which holds `sign` on every signer). A request the signer cannot serve — usages other than
client auth with digital signature and key encipherment, an unreadable request — gets a `Failed`
condition instead, and is never retried. Subjects are signed as approved: the approver decides
who may have which name; only `system:masters` is refused, already at creation. On a hub, an agent's
certificate is bound to the Cluster it was registered as (`agentbinding.py`).

Level-based: each reconcile re-reads the request; every request is looked at once at start, so a
crash between approval and issuance loses nothing.
"""

from __future__ import annotations

import base64
from typing import Any

import structlog

from flotilla.api.times import format_time
from flotilla.apiserver.certificates.agentbinding import agent_binding
from flotilla.apiserver.certificates.signingrequests import (
    CSR,
    FAILED,
    KUBE_APISERVER_CLIENT,
    certificate,
    expiration_seconds,
    has_condition,
    is_approved,
    parse_request,
    signer_name,
    usages,
)
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.pki.signing import (
    SigningAuthority,
    client_usage_problem,
    issue_client_certificate,
    signing_duration,
)
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import CacheEvent

log = structlog.get_logger("flotilla.apiserver.certificates")

FAILURE_REASON = "SignerValidationFailure"


def needs_signing(csr: dict[str, Any]) -> bool:
    """Approved, not failed, not issued, and ours to sign."""
    return (
        signer_name(csr) == KUBE_APISERVER_CLIENT
        and is_approved(csr)
        and not has_condition(csr, FAILED)
        and not certificate(csr)
        and not (csr.get("metadata") or {}).get("deletionTimestamp")
    )


def signing_problem(csr: dict[str, Any]) -> str:
    """Why this signer refuses the request ("" when it can sign it)."""
    if parse_request(csr) is None:
        return "unable to parse csr: PEM block type must be CERTIFICATE REQUEST"
    return client_usage_problem(usages(csr))


class KubeAPIServerClientSigner(CacheController):
    NAME = "csrsigning"

    def __init__(self, ctx: APIContext) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx
        self.client = LocalClient(ctx, "certificatesigningrequest-signing-controller")
        served = ctx.registry.by_kind(CSR)
        assert served is not None
        self._prefix = served.storage_prefix

    def start(self) -> None:
        for csr in self.client.list(CSR):
            self.queue.add(str((csr.get("metadata") or {}).get("name", "")))
        super().start()

    def keys_for(self, event: CacheEvent) -> list[Any]:
        if event.type == "DELETED" or not event.object.key.startswith(self._prefix):
            return []
        return [event.object.name] if needs_signing(event.object.obj) else []

    async def reconcile(self, key: Any) -> float | None:
        authority = self.ctx.signing_authority
        csr = self.client.peek(CSR, str(key))
        if not isinstance(authority, SigningAuthority) or csr is None or not needs_signing(csr):
            return None
        problem = signing_problem(csr)
        if problem:
            await self.client.mutate(
                CSR, str(key), lambda obj: self._fail(obj, problem), subresource="status"
            )
            log.info("certificates.csr.failed", name=str(key), signer=KUBE_APISERVER_CLIENT, reason=problem)
            return None
        request = parse_request(csr)
        assert request is not None
        pem = issue_client_certificate(
            authority,
            request,
            usages(csr),
            signing_duration(expiration_seconds(csr)),
            self.ctx.clock(),
            agent_binding(self.ctx, request),
        )
        encoded = base64.b64encode(pem).decode()
        await self.client.mutate(CSR, str(key), lambda obj: self._issue(obj, encoded), subresource="status")
        log.info(
            "certificates.csr.signed",
            name=str(key),
            signer=KUBE_APISERVER_CLIENT,
            subject=request.subject.rfc4514_string(),
        )
        return None

    def _issue(self, csr: dict[str, Any], encoded: str) -> None:
        if needs_signing(csr):  # a concurrent writer may have denied it meanwhile
            csr.setdefault("status", {})["certificate"] = encoded

    def _fail(self, csr: dict[str, Any], message: str) -> None:
        if not needs_signing(csr):
            return
        stamp = format_time(self.ctx.clock())
        csr.setdefault("status", {}).setdefault("conditions", []).append(
            {
                "type": FAILED,
                "status": "True",
                "reason": FAILURE_REASON,
                "message": message,
                "lastUpdateTime": stamp,
                "lastTransitionTime": stamp,
            }
        )
