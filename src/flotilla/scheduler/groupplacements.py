"""Where the ResourceBindings of each workload (anti-)affinity group are placed, as the scheduler knows it.

The WorkloadAffinity and WorkloadAntiAffinity filters judge a binding by where its peers are
(`core.workloadgroups`). The scheduler controller learns that from two sources, as Karmada's does:

- the informer's copy of every grouped ResourceBinding, indexed here by group as events arrive, so a
  round finds its peers without walking every binding of the hub;
- the results the scheduler decided itself that the informer has not shown yet (Karmada's cache of
  "assigning" bindings). Rounds run concurrently and the informer lags the scheduler's own writes:
  without these, two bindings of one anti-affinity group scheduled a moment apart would each see
  the other nowhere and could land together. A decision is *assumed* as soon as it is made, before
  its write is sent — the core runs without an `await` between reading the peers and deciding, so a
  round that starts while a write is in flight sees that write's result — *confirmed* with the
  resourceVersion the write returned, and dropped once the informer shows that version or a later
  one; one never written (the write failed, or the result was already there) is dropped when the
round ends.

`observe` also says which peers of a changed binding may now fit elsewhere: when a grouped binding
is placed differently, changes group or goes away, the other bindings of its old and new groups
are returned, for the controller to queue those still waiting for a result (a workload kept out by
anti-affinity gets the cluster a deleted peer leaves).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.objectkeys import ObjectKey
from flotilla.scheduler.core.workloadgroups import GroupMember, WorkloadGroups

_AFFINITY = "affinity"
_ANTI_AFFINITY = "anti-affinity"
GroupKey = tuple[str, str, str]
"""(namespace, affinity or anti-affinity, group string)."""


@dataclass(frozen=True, slots=True)
class _Assumed:
    member: GroupMember
    resource_version: int | None = None
    """The version the write returned; None while the write is in flight."""


class GroupPlacements:
    """The grouped ResourceBindings by group, with this scheduler's decisions not yet seen."""

    def __init__(self) -> None:
        self._members: dict[ObjectKey, GroupMember] = {}
        self._versions: dict[ObjectKey, int | None] = {}
        self._by_group: dict[GroupKey, set[ObjectKey]] = {}
        self._assumed: dict[ObjectKey, _Assumed] = {}

    def observe(self, new: Mapping[str, Any] | None, old: Mapping[str, Any] | None) -> set[ObjectKey]:
        """Take in an informer event of a ResourceBinding; return the peers to look at again."""
        current = new if new is not None else old
        if current is None:
            return set()
        key = ObjectKey.of(current)
        before = self._members.get(key)
        self._remove(key)
        after = GroupMember.of_binding(new) if new is not None else None
        if after is not None:
            self._add(key, after, _version(new))
        self._settle_assumption(key, new)
        if before == after:
            return set()
        affected: set[ObjectKey] = set()
        for member in (before, after):
            if member is not None:
                affected |= self._keys_of(member)
        affected.discard(key)
        return affected

    def members(self, namespace: str, groups: WorkloadGroups) -> list[GroupMember]:
        """Every binding of `namespace` in one of `groups`, as last decided or seen (the newer)."""
        wanted = _group_keys(namespace, groups)
        keys: set[ObjectKey] = set()
        for group_key in wanted:
            keys |= self._by_group.get(group_key, set())
        keys |= {
            key
            for key, assumed in self._assumed.items()
            if not wanted.isdisjoint(_group_keys_of(assumed.member))
        }
        return [member for member in map(self._current, sorted(keys)) if member is not None]

    def assume(self, key: ObjectKey, member: GroupMember) -> None:
        """A result was decided for `key` and is about to be written."""
        self._assumed[key] = _Assumed(member)

    def confirm(self, key: ObjectKey, resource_version: str) -> None:
        """The assumed result of `key` was written at `resource_version`."""
        assumed = self._assumed.get(key)
        if assumed is None:
            return
        version = _parse_version(resource_version)
        if version is None or _not_older(self._versions.get(key), version):
            del self._assumed[key]  # the informer has it already (or it cannot be compared)
            return
        self._assumed[key] = _Assumed(assumed.member, version)

    def forget_unwritten(self, key: ObjectKey) -> None:
        """Drop the assumed result of `key` unless it was written: the informer's copy stands."""
        assumed = self._assumed.get(key)
        if assumed is not None and assumed.resource_version is None:
            del self._assumed[key]

    # -- the index -----------------------------------------------------------------------------------

    def _current(self, key: ObjectKey) -> GroupMember | None:
        assumed = self._assumed.get(key)
        return assumed.member if assumed is not None else self._members.get(key)

    def _settle_assumption(self, key: ObjectKey, new: Mapping[str, Any] | None) -> None:
        assumed = self._assumed.get(key)
        if assumed is None or assumed.resource_version is None:
            return
        if new is None or _not_older(_version(new), assumed.resource_version):
            del self._assumed[key]

    def _add(self, key: ObjectKey, member: GroupMember, version: int | None) -> None:
        self._members[key] = member
        self._versions[key] = version
        for group_key in _group_keys_of(member):
            self._by_group.setdefault(group_key, set()).add(key)

    def _remove(self, key: ObjectKey) -> None:
        member = self._members.pop(key, None)
        self._versions.pop(key, None)
        if member is None:
            return
        for group_key in _group_keys_of(member):
            keys = self._by_group.get(group_key)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_group[group_key]

    def _keys_of(self, member: GroupMember) -> set[ObjectKey]:
        keys: set[ObjectKey] = set()
        for group_key in _group_keys_of(member):
            keys |= self._by_group.get(group_key, set())
        return keys


def _group_keys_of(member: GroupMember) -> set[GroupKey]:
    return _group_keys(member.namespace, member.groups)


def _group_keys(namespace: str, groups: WorkloadGroups) -> set[GroupKey]:
    keys: Iterable[GroupKey] = (
        (namespace, _AFFINITY, groups.affinity_group),
        (namespace, _ANTI_AFFINITY, groups.anti_affinity_group),
    )
    return {key for key in keys if key[2]}


def _version(obj: Mapping[str, Any] | None) -> int | None:
    return _parse_version(str(((obj or {}).get("metadata") or {}).get("resourceVersion") or ""))


def _parse_version(text: str) -> int | None:
    """A resourceVersion as a number (the hub's are revisions); None when it is not one."""
    return int(text) if text.isdigit() else None


def _not_older(seen: int | None, written: int) -> bool:
    """Whether the informer's version `seen` already includes the write at `written`."""
    return seen is not None and seen >= written
