"""Replica division: duplicated, static weights, dynamic weights (steady and fresh), aggregated, tiers."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.scheduler.core.division import assign_replicas
from flotilla.scheduler.core.errors import SchedulerError, UnschedulableError
from flotilla.scheduler.core.inputs import TargetCluster
from tests.unit.scheduler.manifests import binding, cluster, dynamic_weights, static_weights

A, B, C = cluster("member1"), cluster("member2"), cluster("member3")

RESCHEDULED = {
    "reschedule_triggered_at": "2026-02-01T00:00:00Z",
    "last_scheduled_time": "2026-01-01T00:00:00Z",
}


def split(targets: list[TargetCluster]) -> dict[str, int]:
    return {target.name: target.replicas for target in targets}


def test_duplicated_gives_every_cluster_all_replicas() -> None:
    """Every selected cluster runs spec.replicas."""
    assert split(assign_replicas(binding(replicas=3), [A, B], {})) == {"member1": 3, "member2": 3}


def test_non_workload_goes_everywhere_without_replicas() -> None:
    """A binding without replicas is placed on every cluster whatever the mode."""
    info = binding(placement=static_weights({"member1": 1}))
    assert assign_replicas(info, [A, B], {}) == [TargetCluster("member1"), TargetCluster("member2")]


def test_no_candidates_is_an_error() -> None:
    """Karmada's `no clusters available to schedule`."""
    with pytest.raises(SchedulerError, match="no clusters available to schedule"):
        assign_replicas(binding(replicas=1), [], {})


def test_equal_static_weights_split_two_replicas_one_each() -> None:
    """The getting-started walkthrough: 1:1 over two clusters with 2 replicas is 1/1."""
    info = binding(replicas=2, placement=static_weights({"member1": 1, "member2": 1}))
    assert split(assign_replicas(info, [A, B], {})) == {"member1": 1, "member2": 1}


@pytest.mark.parametrize(("uid", "expected"), [("uid-0", "member1"), ("uid-1", "member2")])
def test_odd_replica_at_equal_weights_follows_the_template_uid_hash(uid: str, expected: str) -> None:
    """3 over 1:1: even FNV-1a of the template's UID gives the extra replica to the first name, odd to
    the last."""
    info = binding(replicas=3, template_uid=uid, placement=static_weights({"member1": 1, "member2": 1}))
    assert split(assign_replicas(info, [A, B], {}))[expected] == 2


def test_static_weights_one_two_three_with_six_replicas() -> None:
    """Exact proportions come out exactly: 1/2/3."""
    info = binding(replicas=6, placement=static_weights({"member1": 1, "member2": 2, "member3": 3}))
    assert split(assign_replicas(info, [A, B, C], {})) == {"member1": 1, "member2": 2, "member3": 3}


def test_clusters_without_a_weight_rule_get_nothing() -> None:
    """Unmatched clusters are left out of static division (different from weight 0)."""
    info = binding(replicas=4, placement=static_weights({"member1": 1}))
    assert split(assign_replicas(info, [A, B], {})) == {"member1": 4}


def test_no_matching_weight_rule_weighs_everyone_equally() -> None:
    """When no candidate matches a rule, each weighs 1."""
    info = binding(replicas=4, placement=static_weights({"elsewhere": 5}))
    assert split(assign_replicas(info, [A, B], {})) == {"member1": 2, "member2": 2}


def test_largest_matching_rule_sets_the_weight() -> None:
    """A cluster matched by several rules weighs the largest of them."""
    placement = static_weights({"member1": 1, "member2": 1})
    placement["replicaScheduling"]["weightPreference"]["staticWeightList"].append(
        {"targetCluster": {"clusterNames": ["member2"]}, "weight": 3}
    )
    assert split(assign_replicas(binding(replicas=4, placement=placement), [A, B], {})) == {
        "member1": 1,
        "member2": 3,
    }


def test_static_division_ignores_the_previous_result() -> None:
    """Static weights are recomputed from scratch each time."""
    info = binding(
        replicas=2, clusters={"member1": 2}, placement=static_weights({"member1": 1, "member2": 1})
    )
    assert split(assign_replicas(info, [A, B], {})) == {"member1": 1, "member2": 1}


