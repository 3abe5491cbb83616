"""Protobuf field tables for meta/v1 (ObjectMeta, LabelSelector, DeleteOptions, Condition).

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import (
    BOOL,
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
    "meta.v1.Condition": (
        Field(1, "type", STRING),
        Field(2, "status", STRING),
        Field(3, "observedGeneration", INT64, OMITEMPTY),
        Field(4, "lastTransitionTime", "meta.v1.Time"),
        Field(5, "reason", STRING),
        Field(6, "message", STRING),
    ),
    "meta.v1.DeleteOptions": (
        Field(1, "gracePeriodSeconds", INT64, POINTER | OMITEMPTY),
        Field(2, "preconditions", "meta.v1.Preconditions", POINTER | OMITEMPTY),
        Field(3, "orphanDependents", BOOL, POINTER | OMITEMPTY),
        Field(4, "propagationPolicy", STRING, POINTER | OMITEMPTY),
        Field(5, "dryRun", STRING, REPEATED | OMITEMPTY),
        Field(6, "ignoreStoreReadErrorWithClusterBreakingPotential", BOOL, POINTER | OMITEMPTY),
    ),
    "meta.v1.FieldSelectorRequirement": (
        Field(1, "key", STRING),
        Field(2, "operator", STRING),
        Field(3, "values", STRING, REPEATED | OMITEMPTY),
    ),
    "meta.v1.LabelSelector": (
        Field(1, "matchLabels", MapOf(STRING, STRING), OMITEMPTY),
        Field(2, "matchExpressions", "meta.v1.LabelSelectorRequirement", REPEATED | OMITEMPTY),
    ),
    "meta.v1.LabelSelectorRequirement": (
        Field(1, "key", STRING),
        Field(2, "operator", STRING),
        Field(3, "values", STRING, REPEATED | OMITEMPTY),
    ),
    "meta.v1.ManagedFieldsEntry": (
        Field(1, "manager", STRING, OMITEMPTY),
        Field(2, "operation", STRING, OMITEMPTY),
        Field(3, "apiVersion", STRING, OMITEMPTY),
        Field(4, "time", "meta.v1.Time", POINTER | OMITEMPTY),
        Field(6, "fieldsType", STRING, OMITEMPTY),
        Field(7, "fieldsV1", "meta.v1.FieldsV1", POINTER | OMITEMPTY),
        Field(8, "subresource", STRING, OMITEMPTY),
    ),
    "meta.v1.ObjectMeta": (
        Field(1, "name", STRING, OMITEMPTY),
        Field(2, "generateName", STRING, OMITEMPTY),
        Field(3, "namespace", STRING, OMITEMPTY),
        Field(4, "selfLink", STRING, OMITEMPTY),
        Field(5, "uid", STRING, OMITEMPTY),
        Field(6, "resourceVersion", STRING, OMITEMPTY),
        Field(7, "generation", INT64, OMITEMPTY),
        Field(8, "creationTimestamp", "meta.v1.Time", OMITEMPTY),
        Field(9, "deletionTimestamp", "meta.v1.Time", POINTER | OMITEMPTY),
        Field(10, "deletionGracePeriodSeconds", INT64, POINTER | OMITEMPTY),
        Field(11, "labels", MapOf(STRING, STRING), OMITEMPTY),
        Field(12, "annotations", MapOf(STRING, STRING), OMITEMPTY),
        Field(13, "ownerReferences", "meta.v1.OwnerReference", REPEATED | OMITEMPTY),
        Field(14, "finalizers", STRING, REPEATED | OMITEMPTY),
        Field(17, "managedFields", "meta.v1.ManagedFieldsEntry", REPEATED | OMITEMPTY),
    ),
    "meta.v1.OwnerReference": (
        Field(5, "apiVersion", STRING),
        Field(1, "kind", STRING),
        Field(3, "name", STRING),
        Field(4, "uid", STRING),
        Field(6, "controller", BOOL, POINTER | OMITEMPTY),
        Field(7, "blockOwnerDeletion", BOOL, POINTER | OMITEMPTY),
    ),
    "meta.v1.Preconditions": (
        Field(1, "uid", STRING, POINTER | OMITEMPTY),
        Field(2, "resourceVersion", STRING, POINTER | OMITEMPTY),
    ),
}
