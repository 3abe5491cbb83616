"""kubectl's resource arguments: `TYPE[,TYPE…] [NAME…]`, `TYPE/NAME`, `deployment.apps/nginx`.

`get` and `describe` take kubectl's argument forms (`parse_arguments`). Each TYPE is resolved per
cluster, against that cluster's own discovery — a CRD may exist on a member and not on the hub — by
the client's REST mapper (`RESTMapper.resources_for` in `flotilla.client.discovery`: short names,
singulars, kinds, `.group`, `.version.group`, categories), which `apply` and `promote` use too.
`resource_path` is where the objects asked for are on a server; how kubectl prints their names is
`output/names.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from flotilla.client.discovery import ResourceInfo


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


def resource_path(resource: ResourceInfo, namespace: str = "", name: str = "") -> str:
    """The URL path of the collection (or of one object) of `resource` in `namespace`."""
    return resource.path(quote(namespace, safe=""), quote(name, safe=""))
