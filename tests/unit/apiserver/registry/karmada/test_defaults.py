"""Karmada's webhook defaults, applied by the hub on every write."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.apiserver.registry.defaults import karmada as defaults
from tests.unit.api.karmada.manifests import CLUSTER, SPREAD_POLICY, WALKTHROUGH_POLICY, fresh

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


def policy(**spec: Any) -> dict[str, Any]:
    """A PropagationPolicy in namespace `apps` selecting Deployment `web`, with `spec` merged in."""
    return {
        "metadata": {"name": "p", "namespace": "apps"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            **spec,
        },
    }


def defaulted(obj: dict[str, Any]) -> dict[str, Any]:
    defaults.default_propagation_policy(obj)
    return obj


def test_selectors_default_to_the_policy_namespace() -> None:
    """An empty namespace inherits the PropagationPolicy's; an explicit one is kept."""
    obj = policy()
    obj["spec"]["resourceSelectors"].append({"apiVersion": "v1", "kind": "ConfigMap", "namespace": "other"})
    spec = defaulted(obj)["spec"]
    assert [s["namespace"] for s in spec["resourceSelectors"]] == ["apps", "other"]


def test_cluster_policy_selectors_keep_no_namespace() -> None:
    """A ClusterPropagationPolicy selects across namespaces: nothing to inherit."""
    obj = fresh(SPREAD_POLICY)
    obj["spec"]["resourceSelectors"][0].pop("namespace")
    defaults.default_cluster_propagation_policy(obj)
    assert "namespace" not in obj["spec"]["resourceSelectors"][0]


