"""Validation of batch/v1 Jobs and CronJobs.

A Job's pods must not restart `Always`; unless the user opted into `manualSelector`, its selector and
the `controller-uid`/`job-name` template labels are the server-generated ones for this Job's uid and
name. After creation the selector, the pod template (except scheduling directives of a suspended,
never-started Job) and the completion settings are frozen. A CronJob needs a parsable schedule, a
known concurrency policy and a job template without a selector, since every Job gets its own.
"""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api import cron, fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import SelectorError, label_selector_from_object, validate_label_selector
from flotilla.apiserver.registry.validation import fields, metadata, pods
from flotilla.apiserver.registry.validation.apps import SELECTOR_MISMATCH, template_labels
from flotilla.apiserver.registry.validation.metadata import nonnegative

COMPLETION_MODES = ("NonIndexed", "Indexed")
REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
MAX_PARALLELISM_FOR_INDEXED_JOB = 100000
CRON_JOB_NAME_MAX = 52
LEGACY_UID_LABEL = "controller-uid"
UID_LABEL = "batch.kubernetes.io/controller-uid"
LEGACY_NAME_LABEL = "job-name"
NAME_LABEL = "batch.kubernetes.io/job-name"


def _job_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """kube's `validateJobSpec`: everything but the selector."""
    errors: list[FieldError] = []
    for name in (
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
        "backoffLimitPerIndex",
        "maxFailedIndexes",
    ):
        value = fields.integer(spec, name)
        if value is not None:
            errors.extend(nonnegative(value, fielderrors.child(path, name)))
    if spec.get("maxFailedIndexes") is not None and spec.get("backoffLimitPerIndex") is None:
        errors.append(
            fielderrors.required(
                fielderrors.child(path, "backoffLimitPerIndex"), "when maxFailedIndexes is specified"
            )
        )
    mode = spec.get("completionMode")
    indexed = mode == "Indexed"
    if mode is not None:
        if mode not in COMPLETION_MODES:
            errors.append(
                fielderrors.not_supported(fielderrors.child(path, "completionMode"), mode, COMPLETION_MODES)
            )
        if indexed:
            errors.extend(_indexed(spec, path))
    if not indexed:
        for name in ("backoffLimitPerIndex", "maxFailedIndexes"):
            value = fields.integer(spec, name)
            if value is not None:
                errors.append(
                    fielderrors.invalid(
                        fielderrors.child(path, name), value, "requires indexed completion mode"
                    )
                )
    errors.extend(_replacement_policy(spec, fielderrors.child(path, "podReplacementPolicy")))
    template_path = fielderrors.child(path, "template")
    errors.extend(pods.validate_pod_template(fields.mapping(spec, "template"), template_path))
    errors.extend(_restart_policy(spec, fielderrors.child(template_path, "spec.restartPolicy")))
    return errors


def _indexed(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    completions = fields.integer(spec, "completions")
    if completions is None:
        errors.append(
            fielderrors.required(fielderrors.child(path, "completions"), "when completion mode is Indexed")
        )
    parallelism = fields.integer(spec, "parallelism")
    if parallelism is not None and parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "parallelism"),
                parallelism,
                f"must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED_JOB} "
                "when completion mode is Indexed",
            )
        )
    max_failed = fields.integer(spec, "maxFailedIndexes")
    if completions is not None and max_failed is not None and max_failed > completions:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "maxFailedIndexes"),
                max_failed,
                "must be less than or equal to completions",
            )
        )
    return errors


def _replacement_policy(spec: dict[str, Any], path: str) -> list[FieldError]:
    policy = spec.get("podReplacementPolicy")
    if policy is None:
        return []
    if spec.get("podFailurePolicy") is not None:
        return [] if policy == "Failed" else [fielderrors.not_supported(path, policy, ("Failed",))]
    return (
        []
        if policy in REPLACEMENT_POLICIES
        else [fielderrors.not_supported(path, policy, REPLACEMENT_POLICIES)]
    )


def _restart_policy(spec: dict[str, Any], path: str) -> list[FieldError]:
    restart_policy = fields.text(fields.mapping(fields.mapping(spec, "template"), "spec"), "restartPolicy")
    if restart_policy in ("", "Always"):
        return [fielderrors.required(path, 'valid values: "OnFailure", "Never"')]
    if restart_policy not in ("OnFailure", "Never"):
        return [fielderrors.not_supported(path, restart_policy, ("OnFailure", "Never"))]
    if spec.get("podFailurePolicy") is not None and restart_policy != "Never":
        return [
            fielderrors.invalid(
                path, restart_policy, 'only "Never" is supported when podFailurePolicy is specified'
            )
        ]
    return []


