"""What the controller remembers of a binding, kept on the binding itself so a restart forgets nothing.

Karmada keeps the moment each cluster's copy was first seen unhealthy in the controller's memory,
so a restart of karmada-controller-manager starts every toleration over (and a leader change in
the middle of an outage, the same). Nothing in the objects Karmada persists could stand in for it:
`aggregatedStatus[].health` carries no transition time, and the member's own status times are not
on the hub. So the controller writes what it needs into two annotations of the binding, each a
JSON object from cluster name to an RFC 3339 time (microseconds; the format, which the scheduler
reads too, is `flotilla.api.karmada.clustertimes`):

- `failover.flotilla.io/application-unhealthy-since`: when the copy on each cluster was first seen
  `Unhealthy`, for the clusters whose toleration is running. Written when a toleration starts,
  cleared when the copy is `Healthy` or `Unknown` again or the cluster is evicted; the next leader
  reads it and evicts at the same moment the first would have.
- `failover.flotilla.io/application-failed-on` (`constants.APPLICATION_FAILED_ON_ANNOTATION`): the
  clusters the application was failed over away from, and when — the binding's memory of where it
  failed, kept after the eviction task is gone (see `decision.still_failed` for when an entry is
  forgotten). The scheduler keeps these clusters out of new placements while another cluster fits.

Annotations are metadata: no other controller reacts to them (the binding controller watches the
spec, the status writers their own fields), and the API's schemas stay Karmada's. A user may
read them (`kubectl get rb -o yaml`) or delete them; an unreadable value counts as empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada.constants import APPLICATION_FAILED_ON_ANNOTATION

UNHEALTHY_SINCE_ANNOTATION = "failover.flotilla.io/application-unhealthy-since"
ANNOTATIONS = (UNHEALTHY_SINCE_ANNOTATION, APPLICATION_FAILED_ON_ANNOTATION)
"""Both records: a change to either wakes the controller; both go when a policy stops asking for failover."""


def annotation_changes(
    annotations: Mapping[str, Any], wanted: Mapping[str, str | None]
) -> dict[str, str | None]:
    """The merge-patch entries that turn `annotations` into `wanted` (None removes a key)."""
    return {key: value for key, value in wanted.items() if annotations.get(key) != value}
