"""A Deployment's Available and Progressing conditions on the hub, folded from its member copies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flotilla.interpreter import aggregate_status, reflect_status
from tests.unit.interpreter.kstatus import CURRENT, FAILED, IN_PROGRESS, kstatus

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(minutes=5)


def _template(*, replicas: int = 4, generation: int = 3, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "generation": generation},
        "spec": {"replicas": replicas, "progressDeadlineSeconds": 600, **spec},
    }


def _copy(
    *,
    replicas: int = 2,
    available: bool = True,
    progressing: str = "NewReplicaSetAvailable",
    template_generation: int = 3,
    generation: int = 1,
    observed: int = 1,
) -> dict[str, Any]:
    """What a member copy reflects: counters, generations and its two conditions."""
    ready = replicas if available else 0
    progress_status = "False" if progressing == "ProgressDeadlineExceeded" else "True"
    return {
        "generation": generation,
        "resourceTemplateGeneration": template_generation,
        "observedGeneration": observed,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": ready,
        "availableReplicas": ready,
        "conditions": [
            {"type": "Available", "status": "True" if available else "False"},
            {"type": "Progressing", "status": progress_status, "reason": progressing},
        ],
    }


def _items(**copies: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {"clusterName": cluster, "applied": status is not None, **({"status": status} if status else {})}
        for cluster, status in copies.items()
    ]


def _conditions(template: dict[str, Any], items: list[dict[str, Any]], now: datetime = NOW) -> dict[str, Any]:
    aggregated = aggregate_status(template, items, now=now)
    return {c["type"]: c for c in aggregated["status"]["conditions"]}


def test_available_only_when_every_scheduled_copy_is_available() -> None:
    """One copy short of minimum availability keeps the template unavailable, naming that cluster."""
    both = _conditions(_template(), _items(member1=_copy(), member2=_copy()))["Available"]
    assert (both["status"], both["reason"]) == ("True", "MinimumReplicasAvailable")
    one = _conditions(_template(), _items(member1=_copy(), member2=_copy(available=False)))["Available"]
    assert (one["status"], one["reason"]) == ("False", "MinimumReplicasUnavailable")
    assert one["message"] == "Deployment does not have minimum availability in member cluster member2."


@pytest.mark.parametrize(
    "items",
    [[], _items(member1=_copy(), member2=None)],
    ids=["scheduled-to-no-cluster", "work-not-applied-yet"],
)
def test_a_template_not_running_everywhere_yet_is_not_available(items: list[dict[str, Any]]) -> None:
    """No cluster at all, or a copy not applied yet, is never Available, and kstatus is not Current."""
    template = _template(replicas=2)
    aggregated = aggregate_status(template, items, now=NOW)
    conditions = {c["type"]: c for c in aggregated["status"]["conditions"]}
    assert conditions["Available"]["status"] == "False"
    assert (conditions["Progressing"]["status"], conditions["Progressing"]["reason"]) == (
        "True",
        "ReplicaSetUpdated",
    )
    assert kstatus(aggregated) == IN_PROGRESS


def test_progressing_says_new_replica_set_available_once_every_copy_rolled_out() -> None:
    """All copies done with the current template: the hub Deployment is Current for kstatus."""
    aggregated = aggregate_status(_template(), _items(member1=_copy(), member2=_copy()), now=NOW)
    progressing = {c["type"]: c for c in aggregated["status"]["conditions"]}["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("True", "NewReplicaSetAvailable")
    assert progressing["message"] == 'Deployment "web" has successfully progressed.'
    assert kstatus(aggregated) == CURRENT


@pytest.mark.parametrize(
    "lagging",
    [
        _copy(progressing="ReplicaSetUpdated"),
        _copy(template_generation=2),
        _copy(generation=2, observed=1),
    ],
    ids=["still-rolling", "rendered-from-the-older-template", "member-controller-behind"],
)
def test_a_copy_still_rolling_keeps_the_template_progressing(lagging: dict[str, Any]) -> None:
    """ReplicaSetUpdated names the cluster still rolling; kstatus says InProgress meanwhile."""
    aggregated = aggregate_status(_template(), _items(member1=_copy(), member2=lagging), now=NOW)
    progressing = {c["type"]: c for c in aggregated["status"]["conditions"]}["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("True", "ReplicaSetUpdated")
    assert progressing["message"] == 'Deployment "web" is progressing in member cluster member2.'
    assert kstatus(aggregated) == IN_PROGRESS


def test_a_just_updated_template_does_not_look_current() -> None:
    """Generation 4 over copies of generation 3: observedGeneration stays 3 until the copies catch up."""
    current = aggregate_status(_template(), _items(member1=_copy(), member2=_copy()), now=NOW)
    updated = {**current, "metadata": {**current["metadata"], "generation": 4}}
    stale = aggregate_status(updated, _items(member1=_copy(), member2=_copy()), now=LATER)
    assert stale["status"]["observedGeneration"] == 3
    assert kstatus(stale) == IN_PROGRESS
    caught_up = _items(
        member1=_copy(template_generation=4, generation=2, observed=2),
        member2=_copy(template_generation=4, generation=2, observed=2),
    )
    assert aggregate_status(stale, caught_up, now=LATER)["status"]["observedGeneration"] == 4


def test_a_copy_past_its_progress_deadline_fails_the_template() -> None:
    """ProgressDeadlineExceeded anywhere is Progressing=False on the hub, which kstatus calls Failed."""
    items = _items(member1=_copy(progressing="ProgressDeadlineExceeded", available=False), member2=_copy())
    aggregated = aggregate_status(_template(), items, now=NOW)
    progressing = {c["type"]: c for c in aggregated["status"]["conditions"]}["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert "member cluster member1" in progressing["message"]
    assert kstatus(aggregated) == FAILED


def test_without_a_progress_deadline_there_is_no_progressing_condition() -> None:
    """As kube: progressDeadlineSeconds at MaxInt32 means no Progressing (kstatus then reads counters)."""
    template = _template(progressDeadlineSeconds=2**31 - 1)
    aggregated = aggregate_status(template, _items(member1=_copy(), member2=_copy()), now=NOW)
    assert [c["type"] for c in aggregated["status"]["conditions"]] == ["Available"]
    assert kstatus(aggregated) == CURRENT


def test_a_paused_template_says_so() -> None:
    """A paused Deployment's Progressing is Unknown with reason DeploymentPaused."""
    conditions = _conditions(_template(paused=True), _items(member1=_copy(progressing="DeploymentPaused")))
    assert (conditions["Progressing"]["status"], conditions["Progressing"]["reason"]) == (
        "Unknown",
        "DeploymentPaused",
    )


