"""The claim metadata a policy puts on templates and bindings, and the merge patches that change it."""

from __future__ import annotations

from flotilla.controllers.detector.claims import claim_patch, is_claimed
from tests.unit.controllers.detector.policies import (
    by_name,
    cluster_propagation_policy,
    deployment,
    propagation_policy,
)


def test_a_propagation_policy_claim_is_its_id_label_and_name_annotations() -> None:
    """Claiming sets the permanent-id label and the policy name and namespace annotations."""
    patch = claim_patch(deployment(), propagation_policy("web-pp", [by_name()]))
    assert patch == {
        "metadata": {
            "labels": {"propagationpolicy.karmada.io/permanent-id": "pp-web-pp"},
            "annotations": {
                "propagationpolicy.karmada.io/name": "web-pp",
                "propagationpolicy.karmada.io/namespace": "shop",
            },
        }
    }


def test_switching_to_a_cluster_policy_clears_the_propagation_policy_claim() -> None:
    """A CPP claim removes the PP keys with nulls and sets its own."""
    template = deployment()
    template["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"] = "pp-old"
    template["metadata"]["annotations"] = {
        "propagationpolicy.karmada.io/name": "old",
        "propagationpolicy.karmada.io/namespace": "shop",
        "keep": "me",
    }
    patch = claim_patch(template, cluster_propagation_policy("everything", [by_name()]))
    assert patch == {
        "metadata": {
            "labels": {
                "propagationpolicy.karmada.io/permanent-id": None,
                "clusterpropagationpolicy.karmada.io/permanent-id": "cpp-everything",
            },
            "annotations": {
                "propagationpolicy.karmada.io/name": None,
                "propagationpolicy.karmada.io/namespace": None,
                "clusterpropagationpolicy.karmada.io/name": "everything",
            },
        }
    }


def test_an_object_already_claimed_needs_no_patch() -> None:
    """Applying the patch once makes the next one empty."""
    policy = propagation_policy("web-pp", [by_name()])
    template = deployment()
    patch = claim_patch(template, policy)
    assert patch is not None
    template["metadata"]["labels"].update(patch["metadata"]["labels"])
    template["metadata"]["annotations"] = patch["metadata"]["annotations"]
    assert claim_patch(template, policy) is None
    assert is_claimed(template)


def test_releasing_removes_every_claim_key_and_nothing_else() -> None:
    """A release patch nulls exactly the claim keys present; an unclaimed object needs none."""
    template = deployment()
    template["metadata"]["labels"]["clusterpropagationpolicy.karmada.io/permanent-id"] = "cpp-x"
    template["metadata"]["annotations"] = {"clusterpropagationpolicy.karmada.io/name": "x", "note": "kept"}
    assert claim_patch(template, None) == {
        "metadata": {
            "labels": {"clusterpropagationpolicy.karmada.io/permanent-id": None},
            "annotations": {"clusterpropagationpolicy.karmada.io/name": None},
        }
    }
    assert claim_patch(deployment(), None) is None
    assert not is_claimed(deployment())
