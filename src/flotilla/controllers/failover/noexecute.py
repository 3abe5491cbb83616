"""When a cluster's NoExecute taints evict a binding: the taint manager's arithmetic, as pure functions.

A binding's placement tolerates a cluster's taints through `clusterTolerations`, matched with kube's
rules (`flotilla.api.tolerations`). Karmada's taint manager (`taint_manager.go`, with
`GetMatchingTolerations` and `GetMinTolerationTime`) decides for each NoExecute taint set:

- a NoExecute taint that no toleration tolerates evicts now;
- when all are tolerated, the toleration used for each taint is the first that tolerates it; for
  every used toleration with `tolerationSeconds` and every taint it tolerates, the toleration ends
  at the taint's `timeAdded` plus those seconds. The earliest end decides: passed, evict now; ahead,
  look again then;
- when no used toleration has `tolerationSeconds`, the taints are tolerated for as long as they stay.

A taint without `timeAdded` starts no clock, as in Karmada (the API server stamps every NoExecute
taint of a Cluster, so only a hand-built object lacks one). `judge` returns which of the three holds
and the taint that decided, with the times an Event and a metric need.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flotilla.api.times import timestamp
from flotilla.api.tolerations import NO_EXECUTE, Taint, tolerates

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
    used: list[Object] = []
    for taint in taints:
        toleration = next((t for t in tolerations if tolerates(t, taint)), None)
        if toleration is None:
            return Judgement(Verdict.EVICT, Taint.from_object(taint), timestamp(taint.get("timeAdded")))
        used.append(toleration)
    ending = _earliest_end(taints, used)
    if ending is None:
        return TOLERATED_FOREVER
    taint, added, expires = ending
    verdict = Verdict.EVICT if expires <= now else Verdict.WAIT
    return Judgement(verdict, Taint.from_object(taint), added, expires)


def _earliest_end(
    taints: Sequence[Object], used: Sequence[Object]
) -> tuple[Object, datetime, datetime] | None:
    """The (taint, timeAdded, end) whose toleration ends first, over every used toleration with seconds."""
    earliest: tuple[Object, datetime, datetime] | None = None
    for toleration in used:
        seconds = toleration.get("tolerationSeconds")
        if isinstance(seconds, bool) or not isinstance(seconds, int):
            continue
        for taint in taints:
            added = timestamp(taint.get("timeAdded"))
            if added is None or not tolerates(toleration, taint):
                continue
            end = added + timedelta(seconds=seconds)
            if earliest is None or end < earliest[2]:
                earliest = (taint, added, end)
    return earliest
