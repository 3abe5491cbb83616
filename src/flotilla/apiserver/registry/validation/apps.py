"""Validation of the apps/v1 workloads: Deployments, ReplicaSets, StatefulSets, DaemonSets, revisions.

Each workload needs a non-empty selector that its pod template's labels satisfy, a valid pod
template whose pods restart `Always`, non-negative counts and a well-formed update strategy. In
apps/v1 the selector never changes after creation; StatefulSets also freeze everything but
replicas, template, update strategy, ordinals, retention policy and minReadySeconds.
"""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import (
    LabelSelector,
    SelectorError,
    label_selector_from_object,
    validate_label_selector,
)
from flotilla.apiserver.registry.validation import fields, metadata, pods, scalars
from flotilla.apiserver.registry.validation.equality import semantic_equal
from flotilla.apiserver.registry.validation.metadata import nonnegative

SELECTOR_MISMATCH = "`selector` does not match template `labels`"
DEPLOYMENT_STRATEGIES = ("Recreate", "RollingUpdate")
DAEMON_SET_STRATEGIES = ("RollingUpdate", "OnDelete")
RETENTION_POLICIES = ("Retain", "Delete")
STATEFUL_SET_FROZEN_MESSAGE = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
    "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
)


def selector_of(spec: dict[str, Any]) -> LabelSelector | None:
    """The spec's selector as kube's `LabelSelectorAsSelector` sees it; None when it is invalid."""
    try:
        return label_selector_from_object(spec.get("selector"))
    except SelectorError:
        return None


def template_labels(spec: dict[str, Any]) -> dict[str, str]:
    return fields.string_map(fields.mapping(fields.mapping(spec, "template"), "metadata"), "labels")


def _selector(spec: dict[str, Any], path: str, kind: str) -> list[FieldError]:
    """Required, well formed and not empty (`empty selector is invalid for <kind>`)."""
    selector_path = fielderrors.child(path, "selector")
    if spec.get("selector") is None:
        return [fielderrors.required(selector_path)]
    errors = validate_label_selector(spec["selector"], selector_path)
    selector = fields.mapping(spec, "selector")
    if not fields.mapping(selector, "matchLabels") and not fields.items(selector, "matchExpressions"):
        errors.append(fielderrors.invalid(selector_path, selector, f"empty selector is invalid for {kind}"))
    return errors


def _template_matches(spec: dict[str, Any], path: str) -> list[FieldError]:
    selector = selector_of(spec)
    if selector is None:
        return [
            fielderrors.invalid(
                fielderrors.child(path, "selector"), spec.get("selector"), "invalid label selector"
            )
        ]
    labels = template_labels(spec)
    if not selector.empty and not selector.matches(labels):
        return [
            fielderrors.invalid(
                fielderrors.child(path, "template.metadata.labels"), labels, SELECTOR_MISMATCH
            )
        ]
    return []


def _replica_set_template(spec: dict[str, Any], path: str, kind: str) -> list[FieldError]:
    """kube's `ValidatePodTemplateSpecForReplicaSet`, after the selector match."""
    template_path = fielderrors.child(path, "template")
    errors = pods.validate_pod_template(fields.mapping(spec, "template"), template_path)
    errors.extend(_always_restarting(spec, template_path, kind))
    return errors


def _always_restarting(spec: dict[str, Any], template_path: str, kind: str) -> list[FieldError]:
    pod_spec = fields.mapping(fields.mapping(spec, "template"), "spec")
    errors: list[FieldError] = []
    restart_policy = fields.text(pod_spec, "restartPolicy")
    if restart_policy != "Always":
        errors.append(
            fielderrors.not_supported(
                fielderrors.child(template_path, "spec.restartPolicy"), restart_policy, ("Always",)
            )
        )
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errors.append(
            fielderrors.forbidden(
                fielderrors.child(template_path, "spec.activeDeadlineSeconds"),
                f"activeDeadlineSeconds in {kind} is not Supported",
            )
        )
    return errors


