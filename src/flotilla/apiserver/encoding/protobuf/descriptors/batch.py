"""Protobuf field tables for batch/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import (
    BOOL,
    INT32,
    INT64,
    OMITEMPTY,
    POINTER,
    REPEATED,
    STRING,
    Field,
    Message,
)

MESSAGES: Final[Mapping[str, Message]] = {
    "batch.v1.CronJob": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "batch.v1.CronJobSpec", OMITEMPTY),
        Field(3, "status", "batch.v1.CronJobStatus", OMITEMPTY),
    ),
    "batch.v1.CronJobSpec": (
        Field(1, "schedule", STRING),
        Field(8, "timeZone", STRING, POINTER | OMITEMPTY),
        Field(2, "startingDeadlineSeconds", INT64, POINTER | OMITEMPTY),
        Field(3, "concurrencyPolicy", STRING, OMITEMPTY),
        Field(4, "suspend", BOOL, POINTER | OMITEMPTY),
        Field(5, "jobTemplate", "batch.v1.JobTemplateSpec"),
        Field(6, "successfulJobsHistoryLimit", INT32, POINTER | OMITEMPTY),
        Field(7, "failedJobsHistoryLimit", INT32, POINTER | OMITEMPTY),
    ),
    "batch.v1.CronJobStatus": (
        Field(1, "active", "core.v1.ObjectReference", REPEATED | OMITEMPTY),
        Field(4, "lastScheduleTime", "meta.v1.Time", POINTER | OMITEMPTY),
        Field(5, "lastSuccessfulTime", "meta.v1.Time", POINTER | OMITEMPTY),
    ),
    "batch.v1.Job": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "batch.v1.JobSpec", OMITEMPTY),
        Field(3, "status", "batch.v1.JobStatus", OMITEMPTY),
    ),
    "batch.v1.JobCondition": (
        Field(1, "type", STRING),
        Field(2, "status", STRING),
        Field(3, "lastProbeTime", "meta.v1.Time", OMITEMPTY),
        Field(4, "lastTransitionTime", "meta.v1.Time", OMITEMPTY),
        Field(5, "reason", STRING, OMITEMPTY),
        Field(6, "message", STRING, OMITEMPTY),
    ),
    "batch.v1.JobSpec": (
        Field(1, "parallelism", INT32, POINTER | OMITEMPTY),
        Field(2, "completions", INT32, POINTER | OMITEMPTY),
        Field(3, "activeDeadlineSeconds", INT64, POINTER | OMITEMPTY),
        Field(11, "podFailurePolicy", "batch.v1.PodFailurePolicy", POINTER | OMITEMPTY),
        Field(16, "successPolicy", "batch.v1.SuccessPolicy", POINTER | OMITEMPTY),
        Field(7, "backoffLimit", INT32, POINTER | OMITEMPTY),
        Field(12, "backoffLimitPerIndex", INT32, POINTER | OMITEMPTY),
        Field(13, "maxFailedIndexes", INT32, POINTER | OMITEMPTY),
        Field(4, "selector", "meta.v1.LabelSelector", POINTER | OMITEMPTY),
        Field(5, "manualSelector", BOOL, POINTER | OMITEMPTY),
        Field(6, "template", "core.v1.PodTemplateSpec"),
        Field(8, "ttlSecondsAfterFinished", INT32, POINTER | OMITEMPTY),
        Field(9, "completionMode", STRING, POINTER | OMITEMPTY),
        Field(10, "suspend", BOOL, POINTER | OMITEMPTY),
        Field(14, "podReplacementPolicy", STRING, POINTER | OMITEMPTY),
        Field(15, "managedBy", STRING, POINTER | OMITEMPTY),
    ),
    "batch.v1.JobStatus": (
        Field(1, "conditions", "batch.v1.JobCondition", REPEATED | OMITEMPTY),
        Field(2, "startTime", "meta.v1.Time", POINTER | OMITEMPTY),
        Field(3, "completionTime", "meta.v1.Time", POINTER | OMITEMPTY),
        Field(4, "active", INT32, OMITEMPTY),
        Field(5, "succeeded", INT32, OMITEMPTY),
        Field(6, "failed", INT32, OMITEMPTY),
        Field(11, "terminating", INT32, POINTER | OMITEMPTY),
        Field(7, "completedIndexes", STRING, OMITEMPTY),
        Field(10, "failedIndexes", STRING, POINTER | OMITEMPTY),
        Field(8, "uncountedTerminatedPods", "batch.v1.UncountedTerminatedPods", POINTER | OMITEMPTY),
        Field(9, "ready", INT32, POINTER | OMITEMPTY),
    ),
    "batch.v1.JobTemplateSpec": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "batch.v1.JobSpec", OMITEMPTY),
    ),
    "batch.v1.PodFailurePolicy": (Field(1, "rules", "batch.v1.PodFailurePolicyRule", REPEATED),),
    "batch.v1.PodFailurePolicyOnExitCodesRequirement": (
        Field(1, "containerName", STRING, POINTER | OMITEMPTY),
        Field(2, "operator", STRING),
        Field(3, "values", INT32, REPEATED),
    ),
    "batch.v1.PodFailurePolicyOnPodConditionsPattern": (
        Field(1, "type", STRING),
        Field(2, "status", STRING),
    ),
    "batch.v1.PodFailurePolicyRule": (
        Field(1, "action", STRING),
        Field(2, "onExitCodes", "batch.v1.PodFailurePolicyOnExitCodesRequirement", POINTER | OMITEMPTY),
        Field(3, "onPodConditions", "batch.v1.PodFailurePolicyOnPodConditionsPattern", REPEATED | OMITEMPTY),
    ),
    "batch.v1.SuccessPolicy": (Field(1, "rules", "batch.v1.SuccessPolicyRule", REPEATED),),
    "batch.v1.SuccessPolicyRule": (
        Field(1, "succeededIndexes", STRING, POINTER | OMITEMPTY),
        Field(2, "succeededCount", INT32, POINTER | OMITEMPTY),
    ),
    "batch.v1.UncountedTerminatedPods": (
        Field(1, "succeeded", STRING, REPEATED | OMITEMPTY),
        Field(2, "failed", STRING, REPEATED | OMITEMPTY),
    ),
}
