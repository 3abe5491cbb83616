"""The scheme: which kinds exist, under which resource names, in which scope.

Kubernetes addresses everything twice: clients send and receive *kinds* (`apps/v1 Deployment`) and
call *resources* (`/apis/apps/v1/namespaces/x/deployments`). A `ResourceType` ties the two together
with the facts discovery publishes (scope, verbs, short names, categories, subresources). Built-in
types are listed in `flotilla.api.builtin`; custom resources get the same description from their
CRD, so every part of the server treats both alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
"""The verbs of an ordinary read-write resource, in the order discovery lists them."""


@dataclass(frozen=True, slots=True, order=True)
class GroupVersion:
    group: str
    version: str

    @property
    def api_version(self) -> str:
        """The `apiVersion` string of objects in this group version (`v1` for the core group)."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def path(self) -> str:
        """The URL prefix serving this group version."""
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    @staticmethod
    def parse(api_version: str) -> GroupVersion:
        group, _, version = api_version.rpartition("/")
        return GroupVersion(group, version)

    def __str__(self) -> str:
        return self.api_version


@dataclass(frozen=True, slots=True, order=True)
class GroupVersionKind:
    group: str
    version: str
    kind: str

    @property
    def group_version(self) -> GroupVersion:
        return GroupVersion(self.group, self.version)

    @property
    def api_version(self) -> str:
        return self.group_version.api_version

    @staticmethod
    def parse(api_version: str, kind: str) -> GroupVersionKind:
        """The kind `kind` of `apiVersion` `api_version` (`apps/v1`, or `v1` for the core group)."""
        group, _, version = api_version.rpartition("/")
        return GroupVersionKind(group, version, kind)

    @staticmethod
    def of(obj: Mapping[str, Any]) -> GroupVersionKind:
        """An object's own `apiVersion` and `kind` (empty parts when it lacks them)."""
        return GroupVersionKind.parse(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))

    def __str__(self) -> str:
        return f"{self.api_version}, Kind={self.kind}"


@dataclass(frozen=True, slots=True, order=True)
class GroupResource:
    group: str
    resource: str

    def __str__(self) -> str:
        """The qualified name Kubernetes uses in messages: `deployments.apps`, bare `pods` for core."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


@dataclass(frozen=True, slots=True)
class Subresource:
    name: str
    verbs: tuple[str, ...]
    kind: GroupVersionKind | None = None
    """The kind the subresource speaks when it differs from its parent (`scale` → autoscaling/v1 Scale)."""


@dataclass(frozen=True, slots=True)
class ResourceType:
    """One served resource of one group version, as discovery describes it."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    verbs: tuple[str, ...] = ALL_VERBS
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[Subresource, ...] = ()
    list_kind: str = ""
    storage_resource: GroupResource | None = None
    """Where objects are stored when another resource owns them (events.k8s.io shares core events)."""
    field_selectors: tuple[str, ...] = field(default=())
    """Field labels accepted by `fieldSelector` besides `metadata.name` and `metadata.namespace`."""

    @property
    def group_version(self) -> GroupVersion:
        return GroupVersion(self.group, self.version)

    @property
    def gvk(self) -> GroupVersionKind:
        return GroupVersionKind(self.group, self.version, self.kind)

    @property
    def group_resource(self) -> GroupResource:
        return GroupResource(self.group, self.plural)

    @property
    def api_version(self) -> str:
        return self.group_version.api_version

    @property
    def list_kind_name(self) -> str:
        return self.list_kind or f"{self.kind}List"

    def subresource(self, name: str) -> Subresource | None:
        for sub in self.subresources:
            if sub.name == name:
                return sub
        return None

    def has_subresource(self, name: str) -> bool:
        return self.subresource(name) is not None
