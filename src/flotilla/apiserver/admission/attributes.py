"""What admission is told about a write, and the interface the write pipeline calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.users import UserInfo

Operation = Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]


@dataclass(frozen=True, slots=True)
class AdmissionAttributes:
    operation: Operation
    resource: ServedResource
    subresource: str
    namespace: str
    name: str
    user: UserInfo
    dry_run: bool
    options: dict[str, Any] = field(default_factory=dict)
    """The CreateOptions / UpdateOptions / DeleteOptions of the request, as kube sends them."""


class Admission(Protocol):
    async def mutate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> list[str]:
        """Change `obj` in place as mutating admission decides; returns warnings for the client."""

    async def validate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> list[str]:
        """Raise an APIError to refuse the write; returns warnings for the client."""


class NoAdmission:
    """Admission that admits everything unchanged."""

    async def mutate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any], old: dict[str, Any] | None
    ) -> list[str]:
        return []

    async def validate(
        self, attributes: AdmissionAttributes, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> list[str]:
        return []
