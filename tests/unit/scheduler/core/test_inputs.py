"""Reading bindings and clusters: Karmada field names, defaults, tolerance of odd shapes."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, TargetCluster
from flotilla.scheduler.core.placement import (
    DivisionPreference,
    SchedulingType,
    SpreadConstraint,
    Strategy,
    placement_from_object,
)
from tests.unit.scheduler.manifests import binding, binding_object, cluster, dynamic_weights, static_weights


def test_binding_fields_are_read_by_their_karmada_names() -> None:
    """Resource, replicas, requests, targets, eviction tasks, times and the observed term come through."""
    info = binding(
        replicas=3,
        clusters={"a": 2, "b": 1},
        requests={"cpu": "250m", "memory": "64Mi"},
        evicted_from=["c"],
        observed_affinity="primary",
        reschedule_triggered_at="2026-02-01T00:00:00Z",
        last_scheduled_time="2026-01-01T00:00:00Z",
        uid="uid-7",
        template_uid="template-uid",
    )
    assert (info.api_version, info.kind, info.replicas, info.uid) == ("apps/v1", "Deployment", 3, "uid-7")
    assert info.template_uid == "template-uid"
    assert info.clusters == (TargetCluster("a", 2), TargetCluster("b", 1))
    assert info.replica_requirements is not None
    assert info.replica_requirements.resource_request == {
        "cpu": Fraction(1, 4),
        "memory": Fraction(64 * 2**20),
    }
    assert info.graceful_eviction_clusters == frozenset({"c"})
    assert info.scheduler_observed_affinity_name == "primary"
    assert info.reschedule_triggered_at == datetime(2026, 2, 1, tzinfo=UTC)
    assert info.last_scheduled_time == datetime(2026, 1, 1, tzinfo=UTC)


def test_missing_replica_scheduling_means_duplicated() -> None:
    """No `replicaScheduling` is Duplicated, as Karmada reads a nil strategy."""
    assert placement_from_object({}).strategy == Strategy.DUPLICATED


def test_empty_replica_scheduling_defaults_to_divided_weighted() -> None:
    """A present but empty `replicaScheduling` gets the CRD and webhook defaults: Divided, Weighted."""
    scheduling = placement_from_object({"replicaScheduling": {}}).replica_scheduling
    assert scheduling is not None
    assert (scheduling.scheduling_type, scheduling.division_preference) == (
        SchedulingType.DIVIDED,
        DivisionPreference.WEIGHTED,
    )
    assert placement_from_object({"replicaScheduling": {}}).strategy == Strategy.STATIC_WEIGHT


def test_strategies_are_told_apart() -> None:
    """Static list, dynamic weight and Aggregated map to their strategies; dynamic wins over a static list."""
    assert placement_from_object(static_weights({"a": 1})).strategy == Strategy.STATIC_WEIGHT
    assert placement_from_object(dynamic_weights()).strategy == Strategy.DYNAMIC_WEIGHT
    assert placement_from_object(dynamic_weights(aggregated=True)).strategy == Strategy.AGGREGATED
    both = static_weights({"a": 1})
    both["replicaScheduling"]["weightPreference"]["dynamicWeight"] = "AvailableReplicas"
    assert placement_from_object(both).strategy == Strategy.DYNAMIC_WEIGHT


def test_spread_constraint_without_field_or_label_spreads_by_cluster() -> None:
    """The webhook default: field `cluster`, minGroups 1."""
    placement = placement_from_object({"spreadConstraints": [{"maxGroups": 2}]})
    assert placement.spread_constraints == (SpreadConstraint("cluster", "", 2, 1),)


def test_applied_placement_annotation_is_parsed() -> None:
    """The last scheduled placement is read from `policy.karmada.io/applied-placement`."""
    info = binding(placement=static_weights({"a": 1}), applied_placement=static_weights({"a": 1}))
    assert info.applied_placement == info.placement


def test_unreadable_applied_placement_counts_as_unchanged() -> None:
    """Karmada treats an annotation it cannot decode as no change; so do we."""
    raw = binding_object(placement=static_weights({"a": 1}))
    raw["metadata"]["annotations"]["policy.karmada.io/applied-placement"] = "{not json"
    info = BindingInfo.from_object(raw)
    assert info.applied_placement == info.placement


def test_cluster_fields_are_read() -> None:
    """Labels, topology, taints, API enablements and the resource summary come through."""
    info = cluster(
        "a",
        labels={"env": "prod"},
        provider="aws",
        region="eu",
        zones=["eu-1a"],
        taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}],
        allocated={"cpu": "500m"},
    )
    assert (info.labels, info.provider, info.region, info.zones) == ({"env": "prod"}, "aws", "eu", ("eu-1a",))
    assert str(info.taints[0]) == "k=v:NoSchedule"
    assert ("apps/v1", "Deployment") in info.api_enablements
    assert info.resource_summary is not None
    assert info.resource_summary.allocated == {"cpu": Fraction(1, 2)}


def test_deprecated_zone_becomes_zones() -> None:
    """`spec.zone` is migrated into `spec.zones`, as Karmada's mutation does."""
    info = ClusterInfo.from_object({"metadata": {"name": "a"}, "spec": {"zone": "z1"}})
    assert info.zones == ("z1",)


def test_odd_shapes_read_as_absent() -> None:
    """Wrong types and bad quantities are skipped instead of failing the whole object."""
    info = ClusterInfo.from_object(
        {
            "metadata": {"name": "a", "labels": None},
            "spec": {"taints": "nope", "zones": [1, "z"]},
            "status": {"resourceSummary": {"allocatable": {"cpu": "lots", "pods": "10"}}},
        }
    )
    assert info.taints == () and info.zones == ("z",)
    assert info.resource_summary is not None
    assert info.resource_summary.allocatable == {"pods": Fraction(10)}


def test_deleting_objects_are_marked() -> None:
    """A deletion timestamp marks a cluster as being deleted."""
    assert cluster("a", deleting=True).deleting


def test_the_clusters_the_application_failed_on_are_read_from_the_annotation() -> None:
    """`failover.flotilla.io/application-failed-on`, less entries older than a reschedule request."""
    failed_on = {"a": "2026-01-01T00:00:00.000000Z", "b": "2026-03-01T00:00:00.000000Z"}
    assert binding(failed_on=failed_on).application_failed_clusters == frozenset({"a", "b"})
    forgiven = binding(failed_on=failed_on, reschedule_triggered_at="2026-02-01T00:00:00Z")
    assert forgiven.application_failed_clusters == frozenset({"b"})
    assert binding().application_failed_clusters == frozenset()


def test_the_round_time_comes_in_with_the_binding() -> None:
    """The core keeps no clock: `now` is what the shell passed, None when it passed nothing."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert BindingInfo.from_object(binding_object(), now=now).now == now
    assert binding().now is None


def test_cluster_taints_keep_their_time_added() -> None:
    """NoExecute taints carry `timeAdded`, which toleration seconds count from."""
    taint = {"key": "k", "effect": "NoExecute", "timeAdded": "2026-01-01T00:00:05Z"}
    assert cluster("a", taints=[taint]).taints[0].time_added == datetime(2026, 1, 1, 0, 0, 5, tzinfo=UTC)
