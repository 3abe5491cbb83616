"""The status the cluster controller applies: fresh when the member was read, carried over otherwise."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.cluster import (
    APIEnablement,
    APIResource,
    ClusterStatus,
    NodeSummary,
    ResourceSummary,
)
from flotilla.api.times import format_time
from flotilla.controllers.cluster.health import observed_ready_condition
from flotilla.controllers.cluster.status import MemberStatus, desired_status, owned_fields, status_changed
from flotilla.runtime.clock import ManualClock

CLOCK = ManualClock()
EARLIER = "2025-12-01T00:00:00Z"
APPS = APIEnablement(group_version="apps/v1", resources=[APIResource(name="deployments", kind="Deployment")])

CURRENT: dict[str, Any] = {
    "kubernetesVersion": "v1.31.0",
    "apiEnablements": [{"groupVersion": "v1", "resources": [{"name": "pods", "kind": "Pod"}]}],
    "conditions": [
        {
            "type": "Ready",
            "status": "True",
            "reason": "ClusterReady",
            "message": "cluster is healthy and ready to accept workloads",
            "lastTransitionTime": EARLIER,
        },
        {
            "type": "CompleteAPIEnablements",
            "status": "True",
            "reason": "Complete",
            "message": "collected complete APIEnablements from the cluster",
            "lastTransitionTime": EARLIER,
        },
        {"type": "ServiceDomainNameResolutionReady", "status": "True", "reason": "x", "message": "y"},
    ],
    "nodeSummary": {"totalNum": 3, "readyNum": 3},
    "resourceSummary": {"allocatable": {"cpu": "12", "pods": "330"}},
    "remedyActions": ["TrafficControl"],
}

MEMBER = MemberStatus(
    kubernetes_version="v1.32.4",
    api_enablements=[APPS],
    node_summary=NodeSummary(total_num=2, ready_num=1),
    resource_summary=ResourceSummary(allocatable={"cpu": "4", "pods": "110"}),
)


def current() -> ClusterStatus:
    return ClusterStatus.from_object(CURRENT)


def condition(status: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in status["conditions"] if c["type"] == kind)


def test_a_ready_member_read_replaces_every_owned_field() -> None:
    """Version, APIs and summaries come from the member; CompleteAPIEnablements is True."""
    status = owned_fields(desired_status(current(), observed_ready_condition("healthy"), MEMBER, CLOCK.now()))
    assert status["kubernetesVersion"] == "v1.32.4"
    assert status["apiEnablements"] == [APPS.to_object()]
    assert status["nodeSummary"] == {"totalNum": 2, "readyNum": 1}
    assert status["resourceSummary"] == {"allocatable": {"cpu": "4", "pods": "110"}}
    assert condition(status, "CompleteAPIEnablements")["status"] == "True"
    assert condition(status, "Ready")["lastTransitionTime"] == EARLIER


def test_an_unreachable_member_keeps_what_was_last_read() -> None:
    """Without a read only Ready changes; the rest is carried over so the apply does not remove it."""
    ready = observed_ready_condition("unreachable")
    status = owned_fields(desired_status(current(), ready, None, CLOCK.now()))
    assert status["kubernetesVersion"] == "v1.31.0"
    assert status["apiEnablements"] == CURRENT["apiEnablements"]
    assert status["nodeSummary"] == CURRENT["nodeSummary"]
    assert status["resourceSummary"] == CURRENT["resourceSummary"]
    assert condition(status, "CompleteAPIEnablements")["lastTransitionTime"] == EARLIER
    ready_now = condition(status, "Ready")
    assert (ready_now["status"], ready_now["reason"]) == ("False", "ClusterNotReachable")
    assert ready_now["lastTransitionTime"] == format_time(CLOCK.now())


def test_failed_discovery_empties_the_enablements_and_says_so() -> None:
    """No APIs read: the list is emptied and CompleteAPIEnablements turns False with reason Empty."""
    member = MemberStatus(kubernetes_version=None, api_enablements=None)
    status = owned_fields(desired_status(current(), observed_ready_condition("healthy"), member, CLOCK.now()))
    assert "apiEnablements" not in status
    assert condition(status, "CompleteAPIEnablements")["reason"] == "Empty"
    assert status["kubernetesVersion"] == "v1.31.0", "an unread version keeps the last one"
    assert status["nodeSummary"] == CURRENT["nodeSummary"], "unread summaries keep the last ones"


def test_owned_fields_leave_out_what_others_write() -> None:
    """Other writers' conditions and remedyActions are not part of what this controller applies."""
    owned = owned_fields(current())
    assert [c["type"] for c in owned["conditions"]] == ["Ready", "CompleteAPIEnablements"]
    assert "remedyActions" not in owned


def test_status_changed_only_when_an_owned_field_differs() -> None:
    """Re-observing the same state is no change; a new Ready reason or a new summary is."""
    same = desired_status(current(), observed_ready_condition("healthy"), None, CLOCK.now())
    assert not status_changed(current(), same)
    unhealthy = desired_status(current(), observed_ready_condition("unhealthy"), None, CLOCK.now())
    assert status_changed(current(), unhealthy)
    member = MemberStatus(
        kubernetes_version="v1.31.0",
        api_enablements=[APIEnablement.from_object(e) for e in CURRENT["apiEnablements"]],
        node_summary=NodeSummary(total_num=3, ready_num=2),
    )
    read = desired_status(current(), observed_ready_condition("healthy"), member, CLOCK.now())
    assert status_changed(current(), read)
