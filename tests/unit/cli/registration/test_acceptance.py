"""`flotilla accept`: which requests wait for acceptance, and when accepting is refused."""

from __future__ import annotations

from typing import Any

from flotilla.cli.registration.acceptance import (
    acceptance_problem,
    pending_registration,
    pending_registrations,
)
from flotilla.cli.registration.request import new_agent_key, signing_request

BOOTSTRAP_GROUPS = ["system:bootstrappers", "system:bootstrappers:karmada:default-cluster-token"]


def stored(
    name: str,
    cluster: str,
    cluster_id: str = "id-1",
    groups: list[str] | None = None,
    status: dict[str, Any] | None = None,
    created: str = "2025-03-01T12:00:00Z",
) -> dict[str, Any]:
    """A CSR as the hub stores a registration: named, with its requester recorded."""
    csr = signing_request(
        cluster, new_agent_key(cluster).request_pem, {"registration.flotilla.io/cluster-id": cluster_id}
    )
    csr["metadata"] = {**csr["metadata"], "name": name, "creationTimestamp": created}
    csr["spec"]["username"] = "system:bootstrap:abcdef"
    csr["spec"]["groups"] = BOOTSTRAP_GROUPS if groups is None else groups
    if status is not None:
        csr["status"] = status
    return csr


def test_an_undecided_bootstrap_registration_is_pending_with_its_cluster() -> None:
    """The cluster comes from the request's common name, the id from its annotation."""
    found = pending_registration(stored("agent-east-x", "east"))
    assert found is not None
    assert (found.request_name, found.cluster_name, found.cluster_id, found.requester) == (
        "agent-east-x",
        "east",
        "id-1",
        "system:bootstrap:abcdef",
    )


def test_decided_requests_and_other_requesters_are_not_pending() -> None:
    """Approved, denied or issued requests, and requests by non-bootstrap users, do not wait for accept."""
    approved = {"conditions": [{"type": "Approved", "status": "True"}]}
    assert pending_registration(stored("a", "east", status=approved)) is None
    assert pending_registration(stored("b", "east", status={"certificate": "UEVN"})) is None
    assert pending_registration(stored("c", "east", groups=["system:authenticated"])) is None
    other = stored("d", "east")
    other["spec"]["signerName"] = "example.com/other"
    assert pending_registration(other) is None


def test_pending_registrations_are_sorted_by_cluster_then_age() -> None:
    """The list accept --list prints."""
    found = pending_registrations(
        [
            stored("w2", "west", created="2025-03-01T12:00:02Z"),
            stored("e1", "east"),
            stored("w1", "west", created="2025-03-01T12:00:01Z"),
        ]
    )
    assert [p.request_name for p in found] == ["e1", "w1", "w2"]


def test_accepting_needs_a_waiting_registration_from_a_single_member() -> None:
    """Nothing waiting, or two members under one name, is refused with what to do."""
    assert "no registration of cluster east is waiting" in acceptance_problem("east", [], None)
    two = pending_registrations([stored("a", "east", "id-1"), stored("b", "east", "id-2")])
    problem = acceptance_problem("east", two, None)
    assert "several members ask to be cluster east (cluster ids id-1, id-2)" in problem
    assert "kubectl certificate deny" in problem


def test_accepting_applies_the_hub_s_conflict_rule() -> None:
    """A name taken by another member's Pull cluster is refused; a free name is not."""
    one = pending_registrations([stored("a", "east", "id-2")])
    assert acceptance_problem("east", one, None) == ""
    taken = {"metadata": {"name": "east"}, "spec": {"syncMode": "Pull", "id": "id-1"}}
    assert "already registered by another member" in acceptance_problem("east", one, taken)
