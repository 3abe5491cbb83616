"""Rendering a template for one cluster: replicas, overrides, Karmada's labels and annotations, stripping."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from flotilla.api.karmada.work import ResourceBindingSpec
from flotilla.controllers.binding.render import (
    BindingReference,
    conflict_resolution,
    divides_replicas,
    job_completions,
    render_manifest,
    strip_server_fields,
    suspends_dispatching,
    target_clusters,
)
from flotilla.overrides import OverrideError

BINDING = BindingReference("ResourceBinding", "default", "nginx-deployment", "rb-id-1")
WORK_NAME = "nginx-687f7fb96f"


def template(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "nginx",
            "namespace": "default",
            "uid": "template-uid",
            "resourceVersion": "42",
            "generation": 3,
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"app": "nginx", "propagationpolicy.karmada.io/permanent-id": "pp-id"},
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": "{}",
                "deployment.kubernetes.io/revision": "1",
                "team": "web",
            },
            "managedFields": [{"manager": "kubectl"}],
            "ownerReferences": [{"kind": "Thing", "name": "x", "uid": "u", "apiVersion": "v1"}],
            "finalizers": ["example.com/keep"],
        },
        "spec": {
            "replicas": 4,
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {
                "metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "docker.io/library/nginx:1.25"}]},
            },
            **spec,
        },
        "status": {"replicas": 4, "readyReplicas": 4},
    }


def cluster(name: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, "labels": labels},
    }


def spec(placement: dict[str, Any] | None = None, **fields: Any) -> ResourceBindingSpec:
    return ResourceBindingSpec.from_object(
        {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": "default",
                "name": "nginx",
            },
            "replicas": 4,
            "placement": placement or {},
            **fields,
        }
    )


DIVIDED = {"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}}
DUPLICATED = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}


def render(obj: dict[str, Any], binding_spec: ResourceBindingSpec, **kwargs: Any) -> Any:
    arguments: dict[str, Any] = {
        "binding": BINDING,
        "spec": binding_spec,
        "cluster": cluster("sz"),
        "replicas": 1,
        "completions": None,
        "work_name": WORK_NAME,
        "work_namespace": "karmada-es-sz",
    }
    arguments.update(kwargs)
    return render_manifest(obj, **arguments)


def test_divided_scheduling_gives_the_cluster_its_share_of_replicas() -> None:
    """Under Divided scheduling the manifest asks for the cluster's replicas, not the template's."""
    rendered = render(template(), spec(DIVIDED), replicas=3)
    assert rendered.manifest["spec"]["replicas"] == 3


def test_divided_is_the_default_type_when_replica_scheduling_is_present() -> None:
    """A replicaScheduling without a type is Divided (the CRD default), so replicas are revised."""
    rendered = render(template(), spec({"replicaScheduling": {}}), replicas=1)
    assert rendered.manifest["spec"]["replicas"] == 1


@pytest.mark.parametrize("placement", [DUPLICATED, {}])
def test_duplicated_scheduling_keeps_the_template_replicas(placement: dict[str, Any]) -> None:
    """Duplicated scheduling (or none) sends every cluster the template's own spec.replicas."""
    rendered = render(template(), spec(placement), replicas=1)
    assert rendered.manifest["spec"]["replicas"] == 4


def test_a_kind_without_replicas_is_not_revised() -> None:
    """A ConfigMap under Divided scheduling passes through without a replica field."""
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}
    rendered = render(config_map, spec(DIVIDED), replicas=2)
    assert "spec" not in rendered.manifest


def test_server_owned_fields_are_stripped() -> None:
    """Status, identity, bookkeeping and kubectl's last-applied annotation never reach the member."""
    manifest = render(template(), spec(DUPLICATED)).manifest
    metadata = manifest["metadata"]
    assert "status" not in manifest
    for field in (
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "managedFields",
        "ownerReferences",
        "finalizers",
    ):
        assert field not in metadata, field
    assert "kubectl.kubernetes.io/last-applied-configuration" not in metadata["annotations"]
    assert "deployment.kubernetes.io/revision" not in metadata["annotations"]
    assert metadata["annotations"]["team"] == "web"
    assert metadata["namespace"] == "default"


