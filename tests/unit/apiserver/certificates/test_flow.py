"""CSRs through an in-memory API server: admission, approval, signing, auto-approval and cleaning."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cryptography import x509

from flotilla.api.objects import copy_object
from flotilla.apiserver import errors
from flotilla.apiserver.certificates.approval import write_approval
from flotilla.apiserver.certificates.cleaner import CSRCleaner
from flotilla.apiserver.certificates.signingrequests import CSR
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.pki.directory import create_ca
from flotilla.apiserver.pki.signing import SigningAuthority
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.users import SYSTEM_USER, UserInfo
from flotilla.apiserver.writes import normalize
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.apiserver.writes.pipeline import WriteOptions, create_object, update_flow
from flotilla.storage.memory import MemoryBackend
from tests.support.clock import ManualClock
from tests.support.waiting import eventually_async
from tests.unit.apiserver.certificates.requests import AGENT_USAGES, certificate_request, signing_request

BOB = UserInfo("bob", ("dev", "system:authenticated"), uid="1001", extra={"scopes": ["a"]})
JANE = UserInfo("jane", ("system:authenticated",))
BOOTSTRAP = UserInfo("system:bootstrap:abcdef", ("system:bootstrappers", "system:authenticated"))


@pytest.fixture
async def api() -> AsyncIterator[EmbeddedAPI]:
    server = EmbeddedAPI(MemoryBackend())
    cert, key = create_ca("test-ca", datetime.now(UTC))
    server.context.signing_authority = SigningAuthority(cert, key)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def settled(api: EmbeddedAPI) -> None:
    """Wait until the approver and the signer have reconciled every change so far (negative checks):
    from then on, what they have not done they will not do, which no fixed wait could promise."""
    certificates = api.controllers.certificates
    await eventually_async(
        lambda: (
            api.cache.revision == api.backend.current_revision()
            and certificates.approver.queue.idle
            and certificates.signer.queue.idle
        ),
        what="the approver and the signer have caught up",
    )


def served_csr(api: EmbeddedAPI) -> ServedResource:
    found = api.registry.by_kind(CSR)
    assert found is not None
    return found


def as_user(user: UserInfo) -> WriteOptions:
    return WriteOptions(False, FieldValidation.IGNORE, "test", user=user)


async def create_as(api: EmbeddedAPI, user: UserInfo, obj: dict[str, Any]) -> dict[str, Any]:
    served = served_csr(api)
    body = normalize.check_kind(served, copy_object(obj))
    return (await create_object(api.context, served, body, as_user(user))).obj


async def decide(api: EmbeddedAPI, name: str, user: UserInfo, *kinds: str) -> dict[str, Any]:
    """Write these conditions through the approval subresource, as `user`."""

    def wanted(current: CachedObject) -> dict[str, Any]:
        chosen = [{"type": kind, "status": "True", "reason": "Test"} for kind in kinds]
        return {**current.obj, "status": {"conditions": chosen}}

    return (await write_approval(api.context, served_csr(api), name, as_user(user), wanted)).obj


async def write_status(api: EmbeddedAPI, name: str, user: UserInfo, status: dict[str, Any]) -> dict[str, Any]:
    info = RequestInfo(
        "certificates.k8s.io", "v1", "", "certificatesigningrequests", name, "status", "update"
    )
    item = await update_flow(
        api.context,
        served_csr(api),
        info,
        as_user(user),
        lambda c: {**c.copy(), "status": status},
        subresource="status",
    )
    return item.obj


def stored(api: EmbeddedAPI, name: str) -> dict[str, Any]:
    found = api.client("test").get(CSR, name)
    assert found is not None
    return found


def issued(api: EmbeddedAPI, name: str) -> x509.Certificate:
    encoded = (stored(api, name).get("status") or {}).get("certificate", "")
    return x509.load_pem_x509_certificate(base64.b64decode(encoded))


async def test_the_requester_is_recorded_whatever_the_body_claims(api: EmbeddedAPI) -> None:
    """spec.username/uid/groups/extra are the authenticated user's, never the client's."""
    body = signing_request("bob", certificate_request("bob"), username="mallory", groups=["system:masters"])
    spec = (await create_as(api, BOB, body))["spec"]
    assert (spec["username"], spec["uid"], spec["groups"], spec["extra"]) == (
        "bob",
        "1001",
        ["dev", "system:authenticated"],
        {"scopes": ["a"]},
    )


async def test_a_client_certificate_for_system_masters_is_refused(api: EmbeddedAPI) -> None:
    """kube-apiserver-client requests naming system:masters are forbidden, even for masters."""
    body = signing_request("root", certificate_request("root", ("system:masters",)))
    with pytest.raises(errors.Forbidden, match="signer with system:masters group is not allowed"):
        await create_as(api, SYSTEM_USER, body)
    other_signer = signing_request(
        "other", certificate_request("root", ("system:masters",)), signer="example.com/x"
    )
    await create_as(api, SYSTEM_USER, other_signer)


async def test_updating_the_object_changes_neither_its_spec_nor_its_status(api: EmbeddedAPI) -> None:
    """Requests are immutable but for metadata; the status belongs to the subresources."""
    await create_as(api, BOB, signing_request("bob", certificate_request("bob")))

    def change(csr: dict[str, Any]) -> None:
        csr["spec"]["usages"] = ["client auth", "digital signature"]
        csr["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
        csr["metadata"]["labels"] = {"team": "a"}

    updated = await api.client("test").mutate(CSR, "bob", change)
    assert updated["spec"]["usages"] == ["client auth"]
    assert not (updated.get("status") or {}).get("conditions")
    assert updated["metadata"]["labels"] == {"team": "a"}


async def test_approval_needs_approve_on_the_signer(api: EmbeddedAPI) -> None:
    """A user without `approve` on signers is refused, with kube's message."""
    await create_as(api, BOB, signing_request("bob", certificate_request("bob")))
    with pytest.raises(errors.Forbidden) as refused:
        await decide(api, "bob", JANE, "Approved")
    assert refused.value.message == (
        'certificatesigningrequests.certificates.k8s.io "bob" is forbidden: user not permitted to approve '
        'requests with signerName "kubernetes.io/kube-apiserver-client"'
    )


