"""`flotilla accept NAME`: the hub operator's half of the double handshake (manual acceptance).

With `flotilla apiserver --cluster-acceptance manual`, a member's `flotilla register` creates its
agent's CSR with a bootstrap token and waits: the hub's approver leaves such requests pending.
`accept --list` shows them; `accept NAME` accepts cluster NAME as the approver would in auto mode —
namespaces, the Cluster (syncMode Pull, from the CSR's registration annotations, bound to the
request's requester), the agent's RBAC
(server-side apply) — and then approves the pending request(s) through the `approval` subresource
with reason `AcceptedByOperator`; the hub's signer issues the certificate and `register` goes on.

A registration is refused when the name is taken by another cluster (the same rule the approver
applies), or when members with different cluster ids are waiting under one name (deny the unwanted
ones with `kubectl certificate deny`).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from cryptography import x509
from cryptography.x509.oid import NameOID

from flotilla.api.duration import UNKNOWN, short_human_duration, timestamp
from flotilla.api.karmada.agentrbac import AGENT_GROUP, agent_namespaces, agent_rbac_objects, cluster_of_agent
from flotilla.api.karmada.constants import CLUSTER
from flotilla.api.karmada.registration import (
    ACCEPTED_BY_OPERATOR,
    CLUSTER_ID_ANNOTATION,
    REQUESTER_ANNOTATION,
    pull_cluster,
    recorded_requester,
    registration_conflict,
)
from flotilla.cli.hub.connection import HubTarget, hub_options, run
from flotilla.cli.output.tabwriter import table
from flotilla.cli.registration.request import CSR, SIGNER
from flotilla.client import AlreadyExists, Client, Conflict

FIELD_MANAGER = "flotilla-accept"
BOOTSTRAPPERS = "system:bootstrappers"
ACCEPT_MESSAGE = "Cluster accepted by the hub operator (flotilla accept)."


@dataclass(frozen=True, slots=True)
class PendingRegistration:
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


def _undecided(csr: dict[str, Any]) -> bool:
    status = csr.get("status") or {}
    decided = {c.get("type") for c in status.get("conditions") or [] if c.get("status", "True") == "True"}
    return not status.get("certificate") and not decided & {"Approved", "Denied", "Failed"}


def pending_registration(csr: dict[str, Any]) -> PendingRegistration | None:
    """The registration a CSR makes, if it is a bootstrap identity's agent request still undecided."""
    spec = csr.get("spec") or {}
    groups = spec.get("groups") or []
    if spec.get("signerName") != SIGNER or not _undecided(csr):
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


def _age(created: str, now: datetime) -> str:
    then = timestamp(created)
    return UNKNOWN if then is None else short_human_duration(now - then)


@click.command()
@hub_options
@click.argument("name", required=False)
@click.option("--list", "list_only", is_flag=True, help="List the clusters waiting for acceptance.")
def accept(kubeconfig: Path | None, context: str | None, name: str | None, list_only: bool) -> None:
    """Accept cluster NAME, waiting to register with a hub that runs with manual acceptance.

    \b
    Examples:
      flotilla accept --list
      flotilla accept member1
    """
    target = HubTarget(kubeconfig, context)
    if list_only:
        pending = run(_pending(target))
        if not pending:
            click.echo("No clusters are waiting for acceptance.", err=True)
            return
        now = datetime.now(UTC)
        rows: list[tuple[str, ...]] = [
            (p.cluster_name, p.cluster_id or "<unknown>", p.requester, _age(p.created, now), p.request_name)
            for p in pending
        ]
        click.echo("\n".join(table([("NAME", "CLUSTER-ID", "REQUESTOR", "AGE", "REQUEST"), *rows])))
        return
    if not name:
        raise click.UsageError("name the cluster to accept (or --list those waiting)")
    run(_accept(target, name))
    click.echo(f"cluster {name} accepted")


async def _pending(target: HubTarget) -> list[PendingRegistration]:
    async with target.client(FIELD_MANAGER) as hub:
        items, _ = await hub.list(CSR)
    return pending_registrations(items)


async def _accept(target: HubTarget, name: str) -> None:
    async with target.client(FIELD_MANAGER) as hub:
        items, _ = await hub.list(CSR)
        pending = [p for p in pending_registrations(items) if p.cluster_name == name]
        existing = await hub.get_or_none(CLUSTER, name)
        problem = acceptance_problem(name, pending, existing)
        if problem:
            raise click.ClickException(problem)
        for namespace in agent_namespaces(name):
            with contextlib.suppress(AlreadyExists):
                await hub.create(namespace)
        requester = pending[-1].requester
        if existing is None:
            with contextlib.suppress(AlreadyExists):
                await hub.create(pull_cluster(name, pending[-1].annotations, requester))
        elif recorded_requester(existing) != requester:
            await hub.patch(CLUSTER, name, {"metadata": {"annotations": {REQUESTER_ANNOTATION: requester}}})
        for obj in agent_rbac_objects(name):
            await hub.apply(obj, field_manager=FIELD_MANAGER)
        for registration in pending:
            await _approve(hub, registration.request_name)


async def _approve(hub: Client, request_name: str) -> None:
    """Append an Approved condition through the approval subresource (re-reading on a conflict)."""
    for _ in range(5):
        csr = await hub.get(CSR, request_name)
        if not _undecided(csr):
            return
        status = csr.setdefault("status", {})
        status["conditions"] = [
            *(status.get("conditions") or []),
            {"type": "Approved", "status": "True", "reason": ACCEPTED_BY_OPERATOR, "message": ACCEPT_MESSAGE},
        ]
        try:
            await hub.update(csr, subresource="approval")
        except Conflict:
            continue
        return
    raise click.ClickException(
        f"certificate request {request_name} keeps changing; run `flotilla accept` again"
    )
