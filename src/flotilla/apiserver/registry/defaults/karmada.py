"""Karmada's defaults, as its mutating webhook and its CRDs' schema defaults set them.

`default_*` functions run on every write and are idempotent: a PropagationPolicy's selectors
default to its own namespace, spread constraints to `spreadByField: cluster` / `minGroups: 1`,
replica scheduling to `Divided` and then `Weighted`, failover to a 300 s toleration and a 600 s
grace period, the scheduler to `default-scheduler`. Purge modes under their first names
(`Immediately`, `Graciously`: Karmada before v1.19) are stored under the current ones, in a
policy's or a binding's failover and in a binding's eviction tasks, before the schema's enum is
checked. A Cluster's deprecated `zone` moves into `zones`.

`assign_*` and `keep_*` functions run only on create and on update respectively, for what a
write must not recompute: permanent ids (a UUID given once, then carried over even if a client
drops the label), a Cluster's default resource models, and the `timeAdded` of NoExecute taints.

Everything here reads defensively: objects arrive already type-checked against the CRD schema,
but a field may be missing or of the wrong type when the schema reported it, and defaulting must
not turn that into a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import (
    OLDER_PURGE_MODES,
    ConflictResolution,
    PreemptionBehavior,
    PurgeMode,
    ReplicaDivisionPreference,
    ReplicaSchedulingType,
    SpreadByField,
)
from flotilla.api.karmada.names import new_permanent_id
from flotilla.api.times import format_time
from flotilla.apiserver.registry.validation import fields

Object = dict[str, Any]
NewID = Callable[[], str]

APPLICATION_TOLERATION_SECONDS = 300
GRACE_PERIOD_SECONDS = 600
MAX_INT64 = str(2**63 - 1)
"""The upper bound of the last resource model grade: Go's MaxInt64, as a quantity."""
SERVICE_IMPORT_API_VERSIONS = ("multicluster.x-k8s.io/v1alpha1",)

# --- propagation policies ---------------------------------------------------------------------------


def default_propagation_policy(policy: Object) -> None:
    spec = policy.get("spec")
    if isinstance(spec, dict):
        namespace = fields.text(fields.mapping(policy, "metadata"), "namespace")
        default_propagation_spec(spec, namespace)


def default_cluster_propagation_policy(policy: Object) -> None:
    spec = policy.get("spec")
    if isinstance(spec, dict):
        default_propagation_spec(spec, "")


def default_propagation_spec(spec: Object, namespace: str) -> None:
    """Defaults of a (Cluster)PropagationPolicy spec; `namespace` is empty for cluster policies."""
    selectors = fields.objects(spec, "resourceSelectors")
    if namespace:
        for selector in selectors:
            if not selector.get("namespace"):
                selector["namespace"] = namespace
    if any(_is_service_import(selector) for selector in selectors):
        # A ServiceImport needs its derived Service and EndpointSlices: they are its dependencies.
        spec["propagateDeps"] = True
    placement = spec.get("placement")
    if isinstance(placement, dict):
        default_placement(placement)
    _set_if_empty(spec, "schedulerName", constants.DEFAULT_SCHEDULER_NAME)
    _set_if_empty(spec, "conflictResolution", ConflictResolution.ABORT)
    _set_if_empty(spec, "preemption", PreemptionBehavior.NEVER)
    if spec.get("priority") is None:
        spec["priority"] = 0
    failover = spec.get("failover")
    if isinstance(failover, dict):
        default_failover(failover)


def default_placement(placement: Object) -> None:
    for constraint in fields.objects(placement, "spreadConstraints"):
        if not constraint.get("spreadByField") and not constraint.get("spreadByLabel"):
            constraint["spreadByField"] = str(SpreadByField.CLUSTER)
        if not constraint.get("minGroups"):
            constraint["minGroups"] = 1
    scheduling = placement.get("replicaScheduling")
    if isinstance(scheduling, dict):
        _set_if_empty(scheduling, "replicaSchedulingType", ReplicaSchedulingType.DIVIDED)
        if scheduling.get("replicaSchedulingType") == ReplicaSchedulingType.DIVIDED:
            _set_if_empty(scheduling, "replicaDivisionPreference", ReplicaDivisionPreference.WEIGHTED)


def default_failover(failover: Object) -> None:
    application = failover.get("application")
    if isinstance(application, dict):
        conditions = application.get("decisionConditions")
        if isinstance(conditions, dict) and conditions.get("tolerationSeconds") is None:
            conditions["tolerationSeconds"] = APPLICATION_TOLERATION_SECONDS
        rename_older_purge_mode(application)
        _set_if_empty(application, "purgeMode", PurgeMode.GRACEFULLY)
        if (
            application.get("purgeMode") == PurgeMode.GRACEFULLY
            and application.get("gracePeriodSeconds") is None
        ):
            application["gracePeriodSeconds"] = GRACE_PERIOD_SECONDS
    cluster = failover.get("cluster")
    if isinstance(cluster, dict):
        rename_older_purge_mode(cluster)
        _set_if_empty(cluster, "purgeMode", PurgeMode.GRACEFULLY)


def rename_older_purge_mode(obj: Object) -> None:
    """`purgeMode: Immediately` becomes `Directly`, `Graciously` becomes `Gracefully`."""
    mode = obj.get("purgeMode")
    if isinstance(mode, str) and mode in OLDER_PURGE_MODES:
        obj["purgeMode"] = str(OLDER_PURGE_MODES[mode])


def _is_service_import(selector: Object) -> bool:
    return (
        selector.get("kind") == "ServiceImport" and selector.get("apiVersion") in SERVICE_IMPORT_API_VERSIONS
    )


