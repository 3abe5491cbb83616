"""Karmada's rules for the Cluster kind, as its Cluster registry applies them.

A Cluster's name is a DNS label of at most 48 characters (room for the `karmada-es-` execution
namespace); its sync mode is Push or Pull; its API endpoint is a URL naming a host, without user
information, query or fragment; its secret references name a namespace and a name; its proxy URL
uses http, https or socks5; its taints follow kube's node taint rules (`tolerations`); its
resource models are distinct grades whose ranges cover each resource contiguously from 0 to
MaxInt64.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any
from urllib.parse import urlsplit

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError, child, index
from flotilla.api.karmada.constants import ClusterSyncMode
from flotilla.api.quantities import QuantityError, parse_quantity
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object
from flotilla.apiserver.registry.validation.tolerations import validate_taints

CLUSTER_NAME_MAX = 48
"""Room for the `karmada-es-` prefix of the execution namespace within a 63-character label."""
PROXY_SCHEMES = ("http", "https", "socks5")
RESOURCE_MODEL_NAMES = ("cpu", "ephemeral-storage", "memory", "storage")
MAX_INT64 = 2**63 - 1


def validate_cluster(cluster: Object) -> list[FieldError]:
    errors = _cluster_name(fields.text(fields.mapping(cluster, "metadata"), "name"))
    spec = fields.mapping(cluster, "spec")
    sync_mode = spec.get("syncMode")
    modes = sorted(str(mode) for mode in ClusterSyncMode)
    if not sync_mode:
        errors.append(fielderrors.required("spec.syncMode"))
    elif sync_mode not in modes:
        errors.append(fielderrors.not_supported("spec.syncMode", sync_mode, modes))
    endpoint = fields.text(spec, "apiEndpoint")
    if endpoint:
        errors += validate_api_endpoint(endpoint, "spec.apiEndpoint")
    for key in ("secretRef", "impersonatorSecretRef"):
        reference = spec.get(key)
        if isinstance(reference, dict):
            for part in ("namespace", "name"):
                if not fields.text(reference, part):
                    errors.append(fielderrors.required(f"spec.{key}.{part}"))
    proxy = fields.text(spec, "proxyURL")
    if proxy:
        scheme = urlsplit(proxy).scheme if "://" in proxy else ""
        if scheme not in PROXY_SCHEMES:
            errors.append(
                fielderrors.invalid(
                    "spec.proxyURL", proxy, f'unsupported scheme "{scheme}", must be http, https, or socks5'
                )
            )
    errors += validate_taints(fields.objects(spec, "taints"), "spec.taints")
    errors += _resource_models(fields.objects(spec, "resourceModels"), "spec.resourceModels")
    return errors


def validate_cluster_update(new: Object, old: Object) -> list[FieldError]:
    return validate_cluster(new)


def _cluster_name(name: str) -> list[FieldError]:
    if len(name) > CLUSTER_NAME_MAX:
        return [
            fielderrors.invalid("metadata.name", name, f"must be no more than {CLUSTER_NAME_MAX} characters")
        ]
    return [
        fielderrors.invalid("metadata.name", name, problem) for problem in names.dns1123_label_errors(name)
    ]


def validate_api_endpoint(endpoint: str, path: str) -> list[FieldError]:
    """A URL naming a host, without user information, query or fragment."""
    form = "; desired format: hostname, hostname:port, IP or IP:port"
    try:
        url = urlsplit(endpoint)
        host = url.hostname or ""
    except ValueError as error:
        return [fielderrors.invalid(path, endpoint, f"apiEndpoint must be a valid URL: {error}{form}")]
    errors: list[FieldError] = []
    if not url.netloc or not host:
        errors.append(fielderrors.invalid(path, host, "host must be provided" + form))
    if "@" in url.netloc:
        errors.append(
            fielderrors.invalid(
                path, url.netloc.rpartition("@")[0], "user information is not permitted in the URL"
            )
        )
    if url.fragment:
        errors.append(fielderrors.invalid(path, url.fragment, "fragments are not permitted in the URL"))
    if url.query:
        errors.append(fielderrors.invalid(path, url.query, "query parameters are not permitted in the URL"))
    return errors


def _resource_models(models: list[Object], path: str) -> list[FieldError]:
    """Grades distinct, one range per resource in the same order, contiguous from 0 to MaxInt64."""
    for position, model in enumerate(models):
        model_path = index(path, position)
        ranges = fields.objects(model, "ranges")
        previous = models[position - 1] if position else None
        if previous is not None and model.get("grade") == previous.get("grade"):
            return [
                fielderrors.invalid(
                    child(model_path, "grade"),
                    model.get("grade"),
                    "The grade of each models should not be the same",
                )
            ]
        previous_ranges = fields.objects(previous, "ranges") if previous is not None else []
        if previous is not None and len(previous_ranges) != len(ranges):
            return [
                fielderrors.invalid(
                    child(model_path, "ranges"),
                    len(ranges),
                    "The number of resource types should be the same",
                )
            ]
        for range_position, model_range in enumerate(ranges):
            range_path = index(child(model_path, "ranges"), range_position)
            name = fields.text(model_range, "name")
            if name not in RESOURCE_MODEL_NAMES:
                return [fielderrors.not_supported(child(range_path, "name"), name, RESOURCE_MODEL_NAMES)]
            low, high = _quantity(model_range.get("min")), _quantity(model_range.get("max"))
            if low is None or high is None:
                continue  # the schema's pattern reported it
            problem = ""
            if high <= low:
                problem = "The max value of each resource must be greater than the min value"
            elif previous is None and low != 0:
                problem = "The min value of each resource in the first model should be 0"
            elif previous is not None and fields.text(previous_ranges[range_position], "name") != name:
                problem = "The resource types of each models should be the same"
            elif previous is not None and _quantity(previous_ranges[range_position].get("max")) != low:
                problem = "Model intervals for resources must be contiguous and non-overlapping"
            elif position == len(models) - 1 and high != MAX_INT64:
                problem = "The max value of each resource in the last model should be MaxInt64"
            if problem:
                return [fielderrors.invalid(range_path, model_range, problem)]
    return []


def _quantity(value: Any) -> Fraction | None:
    try:
        return parse_quantity(value).amount
    except QuantityError:
        return None
