"""How an exact tie in a replica split was settled, so a preview can say so.

Karmada's division gives a replica that two clusters have equal claims on (same Webster priority,
same seats) to the first of them by name — in ascending order, or descending when the 32-bit
FNV-1a hash of the resource template's UID is odd (`core.apportionment.names_descending`; no UID
is ascending). Whether a split depends on that order at all is found by dividing once more in the
other order: the clusters that get more replicas in one order than in the other got them from the
tie.

For a template that exists, the UID — and so the order — is known: the preview states the order,
the hash and the clusters the tie favoured. A template not created yet has no UID: its preview is
made in ascending order (what an empty UID gives) and the split of the other order comes with it,
since the UID the template will get decides between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from flotilla.scheduler.core.apportionment import fnv32a, names_descending
from flotilla.scheduler.core.inputs import BindingInfo, TargetCluster
from flotilla.scheduler.core.placement import Strategy

DESCENDING_TIE_UID = "descending"
"""A stand-in UID whose FNV-1a hash is odd: Karmada's descending tie order."""


@dataclass(frozen=True, slots=True)
class TieBreak:
    """A split the tie order decided: in the order used, and in the other one."""

    template_uid: str
    """The template's UID; empty when the template does not exist yet (the order is then unknown)."""
    favoured: tuple[str, ...]
    """Clusters that got more replicas in the order used than the other order gives them."""
    alternative: tuple[TargetCluster, ...]
    """The split the other order gives."""
    alternative_favoured: tuple[str, ...]
    """Clusters the other order gives more replicas."""

    @property
    def known(self) -> bool:
        """Whether the template's UID, and so the order, is known."""
        return bool(self.template_uid)

    @property
    def descending(self) -> bool:
        """Whether the order used is descending (an unknown UID is previewed ascending)."""
        return names_descending(self.template_uid)

    @property
    def uid_hash(self) -> int:
        """FNV-1a (32-bit) of the template's UID."""
        return fnv32a(self.template_uid.encode())


def may_tie(binding: BindingInfo) -> bool:
    """Whether the binding's split can depend on the tie order: a Divided workload."""
    return binding.replicas > 0 and binding.placement.strategy != Strategy.DUPLICATED


def in_other_order(binding: BindingInfo) -> BindingInfo:
    """The binding with a stand-in template UID that orders tied names the other way."""
    uid = "" if names_descending(binding.template_uid) else DESCENDING_TIE_UID
    return replace(binding, template_uid=uid)


def tie_break(
    template_uid: str, used: Sequence[TargetCluster], other: Sequence[TargetCluster]
) -> TieBreak | None:
    """The tie between split `used` (made with `template_uid`) and `other`; None when they agree."""
    ours = {target.name: target.replicas for target in used}
    theirs = {target.name: target.replicas for target in other}
    if ours == theirs:
        return None
    return TieBreak(
        template_uid,
        favoured=tuple(sorted(name for name, count in ours.items() if count > theirs.get(name, 0))),
        alternative=tuple(other),
        alternative_favoured=tuple(
            sorted(name for name, count in theirs.items() if count > ours.get(name, 0))
        ),
    )
