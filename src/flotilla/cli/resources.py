"""Which resources a kubectl-style type argument names: `deploy`, `deployments.apps`, `pp`, `all`.

kubectl resolves the first argument of `get`/`describe` against the server's discovery: a short
name (`deploy`, `pp`), a plural (`deployments`), a singular or a kind (`deployment`, `Deployment`),
each optionally qualified by its group (`deployments.apps`) or version and group
(`deployments.v1.apps`), or else a category (`all`, `karmada-io`) that expands to every resource
listing it. Resolution is done per cluster, against that cluster's own discovery: a CRD may exist
on a member and not on the hub.

Discovery is read in the aggregated form (`/api` and `/apis`, one request each), whose entries
carry short names and categories; a server without it is read group version by group version.
The matching itself is pure: `resource_types(documents)` and `resolve(argument, types)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from flotilla.api.scheme import ResourceType
from flotilla.client import Client
from flotilla.client.discovery import AGGREGATED_ACCEPT


class ResourceTypeNotFound(LookupError):
    """No resource of the server matches the argument."""

    def __init__(self, argument: str) -> None:
        self.argument = argument
        super().__init__(f'the server doesn\'t have a resource type "{argument}"')


@dataclass(frozen=True, slots=True)
class ResourceRequest:
    """One type argument of a verb and the object names asked for (none: every object)."""

    type_argument: str
    names: tuple[str, ...] = ()


class ArgumentError(ValueError):
    """The arguments cannot be read as `TYPE[,TYPE…] [NAME…]` or `TYPE/NAME…`."""


def parse_arguments(arguments: Sequence[str]) -> list[ResourceRequest]:
    """kubectl's argument forms: `TYPE[,TYPE…] [NAME…]` or `TYPE/NAME [TYPE/NAME…]`."""
    if not arguments:
        return []
    if any("/" in argument for argument in arguments):
        requests: list[ResourceRequest] = []
        for argument in arguments:
            type_argument, slash, name = argument.partition("/")
            if not slash:
                raise ArgumentError(
                    "there is no need to specify a resource type as a separate argument when passing "
                    "arguments in resource/name form (e.g. 'get resource/<resource_name>' instead of "
                    "'get resource resource/<resource_name>')"
                )
            if not type_argument or not name:
                raise ArgumentError(
                    f"arguments in resource/name form must have a single resource and name: {argument!r}"
                )
            requests.append(ResourceRequest(type_argument, (name,)))
        return requests
    type_arguments = [part for part in arguments[0].split(",") if part]
    if not type_arguments:
        raise ArgumentError(f"no resource type in {arguments[0]!r}")
    return [ResourceRequest(type_argument, tuple(arguments[1:])) for type_argument in type_arguments]


# --- discovery ------------------------------------------------------------------------------------


def resource_types(documents: Sequence[dict[str, Any]]) -> list[ResourceType]:
    """Every top-level resource of aggregated discovery documents, preferred versions first.

    The order is the server's: the core group (from `/api`) before the named groups, each group's
    preferred version before its others. Resolution takes the first match, so `events` is the core
    resource and `deployments` the preferred version of `apps`.
    """
    found: list[ResourceType] = []
    for document in documents:
        for group in document.get("items") or []:
            group_name = str((group.get("metadata") or {}).get("name") or "")
            for version in group.get("versions") or []:
                version_name = str(version.get("version") or "")
                for resource in version.get("resources") or []:
                    kind = str((resource.get("responseKind") or {}).get("kind") or "")
                    plural = str(resource.get("resource") or "")
                    if not kind or not plural or "/" in plural:
                        continue
                    found.append(
                        ResourceType(
                            group=group_name,
                            version=version_name,
                            kind=kind,
                            plural=plural,
                            singular=str(resource.get("singularResource") or kind.lower()),
                            namespaced=resource.get("scope") == "Namespaced",
                            verbs=tuple(resource.get("verbs") or ()),
                            short_names=tuple(resource.get("shortNames") or ()),
                            categories=tuple(resource.get("categories") or ()),
                        )
                    )
    return found


