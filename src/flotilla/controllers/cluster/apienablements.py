"""Which APIs a member serves, as `Cluster.status.apiEnablements` lists them for the scheduler.

The scheduler's APIEnablement filter keeps a binding off clusters that do not serve its kind, so
the list must name every group version the member's discovery reports, each with its resources'
plural names and kinds. Subresources (`pods/status`, `deployments/scale`) are not resources of
their own and are left out. Group versions are sorted, and the resources in each by name, so the
list — and therefore the status — does not change while the member's APIs do not.

The input is the member's discovery as the client maps it: anything with a group, a version, a
kind and a plural resource name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from flotilla.api.karmada.cluster import APIEnablement, APIResource


class DiscoveredResource(Protocol):
    """One resource of the member's discovery (the client's `ResourceInfo` is one)."""

    @property
    def group(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def plural(self) -> str: ...


def group_version(group: str, version: str) -> str:
    """`apps/v1`, or `v1` for the core group."""
    return f"{group}/{version}" if group else version


def api_enablements(resources: Iterable[DiscoveredResource]) -> list[APIEnablement]:
    """The member's API enablements, sorted by group version, resources sorted by name."""
    by_group_version: dict[str, dict[str, str]] = {}
    for resource in resources:
        if not resource.plural or "/" in resource.plural or not resource.kind:
            continue
        listed = by_group_version.setdefault(group_version(resource.group, resource.version), {})
        listed.setdefault(resource.plural, resource.kind)
    return [
        APIEnablement(
            group_version=name,
            resources=[APIResource(name=plural, kind=kind) for plural, kind in sorted(listed.items())],
        )
        for name, listed in sorted(by_group_version.items())
    ]
