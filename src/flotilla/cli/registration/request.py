"""The agent's certificate: a private key, a CertificateSigningRequest, and waiting for its answer.

The agent's hub identity is `system:karmada:agent:<cluster>` in group `system:karmada:agents`,
asked for as kubelets and Karmada's agents ask: an ECDSA P-256 key made here (it never leaves the
member), a PKCS#10 request with that subject and no alternative names, sent as a CSR to signer
`kubernetes.io/kube-apiserver-client` with usages digital signature, key encipherment and client
auth, created with the bootstrap token. The CSR carries the member's registration annotations (its
cluster id, provider, region, zones) for the hub to create the Cluster from.

The hub answers by approving and issuing (`status.certificate`), or by denying with a reason; with
manual acceptance it may take until an operator runs `flotilla accept`. `wait_for_certificate`
watches the one request (list, then watch from its resourceVersion, again after a dropped watch)
until one of those happens or the deadline passes.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from flotilla.api.karmada.agentrbac import AGENT_GROUP, agent_user_name
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, ClientError, Unavailable

CSR = GroupVersionKind("certificates.k8s.io", "v1", "CertificateSigningRequest")
SIGNER = "kubernetes.io/kube-apiserver-client"
USAGES = ["digital signature", "key encipherment", "client auth"]
DEFAULT_EXPIRATION_SECONDS = 365 * 24 * 3600


class RequestRefused(Exception):
    """The hub denied the request, or the request failed or vanished; the message says why."""


class RequestTimedOut(Exception):
    """No answer before the deadline."""


@dataclass(frozen=True, slots=True)
class AgentKey:
    private_key_pem: bytes
    request_pem: bytes


def new_agent_key(cluster_name: str) -> AgentKey:
    """A fresh private key and the certificate request of the agent of `cluster_name`."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, AGENT_GROUP),
            x509.NameAttribute(NameOID.COMMON_NAME, agent_user_name(cluster_name)),
        ]
    )
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return AgentKey(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
        request.public_bytes(serialization.Encoding.PEM),
    )


def signing_request(
    cluster_name: str,
    request_pem: bytes,
    annotations: dict[str, str],
    expiration_seconds: int = DEFAULT_EXPIRATION_SECONDS,
) -> dict[str, Any]:
    """The CSR object (the server picks the name's random suffix)."""
    return {
        "apiVersion": CSR.api_version,
        "kind": CSR.kind,
        "metadata": {"generateName": f"agent-{cluster_name}-", "annotations": annotations},
        "spec": {
            "request": base64.b64encode(request_pem).decode(),
            "signerName": SIGNER,
            "usages": list(USAGES),
            "expirationSeconds": expiration_seconds,
        },
    }


def issued_certificate(csr: dict[str, Any]) -> bytes | None:
    """The issued certificate (PEM), None while there is none; RequestRefused once there never will be."""
    status = csr.get("status") or {}
    for condition in status.get("conditions") or []:
        if condition.get("status", "True") != "True":
            continue
        if condition.get("type") in ("Denied", "Failed"):
            verb = "denied" if condition["type"] == "Denied" else "could not sign"
            reason = condition.get("reason") or condition["type"]
            message = condition.get("message") or "no reason given"
            raise RequestRefused(f"the hub {verb} the certificate request ({reason}): {message}")
    certificate = status.get("certificate")
    return base64.b64decode(certificate) if certificate else None


async def wait_for_certificate(
    client: Client,
    name: str,
    deadline: float,
    on_still_pending: Callable[[], None],
    pending_after: float = 3.0,
) -> bytes:
    """The certificate of CSR `name` once issued; `on_still_pending` runs once if none after a while."""
    loop = asyncio.get_running_loop()
    reminder = loop.call_later(pending_after, on_still_pending)
    try:
        async with asyncio.timeout_at(loop.time() + max(0.0, deadline - time.monotonic())):
            return await _watch_until_issued(client, name)
    except TimeoutError as exc:
        raise RequestTimedOut(f"certificate request {name} was not answered in time") from exc
    finally:
        reminder.cancel()


async def _watch_until_issued(client: Client, name: str) -> bytes:
    selector = f"metadata.name={name}"
    while True:
        try:
            items, version = await client.list(CSR, field_selector=selector)
        except Unavailable:
            await asyncio.sleep(1.0)  # the hub is restarting: ask again
            continue
        if not items:
            raise RequestRefused(f"certificate request {name} was deleted on the hub before it was answered")
        certificate = issued_certificate(items[0])
        if certificate is not None:
            return certificate
        try:
            async for event in client.watch(
                CSR, field_selector=selector, resource_version=version, timeout_seconds=60
            ):
                if event.type == "DELETED":
                    raise RequestRefused(
                        f"certificate request {name} was deleted on the hub before it was answered"
                    )
                if event.type in ("ADDED", "MODIFIED"):
                    certificate = issued_certificate(event.object)
                    if certificate is not None:
                        return certificate
                elif event.type == "ERROR":
                    break
        except ClientError:
            await asyncio.sleep(1.0)  # a dropped watch (hub restarting): list again