def test_an_unchanged_aggregate_keeps_its_timestamps() -> None:
    """Folding the same copies again later yields the same object: the controller writes nothing."""
    items = _items(member1=_copy(), member2=_copy(available=False))
    first = aggregate_status(_template(), items, now=NOW)
    assert aggregate_status(first, items, now=LATER) == first


def test_timestamps_move_only_with_what_changed() -> None:
    """A new message moves lastUpdateTime only; a status flip moves lastTransitionTime too."""
    rolling = _items(
        member1=_copy(progressing="ReplicaSetUpdated"), member2=_copy(progressing="ReplicaSetUpdated")
    )
    first = aggregate_status(_template(), rolling, now=NOW)
    one_left = _items(member1=_copy(), member2=_copy(progressing="ReplicaSetUpdated", available=False))
    second = aggregate_status(first, one_left, now=LATER)
    progressing = {c["type"]: c for c in second["status"]["conditions"]}["Progressing"]
    assert progressing["lastTransitionTime"] == "2025-03-01T12:00:00Z"
    assert progressing["lastUpdateTime"] == "2025-03-01T12:05:00Z"
    available = {c["type"]: c for c in second["status"]["conditions"]}["Available"]
    assert available["status"] == "False"
    assert available["lastTransitionTime"] == available["lastUpdateTime"] == "2025-03-01T12:05:00Z"


def test_member_conditions_are_reflected_without_timestamps() -> None:
    """A rollout renewing the member's lastUpdateTime does not change what its Work reports."""
    member = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "generation": 1},
        "status": {
            "observedGeneration": 1,
            "conditions": [
                {
                    "type": "Progressing",
                    "status": "True",
                    "reason": "ReplicaSetUpdated",
                    "message": 'ReplicaSet "web-5d4f" is progressing.',
                    "lastUpdateTime": "2025-03-01T11:59:00Z",
                    "lastTransitionTime": "2025-03-01T11:58:00Z",
                }
            ],
        },
    }
    later = {**member, "status": {**member["status"]}}
    later["status"]["conditions"] = [
        {**member["status"]["conditions"][0], "lastUpdateTime": "2025-03-01T12:00:00Z"}
    ]
    assert reflect_status(member) == reflect_status(later)
    assert reflect_status(member)["conditions"] == [  # type: ignore[index]
        {
            "type": "Progressing",
            "status": "True",
            "reason": "ReplicaSetUpdated",
            "message": 'ReplicaSet "web-5d4f" is progressing.',
        }
    ]