def test_karmada_labels_and_annotations_point_back_to_work_binding_and_template() -> None:
    """The manifest names its Work, binding, template UID and generation, and is marked managed."""
    manifest = render(template(), spec(DUPLICATED)).manifest
    labels = manifest["metadata"]["labels"]
    annotations = manifest["metadata"]["annotations"]
    assert labels["karmada.io/managed"] == "true"
    assert labels["resourcebinding.karmada.io/permanent-id"] == "rb-id-1"
    assert labels["app"] == "nginx"
    assert annotations["work.karmada.io/name"] == WORK_NAME
    assert annotations["work.karmada.io/namespace"] == "karmada-es-sz"
    assert annotations["resourcebinding.karmada.io/name"] == "nginx-deployment"
    assert annotations["resourcebinding.karmada.io/namespace"] == "default"
    assert annotations["resourcetemplate.karmada.io/uid"] == "template-uid"
    assert annotations["resourcetemplate.karmada.io/generation"] == "3"
    assert annotations["work.karmada.io/conflict-resolution"] == "abort"


def test_cluster_scoped_bindings_use_their_own_label_and_annotation() -> None:
    """A ClusterResourceBinding is named by the clusterresourcebinding keys, without a namespace."""
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}
    binding = BindingReference("ClusterResourceBinding", "", "r-clusterrole", "crb-id")
    rendered = render(role, spec(DUPLICATED), binding=binding)
    assert (
        rendered.manifest["metadata"]["labels"]["clusterresourcebinding.karmada.io/permanent-id"] == "crb-id"
    )
    assert rendered.work_annotations["clusterresourcebinding.karmada.io/name"] == "r-clusterrole"
    assert "resourcebinding.karmada.io/namespace" not in rendered.work_annotations


def test_managed_keys_list_every_label_and_annotation_sorted() -> None:
    """managed-labels and managed-annotations list, sorted, all keys the manifest carries."""
    metadata = render(template(), spec(DUPLICATED)).manifest["metadata"]
    managed_labels = metadata["annotations"]["resourcetemplate.karmada.io/managed-labels"].split(",")
    managed_annotations = metadata["annotations"]["resourcetemplate.karmada.io/managed-annotations"].split(
        ","
    )
    assert managed_labels == sorted(metadata["labels"])
    assert managed_annotations == sorted(metadata["annotations"])


def test_overrides_apply_only_to_matching_clusters_and_are_recorded_on_the_work() -> None:
    """An image override for fz rewrites fz's registry and is named in the Work's annotation."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "registry", "namespace": "default"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["fz"]},
                    "overriders": {
                        "imageOverrider": [
                            {"component": "Registry", "operator": "replace", "value": "mirror.example"}
                        ]
                    },
                }
            ],
        },
    }
    on_fz = render(template(), spec(DUPLICATED), cluster=cluster("fz"), override_policies=[policy])
    on_sz = render(template(), spec(DUPLICATED), cluster=cluster("sz"), override_policies=[policy])
    image = on_fz.manifest["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == "mirror.example/library/nginx:1.25"
    assert (
        on_sz.manifest["spec"]["template"]["spec"]["containers"][0]["image"] == "docker.io/library/nginx:1.25"
    )
    assert '"policyName":"registry"' in on_fz.work_annotations["policy.karmada.io/applied-overrides"]
    assert "policy.karmada.io/applied-overrides" not in on_sz.work_annotations


def test_overrides_win_over_revised_replicas() -> None:
    """A plaintext override of spec.replicas applies after the replica revision."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "pin"},
        "spec": {
            "overrideRules": [
                {"overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 7}]}}
            ]
        },
    }
    rendered = render(template(), spec(DIVIDED), replicas=2, cluster_override_policies=[policy])
    assert rendered.manifest["spec"]["replicas"] == 7
    assert "policy.karmada.io/applied-cluster-overrides" in rendered.work_annotations


