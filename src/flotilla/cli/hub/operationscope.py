"""Which clusters a read verb runs against: karmadactl's `--operation-scope` and `--clusters`.

`karmada` is the hub alone (what kubectl would show), `members` every member cluster — or only
those named with `--clusters` — and `all` the hub followed by the members. Members are reached
through the hub's cluster proxy as the hub user (`flotilla.cli.hub.connection.proxy_client`), as
karmadactl does: Pull members behind NAT too, and each member's RBAC decides what the user sees.

Every member joined to the hub is asked, Ready or not, as karmadactl does: a member that cannot
be reached (or whose credentials are missing) becomes a failure of its own, reported beside the
results of the others, rather than silently missing from the output.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from flotilla.api.karmada.constants import CLUSTER
from flotilla.cli.hub.connection import proxy_client
from flotilla.cli.output.kubectlerrors import Failure, KubectlError
from flotilla.cli.output.printers import HUB_CLUSTER
from flotilla.client import Client


class OperationScope(enum.StrEnum):
    KARMADA = "karmada"
    MEMBERS = "members"
    ALL = "all"

    @property
    def includes_hub(self) -> bool:
        return self in (OperationScope.KARMADA, OperationScope.ALL)

    @property
    def includes_members(self) -> bool:
        return self in (OperationScope.MEMBERS, OperationScope.ALL)


@dataclass(frozen=True, slots=True)
class Target:
    """One cluster to read from: the hub or a member, with its client or why there is none."""

    cluster: str
    """A member's name, or HUB_CLUSTER."""
    client: Client | None
    failure: Failure | None = None

    @property
    def is_hub(self) -> bool:
        return self.cluster == HUB_CLUSTER


def split_cluster_names(values: Sequence[str]) -> list[str]:
    """`--clusters a,b --clusters c` as ["a", "b", "c"] (blank entries dropped, order kept)."""
    names: list[str] = []
    for value in values:
        for name in value.split(","):
            if name.strip() and name.strip() not in names:
                names.append(name.strip())
    return names


async def member_names(hub: Client) -> list[str]:
    """Every Cluster joined to the hub, by name."""
    clusters, _ = await hub.list(CLUSTER)
    return sorted(str((cluster.get("metadata") or {}).get("name") or "") for cluster in clusters)


@contextlib.asynccontextmanager
async def open_targets(
    hub: Client, scope: OperationScope, cluster_names: Sequence[str] = ()
) -> AsyncIterator[list[Target]]:
    """The targets of `scope` (the hub first, then members by name), member clients closed on exit.

    Raises KubectlError when `cluster_names` names a cluster the hub does not know, as karmadactl
    refuses `--clusters` with a cluster that does not exist.
    """
    targets: list[Target] = [Target(HUB_CLUSTER, hub)] if scope.includes_hub else []
    if scope.includes_members:
        known = await member_names(hub)
        missing = [name for name in cluster_names if name not in known]
        if missing:
            raise KubectlError(Failure(f"clusters don't exist: {','.join(missing)}"))
        targets.extend(Target(name, proxy_client(hub, name)) for name in cluster_names or known)
    try:
        yield targets
    finally:
        members = [target.client for target in targets if target.client is not None and not target.is_hub]
        await asyncio.gather(*(client.close() for client in members), return_exceptions=True)
