"""The Karmada parts of `flotilla describe`: where a template went, and what a Cluster holds.

A resource template on the hub (a Deployment, a ConfigMap, any custom resource) is propagated
through its ResourceBinding — `<name>-<kind>` in the template's namespace, or a
ClusterResourceBinding for cluster-scoped templates. The `Propagation` section reads it: the
policy that claimed the template, the Scheduled and FullyApplied conditions, and one row per
target cluster with its replicas and the status the member reported (applied, health, the
interpreter's status fields), then the clusters it is being evicted from (its graceful eviction
tasks: who evicted it, why, and when the old copy goes). A template no policy selected says so.

A Cluster's status is long (every API it serves, nine resource-model grades); its description
summarises it instead: version, conditions, nodes, a table of allocatable / allocated /
allocating resources, and counts of API enablements and resource models.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.api.duration import between, since
from flotilla.api.karmada import Cluster, ResourceBinding
from flotilla.api.karmada import constants as karmada
from flotilla.api.karmada.model import Condition, find_condition
from flotilla.api.karmada.work import GracefulEvictionTask
from flotilla.api.times import timestamp
from flotilla.cli.output.descriptions import NONE, Description, conditions_table

CLUSTER_HIDDEN_FIELDS = (".status", ".spec.resourceModels")
"""Cluster fields the generic tree leaves to `cluster_section`."""
_STATUS_NOISE = ("generation", "observedGeneration", "resourceTemplateGeneration")
"""Bookkeeping fields of a member's reported status, not worth a column."""


def _condition_text(condition: Condition | None) -> str:
    if condition is None:
        return NONE
    text = condition.status + (f" ({condition.reason})" if condition.reason else "")
    return f"{text} {condition.message}".strip() if condition.message else text


def _policy(binding: ResourceBinding) -> str:
    annotations = binding.metadata.annotations
    name = annotations.get(karmada.PROPAGATION_POLICY_NAME_ANNOTATION)
    if name:
        namespace = annotations.get(karmada.PROPAGATION_POLICY_NAMESPACE_ANNOTATION, "")
        return f"{karmada.PROPAGATION_POLICY.kind} {namespace}/{name}" if namespace else name
    cluster_policy = annotations.get(karmada.CLUSTER_PROPAGATION_POLICY_NAME_ANNOTATION)
    return f"{karmada.CLUSTER_PROPAGATION_POLICY.kind} {cluster_policy}" if cluster_policy else NONE


def _reported(status: Mapping[str, Any] | None) -> str:
    """A member's reported status on one line: its top-level scalar fields as `key=value`."""
    if not status:
        return ""
    return ", ".join(
        f"{key}={status[key]}"
        for key in sorted(status)
        if key not in _STATUS_NOISE and not isinstance(status[key], Mapping | list)
    )


def eviction_deadline(task: GracefulEvictionTask, now: datetime) -> str:
    """When the old copy goes, in words: a person's call, at once, or by the grace period's end
    (sooner if the workload is healthy elsewhere first)."""
    if task.suppress_deletion or task.purge_mode == karmada.PurgeMode.NEVER:
        return "kept until suppressDeletion is set false"
    if task.purge_mode == karmada.PurgeMode.DIRECTLY:
        return "removed at once"
    created = timestamp(task.creation_timestamp)
    if created is None:
        return "once healthy elsewhere"
    grace = task.grace_period_seconds
    # Without its own grace period the task waits for the controller manager's
    # --graceful-eviction-timeout, whose default is assumed here.
    seconds = grace if grace is not None else karmada.DEFAULT_GRACEFUL_EVICTION_SECONDS
    deadline = created + timedelta(seconds=seconds)
    assumed = "" if grace is not None else " (default timeout)"
    if deadline <= now:
        return f"due {between(deadline, now)} ago{assumed}"
    return f"once healthy elsewhere, at the latest in {between(now, deadline)}{assumed}"


def eviction_tasks_table(description: Description, binding: ResourceBinding, now: datetime) -> None:
    """The clusters the binding is being evicted from: who evicted, why, since when, until when."""
    tasks = binding.spec.graceful_eviction_tasks
    if not tasks:
        return
    description.line(1, "Eviction Tasks:")
    description.table(
        2,
        ("From Cluster", "Reason", "Producer", "Purge Mode", "Age", "Old Copy"),
        [
            (
                task.from_cluster,
                task.reason + (f": {task.message}" if task.message else ""),
                task.producer,
                task.purge_mode or karmada.PurgeMode.GRACEFULLY,
                since(task.creation_timestamp, now) if task.creation_timestamp else NONE,
                eviction_deadline(task, now),
            )
            for task in tasks
        ],
    )


