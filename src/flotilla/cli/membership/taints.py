"""Cluster taints as `kubectl taint` and `karmadactl cordon` change them: parsing and the new list.

A taint argument is `key=value:Effect` or `key:Effect` to add, `key:Effect-` or `key-` to remove
(every effect of that key). The key must be a qualified name, the value a label value, the effect
one of NoSchedule, PreferNoSchedule and NoExecute — the three the hub accepts on a Cluster.
Errors are kubectl's (`invalid taint spec: …`, `invalid taint effect: …, unsupported taint
effect`, `duplicated taints with the same key and effect`), so its users recognise them.

The new list follows kubectl's `reorganizeTaints`: the taints to add first, then every existing
taint they do not replace (a taint is the same taint when key and effect match; the value is what
`--overwrite` may change), minus the removals; a removal that matches nothing is an error. Without
`--overwrite`, adding a taint whose key and effect are already there is refused. The operation
word is `tainted`, `untainted` or `modified`.

Cordon is one taint, `cluster.karmada.io/unschedulable:NoSchedule`, as karmadactl's: cordoning
adds it unless present, uncordoning removes it; the scheduler keeps new work off a cluster that
has it. Everything here is pure: the commands in `commands/cordon.py` read the Cluster and write the list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flotilla.api.karmada.constants import TAINT_CLUSTER_UNSCHEDULABLE
from flotilla.api.names import label_value_errors, qualified_name_errors

NO_SCHEDULE = "NoSchedule"
EFFECTS = (NO_SCHEDULE, "PreferNoSchedule", "NoExecute")
CLUSTER_RESOURCE_NAMES = ("cluster", "clusters", "cluster.cluster.karmada.io", "clusters.cluster.karmada.io")

TAINTED = "tainted"
UNTAINTED = "untainted"
MODIFIED = "modified"

Taint = dict[str, Any]


class TaintError(ValueError):
    """A taint argument or change cannot be used; the message is kubectl's."""


@dataclass(frozen=True, slots=True)
class TaintSpec:
    """One taint of the command line; an empty effect (removal only) means every effect of the key."""

    key: str
    value: str = ""
    effect: str = ""

    def matches(self, taint: Mapping[str, Any]) -> bool:
        """The same taint, as `Taint.MatchTaint` says: key and effect equal, the value aside."""
        return taint.get("key") == self.key and (taint.get("effect") or "") == self.effect

    def to_object(self) -> Taint:
        taint: Taint = {"key": self.key}
        if self.value:
            taint["value"] = self.value
        taint["effect"] = self.effect
        return taint

    def __str__(self) -> str:
        text = f"{self.key}={self.value}" if self.value else self.key
        return f"{text}:{self.effect}" if self.effect else text


@dataclass(frozen=True, slots=True)
class TaintChanges:
    """The taints to add and to remove, as the command line asked."""

    add: tuple[TaintSpec, ...] = ()
    remove: tuple[TaintSpec, ...] = ()


UNSCHEDULABLE = TaintSpec(TAINT_CLUSTER_UNSCHEDULABLE, effect=NO_SCHEDULE)
"""The cordon taint."""


def parse_taint(spec: str) -> TaintSpec:
    """`key=value:Effect`, `key:Effect` or `key` (the last only for removals) as a TaintSpec."""
    parts = spec.split(":")
    if len(parts) > 2:
        raise TaintError(f"invalid taint spec: {spec}")
    key, value, effect = parts[0], "", ""
    if len(parts) == 2:
        effect = parts[1]
        if effect not in EFFECTS:
            raise TaintError(f"invalid taint effect: {effect}, unsupported taint effect")
        key_and_value = parts[0].split("=")
        if len(key_and_value) > 2:
            raise TaintError(f"invalid taint spec: {spec}")
        key = key_and_value[0]
        if len(key_and_value) == 2:
            value = key_and_value[1]
            problems = label_value_errors(value)
            if problems:
                raise TaintError(f"invalid taint spec: {spec}, {'; '.join(problems)}")
    problems = qualified_name_errors(key)
    if problems:
        raise TaintError(f"invalid taint spec: {spec}, {'; '.join(problems)}")
    return TaintSpec(key, value, effect)