def test_dynamic_first_schedule_follows_available_replicas() -> None:
    """Weights are the clusters' free capacity: 6 over 2:4 capacity is 2/4."""
    info = binding(replicas=6, placement=dynamic_weights())
    assert split(assign_replicas(info, [A, B], {"member1": 20, "member2": 40})) == {
        "member1": 2,
        "member2": 4,
    }


def test_dynamic_scale_up_only_places_the_new_replicas() -> None:
    """Steady: existing replicas stay; the 3 new ones go where there is room."""
    info = binding(replicas=9, clusters={"member1": 4, "member2": 2}, placement=dynamic_weights())
    assert split(assign_replicas(info, [A, B], {"member1": 0, "member2": 30})) == {"member1": 4, "member2": 5}


def test_dynamic_scale_down_keeps_proportions() -> None:
    """Steady: the previous 4:2 split shrinks to 2:1."""
    info = binding(replicas=3, clusters={"member1": 4, "member2": 2}, placement=dynamic_weights())
    assert split(assign_replicas(info, [A, B], {"member1": 100, "member2": 100})) == {
        "member1": 2,
        "member2": 1,
    }


def test_dynamic_scale_up_then_down_returns_to_the_same_split() -> None:
    """Scaling 2:2 up to 6 (room 1:1) and back to 4 gives 2:2 again."""
    placement = dynamic_weights()
    up = split(
        assign_replicas(
            binding(replicas=6, clusters={"member1": 2, "member2": 2}, placement=placement),
            [A, B],
            {"member1": 10, "member2": 10},
        )
    )
    assert up == {"member1": 3, "member2": 3}
    down = split(
        assign_replicas(
            binding(replicas=4, clusters=up, placement=placement), [A, B], {"member1": 10, "member2": 10}
        )
    )
    assert down == {"member1": 2, "member2": 2}


def test_dynamic_unchanged_total_keeps_the_previous_result() -> None:
    """Steady: nothing moves when the total matches, whatever capacity says."""
    info = binding(replicas=6, clusters={"member1": 4, "member2": 2}, placement=dynamic_weights())
    assert split(assign_replicas(info, [A, B], {"member1": 0, "member2": 100})) == {
        "member1": 4,
        "member2": 2,
    }


def test_fresh_reschedule_rebalances_from_scratch() -> None:
    """Fresh: weights are free capacity plus current replicas (6 and 6), so 4:2 becomes 3:3."""
    info = binding(
        replicas=6, clusters={"member1": 4, "member2": 2}, placement=dynamic_weights(), **RESCHEDULED
    )
    assert split(assign_replicas(info, [A, B], {"member1": 2, "member2": 4})) == {"member1": 3, "member2": 3}


def test_replicas_on_clusters_no_longer_selected_are_placed_again() -> None:
    """Replicas of a cluster that left the candidates count as missing and go elsewhere."""
    info = binding(replicas=4, clusters={"member1": 2, "gone": 2}, placement=dynamic_weights())
    assert split(assign_replicas(info, [A, B], {"member1": 0, "member2": 10})) == {"member1": 2, "member2": 2}


def test_not_enough_capacity_is_unschedulable() -> None:
    """Karmada's message, wrapped in the mode that failed."""
    info = binding(replicas=5, placement=dynamic_weights())
    with pytest.raises(UnschedulableError) as caught:
        assign_replicas(info, [A, B], {"member1": 1, "member2": 2})
    assert (
        str(caught.value) == "failed to scale up: Clusters available replicas 3 are not enough to schedule."
    )


def test_aggregated_packs_into_the_fewest_clusters() -> None:
    """5 replicas fit in the roomiest cluster alone."""
    info = binding(replicas=5, placement=dynamic_weights(aggregated=True))
    assert split(assign_replicas(info, [A, B, C], {"member1": 3, "member2": 10, "member3": 4})) == {
        "member2": 5
    }


def test_aggregated_spills_only_as_far_as_needed() -> None:
    """12 replicas need the two roomiest clusters, split by their capacity."""
    info = binding(replicas=12, placement=dynamic_weights(aggregated=True))
    assert split(assign_replicas(info, [A, B, C], {"member1": 3, "member2": 10, "member3": 4})) == {
        "member2": 9,
        "member3": 3,
    }


