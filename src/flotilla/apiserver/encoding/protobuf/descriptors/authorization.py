"""Protobuf field tables for authorization.k8s.io/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import (
    BOOL,
    OMITEMPTY,
    POINTER,
    REPEATED,
    STRING,
    Field,
    MapOf,
    Message,
)

MESSAGES: Final[Mapping[str, Message]] = {
    "authorization.v1.ExtraValue": (Field(1, "items", STRING, REPEATED),),
    "authorization.v1.FieldSelectorAttributes": (
        Field(1, "rawSelector", STRING, OMITEMPTY),
        Field(2, "requirements", "meta.v1.FieldSelectorRequirement", REPEATED | OMITEMPTY),
    ),
    "authorization.v1.LabelSelectorAttributes": (
        Field(1, "rawSelector", STRING, OMITEMPTY),
        Field(2, "requirements", "meta.v1.LabelSelectorRequirement", REPEATED | OMITEMPTY),
    ),
    "authorization.v1.LocalSubjectAccessReview": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "authorization.v1.SubjectAccessReviewSpec"),
        Field(3, "status", "authorization.v1.SubjectAccessReviewStatus", OMITEMPTY),
    ),
    "authorization.v1.NonResourceAttributes": (
        Field(1, "path", STRING, OMITEMPTY),
        Field(2, "verb", STRING, OMITEMPTY),
    ),
    "authorization.v1.NonResourceRule": (
        Field(1, "verbs", STRING, REPEATED),
        Field(2, "nonResourceURLs", STRING, REPEATED | OMITEMPTY),
    ),
    "authorization.v1.ResourceAttributes": (
        Field(1, "namespace", STRING, OMITEMPTY),
        Field(2, "verb", STRING, OMITEMPTY),
        Field(3, "group", STRING, OMITEMPTY),
        Field(4, "version", STRING, OMITEMPTY),
        Field(5, "resource", STRING, OMITEMPTY),
        Field(6, "subresource", STRING, OMITEMPTY),
        Field(7, "name", STRING, OMITEMPTY),
        Field(8, "fieldSelector", "authorization.v1.FieldSelectorAttributes", POINTER | OMITEMPTY),
        Field(9, "labelSelector", "authorization.v1.LabelSelectorAttributes", POINTER | OMITEMPTY),
    ),
    "authorization.v1.ResourceRule": (
        Field(1, "verbs", STRING, REPEATED),
        Field(2, "apiGroups", STRING, REPEATED | OMITEMPTY),
        Field(3, "resources", STRING, REPEATED | OMITEMPTY),
        Field(4, "resourceNames", STRING, REPEATED | OMITEMPTY),
    ),
    "authorization.v1.SelfSubjectAccessReview": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "authorization.v1.SelfSubjectAccessReviewSpec"),
        Field(3, "status", "authorization.v1.SubjectAccessReviewStatus", OMITEMPTY),
    ),
    "authorization.v1.SelfSubjectAccessReviewSpec": (
        Field(1, "resourceAttributes", "authorization.v1.ResourceAttributes", POINTER | OMITEMPTY),
        Field(2, "nonResourceAttributes", "authorization.v1.NonResourceAttributes", POINTER | OMITEMPTY),
    ),
    "authorization.v1.SelfSubjectRulesReview": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "authorization.v1.SelfSubjectRulesReviewSpec"),
        Field(3, "status", "authorization.v1.SubjectRulesReviewStatus", OMITEMPTY),
    ),
    "authorization.v1.SelfSubjectRulesReviewSpec": (Field(1, "namespace", STRING, OMITEMPTY),),
    "authorization.v1.SubjectAccessReview": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "authorization.v1.SubjectAccessReviewSpec"),
        Field(3, "status", "authorization.v1.SubjectAccessReviewStatus", OMITEMPTY),
    ),
    "authorization.v1.SubjectAccessReviewSpec": (
        Field(1, "resourceAttributes", "authorization.v1.ResourceAttributes", POINTER | OMITEMPTY),
        Field(2, "nonResourceAttributes", "authorization.v1.NonResourceAttributes", POINTER | OMITEMPTY),
        Field(3, "user", STRING, OMITEMPTY),
        Field(4, "groups", STRING, REPEATED | OMITEMPTY),
        Field(5, "extra", MapOf(STRING, "authorization.v1.ExtraValue"), OMITEMPTY),
        Field(6, "uid", STRING, OMITEMPTY),
    ),
    "authorization.v1.SubjectAccessReviewStatus": (
        Field(1, "allowed", BOOL),
        Field(4, "denied", BOOL, OMITEMPTY),
        Field(2, "reason", STRING, OMITEMPTY),
        Field(3, "evaluationError", STRING, OMITEMPTY),
    ),
    "authorization.v1.SubjectRulesReviewStatus": (
        Field(1, "resourceRules", "authorization.v1.ResourceRule", REPEATED),
        Field(2, "nonResourceRules", "authorization.v1.NonResourceRule", REPEATED),
        Field(3, "incomplete", BOOL),
        Field(4, "evaluationError", STRING, OMITEMPTY),
    ),
}

# Go named slice types (`type ExtraValue []string`): on the wire a message with one
# repeated field, in JSON just the array.
LIST_WRAPPERS: Final = frozenset({"authorization.v1.ExtraValue"})
