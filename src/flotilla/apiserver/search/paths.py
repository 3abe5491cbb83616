"""The Kubernetes path below `search/cache`: a resource request, or discovery for kubectl.

`/apis/search.karmada.io/v1alpha1/search/cache/api/v1/namespaces/default/pods` asks for the cached
pods of namespace default, as `/api/v1/namespaces/default/pods` would ask a cluster; a name after the
resource asks for that object in every cluster (Karmada's answer is a list: one per cluster holding
it). Karmada's parser (`pkg/registry/search/storage/requestinfo.go`) takes at most a resource and a
name, and so does this one. Shorter paths (`/api`, `/apis`, `/api/v1`, `/apis/apps/v1`) are
discovery, which kubectl reads first when its `--server` points below `search/cache`.
"""

from __future__ import annotations

from dataclasses import dataclass

from flotilla.apiserver import errors


@dataclass(frozen=True, slots=True)
class ResourcePath:
    group: str
    version: str
    namespace: str
    resource: str
    name: str


@dataclass(frozen=True, slots=True)
class DiscoveryPath:
    """`/api`, `/apis`, `/api/<version>`, `/apis/<group>` or `/apis/<group>/<version>`."""

    root: str
    group: str = ""
    version: str = ""


def parse_native_path(path: str) -> ResourcePath | DiscoveryPath:
    """What a path below `search/cache` asks for; 404 for one that is neither (a subresource, `/x`)."""
    parts = [part for part in path.split("/") if part]
    if not parts or parts[0] not in ("api", "apis"):
        raise errors.path_not_found()
    root, rest = parts[0], parts[1:]
    if root == "api":
        if len(rest) <= 1:
            return DiscoveryPath(root, "", rest[0] if rest else "")
        group, version, rest = "", rest[0], rest[1:]
    else:
        if len(rest) <= 2:
            return DiscoveryPath(root, *rest)
        group, version, rest = rest[0], rest[1], rest[2:]
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 2:
        namespace, rest = rest[1], rest[2:]
    if len(rest) > 2:
        raise errors.NotFound(
            f"the search API serves lists, watches and gets of objects, not {'/'.join(rest[2:])} (in {path})"
        )
    return ResourcePath(group, version, namespace, rest[0], rest[1] if len(rest) > 1 else "")
