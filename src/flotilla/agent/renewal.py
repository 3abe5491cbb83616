"""The certificate round trip with the hub: send a signing request, wait for the certificate.

The hub's approver approves an agent's own renewal request and its signer issues the certificate,
each a moment later; the agent polls the request once a second (Karmada's agent does the same) for
at most `timeout` seconds. A request the hub denies or fails ends the wait at once with the
hub's reason. Failures are raised; the agent retries later with the old certificate, which is
still valid — it is renewed well before it expires.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass

import structlog

from flotilla.agent.certificates import (
    CSR,
    CertificateLifetime,
    issued_certificate,
    new_key_and_request,
    refusal,
    requested_expiration,
    signing_request,
)
from flotilla.client.interfaces import ReadWriter

log = structlog.get_logger("flotilla.agent")

POLL_SECONDS = 1.0


class RenewalFailed(Exception):
    """The hub did not issue a certificate (refused the request, or not in time)."""


@dataclass(frozen=True, slots=True)
class IssuedCredentials:
    certificate_pem: bytes
    key_pem: bytes
    request_name: str


async def request_certificate(
    hub: ReadWriter, cluster_name: str, current: CertificateLifetime, *, timeout: float = 300.0
) -> IssuedCredentials:
    """A new certificate and key for the agent of `cluster_name`, issued by the hub."""
    key_pem, request_pem = new_key_and_request(cluster_name)
    name = f"{cluster_name}-{secrets.token_hex(3)}"
    await hub.create(signing_request(name, request_pem, requested_expiration(current)))
    log.info("agent.certificate_requested", cluster=cluster_name, request=name)
    deadline = time.monotonic() + timeout
    while True:
        csr = await hub.get(CSR, name)
        certificate = issued_certificate(csr)
        if certificate is not None:
            return IssuedCredentials(certificate, key_pem, name)
        problem = refusal(csr)
        if problem is not None:
            raise RenewalFailed(f"certificate request {name} was refused: {problem}")
        if time.monotonic() >= deadline:
            raise RenewalFailed(f"certificate request {name} was not issued within {timeout:.0f}s")
        await asyncio.sleep(POLL_SECONDS)
