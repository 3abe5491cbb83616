"""Which convertor prints which built-in kind, and the default table for kinds without a printer.

kube-apiserver registers a printer for most built-in kinds; the others (Role, ClusterRole,
LimitRange, CustomResourceDefinition...) are served with the generic `NAME CREATED AT` table, whose
second cell is the creation timestamp itself (kubectl prints it as is). `builtin_convertor` returns
that default table for the built-in kinds Kubernetes leaves without a printer, and None for a
(group, kind) it does not know, so callers can tell a typo from a printer-less kind.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.builtin import BUILTIN_RESOURCES
from flotilla.api.times import rfc3339
from flotilla.apiserver.registry.tables import (
    admissionregistration,
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
    rbac,
    storage,
)
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.model import NAME, Column, Printer, TableConvertor
from flotilla.apiserver.registry.tables.objects import created, name


def _default_row(obj: dict[str, Any], _now: datetime) -> list[Any]:
    return [name(obj), rfc3339(created(obj))]


DEFAULT = Printer(
    (NAME, Column("Created At", "date", description=swagger_doc("ObjectMeta.creationTimestamp"))),
    _default_row,
)

PRINTERS: dict[tuple[str, str], Printer] = {
    ("", "Pod"): pods.POD,
    ("", "Service"): core.SERVICE,
    ("", "Endpoints"): core.ENDPOINTS,
    ("", "Node"): core.NODE,
    ("", "Namespace"): core.NAMESPACE,
    ("", "ConfigMap"): core.CONFIG_MAP,
    ("", "Secret"): core.SECRET,
    ("", "ServiceAccount"): core.SERVICE_ACCOUNT,
    ("", "ResourceQuota"): core.RESOURCE_QUOTA,
    ("", "ReplicationController"): core.REPLICATION_CONTROLLER,
    ("", "PodTemplate"): core.POD_TEMPLATE,
    ("", "Event"): events.EVENT,
    ("events.k8s.io", "Event"): events.EVENT,
    ("", "PersistentVolume"): storage.PERSISTENT_VOLUME,
    ("", "PersistentVolumeClaim"): storage.PERSISTENT_VOLUME_CLAIM,
    ("storage.k8s.io", "StorageClass"): storage.STORAGE_CLASS,
    ("apps", "Deployment"): apps.DEPLOYMENT,
    ("apps", "ReplicaSet"): apps.REPLICA_SET,
    ("apps", "StatefulSet"): apps.STATEFUL_SET,
    ("apps", "DaemonSet"): apps.DAEMON_SET,
    ("apps", "ControllerRevision"): apps.CONTROLLER_REVISION,
    ("batch", "Job"): batch.JOB,
    ("batch", "CronJob"): batch.CRON_JOB,
    ("autoscaling", "HorizontalPodAutoscaler"): autoscaling.HORIZONTAL_POD_AUTOSCALER,
    ("policy", "PodDisruptionBudget"): policy.POD_DISRUPTION_BUDGET,
    ("scheduling.k8s.io", "PriorityClass"): policy.PRIORITY_CLASS,
    ("networking.k8s.io", "Ingress"): networking.INGRESS,
    ("networking.k8s.io", "IngressClass"): networking.INGRESS_CLASS,
    ("networking.k8s.io", "NetworkPolicy"): networking.NETWORK_POLICY,
    ("discovery.k8s.io", "EndpointSlice"): networking.ENDPOINT_SLICE,
    ("coordination.k8s.io", "Lease"): coordination.LEASE,
    ("rbac.authorization.k8s.io", "RoleBinding"): rbac.ROLE_BINDING,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): rbac.CLUSTER_ROLE_BINDING,
    ("certificates.k8s.io", "CertificateSigningRequest"): certificates.CERTIFICATE_SIGNING_REQUEST,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): (
        admissionregistration.WEBHOOK_CONFIGURATION
    ),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): (
        admissionregistration.WEBHOOK_CONFIGURATION
    ),
}
"""The built-in kinds kube-apiserver 1.32 prints with a dedicated printer."""

_BUILTIN_KINDS = frozenset((resource.group, resource.kind) for resource in BUILTIN_RESOURCES)


def default_convertor() -> TableConvertor:
    """The `Name`, `Created At` table kube-apiserver serves for kinds without a printer."""
    return DEFAULT


def builtin_convertor(group: str, kind: str) -> TableConvertor | None:
    """The convertor for a built-in kind: its printer, the default table, or None if not built in."""
    printer = PRINTERS.get((group, kind))
    if printer is not None:
        return printer
    return DEFAULT if (group, kind) in _BUILTIN_KINDS else None
