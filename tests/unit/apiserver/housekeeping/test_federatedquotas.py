"""What the hub's FederatedResourceQuota admission charges a workload template with."""

from __future__ import annotations

import asyncio
from typing import Any

from flotilla.api.karmada.federatedquota import written
from flotilla.apiserver.housekeeping.federatedquotas import (
    NamespaceWriteLocks,
    duplicated_copies,
    template_usage,
)


def rb(scheduling: str | None, clusters: int) -> dict[str, Any]:
    placement = {"replicaScheduling": {"replicaSchedulingType": scheduling}} if scheduling else {}
    return {"spec": {"placement": placement, "clusters": [{"name": f"m{i}"} for i in range(clusters)]}}


def test_a_template_asks_its_replicas_times_the_effective_requests_of_one_pod() -> None:
    """A container's limit stands for its missing request, as the scheduler reads the pod."""
    container = {"name": "c", "resources": {"requests": {"cpu": "500m"}, "limits": {"memory": "1Gi"}}}
    template = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {"replicas": 3, "template": {"spec": {"containers": [container]}}},
    }
    assert written(template_usage(template, 1) or {}) == {"cpu": "1500m", "memory": "3Gi"}
    assert written(template_usage(template, 2) or {}) == {"cpu": "3", "memory": "6Gi"}
    assert template_usage({"apiVersion": "v1", "kind": "ConfigMap"}, 1) is None


def test_duplicated_templates_count_once_per_scheduled_cluster() -> None:
    """No placement type means Duplicated, as Karmada reads it; Divided counts once."""
    assert duplicated_copies(None) == 1
    assert duplicated_copies(rb(None, 3)) == 3
    assert duplicated_copies(rb("Duplicated", 2)) == 2
    assert duplicated_copies(rb("Divided", 3)) == 1
    assert duplicated_copies(rb("Duplicated", 0)) == 1


async def test_a_namespace_lock_waits_for_the_holders_release_or_its_end() -> None:
    """A second write in the namespace waits until the first releases (its commit) or its task ends;
    another namespace never waits, and a holder re-checking keeps its lock."""
    locks = NamespaceWriteLocks()
    order: list[str] = []
    first_holds = asyncio.Event()
    commit = asyncio.Event()

    async def first() -> None:
        await locks.hold("a")
        await locks.hold("a")  # re-checked after a lost race: still its own
        first_holds.set()
        await commit.wait()
        order.append("first committed")
        locks.release()

    async def second(namespace: str, name: str) -> None:
        await first_holds.wait()
        await locks.hold(namespace)
        order.append(name)  # ends without releasing: its task's end does

    async with asyncio.TaskGroup() as group:
        group.create_task(first())
        group.create_task(second("a", "second"))
        group.create_task(second("b", "other namespace"))
        await first_holds.wait()
        await asyncio.sleep(0)
        commit.set()
    assert order == ["other namespace", "first committed", "second"]
    await asyncio.wait_for(locks.hold("a"), 1)
