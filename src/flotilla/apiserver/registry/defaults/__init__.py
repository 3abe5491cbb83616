"""Defaulting of the built-in kinds, as kube-apiserver 1.32 defaults them.

`apply_defaults(gvk, obj)` fills in, in place, the fields kube-apiserver sets on every write of a
built-in kind (its `SetDefaults_*` functions and generated defaulters). Users see these in
`kubectl get -o yaml`, and `kubectl apply` computes its three-way diffs against them, so they
follow kube field for field. It is idempotent and safe to run on updates.

`prepare_for_create(gvk, obj)` adds what kube's registry strategies set only when an object is
created — a Namespace's `kubernetes` finalizer (later removed by namespace deletion, so it must not
come back on updates) and a new Pod's `Pending` phase and QoS class — and then applies the defaults.
Call it instead of `apply_defaults` on create, after `metadata.uid` and `metadata.name` are set (a
Job's generated selector is built from them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import (
    admissionregistration,
    apiextensions,
    apps,
    autoscaling,
    batch,
    core,
    networking,
    pods,
    rbac,
    scheduling,
    storage,
)
from flotilla.apiserver.registry.validation import fields

Defaulter = Callable[[dict[str, Any]], None]

_DEFAULTERS: dict[GroupVersionKind, Defaulter] = {
    GroupVersionKind("", "v1", "Pod"): pods.default_pod,
    GroupVersionKind("", "v1", "PodTemplate"): core.default_pod_template_object,
    GroupVersionKind("", "v1", "ReplicationController"): core.default_replication_controller,
    GroupVersionKind("", "v1", "Service"): core.default_service,
    GroupVersionKind("", "v1", "Secret"): core.default_secret,
    GroupVersionKind("", "v1", "Namespace"): core.default_namespace,
    GroupVersionKind("", "v1", "PersistentVolumeClaim"): core.default_persistent_volume_claim,
    GroupVersionKind("", "v1", "PersistentVolume"): core.default_persistent_volume,
    GroupVersionKind("", "v1", "Node"): core.default_node,
    GroupVersionKind("", "v1", "Endpoints"): core.default_endpoints,
    GroupVersionKind("", "v1", "LimitRange"): core.default_limit_range,
    GroupVersionKind("", "v1", "ResourceQuota"): core.default_resource_quota,
    GroupVersionKind("apps", "v1", "Deployment"): apps.default_deployment,
    GroupVersionKind("apps", "v1", "ReplicaSet"): apps.default_replica_set,
    GroupVersionKind("apps", "v1", "StatefulSet"): apps.default_stateful_set,
    GroupVersionKind("apps", "v1", "DaemonSet"): apps.default_daemon_set,
    GroupVersionKind("batch", "v1", "Job"): batch.default_job,
    GroupVersionKind("batch", "v1", "CronJob"): batch.default_cron_job,
    GroupVersionKind("autoscaling", "v2", "HorizontalPodAutoscaler"): (
        autoscaling.default_horizontal_pod_autoscaler
    ),
    GroupVersionKind("networking.k8s.io", "v1", "NetworkPolicy"): networking.default_network_policy,
    GroupVersionKind("networking.k8s.io", "v1", "IngressClass"): networking.default_ingress_class,
    GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice"): networking.default_endpoint_slice,
    GroupVersionKind("rbac.authorization.k8s.io", "v1", "RoleBinding"): rbac.default_role_binding,
    GroupVersionKind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"): rbac.default_role_binding,
    GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition"): (
        apiextensions.default_custom_resource_definition
    ),
    GroupVersionKind("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration"): (
        admissionregistration.default_mutating_webhook_configuration
    ),
    GroupVersionKind("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration"): (
        admissionregistration.default_validating_webhook_configuration
    ),
    GroupVersionKind("scheduling.k8s.io", "v1", "PriorityClass"): scheduling.default_priority_class,
    GroupVersionKind("storage.k8s.io", "v1", "StorageClass"): storage.default_storage_class,
}

DEFAULTED_KINDS = frozenset(_DEFAULTERS)
"""The kinds that have defaults; every other kind is left as it is."""


def apply_defaults(gvk: GroupVersionKind, obj: dict[str, Any]) -> None:
    """Set, in place, the defaults kube-apiserver sets on `obj` (a no-op for kinds without any)."""
    defaulter = _DEFAULTERS.get(gvk)
    if defaulter is not None:
        defaulter(obj)


def _prepare_namespace(namespace: dict[str, Any]) -> None:
    finalizers = fields.ensure_mapping(namespace, "spec").setdefault("finalizers", [])
    if isinstance(finalizers, list) and "kubernetes" not in finalizers:
        finalizers.append("kubernetes")
    namespace["status"] = {"phase": "Active"}


def _prepare_pod(pod: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(pod, "spec")
    pods.default_pod(pod)
    pod["status"] = {"phase": "Pending", "qosClass": pods.qos_class(spec)}


_CREATE_PREPARERS: dict[GroupVersionKind, Defaulter] = {
    GroupVersionKind("", "v1", "Namespace"): _prepare_namespace,
    GroupVersionKind("", "v1", "Pod"): _prepare_pod,
    GroupVersionKind("batch", "v1", "Job"): batch.prepare_job,
}


def prepare_for_create(gvk: GroupVersionKind, obj: dict[str, Any]) -> None:
    """The create-only initialisation kube's registry does, then `apply_defaults`."""
    preparer = _CREATE_PREPARERS.get(gvk)
    if preparer is not None:
        preparer(obj)
    apply_defaults(gvk, obj)