def validate_job_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """kube's `ValidateJobSpec`: the spec plus a selector its template satisfies."""
    errors = _job_spec(spec, path)
    selector_path = fielderrors.child(path, "selector")
    if spec.get("selector") is None:
        errors.append(fielderrors.required(selector_path))
    else:
        errors.extend(validate_label_selector(spec["selector"], selector_path))
    try:
        selector = label_selector_from_object(spec.get("selector"))
    except SelectorError:
        return errors
    labels = template_labels(spec)
    if not selector.matches(labels):
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "template.metadata.labels"), labels, SELECTOR_MISMATCH
            )
        )
    return errors


def _generated_selector(job: dict[str, Any], *, prefixed_labels: bool) -> list[FieldError]:
    """Unless `manualSelector`, the template carries this Job's labels and the selector picks them."""
    spec = fields.mapping(job, "spec")
    if spec.get("manualSelector") is True:
        return []
    meta = fields.mapping(job, "metadata")
    uid, name = fields.text(meta, "uid"), fields.text(meta, "name")
    labels = template_labels(spec)
    template_meta_path = "spec.template.metadata"
    expected = [(LEGACY_UID_LABEL, uid), (LEGACY_NAME_LABEL, name)]
    if prefixed_labels:
        expected += [(UID_LABEL, uid), (NAME_LABEL, name)]
    errors: list[FieldError] = []
    for key, value in expected:
        label_path = fielderrors.key(fielderrors.child(template_meta_path, "labels"), key)
        if key not in labels:
            errors.append(fielderrors.required(label_path, value))
        elif labels[key] != value:
            errors.append(fielderrors.invalid(label_path, labels, f"must be '{value}'"))
    selected = {UID_LABEL: uid} if prefixed_labels else {LEGACY_UID_LABEL: uid}
    try:
        selector = label_selector_from_object(spec.get("selector"))
    except SelectorError:
        return errors
    if not selector.matches(selected):
        errors.append(
            fielderrors.invalid("spec.selector", spec.get("selector"), "`selector` not auto-generated")
        )
    return errors


def validate_job(job: dict[str, Any], *, prefixed_labels: bool = True) -> list[FieldError]:
    errors = metadata.validate_object_meta(job, namespaced=True)
    errors.extend(_generated_selector(job, prefixed_labels=prefixed_labels))
    spec = fields.mapping(job, "spec")
    errors.extend(validate_job_spec(spec, "spec"))
    completions = fields.integer(spec, "completions")
    if spec.get("completionMode") == "Indexed" and completions is not None and completions > 0:
        name = fields.text(fields.mapping(job, "metadata"), "name")
        hostname = f"{name}-{completions - 1}"
        if names.dns1123_label_errors(hostname):
            errors.append(
                fielderrors.invalid(
                    "metadata.name", name, f"will not able to create pod with invalid DNS label: {hostname}"
                )
            )
    return errors


def validate_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    old_spec = fields.mapping(old, "spec")
    old_labels = template_labels(old_spec)
    # Jobs created before the prefixed labels existed keep validating without them.
    prefixed = UID_LABEL in old_labels and NAME_LABEL in old_labels
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_job(new, prefixed_labels=prefixed))
    new_spec = fields.mapping(new, "spec")
    errors.extend(_completions_update(new_spec, old_spec))
    errors.extend(metadata.immutable(new_spec.get("selector"), old_spec.get("selector"), "spec.selector"))
    errors.extend(_template_update(new, old))
    for name in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"):
        errors.extend(
            metadata.immutable(new_spec.get(name), old_spec.get(name), fielderrors.child("spec", name))
        )
    return errors


