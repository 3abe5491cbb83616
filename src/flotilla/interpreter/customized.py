"""The interpreter controllers call: a kind's Lua customization first, the built-in rules otherwise.

Karmada asks its interpreters in order — webhook, declarative (Lua) customization, bundled
third-party customizations, native rules — and the first that implements an operation for the
object's kind answers. `ResourceInterpreter` does the same for the customizations it is given (a
snapshot the controllers take from their informer) and the built-in rules of this package.

A customization's script that fails never stops a controller: the failure (`CustomizationError`,
which names the customization and the operation) is kept in `failures` for the controller to log
and record as an Event, and the built-in rule answers instead (for a custom kind, "no replicas",
"Unknown" health, the status left as it was).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from flotilla.interpreter import dependencies, health, replicas, status
from flotilla.interpreter.health import ResourceHealth
from flotilla.interpreter.kinds import group_kind
from flotilla.interpreter.lua.customizations import Operation
from flotilla.interpreter.lua.operations import CustomizationError, CustomizedInterpreter
from flotilla.interpreter.replicas import WorkloadReplicas
from flotilla.interpreter.retain import RETAIN_KINDS
from flotilla.interpreter.retain import retain as built_in_retain
from flotilla.interpreter.statusitems import StatusItems

T = TypeVar("T")


class ResourceInterpreter:
    """Customizations (if any) before the built-in rules; failures collected, never raised."""

    def __init__(self, customizations: CustomizedInterpreter | None = None) -> None:
        self.customizations = customizations
        self.failures: list[CustomizationError] = []

    def drain_failures(self) -> list[CustomizationError]:
        """The failures since the last call (each controller reports its own)."""
        found, self.failures = self.failures, []
        return found

    def _try(self, run: Callable[[CustomizedInterpreter], T | None]) -> T | None:
        if self.customizations is None:
            return None
        try:
            return run(self.customizations)
        except CustomizationError as error:
            self.failures.append(error)
            return None

    def customizes(self, obj: Mapping[str, Any], operation: Operation) -> bool:
        return self.customizations is not None and self.customizations.covers(obj, operation)

    # -- operations ---------------------------------------------------------------------------------

    def get_replicas(self, obj: Mapping[str, Any]) -> WorkloadReplicas | None:
        found = self._try(lambda custom: custom.get_replicas(obj))
        if found is not None:
            return WorkloadReplicas(found.replicas, found.requirements)
        return replicas.get_replicas(obj)

    def revises_replica(self, obj: Mapping[str, Any]) -> bool:
        return (
            self.customizes(obj, Operation.REVISE_REPLICA) or group_kind(obj) in replicas.REVISE_REPLICA_KINDS
        )

    def revise_replica(self, obj: Mapping[str, Any], count: int) -> dict[str, Any]:
        found = self._try(lambda custom: custom.revise_replica(obj, count))
        if found is not None:
            return found
        if group_kind(obj) in replicas.REVISE_REPLICA_KINDS:
            return replicas.revise_replica(obj, count)
        return dict(obj)

    def retains(self, obj: Mapping[str, Any]) -> bool:
        return self.customizes(obj, Operation.RETAIN) or group_kind(obj) in RETAIN_KINDS

    def retain(self, desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
        found = self._try(lambda custom: custom.retain(desired, observed))
        return found if found is not None else built_in_retain(desired, observed)

    def reflect_status(self, observed: Mapping[str, Any]) -> dict[str, Any] | None:
        found = self._try(lambda custom: custom.reflect_status(observed))
        return found if found is not None else status.reflect_status(observed)

    def interpret_health(self, observed: Mapping[str, Any]) -> ResourceHealth:
        found = self._try(lambda custom: custom.interpret_health(observed))
        if found is not None:
            return ResourceHealth.HEALTHY if found else ResourceHealth.UNHEALTHY
        if self.customizes(observed, Operation.INTERPRET_HEALTH):
            return ResourceHealth.UNKNOWN
        return health.interpret_health(observed)

    def aggregates_status(self, template: Mapping[str, Any]) -> bool:
        return (
            self.customizes(template, Operation.AGGREGATE_STATUS)
            or group_kind(template) in status.AGGREGATE_STATUS_KINDS
        )

    def aggregate_status(
        self, template: Mapping[str, Any], items: StatusItems, *, now: datetime
    ) -> dict[str, Any]:
        if self.customizes(template, Operation.AGGREGATE_STATUS):
            # Karmada hands over the binding's aggregatedStatus as it is: none is nil, not {}.
            found = self._try(lambda custom: custom.aggregate_status(template, list(items) or None))
            if found is None:
                return dict(template)
            # Only the status is the script's to change, as Karmada takes only `status` back.
            return {**template, "status": found.get("status") or {}}
        return status.aggregate_status(template, items, now=now)

    def get_dependencies(self, obj: Mapping[str, Any]) -> Sequence[dict[str, Any]]:
        found = self._try(lambda custom: custom.get_dependencies(obj))
        return found if found is not None else dependencies.get_dependencies(obj)


BUILT_IN = ResourceInterpreter()
"""The built-in rules alone (what a process without customizations uses)."""