def _counts(spec: dict[str, Any], path: str, *names: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for name in names:
        value = fields.integer(spec, name)
        if value is not None:
            errors.extend(nonnegative(value, fielderrors.child(path, name)))
    return errors


# --- Deployment ---------------------------------------------------------------------------------


def validate_deployment_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors = _counts(spec, path, "replicas")
    errors.extend(_selector(spec, path, "deployment"))
    errors.extend(_template_matches(spec, path))
    errors.extend(_replica_set_template(spec, path, "ReplicaSet"))
    errors.extend(_deployment_strategy(fields.mapping(spec, "strategy"), fielderrors.child(path, "strategy")))
    errors.extend(_counts(spec, path, "minReadySeconds", "revisionHistoryLimit"))
    deadline = fields.integer(spec, "progressDeadlineSeconds")
    if deadline is not None:
        deadline_path = fielderrors.child(path, "progressDeadlineSeconds")
        errors.extend(nonnegative(deadline, deadline_path))
        if deadline <= (fields.integer(spec, "minReadySeconds") or 0):
            errors.append(
                fielderrors.invalid(deadline_path, deadline, "must be greater than minReadySeconds")
            )
    return errors


def _deployment_strategy(strategy: dict[str, Any], path: str) -> list[FieldError]:
    kind = fields.text(strategy, "type")
    rolling_update_path = fielderrors.child(path, "rollingUpdate")
    if kind == "Recreate":
        if strategy.get("rollingUpdate") is not None:
            return [
                fielderrors.forbidden(
                    rolling_update_path, "may not be specified when strategy `type` is 'Recreate'"
                )
            ]
        return []
    if kind == "RollingUpdate":
        if strategy.get("rollingUpdate") is None:
            return [fielderrors.required(rolling_update_path, "this should be defaulted and never be nil")]
        rolling_update = fields.mapping(strategy, "rollingUpdate")
        max_unavailable = rolling_update.get("maxUnavailable")
        max_surge = rolling_update.get("maxSurge")
        unavailable_path = fielderrors.child(rolling_update_path, "maxUnavailable")
        errors = scalars.positive_int_or_percent(max_unavailable, unavailable_path)
        errors.extend(
            scalars.positive_int_or_percent(max_surge, fielderrors.child(rolling_update_path, "maxSurge"))
        )
        if (
            scalars.int_or_percent_value(max_unavailable) == 0
            and scalars.int_or_percent_value(max_surge) == 0
        ):
            errors.append(
                fielderrors.invalid(unavailable_path, max_unavailable, "may not be 0 when `maxSurge` is 0")
            )
        errors.extend(scalars.not_more_than_100_percent(max_unavailable, unavailable_path))
        return errors
    return [fielderrors.not_supported(path, strategy, DEPLOYMENT_STRATEGIES)]


def validate_deployment(deployment: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(deployment, namespaced=True)
    errors.extend(validate_deployment_spec(fields.mapping(deployment, "spec"), "spec"))
    return errors


def _selector_immutable(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return metadata.immutable(
        fields.mapping(new, "spec").get("selector"),
        fields.mapping(old, "spec").get("selector"),
        "spec.selector",
    )


def validate_deployment_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_deployment_spec(fields.mapping(new, "spec"), "spec"))
    errors.extend(_selector_immutable(new, old))
    return errors


# --- ReplicaSet ---------------------------------------------------------------------------------


def validate_replica_set_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors = _counts(spec, path, "replicas", "minReadySeconds")
    # kube's message really says "deployment" for ReplicaSets too.
    errors.extend(_selector(spec, path, "deployment"))
    errors.extend(_template_matches(spec, path))
    errors.extend(_replica_set_template(spec, path, "ReplicaSet"))
    return errors


def validate_replica_set(replica_set: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(replica_set, namespaced=True)
    errors.extend(validate_replica_set_spec(fields.mapping(replica_set, "spec"), "spec"))
    return errors


def validate_replica_set_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_replica_set_spec(fields.mapping(new, "spec"), "spec"))
    errors.extend(_selector_immutable(new, old))
    return errors


# --- StatefulSet --------------------------------------------------------------------------------


def validate_stateful_set_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    management = fields.text(spec, "podManagementPolicy")
    if not management:
        errors.append(fielderrors.required(fielderrors.child(path, "podManagementPolicy")))
    elif management not in ("OrderedReady", "Parallel"):
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "podManagementPolicy"),
                management,
                "must be 'OrderedReady' or 'Parallel'",
            )
        )
    errors.extend(
        _stateful_set_strategy(
            fields.mapping(spec, "updateStrategy"), fielderrors.child(path, "updateStrategy")
        )
    )
    retention = fields.mapping(spec, "persistentVolumeClaimRetentionPolicy")
    if spec.get("persistentVolumeClaimRetentionPolicy") is not None:
        for name in ("whenDeleted", "whenScaled"):
            value = fields.text(retention, name)
            if value not in RETENTION_POLICIES:
                errors.append(
                    fielderrors.not_supported(
                        fielderrors.child(
                            fielderrors.child(path, "persistentVolumeClaimRetentionPolicy"), name
                        ),
                        value,
                        RETENTION_POLICIES,
                    )
                )
    errors.extend(_counts(spec, path, "replicas", "minReadySeconds"))
    start = fields.integer(fields.mapping(spec, "ordinals"), "start")
    if start is not None:
        errors.extend(nonnegative(start, fielderrors.child(path, "ordinals.start")))
    errors.extend(_selector(spec, path, "statefulset"))
    selector = selector_of(spec)
    template_path = fielderrors.child(path, "template")
    if selector is None:
        errors.append(fielderrors.invalid(fielderrors.child(path, "selector"), spec.get("selector"), ""))
    else:
        labels = template_labels(spec)
        if not selector.empty and not selector.matches(labels):
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(template_path, "metadata.labels"), labels, SELECTOR_MISMATCH
                )
            )
        template_meta = fields.mapping(fields.mapping(spec, "template"), "metadata")
        errors.extend(metadata.validate_labels(labels, fielderrors.child(template_path, "labels")))
        errors.extend(
            metadata.validate_annotations(
                fields.string_map(template_meta, "annotations"),
                fielderrors.child(template_path, "annotations"),
            )
        )
    errors.extend(_always_restarting(spec, template_path, "StatefulSet"))
    return errors


