"""Registrations through an in-memory hub: auto and manual acceptance, conflicts, renewals."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from cryptography import x509

from flotilla.api.karmada.constants import CLUSTER
from flotilla.api.karmada.registration import (
    REQUESTER_ANNOTATION,
    ClusterAcceptance,
    pull_cluster,
    registration_annotations,
)
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.context import APISettings
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.karmadacrds import install_karmada_crds
from flotilla.apiserver.pki.clusterbinding import CLUSTER_UID_EXTRA, bound_cluster_uids
from flotilla.apiserver.pki.directory import create_ca
from flotilla.apiserver.pki.signing import SigningAuthority
from flotilla.apiserver.users import UserInfo
from flotilla.storage.memory import MemoryBackend
from tests.support.waiting import eventually_async
from tests.unit.apiserver.certificates.requests import AGENT_USAGES, certificate_request, signing_request
from tests.unit.apiserver.certificates.test_flow import create_as, stored

BOOTSTRAP = UserInfo("system:bootstrap:abcdef", ("system:bootstrappers", "system:authenticated"))
OTHER_BOOTSTRAP = UserInfo("system:bootstrap:zyxwvu", ("system:bootstrappers", "system:authenticated"))
AGENTS = ("system:karmada:agents",)
ROLE = GroupVersionKind("rbac.authorization.k8s.io", "v1", "Role")
CLUSTER_ROLE_BINDING = GroupVersionKind("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding")


async def _hub(mode: ClusterAcceptance) -> EmbeddedAPI:
    server = EmbeddedAPI(MemoryBackend(), APISettings(cluster_acceptance=mode))
    cert, key = create_ca("test-ca", datetime.now(UTC))
    server.context.signing_authority = SigningAuthority(cert, key)
    await server.start()
    await install_karmada_crds(server.context)
    return server


@pytest.fixture
async def hub() -> AsyncIterator[EmbeddedAPI]:
    server = await _hub(ClusterAcceptance.AUTO)
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def manual_hub() -> AsyncIterator[EmbeddedAPI]:
    server = await _hub(ClusterAcceptance.MANUAL)
    try:
        yield server
    finally:
        await server.stop()


def registration(name: str, cluster: str, cluster_id: str, region: str = "") -> dict[str, Any]:
    request = certificate_request(f"system:karmada:agent:{cluster}", AGENTS)
    body = signing_request(name, request, usages=AGENT_USAGES)
    body["metadata"]["annotations"] = registration_annotations(cluster_id, "cloud", region, ["z1", "z2"])
    return body


def conditions(api: EmbeddedAPI, name: str) -> list[dict[str, Any]]:
    return list((stored(api, name).get("status") or {}).get("conditions") or [])


async def test_auto_acceptance_creates_the_pull_cluster_and_rbac_before_issuing(hub: EmbeddedAPI) -> None:
    """A bootstrap registration gets its Cluster (from the annotations) and RBAC, then its certificate."""
    await create_as(hub, BOOTSTRAP, registration("agent-east", "east", "id-1", region="eu"))
    await eventually_async(lambda: (stored(hub, "agent-east").get("status") or {}).get("certificate"))
    cluster = hub.client("test").get(CLUSTER, "east")
    assert cluster is not None
    spec = cluster["spec"]
    assert (spec["syncMode"], spec["id"], spec["region"], spec["provider"], spec["zones"]) == (
        "Pull",
        "id-1",
        "eu",
        "cloud",
        ["z1", "z2"],
    )
    assert hub.client("test").get(ROLE, "system:karmada:agent:east", namespace="karmada-es-east") is not None
    assert hub.client("test").get(CLUSTER_ROLE_BINDING, "system:karmada:agent:east") is not None


async def test_a_name_taken_by_another_member_is_denied_with_the_reason(hub: EmbeddedAPI) -> None:
    """A second member registering an existing Pull cluster's name under another id is Denied, not issued."""
    await create_as(hub, BOOTSTRAP, registration("first", "east", "id-1"))
    await eventually_async(lambda: (stored(hub, "first").get("status") or {}).get("certificate"))
    await create_as(hub, BOOTSTRAP, registration("second", "east", "id-2"))
    (denied,) = await eventually_async(lambda: conditions(hub, "second"))
    assert (denied["type"], denied["reason"]) == ("Denied", "ClusterRegistrationRefused")
    assert "already registered by another member" in denied["message"]
    assert "id-1" not in denied["message"]


async def test_another_token_cannot_take_a_registered_name_even_with_its_cluster_id(hub: EmbeddedAPI) -> None:
    """The takeover: a second bootstrap token naming the first member's cluster and id is Denied and
    never learns who holds the name."""
    await create_as(hub, BOOTSTRAP, registration("first", "east", "id-1"))
    await eventually_async(lambda: (stored(hub, "first").get("status") or {}).get("certificate"))
    await create_as(hub, OTHER_BOOTSTRAP, registration("takeover", "east", "id-1"))
    (denied,) = await eventually_async(lambda: conditions(hub, "takeover"))
    assert (denied["type"], denied["reason"]) == ("Denied", "ClusterRegistrationRefused")
    assert "already registered by another member" in denied["message"]
    assert BOOTSTRAP.username not in denied["message"]
    assert not (stored(hub, "takeover").get("status") or {}).get("certificate")
    cluster = hub.client("test").get(CLUSTER, "east")
    assert cluster is not None
    assert cluster["metadata"]["annotations"][REQUESTER_ANNOTATION] == BOOTSTRAP.username


