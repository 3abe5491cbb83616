"""The arithmetic of Deployment rollouts: surge and unavailability, and how ReplicaSets are resized."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from flotilla.sim.controllers.deployments import rollout
from flotilla.sim.controllers.deployments.revisions import DESIRED_REPLICAS, MAX_REPLICAS


def deployment(
    replicas: int, surge: int | str = "25%", unavailable: int | str = "25%", **extra: Any
) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "generation": 1},
        "spec": {
            "replicas": replicas,
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable},
            },
        },
        **extra,
    }


def replica_set(
    name: str,
    replicas: int,
    available: int | None = None,
    created: str = "2026-01-01T00:00:00Z",
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "creationTimestamp": created, "annotations": annotations or {}},
        "spec": {"replicas": replicas},
        "status": {"replicas": replicas, "availableReplicas": replicas if available is None else available},
    }


def test_fenceposts_never_forbid_every_move() -> None:
    """With both values resolving to 0, one pod may be unavailable."""
    assert rollout.resolve_fenceposts("25%", "25%", 3) == (1, 0)
    assert rollout.resolve_fenceposts(0, "10%", 3) == (0, 1)
    assert rollout.resolve_fenceposts(2, 1, 10) == (2, 1)


def test_max_unavailable_is_at_most_the_replicas_and_zero_for_recreate() -> None:
    """maxUnavailable 5 of 3 replicas is 3; a Recreate Deployment has no surge or unavailability."""
    assert rollout.max_unavailable(deployment(3, surge=0, unavailable=5)) == 3
    recreate = deployment(3)
    recreate["spec"]["strategy"] = {"type": "Recreate"}
    assert rollout.max_unavailable(recreate) == 0 and rollout.max_surge(recreate) == 0


def test_the_new_replica_set_grows_within_the_surge() -> None:
    """10 replicas, surge 3: with 10 old pods the new ReplicaSet may have 3, never past the desired count."""
    d = deployment(10, surge=3, unavailable=0)
    old = replica_set("old", 10)
    new = replica_set("new", 0)
    assert rollout.new_replica_set_replicas(d, [old, new], new) == 3
    assert rollout.new_replica_set_replicas(d, [replica_set("old", 13), new], new) == 0
    nearly = replica_set("new", 9)
    assert rollout.new_replica_set_replicas(d, [replica_set("old", 1), nearly], nearly) == 10


def test_old_replica_sets_shrink_only_as_far_as_availability_allows() -> None:
    """10 replicas, surge 3, unavailable 2, 3 new pods not yet available: 2 of the 10 old pods go."""
    d = deployment(10, surge=3, unavailable=2)
    old = replica_set("old", 10)
    new = replica_set("new", 3, available=0)
    # total 13, minimum available 8, new unavailable 3: budget 13 - 8 - 3 = 2; available 10 - 8 = 2.
    assert rollout.old_replica_sets_scale_down(d, [old], new) == {"old": 8}


def test_unhealthy_old_replicas_are_removed_first() -> None:
    """Old pods that are not available go even when no available pod may."""
    d = deployment(4, surge=0, unavailable=0)  # unavailable resolves to 1
    old = replica_set("old", 4, available=2)
    new = replica_set("new", 0)
    # budget 4 - 3 - 0 = 1: one unhealthy pod goes; then available 2 <= 3 stops the rest.
    assert rollout.old_replica_sets_scale_down(d, [old], new) == {"old": 3}


def test_the_oldest_replica_sets_are_scaled_down_first() -> None:
    """Among old ReplicaSets the older one shrinks first."""
    d = deployment(4, surge=1, unavailable=1)
    older = replica_set("older", 2, created="2026-01-01T00:00:00Z")
    newer = replica_set("newer", 2, created="2026-01-02T00:00:00Z")
    new = replica_set("new", 1, available=1)
    # total 5, min available 3, new unavailable 0: budget 2; available 5 - 3 = 2 → older loses both.
    assert rollout.old_replica_sets_scale_down(d, [newer, older], new) == {"older": 0}


def test_scaling_a_single_active_replica_set_gives_it_everything() -> None:
    """Outside a rollout, the one active ReplicaSet takes the new replica count."""
    d = deployment(5)
    plan = rollout.scaling_plan(d, replica_set("new", 3), [replica_set("old", 0)])
    assert plan.sizes == {"new": 5} and not plan.proportional


def test_scaling_during_a_rollout_is_proportional() -> None:
    """10 → 20 replicas mid-rollout (surge 3): the 8 + 5 pods grow to 23 in proportion, 14 + 9."""
    d = deployment(20, surge=3, unavailable=2)
    annotations = {DESIRED_REPLICAS: "10", MAX_REPLICAS: "13"}
    old = replica_set("old", 8, created="2026-01-01T00:00:00Z", annotations=annotations)
    new = replica_set("new", 5, available=0, created="2026-01-02T00:00:00Z", annotations=annotations)
    plan = rollout.scaling_plan(d, new, [old])
    assert plan.proportional and plan.operation == "up"
    assert plan.sizes == {"old": 14, "new": 9}
    assert sum(plan.sizes.values()) == 23


def test_scaling_down_during_a_rollout_keeps_sizes_non_negative() -> None:
    """Down to 0 replicas, every active ReplicaSet goes to 0."""
    d = deployment(0)
    annotations = {DESIRED_REPLICAS: "10", MAX_REPLICAS: "13"}
    plan = rollout.scaling_plan(
        d,
        replica_set("new", 5, available=0, created="2026-01-02T00:00:00Z", annotations=annotations),
        [replica_set("old", 8, annotations=annotations)],
    )
    assert plan.sizes == {"old": 0, "new": 0} and plan.operation == "down"


@given(
    desired=st.integers(0, 50),
    surge=st.one_of(st.integers(0, 10), st.sampled_from(["0%", "10%", "25%", "50%", "100%"])),
    unavailable=st.one_of(st.integers(0, 10), st.sampled_from(["0%", "10%", "25%", "50%", "100%"])),
    old_size=st.integers(0, 60),
    new_size=st.integers(0, 60),
)
def test_a_rollout_step_never_exceeds_replicas_plus_surge(
    desired: int, surge: int | str, unavailable: int | str, old_size: int, new_size: int
) -> None:
    """Growing the new ReplicaSet keeps the total within replicas + maxSurge, and it within replicas."""
    d = deployment(desired, surge=surge, unavailable=unavailable)
    old = replica_set("old", old_size)
    new = replica_set("new", min(new_size, desired), available=0)
    grown = rollout.new_replica_set_replicas(d, [old, new], new)
    assert rollout.spec_replicas(new) <= grown <= max(desired, rollout.spec_replicas(new))
    if old_size + rollout.spec_replicas(new) <= desired + rollout.max_surge(d):
        assert old_size + grown <= desired + rollout.max_surge(d)


@given(desired=st.integers(1, 50), sizes=st.lists(st.integers(1, 30), min_size=2, max_size=4))
def test_proportional_scaling_reaches_the_allowed_total(desired: int, sizes: list[int]) -> None:
    """ReplicaSets that filled the former replicas + surge are resized toward the new total.

    kube's proportional scaling hands the rounding leftover to the largest ReplicaSet and clamps it at
    zero, so with many tiny ReplicaSets scaled down hard the total can stay above the target; it never
    goes below the new desired count nor above what the ReplicaSets held.
    """
    d = deployment(desired, surge=1, unavailable=0)
    previous = sum(sizes) - 1  # as a rollout leaves them: the sizes add up to replicas + surge
    annotations = {DESIRED_REPLICAS: str(previous), MAX_REPLICAS: str(previous + 1)}
    sets = [
        replica_set(
            f"rs-{i}", size, available=0, created=f"2026-01-0{i + 1}T00:00:00Z", annotations=annotations
        )
        for i, size in enumerate(sizes)
    ]
    plan = rollout.scaling_plan(d, sets[-1], sets[:-1])
    assert plan.proportional
    assert all(size >= 0 for size in plan.sizes.values())
    total = sum(plan.sizes.values())
    assert desired <= total <= max(sum(sizes), desired + 1)
    if desired + 1 >= sum(sizes):
        assert total == desired + 1
