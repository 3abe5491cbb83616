"""All protobuf field tables, and which kind's body is which message.

The per-group modules are generated from a kubectl binary by
`tests/unit/apiserver/encoding/protobuf/extract_tables.py` (see its docstring); this module, written by hand,
joins them and maps each `(apiVersion, kind)` the decoder accepts to its top-level message. To accept
a new kind: add it to the extractor's `ROOT_MESSAGES`, regenerate, and add it to `KINDS` below.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from flotilla.apiserver.encoding.protobuf.descriptors import (
    apps,
    authentication,
    authorization,
    autoscaling,
    batch,
    certificates,
    coordination,
    core,
    core_pod,
    core_volume,
    meta,
    networking,
    policy,
    rbac,
    scheduling,
)
from flotilla.apiserver.encoding.protobuf.model import Message

MESSAGES: Final[Mapping[str, Message]] = MappingProxyType(
    {
        **meta.MESSAGES,
        **core.MESSAGES,
        **core_pod.MESSAGES,
        **core_volume.MESSAGES,
        **apps.MESSAGES,
        **batch.MESSAGES,
        **rbac.MESSAGES,
        **policy.MESSAGES,
        **networking.MESSAGES,
        **scheduling.MESSAGES,
        **coordination.MESSAGES,
        **certificates.MESSAGES,
        **authorization.MESSAGES,
        **authentication.MESSAGES,
        **autoscaling.MESSAGES,
    }
)
"""Message name (`core.v1.Container`) → its fields in Go struct order."""

LIST_WRAPPERS: Final[frozenset[str]] = (
    authentication.LIST_WRAPPERS | authorization.LIST_WRAPPERS | certificates.LIST_WRAPPERS
)
"""Messages that stand for a Go named slice type and show in JSON as a bare array."""

KINDS: Final[Mapping[tuple[str, str], str]] = MappingProxyType(
    {
        ("v1", "ConfigMap"): "core.v1.ConfigMap",
        ("v1", "Secret"): "core.v1.Secret",
        ("v1", "Namespace"): "core.v1.Namespace",
        ("v1", "ServiceAccount"): "core.v1.ServiceAccount",
        ("v1", "Service"): "core.v1.Service",
        ("v1", "Pod"): "core.v1.Pod",
        ("v1", "Node"): "core.v1.Node",
        ("v1", "Event"): "core.v1.Event",
        ("v1", "ResourceQuota"): "core.v1.ResourceQuota",
        ("v1", "LimitRange"): "core.v1.LimitRange",
        ("v1", "PersistentVolumeClaim"): "core.v1.PersistentVolumeClaim",
        ("v1", "DeleteOptions"): "meta.v1.DeleteOptions",
        ("meta.k8s.io/v1", "DeleteOptions"): "meta.v1.DeleteOptions",
        ("apps/v1", "Deployment"): "apps.v1.Deployment",
        ("apps/v1", "ReplicaSet"): "apps.v1.ReplicaSet",
        ("apps/v1", "StatefulSet"): "apps.v1.StatefulSet",
        ("apps/v1", "DaemonSet"): "apps.v1.DaemonSet",
        ("batch/v1", "Job"): "batch.v1.Job",
        ("batch/v1", "CronJob"): "batch.v1.CronJob",
        ("rbac.authorization.k8s.io/v1", "Role"): "rbac.v1.Role",
        ("rbac.authorization.k8s.io/v1", "ClusterRole"): "rbac.v1.ClusterRole",
        ("rbac.authorization.k8s.io/v1", "RoleBinding"): "rbac.v1.RoleBinding",
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "rbac.v1.ClusterRoleBinding",
        ("policy/v1", "PodDisruptionBudget"): "policy.v1.PodDisruptionBudget",
        ("policy/v1", "Eviction"): "policy.v1.Eviction",
        ("networking.k8s.io/v1", "Ingress"): "networking.v1.Ingress",
        ("networking.k8s.io/v1", "NetworkPolicy"): "networking.v1.NetworkPolicy",
        ("scheduling.k8s.io/v1", "PriorityClass"): "scheduling.v1.PriorityClass",
        ("coordination.k8s.io/v1", "Lease"): "coordination.v1.Lease",
        ("certificates.k8s.io/v1", "CertificateSigningRequest"): "certificates.v1.CertificateSigningRequest",
        ("authorization.k8s.io/v1", "SelfSubjectAccessReview"): "authorization.v1.SelfSubjectAccessReview",
        ("authorization.k8s.io/v1", "SubjectAccessReview"): "authorization.v1.SubjectAccessReview",
        ("authorization.k8s.io/v1", "LocalSubjectAccessReview"): "authorization.v1.LocalSubjectAccessReview",
        ("authorization.k8s.io/v1", "SelfSubjectRulesReview"): "authorization.v1.SelfSubjectRulesReview",
        ("authentication.k8s.io/v1", "TokenRequest"): "authentication.v1.TokenRequest",
        ("authentication.k8s.io/v1", "SelfSubjectReview"): "authentication.v1.SelfSubjectReview",
        ("authentication.k8s.io/v1", "TokenReview"): "authentication.v1.TokenReview",
        ("autoscaling/v1", "Scale"): "autoscaling.v1.Scale",
        ("autoscaling/v1", "HorizontalPodAutoscaler"): "autoscaling.v1.HorizontalPodAutoscaler",
        ("autoscaling/v2", "HorizontalPodAutoscaler"): "autoscaling.v2.HorizontalPodAutoscaler",
    }
)
"""`(apiVersion, kind)` → the message its protobuf body holds."""