def test_spec_level_defaults() -> None:
    """schedulerName, conflictResolution, preemption and priority, as Karmada's webhook and CRD set them."""
    spec = defaulted(fresh(WALKTHROUGH_POLICY) | {"metadata": {"name": "n", "namespace": "default"}})["spec"]
    assert spec["schedulerName"] == "default-scheduler"
    assert (spec["conflictResolution"], spec["preemption"], spec["priority"]) == ("Abort", "Never", 0)
    explicit = defaulted(policy(schedulerName="mine", conflictResolution="Overwrite", priority=5))["spec"]
    assert (explicit["schedulerName"], explicit["conflictResolution"], explicit["priority"]) == (
        "mine",
        "Overwrite",
        5,
    )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}),
        (
            {"replicaSchedulingType": "Divided"},
            {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"},
        ),
        (
            {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
            {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"},
        ),
        ({"replicaSchedulingType": "Duplicated"}, {"replicaSchedulingType": "Duplicated"}),
    ],
)
def test_replica_scheduling_defaults_to_divided_then_weighted(
    given: dict[str, Any], expected: dict[str, Any]
) -> None:
    """A present replicaScheduling is Divided unless told otherwise; Divided alone is Weighted."""
    spec = defaulted(policy(placement={"replicaScheduling": given}))["spec"]
    assert spec["placement"]["replicaScheduling"] == expected


def test_absent_replica_scheduling_stays_absent() -> None:
    """No replicaScheduling means Duplicated, and is not written out."""
    spec = defaulted(policy(placement={"clusterAffinity": {"clusterNames": ["a"]}}))["spec"]
    assert "replicaScheduling" not in spec["placement"]


def test_spread_constraints_default_to_cluster_and_one_group() -> None:
    """Neither field nor label means by cluster; minGroups 0 becomes 1; explicit values stay."""
    constraints = [{}, {"spreadByLabel": "topology/rack"}, {"spreadByField": "region", "minGroups": 3}]
    spec = defaulted(policy(placement={"spreadConstraints": constraints}))["spec"]
    assert spec["placement"]["spreadConstraints"] == [
        {"spreadByField": "cluster", "minGroups": 1},
        {"spreadByLabel": "topology/rack", "minGroups": 1},
        {"spreadByField": "region", "minGroups": 3},
    ]


def test_failover_defaults() -> None:
    """Application failover: 300 s toleration, Gracefully, 600 s grace; cluster failover: Gracefully."""
    spec = defaulted(policy(failover={"application": {"decisionConditions": {}}, "cluster": {}}))["spec"]
    assert spec["failover"] == {
        "application": {
            "decisionConditions": {"tolerationSeconds": 300},
            "purgeMode": "Gracefully",
            "gracePeriodSeconds": 600,
        },
        "cluster": {"purgeMode": "Gracefully"},
    }


def test_no_grace_period_is_invented_for_other_purge_modes() -> None:
    """Only a graceful purge waits; Directly and Never get no gracePeriodSeconds."""
    for mode in ("Directly", "Never"):
        spec = defaulted(policy(failover={"application": {"decisionConditions": {}, "purgeMode": mode}}))[
            "spec"
        ]
        assert "gracePeriodSeconds" not in spec["failover"]["application"]


def test_older_purge_mode_names_become_the_current_ones() -> None:
    """Graciously is stored as Gracefully (and gets its 600 s grace), Immediately as Directly."""
    given = {
        "application": {"decisionConditions": {}, "purgeMode": "Graciously"},
        "cluster": {"purgeMode": "Immediately"},
    }
    failover = defaulted(policy(failover=given))["spec"]["failover"]
    assert (failover["application"]["purgeMode"], failover["application"]["gracePeriodSeconds"]) == (
        "Gracefully",
        600,
    )
    assert failover["cluster"]["purgeMode"] == "Directly"


def test_a_bindings_purge_modes_get_their_current_names() -> None:
    """In a binding's failover and in each graceful eviction task, as in a policy's."""
    binding = {
        "spec": {
            "failover": {"application": {"purgeMode": "Immediately"}, "cluster": {"purgeMode": "Graciously"}},
            "gracefulEvictionTasks": [{"purgeMode": "Graciously"}, {"purgeMode": "Never"}, {}],
        }
    }
    defaults.default_binding(binding)
    spec = binding["spec"]
    assert (spec["failover"]["application"]["purgeMode"], spec["failover"]["cluster"]["purgeMode"]) == (
        "Directly",
        "Gracefully",
    )
    assert [task.get("purgeMode") for task in spec["gracefulEvictionTasks"]] == ["Gracefully", "Never", None]


def test_a_schedule_priority_is_not_defaulted() -> None:
    """Karmada's CRD requires both the source and the class name and its webhook sets neither."""
    spec = defaulted(policy(schedulePriority={"priorityClassName": "high"}))["spec"]
    assert spec["schedulePriority"] == {"priorityClassName": "high"}


def test_service_imports_propagate_their_dependencies() -> None:
    """Selecting a ServiceImport turns propagateDeps on."""
    obj = policy()
    obj["spec"]["resourceSelectors"] = [
        {"apiVersion": "multicluster.x-k8s.io/v1alpha1", "kind": "ServiceImport"}
    ]
    assert defaulted(obj)["spec"]["propagateDeps"] is True
    assert "propagateDeps" not in defaulted(policy())["spec"]


def test_defaulting_is_idempotent() -> None:
    """Defaulting a defaulted policy changes nothing."""
    once = defaulted(policy(placement={"spreadConstraints": [{}], "replicaScheduling": {}}))
    twice = defaulted(fresh(once))
    assert twice == once


def test_malformed_objects_do_not_crash_defaulting() -> None:
    """Type errors are the schema's to report; defaulting leaves such fields as they are."""
    text = {"metadata": {"namespace": "apps"}, "spec": "not-an-object"}
    defaults.default_propagation_policy(text)
    assert text["spec"] == "not-an-object"
    wrong = {
        "metadata": {"namespace": "apps"},
        "spec": {"placement": ["x"], "resourceSelectors": "x", "failover": 3},
    }
    defaults.default_propagation_policy(wrong)
    assert (wrong["spec"]["placement"], wrong["spec"]["resourceSelectors"], wrong["spec"]["failover"]) == (
        ["x"],
        "x",
        3,
    )


def test_override_policy_selectors_default_to_its_namespace() -> None:
    """Like PropagationPolicies, OverridePolicies select in their own namespace by default."""
    obj = {
        "metadata": {"namespace": "apps"},
        "spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "Secret"}]},
    }
    defaults.default_override_policy(obj)
    assert obj["spec"]["resourceSelectors"][0]["namespace"] == "apps"


def test_cluster_zone_moves_into_zones() -> None:
    """The deprecated zone becomes zones when zones is empty; otherwise both stay."""
    cluster = {"spec": {"syncMode": "Push", "zone": "z1"}}
    defaults.default_cluster(cluster)
    assert cluster["spec"] == {"syncMode": "Push", "zones": ["z1"]}
    both = {"spec": {"zone": "z1", "zones": ["z2"]}}
    defaults.default_cluster(both)
    assert both["spec"] == {"zone": "z1", "zones": ["z2"]}


def test_new_clusters_get_the_default_resource_models() -> None:
    """Nine grades of CPU and memory, the last unbounded."""
    cluster = {"spec": {"syncMode": "Push"}}
    defaults.prepare_cluster_create(cluster, NOW)
    models = cluster["spec"]["resourceModels"]
    assert [m["grade"] for m in models] == list(range(9))
    assert models[0]["ranges"] == [
        {"name": "cpu", "min": "0", "max": "1"},
        {"name": "memory", "min": "0", "max": "4Gi"},
    ]
    assert models[7]["ranges"][1] == {"name": "memory", "min": "512Gi", "max": "1Ti"}
    assert models[8]["ranges"][0]["max"] == "9223372036854775807"


def test_given_resource_models_are_sorted_and_bounded() -> None:
    """Sorted by grade; the first starts at 0 and the last ends at MaxInt64."""
    cluster = fresh(CLUSTER)
    models = cluster["spec"]["resourceModels"]
    models.reverse()
    models[1]["ranges"][0]["min"] = "1"
    models[0]["ranges"][0]["max"] = "64"
    defaults.prepare_cluster_create(cluster, NOW)
    assert [m["grade"] for m in cluster["spec"]["resourceModels"]] == [0, 1]
    assert cluster["spec"]["resourceModels"][0]["ranges"][0]["min"] == "0"
    assert cluster["spec"]["resourceModels"][1]["ranges"][0]["max"] == "9223372036854775807"


def test_no_execute_taints_get_a_time_added() -> None:
    """Stamped on create; an update keeps the old stamp of the same taint and stamps new ones."""
    cluster = {
        "spec": {"taints": [{"key": "a", "effect": "NoExecute"}, {"key": "b", "effect": "NoSchedule"}]}
    }
    defaults.prepare_cluster_create(cluster, NOW)
    assert cluster["spec"]["taints"] == [
        {"key": "a", "effect": "NoExecute", "timeAdded": "2026-11-29T12:00:00Z"},
        {"key": "b", "effect": "NoSchedule"},
    ]
    later = datetime(2026, 11, 30, tzinfo=UTC)
    update = {"spec": {"taints": [{"key": "a", "effect": "NoExecute"}, {"key": "c", "effect": "NoExecute"}]}}
    defaults.prepare_cluster_update(update, cluster, later)
    assert [t["timeAdded"] for t in update["spec"]["taints"]] == [
        "2026-11-29T12:00:00Z",
        "2026-11-30T00:00:00Z",
    ]


def test_permanent_ids_are_given_once_and_kept() -> None:
    """Policies get a fresh id on create; updates carry the old one over even when a client drops it."""
    label = "propagationpolicy.karmada.io/permanent-id"
    created: dict[str, Any] = {"metadata": {"labels": {label: "from-the-client"}}}
    defaults.assign_permanent_id(created, label, lambda: "new-id")
    assert created["metadata"]["labels"][label] == "new-id"
    updated: dict[str, Any] = {"metadata": {}}
    defaults.keep_permanent_id(updated, created, label, lambda: "other")
    assert updated["metadata"]["labels"][label] == "new-id"
    orphan: dict[str, Any] = {"metadata": {}}
    defaults.keep_permanent_id(orphan, {"metadata": {}}, label, lambda: "late")
    assert orphan["metadata"]["labels"][label] == "late"


def test_bindings_keep_a_permanent_id_they_arrive_with() -> None:
    """Bindings and Works get an id only when they have none (a restored object keeps its own)."""
    label = "resourcebinding.karmada.io/permanent-id"
    restored: dict[str, Any] = {"metadata": {"labels": {label: "kept"}}}
    defaults.ensure_permanent_id(restored, label, lambda: "new")
    assert restored["metadata"]["labels"][label] == "kept"
    fresh_binding: dict[str, Any] = {}
    defaults.ensure_permanent_id(fresh_binding, label, lambda: "new")
    assert fresh_binding["metadata"]["labels"][label] == "new"
