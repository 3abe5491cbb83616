"""ResourceBinding and ClusterResourceBinding between work.karmada.io v1alpha1 and v1alpha2, as Karmada.

Karmada stores bindings at v1alpha2 (the conversion hub) and still serves v1alpha1, converting in
its webhook with `ConvertTo`/`ConvertFrom` (pkg/apis/work/v1alpha1/binding_types_conversion.go).
The conversion is lossy both ways, and this module is deliberately just as lossy, with no
annotation to carry the rest across:

* v1alpha2 → v1alpha1 keeps the metadata, `spec.resource`'s apiVersion, kind, namespace, name and
  resourceVersion (not its uid), `spec.replicas` (as `resource.replicas`),
  `spec.replicaRequirements.resourceRequest` (as `resource.resourcePerReplicas`), each target
  cluster's name and replicas (not its `components`), `status.conditions` and each aggregated
  status item's clusterName, status, applied and appliedMessage (not its health). Everything else —
  placement, propagateDeps, failover, gracefulEvictionTasks, schedulerObservedGeneration… — is
  dropped.
* v1alpha1 → v1alpha2 writes the same fields back into a fresh v1alpha2 object. Writing a binding
  through v1alpha1 therefore stores it without every v1alpha2-only field, as it does on Karmada.

The result is what Go's `encoding/json` makes of Karmada's structs: fields tagged `omitempty` are
left out when zero (0, false, "", empty lists and maps), `spec`, `status` and `spec.resource` are
always written, and resource quantities come out in canonical form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.quantities import canonical_form
from flotilla.apiserver.registry.conversion.converters import ConversionError

V1ALPHA1 = f"{constants.WORK_GROUP}/v1alpha1"
V1ALPHA2 = f"{constants.WORK_GROUP}/v1alpha2"

Object = dict[str, Any]


def _mapping(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = obj.get(key)
    return value if isinstance(value, Mapping) else {}


def _items(obj: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = obj.get(key)
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _put(target: Object, key: str, value: Any) -> None:
    """Set `key` unless `value` is what Go's `omitempty` leaves out (a zero value)."""
    if value is None or value is False or value in (0, "") or (isinstance(value, list | dict) and not value):
        return
    target[key] = value


def _text(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _resource_list(value: Any) -> dict[str, Any] | None:
    """A `corev1.ResourceList` as Go re-encodes it (canonical quantities); None when absent."""
    if not isinstance(value, Mapping):
        return None
    return {str(name): canonical_form(quantity) for name, quantity in value.items()}


def _target_clusters(clusters: list[Mapping[str, Any]]) -> list[Object]:
    """`TargetCluster` items: name and replicas (v1alpha2's `components` have no v1alpha1 field)."""
    converted = []
    for cluster in clusters:
        item: Object = {"name": _text(cluster, "name")}
        _put(item, "replicas", cluster.get("replicas"))
        converted.append(item)
    return converted


def _status(status: Mapping[str, Any]) -> Object:
    """The status fields both versions have: conditions and each cluster's applied state."""
    converted: Object = {}
    conditions = status.get("conditions")
    if isinstance(conditions, list) and conditions:
        converted["conditions"] = conditions
    aggregated = []
    for item in _items(status, "aggregatedStatus"):
        entry: Object = {"clusterName": _text(item, "clusterName")}
        _put(entry, "status", item.get("status"))
        _put(entry, "applied", item.get("applied"))
        _put(entry, "appliedMessage", item.get("appliedMessage"))
        aggregated.append(entry)
    _put(converted, "aggregatedStatus", aggregated)
    return converted


def _reference(resource: Mapping[str, Any]) -> Object:
    """The fields of `spec.resource` both versions have (v1alpha1's reference has no uid)."""
    reference: Object = {"apiVersion": _text(resource, "apiVersion"), "kind": _text(resource, "kind")}
    _put(reference, "namespace", resource.get("namespace"))
    reference["name"] = _text(resource, "name")
    _put(reference, "resourceVersion", resource.get("resourceVersion"))
    return reference


def _head(obj: Mapping[str, Any], api_version: str) -> Object:
    converted: Object = {"apiVersion": api_version, "kind": obj.get("kind")}
    if "metadata" in obj:
        converted["metadata"] = obj["metadata"]
    return converted


def from_hub(obj: Mapping[str, Any]) -> Object:
    """A v1alpha2 binding at v1alpha1 (Karmada's `ConvertFrom`)."""
    spec = _mapping(obj, "spec")
    resource = _reference(_mapping(spec, "resource"))
    requirements = spec.get("replicaRequirements")
    if isinstance(requirements, Mapping):
        per_replica = _resource_list(requirements.get("resourceRequest"))
        if per_replica is not None:
            _put(resource, "resourcePerReplicas", per_replica)
    _put(resource, "replicas", spec.get("replicas"))
    converted_spec: Object = {"resource": resource}
    _put(converted_spec, "clusters", _target_clusters(_items(spec, "clusters")))
    converted = _head(obj, V1ALPHA1)
    converted["spec"] = converted_spec
    converted["status"] = _status(_mapping(obj, "status"))
    return converted


def to_hub(obj: Mapping[str, Any]) -> Object:
    """A v1alpha1 binding at v1alpha2 (Karmada's `ConvertTo`)."""
    spec = _mapping(obj, "spec")
    source = _mapping(spec, "resource")
    converted_spec: Object = {"resource": _reference(source)}
    per_replica = _resource_list(source.get("resourcePerReplicas"))
    if per_replica is not None:
        # A non-nil map, even an empty one, gives a ReplicaRequirements (Karmada's nil check).
        requirements: Object = {}
        _put(requirements, "resourceRequest", per_replica)
        converted_spec["replicaRequirements"] = requirements
    _put(converted_spec, "replicas", source.get("replicas"))
    _put(converted_spec, "clusters", _target_clusters(_items(spec, "clusters")))
    converted = _head(obj, V1ALPHA2)
    converted["spec"] = converted_spec
    converted["status"] = _status(_mapping(obj, "status"))
    return converted


@dataclass(frozen=True, slots=True)
class BindingConverter:
    """The built-in converter of resourcebindings and clusterresourcebindings.work.karmada.io."""

    def convert(self, obj: dict[str, Any], api_version: str) -> dict[str, Any]:
        source = obj.get("apiVersion")
        if source == api_version:
            return obj
        if source == V1ALPHA2 and api_version == V1ALPHA1:
            return from_hub(obj)
        if source == V1ALPHA1 and api_version == V1ALPHA2:
            return to_hub(obj)
        raise ConversionError(
            f"no conversion of {obj.get('kind')} from {source} to {api_version}: "
            f"only {V1ALPHA1} and {V1ALPHA2} are known"
        )


BINDING_CRDS = (
    f"{constants.RESOURCE_BINDINGS.resource}.{constants.WORK_GROUP}",
    f"{constants.CLUSTER_RESOURCE_BINDINGS.resource}.{constants.WORK_GROUP}",
)
"""The CRDs whose objects `BindingConverter` converts."""
