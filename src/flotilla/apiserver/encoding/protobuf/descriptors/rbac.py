"""Protobuf field tables for rbac.authorization.k8s.io/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import OMITEMPTY, POINTER, REPEATED, STRING, Field, Message

MESSAGES: Final[Mapping[str, Message]] = {
    "rbac.v1.AggregationRule": (
        Field(1, "clusterRoleSelectors", "meta.v1.LabelSelector", REPEATED | OMITEMPTY),
    ),
    "rbac.v1.ClusterRole": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "rules", "rbac.v1.PolicyRule", REPEATED),
        Field(3, "aggregationRule", "rbac.v1.AggregationRule", POINTER | OMITEMPTY),
    ),
    "rbac.v1.ClusterRoleBinding": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "subjects", "rbac.v1.Subject", REPEATED | OMITEMPTY),
        Field(3, "roleRef", "rbac.v1.RoleRef"),
    ),
    "rbac.v1.PolicyRule": (
        Field(1, "verbs", STRING, REPEATED),
        Field(2, "apiGroups", STRING, REPEATED | OMITEMPTY),
        Field(3, "resources", STRING, REPEATED | OMITEMPTY),
        Field(4, "resourceNames", STRING, REPEATED | OMITEMPTY),
        Field(5, "nonResourceURLs", STRING, REPEATED | OMITEMPTY),
    ),
    "rbac.v1.Role": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "rules", "rbac.v1.PolicyRule", REPEATED),
    ),
    "rbac.v1.RoleBinding": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "subjects", "rbac.v1.Subject", REPEATED | OMITEMPTY),
        Field(3, "roleRef", "rbac.v1.RoleRef"),
    ),
    "rbac.v1.RoleRef": (
        Field(1, "apiGroup", STRING),
        Field(2, "kind", STRING),
        Field(3, "name", STRING),
    ),
    "rbac.v1.Subject": (
        Field(1, "kind", STRING),
        Field(2, "apiGroup", STRING, OMITEMPTY),
        Field(3, "name", STRING),
        Field(4, "namespace", STRING, OMITEMPTY),
    ),
}
