"""Which resource serves a kind, and which resources a kubectl-style name means: the REST mapper.

Controllers handle arbitrary kinds (any template a user propagates), so paths are built from
discovery, not from a fixed table. The mapper reads `/api` and `/apis` in the aggregated v2 form
(one request each) and re-reads them when asked for a kind it does not know — a CRD created since.

The CLI's verbs take resource names as kubectl does, and the mapper resolves them the same way
(`resource_for`, `resources_for`): a plural, singular, lower-case kind or short name (`deploy`,
`pp`), optionally qualified by group (`deployments.apps`) or version and group
(`deployments.v1.apps`), or else a category (`all`, `karmada-io`) naming every resource that lists
it. A dotted name is read first as `resource.version.group`, then as `resource.group`. A plural,
singular or kind wins over a short name (kubectl does not expand a short name that is some
resource's full name); among equal matches the first in discovery order is taken — the core group
before the named groups, each group's preferred version before its others — so `events` is the
core resource and `deployments` the preferred version of `apps`. Names are matched in lower case.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flotilla.api.scheme import GroupResource, GroupVersion, GroupVersionKind

AGGREGATED_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)


class UnknownResourceType(LookupError):
    """No served resource answers to a kubectl-style name; the message is kubectl's."""

    def __init__(self, argument: str) -> None:
        self.argument = argument
        super().__init__(f'the server doesn\'t have a resource type "{argument}"')


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    singular: str = ""
    """Discovery's `singularResource`; empty when the server gave none (the kind in lower case then)."""
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()

    @property
    def gvk(self) -> GroupVersionKind:
        return GroupVersionKind(self.group, self.version, self.kind)

    @property
    def api_version(self) -> str:
        return GroupVersion(self.group, self.version).api_version

    @property
    def group_resource(self) -> GroupResource:
        return GroupResource(self.group, self.plural)

    @property
    def names(self) -> tuple[str, ...]:
        """The full names kubectl accepts for the resource: plural, singular, kind in lower case."""
        kind = self.kind.lower()
        return (self.plural, self.singular or kind, kind)

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


def legacy_versions(root: str, answer: Any) -> list[tuple[str, str]]:
    """The (group, version)s of a legacy `/api` (`APIVersions`) or `/apis` (`APIGroupList`) answer."""
    if root == "/api":
        return [("", version) for version in (answer or {}).get("versions", [])]
    return [
        (group["name"], version["version"])
        for group in (answer or {}).get("groups", [])
        for version in group.get("versions", [])
    ]


def legacy_document(listings: Sequence[tuple[str, str, Any]]) -> dict[str, Any]:
    """`APIResourceList`s, one per (group, version) in the server's order, as one aggregated document.

    For servers without aggregated discovery: subresources (`pods/status`) are folded into their
    parent's entry, and each group keeps its versions in the order given (the preferred one first,
    as servers list them).
    """
    grouped: dict[str, list[dict[str, Any]]] = {}
    for group, version, listing in listings:
        resources = []
        subresources: dict[str, list[dict[str, Any]]] = {}
        for entry in (listing or {}).get("resources", []):
            name = entry.get("name", "")
            if "/" in name:
                parent, sub = name.split("/", 1)
                subresources.setdefault(parent, []).append({"subresource": sub})
                continue
            resources.append(
                {
                    "resource": name,
                    "responseKind": {"group": group, "version": version, "kind": entry.get("kind", "")},
                    "scope": "Namespaced" if entry.get("namespaced") else "Cluster",
                    "verbs": entry.get("verbs", []),
                    "singularResource": entry.get("singularName", ""),
                    "shortNames": entry.get("shortNames") or [],
                    "categories": entry.get("categories") or [],
                }
            )
        for resource in resources:
            resource["subresources"] = subresources.get(resource["resource"], [])
        grouped.setdefault(group, []).append({"version": version, "resources": resources})
    return {
        "items": [{"metadata": {"name": group}, "versions": versions} for group, versions in grouped.items()]
    }


class RESTMapper:
    """GroupVersionKind → ResourceInfo, and kubectl-style names → ResourceInfos, from discovery."""

    def __init__(self) -> None:
        self._by_kind: dict[GroupVersionKind, ResourceInfo] = {}
        self._preferred: dict[tuple[str, str], str] = {}  # (group, kind) → preferred version
        self._resources: list[ResourceInfo] = []  # discovery order

    def load(self, documents: list[dict[str, Any]]) -> None:
        by_kind: dict[GroupVersionKind, ResourceInfo] = {}
        preferred: dict[tuple[str, str], str] = {}
        resources: list[ResourceInfo] = []
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
                            singular=resource.get("singularResource") or "",
                            short_names=tuple(resource.get("shortNames") or ()),
                            categories=tuple(resource.get("categories") or ()),
                        )
                        resources.append(info)
                        by_kind.setdefault(info.gvk, info)
                        if position == 0:
                            preferred.setdefault((group_name, kind), version_name)
        self._by_kind = by_kind
        self._preferred = preferred
        self._resources = resources

    def lookup(self, gvk: GroupVersionKind) -> ResourceInfo | None:
        return self._by_kind.get(gvk)

    def preferred_version(self, group: str, kind: str) -> str | None:
        return self._preferred.get((group, kind))

    def kinds(self) -> list[ResourceInfo]:
        return list(self._by_kind.values())

    def resource_for(self, argument: str) -> ResourceInfo:
        """The resource a kubectl-style name means (`deploy`, `deployments.v1.apps`); no categories."""
        found = _by_name(argument.strip().lower(), self._resources)
        if found is None:
            raise UnknownResourceType(argument)
        return found

    def resources_for(self, argument: str) -> list[ResourceInfo]:
        """The resources a kubectl type argument names: one by name, else every member of a category."""
        wanted = argument.strip().lower()
        found = _by_name(wanted, self._resources)
        if found is not None:
            return [found]
        members = _category(wanted, self._resources)
        if not members:
            raise UnknownResourceType(argument)
        return members


def _interpretations(argument: str) -> list[tuple[str, str | None, str | None]]:
    """(resource, version, group) readings of `argument`, the most specific first.

    `deployments.v1.apps` may be resource `deployments` of version `v1` in group `apps`, or of group
    `v1.apps`; `clusters.cluster.karmada.io` likewise. kubectl tries the versioned reading first.
    """
    name, dot, rest = argument.partition(".")
    if not dot:
        return [(argument, None, None)]
    readings: list[tuple[str, str | None, str | None]] = []
    version, dot, group = rest.partition(".")
    if dot:
        readings.append((name, version, group))
    readings.append((name, None, rest))
    return readings


def _by_name(argument: str, resources: Sequence[ResourceInfo]) -> ResourceInfo | None:
    for name, version, group in _interpretations(argument):
        if not name:
            continue
        candidates = [
            info
            for info in resources
            if info.plural
            and "/" not in info.plural
            and (group is None or info.group == group)
            and (version is None or info.version == version)
        ]
        for matches in (
            [info for info in candidates if name in info.names],
            [info for info in candidates if name in info.short_names],
        ):
            if matches:
                return matches[0]
    return None


def _category(category: str, resources: Sequence[ResourceInfo]) -> list[ResourceInfo]:
    """Every resource listing `category`, one version per resource (the first, i.e. preferred)."""
    seen: set[GroupResource] = set()
    members = []
    for info in resources:
        if category in info.categories and info.group_resource not in seen and "/" not in info.plural:
            seen.add(info.group_resource)
            members.append(info)
    return members
