"""The policy index finds every policy that could select a template, and forgets what it should."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.policy import ClusterPropagationPolicy, PropagationPolicy
from flotilla.controllers.detector.index import PolicyIndex
from tests.unit.controllers.detector.policies import (
    by_kind,
    by_label,
    by_name,
    cluster_propagation_policy,
    deployment,
    propagation_policy,
)


def _propagation_index(*policies: PropagationPolicy) -> PolicyIndex[PropagationPolicy]:
    index = PolicyIndex(PropagationPolicy.from_object, namespaced=True)
    for policy in policies:
        index.upsert(policy.to_object())
    return index


def _names(found: list[Any]) -> set[str]:
    return {policy.metadata.name for policy in found}


def test_candidates_are_policies_naming_the_template_or_selecting_its_kind() -> None:
    """By-name policies of other names and policies of other kinds are not candidates."""
    index = _propagation_index(
        propagation_policy("mine", [by_name("web")]),
        propagation_policy("other-name", [by_name("api")]),
        propagation_policy("labels", [by_label(app="x")]),
        propagation_policy("kind", [by_kind()]),
        propagation_policy("statefulsets", [{"apiVersion": "apps/v1", "kind": "StatefulSet"}]),
        propagation_policy("elsewhere", [by_kind()], namespace="other"),
    )
    assert _names(index.candidates(deployment("web"))) == {"mine", "labels", "kind"}


def test_an_update_refiles_a_policy_and_a_removal_forgets_it() -> None:
    """Changing the selected name moves the policy; deleting it leaves no trace."""
    index = _propagation_index(propagation_policy("p", [by_name("web")]))
    index.upsert(propagation_policy("p", [by_name("api")]).to_object())
    assert index.candidates(deployment("web")) == []
    assert _names(index.candidates(deployment("api"))) == {"p"}
    index.remove(propagation_policy("p", [by_name("api")]).to_object())
    assert index.candidates(deployment("api")) == []
    assert len(index) == 0


def test_a_policy_that_does_not_parse_is_not_filed() -> None:
    """A type error in a policy makes it invisible rather than breaking the index."""
    broken: dict[str, Any] = propagation_policy("p", [by_name("web")]).to_object()
    broken["spec"]["priority"] = "high"

    def parse(obj: Any) -> PropagationPolicy | None:
        try:
            return PropagationPolicy.from_object(obj)
        except ValueError:
            return None

    index = PolicyIndex(parse, namespaced=True)
    index.upsert(broken)
    assert len(index) == 0


def test_cluster_policies_are_candidates_in_every_namespace_and_for_cluster_scoped_kinds() -> None:
    """A CPP is filed without a namespace: any namespace's template (or none) can look it up."""
    index: PolicyIndex[ClusterPropagationPolicy] = PolicyIndex(
        ClusterPropagationPolicy.from_object, namespaced=False
    )
    index.upsert(cluster_propagation_policy("all", [by_kind()]).to_object())
    index.upsert(
        cluster_propagation_policy(
            "roles", [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "name": "r"}]
        ).to_object()
    )
    assert _names(index.candidates(deployment())) == {"all"}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}}
    assert _names(index.candidates(role)) == {"roles"}
