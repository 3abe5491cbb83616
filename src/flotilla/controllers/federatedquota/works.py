"""The Works that carry a FederatedResourceQuota's static assignments to members as ResourceQuotas.

One Work per assigned cluster, in the cluster's execution namespace, named as Karmada names it
(`names.work_name("ResourceQuota", quota, namespace)`) and labelled with the quota's namespace and
name (Karmada's `federatedresourcequota.karmada.io/{namespace,name}`), so the quota's Works are
found again. The manifest is a ResourceQuota of the quota's name in its namespace whose
`spec.hard` is the assignment's, marked as every propagated manifest is (`karmada.io/managed`, the
Work's name and namespace), so the execution controller adopts and the work-status controller
reflects it. The Work is created with the execution controller's finalizer, so deleting it removes
the member's ResourceQuota first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.federatedquota import QUOTA_NAME_LABEL, QUOTA_NAMESPACE_LABEL, RESOURCE_QUOTA
from flotilla.api.objects import metadata_of

Object = Mapping[str, Any]


def quota_work_name(namespace: str, name: str) -> str:
    """The name of quota `namespace/name`'s Work, the same in every execution namespace."""
    return names.work_name(RESOURCE_QUOTA.kind, name, namespace)


def assignments(quota: Object) -> dict[str, dict[str, Any]]:
    """Cluster name → the hard limits assigned to it (the first assignment of a name wins)."""
    spec = quota.get("spec")
    found: dict[str, dict[str, Any]] = {}
    for assignment in (spec.get("staticAssignments") if isinstance(spec, Mapping) else None) or ():
        if not isinstance(assignment, Mapping):
            continue
        cluster, hard = assignment.get("clusterName"), assignment.get("hard")
        if isinstance(cluster, str) and cluster and cluster not in found:
            found[cluster] = dict(hard) if isinstance(hard, Mapping) else {}
    return found


def quota_labels(quota: Object) -> dict[str, str]:
    metadata = metadata_of(quota)
    return {
        QUOTA_NAMESPACE_LABEL: str(metadata.get("namespace") or ""),
        QUOTA_NAME_LABEL: str(metadata.get("name") or ""),
    }


def is_quota_work(work: Object, quota_namespace: str, quota_name: str) -> bool:
    labels = metadata_of(work).get("labels") or {}
    return labels.get(QUOTA_NAMESPACE_LABEL) == quota_namespace and labels.get(QUOTA_NAME_LABEL) == quota_name


def quota_work(quota: Object, cluster: str, hard: Mapping[str, Any]) -> dict[str, Any]:
    """The Work delivering the ResourceQuota `hard` of `quota` to `cluster`."""
    metadata = metadata_of(quota)
    name = quota_work_name(str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
    execution_namespace = names.execution_namespace(cluster)
    manifest = {
        "apiVersion": RESOURCE_QUOTA.api_version,
        "kind": RESOURCE_QUOTA.kind,
        "metadata": {
            "name": metadata.get("name"),
            "namespace": metadata.get("namespace"),
            "labels": {constants.MANAGED_BY_KARMADA_LABEL: "true"},
            "annotations": {
                constants.WORK_NAME_ANNOTATION: name,
                constants.WORK_NAMESPACE_ANNOTATION: execution_namespace,
            },
        },
        "spec": {"hard": dict(hard)},
    }
    return {
        "apiVersion": constants.WORK.api_version,
        "kind": constants.WORK.kind,
        "metadata": {
            "name": name,
            "namespace": execution_namespace,
            "labels": quota_labels(quota),
            "finalizers": [constants.EXECUTION_CONTROLLER_FINALIZER],
        },
        "spec": {"workload": {"manifests": [manifest]}},
    }


def work_up_to_date(existing: Object, desired: Object) -> bool:
    """Does the existing Work carry the desired labels and manifest already?"""
    labels = metadata_of(existing).get("labels") or {}
    if any(labels.get(key) != value for key, value in (metadata_of(desired).get("labels") or {}).items()):
        return False
    spec = existing.get("spec")
    workload = spec.get("workload") if isinstance(spec, Mapping) else None
    manifests = workload.get("manifests") if isinstance(workload, Mapping) else None
    return bool(manifests == desired["spec"]["workload"]["manifests"])