def _stateful_set_strategy(strategy: dict[str, Any], path: str) -> list[FieldError]:
    kind = fields.text(strategy, "type")
    rolling_update_path = fielderrors.child(path, "rollingUpdate")
    if not kind:
        return [fielderrors.required(path)]
    if kind == "OnDelete":
        if strategy.get("rollingUpdate") is not None:
            return [
                fielderrors.invalid(
                    rolling_update_path,
                    strategy["rollingUpdate"],
                    "only allowed for updateStrategy 'RollingUpdate'",
                )
            ]
        return []
    if kind == "RollingUpdate":
        if strategy.get("rollingUpdate") is None:
            return []
        rolling_update = fields.mapping(strategy, "rollingUpdate")
        errors = _counts(rolling_update, rolling_update_path, "partition")
        max_unavailable = rolling_update.get("maxUnavailable")
        if max_unavailable is not None:
            unavailable_path = fielderrors.child(rolling_update_path, "maxUnavailable")
            errors.extend(scalars.positive_int_or_percent(max_unavailable, unavailable_path))
            if scalars.int_or_percent_value(max_unavailable) == 0:
                errors.append(fielderrors.invalid(unavailable_path, max_unavailable, "cannot be 0"))
            errors.extend(scalars.not_more_than_100_percent(max_unavailable, unavailable_path))
        return errors
    return [fielderrors.invalid(path, strategy, "must be 'RollingUpdate' or 'OnDelete'")]


