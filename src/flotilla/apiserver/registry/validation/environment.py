"""Validation of container environment: `env`, `envFrom` and the downward API selectors.

Variable names follow kube 1.32's relaxed rule (printable ASCII except `=`). A `valueFrom` names
exactly one source; `fieldRef` paths must be ones the downward API exposes (labels and annotations
only by subscript in variables), `resourceFieldRef` a container resource, and config map and secret
references a valid name and key. Volumes reuse the same selectors with their own allowed paths.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.metadata import qualified_name

ENV_FIELD_PATHS = (
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
)
_CONVERTIBLE_FIELD_PATHS = frozenset(
    {
        *ENV_FIELD_PATHS,
        "metadata.annotations",
        "metadata.labels",
        "spec.restartPolicy",
        "spec.schedulerName",
        "status.phase",
    }
)
CONTAINER_RESOURCE_FIELDS = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)


def env_var_name_errors(name: str) -> list[str]:
    """kube's relaxed environment variable names (1.32 default): printable ASCII other than '='."""
    if not name:
        return ["environment variable name must be non-empty"]
    if any(not (" " <= character <= "~") or character == "=" for character in name):
        return [
            "a valid environment variable name must consist only of printable ASCII characters other than '='"
        ]
    return []


def validate_env(env: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, variable in enumerate(env):
        variable_path = fielderrors.index(path, position)
        name = fields.text(variable, "name")
        name_path = fielderrors.child(variable_path, "name")
        if not name:
            errors.append(fielderrors.required(name_path))
        errors.extend(fielderrors.invalid(name_path, name, message) for message in env_var_name_errors(name))
        if "valueFrom" in variable and variable["valueFrom"] is not None:
            errors.extend(_env_value_from(variable, fielderrors.child(variable_path, "valueFrom")))
    return errors


def _env_value_from(variable: dict[str, Any], path: str) -> list[FieldError]:
    source = fields.mapping(variable, "valueFrom")
    errors: list[FieldError] = []
    count = 0
    if "fieldRef" in source:
        count += 1
        errors.extend(
            object_field_selector(
                fields.mapping(source, "fieldRef"), ENV_FIELD_PATHS, fielderrors.child(path, "fieldRef")
            )
        )
    if "resourceFieldRef" in source:
        count += 1
        errors.extend(
            resource_field_selector(
                fields.mapping(source, "resourceFieldRef"), fielderrors.child(path, "resourceFieldRef")
            )
        )
    for kind in ("configMapKeyRef", "secretKeyRef"):
        if kind in source:
            count += 1
            errors.extend(_key_selector(fields.mapping(source, kind), fielderrors.child(path, kind)))
    if count == 0:
        errors.append(
            fielderrors.invalid(
                path,
                "",
                "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
            )
        )
    elif fields.text(variable, "value"):
        errors.append(fielderrors.invalid(path, "", "may not be specified when `value` is not empty"))
    elif count > 1:
        errors.append(fielderrors.invalid(path, "", "may not have more than one field specified at a time"))
    return errors


def _key_selector(selector: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name = fields.text(selector, "name")
    errors.extend(
        fielderrors.invalid(fielderrors.child(path, "name"), name, message)
        for message in names.dns1123_subdomain_errors(name)
    )
    key = fields.text(selector, "key")
    key_path = fielderrors.child(path, "key")
    if not key:
        errors.append(fielderrors.required(key_path))
    else:
        errors.extend(
            fielderrors.invalid(key_path, key, message) for message in names.config_map_key_errors(key)
        )
    return errors


def split_subscripted_path(field_path: str) -> tuple[str, str] | None:
    """`metadata.labels['app']` → (`metadata.labels`, `app`), as kube's `SplitMaybeSubscriptedPath`."""
    if not field_path.endswith("']"):
        return None
    head, separator, subscript = field_path[:-2].partition("['")
    if not separator or not head:
        return None
    return head, subscript


def object_field_selector(
    selector: dict[str, Any], supported: tuple[str, ...], path: str
) -> list[FieldError]:
    """A downward API `fieldRef` (kube's `validateObjectFieldSelector`)."""
    api_version = fields.text(selector, "apiVersion")
    field_path = fields.text(selector, "fieldPath")
    if not api_version:
        return [fielderrors.required(fielderrors.child(path, "apiVersion"))]
    if not field_path:
        return [fielderrors.required(fielderrors.child(path, "fieldPath"))]
    subscripted = split_subscripted_path(field_path)
    conversion_error = ""
    if api_version != "v1":
        conversion_error = f"unsupported pod version: {api_version}"
    elif subscripted is not None and subscripted[0] not in ("metadata.annotations", "metadata.labels"):
        conversion_error = f"field label does not support subscript: {field_path}"
    elif subscripted is None and field_path not in _CONVERTIBLE_FIELD_PATHS and field_path != "spec.host":
        conversion_error = f"field label not supported: {field_path}"
    if conversion_error:
        return [
            fielderrors.invalid(
                fielderrors.child(path, "fieldPath"),
                field_path,
                f"error converting fieldPath: {conversion_error}",
            )
        ]
    if subscripted is not None:
        head, subscript = subscripted
        return qualified_name(subscript.lower() if head == "metadata.annotations" else subscript, path)
    internal = "spec.nodeName" if field_path == "spec.host" else field_path
    if internal not in supported:
        return [fielderrors.not_supported(fielderrors.child(path, "fieldPath"), internal, supported)]
    return []


def resource_field_selector(selector: dict[str, Any], path: str, *, volume: bool = False) -> list[FieldError]:
    """A downward API `resourceFieldRef` (kube's `validateContainerResourceFieldSelector`)."""
    resource = fields.text(selector, "resource")
    if volume and not fields.text(selector, "containerName"):
        return [fielderrors.required(fielderrors.child(path, "containerName"))]
    if not resource:
        return [fielderrors.required(fielderrors.child(path, "resource"))]
    if resource not in CONTAINER_RESOURCE_FIELDS and not resource.startswith(
        ("requests.hugepages-", "limits.hugepages-")
    ):
        return [
            fielderrors.not_supported(
                fielderrors.child(path, "resource"), resource, CONTAINER_RESOURCE_FIELDS
            )
        ]
    return []


def validate_env_from(sources: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, source in enumerate(sources):
        source_path = fielderrors.index(path, position)
        prefix = fields.text(source, "prefix")
        if prefix:
            errors.extend(
                fielderrors.invalid(fielderrors.child(source_path, "prefix"), prefix, message)
                for message in env_var_name_errors(prefix)
            )
        count = 0
        for kind in ("configMapRef", "secretRef"):
            if kind not in source:
                continue
            count += 1
            name = fields.text(fields.mapping(source, kind), "name")
            name_path = fielderrors.child(fielderrors.child(source_path, kind), "name")
            if not name:
                errors.append(fielderrors.required(name_path))
            else:
                errors.extend(
                    fielderrors.invalid(name_path, name, message)
                    for message in names.dns1123_subdomain_errors(name)
                )
        if count == 0:
            errors.append(fielderrors.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif count > 1:
            errors.append(
                fielderrors.invalid(path, "", "may not have more than one field specified at a time")
            )
    return errors
