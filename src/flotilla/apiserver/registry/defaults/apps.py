"""Defaults of the apps/v1 workloads (kube's `pkg/apis/apps/v1/defaults.go`).

Deployments get one replica, a RollingUpdate strategy with 25%/25%, ten kept revisions and a
600-second progress deadline; ReplicaSets one replica; StatefulSets one replica, OrderedReady pod
management, a RollingUpdate strategy at partition 0, ten kept revisions and a Retain/Retain claim
retention policy; DaemonSets a RollingUpdate strategy with one unavailable and no surge, and ten
kept revisions. Every pod template gets the pod spec defaults.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.defaults.pods import default_claim_spec, default_pod_template
from flotilla.apiserver.registry.validation import fields

REVISION_HISTORY_LIMIT = 10
PROGRESS_DEADLINE_SECONDS = 600


def default_deployment(deployment: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(deployment, "spec")
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = fields.ensure_mapping(spec, "strategy")
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling_update = fields.ensure_mapping(strategy, "rollingUpdate")
        if rolling_update.get("maxUnavailable") is None:
            rolling_update["maxUnavailable"] = "25%"
        if rolling_update.get("maxSurge") is None:
            rolling_update["maxSurge"] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = REVISION_HISTORY_LIMIT
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = PROGRESS_DEADLINE_SECONDS
    default_pod_template(spec)


def default_replica_set(replica_set: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(replica_set, "spec")
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    default_pod_template(spec)


def default_stateful_set(stateful_set: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(stateful_set, "spec")
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = fields.ensure_mapping(spec, "updateStrategy")
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
        # Only an implied RollingUpdate gets the `rollingUpdate` block kube adds below.
        fields.ensure_mapping(strategy, "rollingUpdate")
    rolling_update = strategy.get("rollingUpdate")
    if (
        strategy["type"] == "RollingUpdate"
        and isinstance(rolling_update, dict)
        and rolling_update.get("partition") is None
    ):
        rolling_update["partition"] = 0
    retention = fields.ensure_mapping(spec, "persistentVolumeClaimRetentionPolicy")
    for name in ("whenDeleted", "whenScaled"):
        if not retention.get(name):
            retention[name] = "Retain"
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = REVISION_HISTORY_LIMIT
    default_pod_template(spec)
    for claim in fields.objects(spec, "volumeClaimTemplates"):
        status = fields.ensure_mapping(claim, "status")
        if not status.get("phase"):
            status["phase"] = "Pending"
        default_claim_spec(fields.ensure_mapping(claim, "spec"))


def default_daemon_set(daemon_set: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(daemon_set, "spec")
    strategy = fields.ensure_mapping(spec, "updateStrategy")
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling_update = fields.ensure_mapping(strategy, "rollingUpdate")
        if rolling_update.get("maxUnavailable") is None:
            rolling_update["maxUnavailable"] = 1
        if rolling_update.get("maxSurge") is None:
            rolling_update["maxSurge"] = 0
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = REVISION_HISTORY_LIMIT
    default_pod_template(spec)
