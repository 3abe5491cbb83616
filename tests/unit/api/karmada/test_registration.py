"""A registration's Cluster and the rule that refuses a name taken by another cluster."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.registration import (
    REQUESTER_ANNOTATION,
    cluster_name_problems,
    pull_cluster,
    recorded_requester,
    registration_annotations,
    registration_conflict,
)


def _cluster(
    sync_mode: str, cluster_id: str = "", deleting: bool = False, requester: str = ""
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "east"}
    if requester:
        metadata["annotations"] = {REQUESTER_ANNOTATION: requester}
    if deleting:
        metadata["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    spec: dict[str, Any] = {"syncMode": sync_mode}
    if cluster_id:
        spec["id"] = cluster_id
    return {"metadata": metadata, "spec": spec}


def test_the_pull_cluster_carries_what_the_member_said_of_itself() -> None:
    """Id, provider, region and zones from the annotations; Pull mode; no endpoint or credentials."""
    annotations = registration_annotations("id-1", "cloud", "eu", ["a", "", "b"])
    cluster = pull_cluster("east", annotations)
    assert cluster["spec"] == {
        "syncMode": "Pull",
        "id": "id-1",
        "provider": "cloud",
        "region": "eu",
        "zones": ["a", "b"],
    }
    assert cluster["apiVersion"] == "cluster.karmada.io/v1alpha1"


def test_empty_registration_values_are_left_out() -> None:
    """Nothing said means no annotation and no spec field."""
    assert registration_annotations("", "", "", []) == {}
    assert pull_cluster("east", {})["spec"] == {"syncMode": "Pull"}


def test_a_new_name_or_the_same_member_again_is_accepted() -> None:
    """No Cluster, the same requester with the same id, or a Cluster bound to nobody with that id (or
    none): no conflict."""
    annotations = registration_annotations("id-1", "", "", [])
    assert registration_conflict("east", None, annotations, "tok-a") == ""
    assert (
        registration_conflict("east", _cluster("Pull", "id-1", requester="tok-a"), annotations, "tok-a") == ""
    )
    assert registration_conflict("east", _cluster("Pull", "id-1"), annotations, "tok-b") == ""
    assert registration_conflict("east", _cluster("Pull"), annotations, "tok-b") == ""


def test_a_name_belongs_to_its_first_requester_whatever_id_another_claims() -> None:
    """Another requester is refused even with the right id; the operator's consent is not bound."""
    annotations = registration_annotations("id-1", "", "", [])
    bound = _cluster("Pull", "id-1", requester="tok-a")
    assert "already registered by another member" in registration_conflict(
        "east", bound, annotations, "tok-b"
    )
    assert registration_conflict("east", bound, annotations, "admin", operator=True) == ""
    other_id = registration_annotations("id-2", "", "", [])
    assert registration_conflict("east", bound, other_id, "admin", operator=True)


def test_another_member_push_clusters_and_removals_are_refused_with_the_reason() -> None:
    """Each refusal names the conflict, and none repeats what the hub recorded of the cluster."""
    annotations = registration_annotations("id-2", "", "", [])
    refusal = registration_conflict("east", _cluster("Pull", "id-1", requester="tok-a"), annotations, "tok-a")
    assert "already registered by another member" in refusal
    assert "id-1" not in refusal
    assert "tok-a" not in refusal
    assert "already joined in Push mode" in registration_conflict(
        "east", _cluster("Push", "id-2"), annotations, "tok-a"
    )
    assert "being removed" in registration_conflict(
        "east", _cluster("Pull", "id-2", deleting=True), annotations, "tok-a"
    )
    assert "id-1" not in registration_conflict("east", _cluster("Pull", "id-1"), {}, "tok-a")


def test_the_pull_cluster_records_its_requester() -> None:
    """The requester is the annotation the next registration is held to."""
    cluster = pull_cluster("east", {}, "system:bootstrap:abcdef")
    assert cluster["metadata"]["annotations"] == {REQUESTER_ANNOTATION: "system:bootstrap:abcdef"}
    assert recorded_requester(cluster) == "system:bootstrap:abcdef"
    assert recorded_requester(pull_cluster("east", {})) == ""


def test_cluster_names_follow_karmada_s_rules() -> None:
    """DNS labels of at most 48 characters."""
    assert cluster_name_problems("member-1") == []
    assert cluster_name_problems("a" * 49) == ["must be no more than 48 characters"]
    assert cluster_name_problems("Member_1")
