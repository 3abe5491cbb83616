"""The simulated HPA controller on an in-memory API server, with the sim's own metrics computation."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import SystemClock
from flotilla.sim.controllers.framework.kinds import DEPLOYMENT, EVENT, HORIZONTAL_POD_AUTOSCALER, POD
from flotilla.sim.controllers.horizontalpodautoscaler import HorizontalPodAutoscalerController
from flotilla.sim.metrics import LoadBook, MetricsServer
from flotilla.sim.metrics.loads import Load
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.harness import SPEC

LONG_AGO = "2026-01-01T00:00:00Z"


def deployment() -> dict[str, Any]:
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template},
    }


def horizontal_pod_autoscaler(kind: str = "Deployment") -> dict[str, Any]:
    target = {"type": "Utilization", "averageUtilization": 50}
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 10,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": target}}],
        },
    }


async def running_pod(client: LocalClient, name: str) -> None:
    """A pod of 100m CPU requested, on a node, Running and Ready for long (the usage counts at once)."""
    container = {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {"nodeName": "test-node-0", "containers": [container]},
    }
    await client.create(POD, pod)

    def change(obj: dict[str, Any]) -> None:
        ready = {"type": "Ready", "status": "True", "lastTransitionTime": LONG_AGO}
        obj["status"] = {"phase": "Running", "startTime": LONG_AGO, "conditions": [ready]}

    await client.mutate(POD, name, change, namespace="default", subresource="status")


def autoscaler_status(client: LocalClient) -> dict[str, Any]:
    found = client.get(HORIZONTAL_POD_AUTOSCALER, "web", namespace="default") or {}
    status: dict[str, Any] = found.get("status") or {}
    return status


def condition(status: dict[str, Any], kind: str) -> dict[str, Any]:
    return next((c for c in status.get("conditions") or [] if c["type"] == kind), {})


async def test_a_load_above_target_scales_the_deployment_and_the_status_says_so(
    api: EmbeddedAPI, client: LocalClient, tmp_path: Path
) -> None:
    """100m on each of two pods of 100m is 100% against 50%: the Deployment's scale goes 2 → 4, with an
    Event. (The pods have no owner here, so the load is set on each pod.)"""
    loads = LoadBook(tmp_path)
    metrics = MetricsServer(api.client("metrics-server"), loads, SystemClock())
    await client.create(DEPLOYMENT, deployment())
    for name in ("web-a", "web-b"):
        await running_pod(client, name)
        loads.set(("Pod", "default", name), Load(cpu=Fraction(1, 10)))
    controller = HorizontalPodAutoscalerController(
        api.client("kube-controller-manager"), SPEC, SystemClock(), metrics
    )
    await controller.start()
    try:
        await client.create(HORIZONTAL_POD_AUTOSCALER, horizontal_pod_autoscaler())
        await eventually_async(lambda: autoscaler_status(client).get("desiredReplicas") == 4)
        assert (client.get(DEPLOYMENT, "web", namespace="default") or {})["spec"]["replicas"] == 4
        status = autoscaler_status(client)
        assert status["currentReplicas"] == 2 and status.get("lastScaleTime")
        assert status["currentMetrics"] == [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "current": {"averageUtilization": 100, "averageValue": "100m"}},
            }
        ]
        assert condition(status, "AbleToScale")["reason"] == "SucceededRescale"
        assert condition(status, "ScalingActive")["reason"] == "ValidMetricFound"
        messages = [event["message"] for event in client.list(EVENT, namespace="default")]
        assert (
            "New size: 4; reason: cpu resource utilization (percentage of request) above target" in messages
        )
    finally:
        await controller.stop()


async def test_a_target_without_a_scale_is_not_able_to_scale(
    api: EmbeddedAPI, client: LocalClient, tmp_path: Path
) -> None:
    """A missing target is AbleToScale=False (FailedGetScale), told in one Warning Event."""
    metrics = MetricsServer(api.client("metrics-server"), LoadBook(tmp_path), SystemClock())
    controller = HorizontalPodAutoscalerController(
        api.client("kube-controller-manager"), SPEC, SystemClock(), metrics
    )
    await controller.start()
    try:
        await client.create(HORIZONTAL_POD_AUTOSCALER, horizontal_pod_autoscaler())
        await eventually_async(
            lambda: condition(autoscaler_status(client), "AbleToScale").get("status") == "False"
        )
        able = condition(autoscaler_status(client), "AbleToScale")
        assert able["reason"] == "FailedGetScale"
        assert able["message"].endswith('deployments.apps "web" not found')
        warnings = [e for e in client.list(EVENT, namespace="default") if e["reason"] == "FailedGetScale"]
        assert len(warnings) == 1
    finally:
        await controller.stop()
