"""Taints and tolerations with kube's matching rules, for nodes and for Karmada's clusters alike.

A taint (`key=value:effect`) keeps out what does not tolerate it; Karmada's scheduler matches a
placement's `clusterTolerations` against a Cluster's taints, and the simulated kube-scheduler and
DaemonSet controller match a pod's tolerations against a Node's. All three ask `Toleration.tolerates`,
which is core/v1's `Toleration.ToleratesTaint`:

- an empty effect tolerates every effect, otherwise the effects must be equal;
- an empty key tolerates every key (validation allows that only with `Exists`), otherwise the keys
  must be equal;
- `Exists` tolerates any value; `Equal`, or no operator, only the same value; any other operator
  nothing (kube 1.35's alpha `Gt`/`Lt` are refused by validation here, so never reach a match).

`tolerationSeconds` is not matching: a toleration with seconds tolerates a NoExecute taint only for
that long after the taint's `timeAdded`. `untolerated_taint` is the filter both schedulers run: the
first taint with a filtered effect (NoSchedule and NoExecute; PreferNoSchedule only scores) that no
toleration tolerates. Karmada's scheduler and taint manager hold typed taints and tolerations
(`Taint`, `Toleration`); the simulated kube-scheduler and DaemonSet controller match the pods' and
nodes' JSON as it is (`tolerates`, `untolerated`), which is several times faster than building the
typed forms for every pod and node. Both ask the same `_tolerates`.

When tolerating NoExecute taints ends is `toleration_end`, Karmada's taint manager's rule
(`GetMatchingTolerations`, `GetMinTolerationTime`): the toleration used for each taint is the first
that tolerates it; each used toleration with seconds ends at the `timeAdded` of every taint it
tolerates plus those seconds, and the earliest end counts. No seconds on any used toleration, or no
`timeAdded` on the taints, runs no clock: tolerated for as long as the taints stay. The taint
manager evicts a binding from a cluster at that end; the scheduler's TaintToleration filter asks
`expired_toleration` so that a cluster whose toleration has ended is not chosen again for a binding
it does not run on (beyond Karmada, whose filter ignores the seconds and so places an evicted
binding straight back, to be evicted again). One rule for both, so they never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flotilla.api.times import timestamp

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
FILTERED_EFFECTS = (NO_SCHEDULE, NO_EXECUTE)
"""The effects a scheduler's filter enforces; PreferNoSchedule only lowers a score."""

EXISTS = "Exists"
EQUAL = "Equal"


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class Taint:
    """A node's or cluster's taint: what it keeps out (`effect`) and what tolerates it (`key`, `value`)."""

    key: str
    value: str = ""
    effect: str = ""
    time_added: datetime | None = None
    """When the taint was added (`timeAdded`, which the API server stamps on NoExecute taints)."""

    @classmethod
    def from_object(cls, taint: Mapping[str, Any]) -> Taint:
        """A taint of decoded JSON; a missing or odd field reads as empty."""
        return cls(
            _text(taint.get("key")),
            _text(taint.get("value")),
            _text(taint.get("effect")),
            timestamp(taint.get("timeAdded")),
        )

    def __str__(self) -> str:
        """`key=value:effect` with empty parts left out, as kube's `Taint.ToString()`."""
        if not self.effect:
            return f"{self.key}={self.value}:" if self.value else self.key
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Toleration:
    """A pod's or placement's toleration; `toleration_seconds` bounds how long it tolerates a NoExecute
    taint (None: for as long as the taint stays), and matching ignores it."""

    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    @classmethod
    def from_object(cls, toleration: Mapping[str, Any]) -> Toleration:
        """A toleration of decoded JSON; a missing or odd field reads as empty."""
        seconds = toleration.get("tolerationSeconds")
        return cls(
            _text(toleration.get("key")),
            _text(toleration.get("operator")),
            _text(toleration.get("value")),
            _text(toleration.get("effect")),
            seconds if isinstance(seconds, int) and not isinstance(seconds, bool) else None,
        )

    def tolerates(self, taint: Taint) -> bool:
        """kube's `Toleration.ToleratesTaint`."""
        return _tolerates(
            self.key, self.operator, self.value, self.effect, taint.key, taint.value, taint.effect
        )


