"""The kubelet's behaviour as data: which pods a stage takes, how long it waits, what comes next.

kwok's model. A `Stage` has a name, a selector (`Match` conditions on the pod's fields, all of
which must hold), a delay (the name of a `Timing` field, so tests set it to 0), and what happens
when the delay is over: a new status computed from the pod (`next_status`) or the pod's deletion.
`events` are what a kubelet records at that moment. The first stage in `STAGES` whose selector
matches a pod applies; every stage's outcome no longer matches its own selector, so a pod moves
through the stages and then rests.

- pod-delete: a pod marked for deletion is deleted for good (grace 0), as a kubelet does once its
  containers stopped. Only while its kubelet is alive.
- pod-ready: a Pending pod bound to a node starts: Running, Ready, containers running, addresses.
- pod-complete: a running pod owned by a Job finishes: Succeeded, containers exited 0.
- pod-ready-again: a running pod marked not Ready while its node was down is Ready again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flotilla.sim.kubelet.fieldpaths import Match
from flotilla.sim.kubelet.podstatus import ready_again_status, running_status, succeeded_status
from flotilla.sim.spec import Timing


@dataclass(frozen=True, slots=True)
class StageContext:
    """What the kubelet knows beyond the pod when a stage applies."""

    now: datetime
    host_ip: str = ""
    pod_ip: str = ""


NextStatus = Callable[[Mapping[str, Any], StageContext], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class StageEvent:
    """An Event the kubelet records when the stage applies, once per container when `per_container`.

    `message` may use `{container}` and `{image}`.
    """

    reason: str
    message: str
    per_container: bool = True
    type: str = "Normal"


@dataclass(frozen=True, slots=True)
class Stage:
    name: str
    selector: tuple[Match, ...]
    delay: str = ""
    """A `Timing` field holding the seconds to wait; empty: at once."""
    next_status: NextStatus | None = None
    delete: bool = False
    needs_pod_ip: bool = False
    """The next status needs an address from the node's pod CIDR."""
    needs_ready_node: bool = True
    """Only on a Ready node; otherwise it is enough that the node's kubelet is alive."""
    events: tuple[StageEvent, ...] = ()

    def matches(self, pod: Mapping[str, Any]) -> bool:
        return all(match.matches(pod) for match in self.selector)

    def delay_seconds(self, timing: Timing) -> float:
        return float(getattr(timing, self.delay)) if self.delay else 0.0


BOUND = Match(".spec.nodeName", "Exists")
NOT_DELETING = Match(".metadata.deletionTimestamp", "DoesNotExist")
RUNNING = Match(".status.phase", "In", ("Running",))

POD_DELETE = Stage(
    name="pod-delete",
    selector=(
        BOUND,
        Match(".metadata.deletionTimestamp", "Exists"),
        # Already deleted with grace 0 and only waiting for finalizers: nothing left to do.
        Match(".metadata.deletionGracePeriodSeconds", "NotIn", ("0",)),
    ),
    delete=True,
    needs_ready_node=False,
)

POD_READY = Stage(
    name="pod-ready",
    selector=(BOUND, NOT_DELETING, Match(".status.phase", "In", ("Pending",))),
    delay="pod_start",
    next_status=lambda pod, context: running_status(pod, context.now, context.host_ip, context.pod_ip),
    needs_pod_ip=True,
    events=(
        StageEvent("Pulled", 'Container image "{image}" already present on machine'),
        StageEvent("Created", "Created container: {container}"),
        StageEvent("Started", "Started container {container}"),
    ),
)

POD_COMPLETE = Stage(
    name="pod-complete",
    selector=(BOUND, NOT_DELETING, RUNNING, Match(".metadata.ownerReferences[].kind", "In", ("Job",))),
    delay="pod_complete",
    next_status=lambda pod, context: succeeded_status(pod, context.now),
    needs_ready_node=False,
)

POD_READY_AGAIN = Stage(
    name="pod-ready-again",
    selector=(
        BOUND,
        NOT_DELETING,
        RUNNING,
        Match(".status.conditions[type=Ready].status", "In", ("False",)),
        Match(".status.containerStatuses[].state.running", "Exists"),
    ),
    next_status=lambda pod, context: ready_again_status(pod, context.now),
)

STAGES: tuple[Stage, ...] = (POD_DELETE, POD_READY, POD_COMPLETE, POD_READY_AGAIN)


def stage_for(pod: Mapping[str, Any], stages: tuple[Stage, ...] = STAGES) -> Stage | None:
    """The first stage whose selector matches the pod, if any."""
    return next((stage for stage in stages if stage.matches(pod)), None)
