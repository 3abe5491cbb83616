"""StatefulSets and DaemonSets on the hub: kstatus says Current exactly when every copy is."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.interpreter import aggregate_status
from tests.unit.interpreter.kstatus import CURRENT, IN_PROGRESS, kstatus

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
STATEFUL_SET = {
    "apiVersion": "apps/v1",
    "kind": "StatefulSet",
    "metadata": {"name": "db", "namespace": "shop", "generation": 2},
    "spec": {"replicas": 4},
}
DAEMON_SET = {
    "apiVersion": "apps/v1",
    "kind": "DaemonSet",
    "metadata": {"name": "agent", "namespace": "shop", "generation": 2},
    "spec": {},
}


def _items(**copies: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {"clusterName": cluster, "applied": status is not None, **({"status": status} if status else {})}
        for cluster, status in copies.items()
    ]


def _stateful_copy(*, current: str = "db-2", update: str = "db-2", ready: int = 2) -> dict[str, Any]:
    rolled = current == update
    return {
        "generation": 1,
        "resourceTemplateGeneration": 2,
        "observedGeneration": 1,
        "replicas": 2,
        "readyReplicas": ready,
        "currentReplicas": 2 if rolled else 1,
        "updatedReplicas": 2 if rolled else 1,
        "availableReplicas": ready,
        "currentRevision": current,
        "updateRevision": update,
    }


def test_stateful_set_rolled_out_everywhere_is_current() -> None:
    """Counters summed, both revisions equal: kstatus says Current."""
    status = aggregate_status(STATEFUL_SET, _items(a=_stateful_copy(), b=_stateful_copy()), now=NOW)
    assert status["status"] == {
        "observedGeneration": 2,
        "replicas": 4,
        "readyReplicas": 4,
        "currentReplicas": 4,
        "updatedReplicas": 4,
        "availableReplicas": 4,
        "currentRevision": "db-2",
        "updateRevision": "db-2",
    }
    assert kstatus(status) == CURRENT


def test_one_copy_mid_rollout_shows_its_differing_revisions() -> None:
    """The first copy still rolling lends its revisions, which differ: kstatus says InProgress."""
    items = _items(a=_stateful_copy(), b=_stateful_copy(current="db-1", update="db-2"))
    status = aggregate_status(STATEFUL_SET, items, now=NOW)["status"]
    assert (status["currentRevision"], status["updateRevision"]) == ("db-1", "db-2")
    assert kstatus({**STATEFUL_SET, "status": status}) == IN_PROGRESS


def test_revisions_differ_while_a_copy_has_not_reported() -> None:
    """A copy not applied yet leaves currentRevision out; its missing replicas keep kstatus InProgress."""
    status = aggregate_status(STATEFUL_SET, _items(a=_stateful_copy(), b=None), now=NOW)["status"]
    assert status["updateRevision"] == "db-2"
    assert "currentRevision" not in status
    assert kstatus({**STATEFUL_SET, "status": status}) == IN_PROGRESS


def test_copies_with_their_own_revision_names_still_agree_when_done() -> None:
    """An override can give each copy its own hash; finished copies still show equal revisions."""
    items = _items(
        a=_stateful_copy(current="db-7f", update="db-7f"), b=_stateful_copy(current="db-9c", update="db-9c")
    )
    status = aggregate_status(STATEFUL_SET, items, now=NOW)["status"]
    assert (status["currentRevision"], status["updateRevision"]) == ("db-7f", "db-7f")


def _daemon_copy(*, desired: int = 3, ready: int = 3, observed: int = 1) -> dict[str, Any]:
    return {
        "generation": 1,
        "resourceTemplateGeneration": 2,
        "observedGeneration": observed,
        "currentNumberScheduled": desired,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": desired,
        "numberReady": ready,
        "updatedNumberScheduled": desired,
        "numberAvailable": ready,
    }


def test_daemon_set_on_every_node_of_every_copy_is_current() -> None:
    """Counters summed over copies, observedGeneration set: kstatus says Current."""
    status = aggregate_status(
        DAEMON_SET, _items(a=_daemon_copy(), b=_daemon_copy(desired=2, ready=2)), now=NOW
    )
    assert status["status"] == {
        "currentNumberScheduled": 5,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 5,
        "numberReady": 5,
        "observedGeneration": 2,
        "updatedNumberScheduled": 5,
        "numberAvailable": 5,
    }
    assert kstatus(status) == CURRENT


@pytest.mark.parametrize(
    "lagging",
    [_daemon_copy(ready=1), _daemon_copy(observed=0), None],
    ids=["pods-not-ready", "copy-not-observed", "not-applied"],
)
def test_a_daemon_set_copy_behind_keeps_kstatus_in_progress(lagging: dict[str, Any] | None) -> None:
    """A copy not ready, not observed or not applied yet: never Current on a freshly created template."""
    status = aggregate_status(DAEMON_SET, _items(a=_daemon_copy(), b=lagging), now=NOW)
    assert kstatus(status) == IN_PROGRESS
