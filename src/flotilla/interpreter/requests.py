"""What one replica of a pod template asks the scheduler for: the pod's effective resource requests.

The scheduler's dynamic replica division and the cluster estimators need the requests of one pod,
computed the way the kube-scheduler computes them, so that "how many of these fit in a cluster"
agrees with what the member's scheduler later admits:

- a container that sets a limit but no request for a resource requests its limit (kube defaults
  Pods this way; templates are not defaulted yet, so the rule is applied here);
- the app containers' requests add up; a sidecar (an init container with `restartPolicy: Always`)
  runs beside them and adds to that sum;
- an ordinary init container runs alone, beside only the sidecars started before it, so the init
  phase needs the largest of those moments, and the pod needs the larger of the two phases;
- the runtime class overhead (`spec.overhead`) comes on top.

Like Karmada, CPU is counted in whole millicores and every other resource in whole units (both
rounded up), only `cpu`, `memory`, `ephemeral-storage`, `pods` and scalar resources (extended,
hugepages, attachable volumes) count, and the result is written as kube writes quantities (`1500m`,
`128Mi`), by `flotilla.api.quantities`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from flotilla.api.quantities import Format, Quantity, QuantityError, canonical, parse_quantity
from flotilla.interpreter.kinds import InterpreterError, nested_mapping

ResourceAmounts = dict[str, int]
"""Whole units per resource name (millicores for `cpu`)."""

_BINARY_RESOURCES = ("memory", "ephemeral-storage")


def counts_as_resource(name: str) -> bool:
    """Whether Karmada's resource accounting keeps this resource name (native or scalar)."""
    if name in ("cpu", "memory", "ephemeral-storage", "pods"):
        return True
    if name.startswith("requests."):
        return False
    return "/" in name or name.startswith(("hugepages-", "attachable-volumes-"))


def counted_units(name: str, quantity: Any) -> int:
    """A quantity in the unit Karmada counts the resource in (millicores for `cpu`), rounded up."""
    try:
        parsed = parse_quantity(quantity)
    except QuantityError as error:
        raise InterpreterError(f"quantity {quantity!r}: {error}") from None
    return parsed.milli_value if name == "cpu" else parsed.value


def _container_requests(container: Mapping[str, Any]) -> ResourceAmounts:
    limits = nested_mapping(container, "resources", "limits")
    requests = nested_mapping(container, "resources", "requests")
    declared = {**limits, **requests}
    return {
        name: counted_units(name, quantity) for name, quantity in declared.items() if counts_as_resource(name)
    }


def _add(total: ResourceAmounts, more: Mapping[str, int]) -> None:
    for name, amount in more.items():
        total[name] = total.get(name, 0) + amount


def _raise_to(total: ResourceAmounts, other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        total[name] = max(total.get(name, 0), amount)


def _containers(spec: Mapping[str, Any], field: str) -> Iterable[Mapping[str, Any]]:
    containers = spec.get(field)
    if not isinstance(containers, list):
        return ()
    return (container for container in containers if isinstance(container, Mapping))


def pod_requests(spec: Mapping[str, Any]) -> ResourceAmounts:
    """The effective requests of one pod with this spec, in whole units per resource."""
    total: ResourceAmounts = {}
    for container in _containers(spec, "containers"):
        _add(total, _container_requests(container))
    init_phase: ResourceAmounts = {}
    sidecars: ResourceAmounts = {}
    for container in _containers(spec, "initContainers"):
        requests = _container_requests(container)
        if container.get("restartPolicy") == "Always":
            _add(total, requests)
            _add(sidecars, requests)
            moment = dict(sidecars)
        else:
            moment = dict(requests)
            _add(moment, sidecars)
        _raise_to(init_phase, moment)
    _raise_to(total, init_phase)
    overhead = spec.get("overhead")
    if isinstance(overhead, Mapping):
        _add(
            total,
            {
                name: counted_units(name, value)
                for name, value in overhead.items()
                if counts_as_resource(name)
            },
        )
    return total


def resource_list(amounts: Mapping[str, int]) -> dict[str, str] | None:
    """Whole units written as a kube resource list (`{"cpu": "250m"}`); None when nothing is requested."""
    written: dict[str, str] = {}
    for name in sorted(amounts):
        amount = amounts[name]
        if amount <= 0:
            continue
        if name == "cpu":
            written[name] = canonical(Quantity(Fraction(amount, 1000), Format.DECIMAL_SI))
        elif name in _BINARY_RESOURCES or name.startswith("hugepages-"):
            written[name] = canonical(Quantity(Fraction(amount), Format.BINARY_SI))
        else:
            written[name] = canonical(Quantity(Fraction(amount), Format.DECIMAL_SI))
    return written or None