def propagation_section(
    description: Description,
    binding_object: Mapping[str, Any] | None,
    binding_name: str,
    now: datetime | None = None,
) -> None:
    """The `Propagation` section of a template, from its binding (None: no policy selected it)."""
    if binding_object is None:
        description.field(
            0, "Propagation", f"{NONE} (no binding {binding_name}: no propagation policy selects it)"
        )
        return
    binding = ResourceBinding.from_object(binding_object)
    conditions = binding.status.conditions
    description.line(0, "Propagation:")
    namespace = binding.metadata.namespace
    kind = str(binding_object.get("kind") or karmada.RESOURCE_BINDING.kind)
    description.field(
        1,
        "Binding",
        f"{kind} {namespace}/{binding.metadata.name}" if namespace else f"{kind} {binding.metadata.name}",
    )
    description.field(1, "Policy", _policy(binding))
    description.field(
        1, "Scheduled", _condition_text(find_condition(conditions, karmada.CONDITION_SCHEDULED))
    )
    description.field(
        1, "Fully Applied", _condition_text(find_condition(conditions, karmada.CONDITION_FULLY_APPLIED))
    )
    reports = {item.cluster_name: item for item in binding.status.aggregated_status}
    targets = [(target.name, target.replicas) for target in binding.spec.clusters]
    targets += [(name, None) for name in reports if name not in {target for target, _ in targets}]
    if not targets:
        description.field(1, "Clusters", NONE)
        eviction_tasks_table(description, binding, now or datetime.now(UTC))
        return
    rows = []
    for name, replicas in targets:
        report = reports.get(name)
        applied = "" if report is None or report.applied is None else str(report.applied).lower()
        status = _reported(report.status if report else None)
        if report is not None and report.applied is False and report.applied_message:
            status = report.applied_message
        rows.append(
            (
                name,
                "" if replicas is None else str(replicas),
                applied,
                (report.health if report else "") or "",
                status,
            )
        )
    description.line(1, "Clusters:")
    description.table(2, ("Cluster", "Replicas", "Applied", "Health", "Status"), rows)
    eviction_tasks_table(description, binding, now or datetime.now(UTC))


def cluster_section(description: Description, cluster_object: Mapping[str, Any], now: datetime) -> None:
    """A Cluster's status, summarised; its resource models counted."""
    cluster = Cluster.from_object(cluster_object)
    status = cluster.status
    models = cluster.spec.resource_models
    if models:
        resources = sorted({rng.name for model in models for rng in model.ranges})
        # Under Spec, whose tree the generic part has just printed (spec is the last field before status).
        description.field(1, "Resource Models", f"{len(models)} grades ({', '.join(resources)})")
    description.line(0, "Status:")
    description.field(1, "Kubernetes Version", status.kubernetes_version or NONE)
    description.field(
        1, "Ready", _condition_text(find_condition(status.conditions, karmada.CLUSTER_CONDITION_READY))
    )
    if status.conditions:
        description.line(1, "Conditions:")
        conditions_table(description, 2, [condition.to_object() for condition in status.conditions], now)
    nodes = status.node_summary
    if nodes is not None:
        description.field(1, "Nodes", f"{nodes.ready_num or 0} ready of {nodes.total_num or 0}")
    summary = status.resource_summary
    if summary is not None and summary.allocatable:
        description.line(1, "Resources:")
        description.table(
            2,
            ("Resource", "Allocatable", "Allocated", "Allocating"),
            [
                (
                    name,
                    str(summary.allocatable[name]),
                    str(summary.allocated.get(name, 0)),
                    str(summary.allocating.get(name, 0)),
                )
                for name in sorted(summary.allocatable)
            ],
        )
    enablements = status.api_enablements
    resources_count = sum(len(enablement.resources) for enablement in enablements)
    description.field(
        1,
        "API Enablements",
        f"{len(enablements)} group versions, {resources_count} resources" if enablements else NONE,
    )
