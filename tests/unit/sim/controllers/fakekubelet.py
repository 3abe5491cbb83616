"""A stand-in for the kubelet in controller tests: it moves pods through phases when told to.

Controllers only read pod state; these helpers write it through the status subresource as a
kubelet would (Running with a Ready condition and a pod IP, Succeeded, Failed), or keep making new
pods Ready until a claim about the cluster holds. Tests wait with `tests.support.waiting`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from flotilla.api.times import format_time
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import SystemClock
from flotilla.sim.controllers.framework.kinds import POD

_addresses = itertools.count(2)


def next_pod_ip() -> str:
    number = next(_addresses)
    return f"10.244.{number // 250}.{number % 250 + 1}"


async def set_ready(
    client: LocalClient, pod: dict[str, Any], *, ready: bool = True, since: datetime | None = None
) -> dict[str, Any]:
    """Mark a pod Running with an IP and a Ready condition of the given status."""
    stamp = format_time(since or SystemClock().now())

    def change(obj: dict[str, Any]) -> None:
        status = obj.setdefault("status", {})
        status["phase"] = "Running"
        status.setdefault("podIP", next_pod_ip())
        status["podIPs"] = [{"ip": status["podIP"]}]
        status["conditions"] = [
            {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": stamp},
            {"type": "ContainersReady", "status": "True" if ready else "False", "lastTransitionTime": stamp},
        ]

    meta = pod["metadata"]
    return await client.mutate(POD, meta["name"], change, namespace=meta["namespace"], subresource="status")


async def set_phase(client: LocalClient, pod: dict[str, Any], phase: str) -> dict[str, Any]:
    """Finish a pod (Succeeded / Failed): its Ready condition goes False."""
    stamp = format_time(SystemClock().now())

    def change(obj: dict[str, Any]) -> None:
        status = obj.setdefault("status", {})
        status["phase"] = phase
        status["conditions"] = [
            {"type": "Ready", "status": "False", "reason": "PodCompleted", "lastTransitionTime": stamp}
        ]

    meta = pod["metadata"]
    return await client.mutate(POD, meta["name"], change, namespace=meta["namespace"], subresource="status")


def pods_of(client: LocalClient, namespace: str, owner_uid: str) -> list[dict[str, Any]]:
    """The pods controlled by the object with this uid, in name order."""
    return [
        pod
        for pod in client.list(POD, namespace=namespace)
        if any(ref.get("uid") == owner_uid for ref in pod["metadata"].get("ownerReferences") or ())
    ]


async def ready_all(client: LocalClient, candidates: Iterable[dict[str, Any]]) -> int:
    """Make every pending, not-deleting pod among `candidates` Running and Ready; how many were."""
    count = 0
    for pod in list(candidates):
        if pod.get("status", {}).get("phase") == "Pending" and not pod["metadata"].get("deletionTimestamp"):
            await set_ready(client, pod)
            count += 1
    return count


async def run_pods_until(
    client: LocalClient, namespace: str, check: Callable[[], bool], *, timeout: float = 5.0
) -> None:
    """Act as an instant kubelet: keep making new pods Running and Ready until `check()` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await ready_all(client, client.list(POD, namespace=namespace))
        await asyncio.sleep(0.005)