def parse_taint_specs(specs: Iterable[str]) -> TaintChanges:
    """The additions and removals of the taint arguments (`…-` removes), checked as kubectl does."""
    add: list[TaintSpec] = []
    remove: list[TaintSpec] = []
    for spec in specs:
        if spec.endswith("-"):
            removal = parse_taint(spec[:-1])
            remove.append(TaintSpec(removal.key, effect=removal.effect))
            continue
        taint = parse_taint(spec)
        if not taint.effect:
            raise TaintError(f"invalid taint spec: {spec}")
        if any(other.key == taint.key and other.effect == taint.effect for other in add):
            raise TaintError(f"duplicated taints with the same key and effect: {taint}")
        add.append(taint)
    changes = TaintChanges(tuple(add), tuple(remove))
    _check_not_both(changes)
    return changes


def _check_not_both(changes: TaintChanges) -> None:
    both = [
        f'{{"{removal.key}":"{removal.effect}"}}'
        for addition in changes.add
        for removal in changes.remove
        if addition.key == removal.key and (not removal.effect or removal.effect == addition.effect)
    ]
    if both:
        raise TaintError(
            "can not both modify and remove the following taint(s) in the same command: " + ", ".join(both)
        )


def split_taint_arguments(arguments: Sequence[str]) -> tuple[list[str], list[str]]:
    """(resource words, taint arguments): resources come first, as kubectl requires."""
    resources: list[str] = []
    taints: list[str] = []
    for argument in arguments:
        is_taint = "=" in argument or ":" in argument or argument.endswith("-")
        if is_taint:
            taints.append(argument)
        elif taints:
            raise TaintError(f"all resources must be specified before taint changes: {argument}")
        else:
            resources.append(argument)
    return resources, taints


def existing_keys(existing: Iterable[Mapping[str, Any]], add: Iterable[TaintSpec]) -> list[str]:
    """Keys of taints to add that the cluster already has with the same effect."""
    taints = list(existing)
    return [taint.key for taint in add for old in taints if taint.matches(old)]


def reorganize_taints(
    existing: Sequence[Mapping[str, Any]], changes: TaintChanges, overwrite: bool
) -> tuple[str, list[Taint]]:
    """The operation word and the cluster's new taint list; TaintError if a removal matches nothing."""
    taints: list[Taint] = [taint.to_object() for taint in changes.add]
    for old in existing:
        if not any(taint.matches(old) for taint in changes.add):
            taints.append(dict(old))
    added = len(existing) != len(taints)
    missing: list[str] = []
    deleted = False
    for removal in changes.remove:
        kept = [
            taint
            for taint in taints
            if not (removal.matches(taint) if removal.effect else taint.get("key") == removal.key)
        ]
        if len(kept) == len(taints):
            missing.append(f'taint "{removal}" not found')
        else:
            deleted = True
        taints = kept
    if missing:
        raise TaintError(", ".join(missing))
    if (added and deleted) or overwrite:
        return MODIFIED, taints
    return (TAINTED if added else UNTAINTED), taints


def is_cordoned(existing: Iterable[Mapping[str, Any]]) -> bool:
    return any(UNSCHEDULABLE.matches(taint) for taint in existing)


def cordon_taints(existing: Sequence[Mapping[str, Any]], cordon: bool) -> list[Taint] | None:
    """The taints after cordoning (or uncordoning); None when the cluster is already that way."""
    if is_cordoned(existing) == cordon:
        return None
    if cordon:
        return [*(dict(taint) for taint in existing), UNSCHEDULABLE.to_object()]
    return [dict(taint) for taint in existing if not UNSCHEDULABLE.matches(taint)]
