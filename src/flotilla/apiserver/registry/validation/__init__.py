"""Semantic validation of the built-in kinds, as kube-apiserver 1.32 validates them.

The API server calls `validate_create(gvk, obj)` and `validate_update(gvk, new, old)` after
defaulting, with objects that already passed the OpenAPI schema (types are right, unknown fields
are gone). Both return `FieldError`s worded and placed as kube words and places them (`spec.replicas:
Invalid value: -1: must be greater than or equal to 0`); an empty list means the write is valid.

Each API group has its module (`core`, `services`, `apps`, `batch`, `rbac`, `networking`,
`policy`, `scheduling`, `coordination`, ...) and pod specs one per part (`pods`, `containers`,
`volumes`, `tolerations`, `affinity`, `topologyspread`); this package only routes a kind to its
rules. Kinds without rules here validate as empty: custom resources' checks live with their
schemas, and the Karmada kinds' rules (`karmada/`) are applied by their built-in admission
(`registry/karmada/rules.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flotilla.api.fielderrors import FieldError
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.validation import (
    admissionregistration,
    apiextensions,
    apps,
    autoscaling,
    batch,
    certificates,
    coordination,
    core,
    events,
    networking,
    pods,
    policy,
    quotas,
    rbac,
    scheduling,
    services,
    storage,
)

Object = dict[str, Any]
CreateRule = Callable[[Object], list[FieldError]]
UpdateRule = Callable[[Object, Object], list[FieldError]]

_RULES: dict[GroupVersionKind, tuple[CreateRule, UpdateRule]] = {
    GroupVersionKind("", "v1", "Namespace"): (core.validate_namespace, core.validate_namespace_update),
    GroupVersionKind("", "v1", "ConfigMap"): (core.validate_config_map, core.validate_config_map_update),
    GroupVersionKind("", "v1", "Secret"): (core.validate_secret, core.validate_secret_update),
    GroupVersionKind("", "v1", "Service"): (services.validate_service, services.validate_service_update),
    GroupVersionKind("", "v1", "ServiceAccount"): (
        core.validate_service_account,
        core.validate_service_account_update,
    ),
    GroupVersionKind("", "v1", "Pod"): (pods.validate_pod, pods.validate_pod_update),
    GroupVersionKind("", "v1", "Node"): (core.validate_node, core.validate_node_update),
    GroupVersionKind("", "v1", "Event"): (events.validate_core_event, events.validate_core_event_update),
    GroupVersionKind("", "v1", "Endpoints"): (core.validate_endpoints, core.validate_endpoints_update),
    GroupVersionKind("", "v1", "PersistentVolumeClaim"): (
        storage.validate_claim,
        storage.validate_claim_update,
    ),
    GroupVersionKind("", "v1", "PersistentVolume"): (storage.validate_volume, storage.validate_volume_update),
    GroupVersionKind("", "v1", "LimitRange"): (
        quotas.validate_limit_range,
        quotas.validate_limit_range_update,
    ),
    GroupVersionKind("", "v1", "ResourceQuota"): (
        quotas.validate_resource_quota,
        quotas.validate_resource_quota_update,
    ),
    GroupVersionKind("", "v1", "ReplicationController"): (
        core.validate_replication_controller,
        core.validate_replication_controller_update,
    ),
    GroupVersionKind("", "v1", "PodTemplate"): (
        core.validate_pod_template_object,
        core.validate_pod_template_object_update,
    ),
    GroupVersionKind("apps", "v1", "Deployment"): (apps.validate_deployment, apps.validate_deployment_update),
    GroupVersionKind("apps", "v1", "ReplicaSet"): (
        apps.validate_replica_set,
        apps.validate_replica_set_update,
    ),
    GroupVersionKind("apps", "v1", "StatefulSet"): (
        apps.validate_stateful_set,
        apps.validate_stateful_set_update,
    ),
    GroupVersionKind("apps", "v1", "DaemonSet"): (apps.validate_daemon_set, apps.validate_daemon_set_update),
    GroupVersionKind("apps", "v1", "ControllerRevision"): (
        apps.validate_controller_revision,
        apps.validate_controller_revision_update,
    ),
    GroupVersionKind("batch", "v1", "Job"): (batch.validate_job, batch.validate_job_update),
    GroupVersionKind("batch", "v1", "CronJob"): (batch.validate_cron_job, batch.validate_cron_job_update),
    GroupVersionKind("autoscaling", "v2", "HorizontalPodAutoscaler"): (
        autoscaling.validate_horizontal_pod_autoscaler,
        autoscaling.validate_horizontal_pod_autoscaler_update,
    ),
    GroupVersionKind("policy", "v1", "PodDisruptionBudget"): (
        policy.validate_pod_disruption_budget,
        policy.validate_pod_disruption_budget_update,
    ),
    GroupVersionKind("networking.k8s.io", "v1", "Ingress"): (
        networking.validate_ingress,
        networking.validate_ingress_update,
    ),
    GroupVersionKind("networking.k8s.io", "v1", "IngressClass"): (
        networking.validate_ingress_class,
        networking.validate_ingress_class_update,
    ),
    GroupVersionKind("networking.k8s.io", "v1", "NetworkPolicy"): (
        networking.validate_network_policy,
        networking.validate_network_policy_update,
    ),
    GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice"): (
        networking.validate_endpoint_slice,
        networking.validate_endpoint_slice_update,
    ),
    GroupVersionKind("coordination.k8s.io", "v1", "Lease"): (
        coordination.validate_lease,
        coordination.validate_lease_update,
    ),
    GroupVersionKind("rbac.authorization.k8s.io", "v1", "Role"): (
        rbac.validate_role,
        rbac.validate_role_update,
    ),
    GroupVersionKind("rbac.authorization.k8s.io", "v1", "ClusterRole"): (
        rbac.validate_cluster_role,
        rbac.validate_cluster_role_update,
    ),
    GroupVersionKind("rbac.authorization.k8s.io", "v1", "RoleBinding"): (
        rbac.validate_role_binding,
        rbac.validate_role_binding_update,
    ),
    GroupVersionKind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"): (
        rbac.validate_cluster_role_binding,
        rbac.validate_cluster_role_binding_update,
    ),
    GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition"): (
        apiextensions.validate_custom_resource_definition,
        apiextensions.validate_custom_resource_definition_update,
    ),
    GroupVersionKind("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration"): (
        admissionregistration.validate_mutating_webhook_configuration,
        admissionregistration.validate_mutating_webhook_configuration_update,
    ),
    GroupVersionKind("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration"): (
        admissionregistration.validate_validating_webhook_configuration,
        admissionregistration.validate_validating_webhook_configuration_update,
    ),
    GroupVersionKind("certificates.k8s.io", "v1", "CertificateSigningRequest"): (
        certificates.validate_certificate_signing_request,
        certificates.validate_certificate_signing_request_update,
    ),
    GroupVersionKind("events.k8s.io", "v1", "Event"): (events.validate_event, events.validate_event_update),
    GroupVersionKind("scheduling.k8s.io", "v1", "PriorityClass"): (
        scheduling.validate_priority_class,
        scheduling.validate_priority_class_update,
    ),
    GroupVersionKind("storage.k8s.io", "v1", "StorageClass"): (
        storage.validate_storage_class,
        storage.validate_storage_class_update,
    ),
}

VALIDATED_KINDS = frozenset(_RULES)
"""The kinds this package has rules for."""


def _unique(errors: list[FieldError]) -> list[FieldError]:
    """Errors in order, each once: some kube rules run twice on update and report the same problem."""
    seen: set[str] = set()
    unique = []
    for error in errors:
        key = f"{error.type.value}\x00{error}"
        if key not in seen:
            seen.add(key)
            unique.append(error)
    return unique


def validate_create(gvk: GroupVersionKind, obj: dict[str, Any]) -> list[FieldError]:
    """What is wrong with creating `obj`; empty when it is valid or the kind has no rules here."""
    rules = _RULES.get(gvk)
    return _unique(rules[0](obj)) if rules else []


def validate_update(gvk: GroupVersionKind, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """What is wrong with replacing `old` by `new`; empty when it is valid or the kind has no rules here."""
    rules = _RULES.get(gvk)
    return _unique(rules[1](new, old)) if rules else []