def _completions_update(new_spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    """Completions are frozen, except for Indexed Jobs scaled together with parallelism."""
    new_completions, old_completions = new_spec.get("completions"), old_spec.get("completions")
    if new_spec.get("completionMode") != "Indexed":
        return metadata.immutable(new_completions, old_completions, "spec.completions")
    if new_completions == old_completions or new_completions is None:
        return []
    if new_completions != new_spec.get("parallelism"):
        return [
            fielderrors.invalid(
                "spec.completions", new_completions, "can only be modified in tandem with spec.parallelism"
            )
        ]
    return []


def _template_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    new_template = fields.mapping(fields.mapping(new, "spec"), "template")
    old_spec = fields.mapping(old, "spec")
    old_template = copy.deepcopy(fields.mapping(old_spec, "template"))
    suspended = old_spec.get("suspend") is True
    never_started = fields.mapping(old, "status").get("startTime") is None
    if suspended and never_started:
        # A suspended Job that never ran may still move: node affinity, node selector,
        # tolerations, template labels and annotations, and scheduling gates are mutable.
        new_pod_spec = fields.mapping(new_template, "spec")
        old_pod_spec = fields.ensure_mapping(old_template, "spec")
        for name in ("nodeSelector", "tolerations", "schedulingGates"):
            old_pod_spec[name] = copy.deepcopy(new_pod_spec.get(name))
        affinity = copy.deepcopy(fields.mapping(old_pod_spec, "affinity"))
        affinity["nodeAffinity"] = copy.deepcopy(fields.mapping(new_pod_spec, "affinity").get("nodeAffinity"))
        old_pod_spec["affinity"] = affinity
        old_meta = fields.ensure_mapping(old_template, "metadata")
        new_meta = fields.mapping(new_template, "metadata")
        for name in ("labels", "annotations"):
            old_meta[name] = copy.deepcopy(new_meta.get(name))
    return metadata.immutable(new_template, old_template, "spec.template")


# --- CronJob ------------------------------------------------------------------------------------


def _cron_job_spec(spec: dict[str, Any], old_spec: dict[str, Any] | None, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    schedule = fields.text(spec, "schedule")
    schedule_path = fielderrors.child(path, "schedule")
    if not schedule:
        errors.append(fielderrors.required(schedule_path))
    else:
        try:
            cron.parse_schedule(schedule)
        except cron.CronSyntaxError as problem:
            errors.append(fielderrors.invalid(schedule_path, schedule, str(problem)))
        allow_zone_in_schedule = old_spec is not None and "TZ" in fields.text(old_spec, "schedule")
        if "TZ" in schedule:
            if not allow_zone_in_schedule:
                errors.append(
                    fielderrors.invalid(
                        schedule_path,
                        schedule,
                        "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
                    )
                )
            elif spec.get("timeZone") is not None:
                errors.append(
                    fielderrors.invalid(
                        schedule_path,
                        schedule,
                        "cannot use both timeZone field and TZ or CRON_TZ in schedule",
                    )
                )
    deadline = fields.integer(spec, "startingDeadlineSeconds")
    if deadline is not None:
        errors.extend(nonnegative(deadline, fielderrors.child(path, "startingDeadlineSeconds")))
    if old_spec is None or spec.get("timeZone") != old_spec.get("timeZone"):
        errors.extend(_time_zone(spec.get("timeZone"), fielderrors.child(path, "timeZone")))
    policy = fields.text(spec, "concurrencyPolicy")
    policy_path = fielderrors.child(path, "concurrencyPolicy")
    if not policy:
        errors.append(fielderrors.required(policy_path))
    elif policy not in CONCURRENCY_POLICIES:
        errors.append(fielderrors.not_supported(policy_path, policy, CONCURRENCY_POLICIES))
    errors.extend(_job_template(fields.mapping(spec, "jobTemplate"), fielderrors.child(path, "jobTemplate")))
    for name in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        value = fields.integer(spec, name)
        if value is not None:
            errors.extend(nonnegative(value, fielderrors.child(path, name)))
    return errors


def _time_zone(zone: Any, path: str) -> list[FieldError]:
    """Syntax only: whether the zone exists in the IANA database is not checked here."""
    if zone is None:
        return []
    if not isinstance(zone, str) or not zone:
        return [fielderrors.invalid(path, zone, "unknown time zone")]
    if zone.lower() == "local":
        return [
            fielderrors.invalid(
                path,
                zone,
                "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
            )
        ]
    if zone.startswith("/") or ".." in zone.split("/") or any(not (c.isalnum() or c in "/_-+") for c in zone):
        return [fielderrors.invalid(path, zone, f"unknown time zone {zone}")]
    return []


def _job_template(template: dict[str, Any], path: str) -> list[FieldError]:
    spec = fields.mapping(template, "spec")
    spec_path = fielderrors.child(path, "spec")
    errors = _job_spec(spec, spec_path)
    if spec.get("selector") is not None:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(spec_path, "selector"),
                spec["selector"],
                "`selector` will be auto-generated",
            )
        )
    if spec.get("manualSelector") is True:
        errors.append(
            fielderrors.not_supported(fielderrors.child(spec_path, "manualSelector"), True, ("nil", "false"))
        )
    return errors


def validate_cron_job(cron_job: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(cron_job, namespaced=True)
    errors.extend(_cron_job_spec(fields.mapping(cron_job, "spec"), None, "spec"))
    name = fields.text(fields.mapping(cron_job, "metadata"), "name")
    if len(name) > CRON_JOB_NAME_MAX:
        errors.append(
            fielderrors.invalid("metadata.name", name, f"must be no more than {CRON_JOB_NAME_MAX} characters")
        )
    return errors


def validate_cron_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """The 52-character name limit is not applied on update, so older CronJobs stay editable."""
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(_cron_job_spec(fields.mapping(new, "spec"), fields.mapping(old, "spec"), "spec"))
    return errors
