"""The binding the detector builds for a template and its policy, and when an existing one is current."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.controllers.detector.binding import (
    TEMPLATE_SPECIFICATION_ANNOTATION,
    binding_up_to_date,
    build_binding,
)
from flotilla.controllers.detector.watched import specification_fingerprint
from tests.unit.controllers.detector.policies import (
    by_name,
    cluster_propagation_policy,
    deployment,
    propagation_policy,
)

WEIGHTED = {
    "clusterAffinity": {"clusterNames": ["sz", "fz"]},
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {"staticWeightList": [{"targetCluster": {"clusterNames": ["sz"]}, "weight": 1}]},
    },
}


def _cluster_role() -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "Reader:All", "uid": "uid-role", "resourceVersion": "11"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
    }


def test_a_deployment_gets_a_resource_binding_named_after_it_with_replicas_and_requirements() -> None:
    """Name, namespace, owner, claim, resource reference, replicas and per-replica requests."""
    policy = propagation_policy("web-pp", [by_name()], placement=WEIGHTED, propagateDeps=True)
    binding = build_binding(deployment(), policy, permanent_id="rb-id")
    assert binding["apiVersion"] == "work.karmada.io/v1alpha2"
    assert binding["kind"] == "ResourceBinding"
    metadata = binding["metadata"]
    assert (metadata["name"], metadata["namespace"]) == ("web-deployment", "shop")
    assert metadata["labels"] == {
        "propagationpolicy.karmada.io/permanent-id": "pp-web-pp",
        "resourcebinding.karmada.io/permanent-id": "rb-id",
    }
    assert metadata["annotations"] == {
        "propagationpolicy.karmada.io/name": "web-pp",
        "propagationpolicy.karmada.io/namespace": "shop",
        TEMPLATE_SPECIFICATION_ANNOTATION: specification_fingerprint(deployment()),
    }
    assert metadata["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": "web",
            "uid": "uid-web",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    spec = binding["spec"]
    assert spec["resource"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "namespace": "shop",
        "name": "web",
        "uid": "uid-web",
        "resourceVersion": "7",
    }
    assert spec["replicas"] == 3
    assert spec["replicaRequirements"]["resourceRequest"] == {"cpu": "250m"}
    assert spec["placement"] == WEIGHTED
    assert spec["propagateDeps"] is True
    assert spec["schedulerName"] == "default-scheduler"
    assert "clusters" not in spec
    assert "status" not in binding


def test_a_cluster_scoped_template_gets_a_cluster_resource_binding() -> None:
    """A ClusterRole claimed by a CPP: CRB, CPP claim, no namespace, `:` in the name becomes `.`."""
    policy = cluster_propagation_policy(
        "roles", [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole"}]
    )
    binding = build_binding(_cluster_role(), policy, permanent_id="crb-id")
    assert binding["kind"] == "ClusterResourceBinding"
    assert binding["metadata"]["name"] == "reader.all-clusterrole"
    assert "namespace" not in binding["metadata"]
    assert binding["metadata"]["labels"] == {
        "clusterpropagationpolicy.karmada.io/permanent-id": "cpp-roles",
        "clusterresourcebinding.karmada.io/permanent-id": "crb-id",
    }
    assert binding["metadata"]["annotations"] == {
        "clusterpropagationpolicy.karmada.io/name": "roles",
        TEMPLATE_SPECIFICATION_ANNOTATION: specification_fingerprint(_cluster_role()),
    }
    assert "namespace" not in binding["spec"]["resource"]
    assert "replicas" not in binding["spec"]


def test_policy_knobs_are_copied_and_the_template_annotation_overrides_conflict_resolution() -> None:
    """Failover, preservation, suspension, scheduler name; `overwrite` on the template wins."""
    policy = propagation_policy(
        "web-pp",
        [by_name()],
        conflictResolution="Abort",
        preserveResourcesOnDeletion=True,
        schedulerName="my-scheduler",
        suspension={"dispatching": True},
        failover={"application": {"decisionConditions": {"tolerationSeconds": 60}, "purgeMode": "Directly"}},
    )
    spec = build_binding(deployment(), policy, permanent_id="id")["spec"]
    assert spec["conflictResolution"] == "Abort"
    assert spec["preserveResourcesOnDeletion"] is True
    assert spec["schedulerName"] == "my-scheduler"
    assert spec["suspension"] == {"dispatching": True}
    assert spec["failover"]["application"]["purgeMode"] == "Directly"
    annotated = deployment()
    annotated["metadata"]["annotations"] = {"work.karmada.io/conflict-resolution": "overwrite"}
    assert build_binding(annotated, policy, permanent_id="id")["spec"]["conflictResolution"] == "Overwrite"
    annotated["metadata"]["annotations"] = {"work.karmada.io/conflict-resolution": "sometimes"}
    assert build_binding(annotated, policy, permanent_id="id")["spec"]["conflictResolution"] == "Abort"


def test_schedule_priority_and_workload_affinity_groups() -> None:
    """The PriorityClass value the caller found, and `key=value` groups from the template's labels."""
    policy = propagation_policy(
        "web-pp",
        [by_name()],
        placement={
            "clusterAffinity": {"clusterNames": ["sz"]},
            "workloadAffinity": {
                "affinity": {"groupByLabelKey": "app"},
                "antiAffinity": {"groupByLabelKey": "x"},
            },
        },
    )
    spec = build_binding(deployment(), policy, permanent_id="id", schedule_priority=1000)["spec"]
    assert spec["schedulePriority"] == {"priority": 1000}
    assert spec["workloadAffinityGroups"] == {"affinityGroup": "app=web"}


