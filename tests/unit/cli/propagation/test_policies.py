"""The policies `apply --all-clusters` and `promote` generate: Karmada's names and placements."""

from __future__ import annotations

from flotilla.api.karmada.names import fnv32a, safe_encode
from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.propagation.policies import (
    apply_policy,
    go_gvk_string,
    policy_name,
    promotion_policy,
    propagates,
)

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
CLUSTER_ROLE = GroupVersionKind("rbac.authorization.k8s.io", "v1", "ClusterRole")


def test_go_spells_the_core_group_with_a_leading_slash() -> None:
    """apimachinery's GroupVersionKind.String() keeps the `/` of the empty core group."""
    assert go_gvk_string(DEPLOYMENT) == "apps/v1, Kind=Deployment"
    assert go_gvk_string(CONFIG_MAP) == "/v1, Kind=ConfigMap"


def test_policy_name_is_the_name_and_the_hash_of_namespace_and_kind() -> None:
    """The suffix is FNV-1a of namespace + GVK string, in the safe alphabet, as Karmada computes it."""
    expected = "nginx-" + safe_encode(str(fnv32a("defaultapps/v1, Kind=Deployment")))
    assert policy_name("default", "nginx", DEPLOYMENT) == expected


def test_policy_names_differ_by_namespace_and_kind_but_not_by_object_name() -> None:
    """Same kind and namespace share a suffix; another namespace or kind changes it."""
    suffix = policy_name("default", "a", DEPLOYMENT).removeprefix("a-")
    assert policy_name("default", "b", DEPLOYMENT).removeprefix("b-") == suffix
    assert policy_name("other", "a", DEPLOYMENT) != policy_name("default", "a", DEPLOYMENT)
    assert policy_name("default", "a", CONFIG_MAP) != policy_name("default", "a", DEPLOYMENT)


def test_colons_in_rbac_names_become_dots_and_the_name_is_lower_case() -> None:
    """`system:viewer` cannot name a CRD object; Karmada writes it `system.viewer`."""
    name = policy_name("", "system:Viewer", CLUSTER_ROLE)
    assert name.startswith("system.viewer-")
    assert name == name.lower()


def test_all_clusters_policy_selects_exactly_the_object_and_places_everywhere() -> None:
    """A namespaced object gets a PropagationPolicy in its namespace with an empty cluster affinity."""
    policy = apply_policy(DEPLOYMENT, "nginx", "demo", None)
    assert policy["kind"] == "PropagationPolicy"
    assert policy["apiVersion"] == "policy.karmada.io/v1alpha1"
    assert policy["metadata"] == {"name": policy_name("demo", "nginx", DEPLOYMENT), "namespace": "demo"}
    assert policy["spec"] == {
        "resourceSelectors": [
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx", "namespace": "demo"}
        ],
        "placement": {"clusterAffinity": {}},
    }


def test_named_clusters_policy_lists_them_and_cluster_scoped_objects_get_a_cluster_policy() -> None:
    """`--cluster a,b` lists the clusters; a cluster-scoped object gets a ClusterPropagationPolicy."""
    policy = apply_policy(CLUSTER_ROLE, "viewer", "", ["member1", "member2"])
    assert policy["kind"] == "ClusterPropagationPolicy"
    assert "namespace" not in policy["metadata"]
    assert policy["spec"]["placement"] == {"clusterAffinity": {"clusterNames": ["member1", "member2"]}}
    assert policy["spec"]["resourceSelectors"] == [
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "name": "viewer"}
    ]


def test_promotion_policy_adopts_in_place_on_the_one_cluster() -> None:
    """Promote places on its member only, overwriting the existing object and keeping it on deletion."""
    policy = promotion_policy(DEPLOYMENT, "web", "shop", "member3")
    assert policy["metadata"] == {"name": policy_name("shop", "web", DEPLOYMENT), "namespace": "shop"}
    assert policy["spec"] == {
        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
        "placement": {"clusterAffinity": {"clusterNames": ["member3"]}},
        "conflictResolution": "Overwrite",
        "preserveResourcesOnDeletion": True,
    }


def test_promotion_policy_takes_a_chosen_name_and_propagates_dependencies_when_asked() -> None:
    """`--policy-name` replaces the generated name; `--dependencies` sets propagateDeps."""
    policy = promotion_policy(DEPLOYMENT, "web", "shop", "member3", policy="mine", dependencies=True)
    assert policy["metadata"]["name"] == "mine"
    assert policy["spec"]["propagateDeps"] is True


def test_karmadas_own_kinds_are_never_propagated() -> None:
    """Policies, bindings and clusters get no generated policy; ordinary kinds do."""
    assert not propagates(GroupVersionKind("policy.karmada.io", "v1alpha1", "PropagationPolicy"))
    assert not propagates(GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster"))
    assert propagates(DEPLOYMENT)
    assert propagates(CONFIG_MAP)
