"""What a failover preserves: values read from the failed copy's status, or an open failover's state."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.karmada.policy import StatePreservation
from flotilla.api.karmada.work import GracefulEvictionTask
from flotilla.controllers.applicationfailover.statepreservation import (
    StateNotPreserved,
    carried_state,
    preserved_state,
)

RULES = StatePreservation.from_object(
    {
        "rules": [
            {"aliasLabelName": "example.io/job-id", "jsonPath": "{ .jobStatus.jobID }"},
            {"aliasLabelName": "example.io/replicas", "jsonPath": "{.replicas}"},
        ]
    }
)
STATUS = {"replicas": 2, "jobStatus": {"jobID": "job-2"}}


def task(cluster: str, before: list[str], mode: str = "Directly", **state: str) -> GracefulEvictionTask:
    fields: dict[str, Any] = {
        "fromCluster": cluster,
        "purgeMode": mode,
        "reason": "ApplicationFailure",
        "producer": "p",
        "clustersBeforeFailover": before,
    }
    if state:
        fields["preservedLabelState"] = state
    return GracefulEvictionTask.from_object(fields)


def test_each_rule_reads_its_value_from_the_status() -> None:
    """Paths start at `.status`: the item's status is the document."""
    assert preserved_state(RULES, STATUS, [], "member1") == {
        "example.io/job-id": "job-2",
        "example.io/replicas": "2",
    }


def test_a_policy_without_rules_preserves_nothing() -> None:
    assert preserved_state(None, STATUS, [], "member1") is None
    assert preserved_state(StatePreservation(), STATUS, [], "member1") is None


def test_no_status_collected_yet_makes_the_failover_wait() -> None:
    with pytest.raises(StateNotPreserved, match="has not yet been collected from cluster member1"):
        preserved_state(RULES, None, [], "member1")


def test_a_rule_that_finds_nothing_makes_the_failover_wait() -> None:
    """An empty label would lose the state without a word: Karmada refuses, and so do we."""
    with pytest.raises(StateNotPreserved, match=r"jobStatus is not found") as raised:
        preserved_state(RULES, {"replicas": 2}, [], "member1")
    assert "example.io/job-id" in str(raised.value)
    assert "member1" in str(raised.value)


def test_a_destination_that_never_turned_healthy_passes_on_the_state_it_received() -> None:
    """member1 → member2 is still open (member2 never ran healthy): member2 failing hands on job-1."""
    open_failover = task("member1", ["member1"], **{"example.io/job-id": "job-1"})
    assert preserved_state(RULES, STATUS, [open_failover], "member2") == {"example.io/job-id": "job-1"}


def test_state_is_read_afresh_when_no_open_failover_handed_it_here() -> None:
    """The cluster ran the workload before that failover, or that failover did not purge directly
    (no state was injected), or it preserved nothing."""
    directly = task("member1", ["member1", "member2"], **{"example.io/job-id": "job-1"})
    gracefully = task("member1", ["member1"], "Gracefully", **{"example.io/job-id": "job-1"})
    stateless = task("member1", ["member1"])
    for tasks in ([directly], [gracefully], [stateless], []):
        assert preserved_state(RULES, STATUS, tasks, "member2") == {
            "example.io/job-id": "job-2",
            "example.io/replicas": "2",
        }


def test_the_newest_failover_with_state_decides() -> None:
    first = task("member1", ["member1"], **{"example.io/job-id": "job-1"})
    second = task("member3", ["member3"], **{"example.io/job-id": "job-3"})
    assert carried_state([first, second], "member2") == {"example.io/job-id": "job-3"}
    assert carried_state([first, second], "member3") is None
