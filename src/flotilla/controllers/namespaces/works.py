"""Which hub Namespaces reach every member cluster on their own, and the Work that carries one there.

Karmada propagates every Namespace created on the control plane to every cluster, without a
policy, except:

* reserved namespaces (`karmada-system`, `karmada-cluster`, `karmada-es-*`), `default`, and
  `kube-*` (the default of `--skipped-propagating-namespaces`);
* namespaces labelled `namespace.karmada.io/skip-auto-propagation: "true"` (case-insensitive).
  Adding the label later stops propagation to new clusters; clusters that have the namespace keep it;
* namespaces a ClusterPropagationPolicy claims: the policy takes over (its binding's Works use the
  same names), so this controller leaves them alone.

One Work per cluster, in the cluster's execution namespace, named like any Work of the Namespace
(`names.work_name("Namespace", name, "")`) and controlled by the Namespace, so it goes when the
Namespace goes. Its one manifest is the Namespace as the member should see it: name, labels,
annotations and spec, with ClusterOverridePolicies applied for that cluster, label
`karmada.io/managed: "true"`, and the annotations every propagated manifest carries (the Work's
name and namespace, the template's uid, the managed label and annotation keys, which overrides
applied).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api.karmada import constants, names
from flotilla.api.objects import metadata_of
from flotilla.overrides import apply_override_policies

NAMESPACE_KIND = "Namespace"
DEFAULT_NAMESPACE = "default"
SKIPPED_PREFIX = "kube-"
SKIP_VALUE = "true"

Object = Mapping[str, Any]


def _string_map(obj: Object, field_name: str) -> Mapping[str, str]:
    value = metadata_of(obj).get(field_name)
    return value if isinstance(value, Mapping) else {}


def propagated_name(name: str) -> bool:
    """May a namespace of this name be auto-propagated at all?"""
    return not (
        names.is_reserved_namespace(name) or name == DEFAULT_NAMESPACE or name.startswith(SKIPPED_PREFIX)
    )


def should_propagate(namespace: Object) -> bool:
    """Does this live Namespace go to every cluster on its own?"""
    if not propagated_name(str(metadata_of(namespace).get("name") or "")):
        return False
    labels = _string_map(namespace, "labels")
    if str(labels.get(constants.SKIP_AUTO_PROPAGATION_LABEL, "")).lower() == SKIP_VALUE:
        return False
    return constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL not in labels


def work_name(namespace_name: str) -> str:
    """The Work carrying Namespace `namespace_name` to a cluster (the same in every cluster)."""
    return names.work_name(NAMESPACE_KIND, namespace_name, "")


def owner_reference(namespace: Object) -> dict[str, Any]:
    metadata = metadata_of(namespace)
    return {
        "apiVersion": "v1",
        "kind": NAMESPACE_KIND,
        "name": metadata.get("name"),
        "uid": metadata.get("uid"),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def is_namespace_work(work: Object, namespace_name: str) -> bool:
    """Is this Work the auto-propagation Work of `namespace_name` (controlled by that Namespace)?"""
    return any(
        isinstance(reference, Mapping)
        and reference.get("kind") == NAMESPACE_KIND
        and reference.get("name") == namespace_name
        and reference.get("controller")
        for reference in metadata_of(work).get("ownerReferences") or ()
    )


def namespace_manifest(namespace: Object) -> dict[str, Any]:
    """The Namespace as a member should get it: no server-owned metadata, no status."""
    metadata = metadata_of(namespace)
    manifest_metadata: dict[str, Any] = {"name": metadata.get("name")}
    for field_name in ("labels", "annotations"):
        value = _string_map(namespace, field_name)
        if value:
            manifest_metadata[field_name] = dict(value)
    manifest: dict[str, Any] = {"apiVersion": "v1", "kind": NAMESPACE_KIND, "metadata": manifest_metadata}
    spec = namespace.get("spec")
    if isinstance(spec, Mapping) and spec:
        manifest["spec"] = copy.deepcopy(dict(spec))
    return manifest


def _mark(manifest: dict[str, Any], namespace: Object, work: str, execution_namespace: str) -> None:
    metadata = manifest["metadata"]
    labels = metadata.setdefault("labels", {})
    labels[constants.MANAGED_BY_KARMADA_LABEL] = "true"
    annotations = metadata.setdefault("annotations", {})
    annotations[constants.WORK_NAME_ANNOTATION] = work
    annotations[constants.WORK_NAMESPACE_ANNOTATION] = execution_namespace
    uid = metadata_of(namespace).get("uid")
    if uid:
        annotations[constants.RESOURCE_TEMPLATE_UID_ANNOTATION] = str(uid)
    annotations[constants.MANAGED_LABELS_ANNOTATION] = ",".join(sorted(labels))
    managed = {constants.MANAGED_ANNOTATIONS_ANNOTATION, constants.MANAGED_LABELS_ANNOTATION, *annotations}
    annotations[constants.MANAGED_ANNOTATIONS_ANNOTATION] = ",".join(sorted(managed))


def namespace_work(
    namespace: Object, cluster: Object, cluster_override_policies: Iterable[Object] = ()
) -> dict[str, Any]:
    """The Work that carries `namespace` to `cluster` (raises `OverrideError` for a broken override)."""
    name = str(metadata_of(namespace).get("name") or "")
    cluster_name = str(metadata_of(cluster).get("name") or "")
    execution_namespace = names.execution_namespace(cluster_name)
    work = work_name(name)
    overridden = apply_override_policies(
        namespace_manifest(namespace), cluster, cluster_override_policies=cluster_override_policies
    )
    manifest = overridden.manifest
    manifest["metadata"].setdefault("annotations", {}).update(overridden.annotations)
    _mark(manifest, namespace, work, execution_namespace)
    work_metadata: dict[str, Any] = {
        "name": work,
        "namespace": execution_namespace,
        "ownerReferences": [owner_reference(namespace)],
    }
    if overridden.annotations:
        work_metadata["annotations"] = dict(overridden.annotations)
    return {
        "apiVersion": constants.WORK.api_version,
        "kind": constants.WORK.kind,
        "metadata": work_metadata,
        "spec": {"workload": {"manifests": [manifest]}},
    }


def work_up_to_date(existing: Object, desired: Object) -> bool:
    """Does the existing Work already carry the desired manifest, owner and annotations?"""
    if metadata_of(existing).get("ownerReferences") != metadata_of(desired).get("ownerReferences"):
        return False
    have_annotations = _string_map(existing, "annotations")
    if any(have_annotations.get(key) != value for key, value in _string_map(desired, "annotations").items()):
        return False
    spec = existing.get("spec")
    workload = spec.get("workload") if isinstance(spec, Mapping) else None
    manifests = workload.get("manifests") if isinstance(workload, Mapping) else None
    return bool(manifests == desired["spec"]["workload"]["manifests"])