def test_a_failing_override_raises_naming_the_policy() -> None:
    """An override that cannot apply raises OverrideError instead of rendering a wrong manifest."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "broken"},
        "spec": {
            "overrideRules": [
                {"overriders": {"plaintext": [{"path": "/spec/nothing/x", "operator": "remove"}]}}
            ]
        },
    }
    with pytest.raises(OverrideError, match="broken"):
        render(template(), spec(DUPLICATED), cluster_override_policies=[policy])


def test_rendering_leaves_the_template_untouched() -> None:
    """The template dict is read, never modified."""
    original = template()
    kept = copy.deepcopy(original)
    render(original, spec(DIVIDED), replicas=1)
    assert original == kept


def test_conflict_resolution_comes_from_the_template_annotation_first() -> None:
    """A valid template annotation wins over the binding; an invalid one is ignored."""
    overwrite = spec(DUPLICATED, conflictResolution="Overwrite")
    annotated = {"metadata": {"annotations": {"work.karmada.io/conflict-resolution": "abort"}}}
    bogus = {"metadata": {"annotations": {"work.karmada.io/conflict-resolution": "maybe"}}}
    assert conflict_resolution(annotated, overwrite) == "abort"
    assert conflict_resolution(bogus, overwrite) == "overwrite"
    assert conflict_resolution({}, spec(DUPLICATED)) == "abort"


def test_service_cluster_ip_is_stripped_unless_headless() -> None:
    """The member allocates its own cluster IP; a headless Service keeps `None`."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"clusterIP": "10.0.0.5", "clusterIPs": ["10.0.0.5"]},
    }
    headless = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "h"},
        "spec": {"clusterIP": "None"},
    }
    strip_server_fields(service)
    strip_server_fields(headless)
    assert "clusterIP" not in service["spec"] and "clusterIPs" not in service["spec"]
    assert headless["spec"]["clusterIP"] == "None"


def test_job_generated_selector_labels_and_ttl_are_stripped() -> None:
    """A Job loses the controller-uid labels the hub generated, and its TTL."""
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {
            "ttlSecondsAfterFinished": 10,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u", "app": "j"}},
            "template": {"metadata": {"labels": {"controller-uid": "u", "job-name": "j", "app": "j"}}},
        },
    }
    strip_server_fields(job)
    assert job["spec"]["selector"]["matchLabels"] == {"app": "j"}
    assert job["spec"]["template"]["metadata"]["labels"] == {"app": "j"}
    assert "ttlSecondsAfterFinished" not in job["spec"]


def test_target_clusters_add_the_clusters_of_dependents() -> None:
    """requiredBy snapshots add their clusters after the scheduled ones, without duplicates."""
    binding_spec = spec(
        DUPLICATED,
        clusters=[{"name": "sz", "replicas": 1}],
        requiredBy=[{"name": "a", "clusters": [{"name": "sz"}, {"name": "gz"}]}],
    )
    assert [t.name for t in target_clusters(binding_spec)] == ["sz", "gz"]


def test_job_completions_split_in_proportion_to_replicas() -> None:
    """A Job's completions follow its clusters' replica shares."""
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"completions": 6}}
    targets = spec(DIVIDED, clusters=[{"name": "a", "replicas": 1}, {"name": "b", "replicas": 2}]).clusters
    assert job_completions(job, targets, "uid") == {"a": 2, "b": 4}
    assert job_completions(template(), targets, "uid") is None


def test_divides_replicas_needs_replicas() -> None:
    """A binding without replicas never divides."""
    assert divides_replicas(spec(DIVIDED))
    assert not divides_replicas(spec(DIVIDED, replicas=0))


def test_dispatching_is_suspended_everywhere_or_per_cluster() -> None:
    """suspension.dispatching stops every cluster; dispatchingOnClusters only the named ones."""
    everywhere = spec(DUPLICATED, suspension={"dispatching": True})
    on_fz = spec(DUPLICATED, suspension={"dispatchingOnClusters": {"clusterNames": ["fz"]}})
    assert suspends_dispatching(everywhere, "sz")
    assert suspends_dispatching(on_fz, "fz")
    assert not suspends_dispatching(on_fz, "sz")
    assert not suspends_dispatching(spec(DUPLICATED), "sz")
