"""Rules for a ResourceRegistry, as Karmada's search validation states them (`pkg/apis/search/validation`).

The target clusters are a ClusterAffinity checked as a placement's is (label selector syntax, field
selectors on provider, region and zone with In or NotIn); each resource selector names an
`apiVersion` that parses as a group version and a `kind`, and a namespace, if any, that is a valid
namespace name; an OpenSearch backend lists http or https URLs with a host. The schema requires
`targetCluster` and `resourceSelectors`; the two required fields of each selector are checked here
too, for objects that never met the schema.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError, child, index
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object
from flotilla.apiserver.registry.validation.karmada.placement import validate_cluster_affinity


def validate_resource_registry(registry: Object) -> list[FieldError]:
    spec = fields.mapping(registry, "spec")
    errors = validate_cluster_affinity(fields.mapping(spec, "targetCluster"), "spec.targetCluster")
    for position, selector in enumerate(fields.objects(spec, "resourceSelectors")):
        errors += _resource_selector(selector, index("spec.resourceSelectors", position))
    open_search = fields.mapping(fields.mapping(spec, "backendStore"), "openSearch")
    for position, address in enumerate(fields.items(open_search, "addresses")):
        errors += _address(address, index("spec.backendStore.openSearch.addresses", position))
    return errors


def validate_resource_registry_update(new: Object, old: Object) -> list[FieldError]:
    """Every field may change (the cache follows); the new object is checked as a new one."""
    return validate_resource_registry(new)


def _resource_selector(selector: Object, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("apiVersion", "kind"):
        if not fields.text(selector, key):
            errors.append(fielderrors.required(child(path, key)))
    api_version = fields.text(selector, "apiVersion")
    if api_version.count("/") > 1 or api_version.startswith("/") or api_version.endswith("/"):
        errors.append(
            fielderrors.invalid(
                child(path, "apiVersion"), api_version, "unexpected GroupVersion string: " + api_version
            )
        )
    namespace = fields.text(selector, "namespace")
    if namespace:
        errors += [
            fielderrors.invalid(child(path, "namespace"), namespace, problem)
            for problem in names.dns1123_label_errors(namespace)
        ]
    return errors


def _address(address: object, path: str) -> list[FieldError]:
    text = address if isinstance(address, str) else ""
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:
        host = None
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not host:
        return [
            fielderrors.invalid(
                path, address, "must be a valid http or https URL with non-empty scheme and host"
            )
        ]
    return []
