"""policy.karmada.io/v1alpha1 FederatedResourceQuota: a namespace's budget across every member cluster.

`spec.overall` caps what the namespace's workloads may ask for in all clusters together;
`spec.staticAssignments[]` (`clusterName`, `hard`) become ResourceQuotas of the quota's name in
those clusters. `status.overall` echoes the limits, `status.overallUsed` is what the namespace's
ResourceBindings hold (plus, until the controller's next pass, what the hub's admission reserved),
`status.aggregatedStatus[]` each member's ResourceQuota status (Karmada's
`pkg/apis/policy/v1alpha1/federatedresourcequota_types.go`).

The arithmetic lives here, pure, so the controller that writes the status and the hub's admission
that refuses an over-quota write agree to the last millicore:

- a binding holds `replicaRequirements.resourceRequest` times the replicas scheduled to its clusters
  (or, with components, each component's requests times its replicas, once per scheduled cluster) —
  Karmada's `CalculateResourceUsage`; an unscheduled binding holds nothing;
- a quota counts the resources its `overall` names; `requests.cpu` counts the requests of `cpu`,
  as a ResourceQuota does;
- a write is refused only when it *raises* a counted resource past its limit (`exceeded`), so a
  scale-down or an unrelated change always passes, even in a namespace already over its quota
  (an administrator may lower `overall` below what runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flotilla.api.quantities import Format, Quantity, QuantityError, parse_quantity
from flotilla.api.scheme import GroupResource, GroupVersionKind

FEDERATED_RESOURCE_QUOTA = GroupVersionKind("policy.karmada.io", "v1alpha1", "FederatedResourceQuota")
FEDERATED_RESOURCE_QUOTAS = GroupResource("policy.karmada.io", "federatedresourcequotas")
RESOURCE_QUOTA = GroupVersionKind("", "v1", "ResourceQuota")

QUOTA_NAMESPACE_LABEL = "federatedresourcequota.karmada.io/namespace"
"""On a quota's Works: the FederatedResourceQuota's namespace (Karmada's label)."""
QUOTA_NAME_LABEL = "federatedresourcequota.karmada.io/name"
"""On a quota's Works: the FederatedResourceQuota's name (Karmada's label)."""
QUOTA_EXCEEDED_REASON = "QuotaExceeded"
"""The reason of the 403 Status refusing a write over quota (Karmada's `util.QuotaExceededReason`)."""
NAME_MAX = 63
"""Karmada keeps quota names to a DNS label: they are label values on Works."""

ResourceAmounts = dict[str, Quantity]
"""Quantities by resource name."""

_REQUESTS_PREFIX = "requests."


def resource_amounts(resource_list: object) -> ResourceAmounts:
    """A resource list of decoded JSON as quantities; entries that are not quantities are skipped
    (validation refuses them where they are written)."""
    if not isinstance(resource_list, Mapping):
        return {}
    amounts: ResourceAmounts = {}
    for name, value in resource_list.items():
        try:
            amounts[str(name)] = parse_quantity(value)
        except QuantityError:
            continue
    return amounts


def written(amounts: Mapping[str, Quantity]) -> dict[str, str]:
    """Quantities as a resource list of JSON, in name order."""
    return {name: str(amounts[name]) for name in sorted(amounts)}


def add(total: ResourceAmounts, more: Mapping[str, Quantity], times: int = 1) -> None:
    """`total += more * times`, resource by resource."""
    for name, quantity in more.items():
        scaled = Quantity(quantity.amount * times, quantity.format)
        held = total.get(name)
        total[name] = scaled if held is None else held + scaled


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _mapping(obj: object, *path: str) -> Mapping[str, Any]:
    for key in path:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj if isinstance(obj, Mapping) else {}


def _list(obj: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = obj.get(key)
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def binding_usage(binding: Mapping[str, Any]) -> ResourceAmounts:
    """What a ResourceBinding holds across its scheduled clusters (Karmada's `CalculateResourceUsage`)."""
    spec = _mapping(binding, "spec")
    clusters = _list(spec, "clusters")
    usage: ResourceAmounts = {}
    components = _list(spec, "components")
    if components:
        per_set: ResourceAmounts = {}
        for component in components:
            requests = resource_amounts(_mapping(component, "replicaRequirements").get("resourceRequest"))
            add(per_set, requests, _int(component.get("replicas")))
        add(usage, per_set, len(clusters))
        return _nonzero(usage)
    scheduled = sum(_int(cluster.get("replicas")) for cluster in clusters)
    requests = resource_amounts(_mapping(spec, "replicaRequirements").get("resourceRequest"))
    add(usage, requests, scheduled)
    return _nonzero(usage)


def _nonzero(amounts: ResourceAmounts) -> ResourceAmounts:
    return {name: quantity for name, quantity in amounts.items() if quantity.amount}


def workload_usage(replicas: int, resource_request: object, copies: int = 1) -> ResourceAmounts:
    """What `replicas` replicas asking `resource_request` each hold, `copies` times over."""
    usage: ResourceAmounts = {}
    add(usage, resource_amounts(resource_request), replicas * copies)
    return _nonzero(usage)


def counted(usage: Mapping[str, Quantity], limits: Iterable[str]) -> ResourceAmounts:
    """The part of `usage` a quota with these limits counts, under the limits' names (`requests.cpu`
    and `cpu` both count the requests of `cpu`)."""
    found: ResourceAmounts = {}
    for name in limits:
        quantity = usage.get(name)
        if quantity is None and name.startswith(_REQUESTS_PREFIX):
            quantity = usage.get(name.removeprefix(_REQUESTS_PREFIX))
        if quantity is not None:
            found[name] = quantity
    return found


def overall_used(bindings: Iterable[Mapping[str, Any]], overall: Mapping[str, Quantity]) -> ResourceAmounts:
    """`status.overallUsed`: what the namespace's bindings hold, counted as the quota counts."""
    total: ResourceAmounts = {}
    for binding in bindings:
        add(total, binding_usage(binding))
    return counted(total, overall)


@dataclass(frozen=True, slots=True)
class QuotaExceeded:
    """Why one quota refuses a write: per exceeded resource, what it asks more, what is held, the limit."""

    quota: str
    requested: ResourceAmounts
    used: ResourceAmounts
    limited: ResourceAmounts

    @property
    def message(self) -> str:
        """Kube's ResourceQuota wording, only the exceeded resources:
        `exceeded quota: team-a, requested: cpu=3, used: cpu=8, limited: cpu=10`."""
        return (
            f"exceeded quota: {self.quota}, requested: {_listed(self.requested)}, "
            f"used: {_listed(self.used)}, limited: {_listed(self.limited)}"
        )


def _listed(amounts: Mapping[str, Quantity]) -> str:
    return ",".join(f"{name}={amounts[name]}" for name in sorted(amounts))


def exceeded(
    quota: str,
    overall: Mapping[str, Quantity],
    used: Mapping[str, Quantity],
    before: Mapping[str, Quantity],
    after: Mapping[str, Quantity],
) -> QuotaExceeded | None:
    """Whether a write taking one object's usage from `before` to `after` breaks the quota.

    `used` is what the namespace holds now (`before` included). A resource whose usage does not
    grow is never a reason to refuse; one that grows must stay within its limit.
    """
    grown_before = counted(before, overall)
    grown_after = counted(after, overall)
    held = counted(used, overall)
    zero = Quantity(Fraction(0), Format.DECIMAL_SI)
    requested: ResourceAmounts = {}
    used_now: ResourceAmounts = {}
    limited: ResourceAmounts = {}
    for name, limit in overall.items():
        delta = grown_after.get(name, zero) - grown_before.get(name, zero)
        if delta.amount <= 0:
            continue
        now = held.get(name, zero)
        if (now + delta).amount > limit.amount:
            requested[name], used_now[name], limited[name] = delta, now, limit
    if not requested:
        return None
    return QuotaExceeded(quota, requested, used_now, limited)


def at_least(amounts: Mapping[str, Quantity], floor: Mapping[str, Quantity]) -> ResourceAmounts:
    """Per resource, the larger of `amounts` and `floor`: a quota's reservations in
    `status.overallUsed` never lower what the hub's own cache shows is held."""
    found = dict(amounts)
    for name, quantity in floor.items():
        if name not in found or found[name].amount < quantity.amount:
            found[name] = quantity
    return found


def reserved(
    overall: Mapping[str, Quantity],
    used: Mapping[str, Quantity],
    before: Mapping[str, Quantity],
    after: Mapping[str, Quantity],
) -> ResourceAmounts | None:
    """`status.overallUsed` once a write taking one object from `before` to `after` is admitted:
    `used` plus the growth of each counted resource (Karmada's webhook reservation); None when
    nothing this quota counts grows, so there is nothing to reserve."""
    grown_before = counted(before, overall)
    grown_after = counted(after, overall)
    total = counted(used, overall)
    zero = Quantity(Fraction(0), Format.DECIMAL_SI)
    grew = False
    for name in overall:
        delta = grown_after.get(name, zero) - grown_before.get(name, zero)
        if delta.amount > 0:
            total[name] = total.get(name, zero) + delta
            grew = True
    return total if grew else None
