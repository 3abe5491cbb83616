"""The pods of a StatefulSet: their names and identity, their health, and the status they add up to.

Pod `<set>-<ordinal>` carries its name (`statefulset.kubernetes.io/pod-name`), its index
(`apps.kubernetes.io/pod-index`) and its revision (`controller-revision-hash: <set>-<hash>`) as
labels; its hostname is its name, its subdomain the governing Service, and each
`volumeClaimTemplates` entry becomes the claim `<claim>-<pod>` mounted under the template's name.
Status counts pods that exist, are ready, available, and of the current / update revision; once
every pod is updated and ready, the update revision becomes the current one.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from flotilla.sim.controllers.framework.kinds import STATEFUL_SET
from flotilla.sim.controllers.podowners import ownership, pods
from flotilla.sim.controllers.podowners.podtemplates import pod_from_template

REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
REVISION_HASH_LABEL = "controller.kubernetes.io/hash"
_ORDINAL = re.compile(r"^(.*)-([0-9]+)$")

Pod = dict[str, Any]


def ordinal_of(pod: Pod, set_name: str) -> int | None:
    """The pod's ordinal when its name is `<set_name>-<n>`, else None."""
    match = _ORDINAL.match(pod["metadata"]["name"])
    if match is None or match.group(1) != set_name:
        return None
    return int(match.group(2))


def start_ordinal(stateful_set: dict[str, Any]) -> int:
    return int((stateful_set["spec"].get("ordinals") or {}).get("start") or 0)


def revision_of(pod: Pod) -> str:
    return str((pod["metadata"].get("labels") or {}).get(REVISION_LABEL, ""))


def is_running_and_ready(pod: Pod) -> bool:
    return pods.phase(pod) == "Running" and pods.is_ready(pod)


def is_healthy(pod: Pod) -> bool:
    return is_running_and_ready(pod) and not pods.is_terminating(pod)


def claim_name(template: dict[str, Any], pod_name: str) -> str:
    return f"{template['metadata']['name']}-{pod_name}"


def stateful_pod(
    stateful_set: dict[str, Any], template: dict[str, Any], revision_name: str, ordinal: int
) -> Pod:
    """The pod of one ordinal from a revision's template (kube's `newVersionedStatefulSetPod`)."""
    meta = stateful_set["metadata"]
    name = f"{meta['name']}-{ordinal}"
    pod = pod_from_template(
        template,
        namespace=meta["namespace"],
        owner_reference=ownership.controller_reference(stateful_set, STATEFUL_SET),
        name=name,
        labels={POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal), REVISION_LABEL: revision_name},
    )
    spec = pod["spec"]
    spec["hostname"] = name
    if stateful_set["spec"].get("serviceName"):
        spec["subdomain"] = stateful_set["spec"]["serviceName"]
    claims = stateful_set["spec"].get("volumeClaimTemplates") or []
    if claims:
        claimed = {claim["metadata"]["name"] for claim in claims}
        volumes = [volume for volume in spec.get("volumes") or [] if volume.get("name") not in claimed]
        volumes.extend(
            {
                "name": claim["metadata"]["name"],
                "persistentVolumeClaim": {"claimName": claim_name(claim, name)},
            }
            for claim in claims
        )
        spec["volumes"] = volumes
    return pod


def stateful_set_status(
    stateful_set: dict[str, Any],
    owned: list[Pod],
    current: str,
    update: str,
    collision_count: int,
    now: datetime,
) -> dict[str, Any]:
    min_ready = int(stateful_set["spec"].get("minReadySeconds") or 0)
    counts = {
        "replicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
        "currentReplicas": 0,
        "updatedReplicas": 0,
    }
    for pod in owned:
        if pods.phase(pod):
            counts["replicas"] += 1
        if is_running_and_ready(pod):
            counts["readyReplicas"] += 1
            if pods.is_available(pod, min_ready, now):
                counts["availableReplicas"] += 1
        if pods.phase(pod) and not pods.is_terminating(pod):
            counts["currentReplicas"] += revision_of(pod) == current
            counts["updatedReplicas"] += revision_of(pod) == update
    strategy = (stateful_set["spec"].get("updateStrategy") or {}).get("type", "RollingUpdate")
    if (
        strategy == "RollingUpdate"
        and counts["updatedReplicas"] == counts["replicas"]
        and counts["readyReplicas"] == counts["replicas"]
    ):
        counts["currentReplicas"], current = counts["updatedReplicas"], update
    # As kube's JSON: replicas and availableReplicas always, the other counts only when non-zero.
    status: dict[str, Any] = {
        "observedGeneration": stateful_set["metadata"].get("generation", 1),
        "replicas": counts["replicas"],
        "availableReplicas": counts["availableReplicas"],
        "currentRevision": current,
        "updateRevision": update,
        "collisionCount": collision_count,
    }
    status.update(
        {
            field: counts[field]
            for field in ("readyReplicas", "currentReplicas", "updatedReplicas")
            if counts[field]
        }
    )
    return status
