"""The pod statuses a kubelet writes: conditions, container statuses, images and ids.

Pure functions of the pod, the time and the addresses the kubelet chose, so the stages that use
them can be checked against golden files. The shapes follow what kubelet 1.32 with containerd
reports: conditions in the kubelet's order with `lastProbeTime: null`, container statuses sorted by
name (init containers in spec order), images normalised to `docker.io/library/<name>:latest`, image
and container ids that look like containerd's and are stable for a given pod and container.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flotilla.api.conditions import stamped_condition
from flotilla.api.times import format_time

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
"""The conditions a kubelet owns, in the order it writes them; others on the pod are kept after."""
CONTAINER_RUNTIME = "containerd"
COMPLETED = "PodCompleted"


def normalized_image(image: str) -> str:
    """The image reference as containerd reports it (`nginx` → `docker.io/library/nginx:latest`)."""
    name, at, digest = image.partition("@")
    first, slash, _ = name.partition("/")
    if not slash or not ("." in first or ":" in first or first == "localhost"):
        name = f"docker.io/{name}" if slash else f"docker.io/library/{name}"
    if at:
        return f"{name}@{digest}"
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else f"{name}:latest"


def image_id(image: str) -> str:
    """A repository digest for the image, stable for a given reference."""
    reference = normalized_image(image)
    if "@" in reference:
        return reference
    repository = reference
    last_colon = repository.rfind(":")
    if last_colon > repository.rfind("/"):
        repository = repository[:last_colon]
    return f"{repository}@sha256:{hashlib.sha256(reference.encode()).hexdigest()}"


def container_id(pod: Mapping[str, Any], name: str, restart_count: int = 0) -> str:
    uid = str((pod.get("metadata") or {}).get("uid", ""))
    digest = hashlib.sha256(f"{uid}/{name}/{restart_count}".encode()).hexdigest()
    return f"{CONTAINER_RUNTIME}://{digest}"


def _condition(kind: str, status: str, stamp: str, reason: str = "") -> dict[str, Any]:
    condition: dict[str, Any] = {
        "type": kind,
        "status": status,
        "lastProbeTime": None,
        "lastTransitionTime": stamp,
    }
    if reason:
        condition["reason"] = reason
    return condition


def with_conditions(
    status: Mapping[str, Any], wanted: list[dict[str, Any]], stamp: str
) -> list[dict[str, Any]]:
    """The pod's conditions with the kubelet's replaced by `wanted` (kept transition times when the
    status did not change), in the kubelet's order, followed by every other condition as it was."""
    existing = {c.get("type"): c for c in status.get("conditions") or []}
    by_type = {c["type"]: c for c in wanted}
    result = []
    for kind in KUBELET_CONDITIONS:
        new = by_type.get(kind)
        if new is None:
            if kind in existing:
                result.append(dict(existing[kind]))
            continue
        result.append(stamped_condition(new, existing.get(kind), stamp))
    result.extend(dict(c) for c in status.get("conditions") or [] if c.get("type") not in KUBELET_CONDITIONS)
    return result


def _container_status(
    pod: Mapping[str, Any], container: Mapping[str, Any], state: dict[str, Any], *, ready: bool, started: bool
) -> dict[str, Any]:
    name = str(container.get("name", ""))
    image = str(container.get("image", ""))
    return {
        "name": name,
        "state": state,
        "lastState": {},
        "ready": ready,
        "restartCount": 0,
        "image": normalized_image(image),
        "imageID": image_id(image),
        "containerID": container_id(pod, name),
        "started": started,
    }


def running_status(pod: Mapping[str, Any], now: datetime, host_ip: str, pod_ip: str) -> dict[str, Any]:
    """The status of a pod whose containers all started: Running and Ready.

    Init containers ran to completion first (sidecars — restartPolicy Always — keep running); the
    pod keeps its `qosClass`, its `startTime` if it had one, and conditions the kubelet does not own.
    """
    stamp = format_time(now)
    spec = pod.get("spec") or {}
    status = dict(pod.get("status") or {})
    running = {"running": {"startedAt": stamp}}
    init_statuses = []
    for container in spec.get("initContainers") or []:
        if container.get("restartPolicy") == "Always":
            init_statuses.append(_container_status(pod, container, running, ready=True, started=True))
            continue
        cid = container_id(pod, str(container.get("name", "")))
        terminated = {
            "terminated": {
                "exitCode": 0,
                "reason": "Completed",
                "startedAt": stamp,
                "finishedAt": stamp,
                "containerID": cid,
            }
        }
        init_statuses.append(_container_status(pod, container, terminated, ready=True, started=False))
    statuses = [
        _container_status(pod, c, {"running": {"startedAt": stamp}}, ready=True, started=True)
        for c in sorted(spec.get("containers") or [], key=lambda c: str(c.get("name", "")))
    ]
    status["phase"] = "Running"
    status["conditions"] = with_conditions(
        status,
        [_condition(kind, "True", stamp) for kind in KUBELET_CONDITIONS],
        stamp,
    )
    status["hostIP"] = host_ip
    status["hostIPs"] = [{"ip": host_ip}]
    status["podIP"] = pod_ip
    status["podIPs"] = [{"ip": pod_ip}]
    status["startTime"] = status.get("startTime") or stamp
    if init_statuses:
        status["initContainerStatuses"] = init_statuses
    status["containerStatuses"] = statuses
    return status


def succeeded_status(pod: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """The status of a pod whose containers all exited 0: Succeeded, nothing ready any more."""
    stamp = format_time(now)
    status = dict(pod.get("status") or {})
    status["phase"] = "Succeeded"
    status["conditions"] = with_conditions(
        status,
        [
            _condition("PodReadyToStartContainers", "False", stamp),
            _condition("Initialized", "True", stamp, COMPLETED),
            _condition("Ready", "False", stamp, COMPLETED),
            _condition("ContainersReady", "False", stamp, COMPLETED),
        ],
        stamp,
    )
    finished = []
    for container_status in status.get("containerStatuses") or []:
        running = (container_status.get("state") or {}).get("running") or {}
        terminated = {
            "exitCode": 0,
            "reason": "Completed",
            "startedAt": running.get("startedAt") or stamp,
            "finishedAt": stamp,
            "containerID": container_status.get("containerID", ""),
        }
        finished.append(
            {**container_status, "state": {"terminated": terminated}, "ready": False, "started": False}
        )
    status["containerStatuses"] = finished
    return status


def ready_again_status(pod: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """A running pod whose node came back: the kubelet reports its containers Ready again."""
    stamp = format_time(now)
    status = dict(pod.get("status") or {})
    status["conditions"] = with_conditions(
        status, [_condition("Ready", "True", stamp), _condition("ContainersReady", "True", stamp)], stamp
    )
    return status
