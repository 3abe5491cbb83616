"""Rules for a MultiClusterService, as Karmada's validating webhook applies them.

The name is a DNS-1035 label (it names a Service); at most one distinct exposure type, each
`CrossCluster` or `LoadBalancer`, and the types never change once created; each exposed port a
valid port number with, when named, a DNS-1123 label unique among the ports; provider and
consumer cluster names valid cluster names. Karmada reports cluster names under
`spec.range.providerClusters`; the field is `spec.providerClusters`, and that is where we point.
"""

from __future__ import annotations

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError, child, index
from flotilla.api.karmada.registration import cluster_name_problems
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object

EXPOSURE_TYPES = ("CrossCluster", "LoadBalancer")
MAX_PORT = 65535


def validate_multi_cluster_service(service: Object) -> list[FieldError]:
    name = fields.text(fields.mapping(service, "metadata"), "name")
    errors = [
        fielderrors.invalid("metadata.name", name, problem) for problem in names.dns1035_label_errors(name)
    ]
    spec = fields.mapping(service, "spec")
    errors += _ports(spec)
    errors += _types(spec)
    for key in ("providerClusters", "consumerClusters"):
        for position, cluster in enumerate(fields.items(spec, key)):
            cluster_name = fields.text(cluster, "name") if isinstance(cluster, dict) else ""
            path = child(index(child("spec", key), position), "name")
            errors += [
                fielderrors.invalid(path, cluster_name, p) for p in cluster_name_problems(cluster_name)
            ]
    return errors


def validate_multi_cluster_service_update(new: Object, old: Object) -> list[FieldError]:
    errors = []
    old_types = fields.items(fields.mapping(old, "spec"), "types")
    if fields.items(fields.mapping(new, "spec"), "types") != old_types:
        errors.append(fielderrors.invalid("spec.types", old_types, "MultiClusterService types are immutable"))
    return errors + validate_multi_cluster_service(new)


def _types(spec: Object) -> list[FieldError]:
    types = fields.items(spec, "types")
    errors = []
    for position, exposure in enumerate(types):
        if exposure not in EXPOSURE_TYPES:
            errors.append(fielderrors.not_supported(index("spec.types", position), exposure, EXPOSURE_TYPES))
    if len({str(item) for item in types}) > 1:
        errors.append(
            fielderrors.invalid(
                "spec.types", types, "MultiClusterService types should not contain more than one type"
            )
        )
    return errors


def _ports(spec: Object) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for position, port in enumerate(fields.items(spec, "ports")):
        path = index("spec.ports", position)
        if not isinstance(port, dict):
            errors.append(fielderrors.invalid(path, port, "must be an object"))
            continue
        name = fields.text(port, "name")
        if name:
            errors += [
                fielderrors.invalid(child(path, "name"), name, p) for p in names.dns1123_label_errors(name)
            ]
            if name in seen:
                errors.append(fielderrors.duplicate(child(path, "name"), name))
            seen.add(name)
        number = port.get("port")
        if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= MAX_PORT:
            errors.append(
                fielderrors.invalid(
                    child(path, "port"), number, f"must be between 1 and {MAX_PORT}, inclusive"
                )
            )
    return errors
