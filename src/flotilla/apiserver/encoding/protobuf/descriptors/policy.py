"""Protobuf field tables for policy/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import (
    INT32,
    INT64,
    OMITEMPTY,
    POINTER,
    REPEATED,
    STRING,
    Field,
    MapOf,
    Message,
)

MESSAGES: Final[Mapping[str, Message]] = {
    "policy.v1.Eviction": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "deleteOptions", "meta.v1.DeleteOptions", POINTER | OMITEMPTY),
    ),
    "policy.v1.PodDisruptionBudget": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "policy.v1.PodDisruptionBudgetSpec", OMITEMPTY),
        Field(3, "status", "policy.v1.PodDisruptionBudgetStatus", OMITEMPTY),
    ),
    "policy.v1.PodDisruptionBudgetSpec": (
        Field(1, "minAvailable", "intstr.IntOrString", POINTER | OMITEMPTY),
        Field(2, "selector", "meta.v1.LabelSelector", POINTER | OMITEMPTY),
        Field(3, "maxUnavailable", "intstr.IntOrString", POINTER | OMITEMPTY),
        Field(4, "unhealthyPodEvictionPolicy", STRING, POINTER | OMITEMPTY),
    ),
    "policy.v1.PodDisruptionBudgetStatus": (
        Field(1, "observedGeneration", INT64, OMITEMPTY),
        Field(2, "disruptedPods", MapOf(STRING, "meta.v1.Time"), OMITEMPTY),
        Field(3, "disruptionsAllowed", INT32),
        Field(4, "currentHealthy", INT32),
        Field(5, "desiredHealthy", INT32),
        Field(6, "expectedPods", INT32),
        Field(7, "conditions", "meta.v1.Condition", REPEATED | OMITEMPTY),
    ),
}