async def test_a_released_name_is_bound_to_the_next_registration_with_its_id(hub: EmbeddedAPI) -> None:
    """The operator removes the requester annotation; the member's new token may register it again."""
    await create_as(hub, BOOTSTRAP, registration("first", "east", "id-1"))
    await eventually_async(lambda: (stored(hub, "first").get("status") or {}).get("certificate"))

    def release(obj: dict[str, Any]) -> None:
        obj["metadata"]["annotations"].pop(REQUESTER_ANNOTATION)

    await hub.client("test").mutate(CLUSTER, "east", release)
    await create_as(hub, OTHER_BOOTSTRAP, registration("wrong-id", "east", "id-2"))
    (denied,) = await eventually_async(lambda: conditions(hub, "wrong-id"))
    assert denied["type"] == "Denied"
    await create_as(hub, OTHER_BOOTSTRAP, registration("again", "east", "id-1"))
    await eventually_async(lambda: (stored(hub, "again").get("status") or {}).get("certificate"))
    cluster = hub.client("test").get(CLUSTER, "east")
    assert cluster is not None
    assert cluster["metadata"]["annotations"][REQUESTER_ANNOTATION] == OTHER_BOOTSTRAP.username


async def test_the_same_member_registering_again_is_accepted(hub: EmbeddedAPI) -> None:
    """Same name and same cluster id (a member that lost its data directory) is approved again."""
    await create_as(hub, BOOTSTRAP, registration("first", "east", "id-1"))
    await eventually_async(lambda: (stored(hub, "first").get("status") or {}).get("certificate"))
    await create_as(hub, BOOTSTRAP, registration("again", "east", "id-1"))
    await eventually_async(lambda: (stored(hub, "again").get("status") or {}).get("certificate"))


async def test_a_push_cluster_s_name_cannot_be_registered(hub: EmbeddedAPI) -> None:
    """A registration under the name of a joined Push cluster is Denied."""
    push = {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": "west"},
        "spec": {"syncMode": "Push", "apiEndpoint": "https://10.0.0.1:6443"},
    }
    await hub.client("test").create(CLUSTER, push)
    await create_as(hub, BOOTSTRAP, registration("west-agent", "west", "id-9"))
    (denied,) = await eventually_async(lambda: conditions(hub, "west-agent"))
    assert denied["type"] == "Denied"
    assert "already joined in Push mode" in denied["message"]


async def test_manual_acceptance_leaves_bootstrap_registrations_pending(manual_hub: EmbeddedAPI) -> None:
    """With manual acceptance nothing is created and the request stays undecided."""
    await create_as(manual_hub, BOOTSTRAP, registration("agent-east", "east", "id-1"))
    # Reconcile it here as well, so the check below follows the approver's decision.
    await manual_hub.controllers.certificates.approver.reconcile("agent-east")
    assert conditions(manual_hub, "agent-east") == []
    assert manual_hub.client("test").get(CLUSTER, "east") is None


async def test_renewals_are_approved_even_with_manual_acceptance(manual_hub: EmbeddedAPI) -> None:
    """An agent renewing its own certificate (selfclusteragent) needs no operator."""
    await manual_hub.client("test").create(
        GroupVersionKind("rbac.authorization.k8s.io", "v1", "ClusterRole"),
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "renew"},
            "rules": [
                {
                    "apiGroups": ["certificates.k8s.io"],
                    "resources": ["certificatesigningrequests/selfclusteragent"],
                    "verbs": ["create"],
                }
            ],
        },
    )
    await manual_hub.client("test").create(
        CLUSTER_ROLE_BINDING,
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "renew"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "renew"},
            "subjects": [
                {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:karmada:agents"}
            ],
        },
    )
    cluster = await manual_hub.client("test").create(CLUSTER, pull_cluster("east", {}))
    bound = {CLUSTER_UID_EXTRA: [cluster["metadata"]["uid"]]}
    agent = UserInfo(
        "system:karmada:agent:east", ("system:karmada:agents", "system:authenticated"), extra=bound
    )
    await create_as(manual_hub, agent, registration("renewal", "east", "id-1"))
    await eventually_async(lambda: (stored(manual_hub, "renewal").get("status") or {}).get("certificate"))
    (approved,) = conditions(manual_hub, "renewal")
    assert approved["message"] == "Auto approving self karmada agent certificate after SubjectAccessReview."
    issued = x509.load_pem_x509_certificate(
        base64.b64decode(stored(manual_hub, "renewal")["status"]["certificate"])
    )
    assert bound_cluster_uids(issued) == [cluster["metadata"]["uid"]]

    stale = UserInfo(agent.username, agent.groups, extra={CLUSTER_UID_EXTRA: ["uid-of-an-earlier-east"]})
    await create_as(manual_hub, stale, registration("stale-renewal", "east", "id-1"))
    await manual_hub.controllers.certificates.approver.reconcile("stale-renewal")
    assert conditions(manual_hub, "stale-renewal") == []