def legacy_group_document(group: str, version: str, listing: dict[str, Any]) -> dict[str, Any]:
    """A legacy `APIResourceList` reshaped as one group of an aggregated discovery document."""
    resources = []
    for entry in listing.get("resources") or []:
        name = str(entry.get("name") or "")
        if not name or "/" in name:
            continue
        resources.append(
            {
                "resource": name,
                "responseKind": {"group": group, "version": version, "kind": entry.get("kind", "")},
                "scope": "Namespaced" if entry.get("namespaced") else "Cluster",
                "singularResource": entry.get("singularName") or "",
                "verbs": entry.get("verbs") or [],
                "shortNames": entry.get("shortNames") or [],
                "categories": entry.get("categories") or [],
            }
        )
    return {"metadata": {"name": group}, "versions": [{"version": version, "resources": resources}]}


async def discover(client: Client) -> list[ResourceType]:
    """The resources `client`'s server serves, read from its discovery endpoints."""
    documents: list[dict[str, Any]] = []
    for root in ("/api", "/apis"):
        answer = await client.request("GET", root, accept=AGGREGATED_ACCEPT)
        if isinstance(answer, dict) and answer.get("kind") == "APIGroupDiscoveryList":
            documents.append(answer)
        elif isinstance(answer, dict):
            documents.append(await _legacy_document(client, root, answer))
    return resource_types(documents)


async def _legacy_document(client: Client, root: str, answer: dict[str, Any]) -> dict[str, Any]:
    """Servers without aggregated discovery: each group's preferred version, read on its own."""
    if root == "/api":
        group_versions = [("", str(version)) for version in answer.get("versions") or []]
    else:
        group_versions = []
        for group in answer.get("groups") or []:
            preferred = (group.get("preferredVersion") or {}).get("version")
            versions = [v.get("version") for v in group.get("versions") or []]
            version = preferred or (versions[0] if versions else None)
            if version:
                group_versions.append((str(group.get("name") or ""), str(version)))
    items = []
    for group, version in group_versions:
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        listing = await client.request("GET", path)
        if isinstance(listing, dict):
            items.append(legacy_group_document(group, version, listing))
    return {"items": items}


# --- resolution -----------------------------------------------------------------------------------


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


def _names_of(resource: ResourceType) -> tuple[str, ...]:
    return (resource.plural, resource.singular, resource.kind.lower())


def resolve(argument: str, available: Sequence[ResourceType]) -> list[ResourceType]:
    """The resources `argument` names (several for a category); ResourceTypeNotFound if none.

    A short name wins over the other names, as kubectl expands short names before it maps
    resources; among equal matches the first in discovery order is taken.
    """
    for name, version, group in _interpretations(argument):
        lowered = name.lower()
        candidates = [
            resource
            for resource in available
            if (group is None or resource.group == group) and (version is None or resource.version == version)
        ]
        by_short_name = [resource for resource in candidates if lowered in resource.short_names]
        by_name = [resource for resource in candidates if lowered in _names_of(resource)]
        for matches in (by_short_name, by_name):
            if matches:
                return [matches[0]]
    members = _category(argument.lower(), available)
    if not members:
        raise ResourceTypeNotFound(argument)
    return members


def _category(category: str, available: Sequence[ResourceType]) -> list[ResourceType]:
    """Every resource listing `category`, one version per resource (the first, i.e. preferred)."""
    seen: set[tuple[str, str]] = set()
    members = []
    for resource in available:
        key = (resource.group, resource.plural)
        if category in resource.categories and key not in seen:
            seen.add(key)
            members.append(resource)
    return members


# --- naming ---------------------------------------------------------------------------------------


def resource_path(resource: ResourceType, namespace: str = "", name: str = "") -> str:
    """The URL path of the collection (or of one object) of `resource` in `namespace`."""
    path = resource.group_version.path
    if resource.namespaced and namespace:
        path += f"/namespaces/{quote(namespace, safe='')}"
    path += f"/{resource.plural}"
    if name:
        path += f"/{quote(name, safe='')}"
    return path


def qualified_kind(resource: ResourceType) -> str:
    """The lower-case `kind.group` kubectl prefixes names with: `deployment.apps`, bare `pod`."""
    kind = resource.kind.lower()
    return f"{kind}.{resource.group}" if resource.group else kind


def resource_key(resource: ResourceType) -> tuple[str, str]:
    """What makes two resources (of different clusters or versions) the same: group and plural."""
    return (resource.group, resource.plural)