async def test_an_approved_request_is_signed_and_the_approval_recorded_as_its_own_field_manager(
    api: EmbeddedAPI,
) -> None:
    """Approval changes only the conditions, under subresource approval; the signer then issues."""
    await create_as(
        api, BOB, signing_request("bob", certificate_request("bob", ("dev",)), expirationSeconds=3600)
    )
    approved = await decide(api, "bob", SYSTEM_USER, "Approved")
    (condition,) = approved["status"]["conditions"]
    assert condition["lastUpdateTime"] and condition["lastTransitionTime"]
    entries = {(e["manager"], e.get("subresource", "")) for e in approved["metadata"]["managedFields"]}
    assert ("test", "approval") in entries
    await eventually_async(lambda: (stored(api, "bob").get("status") or {}).get("certificate"))
    certificate = issued(api, "bob")
    assert certificate.subject.rfc4514_string() == "CN=bob,O=dev"
    lifetime = certificate.not_valid_after_utc - certificate.not_valid_before_utc
    assert lifetime == timedelta(hours=1, minutes=5)


async def test_approval_rules_are_enforced_on_the_approval_subresource(api: EmbeddedAPI) -> None:
    """Approved with Denied is a 422; a decision cannot be withdrawn."""
    await create_as(api, BOB, signing_request("bob", certificate_request("bob"), signer="example.com/manual"))
    with pytest.raises(errors.Invalid, match="mutually exclusive"):
        await decide(api, "bob", SYSTEM_USER, "Approved", "Denied")
    await decide(api, "bob", SYSTEM_USER, "Denied")
    with pytest.raises(errors.Invalid, match='may not remove a condition of type "Denied"'):
        await decide(api, "bob", SYSTEM_USER)


