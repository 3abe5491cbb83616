"""`flotilla plan --taint CLUSTER=KEY[=VALUE]:EFFECT`: the what-if taints, read and laid on the Clusters.

A `--taint` names a cluster and one taint in `kubectl taint`'s syntax (`key=value:Effect` or
`key:Effect`, the effect NoSchedule, PreferNoSchedule or NoExecute), read by the same parser as
`flotilla taint` (`membership.taints`), so the errors are kubectl's. The cluster is what comes
before the first `=`: a cluster's name never holds one.

`tainted_clusters` lays the taints on copies of the Cluster objects as the hub would store them
after `flotilla taint clusters NAME key=value:Effect --overwrite`: a taint with the same key and
effect is replaced, and a NoExecute taint gets `timeAdded` as the API server stamps it — the old
time for the very same taint (key, value and effect), `now` for any other. A taint the cluster
already carries is reported as such: it moves nothing that has not moved already.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flotilla.api.times import format_time
from flotilla.api.tolerations import NO_EXECUTE
from flotilla.cli.membership.taints import EFFECTS, TaintError, TaintSpec, parse_taint

SYNTAX = "CLUSTER=KEY[=VALUE]:EFFECT"


class TaintArgumentError(ValueError):
    """A `--taint` that cannot be read, or names a cluster the hub does not have."""


@dataclass(frozen=True, slots=True)
class ClusterTaint:
    """One `--taint`: a cluster and the taint to imagine on it."""

    cluster: str
    taint: TaintSpec

    def __str__(self) -> str:
        return f"{self.cluster}={self.taint}"


@dataclass(frozen=True, slots=True)
class LaidTaint:
    """A `--taint` as laid on its Cluster: `new` is False when the cluster already had that very taint."""

    cluster: str
    taint: TaintSpec
    new: bool = True


def parse_cluster_taint(argument: str) -> ClusterTaint:
    """`member2=dedicated=gpu:NoExecute` as a ClusterTaint; TaintArgumentError with kubectl's words."""
    cluster, separator, spec = argument.partition("=")
    if not separator or not cluster or not spec:
        raise TaintArgumentError(f'invalid --taint "{argument}": expected {SYNTAX}')
    try:
        taint = parse_taint(spec)
    except TaintError as error:
        raise TaintArgumentError(f'invalid --taint "{argument}": {error}') from error
    if not taint.effect:
        effects = ", ".join(EFFECTS)
        raise TaintArgumentError(
            f'invalid --taint "{argument}": invalid taint spec: {spec}, an effect is required ({effects})'
        )
    return ClusterTaint(cluster, taint)


def parse_cluster_taints(arguments: Iterable[str]) -> tuple[ClusterTaint, ...]:
    """Every `--taint`, refusing two with the same cluster, key and effect (as kubectl refuses them)."""
    taints: list[ClusterTaint] = []
    for argument in arguments:
        parsed = parse_cluster_taint(argument)
        twin = parsed.taint.to_object()
        if any(other.cluster == parsed.cluster and other.taint.matches(twin) for other in taints):
            raise TaintArgumentError(
                f'invalid --taint "{argument}": duplicated taints with the same key and effect'
            )
        taints.append(parsed)
    return tuple(taints)


def check_clusters(taints: Sequence[ClusterTaint], cluster_names: Iterable[str]) -> None:
    """TaintArgumentError for a `--taint` on a cluster the hub does not have."""
    known = sorted(set(cluster_names))
    for item in taints:
        if item.cluster not in known:
            have = ", ".join(known) if known else "no clusters"
            raise TaintArgumentError(
                f'invalid --taint "{item}": cluster "{item.cluster}" not found (the hub has {have})'
            )


def tainted_clusters(
    clusters: Sequence[Mapping[str, Any]], taints: Sequence[ClusterTaint], now: datetime
) -> tuple[list[dict[str, Any]], tuple[LaidTaint, ...]]:
    """Copies of `clusters` carrying `taints`, and each taint as laid (new or already there)."""
    laid: list[LaidTaint] = []
    result: list[dict[str, Any]] = []
    for cluster in clusters:
        name = str((cluster.get("metadata") or {}).get("name") or "")
        mine = [item.taint for item in taints if item.cluster == name]
        if not mine:
            result.append(dict(cluster))
            continue
        changed = copy.deepcopy(dict(cluster))
        spec = changed.setdefault("spec", {})
        existing = [dict(t) for t in spec.get("taints") or [] if isinstance(t, Mapping)]
        new_list = []
        for taint in mine:
            same = next((old for old in existing if _same(old, taint)), None)
            new_list.append(_stamped(taint, same, now))
            laid.append(LaidTaint(name, taint, new=same is None))
        new_list.extend(old for old in existing if not any(taint.matches(old) for taint in mine))
        spec["taints"] = new_list
        result.append(changed)
    return result, tuple(laid)


def _same(old: Mapping[str, Any], taint: TaintSpec) -> bool:
    """The very same taint: key, value and effect."""
    return taint.matches(old) and (old.get("value") or "") == taint.value


def _stamped(taint: TaintSpec, same: Mapping[str, Any] | None, now: datetime) -> dict[str, Any]:
    """The taint as the hub stores it: a NoExecute taint with `timeAdded` (kept for the same taint)."""
    wire = taint.to_object()
    if taint.effect == NO_EXECUTE:
        kept = same.get("timeAdded") if same is not None else None
        wire["timeAdded"] = kept if isinstance(kept, str) and kept else format_time(now)
    return wire
