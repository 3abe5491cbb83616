"""Which resource serves a kind: a REST mapper built from aggregated discovery.

Controllers handle arbitrary kinds (any template a user propagates), so paths are built from
discovery, not from a fixed table. The mapper reads `/api` and `/apis` in the aggregated v2 form
(one request each) and re-reads them when asked for a kind it does not know — a CRD created since.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flotilla.api.scheme import GroupVersionKind

AGGREGATED_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: tuple[str, ...]
    subresources: tuple[str, ...]

    @property
    def gvk(self) -> GroupVersionKind:
        return GroupVersionKind(self.group, self.version, self.kind)

    def path(self, namespace: str = "", name: str = "", subresource: str = "") -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        if name:
            base += f"/{name}"
            if subresource:
                base += f"/{subresource}"
        return base


class RESTMapper:
    """GroupVersionKind → ResourceInfo, from one aggregated discovery document per root."""

    def __init__(self) -> None:
        self._by_kind: dict[GroupVersionKind, ResourceInfo] = {}
        self._preferred: dict[tuple[str, str], str] = {}  # (group, kind) → preferred version

    def load(self, documents: list[dict[str, Any]]) -> None:
        by_kind: dict[GroupVersionKind, ResourceInfo] = {}
        preferred: dict[tuple[str, str], str] = {}
        for document in documents:
            for group in document.get("items") or []:
                group_name = (group.get("metadata") or {}).get("name", "")
                for position, version in enumerate(group.get("versions") or []):
                    version_name = version.get("version", "")
                    for resource in version.get("resources") or []:
                        kind = (resource.get("responseKind") or {}).get("kind", "")
                        if not kind:
                            continue
                        info = ResourceInfo(
                            group=group_name,
                            version=version_name,
                            kind=kind,
                            plural=resource.get("resource", ""),
                            namespaced=resource.get("scope") == "Namespaced",
                            verbs=tuple(resource.get("verbs") or ()),
                            subresources=tuple(
                                s.get("subresource", "") for s in resource.get("subresources") or []
                            ),
                        )
                        by_kind.setdefault(info.gvk, info)
                        if position == 0:
                            preferred.setdefault((group_name, kind), version_name)
        self._by_kind = by_kind
        self._preferred = preferred

    def lookup(self, gvk: GroupVersionKind) -> ResourceInfo | None:
        return self._by_kind.get(gvk)

    def preferred_version(self, group: str, kind: str) -> str | None:
        return self._preferred.get((group, kind))

    def kinds(self) -> list[ResourceInfo]:
        return list(self._by_kind.values())