def test_a_built_binding_is_up_to_date_with_itself_plus_other_writers_fields() -> None:
    """The scheduler's clusters, status and a suspension.scheduling flag do not make it stale."""
    policy = propagation_policy("web-pp", [by_name()], suspension={"dispatching": False})
    desired = build_binding(deployment(), policy, permanent_id="id")
    existing = copy.deepcopy(desired)
    existing["spec"]["clusters"] = [{"name": "sz", "replicas": 3}]
    existing["spec"]["suspension"]["scheduling"] = True
    existing["status"] = {"conditions": [{"type": "Scheduled", "status": "True"}]}
    existing["metadata"]["labels"]["extra"] = "label"
    existing["metadata"]["resourceVersion"] = "99"
    assert binding_up_to_date(existing, desired)


def test_a_binding_is_stale_when_replicas_placement_or_the_claim_differ() -> None:
    """Any detector-owned difference, or a leftover claim of the other policy kind, needs a write."""
    policy = propagation_policy("web-pp", [by_name()])
    desired = build_binding(deployment(), policy, permanent_id="id")
    scaled = copy.deepcopy(desired)
    scaled["spec"]["replicas"] = 5
    assert not binding_up_to_date(scaled, desired)
    moved = copy.deepcopy(desired)
    moved["spec"]["placement"] = {"clusterAffinity": {"clusterNames": ["elsewhere"]}}
    assert not binding_up_to_date(moved, desired)
    leftover = copy.deepcopy(desired)
    leftover["metadata"]["labels"]["clusterpropagationpolicy.karmada.io/permanent-id"] = "cpp-old"
    assert not binding_up_to_date(leftover, desired)
    unclaimed = copy.deepcopy(desired)
    del unclaimed["metadata"]["annotations"]
    assert not binding_up_to_date(unclaimed, desired)


def test_a_template_whose_status_alone_changed_leaves_its_binding_up_to_date() -> None:
    """A newer resourceVersion from a status write (aggregation) is no reason to write the binding:
    a restarted detector meets every template anew and must not rewrite every binding."""
    policy = propagation_policy("web-pp", [by_name()])
    template = deployment()
    existing = build_binding(template, policy, permanent_id="id")
    aggregated = copy.deepcopy(template)
    aggregated["metadata"]["resourceVersion"] = "5000"
    aggregated["metadata"]["managedFields"] = [{"manager": "status-aggregator", "subresource": "status"}]
    aggregated["status"] = {"replicas": 3, "readyReplicas": 3}
    assert binding_up_to_date(existing, build_binding(aggregated, policy, permanent_id="id"))


def test_a_template_whose_specification_changed_gets_its_binding_written() -> None:
    """A new image or label (nothing else in the binding changes): the binding names the new version."""
    policy = propagation_policy("web-pp", [by_name()])
    template = deployment()
    existing = build_binding(template, policy, permanent_id="id")
    for change in ("image", "label"):
        changed = copy.deepcopy(template)
        changed["metadata"]["resourceVersion"] = "5001"
        if change == "image":
            changed["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
        else:
            changed["metadata"].setdefault("labels", {})["tier"] = "front"
        desired = build_binding(changed, policy, permanent_id="id")
        assert not binding_up_to_date(existing, desired), change
        assert desired["spec"]["resource"]["resourceVersion"] == "5001"


def test_building_does_not_touch_the_template_or_the_policy() -> None:
    """The informer's cached objects are shared: the builder must not mutate them."""
    template = deployment()
    policy = propagation_policy("web-pp", [by_name()], placement=WEIGHTED)
    before = (copy.deepcopy(template), policy.to_object())
    binding = build_binding(template, policy, permanent_id="id")
    binding["spec"]["placement"]["clusterAffinity"]["clusterNames"].append("mutated")
    assert (template, policy.to_object()) == before
