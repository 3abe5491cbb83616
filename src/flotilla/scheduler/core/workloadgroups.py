"""Workload affinity groups: the other ResourceBindings a binding must share clusters with, or avoid.

A PropagationPolicy's `placement.workloadAffinity` names a label key for `affinity` and one for
`antiAffinity`; the detector turns the template's values of those labels into the binding's
`spec.workloadAffinityGroups` (`affinityGroup`, `antiAffinityGroup`, each `<labelKey>=<labelValue>`).
Bindings of one namespace with the same group string are peers. The scheduler's WorkloadAffinity
and WorkloadAntiAffinity filters judge a cluster by where the peers are placed (`spec.clusters`),
as Karmada's do (v1.17, alpha):

- affinity: a cluster must be in the result of every peer that has one — so the first workload of
  a group placed decides where the others go, and a group nobody has placed yet blocks nothing;
- anti-affinity: a cluster must be in the result of no peer.

Only ResourceBindings are grouped: workloads are namespaced, and Karmada neither sets nor reads the
field on a ClusterResourceBinding. A binding is never its own peer.

The core keeps no index of bindings: whoever schedules (the controller's `GroupPlacements`, or
`flotilla plan`) finds the peers and hands them in with the binding
(`BindingInfo.with_group_peers`), so the filters stay functions of their inputs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.scheduler.core.wirefields import mapping_of, mappings_of, text_of

RESOURCE_BINDING_KIND = "ResourceBinding"


@dataclass(frozen=True, slots=True)
class PeerPlacement:
    """Another ResourceBinding of the same group, and the clusters its result names."""

    name: str
    clusters: frozenset[str]


@dataclass(frozen=True, slots=True)
class WorkloadGroups:
    """A binding's `spec.workloadAffinityGroups`, with the placements of its peers once found."""

    affinity_group: str = ""
    anti_affinity_group: str = ""
    affinity_peers: tuple[PeerPlacement, ...] = ()
    """Peers of the affinity group that are placed somewhere."""
    anti_affinity_peers: tuple[PeerPlacement, ...] = ()
    """Peers of the anti-affinity group that are placed somewhere."""

    @property
    def grouped(self) -> bool:
        return bool(self.affinity_group or self.anti_affinity_group)

    @classmethod
    def of_binding(cls, binding: Mapping[str, Any]) -> WorkloadGroups:
        """The groups of a ResourceBinding wire object (none for any other kind)."""
        if binding.get("kind") not in (None, RESOURCE_BINDING_KIND):
            return cls()
        groups = mapping_of(mapping_of(binding.get("spec")).get("workloadAffinityGroups"))
        return cls(text_of(groups.get("affinityGroup")), text_of(groups.get("antiAffinityGroup")))

    def apart_from(self, cluster_name: str) -> tuple[PeerPlacement, ...]:
        """Affinity peers whose result leaves `cluster_name` out."""
        return tuple(peer for peer in self.affinity_peers if cluster_name not in peer.clusters)

    def alongside(self, cluster_name: str) -> tuple[PeerPlacement, ...]:
        """Anti-affinity peers whose result includes `cluster_name`."""
        return tuple(peer for peer in self.anti_affinity_peers if cluster_name in peer.clusters)

    def with_peers(self, namespace: str, name: str, members: Iterable[GroupMember]) -> WorkloadGroups:
        """These groups with the placed peers among `members` (binding `namespace/name` is not one)."""
        affinity: list[PeerPlacement] = []
        anti_affinity: list[PeerPlacement] = []
        for member in members:
            if member.namespace != namespace or member.name == name or not member.clusters:
                continue
            peer = PeerPlacement(member.name, member.clusters)
            if self.affinity_group and member.groups.affinity_group == self.affinity_group:
                affinity.append(peer)
            if self.anti_affinity_group and member.groups.anti_affinity_group == self.anti_affinity_group:
                anti_affinity.append(peer)
        return WorkloadGroups(
            self.affinity_group,
            self.anti_affinity_group,
            tuple(sorted(affinity, key=_by_name)),
            tuple(sorted(anti_affinity, key=_by_name)),
        )


@dataclass(frozen=True, slots=True)
class GroupMember:
    """A grouped ResourceBinding as its peers see it: where it is, its groups, where it is placed."""

    namespace: str
    name: str
    groups: WorkloadGroups
    clusters: frozenset[str]

    @classmethod
    def of_binding(cls, binding: Mapping[str, Any]) -> GroupMember | None:
        """The member a ResourceBinding wire object makes; None when it is in no group."""
        groups = WorkloadGroups.of_binding(binding)
        if not groups.grouped:
            return None
        metadata = mapping_of(binding.get("metadata"))
        clusters = mappings_of(mapping_of(binding.get("spec")).get("clusters"))
        return cls(
            text_of(metadata.get("namespace")),
            text_of(metadata.get("name")),
            groups,
            frozenset(text_of(item.get("name")) for item in clusters),
        )


def _by_name(peer: PeerPlacement) -> str:
    return peer.name
