"""The interpreter controllers call: a Lua customization first, then a webhook, then the built-in rules.

Karmada asks its interpreters in order — declarative (Lua) customization, interpreter webhook,
bundled third-party customizations, native rules — and the first that implements an operation for
the object's kind answers. `ResourceInterpreter` does the same for the customizations and webhooks
it is given (a snapshot the controllers take from their informers) and the built-in rules of this
package.

A customization's script or a webhook that fails never stops a controller: the failure
(`CustomizationError` or `WebhookInterpreterError`, which name the object to blame and the
operation) is kept in `failures` for the controller to log and record as an Event, and the
built-in rule answers instead (for a custom kind, "no replicas", "Unknown" health, the status left
as it was). Unlike the fallback from Lua to built-in rules, a failing Lua script does not fall to a
webhook: the operation is the customization's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from flotilla.interpreter import dependencies, health, replicas, status
from flotilla.interpreter.health import ResourceHealth
from flotilla.interpreter.kinds import group_kind
from flotilla.interpreter.lua.customizations import Operation
from flotilla.interpreter.lua.operations import (
    CustomizationError,
    CustomizedInterpreter,
    CustomizedReplicas,
)
from flotilla.interpreter.replicas import WorkloadReplicas
from flotilla.interpreter.retain import RETAIN_KINDS
from flotilla.interpreter.retain import retain as built_in_retain
from flotilla.interpreter.statusitems import StatusItems
from flotilla.interpreter.webhook import WebhookInterpreter, WebhookInterpreterError

T = TypeVar("T")
InterpreterFailure = CustomizationError | WebhookInterpreterError


class ResourceInterpreter:
    """Customizations and webhooks (if any) before the built-in rules; failures collected, never raised."""

    def __init__(
        self,
        customizations: CustomizedInterpreter | None = None,
        webhooks: WebhookInterpreter | None = None,
    ) -> None:
        self.customizations = customizations
        self.webhooks = webhooks
        self.failures: list[InterpreterFailure] = []

    def drain_failures(self) -> list[InterpreterFailure]:
        """The failures since the last call (each controller reports its own)."""
        found, self.failures = self.failures, []
        return found

    def _try(
        self,
        operation: Operation,
        obj: Mapping[str, Any],
        lua: Callable[[CustomizedInterpreter], T | None],
        webhook: Callable[[WebhookInterpreter], T | None],
    ) -> T | None:
        """The customization's answer, else the webhook's; None when neither answers (or it failed)."""
        if self.customizations is not None and self.customizations.covers(obj, operation):
            try:
                return lua(self.customizations)
            except CustomizationError as error:
                self.failures.append(error)
                return None
        if self.webhooks is not None:
            try:
                return webhook(self.webhooks)
            except WebhookInterpreterError as error:
                self.failures.append(error)
        return None

    def customizes(self, obj: Mapping[str, Any], operation: Operation) -> bool:
        """Whether a customization or a webhook answers `operation` for `obj` (the call may then
        take a script's time limit or a webhook's timeout: callers run it off their event loop)."""
        return (self.customizations is not None and self.customizations.covers(obj, operation)) or (
            self.webhooks is not None and self.webhooks.covers(obj, operation)
        )

    # -- operations ---------------------------------------------------------------------------------

    def get_replicas(self, obj: Mapping[str, Any]) -> WorkloadReplicas | None:
        found = self._try(
            Operation.INTERPRET_REPLICA,
            obj,
            lambda custom: _replicas(custom.get_replicas(obj)),
            lambda hooks: _replicas(hooks.get_replicas(obj)),
        )
        return found if found is not None else replicas.get_replicas(obj)

    def revises_replica(self, obj: Mapping[str, Any]) -> bool:
        return (
            self.customizes(obj, Operation.REVISE_REPLICA) or group_kind(obj) in replicas.REVISE_REPLICA_KINDS
        )

    def revise_replica(self, obj: Mapping[str, Any], count: int) -> dict[str, Any]:
        found = self._try(
            Operation.REVISE_REPLICA,
            obj,
            lambda custom: custom.revise_replica(obj, count),
            lambda hooks: hooks.revise_replica(obj, count),
        )
        if found is not None:
            return found
        if group_kind(obj) in replicas.REVISE_REPLICA_KINDS:
            return replicas.revise_replica(obj, count)
        return dict(obj)

    def retains(self, obj: Mapping[str, Any]) -> bool:
        return self.customizes(obj, Operation.RETAIN) or group_kind(obj) in RETAIN_KINDS

    def retain(self, desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
        found = self._try(
            Operation.RETAIN,
            desired,
            lambda custom: custom.retain(desired, observed),
            lambda hooks: hooks.retain(desired, observed),
        )
        return found if found is not None else built_in_retain(desired, observed)

    def reflect_status(self, observed: Mapping[str, Any]) -> dict[str, Any] | None:
        found = self._try(
            Operation.INTERPRET_STATUS,
            observed,
            lambda custom: custom.reflect_status(observed),
            lambda hooks: hooks.reflect_status(observed),
        )
        return found if found is not None else status.reflect_status(observed)

    def interpret_health(self, observed: Mapping[str, Any]) -> ResourceHealth:
        found = self._try(
            Operation.INTERPRET_HEALTH,
            observed,
            lambda custom: custom.interpret_health(observed),
            lambda hooks: hooks.interpret_health(observed),
        )
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
            found = self._try(
                Operation.AGGREGATE_STATUS,
                template,
                lambda custom: custom.aggregate_status(template, list(items) or None),
                lambda hooks: hooks.aggregate_status(template, list(items)),
            )
            if found is None:
                return dict(template)
            # Only the status is the script's to change, as Karmada takes only `status` back.
            return {**template, "status": found.get("status") or {}}
        return status.aggregate_status(template, items, now=now)

    def get_dependencies(self, obj: Mapping[str, Any]) -> Sequence[dict[str, Any]]:
        found = self._try(
            Operation.INTERPRET_DEPENDENCY,
            obj,
            lambda custom: custom.get_dependencies(obj),
            lambda hooks: hooks.get_dependencies(obj),
        )
        return found if found is not None else dependencies.get_dependencies(obj)


def _replicas(
    found: CustomizedReplicas | tuple[int, dict[str, Any] | None] | None,
) -> WorkloadReplicas | None:
    if found is None:
        return None
    if isinstance(found, tuple):
        return WorkloadReplicas(*found)
    return WorkloadReplicas(found.replicas, found.requirements)


BUILT_IN = ResourceInterpreter()
"""The built-in rules alone (what a process without customizations uses)."""
