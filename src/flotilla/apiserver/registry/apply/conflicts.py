"""Apply conflicts: the 409 an apply gets when it would change fields other managers own.

The message and causes are kube's, because kubectl prints the message as it is and users search for
it. With one conflict:

    Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas

With several, grouped by manager (managers sorted by kube's identifier text, paths in field order):

    Apply failed with 2 conflicts: conflicts with "helm" using apps/v1:
    - .spec.replicas
    - .spec.template.spec.containers[name="nginx"].image

Each conflict is also a Status cause `{reason: FieldManagerConflict, message: "conflict with
\"helm\" using apps/v1", field: ".spec.replicas"}`. An `Apply` manager is named without the
"using <apiVersion>" part, as kube names it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from flotilla.apiserver.registry.apply.fieldpath import Path, describe_path
from flotilla.apiserver.registry.apply.managedfields import ManagerKey

FIELD_MANAGER_CONFLICT: Final = "FieldManagerConflict"


@dataclass(frozen=True, slots=True)
class Conflict:
    manager: ManagerKey
    api_version: str
    """The apiVersion of the conflicting manager's entry."""
    path: Path

    @property
    def field(self) -> str:
        """The field as kube prints it: `.spec.replicas`."""
        return describe_path(self.path)

    @property
    def manager_description(self) -> str:
        return self.manager.describe(self.api_version)


class ApplyConflict(Exception):  # named after kube's ApplyConflict status
    """An apply that would take fields from other managers; the API server answers 409 Conflict."""

    def __init__(self, conflicts: Iterable[Conflict]) -> None:
        self.conflicts: tuple[Conflict, ...] = tuple(conflicts)
        self.message = _message(self.conflicts)
        super().__init__(self.message)

    def causes(self) -> list[dict[str, str]]:
        """The Status `details.causes`, one per conflicting field."""
        return [
            {
                "reason": FIELD_MANAGER_CONFLICT,
                "message": f"conflict with {conflict.manager_description}",
                "field": conflict.field,
            }
            for conflict in self.conflicts
        ]


def _message(conflicts: tuple[Conflict, ...]) -> str:
    if len(conflicts) == 1:
        only = conflicts[0]
        return f"Apply failed with 1 conflict: conflict with {only.manager_description}: {only.field}"
    lines: list[str] = []
    by_manager: dict[ManagerKey, list[Conflict]] = {}
    for conflict in conflicts:
        by_manager.setdefault(conflict.manager, []).append(conflict)
    for manager in sorted(by_manager, key=ManagerKey.identifier):
        group = by_manager[manager]
        lines.append(f"conflicts with {group[0].manager_description}:")
        lines.extend(f"- {conflict.field}" for conflict in group)
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
