"""One method per interpreter operation: call the customization's function and check what it returns.

The arguments and results are Karmada's (`luavm/lua.go`):

- `GetReplicas(obj)` → replicas (a number, truncated to an integer) and requirements (a table or nil);
- `ReviseReplica(obj, desiredReplica)` → the object (empty tables repaired against `obj`);
- `Retain(desiredObj, observedObj)` → the object to apply (repaired against both);
- `ReflectStatus(observedObj)` → the status to report (a table);
- `AggregateStatus(desiredObj, statusItems)` → the object with its status; `statusItems` are the
  binding's `aggregatedStatus` entries (`clusterName`, `status`, `applied`, `health`);
- `InterpretHealth(observedObj)` → a boolean;
- `GetDependencies(desiredObj)` → dependency references (`apiVersion`, `kind`, `namespace`, `name`,
  `labelSelector`), joined over every customization that scripts it;
- `GetComponents(desiredObj)` → components (`name`, `replicas`, `replicaRequirements`) or nil.

Each method returns None when no customization scripts the operation for the object's kind (the
built-in interpreter answers), and raises `CustomizationError` when the script fails.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flotilla.api.quantities import canonical_form
from flotilla.interpreter.lua import conversion
from flotilla.interpreter.lua.customizations import CustomizationIndex, Operation, Script
from flotilla.interpreter.lua.sandbox import LuaSandbox, LuaScriptError


class CustomizationError(LuaScriptError):
    """A customization's script failed; says which customization and which operation."""

    def __init__(self, script: Script, message: str) -> None:
        super().__init__(
            f'ResourceInterpreterCustomization "{script.customization}" {script.operation}: {message}'
        )
        self.customization = script.customization
        self.operation = script.operation
        self.detail = message


@dataclass(frozen=True, slots=True)
class CustomizedReplicas:
    replicas: int
    requirements: dict[str, Any] | None


_canonical_text = functools.lru_cache(maxsize=4096)(canonical_form)
"""Quantities repeat from call to call (the same templates are interpreted again and again)."""


def _canonical(amount: Any) -> Any:
    if isinstance(amount, str | int | float):
        return _canonical_text(amount)
    return canonical_form(amount)


_REQUIREMENT_FIELDS = ("nodeClaim", "resourceRequest", "namespace", "priorityClassName")
_REFERENCE_FIELDS = ("apiVersion", "kind", "namespace", "name", "labelSelector")


def _requirements(value: Mapping[str, Any]) -> dict[str, Any]:
    """ReplicaRequirements as Karmada decodes them: known fields only, quantities canonical
    (Go parses `resourceRequest` into Quantities, so `1`, `"1"` and `"1000m"` are one value)."""
    requirements = {key: value[key] for key in _REQUIREMENT_FIELDS if key in value}
    request = requirements.get("resourceRequest")
    if isinstance(request, Mapping):
        requirements["resourceRequest"] = {name: _canonical(amount) for name, amount in request.items()}
    return requirements


def _reference_order(reference: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(reference.get(key, "")) for key in _REFERENCE_FIELDS)


def _component(value: Mapping[str, Any]) -> dict[str, Any]:
    component = {key: value[key] for key in ("name", "replicas") if key in value}
    requirements = value.get("replicaRequirements")
    if isinstance(requirements, Mapping):
        component["replicaRequirements"] = _requirements(requirements)
    return component


def _target(obj: Mapping[str, Any]) -> tuple[str, str]:
    return str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")


def _lua_type(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str | bytes):
        return "string"
    return "table"


