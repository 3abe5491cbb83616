"""The agent's Lease: how it is created and renewed."""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.agent.lease import lease_duration_seconds, new_lease, renewed_lease
from flotilla.api.times import format_micro_time

NOW = datetime(2026, 1, 1, 12, 0, 0, 123456, tzinfo=UTC)


def test_renew_times_are_micro_times() -> None:
    """RFC 3339 in UTC with six fractional digits, as metav1.MicroTime."""
    assert format_micro_time(NOW) == "2026-01-01T12:00:00.123456Z"


def test_a_lease_lasts_four_renewals() -> None:
    """Renewed every 10 s, a Lease declares 40 s, as Karmada's agent does."""
    assert lease_duration_seconds(10) == 40
    assert lease_duration_seconds(0.1) == 1


def test_a_new_lease_is_held_by_the_cluster_and_owned_by_its_cluster_object() -> None:
    """karmada-cluster/<cluster>, holder the cluster, owner the Cluster so it goes with it."""
    cluster = {"metadata": {"name": "a", "uid": "u-1"}}
    lease = new_lease("a", cluster, NOW, 40)
    assert (lease["metadata"]["namespace"], lease["metadata"]["name"]) == ("karmada-cluster", "a")
    assert lease["metadata"]["ownerReferences"] == [
        {"apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster", "name": "a", "uid": "u-1"}
    ]
    assert lease["spec"] == {
        "holderIdentity": "a",
        "leaseDurationSeconds": 40,
        "renewTime": format_micro_time(NOW),
    }
    assert "ownerReferences" not in new_lease("a", None, NOW, 40)["metadata"]


def test_a_renewal_moves_the_renew_time_and_keeps_the_resource_version() -> None:
    """The update carries the copy's resourceVersion (a precondition) and leaves the input untouched."""
    lease = {
        "metadata": {"name": "a", "resourceVersion": "7"},
        "spec": {"renewTime": "old", "acquireTime": "x"},
    }
    renewed = renewed_lease(lease, "a", NOW, 40)
    assert renewed["metadata"]["resourceVersion"] == "7"
    assert renewed["spec"] == {
        "renewTime": format_micro_time(NOW),
        "acquireTime": "x",
        "holderIdentity": "a",
        "leaseDurationSeconds": 40,
    }
    assert lease["spec"]["renewTime"] == "old"
