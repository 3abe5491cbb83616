"""All workload controllers together: a Deployment behind a Service, and a clean stop."""

from __future__ import annotations

import asyncio
from typing import Any

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import SystemClock
from flotilla.sim.controllers import WorkloadControllers
from flotilla.sim.controllers.framework.kinds import DEPLOYMENT, ENDPOINTS, POD, REPLICA_SET, SERVICE
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.fakekubelet import run_pods_until
from tests.unit.sim.controllers.harness import SPEC, pod_template


def ready_addresses(client: LocalClient) -> int:
    endpoints = client.get(ENDPOINTS, "web", namespace="default") or {}
    return sum(len(subset.get("addresses") or []) for subset in endpoints.get("subsets") or [])


async def test_a_deployment_behind_a_service_ends_up_with_ready_endpoints(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """Deployment → ReplicaSet → pods → (kubelet) ready → Endpoints list every pod; deletion cascades."""
    controllers = WorkloadControllers(api.client("kube-controller-manager"), SPEC, SystemClock())
    await controllers.start()
    try:
        template: dict[str, Any] = pod_template({"app": "web"})
        template["spec"]["containers"][0]["ports"] = [{"name": "http", "containerPort": 8080}]
        await client.create(
            DEPLOYMENT,
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template},
            },
        )
        await client.create(
            SERVICE,
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]},
            },
        )
        await run_pods_until(client, "default", lambda: ready_addresses(client) == 2)
        await client.delete(DEPLOYMENT, "web", namespace="default")
        await eventually_async(
            lambda: (
                not client.list(REPLICA_SET, namespace="default")
                and not client.list(POD, namespace="default")
            ),
            what="the garbage collector removes the ReplicaSet and its pods",
        )
        await eventually_async(lambda: ready_addresses(client) == 0)
    finally:
        await controllers.stop()


async def test_stopping_leaves_no_task_behind(api: EmbeddedAPI) -> None:
    """Every controller's workers end with `stop`."""
    before = asyncio.all_tasks()
    controllers = WorkloadControllers(api.client("kube-controller-manager"), SPEC, SystemClock())
    await controllers.start()
    assert len(asyncio.all_tasks() - before) > 0
    await controllers.stop()
    await asyncio.sleep(0)
    assert asyncio.all_tasks() - before == set()
