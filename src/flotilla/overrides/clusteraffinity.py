"""Whether a member cluster matches a `ClusterAffinity` (Karmada's `ClusterMatches`).

Override rules name their target clusters with the same `ClusterAffinity` a PropagationPolicy's
placement uses: `exclude`, `labelSelector`, `fieldSelector` and `clusterNames`. The rules:

- a cluster listed in `exclude` never matches;
- every term that is set must match (labels AND names AND fields); an affinity with no terms
  matches every cluster;
- `fieldSelector.matchExpressions` test the cluster's `spec.provider` and `spec.region` as node
  selector requirements test labels (`flotilla.api.nodeaffinity`: `In`, `NotIn`, `Exists`,
  `DoesNotExist`, `Gt`, `Lt`; a cluster without the field has no such label). The `zone` key
  tests `spec.zones`: `In` needs every zone of the cluster among the values, `NotIn` none of them,
  `Exists` at least one zone, `DoesNotExist` none. The deprecated `spec.zone` counts as a single
  zone when `zones` is empty.

An invalid label selector or field requirement matches nothing, as in Karmada. The scheduler needs
the same test (`flotilla.scheduler.core.affinity`, on its typed placement); the node selector
part is shared, the rest of the two copies is still to be merged into `flotilla.api.karmada`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.api.nodeaffinity import requirements_selector
from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.interpreter import kinds

PROVIDER_FIELD = "provider"
REGION_FIELD = "region"
ZONE_FIELD = "zone"


def _string_list(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def cluster_zones(cluster: Mapping[str, Any]) -> list[str]:
    """The zones of a cluster: `spec.zones`, or the deprecated `spec.zone` alone."""
    zones = _string_list(kinds.nested(cluster, "spec", "zones"))
    zone = kinds.nested(cluster, "spec", "zone")
    if not zones and isinstance(zone, str) and zone:
        return [zone]
    return zones


def _zones_match(requirement: Mapping[str, Any], zones: Sequence[str]) -> bool:
    operator = requirement.get("operator")
    values = set(_string_list(requirement.get("values")))
    if operator == "In":
        return bool(zones) and all(zone in values for zone in zones)
    if operator == "NotIn":
        return not any(zone in values for zone in zones)
    if operator == "Exists":
        return bool(zones)
    if operator == "DoesNotExist":
        return not zones
    return False


def _field_matches(requirement: Mapping[str, Any], key: str, value: str | None) -> bool:
    """A node selector requirement against one field value (None: the cluster has no such field)."""
    selector = requirements_selector([requirement])
    return selector is not None and selector.matches({} if value is None else {key: value})


def _cluster_fields(cluster: Mapping[str, Any]) -> dict[str, str]:
    fields = {}
    for field in (PROVIDER_FIELD, REGION_FIELD):
        value = kinds.nested(cluster, "spec", field)
        if isinstance(value, str) and value:
            fields[field] = value
    return fields


def field_selector_matches(cluster: Mapping[str, Any], field_selector: Mapping[str, Any]) -> bool:
    """Whether every requirement of a `fieldSelector` holds for the cluster."""
    fields = _cluster_fields(cluster)
    for requirement in kinds.nested_list(field_selector, "matchExpressions"):
        if not isinstance(requirement, Mapping):
            return False
        key = requirement.get("key")
        if key == ZONE_FIELD:
            if not _zones_match(requirement, cluster_zones(cluster)):
                return False
        elif not isinstance(key, str) or not _field_matches(requirement, key, fields.get(key)):
            return False
    return True


def cluster_matches(cluster: Mapping[str, Any], affinity: Mapping[str, Any] | None) -> bool:
    """Whether the cluster (a `Cluster` object) matches the affinity; no affinity matches every cluster."""
    if affinity is None:
        return True
    name = kinds.nested(cluster, "metadata", "name")
    if name in _string_list(affinity.get("exclude")):
        return False
    label_selector = affinity.get("labelSelector")
    if label_selector is not None:
        try:
            selector = label_selector_from_object(label_selector)
        except SelectorError:
            return False
        labels = kinds.nested_mapping(cluster, "metadata", "labels")
        if not selector.matches({str(key): str(value) for key, value in labels.items()}):
            return False
    field_selector = affinity.get("fieldSelector")
    if isinstance(field_selector, Mapping) and not field_selector_matches(cluster, field_selector):
        return False
    cluster_names = _string_list(affinity.get("clusterNames"))
    return not cluster_names or name in cluster_names
