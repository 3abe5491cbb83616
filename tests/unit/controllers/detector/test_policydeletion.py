"""A deleted policy's finalizer, the templates its claim is on, and the patches that release them."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.controllers.detector.policydeletion import (
    PolicyKey,
    awaits_cleanup,
    finalizer_removal,
    permanent_id,
    policy_key,
    release_patch,
    selected_kinds,
)
from tests.unit.controllers.detector.policies import by_kind, by_name, deployment

PP = constants.PROPAGATION_POLICY
CPP = constants.CLUSTER_PROPAGATION_POLICY
PP_FINALIZER = "karmada.io/propagation-policy-controller"
CPP_FINALIZER = "karmada.io/cluster-propagation-policy-controller"
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")


def policy(
    kind: str = "PropagationPolicy",
    *,
    finalizers: list[str] | None = None,
    deleting: bool = True,
    selectors: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": "web-pp",
        "labels": {"propagationpolicy.karmada.io/permanent-id": "id-1"},
        "finalizers": finalizers if finalizers is not None else ["keep.example.com/x", PP_FINALIZER],
        "resourceVersion": "12",
    }
    if kind == "PropagationPolicy":
        metadata["namespace"] = "shop"
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": metadata,
        "spec": {"resourceSelectors": selectors if selectors is not None else [by_name()]},
    }


def test_karmada_names_the_finalizer_of_each_policy_kind() -> None:
    """The finalizers are Karmada's: one per propagation policy kind."""
    assert constants.PROPAGATION_POLICY_CONTROLLER_FINALIZER == PP_FINALIZER
    assert constants.CLUSTER_PROPAGATION_POLICY_CONTROLLER_FINALIZER == CPP_FINALIZER


def test_only_a_deleting_policy_with_the_finalizer_awaits_cleanup() -> None:
    """deletionTimestamp and the kind's own finalizer are both needed."""
    assert awaits_cleanup(PP, policy())
    assert not awaits_cleanup(PP, policy(deleting=False))
    assert not awaits_cleanup(PP, policy(finalizers=["keep.example.com/x"]))
    assert not awaits_cleanup(CPP, policy("ClusterPropagationPolicy"))
    assert awaits_cleanup(CPP, policy("ClusterPropagationPolicy", finalizers=[CPP_FINALIZER]))


def test_the_key_of_a_policy_names_its_kind_namespace_and_name() -> None:
    """A cluster policy's key has no namespace and prints as kind and name."""
    assert policy_key(PP, policy()) == PolicyKey(PP, "shop", "web-pp")
    assert str(policy_key(CPP, policy("ClusterPropagationPolicy"))) == "ClusterPropagationPolicy web-pp"


def test_the_claim_of_a_template_is_read_from_the_label_of_the_policy_kind() -> None:
    """The permanent-id label of the policy's kind; a policy's own id is read the same way."""
    template = deployment()
    template["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"] = "id-1"
    assert permanent_id(PP, template) == "id-1"
    assert permanent_id(CPP, template) == ""
    assert permanent_id(PP, policy()) == "id-1"


def test_a_propagation_policy_selects_only_in_its_namespace_a_cluster_policy_where_it_says() -> None:
    """Distinct (kind, namespace) pairs; a cluster policy's selector without a namespace means all."""
    namespaced = policy(selectors=[by_name("a"), by_name("b"), {**by_kind(), "namespace": "other"}])
    assert list(selected_kinds(namespaced)) == [(DEPLOYMENT, "shop")]
    cluster = policy("ClusterPropagationPolicy", selectors=[by_kind(), {**by_kind(), "namespace": "ops"}])
    assert list(selected_kinds(cluster)) == [(DEPLOYMENT, None), (DEPLOYMENT, "ops")]


def test_a_release_removes_every_claim_key_at_the_version_read() -> None:
    """The merge patch nulls the claim and pins resourceVersion, so a changed object answers 409."""
    template = deployment()
    template["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"] = "id-1"
    template["metadata"]["annotations"] = {
        "propagationpolicy.karmada.io/name": "web-pp",
        "propagationpolicy.karmada.io/namespace": "shop",
    }
    assert release_patch(template) == {
        "metadata": {
            "labels": {"propagationpolicy.karmada.io/permanent-id": None},
            "annotations": {
                "propagationpolicy.karmada.io/name": None,
                "propagationpolicy.karmada.io/namespace": None,
            },
            "resourceVersion": "7",
        }
    }
    assert release_patch(deployment()) is None


def test_the_finalizer_is_removed_by_its_index_after_a_test_of_it() -> None:
    """JSON patch: test the entry, then remove it, leaving other finalizers; None once it is gone."""
    assert finalizer_removal(PP, policy()) == [
        {"op": "test", "path": "/metadata/finalizers/1", "value": PP_FINALIZER},
        {"op": "remove", "path": "/metadata/finalizers/1"},
    ]
    assert finalizer_removal(PP, policy(finalizers=[])) is None
