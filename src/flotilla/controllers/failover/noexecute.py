"""When a cluster's NoExecute taints evict a binding: the taint manager's decision, as pure functions.

A binding's placement tolerates a cluster's taints through `clusterTolerations`, matched with kube's
rules. Karmada's taint manager (`taint_manager.go`) decides for each NoExecute taint set:

- a NoExecute taint that no toleration tolerates evicts now;
- when all are tolerated, the tolerations end at the earliest of their `tolerationSeconds` counted
  from the taints' `timeAdded` (`flotilla.api.tolerations.toleration_end`, the one home of that
  rule, which the scheduler's TaintToleration filter shares): passed, evict now; ahead, look again
  then;
- when no used toleration has `tolerationSeconds`, the taints are tolerated for as long as they stay.

A taint without `timeAdded` starts no clock, as in Karmada (the API server stamps every NoExecute
taint of a Cluster, so only a hand-built object lacks one). `judge` returns which of the three holds
and the taint that decided, with the times an Event and a metric need.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flotilla.api.tolerations import NO_EXECUTE, Taint, Toleration, toleration_end, untolerated_taint

Object = Mapping[str, Any]


class Verdict(enum.StrEnum):
    EVICT = "Evict"
    WAIT = "Wait"
    TOLERATE = "Tolerate"


@dataclass(frozen=True, slots=True)
class Judgement:
    """What a cluster's NoExecute taints mean for one binding, and which taint decided it."""

    verdict: Verdict
    taint: Taint | None = None
    """The untolerated taint, or the one whose toleration ends first (None when tolerated forever)."""
    added: datetime | None = None
    """That taint's `timeAdded`."""
    expires: datetime | None = None
    """When its toleration ends or ended; None for an untolerated taint."""

    @property
    def untolerated(self) -> bool:
        return self.verdict is Verdict.EVICT and self.expires is None

    def seconds_left(self, now: datetime) -> float | None:
        """Seconds until the toleration ends (0 once it has); None when no clock runs."""
        if self.expires is None:
            return None
        return max((self.expires - now).total_seconds(), 0.0)


TOLERATED_FOREVER = Judgement(Verdict.TOLERATE)


def no_execute_taints(cluster: Object) -> list[Object]:
    """The NoExecute taints in a Cluster's `spec.taints`, as written."""
    taints = (cluster.get("spec") or {}).get("taints") or []
    return [t for t in taints if isinstance(t, Mapping) and t.get("effect") == NO_EXECUTE]


def judge(taints: Sequence[Object], tolerations: Sequence[Object], now: datetime) -> Judgement:
    """Karmada's decision for NoExecute `taints` against a placement's `tolerations` at `now`."""
    if not taints:
        return TOLERATED_FOREVER
    typed = [Taint.from_object(taint) for taint in taints]
    held = [Toleration.from_object(toleration) for toleration in tolerations]
    untolerated = untolerated_taint(typed, held, (NO_EXECUTE,))
    if untolerated is not None:
        return Judgement(Verdict.EVICT, untolerated, untolerated.time_added)
    ending = toleration_end(typed, held)
    if ending is None:
        return TOLERATED_FOREVER
    verdict = Verdict.EVICT if ending.expires <= now else Verdict.WAIT
    return Judgement(verdict, ending.taint, ending.added, ending.expires)