# --- override policies ------------------------------------------------------------------------------


def default_override_policy(policy: Object) -> None:
    namespace = fields.text(fields.mapping(policy, "metadata"), "namespace")
    for selector in fields.objects(fields.mapping(policy, "spec"), "resourceSelectors"):
        if namespace and not selector.get("namespace"):
            selector["namespace"] = namespace


# --- bindings -----------------------------------------------------------------------------------------


def default_binding(binding: Object) -> None:
    spec = binding.get("spec")
    if not isinstance(spec, dict):
        return
    _set_if_empty(spec, "conflictResolution", ConflictResolution.ABORT)
    failover = spec.get("failover")
    if isinstance(failover, dict):
        for behavior in (failover.get("application"), failover.get("cluster")):
            if isinstance(behavior, dict):
                rename_older_purge_mode(behavior)
    for task in fields.objects(spec, "gracefulEvictionTasks"):
        rename_older_purge_mode(task)


# --- clusters -----------------------------------------------------------------------------------------


def default_cluster(cluster: Object) -> None:
    """Moves the deprecated `zone` into `zones` when `zones` is empty."""
    spec = cluster.get("spec")
    if not isinstance(spec, dict):
        return
    zone = spec.get("zone")
    if isinstance(zone, str) and zone and not spec.get("zones"):
        spec["zones"] = [zone]
        del spec["zone"]


def prepare_cluster_create(cluster: Object, now: datetime) -> None:
    spec = cluster.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("resourceModels"):
        standardize_resource_models(spec)
    else:
        spec["resourceModels"] = default_resource_models()
    stamp_no_execute_taints(spec, [], now)


def prepare_cluster_update(cluster: Object, old: Object, now: datetime) -> None:
    spec = cluster.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("resourceModels"):
        standardize_resource_models(spec)
    stamp_no_execute_taints(spec, fields.objects(fields.mapping(old, "spec"), "taints"), now)


def stamp_no_execute_taints(spec: Object, old_taints: list[Object], now: datetime) -> None:
    """Give NoExecute taints a `timeAdded`: the old one for a taint already there, else `now`."""
    added = {
        (t.get("key"), t.get("value"), t.get("effect")): t["timeAdded"]
        for t in old_taints
        if t.get("timeAdded")
    }
    stamp = format_time(now)
    for taint in fields.objects(spec, "taints"):
        if taint.get("effect") == "NoExecute" and not taint.get("timeAdded"):
            taint["timeAdded"] = added.get((taint.get("key"), taint.get("value"), taint.get("effect")), stamp)


# Grades of Karmada's default resource models: (cpu min, cpu max, memory min, memory max).
_DEFAULT_GRADES = (
    ("0", "1", "0", "4Gi"),
    ("1", "2", "4Gi", "16Gi"),
    ("2", "4", "16Gi", "32Gi"),
    ("4", "8", "32Gi", "64Gi"),
    ("8", "16", "64Gi", "128Gi"),
    ("16", "32", "128Gi", "256Gi"),
    ("32", "64", "256Gi", "512Gi"),
    ("64", "128", "512Gi", "1Ti"),
    ("128", MAX_INT64, "1Ti", MAX_INT64),
)


def default_resource_models() -> list[Object]:
    """Karmada's nine default grades of nodes by CPU and memory, as a new Cluster gets them."""
    return [
        {
            "grade": grade,
            "ranges": [
                {"name": "cpu", "min": cpu_min, "max": cpu_max},
                {"name": "memory", "min": memory_min, "max": memory_max},
            ],
        }
        for grade, (cpu_min, cpu_max, memory_min, memory_max) in enumerate(_DEFAULT_GRADES)
    ]


def standardize_resource_models(spec: Object) -> None:
    """Models sorted by grade; the first grade starts at 0 and the last one is unbounded."""
    models = fields.objects(spec, "resourceModels")
    if len(models) != len(fields.items(spec, "resourceModels")):
        return  # not all objects: the schema reported it
    models.sort(key=lambda model: fields.integer(model, "grade") or 0)
    spec["resourceModels"] = models
    for model_range in fields.objects(models[0], "ranges"):
        model_range["min"] = "0"
    for model_range in fields.objects(models[-1], "ranges"):
        model_range["max"] = MAX_INT64


# --- permanent ids ------------------------------------------------------------------------------------


def assign_permanent_id(obj: Object, label: str, new_id: NewID = new_permanent_id) -> None:
    """A new object gets a fresh permanent id (policies: always; Karmada overwrites what came in)."""
    fields.ensure_mapping(fields.ensure_mapping(obj, "metadata"), "labels")[label] = new_id()


def ensure_permanent_id(obj: Object, label: str, new_id: NewID = new_permanent_id) -> None:
    """An object without a permanent id gets one; one it has is kept (bindings and Works)."""
    labels = fields.ensure_mapping(fields.ensure_mapping(obj, "metadata"), "labels")
    if not labels.get(label):
        labels[label] = new_id()


def keep_permanent_id(new: Object, old: Object, label: str, new_id: NewID = new_permanent_id) -> None:
    """An update keeps the id the object had, whatever the client sent; an object without one gets one."""
    kept = fields.string_map(fields.mapping(old, "metadata"), "labels").get(label)
    labels = fields.ensure_mapping(fields.ensure_mapping(new, "metadata"), "labels")
    if kept:
        labels[label] = kept
    elif not labels.get(label):
        labels[label] = new_id()


def _set_if_empty(obj: Object, key: str, value: str) -> None:
    if not obj.get(key):
        obj[key] = str(value)