async def test_status_writes_need_sign_on_the_signer_and_may_not_approve(api: EmbeddedAPI) -> None:
    """Only signers write status; not even they may approve through it."""
    await create_as(api, BOB, signing_request("bob", certificate_request("bob"), signer="example.com/manual"))
    failed = {"conditions": [{"type": "Failed", "status": "True", "reason": "Nope"}]}
    with pytest.raises(
        errors.Forbidden, match=r'user not permitted to sign requests with signerName "example\.com/manual"'
    ):
        await write_status(api, "bob", JANE, failed)
    with pytest.raises(errors.Invalid, match='may not add a condition of type "Approved"'):
        await write_status(api, "bob", SYSTEM_USER, {"conditions": [{"type": "Approved", "status": "True"}]})
    written = await write_status(api, "bob", SYSTEM_USER, failed)
    assert written["status"]["conditions"][0]["lastUpdateTime"]


async def test_requests_the_signer_cannot_serve_get_a_failed_condition(api: EmbeddedAPI) -> None:
    """A client certificate asking for server auth is Failed, not signed."""
    body = signing_request("web", certificate_request("web"), usages=["client auth", "server auth"])
    await create_as(api, BOB, body)
    await decide(api, "web", SYSTEM_USER, "Approved")
    conditions = await eventually_async(
        lambda: len(stored(api, "web")["status"]["conditions"]) == 2 and stored(api, "web")
    )
    failed = conditions["status"]["conditions"][1]
    assert (failed["type"], failed["reason"]) == ("Failed", "SignerValidationFailure")
    assert failed["message"] == "invalid usage for client certificate: server auth"
    assert not conditions["status"].get("certificate")


async def test_agent_requests_from_bootstrap_identities_are_approved_and_signed(api: EmbeddedAPI) -> None:
    """Karmada agent requests by system:bootstrappers are AutoApproved; others wait for a human."""
    agent = certificate_request("system:karmada:agent:member1", ("system:karmada:agents",))
    await create_as(api, BOOTSTRAP, signing_request("agent", agent, usages=AGENT_USAGES))
    await create_as(api, JANE, signing_request("from-jane", agent, usages=AGENT_USAGES))
    not_agent = certificate_request("bob", ("system:karmada:agents",))
    await create_as(api, BOOTSTRAP, signing_request("not-agent", not_agent, usages=AGENT_USAGES))

    await eventually_async(lambda: (stored(api, "agent").get("status") or {}).get("certificate"))
    (condition,) = stored(api, "agent")["status"]["conditions"]
    assert (condition["type"], condition["reason"]) == ("Approved", "AutoApproved")
    assert condition["message"] == "Auto approving karmada agent certificate after SubjectAccessReview."
    assert (
        issued(api, "agent").subject.rfc4514_string()
        == "CN=system:karmada:agent:member1,O=system:karmada:agents"
    )
    await settled(api)
    assert not (stored(api, "from-jane").get("status") or {}).get("conditions")
    assert not (stored(api, "not-agent").get("status") or {}).get("conditions")


async def test_the_cleaner_deletes_requests_decided_more_than_an_hour_ago(api: EmbeddedAPI) -> None:
    """Denied requests go after an hour; pending ones stay for a day."""
    await create_as(
        api, BOB, signing_request("denied", certificate_request("a"), signer="example.com/manual")
    )
    await create_as(
        api, BOB, signing_request("pending", certificate_request("b"), signer="example.com/manual")
    )
    await decide(api, "denied", SYSTEM_USER, "Denied")
    clock = ManualClock(datetime.now(UTC))
    api.context.clock = clock
    cleaner = CSRCleaner(api.context)
    assert await cleaner.clean_once() == 0
    clock.advance(2 * 3600)
    assert await cleaner.clean_once() == 1
    assert api.client("test").get(CSR, "denied") is None
    assert api.client("test").get(CSR, "pending") is not None
