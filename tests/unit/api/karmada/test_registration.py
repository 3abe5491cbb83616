"""A registration's Cluster and the rule that refuses a name taken by another cluster."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.registration import (
    cluster_name_problems,
    pull_cluster,
    registration_annotations,
    registration_conflict,
)


def _cluster(sync_mode: str, cluster_id: str = "", deleting: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "east"}
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
    """No Cluster, a Pull Cluster with the same id, or one recorded without an id: no conflict."""
    annotations = registration_annotations("id-1", "", "", [])
    assert registration_conflict("east", None, annotations) == ""
    assert registration_conflict("east", _cluster("Pull", "id-1"), annotations) == ""
    assert registration_conflict("east", _cluster("Pull"), annotations) == ""


def test_another_member_push_clusters_and_removals_are_refused_with_the_reason() -> None:
    """Each refusal names the conflict."""
    annotations = registration_annotations("id-2", "", "", [])
    assert "another member (cluster id id-1, this member's id is id-2)" in registration_conflict(
        "east", _cluster("Pull", "id-1"), annotations
    )
    assert "already joined in Push mode" in registration_conflict(
        "east", _cluster("Push", "id-2"), annotations
    )
    assert "being removed" in registration_conflict(
        "east", _cluster("Pull", "id-2", deleting=True), annotations
    )
    assert "this member's id is unknown" in registration_conflict("east", _cluster("Pull", "id-1"), {})


def test_cluster_names_follow_karmada_s_rules() -> None:
    """DNS labels of at most 48 characters."""
    assert cluster_name_problems("member-1") == []
    assert cluster_name_problems("a" * 49) == ["must be no more than 48 characters"]
    assert cluster_name_problems("Member_1")
