"""Registrations waiting for the hub operator (manual acceptance), and when accepting one is refused.

With `--cluster-acceptance manual` the hub's approver leaves a member's agent request pending. Such
a request is a CertificateSigningRequest for the agent signer, by a bootstrap token's identity
(`system:bootstrappers…`), for the subject `O=<agent group>, CN=<agent of cluster NAME>`, with
neither a decision nor a certificate yet. Accepting NAME is refused when nothing waits for it, when
members with different cluster ids wait under one name, or when the name is taken by another
cluster — the rule the approver applies, except that the operator's consent overrides the name's
recorded requester. Pure functions of the objects read; `flotilla accept` does the talking.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.x509.oid import NameOID

from flotilla.api.karmada.agentrbac import AGENT_GROUP, cluster_of_agent
from flotilla.api.karmada.registration import CLUSTER_ID_ANNOTATION, registration_conflict
from flotilla.cli.registration.request import SIGNER

BOOTSTRAPPERS = "system:bootstrappers"
"""The group of every bootstrap token's identity (and the prefix of each token's own group)."""


@dataclass(frozen=True, slots=True)
class PendingRegistration:
    """A member's agent request that waits for the operator: the cluster it asks to be, and who asks."""

    request_name: str
    cluster_name: str
    cluster_id: str
    requester: str
    created: str
    annotations: dict[str, Any]


def _subject(csr: dict[str, Any], oid: x509.ObjectIdentifier) -> list[str]:
    try:
        pem = base64.b64decode((csr.get("spec") or {}).get("request") or "", validate=True)
        request = x509.load_pem_x509_csr(pem)
    except (binascii.Error, ValueError):
        return []
    return [str(attribute.value) for attribute in request.subject.get_attributes_for_oid(oid)]


def undecided(csr: dict[str, Any]) -> bool:
    """Whether nobody has approved, denied or failed the request yet, and no certificate was issued."""
    status = csr.get("status") or {}
    decided = {c.get("type") for c in status.get("conditions") or [] if c.get("status", "True") == "True"}
    return not status.get("certificate") and not decided & {"Approved", "Denied", "Failed"}


def pending_registration(csr: dict[str, Any]) -> PendingRegistration | None:
    """The registration a CSR makes, if it is a bootstrap identity's agent request still undecided."""
    spec = csr.get("spec") or {}
    groups = spec.get("groups") or []
    if spec.get("signerName") != SIGNER or not undecided(csr):
        return None
    if not any(group == BOOTSTRAPPERS or str(group).startswith(f"{BOOTSTRAPPERS}:") for group in groups):
        return None
    if _subject(csr, NameOID.ORGANIZATION_NAME) != [AGENT_GROUP]:
        return None
    common_names = _subject(csr, NameOID.COMMON_NAME)
    cluster_name = cluster_of_agent(common_names[0]) if common_names else None
    if cluster_name is None:
        return None
    metadata = csr.get("metadata") or {}
    annotations = dict(metadata.get("annotations") or {})
    return PendingRegistration(
        request_name=str(metadata.get("name", "")),
        cluster_name=cluster_name,
        cluster_id=str(annotations.get(CLUSTER_ID_ANNOTATION) or ""),
        requester=str(spec.get("username", "")),
        created=str(metadata.get("creationTimestamp", "")),
        annotations=annotations,
    )


def pending_registrations(csrs: list[dict[str, Any]]) -> list[PendingRegistration]:
    """The pending registrations among `csrs`, by cluster name, oldest first."""
    found = (pending_registration(csr) for csr in csrs)
    return sorted((p for p in found if p is not None), key=lambda p: (p.cluster_name, p.created))


def acceptance_problem(name: str, pending: list[PendingRegistration], existing: dict[str, Any] | None) -> str:
    """Why cluster `name` cannot be accepted now ("" when it can)."""
    if not pending:
        return (
            f"no registration of cluster {name} is waiting for acceptance "
            "(`flotilla accept --list` shows those that are)"
        )
    ids = sorted({p.cluster_id for p in pending})
    if len(ids) > 1:
        requests = ", ".join(p.request_name for p in pending)
        shown = ", ".join(cluster_id or "unknown" for cluster_id in ids)
        return (
            f"several members ask to be cluster {name} (cluster ids {shown}); "
            f"deny the unwanted requests among {requests} with `kubectl certificate deny`, then accept again"
        )
    # The operator's acceptance is consent: the name's recorded requester does not bind it.
    return registration_conflict(
        name, existing, pending[-1].annotations, pending[-1].requester, operator=True
    )
