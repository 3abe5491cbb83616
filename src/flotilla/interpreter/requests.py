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
`128Mi`). Quantities are parsed here with kube's grammar rather than through the API server's
validation package, which the controllers must not import.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from flotilla.interpreter.kinds import InterpreterError, nested_mapping

ResourceAmounts = dict[str, int]
"""Whole units per resource name (millicores for `cpu`)."""

_QUANTITY = re.compile(
    r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?"
)
_BINARY_EXPONENTS = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_EXPONENTS = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIXES = {exponent: suffix for suffix, exponent in _DECIMAL_EXPONENTS.items()}
_BINARY_SUFFIXES = {exponent: suffix for suffix, exponent in _BINARY_EXPONENTS.items()}
_NANO = Fraction(1, 10**9)
_BINARY_RESOURCES = ("memory", "ephemeral-storage")


def parse_amount(value: Any) -> Fraction:
    """The exact amount of a quantity (`500m`, `1Gi`, `2`, `1e3`), rounded up to nano units as kube does."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InterpreterError(f"quantity {value!r} is not a string or a number")
    text = value.strip() if isinstance(value, str) else repr(value)
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise InterpreterError(f"quantities must match the regular expression of kube quantities: {value!r}")
    amount = Fraction(match.group(1))
    suffix = match.group(2) or ""
    if suffix in _BINARY_EXPONENTS:
        amount *= 1024 ** _BINARY_EXPONENTS[suffix]
    elif suffix in _DECIMAL_EXPONENTS:
        amount *= Fraction(10) ** _DECIMAL_EXPONENTS[suffix]
    else:
        amount *= Fraction(10) ** int(suffix[1:])
    return math.ceil(amount / _NANO) * _NANO


def counts_as_resource(name: str) -> bool:
    """Whether Karmada's resource accounting keeps this resource name (native or scalar)."""
    if name in ("cpu", "memory", "ephemeral-storage", "pods"):
        return True
    if name.startswith("requests."):
        return False
    return "/" in name or name.startswith(("hugepages-", "attachable-volumes-"))


def whole_units(name: str, quantity: Any) -> int:
    """A quantity in the unit Karmada counts the resource in, rounded up."""
    amount = parse_amount(quantity)
    return math.ceil(amount * 1000) if name == "cpu" else math.ceil(amount)


def _container_requests(container: Mapping[str, Any]) -> ResourceAmounts:
    limits = nested_mapping(container, "resources", "limits")
    requests = nested_mapping(container, "resources", "requests")
    declared = {**limits, **requests}
    return {
        name: whole_units(name, quantity) for name, quantity in declared.items() if counts_as_resource(name)
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
            {name: whole_units(name, value) for name, value in overhead.items() if counts_as_resource(name)},
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
            written[name] = decimal_quantity(Fraction(amount, 1000))
        elif name in _BINARY_RESOURCES or name.startswith("hugepages-"):
            written[name] = binary_quantity(amount)
        else:
            written[name] = decimal_quantity(Fraction(amount))
    return written or None


def decimal_quantity(amount: Fraction) -> str:
    """A non-negative amount with the largest decimal suffix that keeps the number whole (`1500m`, `2k`)."""
    if amount == 0:
        return "0"
    exponent = -9
    mantissa = amount / Fraction(10) ** exponent
    if mantissa.denominator != 1:
        mantissa = Fraction(math.ceil(mantissa))
    whole = int(mantissa)
    while whole % 1000 == 0 and exponent < 18:
        whole //= 1000
        exponent += 3
    return f"{whole}{_DECIMAL_SUFFIXES[exponent]}"


def binary_quantity(amount: int) -> str:
    """Whole bytes with the largest binary suffix that keeps the number whole (`128Mi`), as kube prints."""
    if amount < 1024:
        return decimal_quantity(Fraction(amount))
    power = 0
    while amount % 1024 == 0 and power < 6:
        amount //= 1024
        power += 1
    return f"{amount}{_BINARY_SUFFIXES.get(power, '')}"
