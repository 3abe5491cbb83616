"""What the controller remembers of a binding, kept on the binding itself so a restart forgets nothing.

Karmada keeps the moment each cluster's copy was first seen unhealthy in the controller's memory,
so a restart of karmada-controller-manager starts every toleration over (and a leader change in
the middle of an outage, the same). Nothing in the objects Karmada persists could stand in for it:
`aggregatedStatus[].health` carries no transition time, and the member's own status times are not
on the hub. So the controller writes what it needs into two annotations of the binding, each a
JSON object from cluster name to an RFC 3339 time (microseconds):

- `failover.flotilla.io/application-unhealthy-since`: when the copy on each cluster was first seen
  `Unhealthy`, for the clusters whose toleration is running. Written when a toleration starts,
  cleared when the copy is `Healthy` or `Unknown` again or the cluster is evicted; the next leader
  reads it and evicts at the same moment the first would have.
- `failover.flotilla.io/application-failed-on`: the clusters the application was failed over away
  from, and when — the binding's memory of where it failed, kept after the eviction task is gone
  (see `decision.still_failed` for when an entry is forgotten).

Annotations are metadata: no other controller reacts to them (the binding controller watches the
spec, the status writers their own fields), and the API's schemas stay Karmada's. A user may
read them (`kubectl get rb -o yaml`) or delete them; an unreadable value counts as empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from flotilla.api.times import format_micro_time, timestamp

UNHEALTHY_SINCE_ANNOTATION = "failover.flotilla.io/application-unhealthy-since"
FAILED_ON_ANNOTATION = "failover.flotilla.io/application-failed-on"
ANNOTATIONS = (UNHEALTHY_SINCE_ANNOTATION, FAILED_ON_ANNOTATION)

ClusterTimes = dict[str, datetime]
"""Cluster name → a moment (timezone-aware UTC)."""


def read_times(annotations: Mapping[str, Any], key: str) -> ClusterTimes:
    """The times recorded under annotation `key`; entries that do not read as times are skipped."""
    text = annotations.get(key)
    if not isinstance(text, str) or not text:
        return {}
    try:
        decoded = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(decoded, dict):
        return {}
    times: ClusterTimes = {}
    for cluster, value in decoded.items():
        moment = timestamp(value)
        if moment is not None:
            times[str(cluster)] = moment
    return times


def encode_times(times: Mapping[str, datetime]) -> str | None:
    """The annotation's value for `times`, clusters sorted; None (remove it) when there are none."""
    if not times:
        return None
    ordered = {cluster: format_micro_time(times[cluster]) for cluster in sorted(times)}
    return orjson.dumps(ordered).decode()


def annotation_changes(
    annotations: Mapping[str, Any], wanted: Mapping[str, str | None]
) -> dict[str, str | None]:
    """The merge-patch entries that turn `annotations` into `wanted` (None removes a key)."""
    return {key: value for key, value in wanted.items() if annotations.get(key) != value}
