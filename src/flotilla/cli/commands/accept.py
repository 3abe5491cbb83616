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

import contextlib
from datetime import UTC, datetime
from pathlib import Path

import click

from flotilla.api.duration import UNKNOWN, short_human_duration, timestamp
from flotilla.api.karmada.agentrbac import agent_namespaces, agent_rbac_objects
from flotilla.api.karmada.constants import CLUSTER
from flotilla.api.karmada.registration import (
    ACCEPTED_BY_OPERATOR,
    REQUESTER_ANNOTATION,
    pull_cluster,
    recorded_requester,
)
from flotilla.cli.hub.connection import HubTarget, hub_options, run
from flotilla.cli.output.tabwriter import table
from flotilla.cli.registration.acceptance import (
    PendingRegistration,
    acceptance_problem,
    pending_registrations,
    undecided,
)
from flotilla.cli.registration.request import CSR
from flotilla.client import AlreadyExists, Client, Conflict

FIELD_MANAGER = "flotilla-accept"
ACCEPT_MESSAGE = "Cluster accepted by the hub operator (flotilla accept)."


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
        if not undecided(csr):
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
