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

`tolerationSeconds` is not matching: how long a NoExecute taint is tolerated is the eviction's
business, read by its caller. `untolerated_taint` is the filter both schedulers run: the first taint
with a filtered effect (NoSchedule and NoExecute; PreferNoSchedule only scores) that no toleration
tolerates.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

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

    @classmethod
    def from_object(cls, taint: Mapping[str, Any]) -> Taint:
        """A taint of decoded JSON; a missing or odd field reads as empty."""
        return cls(_text(taint.get("key")), _text(taint.get("value")), _text(taint.get("effect")))

    def __str__(self) -> str:
        """`key=value:effect` with empty parts left out, as kube's `Taint.ToString()`."""
        if not self.effect:
            return f"{self.key}={self.value}:" if self.value else self.key
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Toleration:
    """A pod's or placement's toleration (without `tolerationSeconds`, which matching ignores)."""

    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""

    @classmethod
    def from_object(cls, toleration: Mapping[str, Any]) -> Toleration:
        """A toleration of decoded JSON; a missing or odd field reads as empty."""
        return cls(
            _text(toleration.get("key")),
            _text(toleration.get("operator")),
            _text(toleration.get("value")),
            _text(toleration.get("effect")),
        )

    def tolerates(self, taint: Taint) -> bool:
        """kube's `Toleration.ToleratesTaint`."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", EQUAL):
            return self.value == taint.value
        return self.operator == EXISTS


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
