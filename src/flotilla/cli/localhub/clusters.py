"""`flotilla up`'s conversation with the hub: join the simulated members, then wait until they are Ready.

Joining is `flotilla join` as a library (`membership.joining.join_cluster`: credentials Secret,
then a Push `Cluster` with region, zones and provider), followed by a merge patch that puts the
member's labels (`topology.kubernetes.io/region`, `…/zone`, `provider`, the user's own) on the
Cluster, so both `clusterAffinity.labelSelector` and spread by region find them. A member the hub
already knows is not joined again — that is what happens on every `up` after the first — but its
API endpoint is corrected if the sim had to move it to another port, and labels it lacks are added.

Readiness is the Cluster's `Ready` condition, written by the cluster controller of the controller
manager after it probed the member; `up` polls the Cluster list and reports each member as it turns
Ready.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.localhub.members import MemberPlacement, missing_labels
from flotilla.cli.membership.joining import join_cluster
from flotilla.client import Client, ClientError, load_kubeconfig

CLUSTER = GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster")
FIELD_MANAGER = "flotilla-up"
READY_POLL_SECONDS = 0.2
WAITING_NOTE_SECONDS = 15.0
"""While members are not Ready yet, say which ones and why this often (so a stuck start is visible)."""


@dataclass(frozen=True, slots=True)
class JoinOutcome:
    """What `up` did about one member on the hub."""

    name: str
    joined: bool
    """True: joined now; False: it was joined by an earlier `up`."""
    endpoint_moved: bool = False


def ready_condition(cluster: dict[str, Any]) -> dict[str, Any] | None:
    for condition in (cluster.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            found: dict[str, Any] = condition
            return found
    return None


def is_ready(cluster: dict[str, Any]) -> bool:
    condition = ready_condition(cluster)
    return condition is not None and condition.get("status") == "True"


def readiness_note(cluster: dict[str, Any] | None) -> str:
    """Why a member is not Ready yet, in a few words: its condition, or that nobody has probed it yet."""
    if cluster is None:
        return "no Cluster object"
    condition = ready_condition(cluster)
    if condition is None:
        return "not probed yet"
    reason = condition.get("reason") or condition.get("status", "Unknown")
    message = condition.get("message")
    return f"{reason}: {message}" if message else str(reason)


async def join_members(
    hub_kubeconfig: Path, members: list[MemberPlacement], member_kubeconfigs: dict[str, Path]
) -> list[JoinOutcome]:
    """Join every member the hub does not know yet and describe each one; what was done per member."""
    async with Client(load_kubeconfig(hub_kubeconfig), field_manager=FIELD_MANAGER) as hub:
        existing = {
            (cluster.get("metadata") or {}).get("name", ""): cluster
            for cluster in (await hub.list(CLUSTER))[0]
        }
        return list(
            await asyncio.gather(
                *(
                    _join_one(hub, hub_kubeconfig, member, member_kubeconfigs[member.name], existing)
                    for member in members
                )
            )
        )


async def _join_one(
    hub: Client,
    hub_kubeconfig: Path,
    member: MemberPlacement,
    member_kubeconfig: Path,
    existing: dict[str, dict[str, Any]],
) -> JoinOutcome:
    cluster = existing.get(member.name)
    moved = False
    if cluster is None:
        cluster = await join_cluster(
            member.name,
            hub_kubeconfig,
            None,
            member_kubeconfig,
            None,
            member.provider,
            member.region,
            list(member.zones),
            False,
        )
    else:
        server = load_kubeconfig(member_kubeconfig).server
        if (cluster.get("spec") or {}).get("apiEndpoint") != server:
            # The sim keeps a member's port across restarts unless another process took it meanwhile.
            cluster = await hub.patch(CLUSTER, member.name, {"spec": {"apiEndpoint": server}})
            moved = True
    labels = missing_labels(cluster, member)
    if labels:
        await hub.patch(CLUSTER, member.name, {"metadata": {"labels": labels}})
    return JoinOutcome(member.name, joined=member.name not in existing, endpoint_moved=moved)


async def wait_until_ready(
    hub_kubeconfig: Path,
    names: list[str],
    timeout: float,
    on_ready: Callable[[str], None],
    on_waiting: Callable[[dict[str, str]], None],
) -> None:
    """Poll the Clusters until every one of `names` is Ready, calling `on_ready` once per member.

    `on_waiting` gets the members still waiting and why, every `WAITING_NOTE_SECONDS`. TimeoutError
    after `timeout` seconds names the members that never got Ready and their condition.
    """
    pending = set(names)
    started = time.monotonic()
    next_note = started + WAITING_NOTE_SECONDS
    async with Client(load_kubeconfig(hub_kubeconfig), field_manager=FIELD_MANAGER, timeout=10) as hub:
        while True:
            try:
                clusters = {
                    (cluster.get("metadata") or {}).get("name", ""): cluster
                    for cluster in (await hub.list(CLUSTER))[0]
                }
            except ClientError:
                clusters = {}  # a slow or restarting hub is not a verdict; the deadline is
            for name in names:
                if name in pending and name in clusters and is_ready(clusters[name]):
                    pending.discard(name)
                    on_ready(name)
            if not pending:
                return
            now = time.monotonic()
            waiting = {name: readiness_note(clusters.get(name)) for name in names if name in pending}
            if now - started > timeout:
                details = "; ".join(f"{name}: {note}" for name, note in waiting.items())
                raise TimeoutError(f"not Ready after {timeout:.0f}s — {details}")
            if now >= next_note:
                on_waiting(waiting)
                next_note = now + WAITING_NOTE_SECONDS
            await asyncio.sleep(READY_POLL_SECONDS)
