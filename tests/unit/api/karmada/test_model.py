"""The typed Karmada models read and write Karmada's JSON exactly, keeping what they do not know."""

from __future__ import annotations

from flotilla.api.karmada.cluster import ClusterSpec
from flotilla.api.karmada.model import Condition, Toleration, find_condition
from flotilla.api.karmada.policy import ClusterAffinity, FieldOverrider, Placement, PropagationPolicy
from flotilla.api.karmada.work import ResourceBindingStatus, TargetCluster


def test_unknown_fields_survive_a_round_trip_at_every_level() -> None:
    """Fields a newer Karmada (or a user) adds are kept on the object, the spec and nested structs."""
    obj = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "p", "namespace": "default", "futureMeta": {"x": 1}},
        "spec": {
            "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "newFilter": "yes"}],
            "placement": {"clusterAffinity": {"clusterNames": ["a"], "weightHint": 3}},
            "futureKnob": [1, None, {"deep": True}],
        },
        "status": {"observed": 4},
    }
    assert PropagationPolicy.from_object(obj).to_object() == obj


def test_go_json_names_that_are_not_camel_case_are_read_and_written() -> None:
    """`exclude`, `proxyURL`, `insecureSkipTLSVerification`, `schedulerObservingAffinityName` and `json`."""
    affinity = ClusterAffinity.from_object({"exclude": ["m3"]})
    assert affinity.exclude_clusters == ["m3"]
    assert ClusterAffinity(exclude_clusters=["m4"]).to_object() == {"exclude": ["m4"]}
    spec = ClusterSpec.from_object(
        {"syncMode": "Pull", "proxyURL": "http://p", "insecureSkipTLSVerification": True}
    )
    assert (spec.proxy_url, spec.insecure_skip_tls_verification) == ("http://p", True)
    assert spec.to_object() == {
        "syncMode": "Pull",
        "proxyURL": "http://p",
        "insecureSkipTLSVerification": True,
    }
    status = ResourceBindingStatus.from_object({"schedulerObservingAffinityName": "backup"})
    assert status.scheduler_observed_affinity_name == "backup"
    assert status.to_object() == {"schedulerObservingAffinityName": "backup"}
    overrider = FieldOverrider.from_object(
        {"fieldPath": "/data/x", "json": [{"subPath": "/a", "operator": "remove"}]}
    )
    assert overrider.json_operations[0].sub_path == "/a"
    assert "json" in overrider.to_object()


def test_defaults_are_not_written_but_explicit_empty_values_are() -> None:
    """Like Go's omitempty for unset fields; an empty list the input or a caller set is kept."""
    assert Placement().to_object() == {}
    assert Placement.from_object({"clusterTolerations": []}).to_object() == {"clusterTolerations": []}
    placement = Placement()
    placement.spread_constraints = []
    assert placement.to_object() == {"spreadConstraints": []}
    grown = Placement()
    grown.cluster_tolerations.append(Toleration(operator="Exists"))
    assert grown.to_object() == {"clusterTolerations": [{"operator": "Exists"}]}


def test_objects_built_in_code_serialize_with_karmada_names() -> None:
    """Models are constructed with Python names and written with Karmada's."""
    target = TargetCluster(name="sz", replicas=2)
    assert target.to_object() == {"name": "sz", "replicas": 2}
    policy = PropagationPolicy()
    policy.metadata.name = "p"
    policy.spec.placement.cluster_affinity = ClusterAffinity(cluster_names=["sz"])
    assert policy.to_object()["spec"] == {"placement": {"clusterAffinity": {"clusterNames": ["sz"]}}}
    assert policy.to_object()["kind"] == "PropagationPolicy"


def test_find_condition_returns_the_condition_of_a_type() -> None:
    """Absent types give None."""
    conditions = [Condition(type="Scheduled", status="True"), Condition(type="FullyApplied", status="False")]
    found = find_condition(conditions, "FullyApplied")
    assert found is not None and found.status == "False"
    assert find_condition(conditions, "Ready") is None
