"""Pod and volume phases on the hub: the member phase that most needs attention wins."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.interpreter import aggregate_status

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p"},
    "spec": {"containers": [{"name": "app"}]},
}


def _items(*statuses: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {"clusterName": f"member{index}", **({"status": status} if status is not None else {})}
        for index, status in enumerate(statuses, start=1)
    ]


@pytest.mark.parametrize(
    ("phases", "expected"),
    [
        (["Running", "Succeeded"], "Running"),
        (["Running", "Failed", "Pending"], "Failed"),
        (["Succeeded", "Pending"], "Pending"),
        (["Succeeded", None], "Pending"),
        (["Succeeded", "Succeeded"], "Succeeded"),
    ],
)
def test_pod_phase_follows_failed_pending_running_succeeded(phases: list[str | None], expected: str) -> None:
    """The worst member phase is the template's; an unreported member counts as pending."""
    statuses = [None if phase is None else {"phase": phase} for phase in phases]
    assert aggregate_status(POD, _items(*statuses), now=NOW)["status"]["phase"] == expected


def test_pod_lists_the_container_statuses_of_every_member() -> None:
    """Container statuses are concatenated, reduced to name, readiness and state."""
    running = {"running": {"startedAt": "2025-03-01T10:00:00Z"}}
    member = {
        "phase": "Running",
        "containerStatuses": [
            {"name": "app", "ready": True, "state": running, "containerID": "containerd://1"}
        ],
        "initContainerStatuses": [{"name": "init", "ready": False, "state": {"terminated": {"exitCode": 0}}}],
    }
    status = aggregate_status(POD, _items(member, {**member, "initContainerStatuses": []}), now=NOW)["status"]
    assert status["containerStatuses"] == [{"name": "app", "ready": True, "state": running}] * 2
    assert status["initContainerStatuses"] == [
        {"name": "init", "ready": False, "state": {"terminated": {"exitCode": 0}}}
    ]


def test_a_pod_propagated_nowhere_keeps_its_status() -> None:
    """Without members there is nothing to say about the pod."""
    assert aggregate_status(POD, [], now=NOW) == POD


@pytest.mark.parametrize(
    ("phases", "expected"),
    [(["Bound", "Available"], "Available"), (["Released", "Bound"], "Bound"), (["Bound", None], "Pending")],
)
def test_volume_phase_follows_its_precedence(phases: list[str | None], expected: str) -> None:
    """PersistentVolumes report Failed, Pending, Available, Bound, Released in that order."""
    volume = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"}}
    statuses = [None if phase is None else {"phase": phase} for phase in phases]
    assert aggregate_status(volume, _items(*statuses), now=NOW)["status"] == {"phase": expected}


@pytest.mark.parametrize(
    ("phases", "expected"),
    [
        (["Bound", "Bound"], "Bound"),
        (["Bound", "Pending"], "Pending"),
        (["Pending", "Lost", "Bound"], "Lost"),
    ],
)
def test_claim_is_bound_unless_a_member_lost_it_or_waits(phases: list[str], expected: str) -> None:
    """A lost claim anywhere is Lost; otherwise any non-bound member phase shows."""
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"}}
    items = _items(*({"phase": phase} for phase in phases))
    assert aggregate_status(claim, items, now=NOW)["status"] == {"phase": expected}