def test_aggregated_scale_up_prefers_clusters_already_running_it() -> None:
    """New replicas join the cluster that has some, even when another has more room."""
    info = binding(replicas=4, clusters={"member1": 2}, placement=dynamic_weights(aggregated=True))
    assert split(assign_replicas(info, [A, B], {"member1": 5, "member2": 10})) == {"member1": 4}


def test_overflow_tier_takes_only_what_the_first_tier_cannot() -> None:
    """Tier 0 fills to its capacity, the rest overflows to tier 1."""
    info = binding(replicas=5, placement=dynamic_weights())
    targets = assign_replicas(info, [A, B], {"member1": 3, "member2": 10}, {"member1": 0, "member2": 1})
    assert split(targets) == {"member1": 3, "member2": 2}


def test_scale_down_retracts_from_the_last_tier_first() -> None:
    """Shrinking 3+2 to 4 takes the replica back from the overflow tier."""
    info = binding(replicas=4, clusters={"member1": 3, "member2": 2}, placement=dynamic_weights())
    targets = assign_replicas(info, [A, B], {"member1": 0, "member2": 8}, {"member1": 0, "member2": 1})
    assert split(targets) == {"member1": 3, "member2": 1}


# --- properties --------------------------------------------------------------------------------

NAMES = ["member1", "member2", "member3", "member4", "member5"]
weights_by_cluster = st.lists(st.integers(1, 20), min_size=1, max_size=5).map(
    lambda ws: dict(zip(NAMES, ws, strict=False))
)


@given(st.integers(1, 500), weights_by_cluster, st.text("0123456789abcdef-", max_size=12))
def test_static_assignment_sums_to_the_replicas(replicas: int, weights: dict[str, int], uid: str) -> None:
    """Every replica is placed, none twice."""
    info = binding(replicas=replicas, template_uid=uid, placement=static_weights(weights))
    targets = assign_replicas(info, [cluster(name) for name in weights], {})
    assert sum(target.replicas for target in targets) == replicas


@given(
    st.integers(1, 500),
    weights_by_cluster.filter(lambda ws: len(ws) <= 3),
    st.sampled_from(["uid-0", "uid-1"]),
)
def test_static_weights_are_proportional_within_one_replica(
    replicas: int, weights: dict[str, int], uid: str
) -> None:
    """With up to three clusters each share is within one replica of its exact quota.

    (Webster can exceed quota by design with four or more parties; Karmada inherits that.)
    """
    info = binding(replicas=replicas, template_uid=uid, placement=static_weights(weights))
    shares = split(assign_replicas(info, [cluster(name) for name in weights], {}))
    total = sum(weights.values())
    for name, weight in weights.items():
        assert abs(shares.get(name, 0) - Fraction(replicas * weight, total)) < 1


@given(st.integers(1, 200), weights_by_cluster, st.text("0123456789abcdef", max_size=8), st.randoms())
def test_same_uid_gives_the_same_answer_in_any_cluster_order(
    replicas: int, weights: dict[str, int], uid: str, rng: random.Random
) -> None:
    """Determinism: the result depends on weights and UID only, not on the order clusters arrive in."""
    info = binding(replicas=replicas, template_uid=uid, placement=static_weights(weights))
    clusters = [cluster(name) for name in weights]
    first = assign_replicas(info, clusters, {})
    rng.shuffle(clusters)
    assert assign_replicas(info, clusters, {}) == first


@given(
    st.integers(1, 300),
    st.dictionaries(st.sampled_from(NAMES), st.integers(0, 100), min_size=1, max_size=5),
    st.dictionaries(st.sampled_from(NAMES), st.integers(0, 50), max_size=5),
    st.booleans(),
)
def test_dynamic_assignment_sums_to_the_replicas_when_feasible(
    replicas: int, room: dict[str, int], previous: dict[str, int], aggregated: bool
) -> None:
    """Whenever capacity suffices, steady dynamic division places exactly spec.replicas."""
    candidates = [cluster(name) for name in room]
    kept = sum(count for name, count in previous.items() if name in room)
    info = binding(replicas=replicas, clusters=previous, placement=dynamic_weights(aggregated=aggregated))
    if kept < replicas and sum(room.values()) < replicas - kept:
        with pytest.raises(UnschedulableError):
            assign_replicas(info, candidates, room)
        return
    targets = assign_replicas(info, candidates, room)
    assert sum(target.replicas for target in targets) == replicas
    assert {target.name for target in targets} <= set(room)
