"""Protobuf field tables for apps/v1.

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
    "apps.v1.DaemonSet": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "apps.v1.DaemonSetSpec", OMITEMPTY),
        Field(3, "status", "apps.v1.DaemonSetStatus", OMITEMPTY),
    ),
    "apps.v1.DaemonSetCondition": (
        Field(1, "type", STRING),
        Field(2, "status", STRING),
        Field(3, "lastTransitionTime", "meta.v1.Time", OMITEMPTY),
        Field(4, "reason", STRING, OMITEMPTY),
        Field(5, "message", STRING, OMITEMPTY),
    ),
    "apps.v1.DaemonSetSpec": (
        Field(1, "selector", "meta.v1.LabelSelector", POINTER),
        Field(2, "template", "core.v1.PodTemplateSpec"),
        Field(3, "updateStrategy", "apps.v1.DaemonSetUpdateStrategy", OMITEMPTY),
        Field(4, "minReadySeconds", INT32, OMITEMPTY),
        Field(6, "revisionHistoryLimit", INT32, POINTER | OMITEMPTY),
    ),
    "apps.v1.DaemonSetStatus": (
        Field(1, "currentNumberScheduled", INT32),
        Field(2, "numberMisscheduled", INT32),
        Field(3, "desiredNumberScheduled", INT32),
        Field(4, "numberReady", INT32),
        Field(5, "observedGeneration", INT64, OMITEMPTY),
        Field(6, "updatedNumberScheduled", INT32, OMITEMPTY),
        Field(7, "numberAvailable", INT32, OMITEMPTY),
        Field(8, "numberUnavailable", INT32, OMITEMPTY),
        Field(9, "collisionCount", INT32, POINTER | OMITEMPTY),
        Field(10, "conditions", "apps.v1.DaemonSetCondition", REPEATED | OMITEMPTY),
    ),
    "apps.v1.DaemonSetUpdateStrategy": (
        Field(1, "type", STRING, OMITEMPTY),
        Field(2, "rollingUpdate", "apps.v1.RollingUpdateDaemonSet", POINTER | OMITEMPTY),
    ),
    "apps.v1.Deployment": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "apps.v1.DeploymentSpec", OMITEMPTY),
        Field(3, "status", "apps.v1.DeploymentStatus", OMITEMPTY),
    ),
    "apps.v1.DeploymentCondition": (
        Field(1, "type", STRING),
        Field(2, "status", STRING),
        Field(6, "lastUpdateTime", "meta.v1.Time", OMITEMPTY),
        Field(7, "lastTransitionTime", "meta.v1.Time", OMITEMPTY),
        Field(4, "reason", STRING, OMITEMPTY),
        Field(5, "message", STRING, OMITEMPTY),
    ),
    "apps.v1.DeploymentSpec": (
        Field(1, "replicas", INT32, POINTER | OMITEMPTY),
        Field(2, "selector", "meta.v1.LabelSelector", POINTER),
        Field(3, "template", "core.v1.PodTemplateSpec"),
        Field(4, "strategy", "apps.v1.DeploymentStrategy", OMITEMPTY),
        Field(5, "minReadySeconds", INT32, OMITEMPTY),
        Field(6, "revisionHistoryLimit", INT32, POINTER | OMITEMPTY),
        Field(7, "paused", BOOL, OMITEMPTY),
        Field(9, "progressDeadlineSeconds", INT32, POINTER | OMITEMPTY),
    ),
    "apps.v1.DeploymentStatus": (
        Field(1, "observedGeneration", INT64, OMITEMPTY),
        Field(2, "replicas", INT32, OMITEMPTY),
        Field(3, "updatedReplicas", INT32, OMITEMPTY),
        Field(7, "readyReplicas", INT32, OMITEMPTY),
        Field(4, "availableReplicas", INT32, OMITEMPTY),
        Field(5, "unavailableReplicas", INT32, OMITEMPTY),
        Field(6, "conditions", "apps.v1.DeploymentCondition", REPEATED | OMITEMPTY),
        Field(8, "collisionCount", INT32, POINTER | OMITEMPTY),
    ),
    "apps.v1.DeploymentStrategy": (
        Field(1, "type", STRING, OMITEMPTY),
        Field(2, "rollingUpdate", "apps.v1.RollingUpdateDeployment", POINTER | OMITEMPTY),
    ),
    "apps.v1.ReplicaSet": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "apps.v1.ReplicaSetSpec", OMITEMPTY),
        Field(3, "status", "apps.v1.ReplicaSetStatus", OMITEMPTY),
    ),
    "apps.v1.ReplicaSetCondition": (
        Field(1, "type", STRING),
        Field(2, "status", STRING),
        Field(3, "lastTransitionTime", "meta.v1.Time", OMITEMPTY),
        Field(4, "reason", STRING, OMITEMPTY),
        Field(5, "message", STRING, OMITEMPTY),
    ),
    "apps.v1.ReplicaSetSpec": (
        Field(1, "replicas", INT32, POINTER | OMITEMPTY),
        Field(4, "minReadySeconds", INT32, OMITEMPTY),
        Field(2, "selector", "meta.v1.LabelSelector", POINTER),
        Field(3, "template", "core.v1.PodTemplateSpec", OMITEMPTY),
    ),
    "apps.v1.ReplicaSetStatus": (
        Field(1, "replicas", INT32),
        Field(2, "fullyLabeledReplicas", INT32, OMITEMPTY),
        Field(4, "readyReplicas", INT32, OMITEMPTY),
        Field(5, "availableReplicas", INT32, OMITEMPTY),
        Field(3, "observedGeneration", INT64, OMITEMPTY),
        Field(6, "conditions", "apps.v1.ReplicaSetCondition", REPEATED | OMITEMPTY),
    ),
    "apps.v1.RollingUpdateDaemonSet": (
        Field(1, "maxUnavailable", "intstr.IntOrString", POINTER | OMITEMPTY),
        Field(2, "maxSurge", "intstr.IntOrString", POINTER | OMITEMPTY),
    ),
    "apps.v1.RollingUpdateDeployment": (
        Field(1, "maxUnavailable", "intstr.IntOrString", POINTER | OMITEMPTY),
        Field(2, "maxSurge", "intstr.IntOrString", POINTER | OMITEMPTY),
    ),
    "apps.v1.RollingUpdateStatefulSetStrategy": (
        Field(1, "partition", INT32, POINTER | OMITEMPTY),
        Field(2, "maxUnavailable", "intstr.IntOrString", POINTER | OMITEMPTY),
    ),
    "apps.v1.StatefulSet": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "apps.v1.StatefulSetSpec", OMITEMPTY),
        Field(3, "status", "apps.v1.StatefulSetStatus", OMITEMPTY),
    ),
    "apps.v1.StatefulSetCondition": (
        Field(1, "type", STRING),
        Field(2, "status", STRING),
        Field(3, "lastTransitionTime", "meta.v1.Time", OMITEMPTY),
        Field(4, "reason", STRING, OMITEMPTY),
        Field(5, "message", STRING, OMITEMPTY),
    ),
    "apps.v1.StatefulSetOrdinals": (Field(1, "start", INT32),),
    "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy": (
        Field(1, "whenDeleted", STRING, OMITEMPTY),
        Field(2, "whenScaled", STRING, OMITEMPTY),
    ),
    "apps.v1.StatefulSetSpec": (
        Field(1, "replicas", INT32, POINTER | OMITEMPTY),
        Field(2, "selector", "meta.v1.LabelSelector", POINTER),
        Field(3, "template", "core.v1.PodTemplateSpec"),
        Field(4, "volumeClaimTemplates", "core.v1.PersistentVolumeClaim", REPEATED | OMITEMPTY),
        Field(5, "serviceName", STRING),
        Field(6, "podManagementPolicy", STRING, OMITEMPTY),
        Field(7, "updateStrategy", "apps.v1.StatefulSetUpdateStrategy", OMITEMPTY),
        Field(8, "revisionHistoryLimit", INT32, POINTER | OMITEMPTY),
        Field(9, "minReadySeconds", INT32, OMITEMPTY),
        Field(
            10,
            "persistentVolumeClaimRetentionPolicy",
            "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy",
            POINTER | OMITEMPTY,
        ),
        Field(11, "ordinals", "apps.v1.StatefulSetOrdinals", POINTER | OMITEMPTY),
    ),
    "apps.v1.StatefulSetStatus": (
        Field(1, "observedGeneration", INT64, OMITEMPTY),
        Field(2, "replicas", INT32),
        Field(3, "readyReplicas", INT32, OMITEMPTY),
        Field(4, "currentReplicas", INT32, OMITEMPTY),
        Field(5, "updatedReplicas", INT32, OMITEMPTY),
        Field(6, "currentRevision", STRING, OMITEMPTY),
        Field(7, "updateRevision", STRING, OMITEMPTY),
        Field(9, "collisionCount", INT32, POINTER | OMITEMPTY),
        Field(10, "conditions", "apps.v1.StatefulSetCondition", REPEATED | OMITEMPTY),
        Field(11, "availableReplicas", INT32),
    ),
    "apps.v1.StatefulSetUpdateStrategy": (
        Field(1, "type", STRING, OMITEMPTY),
        Field(2, "rollingUpdate", "apps.v1.RollingUpdateStatefulSetStrategy", POINTER | OMITEMPTY),
    ),
}
