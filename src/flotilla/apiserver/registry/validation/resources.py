"""Compute resource names and amounts: container requests and limits, quotas, capacities.

A resource list maps a resource name (`cpu`, `memory`, `hugepages-2Mi`, `example.com/gpu`) to a
quantity. kube checks that names are standard or fully qualified, that quantities parse and are not
negative, that integer-only resources (pods, extended resources) are whole, and for containers that
every request fits under its limit — or, for resources that cannot be overcommitted (hugepages and
extended resources), equals it.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.api.quantities import ZERO, Quantity, QuantityError, parse_quantity
from flotilla.apiserver.registry.validation import fields

CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
QUOTA_RESOURCES = frozenset(
    {
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
    }
)
STANDARD_RESOURCES = CONTAINER_RESOURCES | QUOTA_RESOURCES
INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "services.nodeports",
        "services.loadbalancers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
    }
)
_HUGEPAGES = "hugepages-"


def is_hugepages(name: str) -> bool:
    return name.startswith(_HUGEPAGES)


def is_native(name: str) -> bool:
    """Unprefixed names and names under `kubernetes.io/` belong to Kubernetes itself."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    """A vendor resource such as `example.com/gpu` (kube's `IsExtendedResourceName`)."""
    if is_native(name) or name.startswith("requests."):
        return False
    return not names.qualified_name_errors(f"requests.{name}")


def overcommit_allowed(name: str) -> bool:
    return is_native(name) and not is_hugepages(name)


def is_standard(name: str) -> bool:
    return (
        name in STANDARD_RESOURCES
        or is_hugepages(name)
        or name.startswith(("requests.hugepages-", "limits.hugepages-", "count/"))
    )


def resource_name(name: str, path: str) -> list[FieldError]:
    """kube's `validateResourceName`: a qualified name, and standard when unprefixed."""
    errors = [fielderrors.invalid(path, name, message) for message in names.qualified_name_errors(name)]
    if errors:
        return errors
    if "/" not in name and not is_standard(name):
        return [fielderrors.invalid(path, name, "must be a standard resource type or fully qualified")]
    return []


def container_resource_name(name: str, path: str) -> list[FieldError]:
    errors = resource_name(name, path)
    if "/" not in name:
        if name not in CONTAINER_RESOURCES and not is_hugepages(name):
            errors.append(fielderrors.invalid(path, name, "must be a standard resource for containers"))
    elif not is_native(name) and not is_extended(name):
        errors.append(fielderrors.invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def parsed(value: Any, path: str, errors: list[FieldError]) -> Quantity | None:
    """The quantity at `path`, or None after recording why it does not parse."""
    try:
        return parse_quantity(value)
    except QuantityError as problem:
        errors.append(fielderrors.invalid(path, value, str(problem)))
        return None


def quantity_value(name: str, quantity: Quantity, path: str) -> list[FieldError]:
    """kube's `ValidateResourceQuantityValue`: not negative, and whole for integer resources."""
    errors: list[FieldError] = []
    if quantity < ZERO:
        errors.append(fielderrors.invalid(path, str(quantity), "must be greater than or equal to 0"))
    if (name in INTEGER_RESOURCES or is_extended(name)) and quantity.milli_value % 1000 != 0:
        errors.append(fielderrors.invalid(path, str(quantity), "must be an integer"))
    return errors


def resource_list(values: dict[str, Any], path: str) -> tuple[dict[str, Quantity], list[FieldError]]:
    """Parse and check a resource list with generic names; returns the parsed quantities too."""
    errors: list[FieldError] = []
    quantities: dict[str, Quantity] = {}
    for name in sorted(values):
        entry_path = fielderrors.key(path, name)
        errors.extend(resource_name(name, entry_path))
        quantity = parsed(values[name], entry_path, errors)
        if quantity is not None:
            errors.extend(quantity_value(name, quantity, entry_path))
            quantities[name] = quantity
    return quantities, errors


def validate_resource_requirements(requirements: dict[str, Any], path: str) -> list[FieldError]:
    """A container's `resources` (kube's `ValidateResourceRequirements`)."""
    errors: list[FieldError] = []
    limits_path = fielderrors.child(path, "limits")
    requests_path = fielderrors.child(path, "requests")
    limits: dict[str, Quantity] = {}
    uses_cpu_or_memory = False
    uses_hugepages = False
    for name, value in sorted(fields.mapping(requirements, "limits").items()):
        entry_path = fielderrors.key(limits_path, name)
        errors.extend(container_resource_name(name, entry_path))
        quantity = parsed(value, entry_path, errors)
        if quantity is not None:
            errors.extend(quantity_value(name, quantity, entry_path))
            limits[name] = quantity
        uses_hugepages = uses_hugepages or is_hugepages(name)
        uses_cpu_or_memory = uses_cpu_or_memory or name in ("cpu", "memory")
    for name, value in sorted(fields.mapping(requirements, "requests").items()):
        entry_path = fielderrors.key(requests_path, name)
        errors.extend(container_resource_name(name, entry_path))
        quantity = parsed(value, entry_path, errors)
        uses_hugepages = uses_hugepages or is_hugepages(name)
        uses_cpu_or_memory = uses_cpu_or_memory or name in ("cpu", "memory")
        if quantity is None:
            continue
        errors.extend(quantity_value(name, quantity, entry_path))
        limit = limits.get(name)
        if limit is not None:
            if quantity != limit and not overcommit_allowed(name):
                errors.append(
                    fielderrors.invalid(
                        requests_path, str(quantity), f"must be equal to {name} limit of {limit}"
                    )
                )
            elif quantity > limit:
                errors.append(
                    fielderrors.invalid(
                        requests_path, str(quantity), f"must be less than or equal to {name} limit of {limit}"
                    )
                )
        elif not overcommit_allowed(name):
            errors.append(
                fielderrors.required(limits_path, "Limit must be set for non overcommitable resources")
            )
    if uses_hugepages and not uses_cpu_or_memory:
        errors.append(fielderrors.forbidden(path, "HugePages require cpu or memory"))
    return errors