def validate_stateful_set(stateful_set: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(stateful_set, namespaced=True, name_rule=metadata.dns_label_name)
    errors.extend(validate_stateful_set_spec(fields.mapping(stateful_set, "spec"), "spec"))
    return errors


def validate_stateful_set_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """The name is not re-validated on update, so sets created under older rules stay editable."""
    errors = metadata.validate_object_meta_update(new, old)
    new_spec, old_spec = fields.mapping(new, "spec"), fields.mapping(old, "spec")
    errors.extend(validate_stateful_set_spec(new_spec, "spec"))
    frozen_new = copy.deepcopy(new_spec)
    for name in (
        "replicas",
        "template",
        "updateStrategy",
        "minReadySeconds",
        "ordinals",
        "persistentVolumeClaimRetentionPolicy",
    ):
        frozen_new[name] = old_spec.get(name)
    if not semantic_equal(frozen_new, old_spec):
        errors.append(fielderrors.forbidden("spec", STATEFUL_SET_FROZEN_MESSAGE))
    return errors


# --- DaemonSet ----------------------------------------------------------------------------------


def validate_daemon_set_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors = validate_label_selector(spec.get("selector"), fielderrors.child(path, "selector"))
    selector = selector_of(spec)
    labels = template_labels(spec)
    if selector is not None and not selector.matches(labels):
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "template.metadata.labels"), labels, SELECTOR_MISMATCH
            )
        )
    selector_object = fields.mapping(spec, "selector")
    if spec.get("selector") is not None and not (
        fields.mapping(selector_object, "matchLabels") or fields.items(selector_object, "matchExpressions")
    ):
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "selector"),
                selector_object,
                "empty selector is invalid for daemonset",
            )
        )
    template_path = fielderrors.child(path, "template")
    errors.extend(pods.validate_pod_template(fields.mapping(spec, "template"), template_path))
    errors.extend(_always_restarting(spec, template_path, "DaemonSet"))
    errors.extend(_counts(spec, path, "minReadySeconds", "templateGeneration"))
    errors.extend(
        _daemon_set_strategy(
            fields.mapping(spec, "updateStrategy"), fielderrors.child(path, "updateStrategy")
        )
    )
    errors.extend(_counts(spec, path, "revisionHistoryLimit"))
    return errors


def _daemon_set_strategy(strategy: dict[str, Any], path: str) -> list[FieldError]:
    kind = fields.text(strategy, "type")
    if kind == "OnDelete":
        return []
    if kind != "RollingUpdate":
        return [fielderrors.not_supported(path, strategy, DAEMON_SET_STRATEGIES)]
    rolling_update_path = fielderrors.child(path, "rollingUpdate")
    if strategy.get("rollingUpdate") is None:
        return [fielderrors.required(rolling_update_path)]
    rolling_update = fields.mapping(strategy, "rollingUpdate")
    max_unavailable = rolling_update.get("maxUnavailable")
    max_surge = rolling_update.get("maxSurge")
    unavailable_path = fielderrors.child(rolling_update_path, "maxUnavailable")
    surge_path = fielderrors.child(rolling_update_path, "maxSurge")
    errors = scalars.positive_int_or_percent(max_unavailable, unavailable_path)
    errors.extend(scalars.positive_int_or_percent(max_surge, surge_path))
    errors.extend(scalars.not_more_than_100_percent(max_unavailable, unavailable_path))
    errors.extend(scalars.not_more_than_100_percent(max_surge, surge_path))
    has_unavailable = scalars.int_or_percent_value(max_unavailable) != 0
    has_surge = scalars.int_or_percent_value(max_surge) != 0
    if has_unavailable and has_surge:
        errors.append(
            fielderrors.invalid(surge_path, max_surge, "may not be set when maxUnavailable is non-zero")
        )
    elif not has_unavailable and not has_surge:
        errors.append(fielderrors.required(unavailable_path, "cannot be 0 when maxSurge is 0"))
    return errors


def validate_daemon_set(daemon_set: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(daemon_set, namespaced=True)
    errors.extend(validate_daemon_set_spec(fields.mapping(daemon_set, "spec"), "spec"))
    return errors


def validate_daemon_set_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_daemon_set_spec(fields.mapping(new, "spec"), "spec"))
    errors.extend(_selector_immutable(new, old))
    return errors


# --- ControllerRevision -------------------------------------------------------------------------


def validate_controller_revision(revision: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(revision, namespaced=True)
    if revision.get("data") is None:
        errors.append(fielderrors.required("data", "data is mandatory"))
    errors.extend(nonnegative(fields.integer(revision, "revision") or 0, "revision"))
    return errors


def validate_controller_revision_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_controller_revision(new))
    errors.extend(metadata.immutable(new.get("data"), old.get("data"), "data"))
    return errors
