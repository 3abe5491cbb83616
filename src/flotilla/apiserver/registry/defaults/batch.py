"""Defaults of batch/v1 Jobs and CronJobs, including the Job selector the server generates.

A Job gets `parallelism`/`completions` 1 when neither is set, `backoffLimit: 6` (unbounded with a
per-index limit), `completionMode: NonIndexed`, `suspend: false`, `manualSelector: false` and a
pod replacement policy. Unless the user asked for a manual selector, kube also generates the
selector and the pod labels from the Job's uid and name (`controller-uid`, `job-name` and their
`batch.kubernetes.io/` forms); the uid must already be in `metadata.uid`. A Job without labels of
its own takes its pod template's. CronJobs get `concurrencyPolicy: Allow`, `suspend: false` and
history limits of 3 successful and 1 failed Job.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.defaults.pods import default_pod_template
from flotilla.apiserver.registry.validation import fields

BACKOFF_LIMIT = 6
UNLIMITED_BACKOFF = 2**31 - 1
LEGACY_UID_LABEL = "controller-uid"
UID_LABEL = "batch.kubernetes.io/controller-uid"
LEGACY_NAME_LABEL = "job-name"
NAME_LABEL = "batch.kubernetes.io/job-name"


def _pod_failure_policy(spec: dict[str, Any]) -> None:
    for rule in fields.objects(fields.mapping(spec, "podFailurePolicy"), "rules"):
        for pattern in fields.objects(rule, "onPodConditions"):
            if not pattern.get("status"):
                pattern["status"] = "True"


def generate_selector(job: dict[str, Any]) -> None:
    """Label the pod template with this Job's identity and select on its uid (kube's `generateSelector`).

    Labels the user already set are kept; validation then rejects them if they are wrong.
    """
    meta = fields.mapping(job, "metadata")
    uid, name = fields.text(meta, "uid"), fields.text(meta, "name")
    spec = fields.ensure_mapping(job, "spec")
    template_meta = fields.ensure_mapping(fields.ensure_mapping(spec, "template"), "metadata")
    labels = fields.ensure_mapping(template_meta, "labels")
    for key in (LEGACY_NAME_LABEL, NAME_LABEL):
        labels.setdefault(key, name)
    for key in (LEGACY_UID_LABEL, UID_LABEL):
        labels.setdefault(key, uid)
    selector = fields.ensure_mapping(spec, "selector")
    fields.ensure_mapping(selector, "matchLabels").setdefault(UID_LABEL, uid)


def prepare_job(job: dict[str, Any]) -> None:
    """kube's `PrepareForCreate`: a new Job without a manual selector gets the generated selector and
    labels, also over a selector it brings without them (Karmada strips the hub's generated ones
    from a propagated Job, leaving an empty `matchLabels` for the member to fill in)."""
    if fields.mapping(job, "spec").get("manualSelector") is not True and fields.text(
        fields.mapping(job, "metadata"), "uid"
    ):
        generate_selector(job)


def default_job(job: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(job, "spec")
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = (
            UNLIMITED_BACKOFF if spec.get("backoffLimitPerIndex") is not None else BACKOFF_LIMIT
        )
    if spec.get("completionMode") is None:
        spec["completionMode"] = "NonIndexed"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    _pod_failure_policy(spec)
    if spec.get("podReplacementPolicy") is None:
        spec["podReplacementPolicy"] = (
            "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed"
        )
    if spec.get("manualSelector") is None:
        spec["manualSelector"] = False
    # kube generates the selector when the Job is created; a Job that still has none and has
    # a uid is one being created.
    uid = fields.text(fields.mapping(job, "metadata"), "uid")
    if spec["manualSelector"] is not True and spec.get("selector") is None and uid:
        generate_selector(job)
    default_pod_template(spec)
    template_labels = fields.mapping(fields.mapping(spec, "template"), "metadata").get("labels")
    meta = fields.ensure_mapping(job, "metadata")
    if isinstance(template_labels, dict) and not fields.mapping(meta, "labels"):
        meta["labels"] = dict(template_labels)


def default_cron_job(cron_job: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(cron_job, "spec")
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    if spec.get("successfulJobsHistoryLimit") is None:
        spec["successfulJobsHistoryLimit"] = 3
    if spec.get("failedJobsHistoryLimit") is None:
        spec["failedJobsHistoryLimit"] = 1
    job_spec = fields.ensure_mapping(fields.ensure_mapping(spec, "jobTemplate"), "spec")
    _pod_failure_policy(job_spec)
    default_pod_template(job_spec)
