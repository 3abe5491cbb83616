"""ResourceInterpreterCustomizations as the interpreter reads them: which script answers which question.

A customization targets one `apiVersion` and `kind` and holds up to eight scripts, one per
interpreter operation (`spec.customizations.<field>.luaScript`). Several customizations may target
the same kind: Karmada merges them in name order, the first non-empty script of an operation winning,
except dependency interpretation whose scripts all run and whose results are joined
(`configmanager`). Its webhook refuses a second customization with a script for the same target and
operation (`conflicts`), so the merge order only matters for objects written around the webhook.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


class Operation(enum.StrEnum):
    """Karmada's interpreter operations, by the names `karmadactl interpret --operation` takes."""

    RETAIN = "Retain"
    INTERPRET_REPLICA = "InterpretReplica"
    INTERPRET_COMPONENT = "InterpretComponent"
    REVISE_REPLICA = "ReviseReplica"
    INTERPRET_STATUS = "InterpretStatus"
    AGGREGATE_STATUS = "AggregateStatus"
    INTERPRET_HEALTH = "InterpretHealth"
    INTERPRET_DEPENDENCY = "InterpretDependency"

    @property
    def field(self) -> str:
        """The field of `spec.customizations` holding this operation's script."""
        return _FIELDS[self]

    @property
    def function(self) -> str:
        """The global function the script defines for this operation."""
        return _FUNCTIONS[self]

    @classmethod
    def parse(cls, name: str) -> Operation:
        """An operation by name, case ignored (as karmadactl matches it)."""
        for operation in cls:
            if operation.value.lower() == name.lower():
                return operation
        raise ValueError(f"operation {name} is not supported. Use one of: {', '.join(cls)}")


_FIELDS = {
    Operation.RETAIN: "retention",
    Operation.INTERPRET_REPLICA: "replicaResource",
    Operation.INTERPRET_COMPONENT: "componentResource",
    Operation.REVISE_REPLICA: "replicaRevision",
    Operation.INTERPRET_STATUS: "statusReflection",
    Operation.AGGREGATE_STATUS: "statusAggregation",
    Operation.INTERPRET_HEALTH: "healthInterpretation",
    Operation.INTERPRET_DEPENDENCY: "dependencyInterpretation",
}
_FUNCTIONS = {
    Operation.RETAIN: "Retain",
    Operation.INTERPRET_REPLICA: "GetReplicas",
    Operation.INTERPRET_COMPONENT: "GetComponents",
    Operation.REVISE_REPLICA: "ReviseReplica",
    Operation.INTERPRET_STATUS: "ReflectStatus",
    Operation.AGGREGATE_STATUS: "AggregateStatus",
    Operation.INTERPRET_HEALTH: "InterpretHealth",
    Operation.INTERPRET_DEPENDENCY: "GetDependencies",
}


@dataclass(frozen=True, slots=True)
class Customization:
    """One ResourceInterpreterCustomization: its name, target and scripts by operation."""

    name: str
    api_version: str
    kind: str
    scripts: Mapping[Operation, str] = field(default_factory=dict)


def parse_customization(obj: Mapping[str, Any]) -> Customization:
    """A customization from its JSON object (fields the schema requires read as empty when absent)."""
    metadata = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    target = spec.get("target") or {}
    rules = spec.get("customizations") or {}
    scripts: dict[Operation, str] = {}
    for operation in Operation:
        rule = rules.get(operation.field)
        script = rule.get("luaScript") if isinstance(rule, Mapping) else None
        if isinstance(script, str) and script:
            scripts[operation] = script
    return Customization(
        name=str(metadata.get("name") or ""),
        api_version=str(target.get("apiVersion") or ""),
        kind=str(target.get("kind") or ""),
        scripts=scripts,
    )


@dataclass(frozen=True, slots=True)
class Script:
    """A script chosen for an operation, with the customization it came from (for error messages)."""

    customization: str
    operation: Operation
    source: str


def conflicts(new: Customization, existing: Iterable[Customization]) -> list[tuple[Operation, str]]:
    """The operations `new` scripts that another customization of the same target also scripts, with
    that customization's name (dependency interpretation may have several, as in Karmada)."""
    found: list[tuple[Operation, str]] = []
    for other in existing:
        if other.name == new.name or (other.api_version, other.kind) != (new.api_version, new.kind):
            continue
        for operation in new.scripts:
            if operation is not Operation.INTERPRET_DEPENDENCY and operation in other.scripts:
                found.append((operation, other.name))
    return found


class CustomizationIndex:
    """The scripts for each target and operation, merged in name order as Karmada merges them."""

    def __init__(self, customizations: Iterable[Customization] = ()) -> None:
        self._scripts: dict[tuple[str, str, Operation], list[Script]] = {}
        for customization in sorted(customizations, key=lambda item: item.name):
            target = (customization.api_version, customization.kind)
            for operation, source in customization.scripts.items():
                scripts = self._scripts.setdefault((*target, operation), [])
                if operation is Operation.INTERPRET_DEPENDENCY or not scripts:
                    scripts.append(Script(customization.name, operation, source))

    @classmethod
    def from_objects(cls, objects: Iterable[Mapping[str, Any]]) -> CustomizationIndex:
        return cls(parse_customization(obj) for obj in objects)

    def scripts(self, api_version: str, kind: str, operation: Operation) -> list[Script]:
        """Every script for the operation on the kind (several only for InterpretDependency)."""
        return self._scripts.get((api_version, kind, operation), [])

    def script(self, api_version: str, kind: str, operation: Operation) -> Script | None:
        found = self.scripts(api_version, kind, operation)
        return found[0] if found else None

    def __bool__(self) -> bool:
        return bool(self._scripts)
