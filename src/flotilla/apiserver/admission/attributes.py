"""What admission is told about a write, and the interface the write pipeline calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from flotilla.apiserver.registry.resources import ServedResource

Operation = Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]


@dataclass(frozen=True, slots=True)
class UserInfo:
    username: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"username": self.username, "groups": list(self.groups)}
        if self.uid:
            body["uid"] = self.uid
        if self.extra:
            body["extra"] = self.extra
        return body


SYSTEM_USER = UserInfo("system:apiserver", ("system:masters", "system:authenticated"))


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
