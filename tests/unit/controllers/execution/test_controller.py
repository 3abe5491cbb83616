"""The execution controller's reconcile when a manifest's retain step fails: reported on the Work, retried."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.karmada import constants
from flotilla.api.objectkeys import ObjectKey
from flotilla.controllers.execution.controller import ApplyFailed, ExecutionController
from flotilla.runtime.hubcontroller import ControllerContext
from flotilla.runtime.informers import SharedInformers
from flotilla.runtime.members import LocalMemberClient

CLUSTER = "a"
EXECUTION_NAMESPACE = "karmada-es-a"


class RecordingClient:
    """Answers reads from `objects` and records writes: the few calls of the `Reader`, `Writer` and
    `StatusWriter` roles the execution controller makes (the roles' shape: namespace a keyword)."""

    def __init__(self, objects: dict[str, dict[str, Any]] | None = None) -> None:
        self.objects = objects or {}
        self.applied: list[dict[str, Any]] = []
        self.status_applied: list[dict[str, Any]] = []
        self.patched: list[dict[str, Any]] = []

    async def get_or_none(self, gvk: Any, name: str, *, namespace: str = "") -> dict[str, Any] | None:
        return self.objects.get(name)

    async def apply(self, obj: dict[str, Any], **options: Any) -> dict[str, Any]:
        self.applied.append(obj)
        return obj

    async def apply_status(self, obj: dict[str, Any], **options: Any) -> dict[str, Any]:
        self.status_applied.append(obj)
        return obj

    async def patch(self, gvk: Any, name: str, patch: dict[str, Any], **options: Any) -> dict[str, Any]:
        self.patched.append(patch)
        return patch

    async def close(self) -> None:
        return None


def deployment(*, replicas: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": "web"}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "labels": {constants.MANAGED_BY_KARMADA_LABEL: "true", constants.RETAIN_REPLICAS_LABEL: "true"},
        },
        "spec": spec,
    }


CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "settings", "namespace": "default"},
}


def work() -> dict[str, Any]:
    return {
        "apiVersion": constants.WORK.api_version,
        "kind": constants.WORK.kind,
        "metadata": {
            "name": "web",
            "namespace": EXECUTION_NAMESPACE,
            "generation": 2,
            "resourceVersion": "7",
            "finalizers": [constants.EXECUTION_CONTROLLER_FINALIZER],
        },
        "spec": {"workload": {"manifests": [deployment(replicas=3), CONFIG_MAP]}},
    }


def ready_cluster() -> dict[str, Any]:
    return {
        "metadata": {"name": CLUSTER},
        "spec": {},
        "status": {"conditions": [{"type": constants.CLUSTER_CONDITION_READY, "status": "True"}]},
    }


async def test_a_failing_retain_step_marks_the_work_not_applied_and_is_retried() -> None:
    """The other manifests are applied, Applied=False/AppliedFailed carries the message, and the reconcile
    raises ApplyFailed (retried with backoff) instead of crashing on the interpreter's error."""
    hub = RecordingClient()
    # The member's copy has no replicas for the retain-replicas rule to keep: the interpreter refuses it.
    member = RecordingClient({"web": deployment(replicas=None)})
    informers = SharedInformers(hub)
    informers.get(constants.WORK).store[ObjectKey(EXECUTION_NAMESPACE, "web")] = work()
    informers.get(constants.CLUSTER).store[ObjectKey("", CLUSTER)] = ready_cluster()
    ctx = ControllerContext(hub, informers, LocalMemberClient(CLUSTER, member))
    controller = ExecutionController(ctx)

    with pytest.raises(ApplyFailed, match="cannot retain the member's fields"):
        await controller.reconcile(ObjectKey(EXECUTION_NAMESPACE, "web"))

    assert [obj["kind"] for obj in member.applied] == ["ConfigMap"]
    [status] = hub.status_applied
    applied = next(c for c in status["status"]["conditions"] if c["type"] == constants.WORK_APPLIED)
    assert applied["status"] == "False"
    assert applied["reason"] == "AppliedFailed"
    assert applied["observedGeneration"] == 2
    assert "Failed to apply all manifests (1/2): Deployment default/web: cannot retain" in applied["message"]
