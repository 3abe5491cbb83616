"""Resource type arguments as kubectl reads them: `deploy`, `deployments.apps`, `deployment.v1.apps`.

A verb that takes `RESOURCE NAME` (promote, and any verb that names a type on the command line)
resolves the type against what the server serves, read from aggregated discovery (`/api` and
`/apis`, one request each), which also lists the singular names and short names kubectl accepts.
The argument is lower-cased and matched against plural, singular and short names; a dotted
argument is tried first as `resource.version.group`, then as `resource.group`. When several groups
serve a name, the first in discovery order wins (the core group before `events.k8s.io`), and within
a group its preferred version. A server without aggregated discovery is read through the client's
REST mapper, which knows plural names and kinds but no short names.

`printed_name` spells an object the way kubectl's name printer does: `deployment.apps/nginx`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.scheme import GroupResource, GroupVersionKind
from flotilla.client import Client
from flotilla.client.discovery import AGGREGATED_ACCEPT


class UnknownResourceType(LookupError):
    """No served resource answers to the argument; the message is kubectl's."""

    def __init__(self, argument: str) -> None:
        super().__init__(f'the server doesn\'t have a resource type "{argument}"')


@dataclass(frozen=True, slots=True)
class ServedResource:
    """One resource of one group version with every name kubectl accepts for it."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    short_names: tuple[str, ...]
    namespaced: bool
    preferred: bool
    """Whether this is the group's preferred version (the first one discovery lists)."""

    @property
    def gvk(self) -> GroupVersionKind:
        return GroupVersionKind(self.group, self.version, self.kind)

    @property
    def group_resource(self) -> GroupResource:
        return GroupResource(self.group, self.plural)


def served_resources(documents: Iterable[Mapping[str, Any]]) -> list[ServedResource]:
    """The resources of aggregated discovery documents (`APIGroupDiscoveryList`), in their order.

    Subresources are left out: they are not types one names on the command line.
    """
    found: list[ServedResource] = []
    for document in documents:
        for group in document.get("items") or []:
            group_name = str((group.get("metadata") or {}).get("name") or "")
            for position, version in enumerate(group.get("versions") or []):
                for resource in version.get("resources") or []:
                    kind = str((resource.get("responseKind") or {}).get("kind") or "")
                    plural = str(resource.get("resource") or "")
                    if not kind or not plural or "/" in plural:
                        continue
                    found.append(
                        ServedResource(
                            group=group_name,
                            version=str(version.get("version") or ""),
                            kind=kind,
                            plural=plural,
                            singular=str(resource.get("singularResource") or kind.lower()),
                            short_names=tuple(str(name) for name in resource.get("shortNames") or ()),
                            namespaced=resource.get("scope") == "Namespaced",
                            preferred=position == 0,
                        )
                    )
    return found


async def discover_served_resources(client: Client) -> list[ServedResource]:
    """What `client`'s server serves, from aggregated discovery (or the REST mapper without it)."""
    documents = []
    for root in ("/api", "/apis"):
        answer = await client.request("GET", root, accept=AGGREGATED_ACCEPT)
        if not isinstance(answer, dict) or answer.get("kind") != "APIGroupDiscoveryList":
            return await _from_mapper(client)
        documents.append(answer)
    return served_resources(documents)


async def _from_mapper(client: Client) -> list[ServedResource]:
    mapper = await client.discover(force=True)
    return [
        ServedResource(
            group=info.group,
            version=info.version,
            kind=info.kind,
            plural=info.plural,
            singular=info.kind.lower(),
            short_names=(),
            namespaced=info.namespaced,
            preferred=mapper.preferred_version(info.group, info.kind) == info.version,
        )
        for info in mapper.kinds()
        if "/" not in info.plural
    ]


def resolve_resource(argument: str, resources: list[ServedResource]) -> ServedResource:
    """The served resource a kubectl-style type argument names; UnknownResourceType if none."""
    wanted = argument.strip().lower()
    name, _, qualifier = wanted.partition(".")
    tests: list[Callable[[ServedResource], bool]] = []
    if qualifier:
        version, _, group = qualifier.partition(".")
        if group:
            tests.append(lambda served: served.version == version and served.group == group)
        tests.append(lambda served: served.group == qualifier)
    else:
        tests.append(_any_group)
    for in_scope in tests:
        for matches_name in (_long_name_matches, _short_name_matches):
            matches = [served for served in resources if in_scope(served) and matches_name(served, name)]
            if matches:
                return next((served for served in matches if served.preferred), matches[0])
    raise UnknownResourceType(argument)


def _any_group(served: ServedResource) -> bool:
    return True


def _long_name_matches(served: ServedResource, name: str) -> bool:
    return name in (served.plural, served.singular, served.kind.lower())


def _short_name_matches(served: ServedResource, name: str) -> bool:
    return name in served.short_names


def printed_name(kind: str, group: str, name: str) -> str:
    """`deployment.apps/nginx`, `configmap/settings`: kubectl's name printer for an object."""
    qualified = f"{kind.lower()}.{group}" if group else kind.lower()
    return f"{qualified}/{name}"


def printed_object_name(obj: Mapping[str, Any]) -> str:
    """`printed_name` of a manifest, from its apiVersion, kind and name."""
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    return printed_name(str(obj.get("kind") or ""), group, str((obj.get("metadata") or {}).get("name") or ""))