def _tolerates(
    key: object,
    operator: object,
    value: object,
    effect: object,
    taint_key: object,
    taint_value: object,
    taint_effect: object,
) -> bool:
    """`ToleratesTaint` itself, on plain fields (`None` reads as "", as Go's zero string)."""
    if effect and effect != taint_effect:
        return False
    if key and key != taint_key:
        return False
    if operator in ("", None, EQUAL):
        return (value or "") == (taint_value or "")
    return operator == EXISTS


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """`ToleratesTaint` on decoded JSON, without building the typed forms: the simulated scheduler asks
    it for every pod, node and taint."""
    get, taint_get = toleration.get, taint.get
    return _tolerates(
        get("key"), get("operator"), get("value"), get("effect"),
        taint_get("key"), taint_get("value"), taint_get("effect"),
    )  # fmt: skip


def taints_of(value: object) -> tuple[Taint, ...]:
    """A `taints` list of decoded JSON (entries that are not objects are skipped)."""
    if not isinstance(value, list):
        return ()
    return tuple(Taint.from_object(item) for item in value if isinstance(item, Mapping))


def tolerations_of(value: object) -> tuple[Toleration, ...]:
    """A `tolerations` list of decoded JSON (entries that are not objects are skipped)."""
    if not isinstance(value, list):
        return ()
    return tuple(Toleration.from_object(item) for item in value if isinstance(item, Mapping))


def untolerated_taint(
    taints: Iterable[Taint], tolerations: Iterable[Toleration], effects: tuple[str, ...] = FILTERED_EFFECTS
) -> Taint | None:
    """The first taint with one of `effects` that no toleration tolerates, if any."""
    held = tuple(tolerations)
    for taint in taints:
        if taint.effect in effects and not any(toleration.tolerates(taint) for toleration in held):
            return taint
    return None


@dataclass(frozen=True, slots=True)
class TolerationEnd:
    """When tolerating NoExecute taints ends: the taint whose toleration ends first, and the times."""

    taint: Taint
    added: datetime
    """That taint's `timeAdded`."""
    expires: datetime
    """`added` plus the seconds of the toleration used for it."""


def toleration_end(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> TolerationEnd | None:
    """The earliest end of the tolerations used for the NoExecute `taints`; None when no clock runs.

    Untolerated taints are not this function's business (`untolerated_taint` finds them): it looks
    only at the taints some toleration tolerates.
    """
    no_execute = [taint for taint in taints if taint.effect == NO_EXECUTE]
    used = (next((t for t in tolerations if t.tolerates(taint)), None) for taint in no_execute)
    timed = {t: t.toleration_seconds for t in used if t is not None and t.toleration_seconds is not None}
    earliest: TolerationEnd | None = None
    for toleration, seconds in timed.items():
        for taint in no_execute:
            if taint.time_added is None or not toleration.tolerates(taint):
                continue
            expires = taint.time_added + timedelta(seconds=seconds)
            if earliest is None or expires < earliest.expires:
                earliest = TolerationEnd(taint, taint.time_added, expires)
    return earliest


def expired_toleration(
    taints: Iterable[Taint], tolerations: Sequence[Toleration], now: datetime
) -> TolerationEnd | None:
    """The end of the tolerations of the NoExecute `taints` when it is `now` or past, else None."""
    end = toleration_end(taints, tolerations)
    return end if end is not None and end.expires <= now else None


def untolerated(
    taints: object, tolerations: object, effects: tuple[str, ...] = FILTERED_EFFECTS
) -> Mapping[str, Any] | None:
    """`untolerated_taint` on decoded JSON lists (`spec.taints`, a pod's `tolerations`)."""
    if not isinstance(taints, list):
        return None
    held = tolerations if isinstance(tolerations, list) else ()
    for taint in taints:
        if not isinstance(taint, Mapping) or taint.get("effect") not in effects:
            continue
        if not any(isinstance(toleration, Mapping) and tolerates(toleration, taint) for toleration in held):
            return taint
    return None