class CustomizedInterpreter:
    """The customizations of a hub (or of a file), run in one sandbox."""

    def __init__(self, index: CustomizationIndex, sandbox: LuaSandbox | None = None) -> None:
        self.index = index
        self.sandbox = sandbox or LuaSandbox()

    def covers(self, obj: Mapping[str, Any], operation: Operation) -> bool:
        return self.index.script(*_target(obj), operation) is not None

    def _run(self, script: Script, args: Sequence[Any], nresults: int) -> list[Any]:
        try:
            return self.sandbox.call(script.source, script.operation.function, args, nresults, _keep)
        except LuaScriptError as error:
            raise CustomizationError(script, str(error)) from error

    def _script(self, obj: Mapping[str, Any], operation: Operation) -> Script | None:
        return self.index.script(*_target(obj), operation)

    def _table(self, script: Script, value: Any, what: str = "requires") -> Any:
        if _lua_type(value) != "table":
            raise CustomizationError(
                script, f"expect the returned {what} type is table but got {_lua_type(value)}"
            )
        try:
            return conversion.from_lua(value)
        except conversion.ConversionError as error:
            raise CustomizationError(script, f"encode lua result to json failed: {error}") from error

    def get_replicas(self, obj: Mapping[str, Any]) -> CustomizedReplicas | None:
        script = self._script(obj, Operation.INTERPRET_REPLICA)
        if script is None:
            return None
        replicas, requires = self._run(script, [obj], 2)
        if _lua_type(replicas) != "number":
            raise CustomizationError(script, f"result type {_lua_type(replicas)} is not number")
        requirements: dict[str, Any] | None = None
        if requires is not None:
            value = conversion.repair_empty(self._table(script, requires), [], expect_object=True)
            requirements = _requirements(value)
        return CustomizedReplicas(int(replicas), requirements)

    def revise_replica(self, obj: Mapping[str, Any], replicas: int) -> dict[str, Any] | None:
        script = self._script(obj, Operation.REVISE_REPLICA)
        if script is None:
            return None
        (result,) = self._run(script, [obj, replicas], 1)
        return self._object(script, result, [obj])

    def retain(self, desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any] | None:
        script = self._script(desired, Operation.RETAIN)
        if script is None:
            return None
        (result,) = self._run(script, [desired, observed], 1)
        return self._object(script, result, [desired, observed])

    def reflect_status(self, observed: Mapping[str, Any]) -> dict[str, Any] | None:
        script = self._script(observed, Operation.INTERPRET_STATUS)
        if script is None:
            return None
        (result,) = self._run(script, [observed], 1)
        status = conversion.repair_empty(self._table(script, result, "replica"), [], expect_object=True)
        if not isinstance(status, dict):
            raise CustomizationError(script, "expect the returned status to be an object")
        return status

    def aggregate_status(
        self, template: Mapping[str, Any], items: Sequence[Mapping[str, Any]] | None
    ) -> dict[str, Any] | None:
        """`items` None is passed as nil (a binding without aggregatedStatus), [] as an empty table."""
        script = self._script(template, Operation.AGGREGATE_STATUS)
        if script is None:
            return None
        status_items = None if items is None else [_status_item(item) for item in items]
        (result,) = self._run(script, [template, status_items], 1)
        return self._object(script, result, [])

    def interpret_health(self, observed: Mapping[str, Any]) -> bool | None:
        script = self._script(observed, Operation.INTERPRET_HEALTH)
        if script is None:
            return None
        (healthy,) = self._run(script, [observed], 1)
        if not isinstance(healthy, bool):
            raise CustomizationError(script, f"result type {_lua_type(healthy)} is not bool")
        return healthy

    def get_dependencies(self, obj: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        scripts = self.index.scripts(*_target(obj), Operation.INTERPRET_DEPENDENCY)
        if not scripts:
            return None
        found: dict[str, dict[str, Any]] = {}
        for script in scripts:
            (result,) = self._run(script, [obj], 1)
            references = self._table(script, result)
            if isinstance(references, dict):
                raise CustomizationError(script, "expect the returned dependencies to be an array")
            for reference in references:
                if isinstance(reference, dict):
                    kept = {key: reference[key] for key in _REFERENCE_FIELDS if reference.get(key)}
                    found[json.dumps(kept, sort_keys=True)] = kept
        # A set, in Karmada's order: apiVersion, kind, namespace, name.
        return sorted(
            found.values(), key=lambda ref: tuple(str(ref.get(key, "")) for key in _REFERENCE_FIELDS)
        )

    def get_components(self, obj: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        script = self._script(obj, Operation.INTERPRET_COMPONENT)
        if script is None:
            return None
        (result,) = self._run(script, [obj], 1)
        if result is None:
            return []
        components = self._table(script, result, "components")
        if isinstance(components, dict):
            raise CustomizationError(script, "expect the returned components to be an array")
        return [_component(component) for component in components if isinstance(component, dict)]

    def _object(self, script: Script, result: Any, references: list[Any]) -> dict[str, Any]:
        value = conversion.repair_empty(self._table(script, result), references, expect_object=True)
        if not isinstance(value, dict):
            raise CustomizationError(script, "expect the returned value to be an object")
        return value


def _keep(value: Any) -> Any:
    """Results stay Lua values until their operation checks their type."""
    return value


def _status_item(item: Mapping[str, Any]) -> dict[str, Any]:
    """An aggregatedStatus entry as Karmada marshals it: `applied` only when true, empty fields left out."""
    out: dict[str, Any] = {"clusterName": item.get("clusterName", "")}
    for key in ("status", "appliedMessage", "health"):
        if item.get(key):
            out[key] = item[key]
    if item.get("applied"):
        out["applied"] = True
    return out
